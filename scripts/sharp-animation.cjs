// What libvips (through sharp, `sharp(file, { animated: true })`) reads of each animated file named on the
// command line: one JSON line each, {file, pages, delay, loop} or {file, error}. The corpus animation test
// (pipeline/tests/corpus_animation.rs) compares the pipeline's renders with it. Run with NODE_PATH naming a
// node_modules that holds sharp (scripts/test.sh installs one).
// CommonJS, so that NODE_PATH finds sharp (ES modules ignore it).
const sharp = require("sharp");

(async () => {
for (const file of process.argv.slice(2)) {
  try {
    const { pages, delay, loop } = await sharp(file, { animated: true }).metadata();
    console.log(JSON.stringify({ file, pages: pages ?? 1, delay: delay ?? [], loop: loop ?? null }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message ?? e) }));
  }
}
})();
