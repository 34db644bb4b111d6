#!/usr/bin/env bash
# The OpenAPI document as real clients use it, against a running server:
#
#   scripts/clients.sh
#
# 1. Validates openapi/openapi.json with openapi-spec-validator (the served document is the same file:
#    tests/api/openapi.rs).
# 2. Generates the Python client with openapi-python-client and runs clients/python/flow.py with it.
# 3. Generates the TypeScript types with openapi-typescript, compiles clients/typescript/src with
#    `tsc --strict` (an API change that breaks a call fails here) and runs the flow with openapi-fetch.
# 4. Drives Swagger UI at /v1/docs in headless Chromium (playwright-core): authorize, "Try it out" on
#    GET /files, a 200 with the listing; the screenshot is kept at <target>/clients/swagger-ui.png.
# 5. Runs the gallery page of docs/api.md ("Image facts") as written and checks it in the same browser:
#    boxes and placeholders before the pictures arrive, the pictures after (<target>/clients/gallery.png).
# 6. Resumable uploads with real TUS clients: the tus-js-client snippet of docs/api.md run as written with
#    node, and Uppy (@uppy/tus) in the same browser on a page of another origin, which the server is
#    started to allow (SHUTTERBOX_CORS_ORIGINS), with progress events (clients/typescript/src/resumable.ts).
#
# The Python tools are pinned in a virtualenv under <target>/clients/venv, the npm packages by
# clients/typescript/package-lock.json (`npm ci`). Installs Debian's chromium when missing (set
# CHROMIUM to use another). The server is the debug build (the test suite's, so CI compiles nothing new),
# on a free port with its own data directory; its log is kept in <target>/clients/.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
out=$target/clients
mkdir -p "$out"
# shellcheck source=scripts/lib/browser.sh
source scripts/lib/browser.sh
ensure_chromium "driving Swagger UI in a headless browser"

python_tools=(openapi-python-client==0.29.1 openapi-spec-validator==0.9.0)
venv=$out/venv
if [[ "$(cat "$venv/.tools" 2>/dev/null)" != "${python_tools[*]}" ]]; then
  echo "== installing ${python_tools[*]}"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "${python_tools[@]}"
  echo "${python_tools[*]}" >"$venv/.tools"
fi

echo "== openapi-spec-validator openapi/openapi.json"
"$venv/bin/openapi-spec-validator" openapi/openapi.json

echo "== Python client (openapi-python-client)"
rm -rf "$out/python"
"$venv/bin/openapi-python-client" generate --path openapi/openapi.json --config clients/python/config.yaml \
  --meta none --output-path "$out/python/shutterbox_client" --overwrite 2>&1 | tee "$out/python-generate.log"
# The delivery and tus routes answer and take binary bodies, which it skips with a warning (docs/clients.md,
# "What the document guarantees generators"); a warning about anything else is a document it cannot fully use.
if grep -E '^(WARNING|ERROR)' "$out/python-generate.log" | grep -Evq 'within (delivery\.|resumable\. Endpoint will not be generated\.)$'; then
  echo "clients: openapi-python-client warned about more than the binary delivery and tus routes" >&2
  exit 1
fi

echo "== TypeScript client (openapi-typescript + openapi-fetch, tsc --strict)"
build_typescript_checks
build_test_server

trap stop_shutterbox EXIT
# The Uppy page of step 6 is served from this port: another origin, which the server must allow.
page_port=$(free_port)
SHUTTERBOX_CORS_ORIGINS=http://127.0.0.1:$page_port SHUTTERBOX_RATE_LIMIT=100000/60s start_shutterbox "$bin" "$out"
url=$server_url
key=$server_key

echo "== Python client flow"
PYTHONPATH=$out/python "$venv/bin/python" clients/python/flow.py "$url" "$key"

echo "== TypeScript client flow"
node clients/typescript/dist/flow.js "$url" "$key"

echo "== Swagger UI in headless Chromium"
CHROMIUM=$chromium node clients/typescript/dist/swagger-ui.js "$url" "$key" "$out/swagger-ui.png"
echo "== The gallery page of docs/api.md in headless Chromium"
CHROMIUM=$chromium node clients/typescript/dist/gallery.js "$url" "$key" docs/api.md "$(free_port)" "$out/gallery.png"
echo "== Resumable uploads: the tus-js-client snippet of docs/api.md, and Uppy in headless Chromium"
CHROMIUM=$chromium node clients/typescript/dist/resumable.js "$url" "$key" docs/api.md "$page_port"
echo "== clients passed (generated code, logs and the screenshot in $out)"
