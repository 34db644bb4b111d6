//! Decoding: identify the source format from its bytes, refuse images whose header announces more pixels
//! than allowed *before* any pixel memory is allocated, decode, and apply the EXIF orientation so every
//! later step works on the image as it is meant to be seen.
//!
//! JPEG can be shrunk on load: libjpeg-turbo scales the inverse DCT to 1/2, 1/4 or 1/8, so a photo that
//! is about to be resized to a fraction of its size is decoded at that fraction in a fraction of the time
//! and memory (what libvips, and so sharp, does). The caller says how far it may shrink (`decode_shrunk`);
//! the common PNG (8 bits, not interlaced, gray or RGB with or without alpha) has a decoder of its own
//! (`png8`); everything else (other formats and layouts, CMYK JPEGs, a file either of those refuses)
//! decodes at full size through the `image` crate, as before. AVIF is decoded by avif-decode (libaom, built from its bundled source).

use std::io::Cursor;

use image::{
    DynamicImage, GrayImage, ImageBuffer, ImageDecoder, ImageFormat, ImageReader, Limits, Luma, Rgb, RgbImage, Rgba,
    metadata::Orientation,
};

use crate::{PipelineError, frames, geometry::Size, image_type::ImageType, render::RenderOptions};

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
    /// Every format the pipeline reads.
    pub const ALL: [Self; 7] = [Self::Jpeg, Self::Png, Self::Webp, Self::Gif, Self::Tiff, Self::Bmp, Self::Avif];

    pub fn image_type(self) -> ImageType {
        match self {
            Self::Jpeg => ImageType::Jpeg,
            Self::Png => ImageType::Png,
            Self::Webp => ImageType::Webp,
            Self::Gif => ImageType::Gif,
            Self::Tiff => ImageType::Tiff,
            Self::Bmp => ImageType::Bmp,
            Self::Avif => ImageType::Avif,
        }
    }

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
    let decoded = decode_shrunk(bytes, &RenderOptions { max_pixels, ..RenderOptions::default() }, |_| 1)?;
    Ok((decoded.image, decoded.format))
}

