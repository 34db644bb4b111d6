// Resumable uploads (docs/api.md, "Resumable uploads (TUS)") with the clients web developers use:
//
//   node dist/resumable.js <service URL> <secret API key> <docs/api.md> <page port>
//
// 1. The tus-js-client snippet of docs/api.md (the `tus-upload.mjs` block), run as written with node on a
//    12 MiB file: it prints the file's id, and the file's raw bytes are the file's.
// 2. Uppy (the `uppy` bundle, with @uppy/tus) in headless Chromium, on a page served here on <page port>,
//    another origin than the service's (which must list it in SHUTTERBOX_CORS_ORIGINS): uploads 3 MiB in
//    1 MiB chunks with progress events; the upload's HEAD names the file, whose bytes are the page's.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import createClient from "openapi-fetch";
import { chromium } from "playwright-core";

import type { paths } from "./generated/schema.js";

const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
const here = dirname(fileURLToPath(import.meta.url));

function fail(what: string): never {
  console.error(`resumable: FAILED: ${what}`);
  process.exit(1);
}

/** The same bytes the page makes: they differ at every offset a chunk could start. */
function content(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (Math.imul(i, 2654435761) >>> 13) & 255;
  return bytes;
}

async function rawBytes(baseUrl: string, key: string, id: string): Promise<Uint8Array> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${key}` } });
  const file = (await client.GET("/files/{id}", { params: { path: { id } } })).data?.file;
  if (file === undefined) fail(`file ${id} is not listed`);
  const raw = await fetch(file.rawUrl);
  if (!raw.ok) fail(`raw ${file.rawUrl}: ${raw.status}`);
  return new Uint8Array(await raw.arrayBuffer());
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function snippet(service: string, key: string, docs: string): Promise<void> {
  const block = /```js\n(\/\/ tus-upload\.mjs[\s\S]*?)```/.exec(readFileSync(docs, "utf8"));
  if (block?.[1] === undefined) fail(`no tus-upload.mjs block in ${docs}`);
  // Beside this package's node_modules, so `import "tus-js-client"` resolves as in the reader's project.
  const script = join(here, "tus-upload.mjs");
  writeFileSync(script, block[1]);
  const file = join(mkdtempSync(join(tmpdir(), "shutterbox-tus-")), "large.bin");
  const bytes = content(12 << 20);
  writeFileSync(file, bytes);
  const run = spawnSync("node", [script, file], {
    env: { ...process.env, SHUTTERBOX_URL: service, SHUTTERBOX_API_KEY: key },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0) fail(`tus-upload.mjs exited ${run.status}: ${run.stderr}`);
  const id = /^file (\S+)$/m.exec(run.stdout)?.[1];
  if (id === undefined) fail(`tus-upload.mjs printed no file id: ${run.stdout}`);
  if (!same(await rawBytes(`${service}/v1`, key, id), bytes)) fail("the snippet's file is not the bytes sent");
  console.log(`resumable: the tus-js-client snippet uploaded 12 MiB as file ${id}`);
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>Uppy against Shutterbox</title>
<script type="module">
import { Uppy, Tus } from "/uppy.min.mjs";
const params = new URLSearchParams(location.search);
const bytes = new Uint8Array(3 * 1024 * 1024);
for (let i = 0; i < bytes.length; i++) bytes[i] = (Math.imul(i, 2654435761) >>> 13) & 255;
const progress = [];
const uppy = new Uppy({ autoProceed: false }).use(Tus, {
  endpoint: params.get("endpoint"),
  headers: { Authorization: "ApiKey " + params.get("key") },
  chunkSize: 1024 * 1024,
  retryDelays: [0, 1000],
});
uppy.on("upload-progress", (_file, p) => progress.push(p.bytesUploaded));
uppy.addFile({ name: "uppy.bin", type: "application/octet-stream", data: new Blob([bytes]) });
uppy.upload().then(
  (result) => { window.report = { successful: result.successful.length, failed: result.failed.length, uploadURL: result.successful[0]?.uploadURL ?? null, progress }; },
  (error) => { window.report = { error: String(error) }; },
);
</script>`;

type Report = { successful?: number; failed?: number; uploadURL?: string | null; progress?: number[]; error?: string };

async function uppy(service: string, key: string, port: number): Promise<void> {
  const bundle = readFileSync(join(here, "..", "node_modules", "uppy", "dist", "uppy.min.mjs"));
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/uppy.min.mjs")) {
      res.writeHead(200, { "Content-Type": "text/javascript" }).end(bundle);
    } else {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    const query = new URLSearchParams({ endpoint: `${service}/v1/uploads/tus`, key });
    await page.goto(`http://127.0.0.1:${port}/?${query}`);
    await page.waitForFunction(() => (window as unknown as { report?: unknown }).report !== undefined, null, {
      timeout: 60_000,
    });
    const report = (await page.evaluate(() => (window as unknown as { report: unknown }).report)) as Report;
    if (errors.length > 0) fail(`the page threw: ${errors.join("; ")}`);
    if (report.error !== undefined || report.successful !== 1 || report.failed !== 0 || !report.uploadURL) {
      fail(`Uppy's upload did not succeed: ${JSON.stringify(report)}`);
    }
    const progress = report.progress ?? [];
    if (progress.length < 3 || progress[progress.length - 1] !== 3 << 20) {
      fail(`progress events ${JSON.stringify(progress)}: expected several, ending at ${3 << 20}`);
    }
    const head = await fetch(report.uploadURL, {
      method: "HEAD",
      headers: { Authorization: `ApiKey ${key}`, "Tus-Resumable": "1.0.0" },
    });
    const id = head.headers.get("Shutterbox-File-Id");
    if (id === null) fail(`HEAD ${report.uploadURL} names no file (${head.status})`);
    if (!same(await rawBytes(`${service}/v1`, key, id), content(3 << 20))) fail("Uppy's file is not the page's bytes");
    console.log(`resumable: Uppy uploaded 3 MiB from Chromium as file ${id} (${progress.length} progress events)`);
  } finally {
    await browser.close();
    server.close();
  }
}

async function main(): Promise<void> {
  const [service, key, docs, port] = process.argv.slice(2);
  if (!service || !key || !docs || !port) fail("usage: resumable.js <service URL> <key> <docs/api.md> <page port>");
  await snippet(service, key, docs);
  await uppy(service, key, Number(port));
}

main().catch((error: unknown) => fail(String(error instanceof Error ? error.stack : error)));
