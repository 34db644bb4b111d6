#!/usr/bin/env bash
# Throughput at saturation: Shutterbox against a sharp-based server and thumbor, with every request a
# variant no server has rendered before. One command on a fresh Debian/Ubuntu machine, from the repo root:
#
#   scripts/bench-saturation.sh
#   SAT_SECS=10 SAT_CASES='jpeg12mp:jpeg jpeg12mp:webp jpeg2mp:jpeg jpeg2mp:webp' scripts/bench-saturation.sh
#   SAT_CASES='gif100:webp gif100:gif' scripts/bench-saturation.sh     # the animated cases alone
#
# 1. Installs what is missing: wrk, curl, file (apt-get, as root or through sudo: scripts/lib/provision.sh),
#    sharp 0.35 (`npm install --prefix <tools>/sharp`) and thumbor (`pip install thumbor` in a venv at
#    <tools>/thumbor-venv). <tools> is $SAT_TOOLS, by default inside the run's temporary directory (set it
#    to a kept directory to install once).
# 2. Builds `cargo build --release --locked --bin shutterbox`. Sources: the corpus's 12 MP photo
#    (pipeline/examples/make_corpus.rs: 4000×3000, baseline, q90, 4:2:0; written into <target>/corpus when
#    missing), and, derived from it with Pillow (thumbor's own dependency, so nothing more to install),
#    Lanczos to 1600×1200, a 2 MP JPEG (q90, 4:2:0) and an RGB PNG; and the corpus's 100-frame clip
#    (`clip-480x270-100.gif`: a camera panning over a photo, 40 ms a frame, each frame its own palette), the
#    animated source. Deterministic for given tool versions.
# 3. For each case (SOURCE:OUTPUT), each concurrency C ($SAT_CONCURRENCY, default 2×cores then cores), each
#    of $SAT_ROUNDS rounds (default 1) and each server in turn (ours, sharp, thumbor; the order reversed in
#    every other case and every other round, as it favours one side on a host whose speed drifts), never
#    two servers at once:
#    - a FRESH server (so each run's peak RSS is its own and no earlier run's variants exist): ours is
#      `shutterbox serve` embedded on its own data directory, rate limit out of the way, render queue 1024,
#      with the source uploaded through the API ($SAT_COPIES copies, below); sharp is
#      scripts/bench-sharp-server.mjs with the copies in memory; thumbor has a file loader over the sources,
#      no storage and no result storage (so every request renders), its default PIL engine, and
#      $SAT_THUMBOR_PROCESSES processes (default one per core: a single thumbor process uses one core; its
#      processes share the listening socket, so with C = cores both connections may land on one process,
#      which then serves them in turn: compare its C = cores figure with its 2×cores one);
#    - one probe request, which must answer 200 with the asked format (Content-Type and `file`), and for
#      the clip all of its 100 frames (counted by Pillow): a server other than ours that cannot is "n/a"
#      for the case (thumbor silently falls back to the source format when its Pillow lacks an encoder, and
#      writes one frame of an animation without gifsicle); sharp reads the clip with `animated: true`;
#    - a warm-up of $SAT_WARMUP seconds on other boxes (385..448 px), then the server is left to go idle;
#    - wrk -t C -c C -d $SAT_SECS --latency with scripts/bench-saturation.lua: box width and height each
#      449..512 (the clip: 209..272, so about the w=240 people ask of an animation) from a per-thread
#      counter, so every request is a variant never asked before, while the work per request stays nearly
#      constant. 64×64 boxes are 4096 variants per file: each source is
#      present under $SAT_COPIES names (default enough for 1000 req/s over $SAT_SECS; ours keys variants by
#      file id), and a run that used them all is marked ("wrapped");
#    - from /proc: the CPU time of the server's process tree (utime+stime of each live process plus its
#      reaped children's) just before and just after wrk, per completed request; VmHWM summed over the
#      tree at the end (thumbor: its parent and one child per process; a sum of peaks, so an upper bound);
#    - ours: shutterbox_renders_total must have grown by at least the completed requests and at most C more
#      (in flight when wrk stopped), i.e. no cache hit, and shutterbox_renders_rejected_total by 0.
# 4. Prints a Markdown report (also <target>/bench-saturation/report.md, next to results.tsv and each
#    run's wrk output, and ratios.tsv: ours/sharp per case and C). With several rounds, a server's figures are its medians over the rounds and ours/sharp
#    is the median of each round's ratio: on a shared host one run of a case can swing ±15%, and the rounds
#    of the two servers are taken minutes, not a quarter of an hour, apart.
#
# Cases: SOURCE is jpeg12mp, jpeg2mp, png2mp or gif100 (the clip); OUTPUT is jpeg (q80), webp (q75), avif
# (q65), png (no quality) or gif (no quality; the clip's animated outputs are webp and gif). AVIF is compared at equal quality, not equal `q`: our q is on JPEG's scale (q80 is sharp's default
# AVIF), so the peers get $SAT_PEER_AVIF_Q (default 40), where sharp's output has the SSIM of our q65 on the
# benchmark's boxes (`scripts/quality-compare.py --avif-curve 480`: ours q65 0.9371 at 4,147 bytes, sharp
# q40 0.9360 at 3,877, q45 0.9481 at 5,342; at the same q65 sharp writes 2.3× our bytes at 0.9648). SAT_CASES=all is all twelve; the default leaves out AVIF from the 12 MP JPEG and from the PNG
# (an AVIF encode is slow everywhere, and the 2 MP JPEG's shows it), plus the clip to animated WebP and GIF: twelve cases, 60 runs of SAT_WARMUP +
# SAT_SECS + about 3.5 s of start, probe and settling, so about 21 minutes on two cores once built and
# installed (a fresh clone adds the release build and make_corpus, 20 minutes or more on two cores).
#
# Environment: SAT_SECS (15), SAT_WARMUP (2), SAT_PEER_AVIF_Q (40), SAT_CASES, SAT_CONCURRENCY ("2×cores cores"), SAT_ROUNDS (1), SAT_SERVERS
# ("ours sharp thumbor"), SAT_OURS_BIN (a `shutterbox` binary to run as ours instead of building this
# checkout: for before/after pairs), SAT_OURS_CACHE_BYTES (ours' SHUTTERBOX_CACHE_BYTES, else its default), SAT_PERF (a sampling rate, e.g. 999: `perf record` on the server during
# each measured run, into <out>/LABEL.perf), SAT_COPIES, SAT_THUMBOR_PROCESSES (cores), SAT_TOOLS, SAT_KEEP=1 (keep the
# temporary directory), CARGO_TARGET_DIR, SHUTTERBOX_CORPUS (<target>/corpus). Fails when a server does not
# come up, when ours answers anything but 200, or when ours shows a cache hit.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
repo=$PWD

