// How fast the console shows the first page of an account of many files: scripts/bench-console.sh runs it.
//
//   node dist/console-bench.js <service URL> <secret key> <files> <rounds>
//
// Fills the account with <files> small PNGs (one TUS creation-with-upload request each, 16 at a time),
// waits for their thumbnail and description jobs, then loads /console/ in headless Chromium <rounds> times
// for each view below, the key already in the tab's sessionStorage, and reports the time from navigation
// start to the console's `shutterbox:files-shown` mark (the first page of files in the DOM, with their
// thumbnails' <img> elements; the thumbnails' own bytes load after). The first round of each view warms
// the server and the browser's cache of the console's files and is not counted.

import { chromium } from "playwright-core";

import { png } from "./png.js";

const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

const b64 = (text: string): string => Buffer.from(text).toString("base64");

async function seed(root: string, key: string, count: number): Promise<void> {
  const have = (await (await fetch(`${root}/v1/files?pageSize=1`, { headers: { Authorization: `ApiKey ${key}` } })).json()) as {
    pagination: { totalCount: number };
  };
  let next = have.pagination.totalCount;
  const started = Date.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const body = png(48 + (i % 17), 32 + (i % 13));
      const response = await fetch(`${root}/v1/uploads/tus`, {
        method: "POST",
        headers: {
          Authorization: `ApiKey ${key}`,
          "Tus-Resumable": "1.0.0",
          "Upload-Length": String(body.length),
          "Upload-Metadata": `filename ${b64(`photo-${String(i).padStart(5, "0")}.png`)},filetype ${b64("image/png")}`,
          "Content-Type": "application/offset+octet-stream",
        },
        body: new Uint8Array(body),
      });
      if (response.status !== 201 || !response.headers.get("shutterbox-file-id")) {
        throw new Error(`upload ${i}: ${response.status} ${await response.text()}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  console.log(`seeded ${count} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function settle(root: string): Promise<void> {
  for (;;) {
    const metrics = await (await fetch(`${root}/metrics`)).text();
    const depth = Number(/^shutterbox_queue_depth (\d+)/m.exec(metrics)?.[1] ?? "0");
    if (depth === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  const [service, key, filesArg, roundsArg] = process.argv.slice(2);
  if (!service || !key) {
    console.error("usage: node dist/console-bench.js <service URL> <secret key> <files> <rounds>");
    process.exit(2);
  }
  const root = service.replace(/\/$/, "");
  const files = Number(filesArg ?? "20000");
  const rounds = Number(roundsArg ?? "11");
  await seed(root, key, files);
  await settle(root);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((k) => sessionStorage.setItem("shutterbox.key", k), key);
    const page = await context.newPage();
    const views: [string, string][] = [
      ["newest first (the default)", "#/files"],
      ["by name", "#/files?sort=name"],
      ["largest first, 96 per page", "#/files?sort=-size&pageSize=96"],
      ["search by name", "#/files?name=photo-1234"],
    ];
    for (const [label, hash] of views) {
      const times: number[] = [];
      for (let round = 0; round <= rounds; round++) {
        await page.goto("about:blank");
        await page.goto(`${root}/console/${hash}`);
        const shown = await page.waitForFunction(() => performance.getEntriesByName("shutterbox:files-shown")[0]?.startTime, undefined, {
          timeout: 30_000,
        });
        const ms = Number(await shown.jsonValue());
        if (round > 0) times.push(ms);
      }
      const cards = await page.locator(".card").count();
      const total = (await page.locator("#page-status").textContent()) ?? "";
      console.log(
        `${label}: first page shown in median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms ` +
          `over ${rounds} loads (${cards} cards; ${total})`,
      );
    }
  } finally {
    await browser.close();
  }
}

await main();
