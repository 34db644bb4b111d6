#!/usr/bin/env bash
# What libaom's all-intra `cpu-used` 6 (the service's AVIF setting) gives up against 5 (sharp's), feature by
# feature: builds the libaom that libaom-sys bundles with every speed feature 6 adds made switchable at run
# time (instrument.py), encodes pictures as the pipeline does (encode.c) at the cq-levels of q 40–90 with
# each configuration, and prints Markdown (BENCHMARKS.md, "AVIF's SSIM per byte"): SSIM against cpu-used 5
# at equal bytes and the encoder's CPU against cpu-used 6's.
#
#   scripts/avif-encoder/speed-features.sh [--only NAME ...]     # sweep.py's configuration names
#   scripts/avif-encoder/speed-features.sh --svt-av1 [PRESET ...]   # SVT-AV1 against libaom (svt_av1.py)
#
# Needs cmake, nasm, gcc (and Debian's svt-av1 for --svt-av1) and Python with scikit-image and Pillow (installed with pip when missing). Works in
# target/avif-encoder. Times are CPU of one encoder thread: run it on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/target/avif-encoder
here=$root/scripts/avif-encoder
mkdir -p "$work"
# shellcheck source=scripts/lib/provision.sh
source "$root/scripts/lib/provision.sh"
ensure_tools "building libaom for scripts/avif-encoder" cmake:cmake nasm:nasm gcc:gcc
python3 -c 'import skimage, PIL' 2>/dev/null || python3 -m pip install --quiet scikit-image pillow

# libaom's source as the build uses it: libaom-sys's bundled copy, wherever cargo keeps it.
crate=$(cd "$root" && cargo metadata --format-version 1 --locked --filter-platform x86_64-unknown-linux-gnu 2>/dev/null | python3 -c '
import json, os, sys
packages = json.load(sys.stdin)["packages"]
print(next(os.path.dirname(p["manifest_path"]) for p in packages if p["name"] == "libaom-sys"))')
if [[ ! -f $work/src/av1/encoder/speed_features.c ]]; then
  rm -rf "$work/src" && cp -r "$crate/vendor" "$work/src"
  python3 "$here/instrument.py" "$work/src"
fi
if [[ ! -f $work/build/libaom.a ]]; then
  cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DENABLE_DOCS=0 -DENABLE_EXAMPLES=0 \
    -DENABLE_TESTDATA=0 -DENABLE_TESTS=0 -DENABLE_TOOLS=0 >"$work/cmake.log"
  make -C "$work/build" -j"$(nproc)" aom >"$work/make.log"
fi
gcc -O2 -Wall -I"$work/src" -I"$work/build" "$here/encode.c" "$work/build/libaom.a" -lm -lpthread -o "$work/encode"

# The pictures: scikit-image's colour photographs and the project's synthetic photos, each fitted into
# 480×480 (the box of the AVIF quality comparison).
corpus=$root/target/corpus
[[ -f $corpus/photo-4000x3000.jpg ]] || cargo run --release --locked -q -p shutterbox-pipeline --example make_corpus -- "$corpus"
python3 "$root/scripts/lib/photos.py" "$work/pictures" "$corpus" 480 \
  astronaut.png chelsea.png coffee.png hubble_deep_field.jpg ihc.png motorcycle_left.png retina.jpg \
  rocket.jpg camera.png photo-4000x3000.jpg photo-1200x800.jpg

if [[ ${1:-} == --svt-av1 ]]; then
  shift
  ensure_tools "comparing SVT-AV1 with libaom" SvtAv1EncApp:svt-av1
  python3 "$here/svt_av1.py" --encode "$work/encode" --pictures "$work/pictures" ${1:+--presets "$@"}
else
  python3 "$here/sweep.py" --encode "$work/encode" --pictures "$work/pictures" "$@"
fi
