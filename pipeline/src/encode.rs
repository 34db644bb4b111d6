//! Encoding the finished image into the output format. JPEG has no alpha, so transparent pixels are
//! flattened onto black there (the same background every other empty area gets).
//!
//! JPEG goes through libjpeg-turbo (the `turbojpeg` crate) with the settings sharp uses by default (sharp
//! runs mozjpeg in its libjpeg-turbo-compatible profile): baseline, Huffman tables optimised per image,
//! the standard (Annex K) quantisation tables and 4:2:0 chroma. Gray images are written as one-channel
//! JPEGs, which look the same as a three-channel gray file and are smaller and faster.

use std::{borrow::Cow, io::Cursor};

use image::{DynamicImage, GrayImage, ImageFormat, RgbImage};

pub use crate::formats::OutputFormat;
use crate::{PipelineError, codecs::yuv::Yuv420};

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
        OutputFormat::Webp => crate::codecs::webp_yuv::encode(picture, quality),
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
        OutputFormat::Avif => crate::codecs::avif::encode(image, quality),
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
    let frame = crate::codecs::gif::palette::quantise(rgba)?.into_gif_frame(width, height)?;
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
mod tests;
