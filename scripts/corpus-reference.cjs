// What libvips (through sharp) does with every file of the test image corpora: a TSV on stdout, one line
// per file, saved as pipeline/tests/data/corpora-libvips.tsv, the reference that the corpus tests read.
// Columns (tab-separated; `-` where a column does not apply):
//   1 path      relative to the corpora root (e.g. `libtiff-pics/quad-jpeg.tif`)
//   2 outcome   the loader format as sharp's metadata().format names it (jpeg, png, webp, gif, tiff, heif, …)
//               when it renders, `refused` when it does not. "Renders": with sharp's default options
//               (failOn 'warning', default limitInputPixels),
//               `sharp(file).rotate().resize(64, 64, { fit: 'inside' }).png().toBuffer()` does not throw.
//   3 width, 4 height  of the first page after auto-orientation (EXIF orientation; libheif's irot/imir/clap):
//               `sharp(file).rotate().raw().toBuffer({ resolveWithObject: true }).info`
//   5 pages     metadata().pages (1 when absent)
//   6 fingerprint  the oriented first page rendered into a BOX×BOX box (`fit: 'inside'`, no enlargement: the
//               render the corpus test asks of the pipeline), reduced by `cellGrey` to 8×8 grey, its 64
//               bytes as 128 lowercase hex characters (from the PNG that the render writes when the image's
//               bands cannot be made RGBA: noted on stderr). The test reduces the pipeline's render with the
//               same arithmetic, so the two differ only where the renders do.
//   7 message   when refused, sharp's error on one line, cut to 200 characters: its path made relative to
//               the corpora, libheif's read-ahead chatter ("FILE: bad seek to N") dropped, repeats kept once
//   8 lenient   `yes` when the same render succeeds with { failOn: 'none', limitInputPixels: false }
//   9 reference who decoded it: `libvips`, or `libheif <version>` / `libjxl <version>` (below)
// sharp's prebuilt libvips decodes no HEVC and no JPEG XL, so for HEIF files that are not AVIF (by their
// ftyp brands) whose metadata fails or whose compression is HEVC, and for JPEG XL files, the reference is
// the format's own decoder from Debian (`apt-get install libheif-examples libjxl-tools`): heif-convert (the
// primary image, irot/imir/clap applied) or djxl (orientation applied; its PNG holds the animation's first
// frame as the default image; for an image with alpha deeper than 8 bits, which djxl 0.7 mishandles, libjxl
// as the `imagecodecs` package bundles it, `pip install imagecodecs numpy`) writes a temporary PNG and columns 3–6 come from that PNG with sharp (not
// oriented again); pages are heif-info's top-level images, or jxlinfo's frames of an animation (else 1).
// Each file is given 10 s per sharp pass (strict, lenient) and per decoder run (`timeout` when over); sharp
// runs in a child process (sharp.concurrency(1), no cache, address space capped by `ulimit -v`,
// CORPUS_REFERENCE_VMEM_KB, default 6 GiB), restarted after a timeout or a crash. A summary goes to stderr.
// Run (SOURCE_DATE_EPOCH, if set, fixes the date in the header):
//   NODE_PATH=target/tools/sharp/node_modules node scripts/corpus-reference.cjs tests/corpora \
//     > pipeline/tests/data/corpora-libvips.tsv
// with sharp from `npm install --prefix target/tools/sharp sharp@0.35` (scripts/test.sh installs it).
// CommonJS, so that NODE_PATH finds sharp (ES modules ignore it).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawn, spawnSync } = require("child_process");
const readline = require("readline");

const TIMEOUT_MS = 10_000;
// The box of the fingerprint's render: QUERY in pipeline/tests/corpus_libvips.rs.
const BOX = 96;

