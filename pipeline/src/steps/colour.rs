//! Colour: what a source's embedded ICC profile says its pixel values mean, and their conversion to sRGB,
//! which every output is (none carries a profile). libvips, and so sharp, does the same by default: an
//! image with a profile is transformed from it to sRGB with the perceptual intent, after shrink-on-load.
//! A phone's photo needs it most: an iPhone writes Display P3, whose values shown as sRGB look faded.
//!
//! The profile is read with the headers (`source::embedded_profile`, where each format keeps it) and prepared
//! once (`ToSrgb::new`); a profile that is sRGB already, or near enough that no 8-bit value moves by more
//! than one step, prepares to nothing, so the common case costs nothing. What moxcms (pure Rust, BSD-3-Clause
//! OR Apache-2.0) cannot use is ignored, as libvips ignores a profile it cannot read. Colour conversion
//! here covers RGB and grey pictures with a profile of their own kind; a CMYK profile is not used (the
//! decoders have made RGB of the ink already).

use std::sync::Arc;

use image::{DynamicImage, ImageBuffer, Pixel};
use moxcms::{ColorProfile, DataColorSpace, Layout, RenderingIntent, TransformExecutor, TransformOptions};

/// A source's embedded profile, ready to turn its pixels into sRGB ones.
#[derive(Clone)]
pub struct ToSrgb(Arc<Conversion>);

struct Conversion {
    profile: ColorProfile,
    /// The profile's own colour space: RGB or grey (nothing else is prepared).
    grey: bool,
}

impl ToSrgb {
    /// The conversion from `icc` to sRGB; `None` when there is nothing to convert: a profile that cannot
    /// be read or used, one for neither RGB nor grey, or one that is sRGB already.
    pub(crate) fn new(icc: &[u8]) -> Option<Self> {
        let profile = ColorProfile::new_from_slice(icc).ok()?;
        let grey = match profile.color_space {
            DataColorSpace::Rgb => false,
            DataColorSpace::Gray => true,
            _ => return None,
        };
        let conversion = Conversion { profile, grey };
        // Every combination of five levels a channel: an sRGB profile (most cameras') maps each to itself.
        let levels = [0u8, 64, 128, 192, 255];
        let samples: Vec<u8> = if grey {
            levels.to_vec()
        } else {
            (0..levels.len().pow(3)).flat_map(|i| [levels[i / 25], levels[i / 5 % 5], levels[i % 5]]).collect()
        };
        let layout = if grey { Layout::Gray } else { Layout::Rgb };
        let executor = conversion.executor_8(layout)?;
        let mut converted = vec![0; samples.len()];
        executor.transform(&samples, &mut converted).ok()?;
        let unchanged = samples.iter().zip(&converted).all(|(a, b)| a.abs_diff(*b) <= 1);
        (!unchanged).then(|| Self(Arc::new(conversion)))
    }

    /// `image` in sRGB: an RGB(A) picture through an RGB profile, a grey one through a grey profile, 8-,
    /// 16-bit or float; any other pairing (a grey picture with an RGB profile) is left as it is.
    pub(crate) fn apply(&self, image: DynamicImage) -> DynamicImage {
        let conversion = &*self.0;
        use DynamicImage as D;
        match (image, conversion.grey) {
            (D::ImageRgb8(buffer), false) => D::ImageRgb8(convert(conversion, buffer, Layout::Rgb)),
            (D::ImageRgba8(buffer), false) => D::ImageRgba8(convert(conversion, buffer, Layout::Rgba)),
            (D::ImageRgb16(buffer), false) => D::ImageRgb16(convert(conversion, buffer, Layout::Rgb)),
            (D::ImageRgba16(buffer), false) => D::ImageRgba16(convert(conversion, buffer, Layout::Rgba)),
            (D::ImageRgb32F(buffer), false) => D::ImageRgb32F(convert(conversion, buffer, Layout::Rgb)),
            (D::ImageRgba32F(buffer), false) => D::ImageRgba32F(convert(conversion, buffer, Layout::Rgba)),
            (D::ImageLuma8(buffer), true) => D::ImageLuma8(convert(conversion, buffer, Layout::Gray)),
            (D::ImageLumaA8(buffer), true) => D::ImageLumaA8(convert(conversion, buffer, Layout::GrayAlpha)),
            (D::ImageLuma16(buffer), true) => D::ImageLuma16(convert(conversion, buffer, Layout::Gray)),
            (D::ImageLumaA16(buffer), true) => D::ImageLumaA16(convert(conversion, buffer, Layout::GrayAlpha)),
            (image, _) => image,
        }
    }
}

impl std::fmt::Debug for ToSrgb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.grey { "ToSrgb(grey profile)" } else { "ToSrgb(RGB profile)" })
    }
}

/// Two conversions are the same step when they are the same prepared profile.
impl PartialEq for ToSrgb {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

type Executor<T> = Arc<dyn TransformExecutor<T> + Send + Sync>;

impl Conversion {
    /// sRGB of the profile's kind: RGB, or grey with sRGB's tone curve.
    fn destination(&self) -> ColorProfile {
        let srgb = ColorProfile::new_srgb();
        if !self.grey {
            return srgb;
        }
        let mut grey = ColorProfile::new_gray_with_gamma(2.2);
        grey.gray_trc = srgb.red_trc;
        grey
    }

