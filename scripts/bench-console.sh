#!/usr/bin/env bash
# The console's first page with 20,000 files in the account (BENCHMARKS.md, "Console"):
#
#   scripts/bench-console.sh [BINARY] [FILES] [ROUNDS]     # defaults: target/release/shutterbox, 20000, 11
#
# Starts BINARY's embedded deployment on a free port with a fresh data directory, fills the account with
# FILES small PNGs and times, in headless Chromium, the first page of the console's files view from
# navigation start (clients/typescript/src/console-bench.ts). Needs Node and Chromium (installed when
# missing, as scripts/console.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/browser.sh
source scripts/lib/browser.sh

bin=${1:-target/release/shutterbox}
files=${2:-20000}
rounds=${3:-11}
[[ -x $bin ]] || {
  echo "bench-console: no binary at $bin (cargo build --release)" >&2
  exit 1
}
ensure_chromium "driving the console in a headless browser"
build_typescript_checks
out=$(mktemp -d /tmp/bench-console.XXXXXX)
trap 'stop_shutterbox; rm -rf "$out"' EXIT
SHUTTERBOX_RATE_LIMIT=1000000/60s start_shutterbox "$bin" "$out"
echo "== $bin, embedded, $files files, $(nproc) cores"
CHROMIUM=$chromium node clients/typescript/dist/console-bench.js "$server_url" "$server_key" "$files" "$rounds"
