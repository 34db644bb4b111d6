#!/usr/bin/env bash
# Embedded vs distributed on this machine, side by side: uploads/s of presign → PUT → confirm and req/s of
# a cached variant, for the same work against both topologies. One command:
#
#   scripts/bench-distributed.sh
#
# 1. Tools: the load generator oha ($OHA, else <tools>/bin/oha, else oha on PATH, else
#    `cargo install oha --locked --root <tools>`, <tools> = $BENCH_HTTP_TOOLS or <target>/tools, shared with
#    bench-http.sh), python3 (standard library only), curl, psql and redis-cli. The uploader is
#    examples/upload_rate.rs; the service binary is $SHUTTERBOX_BIN, or `cargo build --release --locked`
#    builds <target>/release/shutterbox.
# 2. Services of the distributed topology, as scripts/test.sh finds them: the machine's PostgreSQL
#    (127.0.0.1:5432, trust auth for `postgres`) and Redis (127.0.0.1:6379), started if installed but down;
#    s3s-fs started by scripts/start-s3.sh on a free port over a directory of this run (installed with
#    `cargo install` the first time). The run creates its own database `sbx_bench_<run>` and uses the Redis
#    key prefix `sbx_bench_<run>` and the bucket `bench`.
# 3. $BENCH_FILES distinct PNGs of exactly $BENCH_FILE_KB × 1024 bytes each are written once (python3 + zlib: 640 px
#    wide, a gradient with enough rows of random noise to reach the size, padded to the byte with a tEXt
#    chunk). Every file differs, so nothing dedupes, and each is a real image: confirm sniffs its type and
#    queues a thumbnail job that decodes it, and the variant below is a real 640 → 320 px resize.
# 4. For each topology in turn (the first is stopped before the second starts, so they never share the CPU):
#    - embedded: one `shutterbox serve` (SQLite and objects in a temporary data dir, in-process queue with
#      its default 2 job workers);
#    - distributed: API node A `shutterbox serve --workers 0` (started first; the `default` account's secret
#      key is read from its data directory's bootstrap-key), then API node B (same command) and one
#      `shutterbox worker --concurrency 2` (/healthz and /metrics on SHUTTERBOX_WORKER_LISTEN), all on
#      PostgreSQL + Redis + s3s-fs, with SHUTTERBOX_PUBLIC_URL = node A's URL.
#    Every process gets a free port on 127.0.0.1, SHUTTERBOX_RATE_LIMIT=1000000/60s (so the limiter never
#    throttles the bench), and no other SHUTTERBOX_* variable of the caller's environment.
#    a. Upload phase: examples/upload_rate.rs (the shared API client) with $BENCH_UPLOAD_CONCURRENCY
#       concurrent clients does presign → PUT <uploadUrl> → confirm for every file, failing on any refusal.
#       Distributed: file i is presigned on node i mod 2 and confirmed on the other node; its PUT goes
#       straight to s3s-fs (the presigned S3 URL). uploads/s = files / wall time of the whole phase; p50/p99
#       of one upload (the three steps together) and of each step. `shutterbox_queue_depth` (thumbnail jobs
#       still waiting) is read from the job runner's /metrics (the worker's, or the embedded server's) when
#       the phase ends, and again after the GET phase.
#    b. GET phase: the variant `<secureUrl of the first file>?$BENCH_VARIANT_QUERY` is requested once on
#       every API node (must be 200: this renders it, or reads node A's stored render, and caches it), then
#       `oha -n $BENCH_GETS -c $BENCH_CONNECTIONS` asks for it. Distributed: two oha at once, one per node
#       (the same path on node B's port), each with half the requests and half the connections; the table
#       shows the sum of their req/s, and beside it the more conservative all-GETs / the slower run's time
#       (the faster node finishes first), and the worse of their p50 and p99. Any non-200 or error fails
#       the run.
# 5. Prints a Markdown report (the table: uploads/s, upload p50/p99, cached GET req/s, GET p50/p99 with
#    columns embedded | distributed | distributed/embedded; then each step's p50/p99/max, the queue depths
#    and the count of WARN/ERROR lines in the services' logs) and writes it to
#    <target>/bench-distributed/report.md, next to the raw outputs (upload-*.json, oha-*.json, env.txt) and
#    the services' stderr (logs/; also written when the run fails, as logs/failed-*.stderr).
#
# Environment: CARGO_TARGET_DIR (<target>, default ./target), SHUTTERBOX_BIN (skip the build, use this
# binary), OHA, BENCH_HTTP_TOOLS, BENCH_FILES (1000), BENCH_FILE_KB (100), BENCH_GETS (10000),
# BENCH_UPLOAD_CONCURRENCY (16), BENCH_CONNECTIONS (64), BENCH_VARIANT_QUERY (w=320&format=webp),
# BENCH_KEEP=1 (keep the temporary directory; the database, Redis keys and processes go in any case).
# Exits non-zero when anything fails; slow figures are reported, not failures. Everything the run made
# (processes, database, Redis keys, s3s-fs and its directory, the temporary directory) is removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
repo=$PWD

