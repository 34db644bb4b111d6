#!/usr/bin/env bash
# HTTP-level benchmarks of the service (issue 3), one command on a fresh Debian/Ubuntu machine:
#
#   scripts/bench-http.sh
#
# 1. Installs what is missing: nginx, curl, python3, djpeg/cjpeg (libjpeg-turbo-progs) and pamscale (netpbm)
#    through apt-get (needs root), and the load generator oha through `cargo install oha --locked` into
#    $BENCH_HTTP_TOOLS (default <target>/tools).
# 2. Builds the service (`cargo build --release`, binary <target>/release/shutterbox) and writes the corpus if
#    it is missing (`cargo run --release -p shutterbox-pipeline --example make_corpus`), plus one ~50 MP JPEG
#    (8640×5760, photo-4000x3000.jpg scaled up with pamscale; 8660×5774 would be over the default
#    SHUTTERBOX_MAX_SOURCE_PIXELS of 50,000,000 and get a 400).
# 3. Starts `shutterbox serve` on 127.0.0.1:0 (a free port chosen by the kernel, read back from the log)
#    with its own temporary data directory, captures the `default` account's secret key from the first
#    start, and uploads the images through the real API (presign → PUT → confirm). Then:
#    a. Cached variant vs nginx: one ~20 KB variant ($BENCH_VARIANT_QUERY of photo-1200x800.jpg) is rendered
#       once, its bytes are saved to a file, and nginx (own config and prefix, one worker per core,
#       access_log off, sendfile on) serves that file on another port. oha, $BENCH_CONNECTIONS connections for
#       $BENCH_DURATION seconds, alternately against ours and nginx, $BENCH_ROUNDS rounds each after a
#       2-second warm-up of each; the median round is reported. Two diagnostic runs follow (one round each):
#       /healthz (the framework with no lookup) and /v1/raw/ of the same bytes uploaded as a file.
#    b. Cold render over HTTP: each source is uploaded $BENCH_COLD_REPS times under different names, so
#       every copy has its own file id and every request below misses both the in-memory cache and the
#       stored variants (they are keyed by file id) while doing exactly the same work. Each of the five
#       operations of pipeline/benches/render.rs is requested once per copy, one request at a time, with a
#       pause after each so the background persist of the previous render is not overlapping. curl's
#       time_total (a new loopback connection each time) is the client-side figure. Right before each
#       request the same render is timed in a separate process (pipeline/examples/render_file.rs, 5 runs,
#       the method of bench-pairs.sh); the target compares the two medians, paired so that the host's drift
#       over minutes does not decide it. The server's own render times (its debug log) and criterion's
#       median in $BENCH_CRITERION_DIR/<id>/new/estimates.json (when it exists) are reported beside them.
#       shutterbox_renders_total on /metrics must go up by exactly one per request, or the run fails.
#       As render_file renders twice untimed before it times, the server first gets $BENCH_COLD_WARMUP rounds
#       of the five requests on copies of their own, untimed in the medians: the first renders after a start
#       fault in the codecs' buffers and run slower (reported apart as "first requests after start").
#    c. Peak RSS: a second, fresh server; RSS idle, then the 50 MP JPEG is uploaded, the peak is reset
#       (`echo 5 > /proc/<pid>/clear_refs`), `?w=800` is requested, and VmHWM is read.
# 4. Prints a Markdown report and writes it to <target>/bench-http/report.md, next to the raw outputs
#    (oha JSON, cold.tsv, rss.txt, server logs).
#
# Environment: CARGO_TARGET_DIR (<target>, default ./target), SHUTTERBOX_CORPUS (default <target>/corpus),
# BENCH_DURATION (10), BENCH_CONNECTIONS (64), BENCH_ROUNDS (3), BENCH_COLD_REPS (7), BENCH_COLD_WARMUP (2),
# BENCH_VARIANT_QUERY (w=800&q=80&format=webp), BENCH_CRITERION_DIR (<target>/criterion/render),
# BENCH_RUN_CRITERION=1 (run `cargo bench -p shutterbox-pipeline --bench render` first, so both sides of b.
# come from the same source tree), BENCH_DIAG=0 (skip the diagnostic runs), OHA (path of an oha binary),
# BENCH_HTTP_KEEP=1 (keep the temporary directory), BENCH_SERVER_BIN (serve this build instead of the one just
# built, for A/B runs of two builds). Exits non-zero when anything fails; missed targets are
# reported, not failures.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
repo=$PWD

