// Resumable uploads (docs/api.md, "Resumable uploads (TUS)") with the clients web developers use:
//
//   node dist/resumable.js <service URL> <secret API key> <docs/api.md> <page port>
//
// 1. The tus-js-client snippet of docs/api.md (the `tus-upload.mjs` block), run as written with node on a
//    12 MiB file: it prints the file's id, and the file's raw bytes are the file's.
// 2. The Uppy site of docs/api.md (the `uppy-page.mjs` block: a page with the `uppy` bundle, whose Tus
//    plugin is @uppy/tus, and a /presign route holding the key), run as written on <page port>, another
//    origin than the service's (which must list it in SHUTTERBOX_CORS_ORIGINS); its page in headless
//    Chromium picks a 12 MiB file, which goes up through its presigned resumable URL with progress events.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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

/** Runs the `uppy-page.mjs` block of docs/api.md (a site with Uppy and a /presign route) on `port`, opens its
 * page in Chromium and picks a 12 MiB file: the upload goes through the presigned resumable URL, with
 * progress, and the file is the bytes picked. */
async function uppy(service: string, key: string, docs: string, port: number): Promise<void> {
  const block = /```js\n(\/\/ uppy-page\.mjs[\s\S]*?)```/.exec(readFileSync(docs, "utf8"));
  if (block?.[1] === undefined) fail(`no uppy-page.mjs block in ${docs}`);
  const script = join(here, "uppy-page.mjs");
  writeFileSync(script, block[1]);
  const site = spawn("node", [script], {
    env: { ...process.env, SHUTTERBOX_URL: service, SHUTTERBOX_API_KEY: key, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    const progress: number[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("console", (message) => {
      const sent = /^uploaded (\d+) of (\d+)$/.exec(message.text());
      if (sent?.[1] !== undefined && sent[2] !== undefined) progress.push(Number(sent[1]) / Number(sent[2]));
    });
    for (let i = 0; ; i++) {
      try {
        await page.goto(`http://127.0.0.1:${port}/`);
        break;
      } catch (error) {
        if (i === 50) fail(`the uppy-page.mjs site did not answer: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const bytes = content(12 << 20);
    await page.setInputFiles("#pick", { name: "picked.bin", mimeType: "application/octet-stream", buffer: Buffer.from(bytes) });
    const done = await page.waitForSelector("#done li", { timeout: 60_000 }).catch(() => null);
    if (errors.length > 0) fail(`the page threw: ${errors.join("; ")}`);
    if (done === null) fail(`Uppy did not finish the upload (progress ${JSON.stringify(progress)})`);
    const uploadUrl = await done.getAttribute("data-upload-url");
    if (uploadUrl === null || !uploadUrl.includes("?token=")) fail(`the upload did not use a presigned URL: ${uploadUrl}`);
    // The last progress event may come just after the success.
    for (let i = 0; i < 50 && progress[progress.length - 1] !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (progress.length < 2 || progress[progress.length - 1] !== 1) {
      fail(`progress events ${JSON.stringify(progress)}: expected several, the last at the whole file`);
    }
    // The token in the URL is the credential: no key.
    const head = await fetch(uploadUrl, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } });
    const id = head.headers.get("Shutterbox-File-Id");
    if (id === null) fail(`HEAD ${uploadUrl} names no file (${head.status})`);
    if (!same(await rawBytes(`${service}/v1`, key, id), bytes)) fail("Uppy's file is not the bytes picked");
    console.log(`resumable: Uppy uploaded 12 MiB from Chromium as file ${id} (${progress.length} progress events)`);
  } finally {
    await browser.close();
    site.kill();
  }
}

async function main(): Promise<void> {
  const [service, key, docs, port] = process.argv.slice(2);
  if (!service || !key || !docs || !port) fail("usage: resumable.js <service URL> <key> <docs/api.md> <page port>");
  await snippet(service, key, docs);
  await uppy(service, key, docs, Number(port));
}

main().catch((error: unknown) => fail(String(error instanceof Error ? error.stack : error)));