target=${CARGO_TARGET_DIR:-$repo/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
out=$target/bench-distributed
tools=${BENCH_HTTP_TOOLS:-$target/tools}
files=${BENCH_FILES:-1000}
file_kb=${BENCH_FILE_KB:-100}
gets=${BENCH_GETS:-10000}
upload_concurrency=${BENCH_UPLOAD_CONCURRENCY:-16}
connections=${BENCH_CONNECTIONS:-64}
variant_query=${BENCH_VARIANT_QUERY:-w=320&format=webp}
rate_limit=1000000/60s

log() { echo "== [${SECONDS}s] $*" >&2; }
die() {
  echo "bench-distributed: $*" >&2
  exit 1
}
for v in files file_kb gets upload_concurrency connections; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, not '${!v}'"
done
((gets >= 2)) || die "BENCH_GETS must be at least 2 (the distributed run splits it over two nodes)"

run_id=$(date +%s)_$$
db=sbx_bench_$run_id
redis_prefix=sbx_bench_$run_id
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-distributed.XXXXXX")
pids=()     # shutterbox processes of the topology running now
helpers=()  # the upload driver or the oha processes running now
s3_pid=
db_created=0
pg() { PGCONNECT_TIMEOUT=5 psql -h 127.0.0.1 -p 5432 -U postgres -d postgres -qAtX "$@"; }
rcli() { redis-cli -h 127.0.0.1 -p 6379 "$@"; }

# stop_processes: TERM to every process in $pids, 15 s to finish, then KILL.
stop_processes() {
  local pid alive
  ((${#pids[@]})) || return 0
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 150); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
cleanup() {
  local status=$? pid
  set +e             # clean up as much as possible, whatever fails
  trap '' INT TERM   # and do not stop half-way
  for pid in "${helpers[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${helpers[@]}"; do wait "$pid" 2>/dev/null || true; done
  stop_processes
  if [[ -n $s3_pid ]]; then
    kill "$s3_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$s3_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$s3_pid" 2>/dev/null || true
  fi
  if ((db_created)); then
    pg -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 ||
      echo "bench-distributed: could not drop the database $db" >&2
  fi
  if command -v redis-cli >/dev/null; then
    rcli --scan --pattern "$redis_prefix:*" 2>/dev/null | xargs -r -n 500 redis-cli -h 127.0.0.1 -p 6379 del >/dev/null 2>&1 || true
  fi
  if ((status)) && [[ -d $out/logs ]]; then # the logs of a failed run, for the post-mortem
    for f in "$work"/*/stderr; do cp "$f" "$out/logs/failed-$(basename "$(dirname "$f")").stderr" 2>/dev/null; done
    echo "bench-distributed: the services' logs are in $out/logs" >&2
  fi
  if [[ ${BENCH_KEEP:-0} == 1 ]]; then echo "bench-distributed: kept $work" >&2; else rm -rf "$work"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. tools and the binary ---------------------------------------------------------------------------
for tool in curl python3 psql pg_isready redis-cli; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install curl python3 postgresql-client redis-tools)"
done

find_oha "$tools"

log "cargo build --release (the uploader, examples/upload_rate.rs, and the service unless \$SHUTTERBOX_BIN)"
cargo build --release --locked --example upload_rate >&2
uploader=$target/release/examples/upload_rate
if [[ -n ${SHUTTERBOX_BIN:-} ]]; then
  bin=$SHUTTERBOX_BIN
else
  cargo build --release --locked >&2
  bin=$target/release/shutterbox
fi
[[ -x $bin ]] || die "$bin is not an executable"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

mkdir -p "$out"
rm -rf "$out"/*.json "$out"/env.txt "$out"/report.md "$out"/logs
mkdir -p "$out/logs"

# --- 2. PostgreSQL, Redis, s3s-fs (as scripts/test.sh) ----------------------------------------------------
log "services"
ensure_postgres_and_redis || die "a service is missing"

pg -c "CREATE DATABASE \"$db\"" >/dev/null || die "could not create the database $db"
db_created=1

s3_port=$(free_port)
mkdir -p "$work/s3/data"
endpoint_line=$(scripts/start-s3.sh "$s3_port" "$work/s3/data" 2>"$work/s3/start.log" | tail -1) ||
  die "scripts/start-s3.sh failed: $(cat "$work/s3/start.log")"
cat "$work/s3/start.log" >&2
# start-s3.sh reuses an S3 server already answering on the port; only a server it started is ours to stop.
s3_pid=$(sed -n 's/.*s3s-fs (pid \([0-9][0-9]*\)).*/\1/p' "$work/s3/start.log" | head -1)
[[ -n $s3_pid ]] || die "scripts/start-s3.sh did not start s3s-fs on port $s3_port: $(cat "$work/s3/start.log")"
s3_cmd=$(tr '\0' ' ' <"/proc/$s3_pid/cmdline" 2>/dev/null || true)
if [[ $s3_cmd != *s3s-fs*"--port $s3_port "* ]]; then # never signal a process that is not ours
  s3_bad=$s3_pid s3_pid=
  die "pid $s3_bad, read from scripts/start-s3.sh, is not the s3s-fs of port $s3_port ($s3_cmd)"
fi
s3_endpoint=${endpoint_line#SHUTTERBOX_TEST_S3_ENDPOINT=}
[[ $s3_endpoint == http://127.0.0.1:$s3_port ]] || die "unexpected output of scripts/start-s3.sh: '$endpoint_line'"
log "PostgreSQL database $db, Redis prefix $redis_prefix, s3s-fs (pid $s3_pid) at $s3_endpoint"

# --- 3. the images ---------------------------------------------------------------------------------------
log "writing $files PNGs of $file_kb KB"
mkdir -p "$work/images"
python3 - "$work/images" "$files" "$((file_kb * 1024))" <<'EOF'
import os, struct, sys, zlib

out, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
width = 640
row = 1 + width * 3  # filter byte + RGB
# Rows of random noise (incompressible: about one `row` each once deflated) bring the file near `size`; the
# other rows are a gradient stored with PNG's Sub filter, which deflates to almost nothing.
noise_rows = max(1, (size - 4096) // row)
height = max(400, noise_rows + 64)
gradient = [b"\x01" + bytes((0, y * 255 // height, 128))
            + bytes(v for x in range(1, width) for v in ((x * 255 // width) - ((x - 1) * 255 // width), 0, 0))
            for y in range(height)]


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_with(noise_rows):
    rows = gradient[:]
    for n in range(noise_rows):
        rows[(n * height) // noise_rows] = b"\x00" + os.urandom(width * 3)
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", zlib.compress(b"".join(rows), 6))


framing = 12 + 4 + 12  # the tEXt chunk's framing and keyword "pad\0", the IEND chunk
for i in range(count):
    png = png_with(noise_rows)
    while len(png) + framing > size and noise_rows > 1:  # one row fewer, for this file and the next ones
        noise_rows -= 1
        png = png_with(noise_rows)
    if len(png) + framing <= size:  # pad to the byte
        png += chunk(b"tEXt", b"pad\x00" + b"." * (size - len(png) - framing))
    png += chunk(b"IEND", b"")
    with open(os.path.join(out, f"img-{i:06d}.png"), "wb") as f:
        f.write(png)
EOF
actual_kb=$(python3 -c 'import os, sys
d = sys.argv[1]; s = [os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)]
print(f"{min(s) / 1024:.1f}–{max(s) / 1024:.1f}" if min(s) != max(s) else f"{s[0] / 1024:.1f}")' "$work/images")

# --- helpers ---------------------------------------------------------------------------------------------
# start_proc NAME ARGS...: starts `$bin ARGS...` with the variables of ${proc_env[@]} and no other
# SHUTTERBOX_* one; logs in $work/NAME/{stdout,stderr}; sets last_pid.
start_proc() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  (
    for v in $(compgen -e | grep '^SHUTTERBOX_' || true); do unset "$v"; done
    export NO_COLOR=1 "${proc_env[@]}"
    exec "$bin" "$@" </dev/null >"$work/$name/stdout" 2>"$work/$name/stderr"
  ) &
  last_pid=$!
  pids+=("$last_pid")
}

# wait_healthy NAME URL PID: up to 60 s for URL/healthz to answer.
wait_healthy() {
  local name=$1 url=$2 pid=$3
  for _ in $(seq 600); do
    curl -fsS -m 2 -o /dev/null "$url/healthz" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || die "$name exited: $(tail -n 20 "$work/$name/stderr")"
    sleep 0.1
  done
  die "$name does not answer at $url/healthz after 60 s: $(tail -n 20 "$work/$name/stderr")"
}

# read_key DATA_DIR: the secret key the first start wrote to DATA_DIR/bootstrap-key (its output is no terminal).
read_key() {
  local key
  key=$(grep -m1 '^sbx_' "$1/bootstrap-key" 2>/dev/null || true)
  [[ -n $key ]] || die "the first start wrote no secret key to $1/bootstrap-key"
  echo "$key"
}

metric() { curl -fsS "$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }

# keep_logs TOPOLOGY NAME...: copies the processes' stderr logs into $out/logs (stdout holds only the key).
keep_logs() {
  local topo=$1 name
  shift
  for name in "$@"; do
    cp "$work/$name/stderr" "$out/logs/$topo-$name.stderr" 2>/dev/null || true
  done
}

# oha_check FILE LABEL N: fails unless FILE has N answers, all 200, and no errors.
oha_check() {
  python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
codes = d.get("statusCodeDistribution") or {}
bad = {k: v for k, v in codes.items() if str(k) != "200"}
errors = d.get("errorDistribution") or {}
if bad or errors or sum(codes.values()) != int(sys.argv[3]):
    sys.exit(f"{sys.argv[2]}: {sum(codes.values())} answers of {sys.argv[3]}, non-200 {bad}, errors {errors}")
s, p = d["summary"], d["latencyPercentiles"]
print(f"   {sys.argv[2]}: {s['requestsPerSec']:.0f} req/s, p50 {p['p50'] * 1e3:.2f} ms, p99 {p['p99'] * 1e3:.2f} ms",
      file=sys.stderr)
EOF
}

# warm_variant URL: one GET, must be 200.
warm_variant() {
  local code
  code=$(curl -sS -m 300 -o "$work/variant.out" -w '%{http_code}' "$1") || die "GET $1 failed"
  [[ $code == 200 ]] || die "GET $1 answered $code: $(head -c 500 "$work/variant.out")"
}

# bench TOPOLOGY KEY JOB_METRICS_URL NODE_URL...: the upload phase and the GET phase.
bench() {
  local topo=$1 key=$2 jobs_url=$3 url i n var_url file_url a_url queue_after_uploads queue_after_gets
  shift 3
  local nodes=("$@")
  log "$topo: upload phase ($files files, $upload_concurrency clients)"
  # In the background with `wait`, so that a signal to this script interrupts it (see cleanup).
  "$uploader" "$key" "$(IFS=,; echo "${nodes[*]}")" "$work/images" "$upload_concurrency" \
    "$out/upload-$topo.json" &
  helpers=("$!")
  wait "${helpers[0]}" || die "$topo: the upload phase failed"
  helpers=()
  queue_after_uploads=$(metric "$jobs_url" shutterbox_queue_depth) || die "$topo: $jobs_url/metrics failed"
  [[ -n $queue_after_uploads ]] || die "$topo: no shutterbox_queue_depth on $jobs_url/metrics"
  file_url=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["first"]["secureUrl"])' "$out/upload-$topo.json")
  a_url=${nodes[0]}
  [[ $file_url == "$a_url"/* ]] || die "$topo: secureUrl $file_url is not under $a_url"

  n=${#nodes[@]}
  log "$topo: GET phase ($gets GETs of ${file_url#"$a_url"}?$variant_query over $n node(s))"
  local labels=() counts=() conns=() urls=()
  for i in "${!nodes[@]}"; do
    url=${nodes[$i]}
    var_url=$url${file_url#"$a_url"}?$variant_query
    warm_variant "$var_url"
    labels+=("$topo-$i")
    urls+=("$var_url")
    # Node i gets its share of the requests and of the connections (the first ones take the remainders).
    counts+=("$(((gets + n - 1 - i) / n))")
    conns+=("$(((connections + n - 1 - i) / n > 0 ? (connections + n - 1 - i) / n : 1))")
  done
  for i in "${!nodes[@]}"; do
    "$oha_bin" -n "${counts[$i]}" -c "${conns[$i]}" --no-tui "${oha_json[@]}" "${urls[$i]}" \
      >"$out/oha-${labels[$i]}.json" 2>"$work/oha-${labels[$i]}.stderr" &
    helpers+=("$!")
  done
  for i in "${!helpers[@]}"; do
    wait "${helpers[$i]}" || die "oha ${labels[$i]} failed: $(cat "$work/oha-${labels[$i]}.stderr")"
  done
  helpers=()
  for i in "${!labels[@]}"; do
    oha_check "$out/oha-${labels[$i]}.json" "${labels[$i]}" "${counts[$i]}" || die "$topo: the GET phase failed"
  done
  queue_after_gets=$(metric "$jobs_url" shutterbox_queue_depth) || die "$topo: $jobs_url/metrics failed"
  {
    echo "${topo}_queue_after_uploads=$queue_after_uploads"
    echo "${topo}_queue_after_gets=${queue_after_gets:-0}"
    echo "${topo}_get_runs=${labels[*]}"
  } >>"$out/env.txt"
}

{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "git=$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- pipeline api worker src storage queue metadata model 2>/dev/null || echo ' + uncommitted changes')"
  echo "bin=$bin"
  echo "oha=$("$oha_bin" --version | head -1)"
  echo "postgres=$(pg -c 'SHOW server_version' | head -1)"
  echo "redis=$(rcli info server | tr -d '\r' | awk -F: '$1 == "redis_version" { print $2 }')"
  echo "files=$files"
  echo "file_kb=$file_kb"
  echo "file_kb_actual=$actual_kb"
  echo "gets=$gets"
  echo "upload_concurrency=$upload_concurrency"
  echo "connections=$connections"
  echo "variant_query=$variant_query"
  echo "rate_limit=$rate_limit"
} >"$out/env.txt"

# --- 4. embedded ------------------------------------------------------------------------------------------
log "embedded: one shutterbox serve"
port=$(free_port)
mkdir -p "$work/embedded-data"
proc_env=(SHUTTERBOX_DATA_DIR="$work/embedded-data" SHUTTERBOX_LISTEN="127.0.0.1:$port"
  SHUTTERBOX_RATE_LIMIT="$rate_limit")
start_proc serve serve
emb_url=http://127.0.0.1:$port
wait_healthy serve "$emb_url" "$last_pid"
emb_key=$(read_key "$work/embedded-data")
bench embedded "$emb_key" "$emb_url" "$emb_url"
stop_processes
keep_logs embedded serve

# --- 5. distributed ---------------------------------------------------------------------------------------
log "distributed: API nodes A and B (--workers 0) and a worker on PostgreSQL + Redis + s3s-fs"
port_a=$(free_port)
port_b=$(free_port)
port_w=$(free_port)
while [[ $port_b == "$port_a" ]]; do port_b=$(free_port); done
while [[ $port_w == "$port_a" || $port_w == "$port_b" ]]; do port_w=$(free_port); done
url_a=http://127.0.0.1:$port_a
url_b=http://127.0.0.1:$port_b
url_w=http://127.0.0.1:$port_w
mkdir -p "$work/dist-data"
common=(SHUTTERBOX_DATA_DIR="$work/dist-data"
  SHUTTERBOX_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db"
  SHUTTERBOX_REDIS_URL=redis://127.0.0.1:6379 SHUTTERBOX_REDIS_PREFIX="$redis_prefix"
  SHUTTERBOX_S3_ENDPOINT="$s3_endpoint" SHUTTERBOX_S3_BUCKET=bench
  SHUTTERBOX_S3_ACCESS_KEY=minioadmin SHUTTERBOX_S3_SECRET_KEY=minioadmin
  SHUTTERBOX_RATE_LIMIT="$rate_limit" SHUTTERBOX_PUBLIC_URL="$url_a")
proc_env=("${common[@]}" SHUTTERBOX_LISTEN="127.0.0.1:$port_a")
start_proc node-a serve --workers 0
wait_healthy node-a "$url_a" "$last_pid"
dist_key=$(read_key "$work/dist-data")
proc_env=("${common[@]}" SHUTTERBOX_LISTEN="127.0.0.1:$port_b")
start_proc node-b serve --workers 0
pid_b=$last_pid
proc_env=("${common[@]}" SHUTTERBOX_WORKER_LISTEN="127.0.0.1:$port_w")
start_proc worker worker --concurrency 2
pid_w=$last_pid
wait_healthy node-b "$url_b" "$pid_b"
wait_healthy worker "$url_w" "$pid_w"
log "distributed: node A $url_a, node B $url_b, worker $url_w"
bench distributed "$dist_key" "$url_w" "$url_a" "$url_b"
stop_processes
keep_logs distributed node-a node-b worker
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"

# --- 6. report --------------------------------------------------------------------------------------------
python3 - "$out" <<'EOF' | tee "$out/report.md"
import json, pathlib, re, sys

out = pathlib.Path(sys.argv[1])
env = dict(l.split("=", 1) for l in (out / "env.txt").read_text().splitlines() if "=" in l)
up = {t: json.load(open(out / f"upload-{t}.json")) for t in ("embedded", "distributed")}

def gets(topo):
    runs = [json.load(open(out / f"oha-{label}.json")) for label in env[f"{topo}_get_runs"].split()]
    return {
        "rps": sum(r["summary"]["requestsPerSec"] for r in runs),
        "p50": max(r["latencyPercentiles"]["p50"] for r in runs) * 1e3,
        "p99": max(r["latencyPercentiles"]["p99"] for r in runs) * 1e3,
        "each": [r["summary"]["requestsPerSec"] for r in runs],
        # All the requests over the longest run: below the sum when one node finished before the other.
        "aggregate": sum(sum(r["statusCodeDistribution"].values()) for r in runs) / max(r["summary"]["total"] for r in runs),
        "bytes": runs[0]["summary"].get("sizePerRequest"),
    }

g = {t: gets(t) for t in ("embedded", "distributed")}

def problems(topo):
    n = 0
    for f in (out / "logs").glob(f"{topo}-*.stderr"):
        n += sum(1 for l in f.read_text(errors="replace").splitlines()
                 if re.search(r"\b(WARN|ERROR)\b", re.sub(r"\x1b\[[0-9;]*m", "", l)))
    return n

def row(name, e, d, fmt="{:,.1f}", ratio=True):
    r = f"{d / e:.2f}" if ratio and e else "–"
    print(f"| {name} | {fmt.format(e)} | {fmt.format(d)} | {r} |")

print(f"## Embedded vs distributed ({env['date']})\n")
print(f"{env['nproc']} cores ({env['cpu']}), load average {env['loadavg_start']} at start, {env['loadavg_end']} "
      f"at end; sources {env['git']}; binary `{env['bin']}`; {env['oha']}; PostgreSQL {env['postgres']}, "
      f"Redis {env['redis']}, s3s-fs.\n")
print(f"Parameters: {env['files']} distinct PNGs of {env['file_kb_actual']} KB, presign → PUT → confirm on "
      f"{env['upload_concurrency']} concurrent clients; {env['gets']} GETs of the cached variant `?{env['variant_query']}` "
      f"on {env['connections']} connections (distributed: half of each per API node, two oha at once); "
      f"rate limit {env['rate_limit']}.\n")
print("Embedded: one `serve` (SQLite, local directory, in-process queue, 2 job workers). Distributed: two "
      "`serve --workers 0` nodes + one `worker --concurrency 2` on PostgreSQL, Redis and s3s-fs, all on this "
      "machine; presign on one node and confirm on the other, PUT straight to s3s-fs.\n")
print("| measure | embedded | distributed | distributed / embedded |")
print("|---|---:|---:|---:|")
E, D = up["embedded"], up["distributed"]
row("uploads/s", E["uploads_per_s"], D["uploads_per_s"])
row("upload p50 ms (presign + PUT + confirm)", E["total"]["p50_ms"], D["total"]["p50_ms"])
row("upload p99 ms", E["total"]["p99_ms"], D["total"]["p99_ms"])
row("cached GET req/s", g["embedded"]["rps"], g["distributed"]["rps"], "{:,.0f}")
row("cached GET req/s, all GETs / the slowest oha's time", g["embedded"]["aggregate"], g["distributed"]["aggregate"],
    "{:,.0f}")
row("GET p50 ms", g["embedded"]["p50"], g["distributed"]["p50"], "{:,.2f}")
row("GET p99 ms", g["embedded"]["p99"], g["distributed"]["p99"], "{:,.2f}")
print("\nDetails:\n")
print("| measure | embedded | distributed | distributed / embedded |")
print("|---|---:|---:|---:|")
for step in ("presign", "put", "confirm"):
    row(f"{step} p50 ms", E[step]["p50_ms"], D[step]["p50_ms"])
    row(f"{step} p99 ms", E[step]["p99_ms"], D[step]["p99_ms"])
    row(f"{step} max ms", E[step]["max_ms"], D[step]["max_ms"])
row("upload phase wall time s", E["wall_s"], D["wall_s"], "{:,.2f}")
for when in ("uploads", "gets"):
    row(f"thumbnail jobs waiting after the {'upload' if when == 'uploads' else 'GET'} phase "
        "(`shutterbox_queue_depth`)", int(env[f"embedded_queue_after_{when}"]),
        int(env[f"distributed_queue_after_{when}"]), "{:,.0f}", False)
row("WARN/ERROR lines in the services' logs", problems("embedded"), problems("distributed"), "{:,.0f}", False)
each = " + ".join(f"{v:,.0f}" for v in g["distributed"]["each"])
print(f"\nDistributed GET req/s per node (A + B): {each} (their sum is the cached GET req/s row; the row below it "
      f"counts the wall time until both finished); the p50/p99 are the worse node's. The variant is "
      f"{g['embedded']['bytes'] or 0:,} bytes.")
EOF
log "report written to $out/report.md"
