//! Border: `border`, pixels of a colour added outside every side.

use image::{DynamicImage, Rgba, RgbaImage, imageops};

use crate::{geometry::Size, params::Border};

/// The framed size of an `input` image: `border.width` more on each side.
pub(crate) fn size(border: Border, input: Size) -> Size {
    let grow = |n: u32| n.saturating_add(border.width.saturating_mul(2));
    Size::new(grow(input.width), grow(input.height))
}

/// Adds `border.width` pixels of `border.color` outside every side.
pub(crate) fn apply(image: &DynamicImage, border: Border) -> DynamicImage {
    let grown = size(border, Size::new(image.width(), image.height()));
    let mut canvas = RgbaImage::from_pixel(grown.width, grown.height, Rgba(border.color));
    let offset = i64::from(border.width);
    imageops::replace(&mut canvas, &image.to_rgba8(), offset, offset);
    DynamicImage::ImageRgba8(canvas)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn border_grows_each_side() {
        let solid = DynamicImage::ImageRgba8(RgbaImage::from_pixel(10, 5, Rgba([200, 100, 50, 255])));
        let framed = apply(&solid, Border { width: 3, color: [0, 0, 255, 255] }).to_rgba8();
        assert_eq!(framed.dimensions(), (16, 11));
        assert_eq!(framed.get_pixel(0, 0).0, [0, 0, 255, 255]);
        assert_eq!(framed.get_pixel(3, 3).0, [200, 100, 50, 255]);
        assert_eq!(size(Border { width: u32::MAX, color: [0; 4] }, Size::new(1, 1)), Size::new(u32::MAX, u32::MAX));
    }
}
