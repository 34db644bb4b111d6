#!/usr/bin/env python3
"""Decodes a JPEG XL file to PNG with libjxl as imagecodecs bundles it (0.11 at the time of writing), for
scripts/corpus-reference.cjs: Debian's djxl (libjxl 0.7) writes the alpha of a deeper-than-8-bit image at
its own bit depth into a 16-bit PNG, so a 12-bit alpha reads as ~6 % opaque. The picture is upright (the
codestream's orientation applied) and sRGB as libjxl renders it; the first frame of an animation.

    python3 scripts/jxl-decode.py IN.jxl OUT.png BITS      # BITS: the image's bits per sample (jxlinfo)
    python3 scripts/jxl-decode.py --version                # prints libjxl's version

Needs `pip install imagecodecs numpy`.
"""
import sys

import imagecodecs
import numpy as np

if sys.argv[1:] == ["--version"]:
    print(imagecodecs.jpegxl_version())
    sys.exit(0)
source, out, bits = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(source, "rb") as f:
    pixels = imagecodecs.jpegxl_decode(f.read(), index=0)
if pixels.ndim == 4:  # frames first
    pixels = pixels[0]
if pixels.dtype == np.uint16 and bits < 16:
    # libjxl gives samples at the image's own depth; a PNG's 16 bits span 0-65535.
    pixels = np.round(pixels.astype(np.float64) * 65535 / ((1 << bits) - 1)).clip(0, 65535).astype(np.uint16)
elif pixels.dtype.kind == "f":
    pixels = np.round(pixels.clip(0, 1) * 65535).astype(np.uint16)
with open(out, "wb") as f:
    f.write(imagecodecs.png_encode(pixels))
