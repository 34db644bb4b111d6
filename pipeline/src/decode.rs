//! Decoding: identify the source format from its bytes, refuse images whose header announces more pixels
//! than allowed *before* any pixel memory is allocated, decode, and apply the EXIF orientation so every
//! later step works on the image as it is meant to be seen.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use crate::PipelineError;

/// Source formats the pipeline decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Jpeg,
    Png,
    Webp,
    Gif,
    Tiff,
    Bmp,
}

impl SourceFormat {
    /// The format of an encoded image, from its magic bytes.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
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

    fn image_format(self) -> ImageFormat {
        match self {
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Png => ImageFormat::Png,
            Self::Webp => ImageFormat::WebP,
            Self::Gif => ImageFormat::Gif,
            Self::Tiff => ImageFormat::Tiff,
            Self::Bmp => ImageFormat::Bmp,
        }
    }
}

/// Decodes `bytes`, refusing more than `max_pixels` pixels as announced by the header, and returns the
/// image upright (EXIF orientation applied).
pub fn decode(bytes: &[u8], max_pixels: u64) -> Result<(DynamicImage, SourceFormat), PipelineError> {
    let format = SourceFormat::detect(bytes).ok_or(PipelineError::UnsupportedFormat)?;
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.image_format());
    let mut limits = Limits::default();
    // Headroom for decoders' working buffers: 8 bytes per allowed pixel (RGBA16) plus 64 MiB.
    limits.max_alloc = Some(max_pixels.saturating_mul(8).saturating_add(64 << 20));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(PipelineError::decode)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(PipelineError::Decode("image has no pixels".into()));
    }
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(PipelineError::TooManyPixels { width, height, max_pixels });
    }
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(PipelineError::decode)?;
    image.apply_orientation(orientation);
    Ok((image, format))
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
