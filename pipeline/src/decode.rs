//! Decoding: identify the source format from its bytes, refuse images whose header announces more pixels
//! than allowed *before* any pixel memory is allocated, decode, and apply the EXIF orientation so every
//! later step works on the image as it is meant to be seen.
//!
//! JPEG can be shrunk on load: libjpeg-turbo scales the inverse DCT to 1/2, 1/4 or 1/8, so a photo that
//! is about to be resized to a fraction of its size is decoded at that fraction in a fraction of the time
//! and memory (what libvips, and so sharp, does). The caller says how far it may shrink (`decode_shrunk`);
//! everything else (other formats, CMYK JPEGs, a JPEG libjpeg-turbo refuses) decodes at full size through
//! the `image` crate, as before. AVIF is decoded by avif-decode (libaom, built from its bundled source).

use std::io::Cursor;

use image::{
    DynamicImage, GrayImage, ImageBuffer, ImageDecoder, ImageFormat, ImageReader, Limits, Luma, Rgb, RgbImage, Rgba,
    metadata::Orientation,
};

use crate::{
    PipelineError,
    geometry::Size,
    gif_frames::{self, MAX_GIF_FRAMES},
};

/// Source formats the pipeline decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Jpeg,
    Png,
    Webp,
    Gif,
    Tiff,
    Bmp,
    Avif,
}

impl SourceFormat {
    /// The format of an encoded image, from its magic bytes.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        if is_avif(bytes) {
            return Some(Self::Avif);
        }
        Some(match image::guess_format(bytes).ok()? {
            ImageFormat::Jpeg => Self::Jpeg,
            ImageFormat::Png => Self::Png,
            ImageFormat::WebP => Self::Webp,
            ImageFormat::Gif => Self::Gif,
            ImageFormat::Tiff => Self::Tiff,
            ImageFormat::Bmp => Self::Bmp,
            _ => return None,
        })
    }

    /// The `image` crate's name for the formats it decodes (all but AVIF, which has its own decoder).
    fn image_format(self) -> Option<ImageFormat> {
        Some(match self {
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Png => ImageFormat::Png,
            Self::Webp => ImageFormat::WebP,
            Self::Gif => ImageFormat::Gif,
            Self::Tiff => ImageFormat::Tiff,
            Self::Bmp => ImageFormat::Bmp,
            Self::Avif => return None,
        })
    }
}

/// An ISO-BMFF `ftyp` box whose major brand, or one of whose compatible brands, is `avif` (still image)
/// or `avis` (image sequence; its first frame is decoded).
fn is_avif(bytes: &[u8]) -> bool {
    if bytes.len() < 16 || &bytes[4..8] != b"ftyp" {
        return false;
    }
    let box_len = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let brands = &bytes[8..box_len.clamp(16, bytes.len())];
    // Major brand, minor version (skipped: it is not a brand), then the compatible brands.
    std::iter::once(&brands[..4])
        .chain(brands[8.min(brands.len())..].chunks_exact(4))
        .any(|brand| brand == b"avif" || brand == b"avis")
}

/// A decoded source.
pub struct Decoded {
    /// The pixels, upright (EXIF orientation applied). Smaller than `full` when shrunk on load.
    pub image: DynamicImage,
    pub format: SourceFormat,
    /// The upright size of the source at full resolution: what every geometry rule is computed from.
    pub full: Size,
}

impl Decoded {
    /// Whether the image was decoded below its full size.
    pub fn is_shrunk(&self) -> bool {
        Size::new(self.image.width(), self.image.height()) != self.full
    }
}

/// Decodes `bytes` at full size, refusing more than `max_pixels` pixels as announced by the header, and
/// returns the image upright (EXIF orientation applied).
pub fn decode(bytes: &[u8], max_pixels: u64) -> Result<(DynamicImage, SourceFormat), PipelineError> {
    let decoded = decode_shrunk(bytes, max_pixels, |_| 1)?;
    Ok((decoded.image, decoded.format))
}

