//! Encoding the finished image into the output format. JPEG has no alpha, so transparent pixels are
//! flattened onto black there (the same background every other empty area gets).
//!
//! JPEG goes through libjpeg-turbo (the `turbojpeg` crate) with the settings sharp uses by default (sharp
//! runs mozjpeg in its libjpeg-turbo-compatible profile): baseline, Huffman tables optimised per image,
//! the standard (Annex K) quantisation tables and 4:2:0 chroma. Gray images are written as one-channel
//! JPEGs, which look the same as a three-channel gray file and are smaller and faster.

use std::{borrow::Cow, io::Cursor};

use image::{DynamicImage, GrayImage, ImageFormat, RgbImage};

use crate::{PipelineError, image_type::ImageType, params::Format, yuv::Yuv420};

/// Formats the pipeline writes (`bmp` is never encoded: it means "the original").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    Jpeg,
    Png,
    Webp,
    Avif,
    Gif,
    Tiff,
}

impl OutputFormat {
    /// Every format the pipeline writes.
    pub const ALL: [Self; 6] = [Self::Jpeg, Self::Png, Self::Webp, Self::Avif, Self::Gif, Self::Tiff];

    pub fn image_type(self) -> ImageType {
        match self {
            Self::Jpeg => ImageType::Jpeg,
            Self::Png => ImageType::Png,
            Self::Webp => ImageType::Webp,
            Self::Avif => ImageType::Avif,
            Self::Gif => ImageType::Gif,
            Self::Tiff => ImageType::Tiff,
        }
    }

    /// The output format of an image format the pipeline writes (`None` for one it only reads).
    pub fn of(image_type: ImageType) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.image_type() == image_type)
    }

    pub fn mime(self) -> &'static str {
        self.image_type().info().mime
    }

    pub fn extension(self) -> &'static str {
        self.image_type().info().extension
    }

    /// The name users know it by, for messages.
    pub fn display_name(self) -> &'static str {
        self.image_type().info().display
    }

    /// The longest side the format can store, where it has a limit below `u32`.
    pub fn max_side(self) -> Option<u32> {
        self.image_type().info().max_side
    }

    /// Whether the format keeps an alpha channel.
    pub fn has_alpha(self) -> bool {
        self.image_type().info().alpha
    }

    /// Whether `q` applies.
    pub fn is_lossy(self) -> bool {
        self.image_type().info().lossy
    }

    /// The output format a requested format names; `None` for `auto` and `bmp`, which are decided
    /// elsewhere.
    pub fn from_requested(format: Format) -> Option<Self> {
        format.image_type().and_then(Self::of)
    }
}

/// An encoded image: what a render returns.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    pub format: OutputFormat,
    pub width: u32,
    pub height: u32,
}

/// RGB with transparent areas composited onto black; borrowed when the image already is 8-bit RGB.
fn flatten(image: &DynamicImage) -> Cow<'_, RgbImage> {
    if let DynamicImage::ImageRgb8(rgb) = image {
        return Cow::Borrowed(rgb);
    }
    if !image.color().has_alpha() {
        return Cow::Owned(image.to_rgb8());
    }
    let rgba = image.to_rgba8();
    let mut rgb = RgbImage::new(rgba.width(), rgba.height());
    for (out, px) in rgb.pixels_mut().zip(rgba.pixels()) {
        let [r, g, b, a] = px.0;
        out.0 = [premultiply(r, a), premultiply(g, a), premultiply(b, a)];
    }
    Cow::Owned(rgb)
}

fn premultiply(c: u8, a: u8) -> u8 {
    ((u16::from(c) * u16::from(a) + 127) / 255) as u8
}

/// The gray plane of a gray image (alpha flattened onto black), or `None` for a colour image.
fn gray_plane(image: &DynamicImage) -> Option<Cow<'_, GrayImage>> {
    match image {
        DynamicImage::ImageLuma8(gray) => Some(Cow::Borrowed(gray)),
        DynamicImage::ImageLuma16(_) => Some(Cow::Owned(image.to_luma8())),
        DynamicImage::ImageLumaA8(_) | DynamicImage::ImageLumaA16(_) => {
            let la = image.to_luma_alpha8();
            let pixels = la.pixels().map(|p| premultiply(p.0[0], p.0[1])).collect();
            GrayImage::from_raw(la.width(), la.height(), pixels).map(Cow::Owned)
        }
        _ => None,
    }
}