// An RGBA render reduced to 8×8 grey, as pipeline/tests/corpus_libvips.rs reduces the pipeline's: each
// pixel flattened onto mid grey by its alpha, each cell the mean of the pixels it covers (at least one),
// then grey as libvips' `b-w` makes it (luminance of the linear-light colour, encoded with the sRGB curve).
function cellGrey(rgba, width, height) {
  const linear = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const encoded = (v) => (v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055);
  const span = (i, n) => { const start = Math.floor((i * n) / 8); return [start, Math.max(start + 1, Math.ceil(((i + 1) * n) / 8))]; };
  const out = Buffer.alloc(64);
  for (let cy = 0; cy < 8; cy++) {
    for (let cx = 0; cx < 8; cx++) {
      const sum = [0, 0, 0];
      let count = 0;
      const [y0, y1] = span(cy, height);
      const [x0, x1] = span(cx, width);
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * width + x) * 4;
          const alpha = rgba[i + 3] / 255;
          for (let c = 0; c < 3; c++) sum[c] += rgba[i + c] * alpha + 128 * (1 - alpha);
          count++;
        }
      }
      const [r, g, b] = sum.map((total) => linear(total / count));
      out[cy * 8 + cx] = Math.round(encoded(0.2126 * r + 0.7152 * g + 0.0722 * b) * 255);
    }
  }
  return out;
}

// ---- the worker: sharp passes on request, one JSON line in, one out ----
if (process.argv[2] === "--worker") {
  const sharp = require("sharp");
  sharp.concurrency(1);
  sharp.cache(false);
  const msg = (e) => String((e && e.message) ?? e);
  const rl = readline.createInterface({ input: process.stdin });
  const queue = [];
  let busy = false;
  const run = async (req) => {
    const opts = req.lenient ? { failOn: "none", limitInputPixels: false } : {};
    const open = () => (req.orient ? sharp(req.file, opts).rotate() : sharp(req.file, opts));
    const out = {};
    if (!req.lenient) {
      try {
        const m = await sharp(req.file).metadata();
        out.meta = { format: m.format, compression: m.compression ?? null, pages: m.pages ?? 1 };
      } catch (e) {
        out.metaError = msg(e);
      }
    }
    try {
      await open().resize(64, 64, { fit: "inside" }).png().toBuffer();
    } catch (e) {
      out.error = msg(e);
      return out;
    }
    out.ok = true;
    if (req.lenient) return out;
    try {
      const { info } = await open().raw().toBuffer({ resolveWithObject: true });
      out.width = info.width;
      out.height = info.height;
      const fingerprint = async (img) => {
        const { data, info: fi } = await img.resize(BOX, BOX, { fit: "inside", withoutEnlargement: true })
          .ensureAlpha().raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
        if (fi.channels !== 4 || data.length !== fi.width * fi.height * 4) {
          throw new Error(`the fingerprint's render is ${fi.width}x${fi.height}x${fi.channels}, ${data.length} bytes`);
        }
        return cellGrey(data, fi.width, fi.height).toString("hex");
      };
      try {
        out.fingerprint = await fingerprint(open());
      } catch (e) {
        // flatten refuses some band counts (a 5-band GeoTIFF): then from the PNG that the render writes.
        out.fingerprint = await fingerprint(sharp(await open().png().toBuffer()));
        out.fingerprintNote = `fingerprint from its PNG render (${msg(e)})`;
      }
    } catch (e) {
      out.afterError = msg(e);
    }
    return out;
  };
  const pump = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const req = queue.shift();
      const res = await run(req);
      process.stdout.write(JSON.stringify({ id: req.id, ...res }) + "\n");
    }
    busy = false;
  };
  rl.on("line", (line) => { queue.push(JSON.parse(line)); pump(); });
  rl.on("close", () => { const wait = () => (busy ? setTimeout(wait, 10) : process.exit(0)); wait(); });
  return;
}

// ---- the main process ----
const root = process.argv[2];
if (!root || !fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
  console.error("usage: NODE_PATH=…/node_modules node scripts/corpus-reference.cjs CORPORA_DIR > table.tsv");
  process.exit(2);
}
const sharp = require("sharp");
const vmemKb = Number(process.env.CORPUS_REFERENCE_VMEM_KB || 6 * 1024 * 1024);

