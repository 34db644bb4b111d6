-- wrk script of scripts/bench-saturation.sh: every request asks for a variant that no server has rendered
-- before, so nothing can be a cache hit, while the work per request stays nearly the same.
--
--   wrk -t C -c C -d 15s --latency --timeout 60s -s scripts/bench-saturation.lua http://127.0.0.1:PORT -- \
--       STYLE PREFIX STEM EXT COPIES FORMAT QUALITY THREADS LOW [warmup]
--
-- STYLE    ours | sharp | thumbor (how the URL is spelled)
-- PREFIX   path before the file name: /v1/file/<account>/<folder>/ for ours, / for sharp (thumbor ignores it)
-- STEM EXT the source's copies are named <STEM>-c<k>.<EXT>, k in 0..COPIES-1 (the same bytes under other
--          names: ours keys its variants by file id, so each copy adds 4096 unrendered variants)
-- FORMAT   jpeg | webp | avif | png;  QUALITY: a number, or - for none (PNG)
-- THREADS  the -t given to wrk: init() runs before every thread exists, so it cannot count them itself
-- LOW      the smallest box side: boxes are LOW..LOW+63 a side (449 for the photos, 209 for the clip)
-- warmup   boxes of LOW-64..LOW-1 instead, so the warm-up's variants are not the measured ones
--
-- Request i of thread t has the global index n = t + i * THREADS (threads interleave and never collide);
-- the box is (lo + n % 64) × (lo + n / 64 % 64) and the copy n / 4096. With a 4:3 or 16:9 source the
-- fitted width is the box width, so the output stays LOW..LOW+63 px wide. done() prints one line, "SAT key=value ...",
-- which the driver parses (done runs in wrk's main Lua state, which never saw init's arguments, so the
-- driver, not this script, checks that the run stayed within COPIES × 4096 indices).

local next_id = 0

function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

local style, prefix, stem, ext, copies, format, quality, threads, lo
local issued = 0

function init(args)
   style, prefix, stem, ext = args[1], args[2], args[3], args[4]
   copies, format, quality, threads = tonumber(args[5]), args[6], args[7], tonumber(args[8])
   lo = tonumber(args[9])
   if not (style == "ours" or style == "sharp" or style == "thumbor") or not threads or not copies or not lo then
      error("usage: -- ours|sharp|thumbor PREFIX STEM EXT COPIES FORMAT QUALITY THREADS LOW [warmup]")
   end
   if args[10] == "warmup" then lo = lo - 64 end
end

function request()
   local n = id + issued * threads
   issued = issued + 1
   local w, h = lo + n % 64, lo + math.floor(n / 64) % 64
   local file = string.format("%s-c%d.%s", stem, math.floor(n / 4096) % copies, ext)
   local path
   if style == "thumbor" then
      local filters = string.format("filters:format(%s)", format)
      if quality ~= "-" then filters = string.format("filters:quality(%s):format(%s)", quality, format) end
      path = string.format("/unsafe/fit-in/%dx%d/%s/%s", w, h, filters, file)
   else
      path = string.format("%s%s?w=%d&h=%d&format=%s", prefix, file, w, h, format)
      if style == "ours" then path = path .. "&fit=inside" end
      if quality ~= "-" then path = path .. "&q=" .. quality end
   end
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "SAT requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect,
      e.read, e.write, e.timeout))
end
