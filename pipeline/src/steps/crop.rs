//! Crop: `crop=x,y,width,height`, in upright source pixels.

use image::{DynamicImage, GenericImageView};

use crate::{PipelineError, geometry::Size, params::Crop};

/// The crop's size; a rectangle that does not lie inside an `input` image is the client's error.
pub(crate) fn size(crop: Crop, input: Size) -> Result<Size, PipelineError> {
    if !crop.lies_inside(input.width, input.height) {
        return Err(PipelineError::CropOutside { crop, width: input.width, height: input.height });
    }
    Ok(Size::new(crop.width, crop.height))
}

pub(crate) fn apply(image: &DynamicImage, crop: Crop) -> Result<DynamicImage, PipelineError> {
    let (width, height) = image.dimensions();
    size(crop, Size::new(width, height))?;
    Ok(image.crop_imm(crop.x, crop.y, crop.width, crop.height))
}

#[cfg(test)]
mod tests {
    use image::{Rgba, RgbaImage};

    use super::*;

    #[test]
    fn crop_must_stay_inside() {
        let img = DynamicImage::ImageRgba8(RgbaImage::from_pixel(10, 8, Rgba([200, 100, 50, 255])));
        assert_eq!(apply(&img, Crop { x: 2, y: 2, width: 8, height: 6 }).unwrap().dimensions(), (8, 6));
        assert!(matches!(
            apply(&img, Crop { x: 3, y: 0, width: 8, height: 1 }),
            Err(PipelineError::CropOutside { .. })
        ));
        assert!(apply(&img, Crop { x: u32::MAX, y: 0, width: 2, height: 1 }).is_err());
        assert!(size(Crop { x: 3, y: 0, width: 8, height: 1 }, Size::new(10, 8)).is_err());
    }
}
