// Where libvips' smartcrop (sharp 0.35's `position: attention | entropy`) puts a `cover` crop's window on
// photographs of the test corpora: the reference pipeline/tests/gravity_sharp.rs holds `gravity=attention`
// and `gravity=entropy` to. A TSV on stdout, saved as pipeline/tests/data/sharp-gravity.tsv:
//
//   SHUTTERBOX_SHARP_NODE_MODULES=target/tools/sharp/node_modules node scripts/sharp-gravity.cjs \
//     > pipeline/tests/data/sharp-gravity.tsv
//
// Columns: path (relative to the corpora root), w, h, position, then the window's left, top, width and
// height in the scaled picture (sharp's `cropOffsetLeft`/`cropOffsetTop` negated; its output size).
// Every file is auto-oriented first (`rotate()`), as the service orients every source. The corpora are read
// from SHUTTERBOX_CORPORA (default: the repository's tests/corpora).
'use strict';
const path = require('path');
const sharp = require(path.resolve(process.env.SHUTTERBOX_SHARP_NODE_MODULES || 'target/tools/sharp/node_modules', 'sharp'));

const corpora = process.env.SHUTTERBOX_CORPORA || path.join(__dirname, '..', 'tests', 'corpora');
// Photographs: people, animals, landscapes, city views, products and film stills, in every format sharp
// reads, a few with alpha or a container rotation.
const PHOTOS = [
  'av1-avif/kids_720p.avif',
  'av1-avif/Mexico.avif',
  'av1-avif/Summer_Nature_4k.avif',
  'av1-avif/Irvine_CA.avif',
  'av1-avif/abandoned_filmgrain.avif',
  'av1-avif/Tomsk_with_thumbnails.avif',
  'av1-avif/Chimera_10bit_cropped_to_1920x1008.avif',
  'av1-avif/Ronda_rotate90.avif',
  'link-u-avif/fox.profile0.8bpc.yuv420.avif',
  'link-u-avif/hato.profile0.8bpc.yuv420.avif',
  'link-u-avif/kimono.avif',
  'link-u-avif/plum-blossom-large.profile1.8bpc.yuv444.alpha-full.avif',
  'libheif/example.avif',
  'exif-orientation-examples/Landscape_1.jpg',
  'exif-orientation-examples/Portrait_1.jpg',
  'image-rs/jpg/progressive/cat.jpg',
  'image-rs/jpg/progressive/3.jpg',
  'image-rs/tiff/testsuite/mandrill.tiff',
  'libtiff-pics/pc260001.tif',
  'libtiff-pics/ycbcr-cat.tif',
  'libtiff-pics/jello.tif',
  'libtiff-pics/quad-jpeg.tif',
  'pillow/flower.webp',
  'libwebp-test-data/lossy_extreme_probabilities.webp',
  'libwebp-test-data/vp80-00-comprehensive-008.webp',
];
// A square, a wide and a tall window: each photo is cropped along one axis or the other.
const BOXES = [[200, 200], [300, 120], [120, 300]];

(async () => {
  sharp.cache(false);
  for (const photo of PHOTOS) {
    for (const [w, h] of BOXES) {
      for (const position of ['attention', 'entropy']) {
        const { info } = await sharp(path.join(corpora, photo))
          .rotate()
          .resize(w, h, { fit: 'cover', position: sharp.strategy[position], withoutEnlargement: true })
          .raw()
          .toBuffer({ resolveWithObject: true });
        const left = -(info.cropOffsetLeft || 0);
        const top = -(info.cropOffsetTop || 0);
        console.log([photo, w, h, position, left, top, info.width, info.height].join('\t'));
      }
    }
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
