#!/usr/bin/env bash
# The web console (docs/console.md) in a real browser, against both deployments:
#
#   scripts/console.sh
#
# Runs clients/typescript/src/console.ts (headless Chromium driven by playwright-core, axe-core for the
# accessibility check) against
#   1. the embedded deployment (SQLite and a local directory), and
#   2. the distributed one (PostgreSQL, Redis and S3 through s3s-fs), with signed delivery URLs on, so the
#      builder's URL comes from transform-url.
# Each run signs in, uploads, browses, opens a file, builds a transformation, warms, deletes and signs out
# with the mouse, checks a read key's screens, then does the main flow with the keyboard alone. The
# screenshots of every screen are kept in <target>/console/<deployment>/ (CI keeps them as artifacts).
#
# Installs Debian's chromium when missing (set CHROMIUM to use another); the npm packages are pinned by
# clients/typescript/package-lock.json. The server is the test suite's debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/browser.sh
source scripts/lib/browser.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
out=$target/console
rm -rf "$out"
mkdir -p "$out/embedded" "$out/distributed"
ensure_chromium "driving the console in a headless browser"
ensure_postgres_and_redis
build_typescript_checks
build_test_server

# Small enough for the browser to send a file one byte over it quickly.
max_upload=$((32 * 1024 * 1024))
database=sbx_console_$$
s3_pid=
cleanup() {
  stop_shutterbox
  if [[ -n $s3_pid ]]; then kill "$s3_pid" 2>/dev/null || true; fi
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "sbx_console_$$*" | xargs -r redis-cli -h 127.0.0.1 -p 6379 del >/dev/null
  rm -rf "$out/s3"
}
trap cleanup EXIT

# The run for the deployment the environment configures.
run_console() {
  local deployment=$1 read_key
  echo "== the console, $deployment deployment"
  SHUTTERBOX_MAX_UPLOAD_BYTES=$max_upload SHUTTERBOX_RATE_LIMIT=100000/60s SHUTTERBOX_PRESETS="thumb: w=120&h=120&fit=cover" \
    start_shutterbox "$bin" "$out/$deployment"
  read_key=$(SHUTTERBOX_DATA_DIR=$server_data "$bin" keys create --account default --scope read | grep '^sbx_')
  CHROMIUM=$chromium node clients/typescript/dist/console.js "$server_url" "$server_key" "$read_key" "$max_upload" \
    "$out/$deployment"
  stop_shutterbox
  rm -f "$out/$deployment"/*.bin
}

run_console embedded

s3_port=$(free_port)
s3_line=$(scripts/start-s3.sh "$s3_port" "$out/s3/data" 2>"$out/s3-start.log" | tail -1) || {
  cat "$out/s3-start.log" >&2
  exit 1
}
s3_pid=$(sed -n 's/.*s3s-fs (pid \([0-9]*\)).*/\1/p' "$out/s3-start.log")
[[ $s3_line == "SHUTTERBOX_TEST_S3_ENDPOINT=http://127.0.0.1:$s3_port" ]] || {
  echo "console: unexpected output of scripts/start-s3.sh: $s3_line" >&2
  exit 1
}
psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $database" >/dev/null
export SHUTTERBOX_DATABASE_URL=postgres://postgres@127.0.0.1:5432/$database
export SHUTTERBOX_REDIS_URL=redis://127.0.0.1:6379 SHUTTERBOX_REDIS_PREFIX=sbx_console_$$
export SHUTTERBOX_S3_ENDPOINT=http://127.0.0.1:$s3_port SHUTTERBOX_S3_BUCKET=console
export SHUTTERBOX_S3_ACCESS_KEY=minioadmin SHUTTERBOX_S3_SECRET_KEY=minioadmin
export SHUTTERBOX_URL_SIGNING_KEYS=console-check-signing-key-0123456789abcdef
run_console distributed

echo "== console passed in both deployments (screenshots in $out/embedded and $out/distributed)"
