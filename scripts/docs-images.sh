#!/usr/bin/env bash
# Regenerates the example images of docs/transformations.md, rendered by the service itself:
#
#   scripts/docs-images.sh
#
# Writes the test corpus (pipeline/examples/make_corpus.rs) if it is missing, starts `shutterbox serve`
# (debug build) on a free port with its own data directory, uploads the corpus's 1200×800 photo and its
# RGBA PNG through the API, fetches every example below from the public delivery URL into docs/images/,
# and rewrites the table between the `examples` markers of docs/transformations.md, so each picture sits
# beside the exact query that produced it. Deterministic: the same build writes the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh

target=${CARGO_TARGET_DIR:-$PWD/target}
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
images=docs/images
page=docs/transformations.md

# name | source (photo or alpha) | query | what it shows
examples=(
  "original|photo|w=400|The source, a 1200×800 JPEG, shown at 400 px wide (\`w=400\`; one of w/h keeps the aspect ratio)."
  "fit-cover|photo|w=200&h=200&fit=cover|\`fit=cover\` (default): fills 200×200, cropping the centre."
  "fit-contain|photo|w=200&h=200&fit=contain|\`fit=contain\`: fits inside 200×200, letterboxed (black in JPEG)."
  "fit-contain-alpha|alpha|w=200&h=200&fit=contain&format=png|\`fit=contain\` with alpha output: the bars are transparent."
  "fit-fill|photo|w=200&h=200&fit=fill|\`fit=fill\`: exactly 200×200, stretched."
  "fit-inside|photo|w=200&h=200&fit=inside|\`fit=inside\`: as large as possible within 200×200 (200×133)."
  "fit-outside|photo|w=200&h=200&fit=outside|\`fit=outside\`: as small as possible covering 200×200 (300×200)."
  "gravity-north|photo|w=300&h=100&gravity=north|\`gravity=north\`: the \`cover\` window against the top edge."
  "gravity-fp|photo|w=150&h=150&gravity=fp:0.8,0.7|\`gravity=fp:0.8,0.7\`: the window centred on a focal point."
  "gravity-attention|photo|w=150&h=150&gravity=attention|\`gravity=attention\`: the window on the most interesting part (libvips' smartcrop)."
  "gravity-entropy|photo|w=150&h=150&gravity=entropy|\`gravity=entropy\`: the window on the busiest part."
  "crop|photo|crop=300,200,600,400&w=400|\`crop=x,y,width,height\` in source pixels, before the resize."
  "rot|photo|rot=90&w=200|\`rot=90\`: rotated a quarter turn clockwise (any angle; corners filled black, or transparent with alpha)."
  "rot-30|photo|rot=30&w=300|\`rot=30\`: an arbitrary angle; the canvas grows to hold the rotated image."
  "blur|photo|w=400&blur=5|\`blur=5\`: Gaussian blur, σ 0.3–1000."
  "sharp|photo|w=400&sharp=true|\`sharp=true\`: unsharp mask after the resize."
  "gray|photo|w=400&gray=true|\`gray=true\`: grayscale."
  "border|photo|w=400&border=10_ff6600|\`border=10_ff6600\`: a 10 px border of #ff6600 around the result."
  "q-20|photo|w=400&q=20|\`q=20\`: JPEG at quality 20 (default 80)."
  "q-auto|photo|w=400&q=auto|\`q=auto\`: the format's starting quality, raised for simple graphics and transparency."
  "format-webp|photo|w=400&format=webp|\`format=webp\` (or a \`.webp\` URL)."
  "format-avif|photo|w=400&format=avif|\`format=avif\`."
  "format-auto|photo|w=400&format=auto|\`format=auto\`: WebP (GIF stays GIF); the URL keeps its \`.jpg\`."
  "combined|photo|crop=300,200,600,400&rot=90&w=200&blur=1&gray=true&border=4_000000|All at once, applied in the fixed order crop → rot → resize → blur → sharp → gray → border."
)

if [[ ! -f $corpus/photo-1200x800.jpg || ! -f $corpus/alpha-800x600.png ]]; then
  echo "== writing the corpus into $corpus"
  # The examples as the tests build them (the workspace's features), so nothing new is compiled; a few
  # minutes in a debug build for the large photos.
  cargo build --locked --workspace --examples
  "$target/debug/examples/make_corpus" "$corpus"
fi

# The test suite's build (scripts/test.sh): the same features, so after the tests nothing is compiled again
# (`cargo build --bin shutterbox` alone would leave out the dev-dependencies' features and rebuild most crates).
echo "== cargo test --no-run (debug build of the server)"
cargo test --workspace --locked --no-run
out=$(mktemp -d /tmp/docs-images.XXXXXX)
trap 'stop_shutterbox; rm -rf "$out"' EXIT
start_shutterbox "$target/debug/shutterbox" "$out"
key=$server_key
api=$server_url/v1

# Uploads $1 as $2 into folder docs (`shutterbox upload`) and prints its secureUrl.
upload() {
  "$target/debug/shutterbox" upload --url "$server_url" --key "$key" --folder docs --name "$2" "$1" | jq -r .secureUrl
}
declare -A source_url
source_url[photo]=$(upload "$corpus/photo-1200x800.jpg" photo.jpg)
source_url[alpha]=$(upload "$corpus/alpha-800x600.png" graphic.png)

mkdir -p "$images"
rm -f "$images"/*
table="| query | result | what it shows |"$'\n'"|---|---|---|"
for example in "${examples[@]}"; do
  IFS='|' read -r name source query caption <<<"$example"
  url="${source_url[$source]}?$query"
  headers=$(mktemp)
  curl -fsS -D "$headers" -o "$out/image" "$url"
  type=$(grep -i '^content-type:' "$headers" | tr -d '\r' | awk '{print $2}')
  rm -f "$headers"
  extension=${type#image/}
  extension=${extension/jpeg/jpg}
  file=$name.$extension
  mv "$out/image" "$images/$file"
  size=$(stat -c%s "$images/$file")
  echo "  $file ($type, $size bytes) ← ${url#"$api"}"
  table+=$'\n'"| \`${url#"$api/file/default/docs/"}\` | ![$name](images/$file) | $caption ($((size / 1024)) KB) |"
done

# The table between the markers, replaced whole.
python3 - "$page" "$table" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
start, end = "<!-- examples:start -->", "<!-- examples:end -->"
head, rest = text.split(start, 1)
_, tail = rest.split(end, 1)
open(path, "w", encoding="utf-8").write(f"{head}{start}\n{table}\n{end}{tail}")
EOF
echo "== wrote $images/ and the table of $page"
