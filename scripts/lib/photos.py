"""The photographs the encoder studies (scripts/webp-encoder, scripts/avif-encoder) encode: scikit-image's
sample pictures and the project's synthetic corpus, each fitted into BOX×BOX with Lanczos and written as
8-bit RGB PPM into OUT.

    python3 photos.py OUT CORPUS BOX NAME ...    # NAME: a scikit-image data file or a corpus file
"""
import os
import pathlib
import sys

import skimage
from PIL import Image

out, corpus, box = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
data = pathlib.Path(os.path.dirname(skimage.__file__)) / "data"
out.mkdir(parents=True, exist_ok=True)
for name in sys.argv[4:]:
    source = corpus / name if (corpus / name).exists() else data / name
    picture = Image.open(source).convert("RGB")
    picture.thumbnail((box, box), Image.LANCZOS)
    picture.save(out / f"{source.stem}.ppm")
