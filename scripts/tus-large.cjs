// One large file through tus-js-client, streamed from disk (Node's fs.ReadStream, so a file of any size
// fits): node tus-large.cjs ENDPOINT KEY FILE CHUNK_BYTES. Prints {seconds, fileId, url}. Run with NODE_PATH
// naming a node_modules that holds tus-js-client (scripts/bench-tus-large.sh).
const fs = require("fs");
const tus = require("tus-js-client");

const [endpoint, key, file, chunk] = process.argv.slice(2);
const size = fs.statSync(file).size;
const started = process.hrtime.bigint();
let fileId = null;
const upload = new tus.Upload(fs.createReadStream(file), {
  endpoint,
  uploadSize: size,
  chunkSize: Number(chunk),
  headers: { Authorization: `ApiKey ${key}` },
  metadata: { filename: "large.bin", filetype: "application/octet-stream" },
  retryDelays: [0, 1000, 3000],
  onAfterResponse: (_req, res) => {
    const id = res.getHeader("Shutterbox-File-Id");
    if (id) fileId = id;
  },
  onError: (error) => {
    console.error(String(error));
    process.exit(1);
  },
  onSuccess: () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(JSON.stringify({ seconds, fileId, url: upload.url }));
  },
});
upload.start();
