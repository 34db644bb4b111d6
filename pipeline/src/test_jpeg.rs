//! Test inputs: JPEGs encoded with libjpeg-turbo at a chosen quality and chroma subsampling.

use image::RgbImage;
use turbojpeg::{Compressor, Subsamp};

/// `image` as a JPEG at `quality` with `subsamp`.
pub(crate) fn encode(image: &RgbImage, quality: i32, subsamp: Subsamp) -> Vec<u8> {
    let mut compressor = Compressor::new().unwrap();
    compressor.set_quality(quality).unwrap();
    compressor.set_subsamp(subsamp).unwrap();
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
