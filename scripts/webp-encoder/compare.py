#!/usr/bin/env python3
"""The vendored libwebp (third_party/libwebp-sys) against the published one it was changed from: bytes,
SSIM and encoder instructions per picture and quality, and the rate-distortion difference. Run by
compare.sh, which builds the two `encode` programs and writes the pictures.

For each picture the two encoders' (log bytes, SSIM) points over the qualities make two curves; a point of
the changed encoder is compared with the published curve at the same bytes (SSIM difference) and at the
same SSIM (byte difference), by linear interpolation, points outside the other curve's range left out.
SSIM is scikit-image's `structural_similarity` on 8-bit RGB against the encoder's input, as
scripts/quality-compare.py measures. Instructions are valgrind callgrind's count inside `WebPEncode`
(the same every run, whatever else the machine does); `--timing` adds one-core encode times.
"""

import argparse
import concurrent.futures
import math
import os
import pathlib
import re
import statistics
import subprocess
import tempfile

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity


def encode(binary, picture, quality, out, instructions):
    cmd = [str(binary), str(picture), str(quality), "1", str(out)]
    counted = None
    if instructions:
        with tempfile.NamedTemporaryFile() as profile:
            run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile.name}",
                                  "--toggle-collect=WebPEncode"] + cmd, capture_output=True, text=True, check=True)
        counted = int(re.search(r"Collected : (\d+)", run.stderr).group(1))
    else:
        subprocess.run(cmd, capture_output=True, check=True)
    source = np.asarray(Image.open(picture).convert("RGB"))
    decoded = np.asarray(Image.open(out).convert("RGB"))
    ssim = float(structural_similarity(source, decoded, data_range=255, channel_axis=2))
    return os.path.getsize(out), ssim, counted


def differences(base, changed):
    """Mean SSIM difference at equal bytes and mean byte difference (fraction) at equal SSIM."""
    b = sorted(base, key=lambda p: p[0])
    c = sorted(changed, key=lambda p: p[0])
    lb, sb = np.log([p[0] for p in b]), np.array([p[1] for p in b])
    lc, sc = np.log([p[0] for p in c]), np.array([p[1] for p in c])
    at_bytes = [s - np.interp(l, lb, sb) for l, s in zip(lc, sc) if lb[0] <= l <= lb[-1]]
    order = np.argsort(sb)
    at_ssim = [math.exp(l - np.interp(s, sb[order], lb[order])) - 1 for l, s in zip(lc, sc) if sb.min() <= s <= sb.max()]
    return (statistics.mean(at_bytes) if at_bytes else float("nan"),
            statistics.mean(at_ssim) if at_ssim else float("nan"))


def fastest(binary, picture, quality, repeats):
    run = subprocess.run(["taskset", "-c", "1", str(binary), str(picture), str(quality), str(repeats), os.devnull],
                         capture_output=True, text=True, check=True)
    return float(run.stdout.split()[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--published", required=True, type=pathlib.Path)
    parser.add_argument("--changed", required=True, type=pathlib.Path)
    parser.add_argument("--pictures", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--qualities", default="35 50 65 75 85 95")
    parser.add_argument("--no-instructions", action="store_true")
    parser.add_argument("--timing", type=int, default=0, help="rounds of one-core timing at q 75 (0: none)")
    args = parser.parse_args()
    qualities = [int(q) for q in args.qualities.split()]
    pictures = sorted(args.pictures.glob("*.ppm"))
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(side, binary, picture, q) for side, binary in (("published", args.published), ("changed", args.changed))
            for picture in pictures for q in qualities]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda j: (j, encode(j[1], j[2], j[3], args.out / f"{j[0]}-{j[2].stem}-{j[3]}.webp",
                                                     not args.no_instructions)), jobs))
    points = {}
    for (side, _, picture, q), (size, ssim, counted) in results:
        points.setdefault((side, picture.stem), []).append((size, ssim, counted, q))

    print(f"| picture | SSIM difference at equal bytes | bytes at equal SSIM | instructions, changed/published |")
    print("|---|---:|---:|---:|")
    rows = []
    for picture in pictures:
        base, changed = points[("published", picture.stem)], points[("changed", picture.stem)]
        d_ssim, d_bytes = differences(base, changed)
        ratio = (sum(p[2] for p in changed) / sum(p[2] for p in base)) if not args.no_instructions else float("nan")
        rows.append((d_ssim, d_bytes, ratio))
        print(f"| {picture.stem} | {d_ssim:+.5f} | {d_bytes * 100:+.2f}% | {ratio:.3f} |")
    col = lambda i: [r[i] for r in rows if not math.isnan(r[i])]
    print(f"| **median of {len(rows)}** | {statistics.median(col(0)):+.5f} | {statistics.median(col(1)) * 100:+.2f}% "
          f"| {statistics.median(col(2)) if col(2) else float('nan'):.3f} |")
    print(f"| mean | {statistics.mean(col(0)):+.5f} | {statistics.mean(col(1)) * 100:+.2f}% "
          f"| {statistics.mean(col(2)) if col(2) else float('nan'):.3f} |")
    print(f"\nqualities {qualities}; {len(pictures)} pictures")

    if args.timing:
        times = {}
        for rnd in range(args.timing):
            for picture in pictures:
                sides = [("published", args.published), ("changed", args.changed)]
                for side, binary in (sides if rnd % 2 == 0 else sides[::-1]):
                    t = fastest(binary, picture, 75, 10)
                    times[(side, picture.stem)] = min(times.get((side, picture.stem), t), t)
        ratios = [times[("changed", p.stem)] / times[("published", p.stem)] for p in pictures]
        geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"\none core, q 75, fastest of {args.timing} rounds x 10 encodes: changed/published time, geometric mean "
              f"{geomean:.3f} (per picture {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
