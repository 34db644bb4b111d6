#!/usr/bin/env bash
# A bounded mixed load on loopback, one command:
#
#   scripts/load-test.sh            # LOAD_SECONDS=60, the debug build (CI)
#   LOAD_PROFILE=release scripts/load-test.sh
#
# Starts `shutterbox serve` (embedded, fresh data directory; rate limit out of the way; the render queue
# set to SHUTTERBOX_RENDER_QUEUE=2 so that admission control has to act) and runs examples/load.rs against
# it for LOAD_SECONDS: 8 clients uploading (presign → PUT → confirm), 2 listing, 6 asking for cold
# variants (a new width each time), 16 asking for one cached variant, all at once — more than two cores
# serve. While it runs, the server's RSS is sampled every second. It fails on any 5xx other than
# admission control's 503 with Retry-After, on a 503 without Retry-After, on any confirmed upload missing
# from the listing or not byte-identical on download, or when the server's peak RSS exceeds
# LOAD_MAX_RSS_MIB (default 1024). Prints the JSON report of examples/load.rs plus the RSS figures, and
# keeps them in <target>/load-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
profile=${LOAD_PROFILE:-debug}
seconds=${LOAD_SECONDS:-60}
max_rss_mib=${LOAD_MAX_RSS_MIB:-1024}
out=$target/load-test
mkdir -p "$out"

echo "== cargo build ($profile): the server and examples/load.rs"
if [[ $profile == release ]]; then
  cargo build --locked --release --bin shutterbox --example load
else
  # The test suite's build (scripts/test.sh): the same features, so after the tests nothing is compiled again
  # (`cargo build --bin shutterbox` alone would leave out the dev-dependencies' features and rebuild most crates).
  cargo test --workspace --locked --no-run
fi
bin=$target/$profile/shutterbox
load=$target/$profile/examples/load

sampler=
cleanup() {
  [[ -n $sampler ]] && kill "$sampler" 2>/dev/null
  stop_shutterbox
}
trap cleanup EXIT
SHUTTERBOX_RATE_LIMIT=100000000/60s SHUTTERBOX_RENDER_QUEUE=2 start_shutterbox "$bin" "$out"
port=${server_url##*:}
key=$server_key
server=$server_pid
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
echo "RSS idle: $(($(rss_kib) / 1024)) MiB"
(
  while kill -0 "$server" 2>/dev/null; do
    rss_kib >>"$out/rss.txt" 2>/dev/null || true
    sleep 1
  done
) &
sampler=$!

echo "== load: ${seconds}s against http://127.0.0.1:$port"
status=0
"$load" "http://127.0.0.1:$port" "$key" "$seconds" >"$out/report.json" || status=$?
cat "$out/report.json"
peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$server/status")
sampled_max=$(sort -n "$out/rss.txt" | tail -1)
end_kib=$(rss_kib)
echo "RSS: peak (VmHWM) $((peak_kib / 1024)) MiB, highest sample $((sampled_max / 1024)) MiB, at the end $((end_kib / 1024)) MiB" |
  tee "$out/rss-summary.txt"
if grep -q '"error"\|panicked' "$out/server.stderr"; then
  echo "load-test: the server logged errors (see $out/server.stderr):" >&2
  grep '"error"\|panicked' "$out/server.stderr" | head -5 >&2
fi
((status == 0)) || {
  echo "load-test: failed (5xx, lost or altered uploads; see the report above)" >&2
  exit 1
}
((peak_kib / 1024 <= max_rss_mib)) || {
  echo "load-test: peak RSS $((peak_kib / 1024)) MiB is over $max_rss_mib MiB" >&2
  exit 1
}
echo "== load-test passed"
