//! Decoding a probed source (`crate::source::Probe`) into its pixels as stored; the EXIF orientation is the
//! render's first step, not the decoder's.
//!
//! JPEG can be shrunk on load: libjpeg-turbo scales the inverse DCT to 1/2, 1/4 or 1/8, so a photo that
//! is about to be resized to a fraction of its size is decoded at that fraction in a fraction of the time
//! and memory (what libvips, and so sharp, does). The plan says how far (`RenderPlan::shrink`); the common
//! PNG (8 bits, not interlaced, gray or RGB with or without alpha) has a decoder of its own (`png8`);
//! everything else (other formats and layouts, CMYK JPEGs, a file either of those refuses) decodes at full
//! size through the `image` crate. AVIF is decoded by avif-decode (libaom, built from its bundled source),
//! HEIC by libheif (`heic`), JPEG XL by jxl-oxide (`jxl`).
//! An animation's frames are `crate::render::animation`'s.

use image::{DynamicImage, GrayImage, ImageBuffer, Luma, Rgb, RgbImage, Rgba};

use crate::{
    PipelineError,
    options::{RenderOptions, zeroed},
    source::{Probe, SourceFormat, image_reader},
};

/// Decodes `bytes` at full size, refusing more than `max_pixels` pixels as announced by the header, and
/// returns the image upright (EXIF orientation applied) and in sRGB (its colour profile applied) with its
/// format.
pub fn decode(bytes: &[u8], max_pixels: u64) -> Result<(DynamicImage, SourceFormat), PipelineError> {
    let probe = Probe::read(bytes, &RenderOptions { max_pixels, ..RenderOptions::default() })?;
    let mut image = decode_pixels(bytes, &probe, 1, max_pixels)?;
    image.apply_orientation(probe.orientation);
    if let Some(conversion) = &probe.colour {
        image = conversion.apply(image);
    }
    Ok((image, probe.format))
}

/// The pixels of `probe`'s source as stored (not turned by its orientation); a JPEG at 1/`shrink` of its
/// size (1, 2, 4 or 8; each side `ceil(side / shrink)`), where libjpeg-turbo decodes it.
pub(crate) fn decode_pixels(
    bytes: &[u8],
    probe: &Probe,
    shrink: u32,
    max_pixels: u64,
) -> Result<DynamicImage, PipelineError> {
    let image_format = match probe.format {
        SourceFormat::Avif => return decode_avif(bytes, probe, max_pixels),
        #[cfg(feature = "heic")]
        SourceFormat::Heic => return crate::codecs::heic::decode(bytes, max_pixels),
        SourceFormat::JpegXl => return crate::codecs::jxl::decode(bytes, max_pixels),
        SourceFormat::Tiff => return crate::codecs::tiff::decode(bytes, max_pixels),
        _ => probe.format.image_format().ok_or(PipelineError::UnsupportedFormat)?,
    };
    if probe.jpeg.is_some()
        && let Ok(image) = decode_jpeg_turbo(bytes, (probe.stored.width, probe.stored.height), shrink as usize)
    {
        return Ok(image);
    }
    if probe.format == SourceFormat::Png
        && let Some(image) = crate::codecs::png8::decode(bytes, max_pixels)?
    {
        return Ok(image);
    }
    if probe.format == SourceFormat::Gif {
        // The first frame on the canvas, read as an animation's frames are.
        let first = crate::codecs::gif::canvas::GifCanvas::new(bytes, max_pixels)?.next();
        let first = first.ok_or_else(|| PipelineError::Decode("the GIF has no image".into()))??;
        return Ok(DynamicImage::ImageRgba8(first.pixels));
    }
    let decoder = image_reader(bytes, image_format, max_pixels).into_decoder().map_err(PipelineError::decode)?;
    DynamicImage::from_decoder(decoder).map_err(PipelineError::decode)
}

/// libjpeg-turbo decode at 1/`shrink` (1, 2, 4 or 8) of `(width, height)`, the size the header check
/// was made for, to 8-bit gray or RGB. CMYK/YCCK are left to the `image` crate (an error here).
fn decode_jpeg_turbo(bytes: &[u8], (width, height): (u32, u32), shrink: usize) -> Result<DynamicImage, String> {
    use turbojpeg::{Colorspace, Decompressor, Image, PixelFormat, ScalingFactor};
    let mut decompressor = Decompressor::new().map_err(|e| e.to_string())?;
    let header = decompressor.read_header(bytes).map_err(|e| e.to_string())?;
    if (header.width, header.height) != (width as usize, height as usize) {
        return Err("the headers disagree".into());
    }
    let (format, channels) = match header.colorspace {
        Colorspace::Gray => (PixelFormat::GRAY, 1),
        Colorspace::YCbCr | Colorspace::RGB => (PixelFormat::RGB, 3),
        _ => return Err("colorspace left to the image crate".into()),
    };
    // Lossless JPEGs have no DCT to scale.
    let factor = if header.is_lossless || shrink <= 1 { ScalingFactor::ONE } else { ScalingFactor::new(1, shrink) };
    decompressor.set_scaling_factor(factor).map_err(|e| e.to_string())?;
    let scaled = header.scaled(factor);
    let (w, h) = (scaled.width, scaled.height);
    let len = w.checked_mul(h).and_then(|n| n.checked_mul(channels)).ok_or("image too large")?;
    let mut pixels = zeroed(len).ok_or("no memory for the pixels")?;
    let out = Image { pixels: &mut pixels[..], width: w, pitch: w * channels, height: h, format };
    decompressor.decompress(bytes, out).map_err(|e| e.to_string())?;
    let (w, h) = (u32::try_from(w).map_err(|e| e.to_string())?, u32::try_from(h).map_err(|e| e.to_string())?);
    let image = if channels == 1 {
        GrayImage::from_raw(w, h, pixels).map(DynamicImage::ImageLuma8)
    } else {
        RgbImage::from_raw(w, h, pixels).map(DynamicImage::ImageRgb8)
    };
    image.ok_or_else(|| "buffer size mismatch".into())
}

