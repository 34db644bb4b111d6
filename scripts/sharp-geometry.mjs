// Generates pipeline/tests/data/sharp_geometry.tsv: the output size sharp gives for
// `sharp(input).resize({ width, height, fit, withoutEnlargement: true })`, over a grid of source sizes,
// requested sizes (w only, h only, both) and all five fits. Shutterbox's geometry (pipeline/src/geometry.rs)
// must reproduce every row; the Rust test pipeline/tests/sharp_geometry.rs checks it.
//
// Needs sharp installed in a scratch directory OUTSIDE the repo (the npm package ships its own libvips):
//
//   mkdir -p /tmp/sharpgeo && cd /tmp/sharpgeo && npm init -y && npm install sharp
//   cp /path/to/repo/scripts/sharp-geometry.mjs /tmp/sharpgeo/   # so that `import 'sharp'` resolves
//   node /tmp/sharpgeo/sharp-geometry.mjs /path/to/repo/pipeline/tests/data/sharp_geometry.tsv
//
// With no argument the table goes to stdout; progress goes to stderr. It takes about a quarter of an hour
// on two cores (the large sources dominate). Columns: src_w src_h w h fit out_w out_h, tab-separated, `-`
// for a w or h that is not given; a first `#` comment line records the sharp and libvips versions.

import { writeFileSync } from 'node:fs';
import sharp from 'sharp';

const SOURCES = [
  [1, 1],
  [7, 3],
  [100, 100],
  [640, 480],
  [1200, 800],
  [4000, 3000],
  [500, 5000],
  [3000, 4000],
  [333, 777],
];
const SIZES = [1, 2, 50, 99, 100, 101, 200, 320, 333, 800, 1199, 1200, 1201, 4000, 5000];
// Extra sizes for the one-sided cases only: they hit exact .5 rounding points on the sources above
// (e.g. 640x480 with w=6 gives a height of exactly 4.5, which libvips rounds up to 5).
const ONE_SIDED_EXTRA = [3, 6, 14, 30];
// Heights left out of the w-and-h grid, to keep the table under ~300 KB.
const BOTH_SKIP_H = [1199, 1201];
const FITS = ['cover', 'contain', 'fill', 'inside', 'outside'];

async function measure(srcW, srcH, w, h, fit) {
  const opts = { fit, withoutEnlargement: true };
  if (w !== null) opts.width = w;
  if (h !== null) opts.height = h;
  const { info } = await sharp({ create: { width: srcW, height: srcH, channels: 4, background: '#000' } })
    .resize(opts)
    .png({ compressionLevel: 0, adaptiveFiltering: false })
    .toBuffer({ resolveWithObject: true });
  return [info.width, info.height];
}

function cases() {
  const out = [];
  const oneSided = [...new Set([...SIZES, ...ONE_SIDED_EXTRA])].sort((a, b) => a - b);
  for (const [sw, sh] of SOURCES) {
    for (const fit of FITS) {
      for (const w of oneSided) out.push([sw, sh, w, null, fit]);
      for (const h of oneSided) out.push([sw, sh, null, h, fit]);
      for (const w of SIZES) {
        for (const h of SIZES) if (!BOTH_SKIP_H.includes(h)) out.push([sw, sh, w, h, fit]);
      }
    }
  }
  return out;
}

const lines = [
  `# sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}; resize({width, height, fit, withoutEnlargement: true})`,
  ['src_w', 'src_h', 'w', 'h', 'fit', 'out_w', 'out_h'].join('\t'),
];
sharp.concurrency(1);
const all = cases();
for (const [i, [sw, sh, w, h, fit]] of all.entries()) {
  const [ow, oh] = await measure(sw, sh, w, h, fit);
  lines.push([sw, sh, w ?? '-', h ?? '-', fit, ow, oh].join('\t'));
  if ((i + 1) % 500 === 0) process.stderr.write(`${i + 1}/${all.length}\n`);
}
const text = lines.join('\n') + '\n';
if (process.argv[2]) {
  writeFileSync(process.argv[2], text);
} else {
  process.stdout.write(text);
}
