// Swagger UI in a real browser: headless Chromium (Debian's, driven by playwright-core) opens /v1/docs,
// authorizes with an API key, runs "Try it out" on GET /files and must see a 200 with the listing.
//
//   node dist/swagger-ui.js <service URL> <secret API key> <screenshot.png>
//
// It first uploads one file through the generated client, so the listing has a name to look for. The
// screenshot of the page with the response is kept (scripts/clients.sh puts it under target/clients/).

import createClient from "openapi-fetch";
import { chromium } from "playwright-core";

import type { paths } from "./generated/schema.js";

const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

function fail(what: string): never {
  console.error(`swagger ui: FAILED: ${what}`);
  process.exit(1);
}

async function uploadOne(baseUrl: string, key: string): Promise<string> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${key}` } });
  const body = "listed in Swagger UI\n";
  const filename = `swagger-check-${Date.now()}.txt`;
  const presigned = await client.POST("/upload/presign", {
    body: { filename, mimetype: "text/plain", size: Buffer.byteLength(body) },
  });
  if (presigned.data === undefined) fail(`presign: ${JSON.stringify(presigned.error)}`);
  const put = await fetch(presigned.data.uploadUrl, { method: "PUT", body });
  if (!put.ok) fail(`PUT: ${put.status}`);
  const confirmed = await client.POST("/upload/confirm", {
    body: { pendingUploadId: presigned.data.pendingUploadId },
  });
  if (confirmed.data === undefined) fail(`confirm: ${JSON.stringify(confirmed.error)}`);
  return confirmed.data.file.name;
}

async function main(): Promise<void> {
  const [service, key, screenshot] = process.argv.slice(2);
  if (service === undefined || key === undefined || screenshot === undefined) {
    console.error("usage: node dist/swagger-ui.js <service URL> <secret API key> <screenshot.png>");
    process.exit(2);
  }
  const root = service.replace(/\/$/, "");
  const name = await uploadOne(`${root}/v1`, key);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${root}/v1/docs`);
    await page.locator(".swagger-ui .info .title", { hasText: "Shutterbox" }).waitFor({ timeout: 30_000 });
    console.log("  ok  /v1/docs shows the Shutterbox document");

    // Authorize: the ApiKey header scheme takes the bare key.
    await page.locator("button.authorize").first().click();
    const dialog = page.locator(".dialog-ux .modal-ux");
    const schemes = dialog.locator(".auth-container");
    const apiKeyScheme = schemes.filter({ hasText: "ApiKeyHeader" });
    await apiKeyScheme.locator("input").fill(key);
    await apiKeyScheme.locator("button.authorize").click();
    await apiKeyScheme.locator("button", { hasText: "Logout" }).waitFor();
    await dialog.locator("button.close-modal").click();
    console.log("  ok  authorized with an API key");

    // GET /files: expand, Try it out, Execute.
    const operation = page.locator("#operations-Files-listFiles");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    await operation.locator("button.execute").click();
    const live = operation.locator(".live-responses-table");
    const status = live.locator(".response .response-col_status").first();
    await status.waitFor({ timeout: 30_000 });
    const code = (await status.textContent())?.trim();
    if (code !== "200") fail(`GET /files answered ${code ?? "nothing"}`);
    const body = (await live.locator(".response-col_description pre, .response-col_description code").first().textContent()) ?? "";
    if (!body.includes(name)) fail(`the listing does not name ${name}: ${body.slice(0, 300)}`);
    // The request Swagger UI sent carried the key in the ApiKey header.
    const curl = (await operation.locator(".curl-command").textContent()) ?? "";
    if (!curl.includes("ApiKey:")) fail(`the request sent no ApiKey header: ${curl}`);
    console.log(`  ok  "Try it out" on GET /files: 200, listing ${name}`);

    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot, fullPage: false });
    console.log(`  ok  screenshot: ${screenshot}`);
    if (pageErrors.length > 0) fail(`errors on the page: ${pageErrors.join("; ")}`);
  } finally {
    await browser.close();
  }
  console.log("swagger ui: passed");
}

await main();
