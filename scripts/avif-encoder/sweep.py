"""Runs speed-features.sh's configurations of libaom over the pictures and prints a Markdown table: for each,
the SSIM difference from cpu-used 5 at equal bytes (interpolated on log bytes, mean over pictures and
cq-levels, and the worst picture's mean) and the encoder's CPU over cpu-used 6's, summed over every encode.

    python3 sweep.py --encode ENCODE --pictures DIR [--only NAME ...]
"""
import argparse
import math
import os
import pathlib
import subprocess

# The cq-levels of the service's q 40–90 (pipeline/src/codecs/avif.rs: q 90 → 12, 80 → 23, 65 → 31, 50 → 38).
LEVELS = [12, 18, 24, 31, 38]

# What cpu-used 6 changes on top of 5 in all-intra mode, numbered as instrument.py numbers them.
FEATURES = {
    0: "prune_smooth_intra_mode_for_chroma", 1: "prune_filter_intra_level 2", 2: "chroma_intra_pruning_with_hog 4",
    3: "intra_pruning_with_hog 4", 4: "cfl_search_range 1", 5: "top_intra_model_count_allowed 2",
    6: "adapt_top_model_rd_count_using_neighbors", 7: "prune_luma_odd_delta_angles_in_intra",
    8: "prune_rectangular_split_based_on_qidx", 9: "prune_rect_part_using_4x4_var_deviation",
    10: "prune_rect_part_using_none_pred_mode", 11: "prune_sub_8x8_partition_level 1", 12: "prune_part4_search 3",
    13: "default_max_partition_size 32×32", 14: "use_bsize_dependent_search_method (motion only)",
    15: "winner_mode_tx_type_pruning 3", 16: "prune_tx_type_est_rd off", 17: "prune_intra_tx_depths_using_nn",
    18: "perform_coeff_opt 6", 19: "tx_domain_dist_level 3", 20: "cdef_pick_method fast 4", 21: "lpf_pick from q",
    22: "multi_winner_mode_type off", 23: "prune_winner_mode_eval_level 1", 24: "dc_blk_pred_level 1",
    30: "auto_max_partition_based_on_simple_motion", 32: "use_square_partition_only_threshold 16×16",
}


def bits(*numbers):
    return sum(1 << n for n in numbers)


GROUP_A = (22, 23)
GROUP_B = GROUP_A + (8,)
GROUP_C = GROUP_B + (2, 3)
GROUP_D = GROUP_C + (4, 9, 17)
GROUP_E = GROUP_D + (1, 19, 21, 32)

# name: (cpu-used, AOM_SF_KEEP, AOM_SF_LR, AOM_EXTRA)
CONFIGS = {"cpu-used 6 (the service's)": (6, 0, None, None), "cpu-used 5": (5, 0, None, None)}
for n, name in FEATURES.items():
    if n != 14:
        CONFIGS[f"6, but cpu-used 5's {name}"] = (6, bits(n), None, None)
for label, group in (("A", GROUP_A), ("B", GROUP_B), ("C", GROUP_C), ("D", GROUP_D), ("E", GROUP_E)):
    CONFIGS[f"6, but 5's {'+'.join(map(str, group))} ({label})"] = (6, bits(*group), None, None)
    if label in "CDE":
        CONFIGS[f"6, but 5's {label}, self-guided restoration on"] = (6, bits(*group), 2, None)
CONFIGS["6, Wiener restoration on"] = (6, 0, 1, None)
CONFIGS["6, self-guided restoration on"] = (6, 0, 2, None)
CONFIGS["6, both restorations on"] = (6, 0, 3, None)
CONFIGS["5, self-guided restoration on"] = (5, 0, 2, None)
for option in ("enable-rect-partitions=0", "min-partition-size=8", "enable-rect-partitions=0,min-partition-size=8",
               "enable-smooth-intra=0", "enable-angle-delta=0", "enable-cfl-intra=0"):
    CONFIGS[f"5, {option}"] = (5, 0, None, option)
for option in ("deltaq-mode=3", "enable-chroma-deltaq=1", "sharpness=1", "enable-qm=1,qm-min=4,qm-max=10"):
    CONFIGS[f"6, {option}"] = (6, 0, None, option)


def run(encode, pictures, speed, keep, lr, extra):
    env = dict(os.environ, AOM_SF_KEEP=hex(keep))
    env.pop("AOM_SF_LR", None)
    env.pop("AOM_EXTRA", None)
    if lr:
        env["AOM_SF_LR"] = str(lr)
    if extra:
        env["AOM_EXTRA"] = extra
    curves = {}
    for picture in pictures:
        out = subprocess.run([encode, str(picture), str(speed), "1", *map(str, LEVELS)], env=env, check=True,
                             capture_output=True, text=True).stdout
        curves[picture.name] = [tuple(map(float, line.split()[1:])) for line in out.strip().splitlines()]
    return curves


def ssim_at(curve, size):
    """The SSIM of `curve` ((bytes, SSIM, ms) points) at `size` bytes, linear on log bytes (extrapolated at
    the ends)."""
    points = sorted(curve)
    for i in range(len(points) - 1):
        if size <= points[i + 1][0] or i == len(points) - 2:
            (b0, s0, _), (b1, s1, _) = points[i], points[i + 1]
            return s0 + (s1 - s0) * (math.log(size) - math.log(b0)) / (math.log(b1) - math.log(b0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--encode", required=True)
    parser.add_argument("--pictures", required=True, type=pathlib.Path)
    parser.add_argument("--only", nargs="*", help="configuration names (substrings) to run besides 5 and 6")
    args = parser.parse_args()
    pictures = sorted(args.pictures.glob("*.ppm"))
    names = [n for n in CONFIGS if n.startswith("cpu-used") or not args.only or any(o in n for o in args.only)]
    results = {n: run(args.encode, pictures, *CONFIGS[n]) for n in names[:2]}
    base, fast = results["cpu-used 5"], results["cpu-used 6 (the service's)"]
    fast_ms = sum(p[2] for curve in fast.values() for p in curve)
    print(f"{len(pictures)} pictures, cq-levels {LEVELS}, one encoder thread.\n")
    print("| libaom configuration | SSIM − cpu-used 5's at equal bytes, mean | worst picture | encoder CPU ÷ cpu-used 6's |")
    print("|---|---:|---:|---:|")
    for name in names:
        curves = results.get(name) or run(args.encode, pictures, *CONFIGS[name])
        per_picture = [sum(s - ssim_at(base[p], b) for b, s, _ in curve) / len(curve) for p, curve in curves.items()]
        ms = sum(point[2] for curve in curves.values() for point in curve)
        print(f"| {name} | {sum(per_picture) / len(per_picture):+.4f} | {min(per_picture):+.4f} | {ms / fast_ms:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
