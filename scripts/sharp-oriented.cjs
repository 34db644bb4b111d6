// What libvips (through sharp) shows of each image named on the command line, its orientation applied
// (`.rotate()` with no angle: EXIF orientation, and HEIF's `irot`/`imir`/`clap`, which libheif applies on
// reading): one JSON line each, {file, width, height, thumb} or {file, error}, `thumb` being the picture
// squeezed to 32×32 RGB (Lanczos3, alpha dropped), its bytes as numbers. The corpus orientation test
// (pipeline/tests/corpus_orientation.rs) compares the pipeline's renders with it. Run with NODE_PATH naming a
// node_modules that holds sharp (scripts/test.sh installs one). CommonJS, so that NODE_PATH finds sharp.
const sharp = require("sharp");

(async () => {
for (const file of process.argv.slice(2)) {
  try {
    const { info } = await sharp(file).rotate().raw().toBuffer({ resolveWithObject: true });
    const thumb = await sharp(file).rotate().resize(32, 32, { fit: "fill" }).removeAlpha().raw().toBuffer();
    console.log(JSON.stringify({ file, width: info.width, height: info.height, thumb: Array.from(thumb) }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message ?? e) }));
  }
}
})();
