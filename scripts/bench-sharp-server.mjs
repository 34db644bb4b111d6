// The sharp side of scripts/bench-saturation.sh: a plain node:http server that renders every request, the
// way an image server built on sharp would, with sharp's default settings (its libvips thread and cache
// defaults are left alone: the point is sharp as people deploy it).
//
//   SHARP_DIR=<dir with node_modules/sharp> node scripts/bench-sharp-server.mjs PORT FILE...
//
// Each FILE is read into memory once and served as /<its base name>?w=&h=&q=&format=jpeg|webp|avif|png|gif:
// resized to fit inside w×h without enlarging (the geometry of our `fit=inside`), then encoded (PNG and GIF
// with sharp's defaults, no quality). A GIF source is read with `animated: true` (every frame, as an image
// server that keeps animations does). Anything else is a 404; a failed render is a 500 with the message.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const [port, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(process.env.SHARP_DIR ?? process.cwd()), 'package.json'));
const sharp = require('sharp');
const sources = new Map(files.map((f) => [path.basename(f), readFileSync(f)]));
const TYPES = { jpeg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif', png: 'image/png', gif: 'image/gif' };

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const source = sources.get(decodeURIComponent(url.pathname.slice(1)));
  const format = url.searchParams.get('format');
  const [w, h, q] = ['w', 'h', 'q'].map((k) => Number(url.searchParams.get(k)) || undefined);
  if (!source || !TYPES[format]) {
    res.writeHead(404).end();
    return;
  }
  try {
    const animated = url.pathname.endsWith('.gif');
    const resized = sharp(source, { animated }).resize({ width: w, height: h, fit: 'inside', withoutEnlargement: true });
    const encoded = format === 'png' ? resized.png() : format === 'gif' ? resized.gif() : resized.toFormat(format, { quality: q });
    const body = await encoded.toBuffer();
    res.writeHead(200, { 'content-type': TYPES[format], 'content-length': body.length }).end(body);
  } catch (e) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
  }
});
server.listen(Number(port), '127.0.0.1', () => {
  const { sharp: version, vips } = sharp.versions;
  console.error(`sharp ${version} (libvips ${vips}, concurrency ${sharp.concurrency()}) on 127.0.0.1:${port}`);
});
