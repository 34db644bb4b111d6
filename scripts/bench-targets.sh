#!/usr/bin/env bash
# Every throughput, latency, caching and AVIF-quality target of issue 22 measured in one run on this
# machine, each with its verdict. One command on a fresh Debian/Ubuntu machine, from the repo root:
#
#   scripts/bench-targets.sh
#
# 1. scripts/bench-saturation.sh with all twelve still cases at C = 2×cores and C = cores against sharp and
#    thumbor, in 3 rounds of 6 s (its own header says what it installs and how it measures); a ratio is
#    the median of the rounds' ratios, as one run of a case swings ±15% on a shared host;
# 2. scripts/bench-pairs.sh for the single-request latencies (→ 800 px JPEG, → 200×200 cover, → 800 px WebP
#    of the 12 MP photo), ours and sharp alternated per round;
# 3. scripts/bench-cached.sh: a cached variant against nginx serving the same bytes, with wrk and oha;
# 4. scripts/quality-compare.py --avif-curve 480: our AVIF's SSIM at each byte count against sharp's curve
#    (needs scikit-image and Pillow: installed into a venv under the tools directory).
# Then writes <target>/bench-targets/report.md: the verdicts table first, then each part's own report. The
# parts run one after another, never two at once. About 55 minutes on two cores once built and installed.
#
# Environment: TARGETS_TOOLS (<target>/bench-tools: sharp, thumbor, the quality venv, oha; kept between
# runs), SAT_ROUNDS (3), SAT_SECS (6), BENCH_PAIRS (3), and each part's own variables (SAT_*, CACHED_*),
# passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
target=${CARGO_TARGET_DIR:-$repo/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
tools=${TARGETS_TOOLS:-$target/bench-tools}
out=$target/bench-targets
mkdir -p "$tools" "$out"
log() { echo "== $(date +%T) bench-targets: $*" >&2; }

started=$(date -u +'%Y-%m-%d %H:%M')
log "1/4 saturation"
# The twelve still cases (issue 22's targets); the animated ones run apart (BENCHMARKS.md, "Animations"): a
# sharp GIF render outlasts these 6 s runs.
still_cases="jpeg12mp:jpeg jpeg12mp:webp jpeg12mp:avif jpeg12mp:png jpeg2mp:jpeg jpeg2mp:webp jpeg2mp:avif
  jpeg2mp:png png2mp:jpeg png2mp:webp png2mp:avif png2mp:png"
SAT_TOOLS=$tools SAT_CASES=${SAT_CASES:-$still_cases} SAT_ROUNDS=${SAT_ROUNDS:-3} SAT_SECS=${SAT_SECS:-6} \
  scripts/bench-saturation.sh >/dev/null
cp "$target/bench-saturation/results.tsv" "$target/bench-saturation/ratios.tsv" "$out/"
cp "$target/bench-saturation/report.md" "$out/saturation.md"

log "2/4 single-request latency"
SHARP_BENCH_DIR=$tools/sharp BENCH_PAIRS=${BENCH_PAIRS:-3} \
  BENCH_OPS=jpeg4000_w800_jpeg_q80,jpeg4000_cover200_jpeg,jpeg4000_w800_webp_q80 scripts/bench-pairs.sh >/dev/null
cp "$target/bench-pairs/pairs.tsv" "$target/bench-pairs/table.md" "$out/"

log "3/4 cached variant against nginx"
CACHED_TOOLS=$tools CACHED_OUT=$out/cached scripts/bench-cached.sh >/dev/null

log "4/4 AVIF SSIM per byte"
quality=$tools/quality-venv
if [[ ! -x $quality/bin/python ]] || ! "$quality/bin/python" -c 'import skimage, PIL' 2>/dev/null; then
  python3 -m venv "$quality"
  "$quality/bin/pip" install -q --disable-pip-version-check scikit-image pillow >&2
fi
"$quality/bin/python" scripts/quality-compare.py --sharp-dir "$tools/sharp" --avif-curve 480 >"$out/avif-curve.md"

python3 - "$out" "$started" "$(date -u +'%H:%M')" "$(nproc)" <<'EOF' | tee "$out/report.md"
import csv, math, pathlib, statistics, sys

out, started, ended, cores = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
c = str(2 * cores)
runs = list(csv.DictReader(open(out / "results.tsv"), delimiter="\t"))
names = {"jpeg12mp": "12 MP JPEG", "jpeg2mp": "2 MP JPEG", "png2mp": "2 MP PNG"}
verdicts = []

def verdict(target, measured, met):
    verdicts.append((target, measured, "met" if met else "**not met**"))

# ours/sharp per case and C as bench-saturation paired them (the median of the rounds' ratios).
throughput = {(r["case"], r["c"]): float(r["ours_over_sharp"])
              for r in csv.DictReader(open(out / "ratios.tsv"), delimiter="\t")}
for output, label, floor in (("jpeg", "JPEG", 1.5), ("webp", "WebP", 1.5), ("png", "PNG", 1.5), ("avif", "AVIF", 3.0)):
    cells, met = [], True
    for source in ("jpeg12mp", "jpeg2mp", "png2mp"):
        ratio = throughput.get((f"{source}:{output}", c))
        if ratio is None:
            cells.append(f"{names[source]} n/a")
            met = False
            continue
        met &= ratio >= floor
        # Rounded down, so that a figure shown at the floor has met it.
        cells.append(f"{names[source]} {math.floor(ratio * 100) / 100:.2f}×")
    verdict(f"C = {c}: → {label} ≥ {floor}× sharp's req/s (median of the rounds' ratios)", ", ".join(cells), met)

ours_runs = [r for r in runs if r["server"] == "ours" and r["status"] == "ok"]
errors = sum(int(r["non2xx"]) + int(r["socket_errors"]) for r in ours_runs)
verdict("0 errors (ours, every run)", f"{errors}", errors == 0)
hwm = max(int(r["hwm_kb"]) for r in ours_runs)
verdict("peak RSS stated (ours, every run)", f"{hwm / 1024:.0f} MiB", True)

differences = []
for line in open(out / "avif-curve.md"):
    cells = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(cells) == 7 and cells[1] == "ours" and cells[6]:
        differences.append(float(cells[6]))
verdict("AVIF: SSIM per byte at least sharp's (box 480, our q 40–90 on sharp's curve)",
        f"{min(differences):+.4f} … {max(differences):+.4f} SSIM at equal bytes" if differences else "no point on sharp's curve",
        bool(differences) and min(differences) >= 0)

pairs = {}
for line in open(out / "pairs.tsv"):
    op, _, ours, sharp, *_ = line.split("\t")
    pairs.setdefault(op, []).append(float(ours) / float(sharp))
for op, label, ceiling in (("jpeg4000_w800_jpeg_q80", "→ 800 px JPEG", 0.6),
                           ("jpeg4000_cover200_jpeg", "→ 200×200 cover", 0.6),
                           ("jpeg4000_w800_webp_q80", "→ 800 px WebP", 0.8)):
    ratios = pairs.get(op, [])
    median = statistics.median(ratios) if ratios else float("inf")
    verdict(f"single request {label}: ≤ {ceiling}× sharp's time", f"{median:.2f}× (median of {len(ratios)} pairs)",
            median <= ceiling)

cached = {}
for line in open(out / "cached" / "results.tsv"):
    r, tool, k, v = line.split("\t")
    cached.setdefault((r, tool), {})[int(k)] = float(v)
for tool in ("wrk", "oha"):
    ratios = [v[0] / v[max(v)] for (_, t), v in cached.items() if t == tool]
    median = statistics.median(ratios)
    verdict(f"cached variant ≥ 0.95× nginx's req/s with {tool}",
            f"{median:.2f}× (median of {len(ratios)} rounds, {min(ratios):.2f}–{max(ratios):.2f})", median >= 0.95)

print(f"# Issue 22's targets, one run ({started}–{ended} UTC, {cores} cores)\n")
print("| target | measured | verdict |\n|---|---|---|")
for target, measured, result in verdicts:
    print(f"| {target} | {measured} | {result} |")
for name, title in (("saturation.md", "Saturation"), ("table.md", "Single-request latency, paired"),
                    ("cached/table.md", "Cached variant against nginx"), ("avif-curve.md", "AVIF against sharp's curve")):
    print(f"\n## {title}\n")
    print((out / name).read_text().strip())
EOF
log "report written to $out/report.md"
