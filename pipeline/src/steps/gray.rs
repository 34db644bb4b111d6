//! Gray: `gray`, the picture's luminance, alpha kept.

use image::DynamicImage;

/// Grayscale, keeping alpha.
pub fn gray(image: &DynamicImage) -> DynamicImage {
    if image.color().has_alpha() {
        DynamicImage::ImageLumaA8(image.to_luma_alpha8())
    } else {
        DynamicImage::ImageLuma8(image.to_luma8())
    }
}

#[cfg(test)]
mod tests {
    use image::{Rgba, RgbaImage};

    use super::*;

    #[test]
    fn gray_keeps_the_size_and_makes_every_channel_equal() {
        let image = DynamicImage::ImageRgba8(RgbaImage::from_pixel(20, 10, Rgba([200, 100, 50, 255])));
        let g = gray(&image).to_rgba8();
        assert_eq!(g.dimensions(), (20, 10));
        let [r, gg, b, _] = g.get_pixel(5, 5).0;
        assert!(r == gg && gg == b);
    }
}
