#!/usr/bin/env python3
"""Output quality of ours against sharp's for the lossy operations of the pipeline bench, as SSIM against
one shared reference, so byte counts can be compared at equal quality (issue 3's AVIF target).

    python3 scripts/quality-compare.py [--corpus DIR] [--sharp-dir DIR] [--avif-q Q ...]

For each operation the reference is the same resize done by sharp (libvips, Lanczos3) written losslessly
as PNG; both encoders' outputs are decoded (Pillow, which reads AVIF) and compared with it by SSIM
(scikit-image, `structural_similarity` on 8-bit RGB, `channel_axis=2`, default 7x7 window; gray outputs
are compared on the reference's luma). Ours comes from `pipeline/examples/render_file.rs`, the server's
`render()`, in release mode; sharp's from the same calls as scripts/bench-sharp.mjs. `--avif-q` adds rows
for ours at other `q` values (the sweep used to set `encode::avif_quality`).

Needs: cargo, node with sharp installed in --sharp-dir (scripts/bench-compare.sh installs it), and
`pip install scikit-image pillow` (Pillow 11.2 or later reads AVIF). Prints a Markdown table.

`--avif-curve` instead measures AVIF as the saturation benchmark asks it (scripts/bench-saturation.sh: a box
`fit=inside`, the same `q` sent to both servers) against sharp's whole rate-distortion curve: sharp at
qualities 30–90 and ours at 40–90, each point's SSIM against the same reference, and for each of ours the
SSIM sharp reaches at the same bytes (interpolated on log bytes between its two nearest points). A
positive difference means ours gives more SSIM per byte, at that byte count, than sharp can.
`--avif-encoder-curve` gives both encoders sharp's resize (the reference PNG) instead, so it compares the
AVIF encoders alone, and prints how far our resize alone is from sharp's.
"""

import argparse
import io
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity

ROOT = pathlib.Path(__file__).resolve().parent.parent

# id, source, our query, our target, sharp pipeline (JS, `s` is sharp(input)), reference pipeline.
OPS = [
    ("jpeg4000_w800_jpeg_q80", "photo-4000x3000.jpg", "w=800&q=80", "jpeg",
     "s.resize({width: 800, withoutEnlargement: true}).jpeg({quality: 80})",
     "s.resize({width: 800, withoutEnlargement: true})"),
    ("jpeg4000_w800_webp_q80", "photo-4000x3000.jpg", "w=800&q=80", "webp",
     "s.resize({width: 800, withoutEnlargement: true}).webp({quality: 80})",
     "s.resize({width: 800, withoutEnlargement: true})"),
    ("jpeg4000_w800_avif", "photo-4000x3000.jpg", "w=800", "avif",
     "s.resize({width: 800, withoutEnlargement: true}).avif()",
     "s.resize({width: 800, withoutEnlargement: true})"),
    ("jpeg4000_cover200_jpeg", "photo-4000x3000.jpg", "w=200&h=200&fit=cover", "jpeg",
     "s.resize(200, 200, {fit: 'cover', withoutEnlargement: true}).jpeg({quality: 80})",
     "s.resize(200, 200, {fit: 'cover', withoutEnlargement: true})"),
    ("jpeg1200_blur5_gray_jpeg", "photo-1200x800.jpg", "blur=5&gray=true&q=80", "jpeg",
     "s.blur(5).grayscale().jpeg({quality: 80})",
     "s.blur(5).grayscale()"),
]


def sharp_run(sharp_dir: pathlib.Path, source: pathlib.Path, pipeline: str, out: pathlib.Path) -> None:
    script = f"""
const {{ createRequire }} = require('node:module');
const sharp = createRequire({json.dumps(str(sharp_dir / 'package.json'))})('sharp');
const s = sharp({json.dumps(str(source))});
{pipeline}.toFile({json.dumps(str(out))}).catch((e) => {{ console.error(e); process.exit(1); }});
"""
    subprocess.run(["node", "-e", script], check=True)


def ours_run(source: pathlib.Path, query: str, target: str, out: pathlib.Path) -> None:
    subprocess.run(
        ["cargo", "run", "-q", "--release", "--locked", "-p", "shutterbox-pipeline", "--example", "render_file",
         "--", str(source), query, target, str(out)],
        check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
    )


def load(path: pathlib.Path, gray: bool) -> np.ndarray:
    image = Image.open(io.BytesIO(path.read_bytes()))
    return np.asarray(image.convert("L" if gray else "RGB"))


def ssim(reference: np.ndarray, candidate: np.ndarray) -> float:
    if reference.shape != candidate.shape:
        raise SystemExit(f"size mismatch: reference {reference.shape}, output {candidate.shape}")
    if reference.ndim == 2:
        return float(structural_similarity(reference, candidate, data_range=255))
    return float(structural_similarity(reference, candidate, data_range=255, channel_axis=2))


