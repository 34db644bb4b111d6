// The whole flow of a user, through the TypeScript client generated from openapi/openapi.json:
//
//   node dist/flow.js <service URL> <secret API key>
//
// Every API call goes through openapi-fetch typed by the `paths` that openapi-typescript generated
// (src/generated/schema.d.ts, made fresh by scripts/clients.sh), and this file is compiled with
// `tsc --strict`: an API change that breaks a call, a body or a response field fails the build. Presign,
// confirm, list, get, transform-url, delete, then a 404 and a 401 read as the generated `Error` type, with
// both key header forms. Only the bytes travel outside it: the PUT to the presigned uploadUrl and the GET
// of the public transformed URL, which are not API calls.

import createClient from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";
import { png } from "./png.js";

type ApiError = components["schemas"]["Error"];

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    console.error(`typescript client flow: FAILED: ${what}`);
    process.exit(1);
  }
  console.log(`  ok  ${what}`);
}

function isApiError(error: ApiError | undefined, status: number): error is ApiError {
  return error !== undefined && error.status === status && typeof error.message === "string";
}

async function main(): Promise<void> {
  const [service, key] = process.argv.slice(2);
  if (service === undefined || key === undefined) {
    console.error("usage: node dist/flow.js <service URL> <secret API key>");
    process.exit(2);
  }
  const baseUrl = `${service.replace(/\/$/, "")}/v1`;
  // `Authorization: ApiKey <key>`, the form of every docs/api.md example, and `ApiKey: <key>`.
  const authorized = createClient<paths>({ baseUrl, headers: { Authorization: `ApiKey ${key}` } });
  const apiKeyHeader = createClient<paths>({ baseUrl, headers: { ApiKey: key } });

  const image = png(320, 200);
  const presigned = await authorized.POST("/upload/presign", {
    body: { filename: "gradient.png", mimetype: "image/png", size: image.length, folderName: "sdk/typescript" },
  });
  check(presigned.data !== undefined, `presign → PendingUpload (${presigned.response.status})`);
  const { uploadUrl, pendingUploadId } = presigned.data;

  const put = await fetch(uploadUrl, {
    method: "PUT",
    body: new Uint8Array(image),
    headers: { "Content-Type": "image/png" },
  });
  check(put.ok, `PUT to uploadUrl (${put.status})`);

  const confirmed = await apiKeyHeader.POST("/upload/confirm", { body: { pendingUploadId } });
  check(confirmed.data !== undefined, "confirm (ApiKey header) → ConfirmResponse");
  const file: components["schemas"]["File"] = confirmed.data.file;
  check(file.type === "image" && file.rawType === "image/png", "the file is a PNG image");
  check(file.rawSize === image.length, "rawSize is the uploaded size");
  check(file.folderId !== null && file.folderId !== undefined, "folderId is set for a file in a folder");
  check(file.width === 320 && file.height === 200, `the image's size from confirm (${file.width}×${file.height})`);
  check(file.hasAlpha === false && file.animated === false && file.frameCount === 1, "alpha and frames");

  const listing = await authorized.GET("/files", { params: { query: { page: 1, pageSize: 100 } } });
  check(listing.data !== undefined, "list → FileList");
  check(
    listing.data.files.some((f) => f.id === file.id),
    "the listing holds the file",
  );
  check(listing.data.pagination.pageSize === 100, "pagination echoes pageSize");

  const got = await apiKeyHeader.GET("/files/{id}", { params: { path: { id: file.id } } });
  check(got.data?.file.id === file.id, "get (ApiKey header) → the file");
  // The placeholders come from a job after confirm: null until it ran.
  let described: components["schemas"]["File"] | undefined;
  for (let i = 0; i < 100 && typeof described?.placeholder !== "string"; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    described = (await apiKeyHeader.GET("/files/{id}", { params: { path: { id: file.id } } })).data?.file;
  }
  const placeholder: string | null | undefined = described?.placeholder;
  check(typeof placeholder === "string" && placeholder.startsWith("data:image/webp"), "the placeholder, once described");
  check(typeof described?.dominantColor === "string" && described.dominantColor.length === 7, "dominantColor");
  check(typeof described?.thumbhash === "string" && typeof described?.blurhash === "string", "the hashes");

  const transform = await authorized.POST("/file/{id}/transform-url", {
    params: { path: { id: file.id } },
    body: { w: 64, format: "png", gray: true, q: "auto" },
  });
  check(transform.data !== undefined, "transform-url → TransformUrl");
  check(transform.data.originalFile.id === file.id, "transform-url names the original");
  const delivered = await fetch(transform.data.url);
  check(delivered.status === 200, `the transformed URL loads without a key (${delivered.status})`);
  check(delivered.headers.get("content-type") === "image/png", "as PNG");
  const bytes = Buffer.from(await delivered.arrayBuffer());
  const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  check(width === 64 && height === 40, `at the requested width (${width}×${height})`);

  const deleted = await authorized.DELETE("/files/{id}", { params: { path: { id: file.id } } });
  check(deleted.data?.message !== undefined, "delete → Message");

  const missing = await authorized.GET("/files/{id}", { params: { path: { id: file.id } } });
  check(missing.response.status === 404, "a deleted file is a 404");
  check(isApiError(missing.error, 404), `read as the Error type: ${JSON.stringify(missing.error)}`);

  const wrongKey = createClient<paths>({ baseUrl, headers: { Authorization: "ApiKey sbx_not_a_key" } });
  const refused = await wrongKey.GET("/files");
  check(refused.response.status === 401, "a wrong key is a 401");
  check(isApiError(refused.error, 401), "read as the Error type");
  const wrongHeader = createClient<paths>({ baseUrl, headers: { ApiKey: "sbx_not_a_key" } });
  const refusedToo = await wrongHeader.GET("/files");
  check(isApiError(refusedToo.error, 401), "…in the ApiKey header form too");
  console.log("typescript client flow: passed");
}

await main();
