#!/usr/bin/env bash
# A cached variant over HTTP against nginx serving the same bytes (issue 22: ≥ 0.95× nginx's req/s with wrk
# and with oha), one command on a fresh Debian/Ubuntu machine, from the repo root:
#
#   scripts/bench-cached.sh                        # this checkout's release build
#   scripts/bench-cached.sh OLD_BIN NEW_BIN        # several builds side by side (before/after pairs)
#
# 1. Installs what is missing: wrk, nginx, curl (apt-get: scripts/lib/provision.sh) and oha (`cargo install
#    oha --locked` into $CACHED_TOOLS, default <target>/tools); builds `cargo build --release --bin
#    shutterbox` unless binaries are given, and the corpus when it is missing.
# 2. Starts each binary's `shutterbox serve` (embedded, its own data directory, rate limit out of the way),
#    uploads photo-1200x800.jpg and asks for `?$CACHED_QUERY` twice (rendered, then kept); nginx
#    (`start_static_nginx`: one worker per core, sendfile, no access log) serves the first server's bytes.
# 3. $CACHED_ROUNDS rounds; in each, wrk -t2 -c$CACHED_CONNECTIONS for $CACHED_SECS s against every server
#    in turn, then oha -c$CACHED_CONNECTIONS the same way; the order is reversed every round, as on a noisy
#    host the order favours one side. Each run must answer only 200s.
# 4. Prints each round's req/s, and per binary the median over rounds of its ratio to nginx's run in the
#    same round, by load generator.
#
# 5. Keeps the rounds (results.tsv: round, tool, server index, req/s; nginx is the last index) and the table
#    (table.md) in $CACHED_OUT.
#
# Environment: CACHED_ROUNDS (5), CACHED_SECS (5), CACHED_CONNECTIONS (64), CACHED_QUERY
# (w=800&q=80&format=webp, ~19 KB), CACHED_TOOLS, CACHED_OUT (<target>/bench-cached), OHA, CARGO_TARGET_DIR,
# SHUTTERBOX_CORPUS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
rounds=${CACHED_ROUNDS:-5}
secs=${CACHED_SECS:-5}
connections=${CACHED_CONNECTIONS:-64}
query=${CACHED_QUERY:-w=800&q=80&format=webp}
kept=${CACHED_OUT:-$target/bench-cached}
mkdir -p "$kept"

ensure_tools "scripts/bench-cached.sh" wrk:wrk nginx:nginx curl:curl || {
  # Debian installs nginx in /usr/sbin, which a non-root PATH may lack.
  [[ -x /usr/sbin/nginx ]] || exit 1
}
find_oha "${CACHED_TOOLS:-$target/tools}"

if (($# == 0)); then
  cargo build --release --locked --bin shutterbox >&2
  set -- "$target/release/shutterbox"
fi
if [[ ! -f $corpus/photo-1200x800.jpg ]]; then
  cargo run --release --locked -p shutterbox-pipeline --example make_corpus -- "$corpus" >&2
fi

work=$(mktemp -d /tmp/bench-cached.XXXXXX)
chmod 755 "$work" # nginx's workers may run as another user
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

urls=() names=()
for bin in "$@"; do
  k=${#urls[@]}
  mkdir -p "$work/s$k"
  SHUTTERBOX_RATE_LIMIT=1000000/1s start_shutterbox "$bin" "$work/s$k"
  pids+=("$server_pid")
  file_url=$("$bin" upload --url "$server_url" --key "$server_key" --folder bench --name photo.jpg \
    "$corpus/photo-1200x800.jpg" | python3 -c 'import json, sys; print(json.load(sys.stdin)["secureUrl"])')
  urls+=("$file_url?$query")
  names+=("$(basename "$(dirname "$bin")")/$(basename "$bin")#$k")
  curl -fsS -o "$work/variant-$k" "${urls[$k]}"
  curl -fsS -o /dev/null "${urls[$k]}"
done

ext=$(curl -fsS -o /dev/null -w '%{content_type}' "${urls[0]}")
ext=${ext#image/}
mkdir -p "$work/www"
cp "$work/variant-0" "$work/www/variant.$ext"
chmod -R a+rX "$work/www"
start_static_nginx "$work/nginx" "$work/www"
pids+=("$nginx_pid")
curl -fsS -o "$work/nginx.check" "http://127.0.0.1:$nginx_port/variant.$ext"
cmp -s "$work/nginx.check" "$work/variant-0" || { echo "nginx serves other bytes than ours" >&2; exit 1; }
urls+=("http://127.0.0.1:$nginx_port/variant.$ext")
names+=(nginx)
echo "variant: ${urls[0]} ($(stat -c%s "$work/variant-0") bytes); wrk and oha, -c $connections, $secs s, $rounds rounds" >&2

# run TOOL URL: prints req/s; fails on any answer but 200.
run() {
  local tool=$1 url=$2 out
  if [[ $tool == wrk ]]; then
    out=$(wrk -t2 -c"$connections" -d"${secs}s" "$url")
    grep -q 'Non-2xx' <<<"$out" && { echo "wrk: non-2xx answers from $url" >&2; return 1; }
    awk '/Requests\/sec/ { print $2 }' <<<"$out"
  else
    "$oha_bin" -z "${secs}s" -c "$connections" --no-tui "${oha_json[@]}" "$url" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = {k: v for k, v in d.get("statusCodeDistribution", {}).items() if str(k) != "200"}
if bad:
    sys.exit(f"oha: non-200 answers {bad}")
print(round(d["summary"]["requestsPerSec"]))'
  fi
}

results=$work/results.tsv
order=$(seq 0 $((${#urls[@]} - 1)))
for r in $(seq "$rounds"); do
  for tool in wrk oha; do
    line="round $r $tool:"
    for k in $order; do
      v=$(run "$tool" "${urls[$k]}")
      printf '%s\t%s\t%s\t%s\n' "$r" "$tool" "$k" "$v" >>"$results"
      line+=" ${names[$k]} $v"
    done
    echo "$line" >&2
  done
  order=$(tac <<<"$order")
done

cp "$results" "$kept/results.tsv"
python3 - "$results" "${names[@]}" <<'EOF' | tee "$kept/table.md"
import collections, statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
names = sys.argv[2:]
nginx = len(names) - 1
runs = collections.defaultdict(dict)
for r, tool, k, v in rows:
    runs[(r, tool)][int(k)] = float(v)
print(f"| server | wrk req/s (median) | ×nginx (median of rounds) | oha req/s (median) | ×nginx (median of rounds) |")
print("|---|---:|---:|---:|---:|")
for k, name in enumerate(names):
    cells = []
    for tool in ("wrk", "oha"):
        own = [v[k] for (r, t), v in runs.items() if t == tool]
        ratio = [v[k] / v[nginx] for (r, t), v in runs.items() if t == tool]
        cells += [f"{statistics.median(own):,.0f}", f"{statistics.median(ratio):.2f} ({min(ratio):.2f}–{max(ratio):.2f})"]
    print(f"| {name} | " + " | ".join(cells) + " |")
EOF