log() { echo "== $(date +%T) $*" >&2; }
die() {
  echo "bench-saturation: $*" >&2
  exit 1
}

target=${CARGO_TARGET_DIR:-$repo/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
out=$target/bench-saturation
cores=$(nproc)
secs=${SAT_SECS:-15}
warmup=${SAT_WARMUP:-2}
concurrency=${SAT_CONCURRENCY:-"$((2 * cores)) $cores"}
rounds=${SAT_ROUNDS:-1}
servers=${SAT_SERVERS:-"ours sharp thumbor"}
copies=${SAT_COPIES:-$(((secs * 1000 + 4095) / 4096))}
thumbor_procs=${SAT_THUMBOR_PROCESSES:-$cores}
peer_avif_q=${SAT_PEER_AVIF_Q:-40}
default_cases="jpeg12mp:jpeg jpeg12mp:webp jpeg12mp:png jpeg2mp:jpeg jpeg2mp:webp jpeg2mp:avif jpeg2mp:png
  png2mp:jpeg png2mp:webp png2mp:png gif100:webp gif100:gif"
cases=${SAT_CASES:-$default_cases}
[[ $cases == all ]] && cases="jpeg12mp:jpeg jpeg12mp:webp jpeg12mp:avif jpeg12mp:png jpeg2mp:jpeg jpeg2mp:webp
  jpeg2mp:avif jpeg2mp:png png2mp:jpeg png2mp:webp png2mp:avif png2mp:png gif100:webp gif100:gif"
tck=$(getconf CLK_TCK)
# The user's own settings (a database URL, signing keys…) must not reach the benchmarked server.
for v in $(compgen -e | grep '^SHUTTERBOX_' || true); do unset "$v"; done
# Ours' memory cache (SHUTTERBOX_CACHE_BYTES) for a run that separates it from the rest of the peak RSS.
[[ -z ${SAT_OURS_CACHE_BYTES:-} ]] || export SHUTTERBOX_CACHE_BYTES=$SAT_OURS_CACHE_BYTES

work=$(mktemp -d /tmp/bench-saturation.XXXXXX)
tools=${SAT_TOOLS:-$work/tools}
cur_server='' cur_pid=''
cleanup() {
  stop_server
  if [[ ${SAT_KEEP:-0} == 1 ]]; then echo "bench-saturation: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- /proc: a server and everything it forked ------------------------------------------------------------
tree_pids() {
  local child
  echo "$1"
  # shellcheck disable=SC2013 # a list of pids, one word each
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree_pids "$child"; done
}
# Clock ticks used by the tree: each live process's utime+stime, plus cutime+cstime (its reaped children).
tree_ticks() {
  local pid stat total=0 f
  for pid in $(tree_pids "$1"); do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    read -ra f <<<"${stat##*) }" # after the command name, which may hold spaces; f[0] is field 3
    total=$((total + f[11] + f[12] + f[13] + f[14]))
  done
  echo "$total"
}
tree_hwm_kb() {
  local pid total=0 kb
  for pid in $(tree_pids "$1"); do
    kb=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}
# Waits until the tree uses under 2.5% of a core (at most 30 s): uploads' thumbnail jobs, a warm-up's
# trailing variant writes and a start's imports are over before anything is measured.
settle() {
  local a b
  for _ in $(seq 60); do
    a=$(tree_ticks "$1")
    sleep 0.5
    b=$(tree_ticks "$1")
    ((80 * (b - a) <= tck)) && return 0
  done
  log "WARNING: the server is still busy after 30 s"
}

# --- 1. tools ---------------------------------------------------------------------------------------------
ensure_tools "bench-saturation.sh" wrk:wrk curl:curl file:file python3:python3 || die "missing tools (above)"
[[ -z ${SAT_PERF:-} ]] || ensure_tools "bench-saturation.sh" perf:linux-perf || die "SAT_PERF needs perf (above)"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then die "needs Node.js 20+ and npm on PATH"; fi
mkdir -p "$tools"
if [[ ! -d $tools/sharp/node_modules/sharp ]]; then
  log "npm install sharp@0.35 into $tools/sharp"
  npm install --silent --no-audit --no-fund --prefix "$tools/sharp" sharp@0.35 >&2
fi
venv=$tools/thumbor-venv
if [[ ! -x $venv/bin/thumbor ]]; then
  log "pip install thumbor into $venv"
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    as_root=()
    ((EUID == 0)) || as_root=(sudo)
    # A fresh machine's package lists may be empty: install, and on failure update and retry.
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends python3-venv >&2 ||
      { "${as_root[@]}" apt-get update -qq >&2 && "${as_root[@]}" apt-get install -y -qq --no-install-recommends python3-venv >&2; } ||
      die "python3 -m venv needs the Debian package python3-venv"
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check thumbor >&2
fi

# --- 2. build and sources ---------------------------------------------------------------------------------
if [[ -n ${SAT_OURS_BIN:-} ]]; then
  # Another build of ours (an A/B of two commits): used as it is.
  bin=$(realpath "$SAT_OURS_BIN")
  [[ -x $bin ]] || die "SAT_OURS_BIN=$SAT_OURS_BIN is not an executable"
else
  log "cargo build --release --locked --bin shutterbox"
  cargo build --release --locked --bin shutterbox >&2
  bin=$target/release/shutterbox
fi
[[ -x $bin ]] || die "$bin was not built"
if [[ ! -s $corpus/photo-4000x3000.jpg || ! -s $corpus/clip-480x270-100.gif ]]; then
  log "writing the corpus into $corpus (make_corpus)"
  cargo run --release --locked -p shutterbox-pipeline --example make_corpus -- "$corpus" >&2
fi
src=$work/src
mkdir -p "$src"
cp "$corpus/photo-4000x3000.jpg" "$src/photo12mp.jpg"
cp "$corpus/clip-480x270-100.gif" "$src/clip100.gif"
"$venv/bin/python" - "$src" <<'EOF'
import sys
from PIL import Image

d = sys.argv[1]
small = Image.open(f"{d}/photo12mp.jpg").convert("RGB").resize((1600, 1200), Image.Resampling.LANCZOS)
small.save(f"{d}/photo2mp.jpg", "JPEG", quality=90, subsampling=2)  # 2: 4:2:0, baseline like the corpus
small.save(f"{d}/photo2mp.png", "PNG")
EOF
# The copies: hard links, the same bytes under other names (see the header).
for f in photo12mp.jpg photo2mp.jpg photo2mp.png clip100.gif; do
  for ((k = 0; k < copies; k++)); do ln "$src/$f" "$src/${f%.*}-c$k.${f##*.}"; done
done

mkdir -p "$out"
rm -f "$out"/*.txt "$out"/results.tsv "$out"/ratios.tsv "$out"/report.md
cat >"$work/thumbor.conf" <<EOF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$src'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ENGINE = 'thumbor.engines.pil'
EOF

# --- 3. servers -------------------------------------------------------------------------------------------
# start_server SERVER STEM EXT DIR: sets cur_server, cur_pid, base (http://host:port) and prefix (the path
# before a file name in ours' URLs).
start_server() {
  local server=$1 stem=$2 ext=$3 dir=$4 files=() k port
  for ((k = 0; k < copies; k++)); do files+=("$src/$stem-c$k.$ext"); done
  mkdir -p "$dir"
  cur_server=$server
  case $server in
    ours)
      server_pid=''
      if ! SHUTTERBOX_RATE_LIMIT=1000000/1s SHUTTERBOX_RENDER_QUEUE=1024 NO_COLOR=1 start_shutterbox "$bin" "$dir"; then
        cur_pid=$server_pid
        die "ours did not come up"
      fi
      cur_pid=$server_pid base=$server_url
      "$bin" upload --url "$base" --key "$server_key" --folder sat "${files[@]}" >"$dir/uploads.jsonl" ||
        die "uploading to ours failed"
      # The delivery path of the copies, checked to end with each one's name.
      prefix=$(python3 - "$dir/uploads.jsonl" "${files[@]##*/}" <<'EOF'
import json, sys, urllib.parse
urls = [json.loads(line)["secureUrl"] for line in open(sys.argv[1])]
paths = [urllib.parse.urlsplit(u).path for u in urls]
prefixes = {p[: -len(name)] for p, name in zip(paths, sys.argv[2:]) if p.endswith("/" + name)}
if len(paths) != len(sys.argv) - 2 or len(prefixes) != 1:
    sys.exit(f"unexpected secureUrls {urls}")
print(prefixes.pop())
EOF
      )
      ;;
    sharp)
      port=$(free_port)
      SHARP_DIR=$tools/sharp node scripts/bench-sharp-server.mjs "$port" "${files[@]}" 2>"$dir/server.stderr" &
      cur_pid=$! base=http://127.0.0.1:$port prefix=/
      ;;
    thumbor)
      port=$(free_port)
      "$venv/bin/thumbor" --ip 127.0.0.1 --port "$port" --conf "$work/thumbor.conf" \
        --processes "$thumbor_procs" >"$dir/server.stdout" 2>"$dir/server.stderr" &
      cur_pid=$! base=http://127.0.0.1:$port prefix=/
      ;;
  esac
  local ready=/healthz
  [[ $server == thumbor ]] && ready=/healthcheck
  [[ $server == sharp ]] && ready=/
  for _ in $(seq 300); do
    # Any HTTP answer (sharp's is a 404) means it listens.
    [[ $(curl -sS -o /dev/null -w '%{http_code}' "$base$ready" 2>/dev/null) != 000 ]] && break
    kill -0 "$cur_pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ $(curl -sS -o /dev/null -w '%{http_code}' "$base$ready" 2>/dev/null) =~ ^[24] ]] || {
    cat "$dir"/server.std* >&2 2>/dev/null || true
    die "$server did not come up at $base"
  }
}