def avif_curve(corpus: pathlib.Path, sharp_dir: pathlib.Path, box: int, same_input: bool) -> None:
    """Ours against sharp's AVIF curve. `same_input`: both encoders are given sharp's resize (the
    reference PNG) with no resize of their own, which measures the encoders alone; the line above each
    source's rows gives how far our resize alone is from sharp's."""
    sources = ["photo-4000x3000.jpg", "photo-1200x800.jpg"]
    print(f"| source → AVIF, box {box} | encoder | q | bytes | SSIM | sharp's SSIM at these bytes | difference |")
    print("|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for name in sources:
            source = corpus / name
            resize = f"s.resize({box}, {box}, {{fit: 'inside', withoutEnlargement: true}})"
            reference_file = tmp / "reference.png"
            sharp_run(sharp_dir, source, f"{resize}.png()", reference_file)
            reference = load(reference_file, False)
            if same_input:
                ours_resize = tmp / "ours-resize.png"
                ours_run(source, f"w={box}&h={box}&fit=inside", "png", ours_resize)
                print(f"| {name}: our resize alone | | | | {ssim(reference, load(ours_resize, False)):.4f} | | |")
            curve = []
            for q in range(30, 95, 5):
                out = tmp / f"sharp-{q}.avif"
                if same_input:
                    sharp_run(sharp_dir, reference_file, f"s.avif({{quality: {q}}})", out)
                else:
                    sharp_run(sharp_dir, source, f"{resize}.avif({{quality: {q}}})", out)
                curve.append((out.stat().st_size, ssim(reference, load(out, False)), q))
            curve.sort()
            for size, value, q in curve:
                print(f"| {name} | sharp | {q} | {size} | {value:.4f} | | |")
            for q in range(40, 95, 5):
                out = tmp / f"ours-{q}.avif"
                if same_input:
                    ours_run(reference_file, f"q={q}", "avif", out)
                else:
                    ours_run(source, f"w={box}&h={box}&fit=inside&q={q}", "avif", out)
                size, value = out.stat().st_size, ssim(reference, load(out, False))
                at = sharp_at(curve, size)
                shown = "" if at is None else f"{at:.4f} | {value - at:+.4f}"
                print(f"| {name} | ours | {q} | {size} | {value:.4f} | {shown or ' | '} |")
                sys.stdout.flush()


def sharp_at(curve: list, size: int):
    """sharp's SSIM at `size` bytes, interpolated on log bytes; None outside its measured range."""
    for (b0, s0, _), (b1, s1, _) in zip(curve, curve[1:]):
        if b0 <= size <= b1 and b1 > b0:
            t = (np.log(size) - np.log(b0)) / (np.log(b1) - np.log(b0))
            return s0 + t * (s1 - s0)
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT / "target/corpus"))
    parser.add_argument("--sharp-dir", default=str(ROOT / "target/sharp-bench"))
    parser.add_argument("--avif-q", type=int, nargs="*", default=[])
    parser.add_argument("--avif-curve", type=int, metavar="BOX", help="AVIF against sharp's curve, box BOX")
    parser.add_argument("--avif-encoder-curve", type=int, metavar="BOX",
                        help="the same with both encoders given sharp's resize: the encoders alone")
    args = parser.parse_args()
    corpus, sharp_dir = pathlib.Path(args.corpus).resolve(), pathlib.Path(args.sharp_dir).resolve()
    if args.avif_curve or args.avif_encoder_curve:
        avif_curve(corpus, sharp_dir, args.avif_curve or args.avif_encoder_curve, bool(args.avif_encoder_curve))
        return

    print("| operation | ours q | ours bytes | ours SSIM | sharp bytes | sharp SSIM | bytes ours/sharp |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for op_id, source_name, query, target, sharp_pipeline, reference_pipeline in OPS:
            source = corpus / source_name
            gray = "gray" in query
            reference_file = tmp / f"{op_id}-reference.png"
            sharp_run(sharp_dir, source, f"{reference_pipeline}.png()", reference_file)
            reference = load(reference_file, gray)
            sharp_file = tmp / f"{op_id}-sharp.{target}"
            sharp_run(sharp_dir, source, sharp_pipeline, sharp_file)
            sharp_bytes, sharp_ssim = sharp_file.stat().st_size, ssim(reference, load(sharp_file, gray))
            queries = [query]
            if target == "avif":
                queries += [f"{query}&q={q}" for q in args.avif_q]
            for our_query in queries:
                ours_file = tmp / f"{op_id}-ours.{target}"
                ours_run(source, our_query, target, ours_file)
                ours_bytes, ours_ssim = ours_file.stat().st_size, ssim(reference, load(ours_file, gray))
                q = next((p[2:] for p in our_query.split("&") if p.startswith("q=")), "80 (default)")
                print(f"| {op_id} | {q} | {ours_bytes} | {ours_ssim:.4f} | {sharp_bytes} | {sharp_ssim:.4f} "
                      f"| {ours_bytes / sharp_bytes:.2f} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