/// Like `decode`, but a JPEG may be decoded at 1/n of its size, where n (1, 2, 4 or 8) is at most
/// `max_shrink(upright full size)`. Each side of the result is then `ceil(side / n)`.
pub fn decode_shrunk(
    bytes: &[u8],
    max_pixels: u64,
    max_shrink: impl FnOnce(Size) -> u32,
) -> Result<Decoded, PipelineError> {
    let format = SourceFormat::detect(bytes).ok_or(PipelineError::UnsupportedFormat)?;
    let Some(image_format) = format.image_format() else {
        return decode_avif(bytes, max_pixels);
    };
    if format == SourceFormat::Gif && gif_frames::count_frames(bytes, MAX_GIF_FRAMES)? > MAX_GIF_FRAMES {
        return Err(PipelineError::TooManyFrames { max_frames: MAX_GIF_FRAMES });
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), image_format);
    let mut limits = Limits::default();
    // Headroom for decoders' working buffers: 8 bytes per allowed pixel (RGBA16) plus 64 MiB.
    limits.max_alloc = Some(max_pixels.saturating_mul(8).saturating_add(64 << 20));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(PipelineError::decode)?;
    let (width, height) = decoder.dimensions();
    check_budget(width, height, max_pixels)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let full = upright(width, height, orientation);

    if format == SourceFormat::Jpeg {
        let shrink = match max_shrink(full) {
            8.. => 8,
            4..=7 => 4,
            2..=3 => 2,
            _ => 1,
        };
        // Anything libjpeg-turbo will not do (CMYK, a damaged file) falls through to the `image` crate
        // below, so what decoded before still decodes, and fails the way it failed before.
        if let Ok(mut image) = decode_jpeg_turbo(bytes, (width, height), shrink) {
            image.apply_orientation(orientation);
            return Ok(Decoded { image, format, full });
        }
    }
    let mut image = DynamicImage::from_decoder(decoder).map_err(PipelineError::decode)?;
    image.apply_orientation(orientation);
    Ok(Decoded { image, format, full })
}

pub(crate) fn check_budget(width: u32, height: u32, max_pixels: u64) -> Result<(), PipelineError> {
    if width == 0 || height == 0 {
        return Err(PipelineError::Decode("image has no pixels".into()));
    }
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(PipelineError::TooManyPixels { width, height, max_pixels });
    }
    Ok(())
}

/// The size once `orientation` is applied: the four orientations that turn by a quarter swap the sides.
fn upright(width: u32, height: u32, orientation: Orientation) -> Size {
    match orientation {
        Orientation::Rotate90 | Orientation::Rotate270 | Orientation::Rotate90FlipH | Orientation::Rotate270FlipH => {
            Size::new(height, width)
        }
        _ => Size::new(width, height),
    }
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
    let mut pixels = Vec::new();
    pixels.try_reserve_exact(len).map_err(|e| e.to_string())?;
    pixels.resize(len, 0u8);
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

/// AVIF: the container's sequence header gives the largest frame size, checked against the budget
/// before the AV1 decoder allocates anything. (HEIF's `irot`/`imir` transforms are not applied.)
fn decode_avif(bytes: &[u8], max_pixels: u64) -> Result<Decoded, PipelineError> {
    crate::isobmff::check_boxes(bytes).map_err(PipelineError::decode)?;
    let avif = avif_parse::read_avif(&mut &bytes[..]).map_err(PipelineError::decode)?;
    let meta = avif.primary_item_metadata().map_err(PipelineError::decode)?;
    check_budget(meta.max_frame_width.get(), meta.max_frame_height.get(), max_pixels)?;
    drop(avif);
    let decoded = avif_decode::Decoder::from_avif(bytes)
        .and_then(avif_decode::Decoder::to_image)
        .map_err(PipelineError::decode)?;
    let image = match decoded {
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
    .ok_or_else(|| PipelineError::Decode("the AVIF image has an impossible size".into()))?;
    // The decoded frame may be smaller than the sequence header's maximum, never larger.
    let full = Size::new(image.width(), image.height());
    Ok(Decoded { image, format: SourceFormat::Avif, full })
}

fn buffer<P: image::Pixel>(w: usize, h: usize, data: Vec<P::Subpixel>) -> Option<ImageBuffer<P, Vec<P::Subpixel>>> {
    ImageBuffer::from_raw(u32::try_from(w).ok()?, u32::try_from(h).ok()?, data)
}

#[cfg(test)]
mod tests {
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