// The worker, restarted when it times out or dies.
let worker = null;
let nextId = 1;
function startWorker() {
  const child = spawn("/bin/sh", ["-c", `ulimit -v ${vmemKb} && exec "$0" "$@"`, process.execPath, __filename,
    "--worker"], { stdio: ["pipe", "pipe", "ignore"] });
  const w = { child, pending: new Map(), dead: null };
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const res = JSON.parse(line);
    const p = w.pending.get(res.id);
    if (p) { w.pending.delete(res.id); p(res); }
  });
  child.on("exit", (code, signal) => {
    w.dead = signal ? `crash (signal ${signal})` : `crash (exit ${code})`;
    for (const p of w.pending.values()) p({ error: w.dead, crashed: true });
    w.pending.clear();
  });
  child.stdin.on("error", () => {});
  return w;
}
function ask(req) {
  if (!worker || worker.dead) worker = startWorker();
  const w = worker;
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      w.pending.delete(id);
      w.dead = "killed";
      w.child.kill("SIGKILL");
      worker = null;
      resolve({ error: "timeout", timeout: true });
    }, TIMEOUT_MS);
    w.pending.set(id, (res) => { clearTimeout(timer); if (res.crashed) worker = null; resolve(res); });
    w.child.stdin.write(JSON.stringify({ id, ...req }) + "\n");
  });
}

// The files: recursive, sorted, without the folders' notes and licences.
function skip(name) {
  return name === "SOURCE.md" || /^(LICENSE|COPYING|README)/i.test(name) || /\.(txt|md)$/i.test(name)
    || name.startsWith(".");
}
function walk(dir, rel, out) {
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (ent.isDirectory()) walk(path.join(dir, ent.name), r, out);
    else if (ent.isFile() && !skip(ent.name)) out.push(r);
  }
  return out;
}
const files = walk(root, "", []).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

// What the first bytes say: JPEG XL, or an ISOBMFF file's ftyp brands.
function sniff(file) {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(256);
  const n = fs.readSync(fd, buf, 0, 256, 0);
  fs.closeSync(fd);
  const b = buf.subarray(0, n);
  const jxl = (n >= 2 && b[0] === 0xff && b[1] === 0x0a)
    || (n >= 12 && b.subarray(0, 12).equals(Buffer.from("0000000c4a584c200d0a870a", "hex")));
  let brands = null;
  if (n >= 16 && b.toString("latin1", 4, 8) === "ftyp") {
    const size = Math.min(b.readUInt32BE(0), n);
    brands = [];
    for (let i = 8; i + 4 <= size; i += 4) brands.push(b.toString("latin1", i, i + 4));
  }
  return { jxl, brands };
}
const AVIF_BRANDS = new Set(["avif", "avis", "avio"]);
const HEIF_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "mif2",
  "mif3", "msf1", "miaf", "unif"]);

// The external decoders.
function tool(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: TIMEOUT_MS, killSignal: "SIGKILL" });
  if (r.error && r.error.code === "ENOENT") {
    console.error(`${cmd} not found: apt-get install -y --no-install-recommends libheif-examples libjxl-tools`);
    process.exit(2);
  }
  const timedOut = (r.error && r.error.code === "ETIMEDOUT") || r.signal === "SIGKILL";
  return { ok: !timedOut && r.status === 0, timedOut, text: `${r.stdout || ""}\n${r.stderr || ""}` };
}
let heifVersion = null;
let jxlVersion = null;
function libheifVersion() {
  heifVersion ??= (tool("heif-info", ["-h"]).text.match(/libheif version: (\S+)/) || [, "?"])[1];
  return heifVersion;
}
const JXL_DECODE = path.join(__dirname, "jxl-decode.py");
let newerJxl = null;
function newerJxlVersion() {
  newerJxl ??= (tool("python3", [JXL_DECODE, "--version"]).text.match(/libjxl (\S+)/) || [, "?"])[1];
  return newerJxl;
}
function libjxlVersion() {
  jxlVersion ??= (tool("djxl", ["--version"]).text.match(/djxl v(\S+)/) || [, "?"])[1];
  return jxlVersion;
}
// A message on one line, at most 200 characters, the same wherever the corpora are: the file's path made
// relative, libheif's read-ahead chatter ("FILE: bad seek to N") dropped, a line repeated kept once.
function clean(s, file, rel) {
  if (file) s = s.split(file).join(rel);
  const lines = s.replace(/\S+: bad seek to \d+/g, "").split(/\r?\n/).map((l) => l.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  return [...new Set(lines)].join(" ").slice(0, 200) || "-";
}
function decoderMessage(text) {
  const m = clean(text.split("\n").filter((l) => !/^(JPEG XL decoder v|Read \d+ compressed bytes|Decoded to pixels)/
    .test(l.trim())).join("\n"));
  return m === "-" ? "decoder failed" : m;
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-reference-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));

