//! Resize: `w`, `h`, `fit` (and `gravity`, where `cover` crops), sharp's geometry (`layout`): scale with
//! Lanczos3, then `cover`'s crop or `contain`'s padding.

mod layout;

use image::{DynamicImage, RgbaImage, imageops};

pub use layout::{ResizePlan, plan_resize};

use crate::{
    PipelineError,
    geometry::{Rect, Size},
    gravity,
    resample::scale,
};

/// How far a JPEG may be shrunk on load (1, 2, 4 or 8) when `plan` is the first step that changes the
/// pixels' scale (`crate::render::plan` says when it is).
///
/// - Like sharp (`fastShrinkOnLoad`, its default): the largest n of 8, 4, 2 not above the smaller of the
///   two shrink factors, halved when that factor's integer part equals n exactly, so the decoded image is
///   always reduced further by the resize (libjpeg's scaled sizes round up, and a resize from exactly
///   the target size would be skipped with that rounding in it).
/// - And never so far that a side of the decoded image (`ceil(side / n)`) would be smaller than the
///   plan's scaled size on that side.
pub(crate) fn shrink_on_load(plan: &ResizePlan) -> u32 {
    let (w, h, scaled) = (plan.source.width, plan.source.height, plan.scaled);
    if !plan.scales() || scaled.width == 0 || scaled.height == 0 {
        return 1;
    }
    let shrink = (f64::from(w) / f64::from(scaled.width)).min(f64::from(h) / f64::from(scaled.height));
    let mut n = [8u32, 4, 2].into_iter().find(|&n| shrink >= f64::from(n)).unwrap_or(1);
    if n > 1 && shrink.floor() as u32 == n {
        n /= 2;
    }
    while n > 1 && (w.div_ceil(n) < scaled.width || h.div_ceil(n) < scaled.height) {
        n /= 2;
    }
    n
}

/// Resizes following `plan`: scale (Lanczos3, alpha-aware), then `cover`'s crop or `contain`'s padding.
/// The image may be smaller than `plan.source` (shrunk on load): it is scaled to `plan.scaled` all the same.
pub(crate) fn apply(image: DynamicImage, plan: &ResizePlan) -> Result<DynamicImage, PipelineError> {
    apply_choosing(image, plan).map(|(image, _)| image)
}

/// `apply`, and the crop's window where the scaled pixels chose it (`gravity=attention|entropy`), so an
/// animation's later frames can take the first frame's.
pub(crate) fn apply_choosing(
    image: DynamicImage,
    plan: &ResizePlan,
) -> Result<(DynamicImage, Option<Rect>), PipelineError> {
    let mut image =
        if plan.scaled == Size::new(image.width(), image.height()) { image } else { scale(image, plan.scaled)? };
    let mut chosen = None;
    if let Some(mut rect) = plan.crop {
        if let Some(interest) = plan.interest {
            rect = gravity::choose(&image, Size::new(rect.width, rect.height), interest);
            chosen = Some(rect);
        }
        image = image.crop_imm(rect.x, rect.y, rect.width, rect.height);
    }
    Ok((pad(image, plan), chosen))
}

/// The plan's last step: `image`, scaled (and cropped) already, on a transparent canvas of the output size
/// when `contain` pads it; unchanged otherwise.
pub(crate) fn pad(image: DynamicImage, plan: &ResizePlan) -> DynamicImage {
    let Some(padding) = plan.padding.filter(|p| !p.is_zero()) else { return image };
    let mut canvas = RgbaImage::new(plan.output.width, plan.output.height);
    imageops::overlay(&mut canvas, &image.to_rgba8(), i64::from(padding.left), i64::from(padding.top));
    DynamicImage::ImageRgba8(canvas)
}

#[cfg(test)]
mod tests {
    use image::{GenericImageView, Rgba};

    use super::*;
    use crate::params::Fit;

    fn solid(w: u32, h: u32) -> DynamicImage {
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(w, h, Rgba([200, 100, 50, 255])))
    }

    #[test]
    fn resize_follows_the_plan() {
        let plan = plan_resize(400, 300, Some(100), Some(100), Fit::Cover);
        assert_eq!(apply(solid(400, 300), &plan).unwrap().dimensions(), (100, 100));
        let plan = plan_resize(400, 300, Some(100), Some(100), Fit::Contain);
        let contained = apply(solid(400, 300), &plan).unwrap().to_rgba8();
        assert_eq!(contained.dimensions(), (100, 100));
        assert_eq!(contained.get_pixel(50, 2).0[3], 0, "letterbox is transparent");
        assert_eq!(contained.get_pixel(50, 50).0, [200, 100, 50, 255]);
    }
}
