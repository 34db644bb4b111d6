#!/usr/bin/env bash
# Ours against sharp, operation by operation, in alternating pairs: a ratio that a noisy host cannot skew.
#
#   scripts/bench-pairs.sh            # BENCH_PAIRS rounds (default 5)
#
# scripts/bench-compare.sh runs all of ours (criterion, ~2 min) and then all of sharp's, so on a host whose
# speed drifts over minutes a ratio mixes two different machines. Here each round times one operation with
# ours (pipeline/examples/render_file.rs with RUNS) and with sharp (scripts/bench-sharp.mjs, SHARP_OPS=<id>) seconds
# apart, by the same method on both sides (the source in memory, 2 untimed runs, then 15 timed runs, 3 for
# AVIF and 7 for 50 MP; median), alternating which side goes first. Each round gives a paired ratio
# ours/sharp; the table reports their median and range, and every round's medians.
#
# Needs what bench-compare.sh needs (it installs sharp and writes the corpus the same way); writes the table
# to <target>/bench-pairs/table.md. Environment: BENCH_PAIRS, BENCH_OPS (comma-separated operation ids; all
# when unset), SHUTTERBOX_CORPUS, SHARP_BENCH_DIR,
# CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${CARGO_TARGET_DIR:-$PWD/target}
corpus=${SHUTTERBOX_CORPUS:-$target/corpus}
sharp_dir=${SHARP_BENCH_DIR:-$target/sharp-bench}
rounds=${BENCH_PAIRS:-5}
out=$target/bench-pairs
mkdir -p "$out"

if [[ ! -f $corpus/photo-4000x3000.jpg || ! -f $corpus/photo-1200x800.jpg || ! -f $corpus/photo-8640x5760.jpg ]]; then
  cargo run --release --locked -p shutterbox-pipeline --example make_corpus -- "$corpus" >&2
fi
if [[ ! -d $sharp_dir/node_modules/sharp ]]; then
  mkdir -p "$sharp_dir"
  (cd "$sharp_dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install --no-audit --no-fund sharp >&2)
fi
cargo build --release --locked -p shutterbox-pipeline --example render_file >&2
ours_bin=$target/release/examples/render_file

# id|source|query|target|runs — the operations of pipeline/benches/render.rs and bench-sharp.mjs.
ops=(
  "jpeg4000_w800_jpeg_q80|photo-4000x3000.jpg|w=800&q=80|jpeg|15"
  "jpeg4000_w800_webp_q80|photo-4000x3000.jpg|w=800&q=80|webp|15"
  "jpeg4000_w800_avif|photo-4000x3000.jpg|w=800|avif|3"
  "jpeg4000_cover200_jpeg|photo-4000x3000.jpg|w=200&h=200&fit=cover|jpeg|15"
  "jpeg1200_blur5_gray_jpeg|photo-1200x800.jpg|blur=5&gray=true&q=80|jpeg|15"
  "jpeg50mp_w800_jpeg_q80|photo-8640x5760.jpg|w=800&q=80|jpeg|7"
)

# One side's timing of the current operation, as JSON (the variables are the loop's).
ours() { "$ours_bin" "$corpus/$source" "$query" "$format" "$out/ours-output" "$runs"; }
sharp() { SHARP_DIR=$sharp_dir SHARP_OPS=$id node scripts/bench-sharp.mjs "$corpus" 2>/dev/null; }

results=$out/pairs.tsv
: >"$results"
for round in $(seq "$rounds"); do
  for op in "${ops[@]}"; do
    IFS='|' read -r id source query format runs <<<"$op"
    [[ -z ${BENCH_OPS:-} || ,$BENCH_OPS, == *,$id,* ]] || continue
    if ((round % 2)); then o=$(ours); s=$(sharp); else s=$(sharp); o=$(ours); fi
    python3 - "$id" "$round" "$o" "$s" >>"$results" <<'PY'
import json, sys
op_id, rnd, ours, sharp = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])["ops"][0]
print(f"{op_id}\t{rnd}\t{ours['median_ms']}\t{sharp['median_ms']}\t{ours['bytes']}\t{sharp['bytes']}")
PY
    echo "round $round $id: $(tail -1 "$results" | cut -f3,4)" >&2
  done
done

python3 - "$results" <<'PY' | tee "$out/table.md"
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    op_id, _, ours, sharp, ob, sb = line.split("\t")
    rows[op_id].append((float(ours), float(sharp), int(ob), int(sb)))
print("| operation | paired ratios ours/sharp | median ratio | range | ours ms (median) | sharp ms (median) | bytes ours/sharp |")
print("|---|---|---:|---:|---:|---:|---:|")
for op_id, pairs in rows.items():
    ratios = [o / s for o, s, _, _ in pairs]
    ob, sb = pairs[-1][2], pairs[-1][3]
    print(f"| {op_id} | {', '.join(f'{r:.2f}' for r in ratios)} | **{statistics.median(ratios):.2f}** "
          f"| {min(ratios):.2f}–{max(ratios):.2f} | {statistics.median(o for o, *_ in pairs):.1f} "
          f"| {statistics.median(s for _, s, *_ in pairs):.1f} | {ob / sb:.2f} |")
PY