/// AVIF, its size already checked from the container's sequence header (`Probe`), so the AV1 decoder
/// allocates nothing beyond the budget; then cropped, turned and mirrored as its container says (`heif`).
/// What the probe found avif-decode gets wrong or refuses (`Probe::libheif`: grids, samples deeper than 8
/// bits) goes to libheif instead, which applies the container's transforms itself.
#[cfg_attr(not(feature = "heic"), allow(unused_variables))]
fn decode_avif(bytes: &[u8], probe: &Probe, max_pixels: u64) -> Result<DynamicImage, PipelineError> {
    if probe.libheif {
        #[cfg(feature = "heic")]
        return crate::codecs::heic::decode(bytes, max_pixels);
    }
    let coded = decode_avif_coded(bytes)?;
    crate::codecs::heif::apply(&crate::codecs::heif::primary_transforms(bytes), coded)
}

/// The AVIF's primary image as coded.
fn decode_avif_coded(bytes: &[u8]) -> Result<DynamicImage, PipelineError> {
    let decoded = avif_decode::Decoder::from_avif(bytes)
        .and_then(avif_decode::Decoder::to_image)
        .map_err(PipelineError::decode)?;
    match decoded {
        avif_decode::Image::Rgb8(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Rgb<u8>>(w, h, buf.into_iter().flat_map(|p| [p.r, p.g, p.b]).collect())
                .map(DynamicImage::ImageRgb8)
        }
        avif_decode::Image::Rgba8(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Rgba<u8>>(w, h, buf.into_iter().flat_map(|p| [p.r, p.g, p.b, p.a]).collect())
                .map(DynamicImage::ImageRgba8)
        }
        avif_decode::Image::Gray8(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Luma<u8>>(w, h, buf.into_iter().map(|p| p.value()).collect()).map(DynamicImage::ImageLuma8)
        }
        avif_decode::Image::Rgb16(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Rgb<u16>>(w, h, buf.into_iter().flat_map(|p| [p.r, p.g, p.b]).collect())
                .map(DynamicImage::ImageRgb16)
        }
        avif_decode::Image::Rgba16(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Rgba<u16>>(w, h, buf.into_iter().flat_map(|p| [p.r, p.g, p.b, p.a]).collect())
                .map(DynamicImage::ImageRgba16)
        }
        avif_decode::Image::Gray16(img) => {
            let (buf, w, h) = img.into_contiguous_buf();
            buffer::<Luma<u16>>(w, h, buf.into_iter().map(|p| p.value()).collect()).map(DynamicImage::ImageLuma16)
        }
    }
    .ok_or_else(|| PipelineError::Decode("the AVIF image has an impossible size".into()))
}

fn buffer<P: image::Pixel>(w: usize, h: usize, data: Vec<P::Subpixel>) -> Option<ImageBuffer<P, Vec<P::Subpixel>>> {
    ImageBuffer::from_raw(u32::try_from(w).ok()?, u32::try_from(h).ok()?, data)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use image::ImageFormat;

    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        DynamicImage::new_rgba8(width, height).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
    }

    #[test]
    fn decodes_within_the_pixel_budget() {
        let (image, format) = decode(&png(40, 30), 1200).unwrap();
        assert_eq!((image.width(), image.height(), format), (40, 30, SourceFormat::Png));
        let err = decode(&png(40, 30), 1199).unwrap_err();
        assert!(matches!(err, PipelineError::TooManyPixels { width: 40, height: 30, .. }));
    }

    #[test]
    fn a_lying_header_is_refused_before_decoding() {
        // A PNG header claiming 100000 x 100000 pixels, with no pixel data at all.
        let mut bomb = png(1, 1);
        bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let err = decode(&bomb, 50_000_000).unwrap_err();
        assert!(matches!(err, PipelineError::TooManyPixels { .. } | PipelineError::Decode(_)), "{err:?}");
    }

    #[test]
    fn garbage_and_truncated_images_are_decode_errors() {
        assert!(matches!(decode(b"not an image", 100), Err(PipelineError::UnsupportedFormat)));
        assert!(matches!(decode(b"", 100), Err(PipelineError::UnsupportedFormat)));
        let whole = png(64, 64);
        for cut in [8, 20, 40, whole.len() - 13] {
            assert!(decode(&whole[..cut], 1 << 20).is_err(), "cut at {cut}");
        }
    }
}
