#!/usr/bin/env bash
# API fuzzing from our own OpenAPI document with schemathesis, against a running server:
#
#   scripts/api-fuzz.sh
#
# Installs schemathesis (pinned, in a virtualenv under <target>/api-fuzz/venv) when missing, builds the
# debug binary (the test suite's build, so CI compiles nothing new), starts `shutterbox serve` on a free
# port with its own data directory and a rate limit high enough not to be the answer, and runs every phase
# (examples, coverage, fuzzing, stateful) for API_FUZZ_SECONDS (default 60) with both key headers sent. It
# fails on any 5xx (not_a_server_error) and on any response that does not match the document: status code,
# content type, headers and body schema. The report (JUnit XML) and the server's log are kept in
# <target>/api-fuzz/.
#
# One worker: schemathesis's workers are threads, and CPython 3.11's `ast.parse` (which hypothesis calls to
# describe its strategies) keeps its recursion depth in shared state (CPython gh-106905): two workers failed a CI run with
# "SystemError: AST constructor recursion depth mismatch" on this machine's Python 3.11.7.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
out=$target/api-fuzz
seconds=${API_FUZZ_SECONDS:-60}
version=4.32.5
mkdir -p "$out"

venv=$out/venv
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  echo "== installing schemathesis $version"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$version"
fi

# The test suite's build (scripts/test.sh): the same features, so after the tests nothing is compiled again
# (`cargo build --bin shutterbox` alone would leave out the dev-dependencies' features and rebuild most crates).
echo "== cargo test --no-run (debug build of the server)"
cargo test --workspace --locked --no-run
bin=$target/debug/shutterbox

trap stop_shutterbox EXIT
SHUTTERBOX_RATE_LIMIT=10000000/60s start_shutterbox "$bin" "$out"
port=${server_url##*:}
key=$server_key

echo "== schemathesis: ${seconds}s against http://127.0.0.1:$port/v1/openapi.json"
# The hooks give the tus routes' binary bodies a generator (scripts/lib/api_fuzz_hooks.py).
PYTHONPATH=scripts/lib SCHEMATHESIS_HOOKS=api_fuzz_hooks \
  "$venv/bin/schemathesis" run "http://127.0.0.1:$port/v1/openapi.json" \
  -H "Authorization: ApiKey $key" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-time "$seconds" --workers 1 \
  --report junit --report-dir "$out" \
  --warnings off
echo "== api-fuzz passed (report in $out)"
