//! Blur: a Gaussian of radius (sigma) `blur`. The blur is our own separable fixed-point convolution
//! (`gaussian_blur_u8`), exact where libvips' is, and the same bytes on every CPU.

use image::DynamicImage;

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

#[cfg(test)]
mod tests {
    use image::{GenericImageView, Rgba, RgbaImage};

    use super::*;

    fn solid(w: u32, h: u32) -> DynamicImage {
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(w, h, Rgba([200, 100, 50, 255])))
    }

    #[test]
    fn the_blur_keeps_the_size() {
        assert_eq!(blur(solid(20, 10), 5.0).dimensions(), (20, 10));
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
