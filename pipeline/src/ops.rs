//! The image operations, each a pure function of an image: crop, rotate, resize (following a
//! `ResizePlan`), blur, sharpen, gray, border. Empty areas (a non-right-angle rotation, `contain`
//! letterboxing) are transparent; an output format without alpha later flattens them to black.

use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::{DynamicImage, GenericImageView, Rgba, RgbaImage, imageops};

use crate::{
    PipelineError,
    geometry::{ResizePlan, Size},
    params::{Border, Crop},
};

/// `crop=x,y,width,height` in (oriented) source pixels; the rectangle must lie inside the image.
pub fn crop(image: &DynamicImage, crop: Crop) -> Result<DynamicImage, PipelineError> {
    let (width, height) = image.dimensions();
    let inside = u64::from(crop.x) + u64::from(crop.width) <= u64::from(width)
        && u64::from(crop.y) + u64::from(crop.height) <= u64::from(height);
    if !inside {
        return Err(PipelineError::CropOutside { crop, width, height });
    }
    Ok(image.crop_imm(crop.x, crop.y, crop.width, crop.height))
}

/// Rotates clockwise by `degrees` (0–359). Right angles are exact; other angles grow the canvas to the
/// rotated bounding box, bilinearly sampled, with transparent corners.
pub fn rotate(image: DynamicImage, degrees: u16) -> DynamicImage {
    match degrees % 360 {
        0 => image,
        90 => image.rotate90(),
        180 => image.rotate180(),
        270 => image.rotate270(),
        other => DynamicImage::ImageRgba8(rotate_any(&image.to_rgba8(), f64::from(other))),
    }
}

fn rotate_any(source: &RgbaImage, degrees: f64) -> RgbaImage {
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (w, h) = (f64::from(source.width()), f64::from(source.height()));
    let out_w = (w * cos.abs() + h * sin.abs()).round().max(1.0);
    let out_h = (w * sin.abs() + h * cos.abs()).round().max(1.0);
    let (cx, cy, ocx, ocy) = (w / 2.0, h / 2.0, out_w / 2.0, out_h / 2.0);
    RgbaImage::from_fn(out_w as u32, out_h as u32, |x, y| {
        // Inverse mapping: where in the source does this output pixel's centre come from?
        let (dx, dy) = (f64::from(x) + 0.5 - ocx, f64::from(y) + 0.5 - ocy);
        let sx = dx * cos + dy * sin + cx - 0.5;
        let sy = -dx * sin + dy * cos + cy - 0.5;
        bilinear(source, sx, sy)
    })
}

fn bilinear(source: &RgbaImage, x: f64, y: f64) -> Rgba<u8> {
    let (w, h) = (i64::from(source.width()), i64::from(source.height()));
    let (x0, y0) = (x.floor() as i64, y.floor() as i64);
    let (fx, fy) = (x - x0 as f64, y - y0 as f64);
    let sample = |px: i64, py: i64| -> [f64; 4] {
        if px < 0 || py < 0 || px >= w || py >= h {
            return [0.0; 4];
        }
        let p = source.get_pixel(px as u32, py as u32).0;
        // Premultiplied, so transparent neighbours do not bleed their colour into the edge.
        let a = f64::from(p[3]) / 255.0;
        [f64::from(p[0]) * a, f64::from(p[1]) * a, f64::from(p[2]) * a, f64::from(p[3])]
    };
    let corners = [
        (sample(x0, y0), (1.0 - fx) * (1.0 - fy)),
        (sample(x0 + 1, y0), fx * (1.0 - fy)),
        (sample(x0, y0 + 1), (1.0 - fx) * fy),
        (sample(x0 + 1, y0 + 1), fx * fy),
    ];
    let mut acc = [0.0f64; 4];
    for (value, weight) in corners {
        for (a, v) in acc.iter_mut().zip(value) {
            *a += v * weight;
        }
    }
    let alpha = acc[3];
    if alpha <= 0.0 {
        return Rgba([0, 0, 0, 0]);
    }
    let unpremultiply = |c: f64| (c * 255.0 / alpha).round().clamp(0.0, 255.0) as u8;
    Rgba([unpremultiply(acc[0]), unpremultiply(acc[1]), unpremultiply(acc[2]), alpha.round().clamp(0.0, 255.0) as u8])
}

/// Resizes following `plan`: scale (Lanczos3, alpha-aware), then `cover`'s crop or `contain`'s padding.
pub fn resize(image: DynamicImage, plan: &ResizePlan) -> Result<DynamicImage, PipelineError> {
    let mut image =
        if plan.scaled == Size::new(image.width(), image.height()) { image } else { scale(&image, plan.scaled)? };
    if let Some(rect) = plan.crop {
        image = image.crop_imm(rect.x, rect.y, rect.width, rect.height);
    }
    if let Some(padding) = plan.padding.filter(|p| !p.is_zero()) {
        let mut canvas = RgbaImage::new(plan.output.width, plan.output.height);
        imageops::overlay(&mut canvas, &image.to_rgba8(), i64::from(padding.left), i64::from(padding.top));
        image = DynamicImage::ImageRgba8(canvas);
    }
    Ok(image)
}

