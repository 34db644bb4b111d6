// What libvips (through sharp) says of each image named on the command line, for the image facts test
// (pipeline/tests/facts_reference.rs): one JSON line each, {file, width, height, hasAlpha, pages} or
// {file, error}. `width` and `height` are as delivered (`autoOrient`: EXIF orientation applied; HEIF's
// transformations libheif applies on reading), `pages` the frame count (1 for a still). With `--dominant`
// before the files, also `dominant`, the most common colour [r, g, b] by `stats()` (a decode of the whole
// picture: slower). Run with NODE_PATH naming a node_modules that holds sharp
// (scripts/test.sh installs one). CommonJS, so that NODE_PATH finds sharp.
const sharp = require("sharp");

(async () => {
let files = process.argv.slice(2);
const withDominant = files[0] === "--dominant";
if (withDominant) files = files.slice(1);
for (const file of files) {
  try {
    const meta = await sharp(file).metadata();
    const upright = meta.autoOrient ?? { width: meta.width, height: meta.height };
    const line = { file, width: upright.width, height: upright.height, hasAlpha: meta.hasAlpha, pages: meta.pages ?? 1 };
    if (withDominant) {
      const { dominant } = await sharp(file).stats();
      line.dominant = [dominant.r, dominant.g, dominant.b];
    }
    console.log(JSON.stringify(line));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message ?? e) }));
  }
}
})();