/// libjpeg-turbo's compressor with the settings every JPEG gets (the module's documentation).
fn jpeg_compressor(quality: u8, subsamp: turbojpeg::Subsamp) -> Result<turbojpeg::Compressor, PipelineError> {
    let mut compressor = turbojpeg::Compressor::new().map_err(PipelineError::internal)?;
    compressor.set_quality(i32::from(quality.clamp(1, 100))).map_err(PipelineError::internal)?;
    compressor.set_optimize(true).map_err(PipelineError::internal)?;
    compressor.set_progressive(false).map_err(PipelineError::internal)?;
    compressor.set_subsamp(subsamp).map_err(PipelineError::internal)?;
    Ok(compressor)
}

fn encode_jpeg(image: &DynamicImage, quality: u8) -> Result<Vec<u8>, PipelineError> {
    let gray = gray_plane(image);
    let rgb;
    let (pixels, width, height, format, subsamp) = match &gray {
        Some(gray) => {
            (gray.as_raw(), gray.width(), gray.height(), turbojpeg::PixelFormat::GRAY, turbojpeg::Subsamp::Gray)
        }
        None => {
            rgb = flatten(image);
            (rgb.as_raw(), rgb.width(), rgb.height(), turbojpeg::PixelFormat::RGB, turbojpeg::Subsamp::Sub2x2)
        }
    };
    let mut compressor = jpeg_compressor(quality, subsamp)?;
    let (width, height) = (width as usize, height as usize);
    let image = turbojpeg::Image { pixels: pixels.as_slice(), width, pitch: width * format.size(), height, format };
    compressor.compress_to_vec(image).map_err(PipelineError::internal)
}

/// Encodes a 4:2:0 picture straight from its planes as a JPEG or a WebP at `quality`, with the settings
/// `encode` uses for either: no conversion to RGB and back, and chroma as the planes hold it. Other
/// formats are not 4:2:0 here and are an internal error.
pub(crate) fn encode_yuv420(picture: &Yuv420<'_>, format: OutputFormat, quality: u8) -> Result<Vec<u8>, PipelineError> {
    check_size(format, picture.width, picture.height)?;
    let layout = || PipelineError::Internal("unexpected YUV plane layout".into());
    match format {
        OutputFormat::Jpeg => {
            picture.planes().ok_or_else(layout)?;
            let mut compressor = jpeg_compressor(quality, turbojpeg::Subsamp::Sub2x2)?;
            let (width, height) = (picture.width as usize, picture.height as usize);
            let image = turbojpeg::YuvImage {
                pixels: picture.pixels,
                width,
                align: 1,
                height,
                subsamp: turbojpeg::Subsamp::Sub2x2,
            };
            compressor.compress_yuv_to_vec(image).map_err(PipelineError::internal)
        }
        OutputFormat::Webp => crate::webp_yuv::encode(picture, quality),
        other => Err(PipelineError::Internal(format!("{} is not encoded from 4:2:0 planes", other.display_name()))),
    }
}

/// `OutputTooLarge` when `format` cannot store a `width × height` image.
pub(crate) fn check_size(format: OutputFormat, width: u32, height: u32) -> Result<(), PipelineError> {
    match format.max_side() {
        Some(max_side) if width > max_side || height > max_side => {
            Err(PipelineError::OutputTooLarge { format, width, height, max_side })
        }
        _ => Ok(()),
    }
}