function decodeHeif(file) {
  const info = tool("heif-info", [file]);
  const images = info.text.split("\n").filter((l) => /^image: /.test(l));
  const primary = Math.max(0, images.findIndex((l) => /\bprimary\b/.test(l)));
  for (const f of fs.readdirSync(tmp)) fs.rmSync(path.join(tmp, f));
  const out = path.join(tmp, "out.png");
  const r = tool("heif-convert", ["--quiet", file, out]);
  if (r.timedOut) return { error: "timeout" };
  // heif-convert writes every top-level image, out-1.png, out-2.png, … when there are several.
  const png = images.length > 1 ? path.join(tmp, `out-${primary + 1}.png`) : out;
  if (!r.ok || !fs.existsSync(png)) return { error: decoderMessage(r.text) };
  return { png, pages: Math.max(1, images.length) };
}
function decodeJxl(file) {
  for (const f of fs.readdirSync(tmp)) fs.rmSync(path.join(tmp, f));
  const out = path.join(tmp, "out.png");
  const info = tool("jxlinfo", [file]).text;
  // djxl 0.7 writes the alpha of an image deeper than 8 bits unscaled into a 16-bit PNG (a 12-bit alpha
  // reads as ~6 % opaque), and refuses some such files outright ("Alpha bit depth does not match"). Those
  // are decoded by a newer libjxl (scripts/jxl-decode.py); the corpus's are sRGB, so a PNG without a
  // profile loses nothing.
  const [, bits = "8", channels = ""] = info.match(/(\d+)-bit (\S+)/) || [];
  const deepAlpha = Number(bits) > 8 && /A$|Alpha/.test(channels);
  const r = deepAlpha ? tool("python3", [JXL_DECODE, file, out, bits])
    : tool("djxl", [file, out, "--num_threads=1", "--quiet"]);
  if (r.timedOut) return { error: "timeout" };
  if (!r.ok || !fs.existsSync(out)) return { error: decoderMessage(r.text) };
  const frames = info.split("\n").filter((l) => /^frame:/.test(l)).length;
  const decoder = deepAlpha ? `libjxl ${newerJxlVersion()}` : `libjxl ${libjxlVersion()}`;
  return { png: out, pages: /^JPEG XL animation/m.test(info) ? Math.max(1, frames) : 1, decoder };
}

function row(rel, outcome, w, h, pages, fp, message, lenient, reference) {
  return [rel, outcome, w, h, pages, fp, message, lenient, reference].map(String).join("\t");
}
function refusedRow(rel, message, lenient, reference, file) {
  return row(rel, "refused", "-", "-", "-", "-", clean(message, file, rel), lenient, reference);
}
function renderedRow(rel, format, res, pages, lenient, reference, file) {
  if (res.afterError) return refusedRow(rel, `rendered, then: ${res.afterError}`, lenient, reference, file);
  return row(rel, format, res.width, res.height, pages, res.fingerprint, "-", lenient, reference);
}

