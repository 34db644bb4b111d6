// The whole flow of a user, through the TypeScript client generated from openapi/openapi.json:
//
//   node dist/flow.js <service URL> <secret API key>
//
// Every API call goes through openapi-fetch typed by the `paths` that openapi-typescript generated
// (src/generated/schema.d.ts, made fresh by scripts/clients.sh), and this file is compiled with
// `tsc --strict`: a spec change that breaks a call, a body or a response field fails the build. Presign,
// confirm, list, get, transform-url, delete, then a 404 and a 401 read as the generated `Error` type, with
// both key header forms. Only the bytes travel outside it: the PUT to the presigned uploadUrl and the GET
// of the public transformed URL, which are not API calls.

import createClient from "openapi-fetch";
import { deflateSync } from "node:zlib";

import type { components, paths } from "./generated/schema.js";

type ApiError = components["schemas"]["Error"];

function check(condition: boolean, what: string): asserts condition {
  if (!condition) {
    console.error(`typescript client flow: FAILED: ${what}`);
    process.exit(1);
  }
  console.log(`  ok  ${what}`);
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A width×height RGB PNG with a gradient, so it is a real image to resize. */
function png(width: number, height: number): Buffer {
  const chunk = (kind: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(kind, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      rows[row + 1 + x * 3] = x % 256;
      rows[row + 2 + x * 3] = y % 256;
      rows[row + 3 + x * 3] = (x + y) % 256;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
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

  const listing = await authorized.GET("/files", { params: { query: { page: 1, pageSize: 100 } } });
  check(listing.data !== undefined, "list → FileList");
  check(
    listing.data.files.some((f) => f.id === file.id),
    "the listing holds the file",
  );
  check(listing.data.pagination.pageSize === 100, "pagination echoes pageSize");

  const got = await apiKeyHeader.GET("/files/{id}", { params: { path: { id: file.id } } });
  check(got.data?.file.id === file.id, "get (ApiKey header) → the file");

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
