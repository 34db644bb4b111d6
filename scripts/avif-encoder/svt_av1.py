"""SVT-AV1 (Debian's SvtAv1EncApp) against libaom on speed-features.sh's pictures, for speed-features.sh
--svt-av1. SVT-AV1 encodes 4:2:0 only, so each picture (cropped to even sides, for both) goes to it as a
full-range BT.601 4:2:0 Y4M; libaom gets the RGB picture as the pipeline encodes it (4:4:4). Prints each
preset's SSIM against libaom's `cpu-used` 6 and 5 at equal bytes (mean over the points inside libaom's byte
range, and the worst point) and its CPU (the whole process, one thread) over libaom 6's.

    python3 svt_av1.py --encode ENCODE --pictures DIR --presets 4 6 8 ...
"""
import argparse
import pathlib
import resource
import subprocess
import tempfile

import numpy as np
from PIL import Image

from sweep import LEVELS, run, ssim_at

CRFS = [20, 28, 36, 44, 52]


def children_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def prepare(picture, out):
    """The picture cropped to even sides (PPM) and the same as full-range BT.601 4:2:0 (Y4M), as
    pipeline/src/codecs/avif.rs computes luma and chroma, chroma averaged over each 2×2."""
    rgb = np.asarray(Image.open(picture).convert("RGB"))
    h, w = rgb.shape[0] & ~1, rgb.shape[1] & ~1
    rgb = rgb[:h, :w].astype(np.int64)
    ppm, y4m = out / f"{picture.stem}.ppm", out / f"{picture.stem}.y4m"
    Image.fromarray(rgb.astype(np.uint8)).save(ppm)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    y = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
    u = np.clip((-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32768) >> 16, 0, 255)
    v = np.clip((32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32768) >> 16, 0, 255)

    def half(c):
        return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2] + 2) // 4

    with open(y4m, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n".encode())
        for plane in (y, half(u), half(v)):
            f.write(plane.astype(np.uint8).tobytes())
    return ppm, y4m


def svt(encode, ppm, y4m, preset, crf, ivf):
    started = children_cpu_ms()
    subprocess.run(["SvtAv1EncApp", "-i", str(y4m), "-b", str(ivf), "--preset", str(preset), "--crf", str(crf),
                    "--lp", "1", "--color-range", "1", "--matrix-coefficients", "6", "-n", "1"],
                   check=True, capture_output=True)
    ms = children_cpu_ms() - started
    size, ssim = subprocess.run([encode, "--ivf", str(ppm), str(ivf)], check=True, capture_output=True,
                                text=True).stdout.split()
    return float(size), float(ssim), ms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--encode", required=True)
    parser.add_argument("--pictures", required=True, type=pathlib.Path)
    parser.add_argument("--presets", type=int, nargs="+", default=[4, 6, 8, 10, 12])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        pictures = [prepare(p, tmp) for p in sorted(args.pictures.glob("*.ppm"))]
        crops = [ppm for ppm, _ in pictures]
        fast, slow = run(args.encode, crops, 6, 0, None, None), run(args.encode, crops, 5, 0, None, None)
        fast_ms = sum(point[2] for curve in fast.values() for point in curve)
        print(f"{len(pictures)} pictures (even sides), SVT-AV1 at crf {CRFS}, libaom at cq {LEVELS}; one thread.\n")
        print("| encoder | SSIM − libaom 6's at equal bytes, mean (worst point) | SSIM − libaom 5's | CPU ÷ libaom 6's |")
        print("|---|---:|---:|---:|")
        slow_ms = sum(point[2] for curve in slow.values() for point in curve)
        print(f"| libaom `cpu-used` 5, 4:4:4 | | | {slow_ms / fast_ms:.2f} |")
        for preset in args.presets:
            to_fast, to_slow, ms = [], [], 0.0
            for ppm, y4m in pictures:
                low, high = min(p[0] for p in fast[ppm.name]), max(p[0] for p in fast[ppm.name])
                for crf in CRFS:
                    size, ssim, cpu = svt(args.encode, ppm, y4m, preset, crf, tmp / "out.ivf")
                    ms += cpu
                    if low <= size <= high:
                        to_fast.append(ssim - ssim_at(fast[ppm.name], size))
                        to_slow.append(ssim - ssim_at(slow[ppm.name], size))
            print(f"| SVT-AV1 preset {preset}, 4:2:0 | {np.mean(to_fast):+.4f} ({min(to_fast):+.4f}) | "
                  f"{np.mean(to_slow):+.4f} | {ms / fast_ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