any_alive() {
  local pid
  for pid; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}
# Ends the server's whole tree: the parent first, as thumbor's parent restarts children that die.
stop_server() {
  [[ -n $cur_pid ]] || return 0
  local pids
  mapfile -t pids < <(tree_pids "$cur_pid")
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    any_alive "${pids[@]}" || break
    sleep 0.1
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
  wait "$cur_pid" 2>/dev/null || true
  [[ $cur_server == ours ]] && rm -rf "${server_data:?}"
  cur_pid='' cur_server=''
}

metric() { curl -fsS "$base/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

# The URL of one box, spelled as the Lua script does.
url_of() {
  local server=$1 file=$2 format=$3 q=$4 w=$5 h=$6
  if [[ $server == thumbor ]]; then
    local filters="filters:format($format)"
    [[ $q == - ]] || filters="filters:quality($q):format($format)"
    echo "$base/unsafe/fit-in/${w}x$h/$filters/$file"
  else
    local url="$base$prefix$file?w=$w&h=$h&format=$format"
    [[ $server == ours ]] && url+="&fit=inside"
    [[ $q == - ]] || url+="&q=$q"
    echo "$url"
  fi
}

# wrk_run LABEL C SECONDS ARGS...: wrk's output in $out/LABEL.txt; sets the assoc array r from its SAT line.
declare -A r
wrk_run() {
  local label=$1 c=$2 seconds=$3 kv kvs
  shift 3
  wrk -t "$c" -c "$c" -d "${seconds}s" --latency --timeout 60s -s scripts/bench-saturation.lua "$base" -- "$@" \
    >"$out/$label.txt" 2>&1 || die "wrk failed: $(cat "$out/$label.txt")"
  r=()
  kvs=()
  read -ra kvs < <(sed -n 's/^SAT //p' "$out/$label.txt") || true
  for kv in "${kvs[@]}"; do r[${kv%%=*}]=${kv#*=}; done
  [[ -n ${r[requests]:-} ]] || die "no SAT line in $out/$label.txt"
}

declare -A quality=([jpeg]=80 [webp]=75 [avif]=65 [png]=- [gif]=-)
declare -A file_of=([jpeg12mp]=photo12mp.jpg [jpeg2mp]=photo2mp.jpg [png2mp]=photo2mp.png [gif100]=clip100.gif)
# The smallest box side of the measured runs (the warm-up's is 64 less, the probe's 65 less).
declare -A box_of=([jpeg12mp]=449 [jpeg2mp]=449 [png2mp]=449 [gif100]=209)
# Frames a probe's output must have (the animated source's count; a still is one).
declare -A frames_of=([jpeg12mp]=1 [jpeg2mp]=1 [png2mp]=1 [gif100]=100)
declare -A magic=([jpeg]='^JPEG image data' [webp]='Web/P image' [avif]='AVIF' [png]='^PNG image data' [gif]='^GIF image data')

{
  echo "date=$(date -u '+%Y-%m-%d %H:%M')"
  echo "cores=$cores"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ -n ${SAT_OURS_BIN:-} ]]; then
    echo "git=the binary $SAT_OURS_BIN"
  else
    echo "git=$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
  fi
  echo "rustc=$(rustc --version)"
  echo "wrk=$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "node=$(node --version)"
  echo "sharp=$(SHARP_DIR=$tools/sharp node --input-type=module -e "import { createRequire } from 'node:module';
const s = createRequire(process.env.SHARP_DIR + '/package.json')('sharp');
console.log(\`\${s.versions.sharp} (libvips \${s.versions.vips}, concurrency \${s.concurrency()}, UV_THREADPOOL_SIZE \${process.env.UV_THREADPOOL_SIZE ?? 'default 4'})\`)")"
  echo "thumbor=$("$venv/bin/python" -c 'import thumbor, PIL; print(thumbor.__version__, "with Pillow", PIL.__version__)') ($thumbor_procs processes)"
  echo "secs=$secs"
  echo "rounds=$rounds"
  echo "warmup=$warmup"
  echo "copies=$copies"
  for f in photo12mp.jpg photo2mp.jpg photo2mp.png clip100.gif; do
    echo "source_$f=$(file -b "$src/$f" | grep -oE 'baseline|progressive|[0-9]{3,} ?x ?[0-9]{3,}' | tr -d ' ' | xargs) $(stat -c%s "$src/$f")"
  done
} >"$out/env.txt"

printf 'case\tc\tround\tserver\tstatus\treq_s\tp50_ms\tp99_ms\tnon2xx\tsocket_errors\tcpu_ms\thwm_kb\trequests\trenders\twrapped\tnote\n' \
  >"$out/results.tsv"
row() { (IFS=$'\t'; echo "$*") >>"$out/results.tsv"; }

case_no=0 run_no=0
for case in $cases; do
  source_id=${case%%:*} format=${case#*:}
  file=${file_of[$source_id]:-} q=${quality[$format]:-}
  [[ -n $file && -n $q ]] || die "unknown case '$case' (SOURCE:OUTPUT, SOURCE jpeg12mp|jpeg2mp|png2mp|gif100, OUTPUT jpeg|webp|avif|png|gif)"
  box=${box_of[$source_id]} frames=${frames_of[$source_id]}
  stem=${file%.*} ext=${file##*.}
  read -ra order <<<"$servers"
  if ((case_no % 2)); then mapfile -t order < <(printf '%s\n' "${order[@]}" | tac); fi
  case_no=$((case_no + 1))
  # Each concurrency in rounds (C:ROUND), the servers' order reversed every other round.
  for c_round in $(for c in $concurrency; do seq -f "$c:%g" "$rounds"; done); do
    c=${c_round%%:*} round=${c_round#*:}
    run_order=("${order[@]}")
    if ((round % 2 == 0)); then mapfile -t run_order < <(printf '%s\n' "${order[@]}" | tac); fi
    for server in "${run_order[@]}"; do
      # AVIF at equal quality: our q and sharp's are different scales (ours anchored on JPEG's).
      q=${quality[$format]}
      [[ $format == avif && $server != ours ]] && q=$peer_avif_q
      run_no=$((run_no + 1))
      label=$run_no-$source_id-$format-c$c-$server
      ((rounds == 1)) || label=$run_no-$source_id-$format-c$c-r$round-$server
      log "$label (load $(cut -d' ' -f1 /proc/loadavg))"
      start_server "$server" "$stem" "$ext" "$work/$label"
      settle "$cur_pid"

      # The probe: a box outside both ranges, in the asked format or n/a.
      probe_url=$(url_of "$server" "$stem-c0.$ext" "$format" "$q" $((box - 65)) $((box - 65)))
      code=$(curl -sS -D "$work/$label/probe.headers" -o "$work/$label/probe.out" -w '%{http_code}' "$probe_url" || echo 000)
      ctype=$(awk -F': *' 'tolower($1) == "content-type" { print $2 }' "$work/$label/probe.headers" | tr -d '\r')
      what=$(file -b "$work/$label/probe.out")
      got_frames=$("$venv/bin/python" -c 'import sys; from PIL import Image; print(getattr(Image.open(sys.argv[1]), "n_frames", 1))' \
        "$work/$label/probe.out" 2>/dev/null || echo 0)
      ((frames == 1)) || what+=" ($got_frames frames)"
      echo "$label probe: $probe_url -> $code $ctype, $what" >>"$out/probes.txt"
      if [[ $code != 200 || $ctype != "image/$format" || $got_frames != "$frames" ]] || ! grep -Eq "${magic[$format]}" <<<"$what"; then
        [[ $server == ours ]] && die "ours answered the probe $probe_url with $code $ctype ($what)"
        log "$server cannot render $case: $code $ctype ($what): n/a"
        row "$case" "$c" "$round" "$server" n/a '' '' '' '' '' '' '' '' '' '' "answered $code ${ctype:-no type} (${what%%,*})"
        stop_server
        continue
      fi

      wrk_run "$label-warmup" "$c" "$warmup" "$server" "$prefix" "$stem" "$ext" "$copies" "$format" "$q" "$c" "$box" warmup
      settle "$cur_pid"
      renders_before=0 rejected_before=0
      if [[ $server == ours ]]; then
        renders_before=$(metric shutterbox_renders_total)
        rejected_before=$(metric shutterbox_renders_rejected_total)
      fi
      ticks_before=$(tree_ticks "$cur_pid")
      perf_pid=
      if [[ -n ${SAT_PERF:-} ]]; then
        # The server's samples over the measured run alone (its threads, not its children: ours and sharp
        # are one process); `perf report -i <out>/LABEL.perf --sort comm,dso,symbol` reads them.
        perf record -q -g -F "$SAT_PERF" -p "$cur_pid" -o "$out/$label.perf" 2>/dev/null &
        perf_pid=$!
      fi
      wrk_run "$label" "$c" "$secs" "$server" "$prefix" "$stem" "$ext" "$copies" "$format" "$q" "$c" "$box"
      if [[ -n $perf_pid ]]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
      fi
      ticks_after=$(tree_ticks "$cur_pid")
      hwm=$(tree_hwm_kb "$cur_pid")
      renders=''
      if [[ $server == ours ]]; then
        settle "$cur_pid" # the renders in flight when wrk stopped are counted once they end
        renders=$(($(metric shutterbox_renders_total) - renders_before))
        rejected=$(($(metric shutterbox_renders_rejected_total) - rejected_before))
        ((r[non2xx] == 0 && rejected == 0)) || die "$label: ours answered ${r[non2xx]} non-2xx ($rejected rejected renders)"
        ((renders >= r[requests] && renders <= r[requests] + c)) ||
          die "$label: $renders renders for ${r[requests]} requests: a cache hit (raise SAT_COPIES if the run wrapped), or renders not counted"
      fi
      socket=$((r[connect] + r[read] + r[write] + r[timeout]))
      # Requests in flight when wrk stopped (one per connection) used an index too.
      wrapped=$((r[requests] + c > copies * 4096 ? 1 : 0))
      python3 - "$case" "$c" "$round" "$server" "$((ticks_after - ticks_before))" "$tck" "$hwm" "$renders" \
        "${r[requests]}" "${r[duration_us]}" "${r[p50_us]}" "${r[p99_us]}" "${r[non2xx]}" "$socket" "$wrapped" \
        >>"$out/results.tsv" <<'EOF'
import sys
case, c, rnd, server, ticks, tck, hwm, renders, requests, dur_us, p50, p99, non2xx, socket, wrapped = sys.argv[1:]
requests = int(requests)
cpu_ms = int(ticks) * 1000 / int(tck) / requests if requests else 0
print("\t".join([case, c, rnd, server, "ok", f"{requests / (int(dur_us) / 1e6):.1f}", f"{int(p50) / 1e3:.1f}",
                 f"{int(p99) / 1e3:.1f}", non2xx, socket, f"{cpu_ms:.1f}", hwm, str(requests), renders, wrapped, ""]))
EOF
      log "  $(tail -1 "$out/results.tsv" | cut -f6-15 | tr '\t' ' ') (req/s p50 p99 non2xx socket cpu_ms hwm_kb requests renders wrapped)"
      stop_server
    done
  done
done
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"
echo "date_end=$(date -u +%H:%M)" >>"$out/env.txt"

# --- 4. report --------------------------------------------------------------------------------------------
python3 - "$out" "$cases" "$concurrency" <<'EOF' | tee "$out/report.md"
import csv, pathlib, statistics, sys

out, cases, concurrency = pathlib.Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3].split()
env = dict(l.split("=", 1) for l in (out / "env.txt").read_text().splitlines() if "=" in l)
runs = list(csv.DictReader(open(out / "results.tsv"), delimiter="\t"))
by_server = {}
for run in runs:
    by_server.setdefault((run["case"], run["c"], run["server"]), []).append(run)
sources = {"jpeg12mp": "12 MP JPEG", "jpeg2mp": "2 MP JPEG", "png2mp": "2 MP PNG",
           "gif100": "100-frame 480×270 GIF"}
outputs = {"jpeg": "JPEG q80", "webp": "WebP q75", "avif": "AVIF q65 (peers q40)", "png": "PNG", "gif": "GIF"}
servers = ["ours", "sharp", "thumbor"]

def get(case, c, server):
    """A server's figures for a case at C: medians over its rounds (a sum for the errors, the largest peak
    RSS); the first run's row when no round rendered; None when it was not run."""
    rounds = by_server.get((case, c, server))
    if not rounds:
        return None
    ok = [r for r in rounds if r["status"] == "ok"]
    if not ok:
        return rounds[0]
    median = lambda key: statistics.median(float(r[key]) for r in ok)
    return {"status": "ok", "req_s": median("req_s"), "p50_ms": median("p50_ms"), "p99_ms": median("p99_ms"),
            "cpu_ms": median("cpu_ms"), "hwm_kb": max(int(r["hwm_kb"]) for r in ok),
            "non2xx": sum(int(r["non2xx"]) for r in rounds if r["status"] == "ok"),
            "socket_errors": sum(int(r["socket_errors"]) for r in rounds if r["status"] == "ok"),
            "wrapped": "1" if any(r["wrapped"] == "1" for r in ok) else "0"}

def ratio(case, c):
    """ours/sharp: the median of each round's ratio (the two servers' runs of a round minutes apart)."""
    pairs = {}
    for r in by_server.get((case, c, "ours"), []) + by_server.get((case, c, "sharp"), []):
        if r["status"] == "ok":
            pairs.setdefault(r["round"], {})[r["server"]] = float(r["req_s"])
    # A round where sharp completed nothing (a render longer than the run) has no ratio.
    ratios = [p["ours"] / p["sharp"] for p in pairs.values() if len(p) == 2 and p["sharp"] > 0]
    return statistics.median(ratios) if ratios else None

def cell(r, key, fmt="{}"):
    if r is None:
        return "–"
    if r["status"] != "ok":
        return "n/a"
    return fmt.format(float(r[key])) + ("!" if key == "req_s" and r["wrapped"] == "1" else "")

def lat(r):
    return cell(r, "p50_ms") if r is None or r["status"] != "ok" else f"{float(r['p50_ms']):.1f} / {float(r['p99_ms']):.1f}"

print(f"Run {env['date']}–{env['date_end']} UTC: {env['cores']} cores ({env['cpu']}), load average at start "
      f"{env['loadavg_start']}, at end {env['loadavg_end']}; shutterbox {env['git']} ({env['rustc']}), "
      f"sharp {env['sharp']} on Node {env['node']}, thumbor {env['thumbor']}, {env['wrk']}.\n")
print(f"Every request a variant never rendered before (box 449..512 × 449..512, the GIF's 209..272 × 209..272; fit "
      f"inside, no enlargement); "
      f"wrk -t C -c C, {env['secs']} s per run after a {env['warmup']} s warm-up, each run on a fresh server, "
      f"the three servers one after another"
      + (f"; {env['rounds']} rounds of each case and C, each server's figures its medians over them and ours/sharp "
         f"the median of the rounds' ratios" if env.get("rounds", "1") != "1" else "")
      + f". CPU-ms/render: CPU time of the server's process tree over the "
      f"run / completed requests. Errors: non-2xx + socket errors (ours / sharp / thumbor).\n")
print("| case | C | ours req/s | sharp req/s | thumbor req/s | ours/sharp | p50/p99 ms ours | p50/p99 ms sharp "
      "| p50/p99 ms thumbor | CPU-ms/render ours, sharp, thumbor | errors |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
wrapped = False
paired_ratios = []
for case in cases:
    src, fmt = case.split(":")
    for c in concurrency:
        rs = [get(case, c, s) for s in servers]
        if not any(rs):
            continue
        paired = ratio(case, c)
        if paired is not None:
            paired_ratios.append(f"{case}\t{c}\t{paired:.4f}\n")
        shown = "–" if paired is None else f"**{paired:.2f}**"
        errors = " / ".join("–" if r is None or r["status"] != "ok" else str(int(r["non2xx"]) + int(r["socket_errors"]))
                            for r in rs)
        wrapped |= any(r and r["wrapped"] == "1" for r in rs)
        print(f"| {sources[src]} → {outputs[fmt]} | {c} | " + " | ".join(cell(r, "req_s", "{:,.1f}") for r in rs)
              + f" | {shown} | " + " | ".join(lat(r) for r in rs) + " | "
              + ", ".join(cell(r, "cpu_ms", "{:.1f}") for r in rs) + f" | {errors} |")
(out / "ratios.tsv").write_text("case\tc\tours_over_sharp\n" + "".join(paired_ratios))
if wrapped:
    print("\n! the run used more indices than there are unrendered variants (raise SAT_COPIES): some requests "
          "repeated a variant.")
na = {(r["case"], r["c"], r["server"]): r["note"] for r in runs if r["status"] != "ok"}
for (case, c, server), note in na.items():
    print(f"\nn/a: {server} for {case} (C {c}): {note}.")

print("\nPeak RSS (VmHWM, MiB; each run on a fresh server, the largest over the runs of the case; thumbor: "
      "summed over its processes). Ours keeps what it renders in memory (SHUTTERBOX_CACHE_BYTES, default 256 MiB, "
      "and a quarter of that for responses), which never-repeated variants fill: its figure grows with the "
      "bytes rendered per run up to that bound.\n")
print("| case | ours | sharp | thumbor |")
print("|---|---:|---:|---:|")
overall = {}
for case in cases:
    src, fmt = case.split(":")
    cells = []
    for s in servers:
        hwm = [int(r["hwm_kb"]) for c in concurrency if (r := get(case, c, s)) and r["status"] == "ok"]
        if hwm:
            overall[s] = max(overall.get(s, 0), max(hwm))
        cells.append(f"{max(hwm) / 1024:.0f}" if hwm else "–")
    print(f"| {sources[src]} → {outputs[fmt]} | " + " | ".join(cells) + " |")
print("| **all runs** | " + " | ".join(f"**{overall[s] / 1024:.0f}**" if s in overall else "–" for s in servers) + " |")

checks = [(r["case"], r["c"], int(r["requests"]), int(r["renders"])) for r in runs
          if r["server"] == "ours" and r["status"] == "ok"]
if checks:
    extra = sum(n - q for _, _, q, n in checks)
    print(f"\nOurs: shutterbox_renders_total grew by {sum(n for *_, n in checks):,} over {len(checks)} runs for "
          f"{sum(q for *_, q, _ in checks):,} completed requests ({extra} in flight when wrk stopped): no cache "
          "hit; 0 renders rejected.")
def source(key, kind):
    *what, size = env[key].split()
    return f"{kind} {' '.join(reversed(what))}, {int(size):,} bytes"
print(f"\nSources: {source('source_photo12mp.jpg', 'JPEG')} (make_corpus); {source('source_photo2mp.jpg', 'JPEG')} and "
      f"{source('source_photo2mp.png', 'RGB PNG')} (Pillow, Lanczos from it); "
      f"{source('source_clip100.gif', 'GIF')}, 100 frames (make_corpus: clip-480x270-100.gif); each under "
      f"{env['copies']} name(s), 4096 boxes per name.")
EOF
log "report written to $out/report.md"
