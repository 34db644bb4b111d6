//! Rotate: `rot`, clockwise degrees. Right angles turn the pixels exactly; any other angle grows the canvas
//! to the rotated bounding box, bilinearly sampled, with transparent corners.

use image::{DynamicImage, Rgba, RgbaImage};

use crate::{PipelineError, geometry::Size};

/// Rotates clockwise by `degrees` (0–359). Right angles are exact; other angles grow the canvas to the
/// rotated bounding box, bilinearly sampled, with transparent corners.
pub(crate) fn apply(image: DynamicImage, degrees: u16) -> DynamicImage {
    match degrees % 360 {
        0 => image,
        90 => image.rotate90(),
        180 => image.rotate180(),
        270 => image.rotate270(),
        other => DynamicImage::ImageRgba8(rotate_any(&image.to_rgba8(), f64::from(other))),
    }
}

/// The canvas the rotation makes of an `input` image: the rotated bounding box. A free rotation of a long
/// thin image is far larger than the image (64295×30 at 45° is 45,484² pixels): beyond `max_pixels` it is
/// refused before anything is allocated.
pub(crate) fn size(degrees: u16, input: Size, max_pixels: u64) -> Result<Size, PipelineError> {
    let (width, height) = rotated_size(input.width, input.height, degrees);
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(PipelineError::TooManyPixels { width, height, max_pixels });
    }
    Ok(Size::new(width, height))
}

fn rotated_size(width: u32, height: u32, degrees: u16) -> (u32, u32) {
    match degrees % 360 {
        0 | 180 => (width, height),
        90 | 270 => (height, width),
        other => {
            let (sin, cos) = f64::from(other).to_radians().sin_cos();
            let (w, h) = (f64::from(width), f64::from(height));
            let out_w = (w * cos.abs() + h * sin.abs()).round().max(1.0);
            let out_h = (w * sin.abs() + h * cos.abs()).round().max(1.0);
            (out_w as u32, out_h as u32)
        }
    }
}

fn rotate_any(source: &RgbaImage, degrees: f64) -> RgbaImage {
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (w, h) = (f64::from(source.width()), f64::from(source.height()));
    let (out_w, out_h) = rotated_size(source.width(), source.height(), degrees as u16);
    let (cx, cy, ocx, ocy) = (w / 2.0, h / 2.0, f64::from(out_w) / 2.0, f64::from(out_h) / 2.0);
    RgbaImage::from_fn(out_w, out_h, |x, y| {
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

#[cfg(test)]
mod tests {
    use image::GenericImageView;

    use super::*;

    fn solid(w: u32, h: u32) -> DynamicImage {
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(w, h, Rgba([200, 100, 50, 255])))
    }

    #[test]
    fn rotations() {
        assert_eq!(apply(solid(10, 4), 90).dimensions(), (4, 10));
        assert_eq!(apply(solid(10, 4), 180).dimensions(), (10, 4));
        let turned = apply(solid(100, 100), 45).to_rgba8();
        assert_eq!(turned.dimensions(), (141, 141));
        assert_eq!(turned.get_pixel(0, 0).0[3], 0, "corners are transparent");
        assert_eq!(turned.get_pixel(70, 70).0, [200, 100, 50, 255], "the middle keeps its colour");
        for degrees in [90, 45, 300] {
            let image = apply(solid(37, 11), degrees);
            assert_eq!(size(degrees, Size::new(37, 11), u64::MAX).unwrap(), Size::new(image.width(), image.height()));
        }
        assert!(matches!(size(45, Size::new(64_295, 30), 1 << 30), Err(PipelineError::TooManyPixels { .. })));
    }
}