(async () => {
  const today = process.env.SOURCE_DATE_EPOCH
    ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000) : new Date();
  const lines = [];
  const oddities = [];
  for (const rel of files) {
    const file = path.join(root, rel);
    const { jxl, brands } = sniff(file);
    const isJxl = jxl || /\.jxl$/i.test(rel);
    let strict = null;
    if (!isJxl) strict = await ask({ file, orient: true, lenient: false });
    const isAvif = brands && brands.some((b) => AVIF_BRANDS.has(b));
    const isHeif = !isAvif && brands && brands.some((b) => HEIF_BRANDS.has(b))
      && strict && (strict.metaError || (strict.meta && strict.meta.compression === "hevc"));
    if (isJxl || isHeif) {
      const d = isJxl ? decodeJxl(file) : decodeHeif(file);
      const reference = d.decoder || (isJxl ? `libjxl ${libjxlVersion()}` : `libheif ${libheifVersion()}`);
      if (d.error) { lines.push(refusedRow(rel, d.error, "no", reference, file)); continue; }
      const res = await ask({ file: d.png, orient: false, lenient: false });
      const len = await ask({ file: d.png, orient: false, lenient: true });
      const lenient = len.ok ? "yes" : "no";
      if (!res.ok) { lines.push(refusedRow(rel, `${reference} decoded; ${res.error}`, lenient, reference, d.png)); continue; }
      if (res.fingerprintNote) oddities.push(`${rel}: ${res.fingerprintNote}`);
      lines.push(renderedRow(rel, isJxl ? "jxl" : "heif", res, d.pages, lenient, reference, d.png));
      continue;
    }
    const len = await ask({ file, orient: true, lenient: true });
    const lenient = len.ok ? "yes" : "no";
    if (len.timeout) oddities.push(`${rel}: lenient pass timed out`);
    if (!strict.ok) { lines.push(refusedRow(rel, strict.error, lenient, "libvips", file)); continue; }
    if (!strict.meta) oddities.push(`${rel}: renders but metadata() failed: ${strict.metaError}`);
    const format = strict.meta ? strict.meta.format : "?";
    if (strict.fingerprintNote) oddities.push(`${rel}: ${strict.fingerprintNote}`);
    lines.push(renderedRow(rel, format, strict, strict.meta ? strict.meta.pages : 1, lenient, "libvips", file));
  }
  if (worker && !worker.dead) worker.child.stdin.end();

  const v = sharp.versions;
  const decoders = [heifVersion && `libheif ${heifVersion} (heif-convert)`, jxlVersion && `libjxl ${jxlVersion} (djxl)`,
    newerJxl && `libjxl ${newerJxl} (imagecodecs, alpha deeper than 8 bits)`]
    .filter(Boolean).join(", ");
  console.log(`# made by \`NODE_PATH=target/tools/sharp/node_modules node scripts/corpus-reference.cjs `
    + `tests/corpora > pipeline/tests/data/corpora-libvips.tsv\` with sharp ${v.sharp}, libvips ${v.vips}`
    + `${decoders ? `, ${decoders}` : ""}, on ${today.toISOString().slice(0, 10)}; ${lines.length} files`);
  console.log("# path\toutcome\twidth\theight\tpages\tfingerprint\tmessage\tlenient\treference");
  for (const l of lines) console.log(l);

  // The summary.
  const perFolder = new Map();
  const perFormat = new Map();
  for (const l of lines) {
    const [rel, outcome, , , , , , lenient, reference] = l.split("\t");
    const folder = rel.split("/")[0];
    const f = perFolder.get(folder) || { rendered: 0, refused: 0, lenientOnly: 0 };
    if (outcome === "refused") { f.refused++; if (lenient === "yes") f.lenientOnly++; } else f.rendered++;
    perFolder.set(folder, f);
    const key = outcome === "refused" ? "refused" : `${outcome}${reference === "libvips" ? "" : ` (${reference})`}`;
    perFormat.set(key, (perFormat.get(key) || 0) + 1);
  }
  console.error(`${lines.length} files under ${root}`);
  console.error("folder\trendered\trefused\t(of which lenient renders)");
  for (const [k, f] of [...perFolder].sort()) console.error(`${k}\t${f.rendered}\t${f.refused}\t${f.lenientOnly}`);
  console.error("outcome\tfiles");
  for (const [k, n] of [...perFormat].sort()) console.error(`${k}\t${n}`);
  for (const o of oddities) console.error(`note: ${o}`);
})();
