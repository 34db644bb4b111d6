//! Resampling: the Lanczos3 kernel every resize uses, and scaling an image to a size. A leaf below the
//! steps (`steps::resize`, the planar path) and the analyses (`gravity`, `facts`) that scale pictures.

use fast_image_resize::{Filter, FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::{DynamicImage, RgbaImage, imageops};

use crate::{PipelineError, geometry::Size};

/// Lanczos3, the resize of every path: fast_image_resize's own kernel (sinc(x)·sinc(x/3) on [-3, 3)),
/// computed by `lanczos3`.
pub(crate) fn lanczos3_resize() -> ResizeAlg {
    // A support of 3 is always valid; the library's Lanczos3 is the same kernel, should it not be.
    Filter::new("Lanczos3", lanczos3, 3.0)
        .map_or(ResizeAlg::Convolution(FilterType::Lanczos3), |f| ResizeAlg::Convolution(FilterType::Custom(f)))
}

/// sinc(x)·sinc(x/3) with one sine where the library's kernel takes two, and libm's sine, which leaves the
/// floating-point rounding mode alone where glibc's saves and restores it on every call: the resize
/// computes its weights anew for every render, and with glibc's two sines that was a tenth of a 2 MP
/// JPEG's render at saturation (`perf`). For a = πx/3 and s = sin a, sin 3a = s(3 − 4s²), so the product is
/// s²(3 − 4s²)/(3a²).
fn lanczos3(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    if !(-3.0..3.0).contains(&x) {
        return 0.0;
    }
    let a = x * (std::f64::consts::PI / 3.0);
    let s2 = libm::sin(a).powi(2);
    s2 * (3.0 - 4.0 * s2) / (3.0 * a * a)
}

/// An RGBA image scaled to `to` (Lanczos3), for analysis rather than output.
pub(crate) fn scale_rgba(image: &RgbaImage, to: Size) -> RgbaImage {
    let source = DynamicImage::ImageRgba8(image.clone());
    match scale(source, to) {
        Ok(DynamicImage::ImageRgba8(scaled)) => scaled,
        // The resizer takes RGBA8 to RGBA8; should it not, the nearest pixel of each is as good a sample.
        _ => imageops::resize(image, to.width.max(1), to.height.max(1), imageops::FilterType::Nearest),
    }
}

/// `image` scaled to `to` (Lanczos3, alpha-aware), 8-bit gray, RGB and RGBA in their own layout.
pub(crate) fn scale(image: DynamicImage, to: Size) -> Result<DynamicImage, PipelineError> {
    // fast_image_resize handles 8-bit gray, RGB and RGBA directly (read in place, no copy); anything else
    // goes through RGBA8.
    let source = match image {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => image,
        other => DynamicImage::ImageRgba8(other.to_rgba8()),
    };
    let mut target = DynamicImage::new(to.width, to.height, source.color());
    let options = ResizeOptions::new().resize_alg(lanczos3_resize());
    Resizer::new()
        .resize(&source, &mut target, &options)
        .map_err(|e| PipelineError::Internal(format!("resize failed: {e}")))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over the whole support and past it, on a grid of 2^-12 (every offset a resize of up to 4096×
    /// reduction samples lands near), the kernel is fast_image_resize's two-sine Lanczos3 to 1e-13: far
    /// below the 1/16384 steps its weights are quantised to.
    #[test]
    fn lanczos3_is_the_two_sine_kernel() {
        let sinc = |x: f64| if x == 0.0 { 1.0 } else { (x * std::f64::consts::PI).sin() / (x * std::f64::consts::PI) };
        for i in -(4 << 12)..=(4 << 12) {
            let x = f64::from(i) / f64::from(1 << 12);
            let reference = if (-3.0..3.0).contains(&x) { sinc(x) * sinc(x / 3.0) } else { 0.0 };
            assert!((lanczos3(x) - reference).abs() < 1e-13, "x = {x}: {} against {reference}", lanczos3(x));
        }
    }
}