    fn options() -> TransformOptions {
        TransformOptions { rendering_intent: RenderingIntent::Perceptual, ..TransformOptions::default() }
    }

    fn executor_8(&self, layout: Layout) -> Option<Executor<u8>> {
        self.profile.create_transform_8bit(layout, &self.destination(), layout, Self::options()).ok()
    }

    fn executor_16(&self, layout: Layout) -> Option<Executor<u16>> {
        self.profile.create_transform_16bit(layout, &self.destination(), layout, Self::options()).ok()
    }

    fn executor_f32(&self, layout: Layout) -> Option<Executor<f32>> {
        self.profile.create_transform_f32(layout, &self.destination(), layout, Self::options()).ok()
    }
}

/// A sample type moxcms converts: its executor for a layout.
trait Sample: Copy + Default {
    fn executor(conversion: &Conversion, layout: Layout) -> Option<Executor<Self>>;
}

impl Sample for u8 {
    fn executor(conversion: &Conversion, layout: Layout) -> Option<Executor<Self>> {
        conversion.executor_8(layout)
    }
}

impl Sample for u16 {
    fn executor(conversion: &Conversion, layout: Layout) -> Option<Executor<Self>> {
        conversion.executor_16(layout)
    }
}

impl Sample for f32 {
    fn executor(conversion: &Conversion, layout: Layout) -> Option<Executor<Self>> {
        conversion.executor_f32(layout)
    }
}

/// `buffer` through `conversion` as `layout`; unchanged when there is no executor for it or it fails.
fn convert<P, T>(conversion: &Conversion, buffer: ImageBuffer<P, Vec<T>>, layout: Layout) -> ImageBuffer<P, Vec<T>>
where
    P: Pixel<Subpixel = T>,
    T: Sample,
{
    let Some(executor) = T::executor(conversion, layout) else { return buffer };
    let (width, height) = buffer.dimensions();
    let mut converted = vec![T::default(); buffer.as_raw().len()];
    if executor.transform(buffer.as_raw(), &mut converted).is_err() {
        return buffer;
    }
    ImageBuffer::from_raw(width, height, converted).unwrap_or(buffer)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use image::{GrayImage, Luma, Rgb, RgbImage, Rgba, RgbaImage};
    use moxcms::ColorProfile;

    use super::ToSrgb;

    fn icc(profile: &ColorProfile) -> Vec<u8> {
        profile.encode().unwrap()
    }

    #[test]
    fn an_srgb_profile_prepares_to_nothing() {
        assert!(ToSrgb::new(&icc(&ColorProfile::new_srgb())).is_none());
        assert!(ToSrgb::new(b"not a profile").is_none());
        assert!(ToSrgb::new(&[]).is_none());
    }

    #[test]
    fn display_p3_colours_become_the_srgb_colours_that_show_them() {
        let to_srgb = ToSrgb::new(&icc(&ColorProfile::new_display_p3())).expect("P3 is not sRGB");
        let red = to_srgb.apply(RgbImage::from_pixel(1, 1, Rgb([255, 0, 0])).into()).to_rgb8();
        // P3's red lies outside sRGB: clipped to sRGB's red.
        assert_eq!(red.get_pixel(0, 0).0, [255, 0, 0]);
        // A P3 mid-tone red is a stronger sRGB red: (128, 51, 51) through P3's and sRGB's published
        // RGB-to-XYZ matrices (both D65) and tone curves is (138.7, 44.2, 48.0).
        let muted = to_srgb.apply(RgbImage::from_pixel(1, 1, Rgb([128, 51, 51])).into()).to_rgb8();
        let [r, g, b] = muted.get_pixel(0, 0).0;
        assert!(r.abs_diff(139) <= 2 && g.abs_diff(44) <= 2 && b.abs_diff(48) <= 2, "{:?}", [r, g, b]);
        // Alpha is carried; 16-bit pictures are converted at their depth.
        let rgba = to_srgb.apply(RgbaImage::from_pixel(1, 1, Rgba([128, 51, 51, 77])).into()).to_rgba8();
        assert_eq!(rgba.get_pixel(0, 0).0, [r, g, b, 77]);
        let deep = to_srgb.apply(image::DynamicImage::ImageRgb16(image::ImageBuffer::from_pixel(
            1,
            1,
            Rgb([32896u16, 13107, 13107]),
        )));
        let [r16, ..] = deep.as_rgb16().unwrap().get_pixel(0, 0).0;
        assert!(r16 > 32896, "{r16}");
    }

    #[test]
    fn a_grey_profile_keeps_a_grey_picture_grey() {
        let to_srgb = ToSrgb::new(&icc(&ColorProfile::new_gray_with_gamma(1.0))).expect("linear grey is not sRGB");
        let out = to_srgb.apply(GrayImage::from_pixel(1, 1, Luma([64])).into());
        // Linear 0.25 is sRGB's 137.
        let value = out.as_luma8().expect("still grey").get_pixel(0, 0).0[0];
        assert!((135..=139).contains(&value), "{value}");
        // An RGB picture with a grey profile is left alone.
        let rgb = RgbImage::from_pixel(1, 1, Rgb([10, 20, 30]));
        assert_eq!(to_srgb.apply(rgb.clone().into()).to_rgb8(), rgb);
    }
}
