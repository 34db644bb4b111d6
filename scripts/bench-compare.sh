#!/usr/bin/env bash
# Shutterbox's render pipeline against sharp (libvips) on the same six operations, one table:
#
#   scripts/bench-compare.sh
#
# 1. Writes the corpus if it is missing (`cargo run --release --example make_corpus`, deterministic).
# 2. Installs sharp into a scratch directory if it is missing: $SHARP_BENCH_DIR, default target/sharp-bench
#    (`npm init -y && npm install sharp`; needs the npm registry once).
# 3. Runs the criterion bench pipeline/benches/render.rs (release build: several minutes the first time),
#    then scripts/bench-sharp.mjs.
# 4. Prints a Markdown table: operation, medians (ms), ratio ours/sharp, output bytes, bytes ratio. It is
#    also written to target/bench-compare/table.md, next to the raw outputs (ours.log, sharp.json).
#
# Environment: SHUTTERBOX_CORPUS (corpus directory, default target/corpus), SHARP_BENCH_DIR (see above),
# SHARP_CONCURRENCY (libvips threads; default one per core), CARGO_TARGET_DIR. Needs cargo, node, npm and
# python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${CARGO_TARGET_DIR:-$PWD/target}
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
sharp_dir=${SHARP_BENCH_DIR:-$target/sharp-bench}
out=$target/bench-compare
mkdir -p "$out"

if [[ ! -f $corpus/photo-4000x3000.jpg || ! -f $corpus/photo-1200x800.jpg || ! -f $corpus/photo-8640x5760.jpg ]]; then
  echo "== writing the corpus into $corpus" >&2
  cargo run --release --locked -p shutterbox-pipeline --example make_corpus -- "$corpus" >&2
fi

if [[ ! -d $sharp_dir/node_modules/sharp ]]; then
  echo "== installing sharp into $sharp_dir" >&2
  mkdir -p "$sharp_dir"
  (cd "$sharp_dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install --no-audit --no-fund sharp >&2)
fi

echo "== ours: cargo bench -p shutterbox-pipeline --bench render" >&2
# Criterion keeps earlier results: drop them so a failed run cannot be read as a fresh one.
rm -rf "$target/criterion/render"
SHUTTERBOX_CORPUS=$corpus cargo bench --locked -p shutterbox-pipeline --bench render 2>&1 | tee "$out/ours.log" >&2

echo "== sharp: node scripts/bench-sharp.mjs" >&2
SHARP_DIR=$sharp_dir node scripts/bench-sharp.mjs "$corpus" >"$out/sharp.json"

python3 - "$target/criterion/render" "$out/ours.log" "$out/sharp.json" <<'EOF' | tee "$out/table.md"
import json, pathlib, sys

criterion_dir, ours_log, sharp_json = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
labels = {
    "jpeg4000_w800_jpeg_q80": "4000×3000 JPEG → 800 px JPEG q80",
    "jpeg4000_w800_webp_q80": "4000×3000 JPEG → 800 px WebP q80",
    "jpeg4000_w800_avif": "4000×3000 JPEG → 800 px AVIF (default q)",
    "jpeg4000_cover200_jpeg": "4000×3000 JPEG → 200×200 cover JPEG q80",
    "jpeg1200_blur5_gray_jpeg": "1200×800 JPEG blur 5 + gray → JPEG q80",
    "jpeg50mp_w800_jpeg_q80": "8640×5760 JPEG (49.8 MP) → 800 px JPEG q80",
}

ours_bytes = {}
for line in open(ours_log, encoding="utf-8", errors="replace"):
    parts = line.split()
    if len(parts) == 4 and parts[0] == "shutterbox-output":
        ours_bytes[parts[1]] = (int(parts[2]), parts[3])

sharp = json.load(open(sharp_json))
sharp_ops = {op["id"]: op for op in sharp["ops"]}

def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "–"

def fmt_ms(v):
    return f"{v:.1f}" if v is not None else "–"

print(f"sharp {sharp['sharp']}, libvips {sharp['libvips']}, {sharp['concurrency']} libvips thread(s)\n")
print("| operation | ours median ms | sharp median ms | ours/sharp time | ours bytes | sharp bytes | ours/sharp bytes |")
print("|---|---:|---:|---:|---:|---:|---:|")
for op_id, label in labels.items():
    est = criterion_dir / op_id / "new" / "estimates.json"
    ours_ms = json.load(open(est))["median"]["point_estimate"] / 1e6 if est.exists() else None
    ob = ours_bytes.get(op_id, (None, ""))[0]
    s = sharp_ops.get(op_id, {})
    sharp_ms, sb = s.get("median_ms"), s.get("bytes")
    print(f"| {label} | {fmt_ms(ours_ms)} | {fmt_ms(sharp_ms)} | {ratio(ours_ms, sharp_ms)} | "
          f"{ob if ob is not None else '–'} | {sb if sb is not None else '–'} | {ratio(ob, sb)} |")
EOF