/// Encodes `image` as `format`; `quality` (1–100) applies to the lossy formats. Every pixel layout the
/// pipeline can produce is accepted (`encodable`); an image larger than the format can store is the
/// request's error (`OutputTooLarge`), refused before the encoder sees it.
pub fn encode(image: &DynamicImage, format: OutputFormat, quality: u8) -> Result<Vec<u8>, PipelineError> {
    let quality = quality.clamp(1, 100);
    let (width, height) = (image.width(), image.height());
    check_size(format, width, height)?;
    let image = encodable(image, format);
    let image = image.as_ref();
    match format {
        OutputFormat::Jpeg => encode_jpeg(image, quality),
        OutputFormat::Webp => {
            // `encode_simple`, not `encode`, which unwraps libwebp's refusals into a panic.
            let encoded = if image.color().has_alpha() {
                let rgba = image.to_rgba8();
                webp::Encoder::from_rgba(rgba.as_raw(), rgba.width(), rgba.height())
                    .encode_simple(false, f32::from(quality))
            } else {
                let rgb = flatten(image);
                webp::Encoder::from_rgb(rgb.as_raw(), rgb.width(), rgb.height())
                    .encode_simple(false, f32::from(quality))
            };
            let encoded = encoded
                .map_err(|e| PipelineError::Internal(format!("WebP cannot encode a {width}x{height} image: {e:?}")))?;
            Ok(encoded.to_vec())
        }
        OutputFormat::Avif => crate::avif::encode(image, quality),
        OutputFormat::Png => write_with(image, ImageFormat::Png),
        OutputFormat::Gif => {
            encode_gif(image.as_rgba8().ok_or_else(|| PipelineError::Internal("a GIF is encoded from RGBA".into()))?)
        }
        OutputFormat::Tiff => write_with(image, ImageFormat::Tiff),
    }
}

/// `image` in a pixel layout `format`'s encoder accepts, borrowed when it already is one. The `image`
/// crate's PNG encoder takes 8- and 16-bit gray, gray + alpha, RGB and RGBA but no floats; its TIFF encoder
/// takes floats but no gray + alpha; its GIF encoder only RGBA8. JPEG, WebP and AVIF convert for themselves.
fn encodable(image: &DynamicImage, format: OutputFormat) -> Cow<'_, DynamicImage> {
    use DynamicImage as I;
    let converted = match (format, image) {
        (OutputFormat::Png, I::ImageRgb32F(_)) => I::ImageRgb16(image.to_rgb16()),
        (OutputFormat::Png, I::ImageRgba32F(_)) => I::ImageRgba16(image.to_rgba16()),
        (OutputFormat::Tiff, I::ImageLumaA8(_)) => I::ImageRgba8(image.to_rgba8()),
        (OutputFormat::Tiff, I::ImageLumaA16(_)) => I::ImageRgba16(image.to_rgba16()),
        (OutputFormat::Gif, I::ImageRgba8(_)) => return Cow::Borrowed(image),
        (OutputFormat::Gif, _) => I::ImageRgba8(image.to_rgba8()),
        _ => return Cow::Borrowed(image),
    };
    Cow::Owned(converted)
}

/// `rgba` as `encodable` made it.
fn encode_gif(rgba: &image::RgbaImage) -> Result<Vec<u8>, PipelineError> {
    let side = |n: u32| u16::try_from(n).map_err(PipelineError::internal);
    let (width, height) = (side(rgba.width())?, side(rgba.height())?);
    let frame = crate::gif_palette::quantise(rgba)?.into_gif_frame(width, height)?;
    let mut encoder = gif::Encoder::new(Vec::new(), width, height, &[]).map_err(PipelineError::internal)?;
    encoder.write_frame(&frame).map_err(PipelineError::internal)?;
    encoder.into_inner().map_err(PipelineError::internal)
}