target=${CARGO_TARGET_DIR:-$repo/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
out=$target/bench-http
tools=${BENCH_HTTP_TOOLS:-$target/tools}
duration=${BENCH_DURATION:-10}
connections=${BENCH_CONNECTIONS:-64}
rounds=${BENCH_ROUNDS:-3}
cold_reps=${BENCH_COLD_REPS:-7}
cold_warmup=${BENCH_COLD_WARMUP:-2}
variant_query=${BENCH_VARIANT_QUERY:-w=800&q=80&format=webp}
criterion_dir=${BENCH_CRITERION_DIR:-$target/criterion/render}
big_w=8640 big_h=5760

log() { echo "== $*" >&2; }
die() {
  echo "bench-http: $*" >&2
  exit 1
}

work=$(mktemp -d /tmp/bench-http.XXXXXX)
chmod 755 "$work" # nginx workers may run as another user
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ ${BENCH_HTTP_KEEP:-0} == 1 ]]; then echo "bench-http: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. tools -------------------------------------------------------------------------------------------
nginx_bin=$(command -v nginx || true)
[[ -z $nginx_bin && -x /usr/sbin/nginx ]] && nginx_bin=/usr/sbin/nginx
missing=()
[[ -n $nginx_bin ]] || missing+=(nginx)
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
command -v djpeg >/dev/null && command -v cjpeg >/dev/null || missing+=(libjpeg-turbo-progs)
command -v pamscale >/dev/null || missing+=(netpbm)
if ((${#missing[@]})); then
  [[ $(id -u) == 0 ]] || die "missing ${missing[*]}: install them with apt-get (or run this as root)"
  log "apt-get install ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
fi
[[ -x $nginx_bin ]] || die "nginx not found after installing it"

find_oha "$tools"

# --- 2. build, corpus, the 50 MP image --------------------------------------------------------------------
mkdir -p "$out"
rm -f "$out"/*.json "$out"/cold.tsv "$out"/rss.txt "$out"/report.md
src_hash() { find pipeline/src variants/src api/src worker/src src -type f -name '*.rs' | sort | xargs cat | sha256sum | cut -c1-12; }

log "cargo build --release"
cargo build --release --locked >&2
cargo build --release --locked -p shutterbox-pipeline --example render_file >&2
bin=${BENCH_SERVER_BIN:-$target/release/shutterbox}
render_bin=$target/release/examples/render_file
[[ -x $bin ]] || die "$bin was not built"
build_hash=$(src_hash)

if [[ ! -f $corpus/photo-4000x3000.jpg || ! -f $corpus/photo-1200x800.jpg ]]; then
  log "writing the corpus into $corpus"
  cargo run --release --locked -p shutterbox-pipeline --example make_corpus -- "$corpus" >&2
fi
big=$corpus/photo-${big_w}x${big_h}.jpg
if [[ ! -s $big ]]; then
  log "writing $big (photo-4000x3000.jpg scaled up, q90)"
  djpeg -pnm "$corpus/photo-4000x3000.jpg" | pamscale -xsize "$big_w" -ysize "$big_h" | cjpeg -quality 90 >"$big.tmp"
  mv "$big.tmp" "$big"
fi

if [[ ${BENCH_RUN_CRITERION:-0} == 1 ]]; then
  log "cargo bench -p shutterbox-pipeline --bench render"
  rm -rf "$target/criterion/render"
  SHUTTERBOX_CORPUS=$corpus cargo bench --locked -p shutterbox-pipeline --bench render 2>&1 | tee "$out/criterion.log" >&2
  criterion_dir=$target/criterion/render
  [[ $(src_hash) == "$build_hash" ]] || log "WARNING: the sources changed between the build and the bench"
fi

# --- helpers ---------------------------------------------------------------------------------------------
json_get() { python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[k]
print(v)' "$1"; }

# start_server NAME: sets srv_pid, srv_url, srv_key.
start_server() {
  local dir=$work/$1 i
  mkdir -p "$dir/data"
  (
    for v in $(compgen -e | grep '^SHUTTERBOX_' || true); do unset "$v"; done
    # The renderer logs each render's own time at debug level (part b. reads it back).
    export SHUTTERBOX_DATA_DIR=$dir/data SHUTTERBOX_LISTEN=127.0.0.1:0 NO_COLOR=1 \
      SHUTTERBOX_LOG=info,shutterbox_variants::renderer=debug
    exec "$bin" serve >"$dir/stdout" 2>"$dir/stderr"
  ) &
  srv_pid=$!
  pids+=("$srv_pid")
  for i in $(seq 100); do
    grep -q 'shutterbox is serving' "$dir/stderr" 2>/dev/null && break
    kill -0 "$srv_pid" 2>/dev/null || die "the server exited: $(cat "$dir/stderr")"
    sleep 0.1
  done
  srv_url=$(sed 's/\x1b\[[0-9;]*m//g' "$dir/stderr" | grep -o 'url=http://[0-9.]*:[0-9]*' | head -1 | cut -d= -f2)
  srv_key=$(grep -o 'sbx_[0-9a-f]*' "$dir/data/bootstrap-key" 2>/dev/null | head -1)
  [[ -n $srv_url ]] || die "could not read the server's address from $dir/stderr"
  [[ -n $srv_key ]] || die "the first start wrote no secret key to $dir/data/bootstrap-key"
  curl -fsS "$srv_url/healthz" >/dev/null || die "$srv_url/healthz does not answer"
  log "server $1: pid $srv_pid at $srv_url"
}

# upload FILE NAME FOLDER: prints the secureUrl (`shutterbox upload` of this tree's build, whichever
# build serves).
upload() {
  "$target/release/shutterbox" upload --url "$srv_url" --key "$srv_key" --folder "$3" --name "$2" --type image/jpeg "$1" |
    json_get secureUrl
}

metric() { curl -fsS "$srv_url/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

# oha_run LABEL URL SECONDS: JSON into $out/oha-LABEL.json; fails unless every response was a 200.
oha_run() {
  local label=$1 url=$2 secs=$3 file=$out/oha-$1.json
  "$oha_bin" -z "${secs}s" -c "$connections" --no-tui "${oha_json[@]}" "$url" >"$file"
  python3 - "$file" "$label" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
codes = d.get("statusCodeDistribution", {})
bad = {k: v for k, v in codes.items() if str(k) != "200"}
# Requests cut off by the end of the run (-z) are listed as errors; anything else is a failure.
errors = {k: v for k, v in (d.get("errorDistribution") or {}).items() if "deadline" not in k}
if bad or not codes or errors:
    sys.exit(f"{sys.argv[2]}: non-200 answers {bad} or errors {errors}")
s, p = d["summary"], d["latencyPercentiles"]
print(f"   {sys.argv[2]}: {s['requestsPerSec']:.0f} req/s, p50 {p['p50'] * 1e3:.2f} ms, p99 {p['p99'] * 1e3:.2f} ms",
      file=sys.stderr)
EOF
}

{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "oha=$("$oha_bin" --version | head -1)"
  echo "nginx=$("$nginx_bin" -v 2>&1 | head -1)"
  echo "rustc=$(rustc --version)"
  echo "git=$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- pipeline api worker src 2>/dev/null || echo ' + uncommitted changes')"
  echo "src_hash=$build_hash"
  echo "duration=$duration"
  echo "connections=$connections"
  echo "rounds=$rounds"
  echo "cold_reps=$cold_reps"
  echo "cold_warmup=$cold_warmup"
  echo "variant_query=$variant_query"
} >"$out/env.txt"

# --- 3a. cached variant vs nginx -------------------------------------------------------------------------
start_server main
photo_url=$(upload "$corpus/photo-1200x800.jpg" photo-1200x800.jpg bench)
var_url="$photo_url?$variant_query"
mkdir -p "$work/www"
curl -fsS -D "$work/variant.headers" -o "$work/variant.first" "$var_url"
ctype=$(awk -F': *' 'tolower($1) == "content-type" { print $2 }' "$work/variant.headers" | tr -d '\r')
case $ctype in
  image/webp) ext=webp ;; image/jpeg) ext=jpg ;; image/png) ext=png ;; image/avif) ext=avif ;;
  *) die "unexpected Content-Type '$ctype' for $var_url" ;;
esac
curl -fsS -o "$work/www/variant.$ext" "$var_url"
cmp -s "$work/variant.first" "$work/www/variant.$ext" || die "the variant's bytes differ between two requests"
variant_bytes=$(stat -c%s "$work/www/variant.$ext")
((variant_bytes > 10000 && variant_bytes < 40000)) ||
  log "WARNING: the variant is $variant_bytes bytes, not ~20 KB; set BENCH_VARIANT_QUERY"
chmod -R a+rX "$work/www"
echo "variant_bytes=$variant_bytes" >>"$out/env.txt"
echo "variant_type=$ctype" >>"$out/env.txt"

start_static_nginx "$work/nginx" "$work/www" || die "nginx did not start"
pids+=("$nginx_pid")
nginx_url=http://127.0.0.1:$nginx_port/variant.$ext
curl -fsS -o "$work/nginx.check" "$nginx_url" || die "nginx does not answer at $nginx_url"
cmp -s "$work/nginx.check" "$work/www/variant.$ext" || die "nginx serves other bytes"

log "a. cached variant ($variant_query, $variant_bytes bytes, $ctype): oha -c $connections -z ${duration}s"
oha_run warmup-ours "$var_url" 2
oha_run warmup-nginx "$nginx_url" 2
for r in $(seq "$rounds"); do
  oha_run "ours-$r" "$var_url" "$duration"
  oha_run "nginx-$r" "$nginx_url" "$duration"
done
if [[ ${BENCH_DIAG:-1} == 1 ]]; then
  log "a. diagnostics: /healthz and /v1/raw/ of the same bytes"
  raw_file_url=$(upload "$work/www/variant.$ext" "variant-copy.$ext" bench)
  raw_url=${raw_file_url/\/v1\/file\//\/v1\/raw\/}
  oha_run diag-healthz "$srv_url/healthz" "$duration"
  oha_run diag-raw "$raw_url" "$duration"
fi

# --- 3b. cold renders over HTTP --------------------------------------------------------------------------
# id, source, query, and the render target for the in-process timing (render_file's TARGET).
ops=(
  "jpeg4000_w800_jpeg_q80 photo-4000x3000 w=800&q=80 jpeg"
  "jpeg4000_w800_webp_q80 photo-4000x3000 w=800&q=80&format=webp webp"
  "jpeg4000_w800_avif photo-4000x3000 w=800&format=avif avif"
  "jpeg4000_cover200_jpeg photo-4000x3000 w=200&h=200&fit=cover jpeg"
  "jpeg1200_blur5_gray_jpeg photo-1200x800 blur=5&gray=true&q=80 jpeg"
)
log "b. cold renders: uploading $cold_reps copies of each source, and $cold_warmup for the warm-up"
declare -A copies
for c in $(seq "$cold_reps") $(seq -f 'w%g' "$cold_warmup"); do
  for src in photo-4000x3000 photo-1200x800; do
    copies[$src.$c]=$(upload "$corpus/$src.jpg" "$src-cold$c.jpg" cold)
  done
done
sleep 2 # the thumbnail jobs of the uploads above finish first
# The warm-up: the first requests after start, timed apart.
printf 'id\tcopy\tstatus\ttime_total_s\n' >"$out/cold-warmup.tsv"
for c in $(seq -f 'w%g' "$cold_warmup"); do
  for op in "${ops[@]}"; do
    read -r id src query format <<<"$op"
    line=$(curl -sS -o /dev/null -w '%{http_code}\t%{time_total}' "${copies[$src.$c]}?$query")
    [[ ${line%%$'\t'*} == 200 ]] || die "warm-up request ${copies[$src.$c]}?$query answered ${line%%$'\t'*}"
    printf '%s\t%s\t%s\n' "$id" "$c" "$line" >>"$out/cold-warmup.tsv"
    sleep 0.5
  done
done
renders_before=$(metric shutterbox_renders_total)
printf 'id\tcopy\tinprocess_ms\tstatus\tbytes\ttime_total_s\ttime_starttransfer_s\tserver_faults\n' >"$out/cold.tsv"
# The server's minor page faults so far (field 10 of /proc/<pid>/stat; the name field has no spaces).
minflt() { awk '{ print $10 }' "/proc/$srv_pid/stat"; }
log_before=$(wc -l <"$work/main/stderr")
for c in $(seq "$cold_reps"); do
  for op in "${ops[@]}"; do
    read -r id src query format <<<"$op"
    # The same render in this process's neighbour, seconds before: on a host whose speed drifts over
    # minutes, the pair says what serving adds better than a criterion run from earlier does.
    inprocess=$("$render_bin" "$corpus/$src.jpg" "$query" "$format" "$out/inprocess-output" 5 |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["median_ms"])')
    faults_before=$(minflt)
    line=$(curl -sS -o /dev/null -w '%{http_code}\t%{size_download}\t%{time_total}\t%{time_starttransfer}' \
      "${copies[$src.$c]}?$query")
    faults=$(($(minflt) - faults_before))
    [[ ${line%%$'\t'*} == 200 ]] || die "cold request ${copies[$src.$c]}?$query answered ${line%%$'\t'*}"
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$c" "$inprocess" "$line" "$faults" >>"$out/cold.tsv"
    sleep 0.5 # let the background persist of this render finish before the next one
  done
done
renders_after=$(metric shutterbox_renders_total)
# The server's own time for each of those renders, in request order.
tail -n +"$((log_before + 1))" "$work/main/stderr" | grep -o 'rendered elapsed_ms=[0-9.]*' | cut -d= -f2 \
  >"$out/cold-server-render-ms.txt" || true
expected=$((cold_reps * ${#ops[@]}))
# None at all means the renderer's log target (SHUTTERBOX_LOG in start_server) has moved.
[[ -s $out/cold-server-render-ms.txt ]] || die "the server logged no render times ('rendered elapsed_ms=')"
(( renders_after - renders_before == expected )) ||
  die "expected $expected fresh renders, /metrics counted $((renders_after - renders_before))"
echo "cold_renders_counted=$((renders_after - renders_before))" >>"$out/env.txt"

# --- 3c. peak RSS on a fresh server ----------------------------------------------------------------------
log "c. peak RSS: fresh server, ${big_w}x${big_h} JPEG at ?w=800"
start_server rss
sleep 1
status_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$srv_pid/status"; }
{
  echo "idle_rss_kb=$(status_kb VmRSS)"
  big_url=$(upload "$big" "big-${big_w}x${big_h}.jpg" rss)
  echo "after_upload_rss_kb=$(status_kb VmRSS)"
  echo "after_upload_hwm_kb=$(status_kb VmHWM)"
  if echo 5 >"/proc/$srv_pid/clear_refs" 2>/dev/null; then echo "hwm_reset=yes"; else echo "hwm_reset=no"; fi
  echo "big_bytes=$(stat -c%s "$big")"
  echo "big_request=$(curl -sS -o /dev/null -w '%{http_code} %{size_download} %{time_total}' "$big_url?w=800")"
  sleep 1
  echo "request_hwm_kb=$(status_kb VmHWM)"
  echo "after_request_rss_kb=$(status_kb VmRSS)"
} >"$out/rss.txt"
grep -q '^big_request=200 ' "$out/rss.txt" || die "the 50 MP request failed: $(grep big_request "$out/rss.txt")"
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"

# --- 4. report -------------------------------------------------------------------------------------------
python3 - "$out" "$criterion_dir" "$rounds" <<'EOF' | tee "$out/report.md"
import json, pathlib, statistics, sys

out, crit, rounds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
env = dict(l.split("=", 1) for l in (out / "env.txt").read_text().splitlines() if "=" in l)
rss = dict(l.split("=", 1) for l in (out / "rss.txt").read_text().splitlines() if "=" in l)

def oha(label):
    d = json.load(open(out / f"oha-{label}.json"))
    return d["summary"]["requestsPerSec"], d["latencyPercentiles"]["p50"] * 1e3, d["latencyPercentiles"]["p99"] * 1e3

def median_round(side):
    runs = sorted((oha(f"{side}-{r}") for r in range(1, rounds + 1)), key=lambda t: t[0])
    return runs[(len(runs) - 1) // 2], runs

ours, ours_runs = median_round("ours")
nginx, nginx_runs = median_round("nginx")
ratio = ours[0] / nginx[0]

print(f"Run {env['date']}: {env['nproc']} cores ({env['cpu']}), load average at start {env['loadavg_start']}, "
      f"at end {env['loadavg_end']}; {env['oha']}, {env['nginx']}, {env['rustc']}; "
      f"sources {env['git']} (hash {env['src_hash']}).\n")
print(f"### a. Cached variant vs nginx (oha, {env['duration']} s × {env['connections']} connections, "
      f"median of {rounds} alternating rounds)\n")
print(f"Variant: `photo-1200x800.jpg?{env['variant_query']}`, {int(env['variant_bytes']):,} bytes "
      f"({env['variant_type']}); nginx serves the same bytes from a file.\n")
print("| server | req/s | p50 ms | p99 ms | req/s of each round |")
print("|---|---:|---:|---:|---|")
for name, best, runs in (("shutterbox, cached variant", ours, ours_runs), ("nginx, static file", nginx, nginx_runs)):
    print(f"| {name} | {best[0]:,.0f} | {best[1]:.2f} | {best[2]:.2f} | "
          f"{', '.join(f'{r[0]:,.0f}' for r in runs)} |")
print(f"| **ours / nginx** | **{ratio:.2f}** | | | |")
diag = [(l, n) for l, n in (("diag-healthz", "shutterbox `/healthz` (no lookup, tiny JSON)"),
                             ("diag-raw", "shutterbox `/v1/raw/` of the same bytes (lookup + file read)"))
        if (out / f"oha-{l}.json").exists()]
if diag:
    print("\nDiagnostics (one round each):\n")
    print("| endpoint | req/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|")
    for label, name in diag:
        r = oha(label)
        print(f"| {name} | {r[0]:,.0f} | {r[1]:.2f} | {r[2]:.2f} |")

labels = {
    "jpeg4000_w800_jpeg_q80": ("4000×3000 → 800 px JPEG q80", "w=800&q=80"),
    "jpeg4000_w800_webp_q80": ("4000×3000 → 800 px WebP q80", "w=800&q=80&format=webp"),
    "jpeg4000_w800_avif": ("4000×3000 → 800 px AVIF", "w=800&format=avif"),
    "jpeg4000_cover200_jpeg": ("4000×3000 → 200×200 cover JPEG", "w=200&h=200&fit=cover"),
    "jpeg1200_blur5_gray_jpeg": ("1200×800 blur 5 + gray JPEG q80", "blur=5&gray=true&q=80"),
}
rows = [l.split("\t") for l in (out / "cold.tsv").read_text().splitlines()[1:]]
server_ms = [float(v) for v in (out / "cold-server-render-ms.txt").read_text().split()]
# One logged render per request, in request order, when the log has them all.
server_of = dict(zip(range(len(rows)), server_ms)) if len(server_ms) == len(rows) else {}
cold_ok = True
print(f"\n### b. Cold render over HTTP vs the pipeline bench ({env['cold_reps']} cold requests per operation)\n")
print("Each HTTP request is paired with the same render timed in a separate process seconds before it "
      "(`render_file` with 5 runs, the method of `bench-pairs.sh`); the server's own render time comes from "
      "its log, its page faults from /proc. Criterion's median, from an earlier run, is shown for reference.\n")
print(f"Before them, {env['cold_warmup']} untimed rounds of the five requests on copies of their own (as "
      "`render_file` renders twice before it times); those first requests after start are listed in the last "
      "column and are not in the medians.\n")
print("| operation | HTTP median ms | HTTP min–max ms | in-process median ms (paired) | HTTP − in-process ms "
      "| render time in the server, median ms | server page faults per request, median | criterion median ms "
      "| bytes | first requests after start, HTTP ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
warmup = [l.split("\t") for l in (out / "cold-warmup.tsv").read_text().splitlines()[1:]]
for op_id, (label, query) in labels.items():
    mine = [(i, r) for i, r in enumerate(rows) if r[0] == op_id]
    times = [float(r[5]) * 1e3 for _, r in mine]
    inprocess = statistics.median(float(r[2]) for _, r in mine)
    sizes = sorted({r[4] for _, r in mine})
    med = statistics.median(times)
    diff = med - inprocess
    cold_ok &= diff <= 5.0
    served = [server_of[i] for i, _ in mine if i in server_of]
    ss = f"{statistics.median(served):.1f}" if served else "–"
    est = crit / op_id / "new" / "estimates.json"
    cs = f"{json.load(open(est))['median']['point_estimate'] / 1e6:.1f}" if est.exists() else "–"
    faults = statistics.median(int(r[7]) for _, r in mine)
    print(f"| {label} (`{query}`) | {med:.1f} | {min(times):.1f}–{max(times):.1f} | {inprocess:.1f} | "
          f"{diff:+.1f} | {ss} | {faults:,.0f} | {cs} | {'/'.join(sizes)} | "
          f"{', '.join(f'{float(w[3]) * 1e3:.1f}' for w in warmup if w[0] == op_id) or '–'} |")

mb = lambda kb: int(kb) / 1024
code, size, secs = rss["big_request"].split()
print("\n### c. Memory (fresh server)\n")
print("| measure | MiB |")
print("|---|---:|")
print(f"| RSS idle (VmRSS after start) | {mb(rss['idle_rss_kb']):.1f} |")
print(f"| peak RSS, upload of the {int(rss['big_bytes']) / 1e6:.1f} MB 8640×5760 JPEG (VmHWM) | "
      f"{mb(rss['after_upload_hwm_kb']):.1f} |")
peak_label = "reset before the request" if rss["hwm_reset"] == "yes" else "NOT reset: process lifetime"
print(f"| **peak RSS, `?w=800` of it** (VmHWM, {peak_label}) | **{mb(rss['request_hwm_kb']):.1f}** |")
print(f"| RSS 1 s after that request | {mb(rss['after_request_rss_kb']):.1f} |")
print(f"\nThe `?w=800` request: HTTP {code}, {int(size):,} bytes, {float(secs) * 1e3:.0f} ms.")

verdict = lambda ok: "–" if ok is None else ("met" if ok else "**not met**")
peak = mb(rss["request_hwm_kb"])
print("\n### Targets\n")
print("| target | measured | verdict |")
print("|---|---|---|")
print(f"| cached variant ≥ 0.8× nginx req/s | {ratio:.2f}× | {verdict(ratio >= 0.8)} |")
print(f"| cold render over HTTP within 5 ms of the pipeline bench's median (paired) | see b. | {verdict(cold_ok)} |")
print(f"| peak RSS ≤ 300 MB for a 50 MP JPEG at `?w=800` | {peak * 1.048576:.0f} MB ({peak:.0f} MiB) | "
      f"{verdict(peak * 1.048576 <= 300)} |")
EOF
log "report written to $out/report.md"
