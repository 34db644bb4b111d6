//! The image operations, each a pure function of an image: crop, rotate, resize (following a
//! `ResizePlan`), blur, sharpen, gray, border. Empty areas (a non-right-angle rotation, `contain`
//! letterboxing) are transparent; an output format without alpha later flattens them to black.
//!
//! Operations that can take their image by value do, so a 12-megapixel source is never copied just to
//! be replaced. Resizes all go through fast_image_resize (SIMD convolution); the Gaussian blur is our own
//! separable fixed-point convolution (see `gaussian_blur_u8`).

use image::{DynamicImage, GenericImageView, Rgba, RgbaImage, imageops};

use crate::{
    PipelineError,
    geometry::{Rect, Size},
    params::{Border, Crop},
    resample::scale,
    resize_plan::ResizePlan,
};

/// `crop=x,y,width,height` in (oriented) source pixels; the rectangle must lie inside the image.
pub fn crop(image: &DynamicImage, crop: Crop) -> Result<DynamicImage, PipelineError> {
    let (width, height) = image.dimensions();
    if !crop.lies_inside(width, height) {
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

/// The canvas `rotate` makes of a `width`×`height` image: the rotated bounding box. A free rotation of a
/// long thin image is far larger than the image (64295×30 at 45° is 45,484² pixels), so the caller checks it
/// against the pixel budget before rotating.
pub fn rotated_size(width: u32, height: u32, degrees: u16) -> (u32, u32) {
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

/// Resizes following `plan`: scale (Lanczos3, alpha-aware), then `cover`'s crop or `contain`'s padding.
/// The image may be smaller than `plan.source` (shrunk on load): it is scaled to `plan.scaled` all the same.
pub fn resize(image: DynamicImage, plan: &ResizePlan) -> Result<DynamicImage, PipelineError> {
    resize_choosing(image, plan).map(|(image, _)| image)
}

/// `resize`, and the crop's window where the scaled pixels chose it (`gravity=attention|entropy`), so an
/// animation's later frames can take the first frame's.
pub(crate) fn resize_choosing(
    image: DynamicImage,
    plan: &ResizePlan,
) -> Result<(DynamicImage, Option<Rect>), PipelineError> {
    let mut image =
        if plan.scaled == Size::new(image.width(), image.height()) { image } else { scale(image, plan.scaled)? };
    let mut chosen = None;
    if let Some(mut rect) = plan.crop {
        if let Some(interest) = plan.interest {
            rect = crate::gravity::choose(&image, Size::new(rect.width, rect.height), interest);
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

/// Above this sigma the exact kernel (6σ + 1 taps per pass) costs more than the box approximation.
const MAX_EXACT_BLUR_SIGMA: f32 = 24.0;

/// Gaussian blur of radius (sigma) `sigma`. 8-bit images (the usual case) get an exact separable
/// Gaussian (kernel to 3σ, edges extended), each channel on its own, as libvips does; very large sigmas
/// and deeper images use `image`'s box-blur approximation, whose cost does not grow with sigma.
pub fn blur(image: DynamicImage, sigma: f32) -> DynamicImage {
    if sigma > MAX_EXACT_BLUR_SIGMA {
        return image.fast_blur(sigma);
    }
    let (width, height) = (image.width() as usize, image.height() as usize);
    match image {
        DynamicImage::ImageLuma8(mut img) => {
            gaussian_blur_u8(&mut img, width, height, 1, sigma);
            DynamicImage::ImageLuma8(img)
        }
        DynamicImage::ImageLumaA8(mut img) => {
            gaussian_blur_u8(&mut img, width, height, 2, sigma);
            DynamicImage::ImageLumaA8(img)
        }
        DynamicImage::ImageRgb8(mut img) => {
            gaussian_blur_u8(&mut img, width, height, 3, sigma);
            DynamicImage::ImageRgb8(img)
        }
        DynamicImage::ImageRgba8(mut img) => {
            gaussian_blur_u8(&mut img, width, height, 4, sigma);
            DynamicImage::ImageRgba8(img)
        }
        other => other.fast_blur(sigma),
    }
}

/// Weights of the Gaussian kernel scale so that they sum to exactly `1 << KERNEL_BITS`.
const KERNEL_BITS: u32 = 14;
/// Fractional bits kept between the two passes (the intermediate rows are u16: 255 << 8 fits).
const MID_BITS: u32 = 8;

/// The integer kernel, `2r + 1` taps with r = ceil(3σ), summing to exactly `1 << KERNEL_BITS` (the
/// rounding remainder goes to the centre tap, so a flat area stays exactly flat).
fn gaussian_kernel(sigma: f32) -> Vec<u32> {
    let sigma = f64::from(sigma.max(0.01));
    let radius = (3.0 * sigma).ceil().max(1.0) as usize;
    let weights: Vec<f64> = (0..=2 * radius)
        .map(|i| {
            let d = i as f64 - radius as f64;
            (-(d * d) / (2.0 * sigma * sigma)).exp()
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let scale = f64::from(1u32 << KERNEL_BITS) / total;
    let mut kernel: Vec<u32> = weights.iter().map(|w| (w * scale).round() as u32).collect();
    let sum: u32 = kernel.iter().sum();
    let centre = &mut kernel[radius];
    *centre = (*centre + (1 << KERNEL_BITS)).saturating_sub(sum);
    kernel
}

/// In-place separable Gaussian on an interleaved 8-bit image of `channels` channels.
///
/// Rows are blurred horizontally into a ring of `2r + 1` u16 rows (8 fractional bits), and each output
/// row is the vertical sum over the ring, written back over the source row it replaces: the source row
/// `y` is no longer needed by then (its horizontal pass came earlier), so the only extra memory is the
/// ring, whatever the image size. Integer arithmetic throughout, so every CPU gives the same bytes.
fn gaussian_blur_u8(pixels: &mut [u8], width: usize, height: usize, channels: usize, sigma: f32) {
    if width == 0 || height == 0 {
        return;
    }
    let kernel = gaussian_kernel(sigma);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { blur_avx2(pixels, width, height, channels, &kernel) };
        return;
    }
    blur_generic(pixels, width, height, channels, &kernel);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blur_avx2(pixels: &mut [u8], width: usize, height: usize, channels: usize, kernel: &[u32]) {
    // The same code as the portable path, compiled with AVX2 so the row loops vectorise 8 lanes wide.
    blur_generic(pixels, width, height, channels, kernel);
}

#[inline(always)]
fn blur_generic(pixels: &mut [u8], width: usize, height: usize, channels: usize, kernel: &[u32]) {
    let radius = kernel.len() / 2;
    let row_len = width * channels;
    let ring_rows = kernel.len().min(height);
    let mut ring = vec![0u16; ring_rows * row_len];
    // One source row, widened to u16 and extended by `radius` pixels of its edge values on each side.
    let mut padded = vec![0u16; (width + 2 * radius) * channels];
    let mut acc = vec![0u32; row_len];
    let mut next_row = 0; // the next source row to blur horizontally into the ring

    for y in 0..height {
        // The vertical window of row y reaches source row y + r (clamped): blur rows up to it.
        let last_needed = (y + radius).min(height - 1);
        while next_row <= last_needed {
            let src = &pixels[next_row * row_len..][..row_len];
            let slot = next_row % ring_rows;
            horizontal_pass(src, &mut ring[slot * row_len..][..row_len], &mut padded, &mut acc, channels, kernel);
            next_row += 1;
        }
        acc.fill(0);
        for (k, &weight) in kernel.iter().enumerate() {
            let source_row = (y + k).saturating_sub(radius).min(height - 1);
            let mid = &ring[(source_row % ring_rows) * row_len..][..row_len];
            for (a, &m) in acc.iter_mut().zip(mid) {
                *a += weight * u32::from(m);
            }
        }
        let round = 1u32 << (KERNEL_BITS + MID_BITS - 1);
        for (out, &a) in pixels[y * row_len..][..row_len].iter_mut().zip(&acc) {
            *out = ((a + round) >> (KERNEL_BITS + MID_BITS)) as u8;
        }
    }
}

#[inline(always)]
fn horizontal_pass(src: &[u8], out: &mut [u16], padded: &mut [u16], acc: &mut [u32], channels: usize, kernel: &[u32]) {
    let radius = kernel.len() / 2;
    let row_len = src.len();
    let (left, rest) = padded.split_at_mut(radius * channels);
    let (middle, right) = rest.split_at_mut(row_len);
    for (p, &s) in middle.iter_mut().zip(src) {
        *p = u16::from(s);
    }
    for (i, p) in left.iter_mut().enumerate() {
        *p = u16::from(src[i % channels]);
    }
    for (i, p) in right.iter_mut().enumerate() {
        *p = u16::from(src[row_len - channels + i % channels]);
    }
    acc.fill(0);
    for (k, &weight) in kernel.iter().enumerate() {
        let shifted = &padded[k * channels..][..row_len];
        for (a, &p) in acc.iter_mut().zip(shifted) {
            *a += weight * u32::from(p);
        }
    }
    let round = 1u32 << (KERNEL_BITS - MID_BITS - 1);
    for (o, &a) in out.iter_mut().zip(acc.iter()) {
        *o = ((a + round) >> (KERNEL_BITS - MID_BITS)) as u16;
    }
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
    use crate::{params::Fit, resize_plan::plan_resize};

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
        assert_eq!(blur(img.clone(), 5.0).dimensions(), (20, 10));
        assert_eq!(sharpen(&img).dimensions(), (20, 10));
    }

    /// The separable Gaussian in f64 with extended edges, the blur's definition.
    fn reference_blur(src: &[u8], w: usize, h: usize, c: usize, sigma: f32) -> Vec<f64> {
        let kernel: Vec<f64> =
            gaussian_kernel(sigma).iter().map(|&k| f64::from(k) / f64::from(1u32 << KERNEL_BITS)).collect();
        let r = kernel.len() / 2;
        let at = |v: usize, k: usize, n: usize| (v + k).saturating_sub(r).min(n - 1);
        let mut mid = vec![0f64; src.len()];
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    mid[(y * w + x) * c + ch] = kernel
                        .iter()
                        .enumerate()
                        .map(|(k, wk)| wk * f64::from(src[(y * w + at(x, k, w)) * c + ch]))
                        .sum();
                }
            }
        }
        let mut out = vec![0f64; src.len()];
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    out[(y * w + x) * c + ch] =
                        kernel.iter().enumerate().map(|(k, wk)| wk * mid[(at(y, k, h) * w + x) * c + ch]).sum();
                }
            }
        }
        out
    }

    #[test]
    fn the_blur_is_a_gaussian() {
        for sigma in [0.3, 1.0, 2.5, 7.0] {
            let kernel = gaussian_kernel(sigma);
            assert_eq!(kernel.iter().sum::<u32>(), 1 << KERNEL_BITS);
            assert_eq!(kernel.len(), 2 * (3.0 * sigma).ceil() as usize + 1);
        }
        let mut state = 7u32;
        for (w, h, c, sigma) in [(37, 23, 3, 2.0), (5, 40, 1, 4.0), (64, 3, 4, 1.2), (1, 1, 2, 3.0)] {
            let src: Vec<u8> = (0..w * h * c)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (state >> 23) as u8
                })
                .collect();
            let mut fast = src.clone();
            gaussian_blur_u8(&mut fast, w, h, c, sigma);
            let reference = reference_blur(&src, w, h, c, sigma);
            for (i, (&f, &r)) in fast.iter().zip(&reference).enumerate() {
                assert!((f64::from(f) - r).abs() <= 0.75, "{w}x{h}x{c} sigma {sigma}, sample {i}: {f} vs {r:.2}");
            }
        }
        let flat = blur(solid(50, 30), 3.0).to_rgba8();
        assert!(flat.pixels().all(|p| p.0 == [200, 100, 50, 255]), "a flat image stays flat");
    }
}