fn write_with(image: &DynamicImage, format: ImageFormat) -> Result<Vec<u8>, PipelineError> {
    let mut out = Vec::new();
    image.write_to(&mut Cursor::new(&mut out), format).map_err(PipelineError::internal)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode::decode, source::SourceFormat};
    use image::RgbaImage;

    fn sample(alpha: bool) -> DynamicImage {
        let img = RgbaImage::from_fn(48, 32, |x, y| {
            image::Rgba([(x * 5) as u8, (y * 7) as u8, 90, if alpha { 128 } else { 255 }])
        });
        DynamicImage::ImageRgba8(img)
    }

    #[test]
    fn every_output_format_round_trips_its_size() {
        for format in [OutputFormat::Jpeg, OutputFormat::Png, OutputFormat::Webp, OutputFormat::Gif, OutputFormat::Tiff]
        {
            let bytes = encode(&sample(true), format, 80).unwrap();
            let (decoded, _) = decode(&bytes, 1 << 20).unwrap();
            assert_eq!((decoded.width(), decoded.height()), (48, 32), "{format:?}");
        }
        let avif = encode(&sample(false), OutputFormat::Avif, 60).unwrap();
        assert_eq!(&avif[4..12], b"ftypavif");
        assert_eq!(
            SourceFormat::detect(&encode(&sample(false), OutputFormat::Jpeg, 80).unwrap()),
            Some(SourceFormat::Jpeg)
        );
    }

    #[test]
    fn jpeg_flattens_transparency_onto_black() {
        let clear = DynamicImage::ImageRgba8(RgbaImage::from_pixel(16, 16, image::Rgba([255, 255, 255, 0])));
        let (decoded, _) = decode(&encode(&clear, OutputFormat::Jpeg, 90).unwrap(), 1 << 20).unwrap();
        assert!(decoded.to_rgb8().pixels().all(|p| p.0.iter().all(|&c| c < 8)));
    }

    #[test]
    fn quality_changes_the_size_of_lossy_output() {
        let image = sample(false);
        for format in [OutputFormat::Jpeg, OutputFormat::Webp] {
            let low = encode(&image, format, 10).unwrap().len();
            let high = encode(&image, format, 95).unwrap().len();
            assert!(low < high, "{format:?}: q10 {low} bytes, q95 {high} bytes");
        }
    }

    /// Found by the `decode` fuzz target: a 24×62991 gray JPEG asked for as `w=64&q=auto` (not enlarged, so
    /// still 62991 px tall) in WebP, whose sides stop at 16383 px. The webp crate's `encode` unwraps the
    /// encoder's refusal, which panicked; now it is refused before encoding, as the request's error (400).
    #[test]
    fn webp_beyond_its_size_limit_is_the_requests_error_not_a_panic() {
        let too_large = |e: &Result<Vec<u8>, PipelineError>| matches!(e, Err(e @ PipelineError::OutputTooLarge { max_side: 16_383, .. }) if e.is_client_error());
        let tall = DynamicImage::ImageLuma8(image::GrayImage::new(1, 16_384));
        assert!(too_large(&encode(&tall, OutputFormat::Webp, 80)));
        let wide = DynamicImage::ImageRgba8(RgbaImage::new(16_384, 1));
        assert!(too_large(&encode(&wide, OutputFormat::Webp, 80)));
        assert!(encode(&DynamicImage::ImageRgba8(RgbaImage::new(16_383, 1)), OutputFormat::Webp, 80).is_ok());

        const FUZZED: &[u8] =
            b"\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x50\x37\x00\x01\x00\x01\x00\x00\xff\xdb\x00\x43\x00\
          \x10\x0b\x0c\x0e\x0c\x0a\x10\x0e\x0d\x0e\x12\x11\x10\x13\x18\x28\x1a\x18\x16\x16\x18\x31\x23\x25\x1d\
          \x28\x3a\x33\x3d\x3c\x39\x33\x38\x37\x40\x48\x5c\x4e\x40\x44\x57\x45\x37\x38\x50\x6d\x51\x57\x5f\x62\
          \x67\x68\x67\x3e\x4d\x71\x79\x70\x64\x78\x5c\x65\x67\x63\xff\xc0\x00\x0b\x08\xf6\x0f\x00\x18\x01\x01\
          \x11\x00\xff\xc4\x00\x15\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x06\
          \xff\xc4\x00\x17\x10\x01\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x21\x31\
          \xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00\x94\x29\xb2\xa3\x05\x36\x54\x60\xa6\xca\x83\x89\x50\x4e\x47\
          \x0d\x0a\x1a\x0a\x65\x4f\xff\xd9";
        let transform = crate::Transform::from_query("w=64&q=auto").unwrap();
        let rendered = crate::render(
            FUZZED,
            &transform,
            crate::Target::Auto,
            crate::RenderOptions { max_pixels: 4_000_000, ..crate::RenderOptions::default() },
        );
        assert!(matches!(rendered, Err(PipelineError::OutputTooLarge { .. })), "{rendered:?}");
    }
}