/// Like `decode`, within `limits`' source pixels and frames, but a JPEG may be decoded at 1/n of its size,
/// where n (1, 2, 4 or 8) is at most `max_shrink(upright full size)`. Each side of the result is then
/// `ceil(side / n)`.
pub fn decode_shrunk(
    bytes: &[u8],
    limits: &RenderOptions,
    max_shrink: impl FnOnce(Size) -> u32,
) -> Result<Decoded, PipelineError> {
    let max_pixels = limits.max_pixels;
    let format = SourceFormat::detect(bytes).ok_or(PipelineError::UnsupportedFormat)?;
    if format == SourceFormat::Avif {
        crate::isobmff::check_boxes(bytes).map_err(PipelineError::decode)?;
    }
    if frames::count(bytes, format, limits.max_frames)? > u64::from(limits.max_frames) {
        return Err(PipelineError::TooManyFrames { max_frames: limits.max_frames });
    }
    let Some(image_format) = format.image_format() else {
        return decode_avif(bytes, max_pixels);
    };
    if format == SourceFormat::Jpeg
        && let Some(decoded) = decode_jpeg_fast(bytes, max_pixels, max_shrink)?
    {
        return Ok(decoded);
    }
    if format == SourceFormat::Png
        && let Some(image) = crate::png8::decode(bytes, max_pixels)?
    {
        let full = Size::new(image.width(), image.height());
        return Ok(Decoded { image, format, full });
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

/// A JPEG through libjpeg-turbo, at 1/n of its size (n = 1, 2, 4 or 8, at most `max_shrink(upright full
/// size)`), its size from libjpeg-turbo's reading of the header and its orientation from `jpeg_orientation`.
/// Not through the `image` crate's decoder, which copies the whole file before reading a header (2.5 MB
/// for the 12 MP photo: a memcpy and ~600 page faults per render). `None` for anything libjpeg-turbo will
/// not do (CMYK, a damaged file): the `image` crate decodes that, or fails on it, as before.
fn decode_jpeg_fast(
    bytes: &[u8],
    max_pixels: u64,
    max_shrink: impl FnOnce(Size) -> u32,
) -> Result<Option<Decoded>, PipelineError> {
    let Ok(header) = turbojpeg::read_header(bytes) else { return Ok(None) };
    let (Ok(width), Ok(height)) = (u32::try_from(header.width), u32::try_from(header.height)) else {
        return Ok(None);
    };
    check_budget(width, height, max_pixels)?;
    let orientation = jpeg_orientation(bytes);
    let full = upright(width, height, orientation);
    let shrink = match max_shrink(full) {
        8.. => 8,
        4..=7 => 4,
        2..=3 => 2,
        _ => 1,
    };
    Ok(decode_jpeg_turbo(bytes, (width, height), shrink).ok().map(|mut image| {
        image.apply_orientation(orientation);
        Decoded { image, format: SourceFormat::Jpeg, full }
    }))
}

/// The EXIF orientation of a JPEG: the Orientation tag of the last `Exif` APP1 segment before the first
/// scan (as the `image` crate reads it), or no transformation when there is none or it cannot be read.
pub(crate) fn jpeg_orientation(bytes: &[u8]) -> Orientation {
    jpeg_exif(bytes).and_then(Orientation::from_exif_chunk).unwrap_or(Orientation::NoTransforms)
}

/// The TIFF data of the last `Exif` APP1 segment before the first scan, found by walking the segments'
/// lengths; `None` when there is none or the markers are damaged before one is found.
fn jpeg_exif(bytes: &[u8]) -> Option<&[u8]> {
    const SOS: u8 = 0xDA;
    const EOI: u8 = 0xD9;
    const APP1: u8 = 0xE1;
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let (mut pos, mut exif) = (2, None);
    loop {
        if *bytes.get(pos)? != 0xFF {
            return exif;
        }
        // Any number of 0xFF fill bytes may precede a marker.
        while *bytes.get(pos)? == 0xFF {
            pos += 1;
        }
        let marker = *bytes.get(pos)?;
        pos += 1;
        match marker {
            SOS | EOI => return exif,
            // Markers without a length: TEM, RSTn (and a stray SOI).
            0x01 | 0xD0..=0xD8 => continue,
            _ => {}
        }
        let length = usize::from(u16::from_be_bytes([*bytes.get(pos)?, *bytes.get(pos + 1)?]));
        let segment = bytes.get(pos + 2..pos + length.max(2))?;
        if marker == APP1
            && let Some(tiff) = segment.strip_prefix(b"Exif\0\0")
            && !tiff.is_empty()
        {
            exif = Some(tiff);
        }
        pos += length.max(2);
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

/// A zeroed buffer of `len` bytes, or `None` when the allocator refuses it (a decoder's pixels must not
/// abort the process).
pub(crate) fn zeroed(len: usize) -> Option<Vec<u8>> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).ok()?;
    buffer.resize(len, 0);
    Some(buffer)
}

/// AVIF: the container's sequence header gives the largest frame size, checked against the budget
/// before the AV1 decoder allocates anything. (HEIF's `irot`/`imir` transforms are not applied.)
fn decode_avif(bytes: &[u8], max_pixels: u64) -> Result<Decoded, PipelineError> {
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

    /// An APP1 `Exif` segment whose IFD0 holds one Orientation entry (big-endian TIFF).
    fn exif_segment(orientation: u16) -> Vec<u8> {
        let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
        tiff.extend_from_slice(&1u16.to_be_bytes());
        tiff.extend_from_slice(&0x0112u16.to_be_bytes());
        tiff.extend_from_slice(&3u16.to_be_bytes());
        tiff.extend_from_slice(&1u32.to_be_bytes());
        tiff.extend_from_slice(&orientation.to_be_bytes());
        tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        segment(0xE1, &[b"Exif\0\0".as_slice(), &tiff].concat())
    }

    fn segment(marker: u8, payload: &[u8]) -> Vec<u8> {
        [&[0xFF, marker][..], &((payload.len() + 2) as u16).to_be_bytes(), payload].concat()
    }

    /// `jpeg` with `segments` inserted right after SOI.
    fn with_segments(jpeg: &[u8], segments: &[Vec<u8>]) -> Vec<u8> {
        [&jpeg[..2], &segments.concat(), &jpeg[2..]].concat()
    }

    /// What the `image` crate's JPEG decoder reads, for comparison.
    fn image_crate_orientation(bytes: &[u8]) -> Orientation {
        ImageReader::with_format(Cursor::new(bytes), ImageFormat::Jpeg)
            .into_decoder()
            .and_then(|mut decoder| decoder.orientation())
            .unwrap_or(Orientation::NoTransforms)
    }

    #[test]
    fn the_jpeg_orientation_is_read_as_the_image_crate_reads_it() {
        let plain = crate::test_jpeg::photo(32, 24, 90);
        let jfif = segment(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        let xmp = segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0<x/>");
        let mut cases = vec![plain.clone()];
        for orientation in 1..=8 {
            cases.push(with_segments(&plain, &[exif_segment(orientation)]));
            // After other segments, with fill bytes before a marker.
            let mut filled = jfif.clone();
            filled.insert(0, 0xFF);
            cases.push(with_segments(&plain, &[filled, xmp.clone(), exif_segment(orientation)]));
        }
        // Two Exif segments: the last one counts. An Exif segment with nothing after its name, and an
        // orientation value out of range, count as none.
        cases.push(with_segments(&plain, &[exif_segment(6), exif_segment(3)]));
        cases.push(with_segments(&plain, &[segment(0xE1, b"Exif\0\0")]));
        cases.push(with_segments(&plain, &[exif_segment(9)]));
        for (i, case) in cases.iter().enumerate() {
            assert_eq!(jpeg_orientation(case), image_crate_orientation(case), "case {i}");
        }
        assert_eq!(jpeg_orientation(&cases[12]), Orientation::Rotate90);
        assert_eq!(jpeg_orientation(&cases[cases.len() - 3]), Orientation::Rotate180);
    }

    #[test]
    fn a_damaged_jpeg_has_no_orientation_and_no_panic() {
        let whole = with_segments(&crate::test_jpeg::photo(16, 16, 90), &[exif_segment(6)]);
        assert_eq!(jpeg_orientation(&whole), Orientation::Rotate90);
        for cut in 0..40 {
            assert_eq!(jpeg_orientation(&whole[..cut]), Orientation::NoTransforms, "cut at {cut}");
        }
        // A segment length of 0 or 1 (shorter than the length field itself) or running past the end.
        for length in [[0, 0], [0, 1], [0xFF, 0xFF]] {
            let mut bad = whole.clone();
            bad[4..6].copy_from_slice(&length);
            assert_eq!(jpeg_orientation(&bad), Orientation::NoTransforms, "length {length:?}");
        }
        assert_eq!(jpeg_orientation(b"\xFF\xD8\xFF\xFF\xFF"), Orientation::NoTransforms);
        assert_eq!(jpeg_orientation(b"\x89PNG"), Orientation::NoTransforms);
    }
}
