#!/usr/bin/env bash
# The test command of the README: every test of the workspace, with the end-to-end HTTP suite run twice:
#   1. against the embedded deployment (SQLite, local directory, in-process queue; servers in the test
#      process), together with the unit tests and the backends' own tests;
#   2. against the distributed deployment: PostgreSQL, Redis and an S3 server (s3s-fs), with two API
#      processes behind a round-robin proxy and a separate worker process per test, plus the cluster tests
#      (a worker killed mid-job, dead letters, duplicate jobs, a rate limit shared by two nodes).
#
# It sets up what those need on a fresh machine: starts the local PostgreSQL and Redis if they are down,
# installs s3s-fs (`cargo install`, once) and starts it on a free port with its own directory, and sharp
# from npm (once, under target/tools) as the corpus animation test's reference; the corpora are read from
# SHUTTERBOX_CORPORA (default: tests/corpora, in the repository), and their absence fails that test. Every run
# gets its own database-name prefix, Redis key prefix and buckets, and removes them afterwards. A service
# that cannot be reached fails the run; nothing is skipped.
#
# Arguments are passed to both test runs (a test-name filter, e.g. `upload::`).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh

run_id=$(date +%s)_$$
work=$(mktemp -d "${TMPDIR:-/tmp}/shutterbox-test.XXXXXX")
s3_pid=
cleanup() {
  local status=$?
  [[ -n $s3_pid ]] && kill "$s3_pid" 2>/dev/null || true
  # Test databases of this run (each test makes its own).
  if command -v psql >/dev/null; then
    psql -h 127.0.0.1 -U postgres -d postgres -Atc \
      "SELECT datname FROM pg_database WHERE datname LIKE 'sbx_${run_id}%'" 2>/dev/null |
      while read -r db; do psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true; done
  fi
  # Redis keys of this run (each test uses its own prefix under the run's).
  redis-cli -h 127.0.0.1 -p 6379 --scan --pattern "sbx_${run_id}*" 2>/dev/null | xargs -r -n 500 redis-cli -h 127.0.0.1 -p 6379 del >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

echo "== services"
ensure_postgres_and_redis

# s3s-fs on a free port, over a directory of this run.
s3_port=$(free_port)
mkdir -p "$work/s3"
endpoint_line=$(scripts/start-s3.sh "$s3_port" "$work/s3" | tail -1)
s3_pid=$(pgrep -f "s3s-fs .*--port $s3_port" | head -1 || true)
export "${endpoint_line?}"

export SHUTTERBOX_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
export SHUTTERBOX_TEST_DB_PREFIX=sbx_${run_id}
export SHUTTERBOX_TEST_REDIS_URL=redis://127.0.0.1:6379
export SHUTTERBOX_TEST_S3_DATA_DIR=$work/s3
echo "PostgreSQL, Redis and s3s-fs ($SHUTTERBOX_TEST_S3_ENDPOINT) are up"

# sharp (libvips) and the other npm references the tests ask (scripts/lib/services.sh).
ensure_reference_packages

echo "== tests: unit, backends, end-to-end against the embedded deployment"
# cluster::, faults:: and migrate_store:: always run distributed (they stop and start services, or copy into
# them); they run below.
SHUTTERBOX_TEST_DEPLOYMENT=embedded cargo test --workspace --locked "$@" -- --skip cluster:: --skip faults:: --skip migrate_store::

echo "== tests: end-to-end against the distributed deployment (PostgreSQL + Redis + S3, 2 API nodes + worker)"
# The end-to-end binary of the build above, run as cargo runs it (from the repo root). Not through
# `cargo test --test api`: with fewer targets selected, cargo hashed turbojpeg-sys's build script
# differently and rebuilt libjpeg-turbo and every crate above it (4 minutes of CI).
api_tests=$(cargo test --workspace --locked --no-run --message-format=json "$@" | python3 -c '
import json, sys
paths = {m["executable"] for m in map(json.loads, sys.stdin)
         if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "api"
         and m["target"]["kind"] == ["test"] and m.get("executable")}
if len(paths) != 1:
    sys.exit(f"expected one end-to-end test binary, found {len(paths)}")
print(paths.pop())
')
SHUTTERBOX_TEST_DEPLOYMENT=distributed "$api_tests" "$@"
