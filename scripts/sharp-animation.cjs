// What libvips (through sharp, `sharp(file, { animated: true })`) reads of each file named on the command
// line: one JSON line each, {file, pages, delay, loop, width, height} (the height of one page) or
// {file, error}. The corpus animation tests (pipeline/tests/corpus_animation.rs) compare the pipeline's
// renders with it. Run with NODE_PATH naming a
// node_modules that holds sharp (scripts/test.sh installs one).
// CommonJS, so that NODE_PATH finds sharp (ES modules ignore it).
const sharp = require("sharp");

(async () => {
for (const file of process.argv.slice(2)) {
  try {
    const { pages, delay, loop, width, height, pageHeight } = await sharp(file, { animated: true }).metadata();
    console.log(JSON.stringify({ file, pages: pages ?? 1, delay: delay ?? [], loop: loop ?? null, width,
      height: pageHeight ?? height }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message ?? e) }));
  }
}
})();
