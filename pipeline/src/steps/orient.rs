//! Orient: the EXIF orientation applied first, so every later step sees the picture as it is meant to be
//! seen.

use image::{DynamicImage, metadata::Orientation};

use crate::geometry::Size;

/// The upright size of a picture stored at `input` with `orientation`: the sides swap for a quarter turn.
pub(crate) fn size(orientation: Orientation, input: Size) -> Size {
    match orientation {
        Orientation::Rotate90 | Orientation::Rotate270 | Orientation::Rotate90FlipH | Orientation::Rotate270FlipH => {
            Size::new(input.height, input.width)
        }
        _ => input,
    }
}

pub(crate) fn apply(orientation: Orientation, mut image: DynamicImage) -> DynamicImage {
    image.apply_orientation(orientation);
    image
}

#[cfg(test)]
mod tests {
    use image::GenericImageView;

    use super::*;

    #[test]
    fn the_size_is_the_turned_pictures() {
        for orientation in (1..=8).filter_map(Orientation::from_exif) {
            let turned = apply(orientation, DynamicImage::new_rgb8(10, 4));
            assert_eq!(
                size(orientation, Size::new(10, 4)),
                Size::new(turned.width(), turned.height()),
                "{orientation:?}"
            );
        }
        assert_eq!(apply(Orientation::Rotate90, DynamicImage::new_rgb8(10, 4)).dimensions(), (4, 10));
    }
}
