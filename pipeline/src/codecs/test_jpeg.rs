//! Test inputs: JPEGs encoded with libjpeg-turbo at a chosen quality and chroma subsampling.

use image::{Rgb, RgbImage};
use turbojpeg::{Compressor, Subsamp};

/// A photo-like 4:2:0 JPEG: gradients, texture and noise, so every coefficient position is exercised
/// and the entropy-coded data is about as dense as a camera's.
pub(crate) fn photo(w: u32, h: u32, quality: i32) -> Vec<u8> {
    encode(&photo_pixels(w, h, 0x2545_f491), quality, Subsamp::Sub2x2)
}

/// The pixels of a photo-like image, its noise drawn from `seed` (not 0).
pub(crate) fn photo_pixels(w: u32, h: u32, mut seed: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let noise = (seed % 48) as f32 - 24.0;
        let wave = 60.0 * (x as f32 / 13.0).sin() * (y as f32 / 29.0).cos();
        let px = |base: f32| (base + wave + noise).clamp(0.0, 255.0) as u8;
        Rgb([px((x * 255 / w) as f32), px((y * 255 / h) as f32), px(128.0)])
    })
}

/// `image` as a JPEG at `quality` with `subsamp`.
pub(crate) fn encode(image: &RgbImage, quality: i32, subsamp: Subsamp) -> Vec<u8> {
    encode_with(image, quality, subsamp, false)
}

/// `image` as a JPEG at `quality` with `subsamp`, its Huffman tables the standard ones or, with
/// `optimize`, built for the image (other code lengths, longer codes among them).
pub(crate) fn encode_with(image: &RgbImage, quality: i32, subsamp: Subsamp, optimize: bool) -> Vec<u8> {
    let mut compressor = Compressor::new().unwrap();
    compressor.set_quality(quality).unwrap();
    compressor.set_subsamp(subsamp).unwrap();
    compressor.set_optimize(optimize).unwrap();
    let (w, h) = (image.width() as usize, image.height() as usize);
    compressor
        .compress_to_vec(turbojpeg::Image {
            pixels: image.as_raw().as_slice(),
            width: w,
            pitch: w * 3,
            height: h,
            format: turbojpeg::PixelFormat::RGB,
        })
        .unwrap()
}
