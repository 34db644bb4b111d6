#!/usr/bin/env bash
# Runs the README's quick start as written, so it cannot rot:
#
#   scripts/quickstart.sh
#
# Starts the debug build of `shutterbox serve` (for `cargo run --release -- serve`, command 1) on a free
# port, takes the README's second shell block under "## Quick start" (commands 2–5) with `localhost:8080`
# pointed at that port, and runs it with KEY set to the printed key, in a scratch directory holding a
# cat.jpg (the test fixture, made a JPEG by the service itself). Then loads the URL it printed: it must
# answer a WebP without credentials. Installs curl and jq when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
ensure_tools "the README's quick start" jq:jq curl:curl

target=${CARGO_TARGET_DIR:-$PWD/target}
out=$target/quickstart
rm -rf "$out"
mkdir -p "$out/work"

commands=$(awk '
  /^## Quick start/ { in_section = 1; next }
  in_section && /^## / { exit }
  in_section && /^```sh$/ { blocks++; if (blocks == 2) { in_block = 1; next } }
  in_block && /^```$/ { exit }
  in_block { print }
' README.md)
[[ -n $commands ]] || {
  echo "quickstart: no second sh block under '## Quick start' in README.md" >&2
  exit 1
}

# The test suite's build (scripts/test.sh): the same features, so after the tests nothing is compiled again
# (`cargo build --bin shutterbox` alone would leave out the dev-dependencies' features and rebuild most crates).
echo "== cargo test --no-run (debug build of the server)"
cargo test --workspace --locked --no-run
trap stop_shutterbox EXIT
start_shutterbox "$target/debug/shutterbox" "$out"
port=${server_url##*:}

# A JPEG to upload: the PNG fixture, converted by the service.
auth=(-H "Authorization: ApiKey $server_key" -H 'Content-Type: application/json')
fixture=tests/fixtures/gradient.png
presign=$(curl -fsS "$server_url/v1/upload/presign" "${auth[@]}" \
  -d '{"filename":"fixture.png","mimetype":"image/png","size":'"$(stat -c%s $fixture)"'}')
curl -fsS -X PUT "$(jq -r .uploadUrl <<<"$presign")" --data-binary @$fixture >/dev/null
url=$(curl -fsS "$server_url/v1/upload/confirm" "${auth[@]}" \
  -d '{"pendingUploadId":"'"$(jq -r .pendingUploadId <<<"$presign")"'"}' | jq -r .file.secureUrl)
curl -fsS -o "$out/work/cat.jpg" "$url?format=jpeg"

echo "== the README's quick start, commands 2-5"
printf '%s\n' "$commands"
(
  cd "$out/work"
  export KEY=$server_key
  bash -euo pipefail -c "${commands//localhost:8080/127.0.0.1:$port}"
) | tee "$out/output.txt"

url=$(tail -1 "$out/output.txt" | jq -r .url)
[[ $url == "$server_url/v1/file/default/cat.webp?format=webp&w=400" ]] || {
  echo "quickstart: the last command printed no transform URL of cat.webp: $(tail -1 "$out/output.txt")" >&2
  exit 1
}
type=$(curl -fsS -o /dev/null -w '%{content_type}' "$url")
[[ $type == image/webp ]] || {
  echo "quickstart: $url answered $type" >&2
  exit 1
}
echo "== quickstart passed: $url serves image/webp"
