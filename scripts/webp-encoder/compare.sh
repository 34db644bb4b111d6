#!/usr/bin/env bash
# The vendored libwebp (third_party/libwebp-sys, with its intra-4×4 candidate pruning) against the crates.io
# package it was changed from, at the pipeline's WebP settings: bytes, SSIM, encoder instructions and
# one-core time over a set of photographs (scikit-image's sample photos and the project's synthetic
# corpus), each fitted into 512×512 as the benchmarks' renders are. Prints Markdown (BENCHMARKS.md, "WebP's
# intra-4×4 search pruned").
#
#   scripts/webp-encoder/compare.sh [--no-instructions] [--timing ROUNDS] [--qualities "35 50 ..."]
#
# Needs gcc, curl, valgrind (for the instruction counts), taskset, and Python with scikit-image and
# Pillow (installed with pip when missing). Works in target/webp-encoder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/target/webp-encoder
version=0.9.6
mkdir -p "$work"

python3 -c 'import skimage, PIL' 2>/dev/null || python3 -m pip install --quiet scikit-image pillow

# The published package, as crates.io serves it.
if [[ ! -d $work/published/vendor/src ]]; then
  rm -rf "$work/published" && mkdir -p "$work/published"
  curl -sSfL "https://static.crates.io/crates/libwebp-sys/libwebp-sys-$version.crate" | tar xz -C "$work/published" --strip-components=1
fi

# libwebp as build.rs compiles it (cc's flags for a release build), and the encode program linked to it.
build() {
  local tree=$1 objects=$2 program=$3 file object
  mkdir -p "$objects"
  while IFS= read -r file; do
    object=$objects/$(echo "${file#"$tree"/}" | tr / _).o
    [[ $object -nt $file ]] || echo "$file $object"
  done < <(find "$tree/vendor/src" "$tree/vendor/sharpyuv" -name '*.c') |
    xargs -r -P "$(nproc)" -n 2 sh -c 'gcc -O3 -fPIC -ffunction-sections -fdata-sections -m64 -DNDEBUG=1 \
      -D_THREAD_SAFE=1 -DWEBP_HAVE_SSE2=1 -fvisibility=hidden -Wall -I"$0" -c "$1" -o "$2"' "$tree/vendor"
  gcc -O3 -I"$tree/vendor" "$root/scripts/webp-encoder/encode.c" "$objects"/*.o -o "$program" -lm -lpthread
}
build "$work/published" "$work/published-objects" "$work/encode-published"
build "$root/third_party/libwebp-sys" "$work/changed-objects" "$work/encode-changed"

# The pictures: scikit-image's colour and grey photographs, and the project's synthetic photos.
corpus=$root/target/corpus
[[ -f $corpus/photo-4000x3000.jpg ]] || cargo run --release --locked -q -p shutterbox-pipeline --example make_corpus -- "$corpus"
python3 "$root/scripts/lib/photos.py" "$work/pictures" "$corpus" 512 \
  astronaut.png chelsea.png coffee.png hubble_deep_field.jpg ihc.png motorcycle_left.png retina.jpg \
  rocket.jpg camera.png moon.png grass.png gravel.png brick.png coins.png page.png color.png logo.png \
  photo-4000x3000.jpg photo-1200x800.jpg alpha-800x600.png

python3 "$root/scripts/webp-encoder/compare.py" --published "$work/encode-published" --changed "$work/encode-changed" \
  --pictures "$work/pictures" --out "$work/out" "$@"