fn scale(image: &DynamicImage, to: Size) -> Result<DynamicImage, PipelineError> {
    // fast_image_resize handles 8-bit gray, RGB and RGBA directly; anything else goes through RGBA8.
    let source = match image {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => image.clone(),
        other => DynamicImage::ImageRgba8(other.to_rgba8()),
    };
    let mut target = DynamicImage::new(to.width, to.height, source.color());
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
    Resizer::new()
        .resize(&source, &mut target, &options)
        .map_err(|e| PipelineError::Encode(format!("resize failed: {e}")))?;
    Ok(target)
}

/// Gaussian blur of radius (sigma) `sigma`, approximated by box blurs so large radii stay fast.
pub fn blur(image: &DynamicImage, sigma: f32) -> DynamicImage {
    image.fast_blur(sigma)
}

/// A mild unsharp mask (sigma 1, threshold 2), like sharp's `sharpen()` without arguments.
pub fn sharpen(image: &DynamicImage) -> DynamicImage {
    image.unsharpen(1.0, 2)
}

/// Grayscale, keeping alpha.
pub fn gray(image: &DynamicImage) -> DynamicImage {
    if image.color().has_alpha() {
        DynamicImage::ImageLumaA8(image.to_luma_alpha8())
    } else {
        DynamicImage::ImageLuma8(image.to_luma8())
    }
}

/// Adds `border.width` pixels of `border.color` outside every side.
pub fn border(image: &DynamicImage, border: Border) -> DynamicImage {
    let grow = |n: u32| n.saturating_add(border.width.saturating_mul(2));
    let mut canvas = RgbaImage::from_pixel(grow(image.width()), grow(image.height()), Rgba(border.color));
    let offset = i64::from(border.width);
    imageops::replace(&mut canvas, &image.to_rgba8(), offset, offset);
    DynamicImage::ImageRgba8(canvas)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{geometry::plan_resize, params::Fit};

    fn solid(w: u32, h: u32) -> DynamicImage {
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(w, h, Rgba([200, 100, 50, 255])))
    }

    #[test]
    fn crop_must_stay_inside() {
        let img = solid(10, 8);
        assert_eq!(crop(&img, Crop { x: 2, y: 2, width: 8, height: 6 }).unwrap().dimensions(), (8, 6));
        assert!(matches!(crop(&img, Crop { x: 3, y: 0, width: 8, height: 1 }), Err(PipelineError::CropOutside { .. })));
        assert!(crop(&img, Crop { x: u32::MAX, y: 0, width: 2, height: 1 }).is_err());
    }

    #[test]
    fn rotations() {
        assert_eq!(rotate(solid(10, 4), 90).dimensions(), (4, 10));
        assert_eq!(rotate(solid(10, 4), 180).dimensions(), (10, 4));
        let turned = rotate(solid(100, 100), 45).to_rgba8();
        assert_eq!(turned.dimensions(), (141, 141));
        assert_eq!(turned.get_pixel(0, 0).0[3], 0, "corners are transparent");
        assert_eq!(turned.get_pixel(70, 70).0, [200, 100, 50, 255], "the middle keeps its colour");
    }

    #[test]
    fn resize_follows_the_plan() {
        let plan = plan_resize(400, 300, Some(100), Some(100), Fit::Cover);
        assert_eq!(resize(solid(400, 300), &plan).unwrap().dimensions(), (100, 100));
        let plan = plan_resize(400, 300, Some(100), Some(100), Fit::Contain);
        let contained = resize(solid(400, 300), &plan).unwrap().to_rgba8();
        assert_eq!(contained.dimensions(), (100, 100));
        assert_eq!(contained.get_pixel(50, 2).0[3], 0, "letterbox is transparent");
        assert_eq!(contained.get_pixel(50, 50).0, [200, 100, 50, 255]);
    }

    #[test]
    fn border_grows_each_side() {
        let framed = border(&solid(10, 5), Border { width: 3, color: [0, 0, 255, 255] }).to_rgba8();
        assert_eq!(framed.dimensions(), (16, 11));
        assert_eq!(framed.get_pixel(0, 0).0, [0, 0, 255, 255]);
        assert_eq!(framed.get_pixel(3, 3).0, [200, 100, 50, 255]);
    }

    #[test]
    fn gray_blur_and_sharpen_keep_the_size() {
        let img = solid(20, 10);
        let g = gray(&img).to_rgba8();
        let [r, gg, b, _] = g.get_pixel(5, 5).0;
        assert!(r == gg && gg == b);
        assert_eq!(blur(&img, 5.0).dimensions(), (20, 10));
        assert_eq!(sharpen(&img).dimensions(), (20, 10));
    }
}
