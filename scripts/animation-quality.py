#!/usr/bin/env python3
"""Bytes and per-frame SSIM of an animated render, ours against sharp's, for the saturation benchmark's
animated case (scripts/bench-saturation.sh, `gif100`): the 100-frame 480×270 clip fitted inside a box into
animated WebP (q75) and GIF, as both servers render it there.

    python3 scripts/animation-quality.py [--corpus DIR] [--sharp-dir DIR] [--box 240 ...] [--render-file BIN]

The reference of each frame is sharp's (libvips, Lanczos3) resize of the whole animation written losslessly
(raw RGBA, the frames stacked), so both outputs are compared with the same picture. Ours comes from
`pipeline/examples/render_file.rs` (the server's `render()`), release mode; sharp's from
`sharp(input, {animated: true}).resize(...)`, then `.webp({quality})` or `.gif()` with sharp's defaults,
as scripts/bench-sharp-server.mjs renders them. Both outputs are decoded frame by frame with Pillow and
compared with scikit-image's `structural_similarity` on 8-bit RGB (`channel_axis=2`, 7×7 window). Prints a
Markdown table: bytes, frames, the mean and the lowest SSIM over the frames, and ours/sharp's bytes.

Needs: cargo, node with sharp installed in --sharp-dir (scripts/bench-saturation.sh installs it under its
SAT_TOOLS), the corpus (`cargo run --release -p shutterbox-pipeline --example make_corpus`), and
`pip install scikit-image pillow`.
"""

import argparse
import json
import pathlib
import subprocess
import tempfile

import numpy as np
from PIL import Image, ImageSequence
from skimage.metrics import structural_similarity

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = "clip-480x270-100.gif"


def sharp(sharp_dir: pathlib.Path, source: pathlib.Path, box: int, encode: str, out: pathlib.Path) -> dict:
    """Runs sharp's pipeline; returns the output's info (width, pageHeight, pages)."""
    script = f"""
const {{ createRequire }} = require('node:module');
const sharp = createRequire({json.dumps(str(sharp_dir / 'package.json'))})('sharp');
sharp({json.dumps(str(source))}, {{ animated: true }})
  .resize({box}, {box}, {{ fit: 'inside', withoutEnlargement: true }})
  .{encode}
  .toBuffer({{ resolveWithObject: true }})
  .then(({{ data, info }}) => {{
    require('node:fs').writeFileSync({json.dumps(str(out))}, data);
    console.log(JSON.stringify(info));
  }})
  .catch((e) => {{ console.error(e); process.exit(1); }});
"""
    return json.loads(subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True).stdout)


def ours(render_file: pathlib.Path | None, source: pathlib.Path, box: int, target: str, q: int | None,
         out: pathlib.Path) -> None:
    query = f"w={box}&h={box}&fit=inside" + (f"&q={q}" if q else "")
    command = ([str(render_file)] if render_file else
               ["cargo", "run", "-q", "--release", "--locked", "-p", "shutterbox-pipeline", "--example", "render_file",
                "--"])
    subprocess.run(command + [str(source), query, target, str(out)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def frames(path: pathlib.Path) -> list[np.ndarray]:
    with Image.open(path) as image:
        return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=ROOT / "target" / "corpus")
    parser.add_argument("--sharp-dir", type=pathlib.Path, default=ROOT / "target" / "tools" / "sharp")
    parser.add_argument("--box", type=int, nargs="+", default=[240])
    parser.add_argument("--render-file", type=pathlib.Path,
                        help="a built render_file example to run as ours (default: cargo run --release)")
    args = parser.parse_args()
    source = args.corpus / SOURCE
    if not source.is_file():
        raise SystemExit(f"{source} is missing: cargo run --release -p shutterbox-pipeline --example make_corpus")
    print("| clip → box | output | ours bytes | sharp bytes | ours/sharp bytes | frames (ours, sharp) "
          "| SSIM mean ours | SSIM mean sharp | SSIM lowest ours | SSIM lowest sharp |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for box in args.box:
            raw = tmp / "reference.raw"
            info = sharp(args.sharp_dir, source, box, "ensureAlpha().raw()", raw)
            width, page = info["width"], info.get("pageHeight", info["height"])
            stacked = np.fromfile(raw, dtype=np.uint8).reshape(-1, width, 4)[:, :, :3]
            reference = [stacked[i:i + page] for i in range(0, stacked.shape[0], page)]
            for name, target, q, encode in [("WebP q75", "webp", 75, "webp({ quality: 75 })"),
                                            ("GIF", "gif", None, "gif()")]:
                ours_out, sharp_out = tmp / f"ours.{target}", tmp / f"sharp.{target}"
                ours(args.render_file, source, box, target, q, ours_out)
                sharp(args.sharp_dir, source, box, encode, sharp_out)
                row = []
                for out in (ours_out, sharp_out):
                    decoded = frames(out)
                    if len(decoded) != len(reference) or decoded[0].shape != reference[0].shape:
                        raise SystemExit(f"{out}: {len(decoded)} frames of {decoded[0].shape}, the reference "
                                         f"{len(reference)} of {reference[0].shape}")
                    values = [structural_similarity(r, d, data_range=255, channel_axis=2)
                              for r, d in zip(reference, decoded)]
                    row.append((out.stat().st_size, len(decoded), float(np.mean(values)), float(np.min(values))))
                (ob, of, om, ol), (sb, sf, sm, sl) = row
                print(f"| {width}×{page} | {name} | {ob:,} | {sb:,} | {ob / sb:.2f} | {of}, {sf} | {om:.4f} | {sm:.4f} "
                      f"| {ol:.4f} | {sl:.4f} |")


if __name__ == "__main__":
    main()
