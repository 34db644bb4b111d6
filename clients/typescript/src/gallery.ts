// The gallery page of docs/api.md ("Image facts"), run as written and looked at in a real browser:
//
//   node dist/gallery.js <service URL> <secret API key> <docs/api.md> <port> <screenshot.png>
//
// Uploads two images (wide and tall) through the generated client and waits for their description job;
// takes the `gallery.mjs` block out of docs/api.md, runs it with node on <port>, and opens the page in
// headless Chromium (Debian's, through playwright-core) with the images' responses held back for a second:
// while they load, every <img> already has its box at the image's aspect ratio (from `width` and `height`)
// and the placeholder as its background; once loaded, the pictures are at most their originals' widths and
// the placeholders are gone.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import createClient from "openapi-fetch";
import { chromium } from "playwright-core";

import type { components, paths } from "./generated/schema.js";
import { png } from "./png.js";

type File = components["schemas"]["File"];
const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

function fail(what: string): never {
  console.error(`gallery: FAILED: ${what}`);
  process.exit(1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function uploadDescribed(baseUrl: string, key: string, width: number, height: number): Promise<File> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${key}` } });
  const image = png(width, height);
  const filename = `gallery-${width}x${height}.png`;
  const presigned = await client.POST("/upload/presign", { body: { filename, mimetype: "image/png", size: image.length } });
  if (presigned.data === undefined) fail(`presign: ${JSON.stringify(presigned.error)}`);
  const put = await fetch(presigned.data.uploadUrl, { method: "PUT", body: new Uint8Array(image) });
  if (!put.ok) fail(`PUT: ${put.status}`);
  const confirmed = await client.POST("/upload/confirm", { body: { pendingUploadId: presigned.data.pendingUploadId } });
  if (confirmed.data === undefined) fail(`confirm: ${JSON.stringify(confirmed.error)}`);
  const id = confirmed.data.file.id;
  for (let i = 0; i < 100; i++) {
    const file = (await client.GET("/files/{id}", { params: { path: { id } } })).data?.file;
    if (typeof file?.placeholder === "string") return file;
    await sleep(100);
  }
  fail(`${filename} was not described within 10 s`);
}

/** The `gallery.mjs` block of docs/api.md. */
function galleryScript(docs: string): string {
  const block = /```js\n(\/\/ gallery\.mjs[\s\S]*?)```/.exec(readFileSync(docs, "utf8"));
  if (block?.[1] === undefined) fail(`no gallery.mjs block in ${docs}`);
  return block[1];
}

async function main(): Promise<void> {
  const [service, key, docs, port, screenshot] = process.argv.slice(2);
  if (service === undefined || key === undefined || docs === undefined || port === undefined || screenshot === undefined) {
    console.error("usage: node dist/gallery.js <service URL> <secret API key> <docs/api.md> <port> <screenshot.png>");
    process.exit(2);
  }
  const root = service.replace(/\/$/, "");
  const files = [await uploadDescribed(`${root}/v1`, key, 320, 200), await uploadDescribed(`${root}/v1`, key, 90, 160)];
  console.log("  ok  two images uploaded and described");

  const dir = mkdtempSync(join(tmpdir(), "gallery-"));
  const script = join(dir, "gallery.mjs");
  writeFileSync(script, galleryScript(docs));
  const server = spawn("node", [script], {
    env: { ...process.env, SHUTTERBOX_URL: root, SHUTTERBOX_API_KEY: key, PORT: port },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const pageUrl = `http://127.0.0.1:${port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    for (let i = 0; i < 50 && !(await fetch(pageUrl).then((r) => r.ok, () => false)); i++) await sleep(100);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    // The pictures held back, so the page is seen as a slow connection shows it first.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/v1/file/**", async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(pageUrl, { waitUntil: "domcontentloaded" });
    for (const file of files) {
      const img = page.locator(`img[alt="${file.name}"]`);
      const box = await img.boundingBox();
      if (box === null) fail(`${file.name}: no box while loading`);
      const aspect = box.width / box.height;
      const expected = (file.width ?? 0) / (file.height ?? 1);
      if (Math.abs(aspect / expected - 1) > 0.02) fail(`${file.name}: a ${box.width}×${box.height} box while loading, not ${expected.toFixed(3)}:1`);
      const background = await img.evaluate((element) => getComputedStyle(element).backgroundImage);
      if (!background.includes("data:image/webp;base64,")) fail(`${file.name}: no placeholder while loading: ${background.slice(0, 80)}`);
      console.log(`  ok  ${file.name}: its ${box.width.toFixed(0)}×${box.height.toFixed(0)} box and placeholder before a byte of it arrived`);
    }
    release();
    for (const file of files) {
      const img = page.locator(`img[alt="${file.name}"]`);
      await img.evaluate((element: HTMLImageElement) =>
        element.complete ? undefined : new Promise((resolve) => element.addEventListener("load", resolve, { once: true })),
      );
      const [natural, source, background] = await img.evaluate((element: HTMLImageElement) => [
        element.naturalWidth,
        element.currentSrc,
        getComputedStyle(element).backgroundImage,
      ]);
      // The candidate the browser chose from srcset: never wider than the original.
      const width = Number(new URL(String(source)).searchParams.get("w"));
      if (natural === 0 || !(width > 0 && width <= (file.width ?? 0))) fail(`${file.name}: loaded ${String(source)}`);
      if (background !== "none") fail(`${file.name}: the placeholder stayed after the picture loaded`);
      console.log(`  ok  ${file.name}: loaded at w=${width} (at most the original's ${file.width}), placeholder gone`);
    }
    await page.screenshot({ path: screenshot });
    if (pageErrors.length > 0) fail(`errors on the page: ${pageErrors.join("; ")}`);
  } finally {
    await browser.close();
    server.kill();
  }
  console.log("gallery: passed");
}

await main();
