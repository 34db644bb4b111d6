//! Sharpen: `sharp`, a mild unsharp mask.

use image::DynamicImage;

/// A mild unsharp mask (sigma 1, threshold 2), like sharp's `sharpen()` without arguments.
pub(crate) fn apply(image: &DynamicImage) -> DynamicImage {
    image.unsharpen(1.0, 2)
}

#[cfg(test)]
mod tests {
    use image::GenericImageView;

    use super::*;

    #[test]
    fn sharpening_keeps_the_size() {
        assert_eq!(apply(&DynamicImage::new_rgba8(20, 10)).dimensions(), (20, 10));
    }
}
