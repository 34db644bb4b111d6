// The six operations of pipeline/benches/render.rs, timed with sharp (libvips) for comparison; the driver
// scripts/bench-compare.sh runs both and prints one table.
//
// Needs sharp installed in a scratch directory OUTSIDE the repo (the npm package ships its own libvips):
//
//   mkdir -p /tmp/sharpbench && cd /tmp/sharpbench && npm init -y && npm install sharp
//   cd /tmp/sharpbench && node /path/to/repo/scripts/bench-sharp.mjs /path/to/repo/target/corpus
//
// sharp is loaded from the current directory's node_modules, or from $SHARP_DIR's when set, so the script
// itself can stay in the repo. The corpus comes from
// `cargo run --release -p shutterbox-pipeline --example make_corpus` (default directory target/corpus).
//
// Method: the source is read into memory once; each operation runs warm (2 untimed runs first), one image
// at a time, N times (15; 3 for AVIF), input buffer → output buffer, and the median wall time is reported.
// libvips' operation cache is turned off (sharp.cache(false)) so no run reuses an earlier one's result;
// libvips' thread pool keeps sharp's default (one thread per core) unless SHARP_CONCURRENCY is set.
//
// Output (stdout): JSON {sharp, libvips, concurrency, ops: [{id, runs, median_ms, min_ms, bytes, width,
// height}]}. Progress goes to stderr.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const corpus = path.resolve(process.argv[2] ?? 'target/corpus');
const sharpDir = path.resolve(process.env.SHARP_DIR ?? process.cwd());
const require = createRequire(path.join(sharpDir, 'package.json'));
let sharp;
try {
  sharp = require('sharp');
} catch (e) {
  console.error(`sharp not found from ${sharpDir}: run \`npm init -y && npm install sharp\` there, or set SHARP_DIR`);
  console.error(String(e));
  process.exit(2);
}

sharp.cache(false);
if (process.env.SHARP_CONCURRENCY) sharp.concurrency(Number(process.env.SHARP_CONCURRENCY));

const PHOTO = 'photo-4000x3000.jpg';
const SMALL_PHOTO = 'photo-1200x800.jpg';
const HUGE_PHOTO = 'photo-8640x5760.jpg'; // optional: skipped when missing
const w800 = { width: 800, withoutEnlargement: true };

// Same ids as pipeline/benches/render.rs.
const OPS = [
  { id: 'jpeg4000_w800_jpeg_q80', src: PHOTO, runs: 15, fn: (b) => sharp(b).resize(w800).jpeg({ quality: 80 }) },
  { id: 'jpeg4000_w800_webp_q80', src: PHOTO, runs: 15, fn: (b) => sharp(b).resize(w800).webp({ quality: 80 }) },
  { id: 'jpeg4000_w800_avif', src: PHOTO, runs: 3, fn: (b) => sharp(b).resize(w800).avif() },
  {
    id: 'jpeg4000_cover200_jpeg',
    src: PHOTO,
    runs: 15,
    fn: (b) => sharp(b).resize(200, 200, { fit: 'cover', withoutEnlargement: true }).jpeg({ quality: 80 }),
  },
  {
    id: 'jpeg1200_blur5_gray_jpeg',
    src: SMALL_PHOTO,
    runs: 15,
    fn: (b) => sharp(b).blur(5).grayscale().jpeg({ quality: 80 }),
  },
  { id: 'jpeg50mp_w800_jpeg_q80', src: HUGE_PHOTO, runs: 7, fn: (b) => sharp(b).resize(w800).jpeg({ quality: 80 }) },
];

const only = process.env.SHARP_OPS ? new Set(process.env.SHARP_OPS.split(',')) : null;
const WARMUP = 2;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = [];
for (const op of OPS) {
  if (only && !only.has(op.id)) continue;
  if (!existsSync(path.join(corpus, op.src))) {
    console.error(`${op.id}: SKIPPED, ${op.src} is not in ${corpus}`);
    continue;
  }
  const input = readFileSync(path.join(corpus, op.src));
  let last;
  for (let i = 0; i < WARMUP; i++) last = await op.fn(input).toBuffer({ resolveWithObject: true });
  const times = [];
  for (let i = 0; i < op.runs; i++) {
    const start = process.hrtime.bigint();
    last = await op.fn(input).toBuffer({ resolveWithObject: true });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const result = {
    id: op.id,
    runs: op.runs,
    median_ms: Number(median(times).toFixed(3)),
    min_ms: Number(Math.min(...times).toFixed(3)),
    bytes: last.data.length,
    width: last.info.width,
    height: last.info.height,
  };
  console.error(`${op.id}: median ${result.median_ms} ms over ${op.runs} runs, ${result.bytes} bytes, ${result.width}x${result.height}`);
  results.push(result);
}

console.log(
  JSON.stringify(
    { sharp: sharp.versions.sharp, libvips: sharp.versions.vips, concurrency: sharp.concurrency(), ops: results },
    null,
    2,
  ),
);
