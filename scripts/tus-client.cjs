// tus-js-client (the TUS client web developers use) against a Shutterbox server, for the resumable-upload
// test (tests/api/resumable.rs): uploads FILE in CHUNK-byte PATCHes to ENDPOINT with `Authorization: ApiKey
// KEY`, aborts after ABORT_AFTER chunks, then starts a new Upload of the same bytes that finds the first by
// its fingerprint (FileUrlStorage under STORE) and resumes it. Prints one JSON line: {url, fileId,
// abortedAt, resumedAt, progressEvents}. Run with NODE_PATH naming a node_modules that holds tus-js-client
// (scripts/test.sh installs one).
const fs = require("fs");
const tus = require("tus-js-client");

const [endpoint, key, file, chunk, abortAfter, store] = process.argv.slice(2);
const bytes = fs.readFileSync(file);
const urlStorage = new tus.FileUrlStorage(store);
const base = {
  endpoint,
  chunkSize: Number(chunk),
  headers: { Authorization: `ApiKey ${key}` },
  metadata: { filename: "tus-js-client.bin", filetype: "application/octet-stream", folderName: "tus-js" },
  urlStorage,
  retryDelays: [0, 500, 1000, 2000, 4000],
};

function fail(error) {
  console.error(String(error && error.stack ? error.stack : error));
  process.exit(1);
}

(async () => {
  // The first attempt: stopped after ABORT_AFTER chunks, as a closed tab or a dropped connection would.
  const abortedAt = await new Promise((resolve, reject) => {
    let chunks = 0;
    const upload = new tus.Upload(bytes, {
      ...base,
      onError: reject,
      onSuccess: () => reject(new Error("the first attempt was meant to stop before the end")),
      onChunkComplete: (_size, accepted) => {
        chunks += 1;
        if (chunks === Number(abortAfter)) {
          upload.abort(false).then(() => resolve(accepted), reject);
        }
      },
    });
    upload.start();
  });
  // The second: finds the first by fingerprint and resumes where the server says it stopped.
  let resumedAt = null;
  let fileId = null;
  let progressEvents = 0;
  const url = await new Promise((resolve, reject) => {
    const upload = new tus.Upload(bytes, {
      ...base,
      onError: reject,
      onProgress: () => {
        progressEvents += 1;
      },
      onAfterResponse: (req, res) => {
        if (req.getMethod() === "HEAD" && resumedAt === null) resumedAt = Number(res.getHeader("Upload-Offset"));
        const id = res.getHeader("Shutterbox-File-Id");
        if (id) fileId = id;
      },
      onSuccess: () => resolve(upload.url),
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length === 0) return reject(new Error("no previous upload was stored under the fingerprint"));
      upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    }, reject);
  });
  console.log(JSON.stringify({ url, fileId, abortedAt, resumedAt, progressEvents }));
})().catch(fail);
