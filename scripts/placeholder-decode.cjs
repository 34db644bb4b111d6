// The reference decoders of ThumbHash and BlurHash (npm `thumbhash`, by ThumbHash's author, and `blurhash`,
// Wolt's) on the placeholders the pipeline made, for pipeline/tests/facts_reference.rs. Reads JSON lines
// on stdin, {thumbhash (base64), blurhash}, and prints one JSON line each: {aspect, thumbAverage, blurAverage}
// — ThumbHash's approximate aspect ratio (width / height) and average colour, and the average colour of the
// BlurHash decoded to 32×32, taken in linear light as BlurHash takes it — colours as [r, g, b] in 0–255. Run with NODE_PATH naming a node_modules that
// holds both (scripts/test.sh installs them beside sharp).
const { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } = require("thumbhash");
const { decode } = require("blurhash");
const readline = require("readline");

// BlurHash averages in linear light (its first component is the linear mean); so is the decoded picture.
const linear = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const srgb = (v) => 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const { thumbhash, blurhash } = JSON.parse(line);
  const hash = Buffer.from(thumbhash, "base64");
  const average = thumbHashToAverageRGBA(hash);
  const pixels = decode(blurhash, 32, 32);
  const sums = [0, 0, 0];
  for (let i = 0; i < pixels.length; i += 4) for (let c = 0; c < 3; c++) sums[c] += linear(pixels[i + c]);
  console.log(JSON.stringify({
    aspect: thumbHashToApproximateAspectRatio(hash),
    thumbAverage: [average.r * 255, average.g * 255, average.b * 255],
    blurAverage: sums.map((s) => srgb(s / (pixels.length / 4))),
  }));
});
