//! What a source is, read from its headers alone: its format (`SourceFormat`, from the magic bytes) and
//! its `Probe` (stored size, EXIF orientation, frame count, and a JPEG's layout). A render plans from the
//! probe, so every limit is checked and every path chosen before a pixel is decoded.

use std::io::Cursor;

use image::{ImageDecoder, ImageFormat, ImageReader, Limits, metadata::Orientation};
use turbojpeg::{Colorspace, Subsamp};

use shutterbox_model::MediaFormat;

use crate::{
    PipelineError, frames,
    geometry::Size,
    options::{RenderOptions, check_source_pixels},
    steps::colour::ToSrgb,
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
    /// HEIC/HEIF (libheif, the `heic` feature).
    #[cfg(feature = "heic")]
    Heic,
    JpegXl,
}

impl SourceFormat {
    /// Every format the pipeline reads.
    pub const ALL: &[Self] = &[
        Self::Jpeg,
        Self::Png,
        Self::Webp,
        Self::Gif,
        Self::Tiff,
        Self::Bmp,
        Self::Avif,
        #[cfg(feature = "heic")]
        Self::Heic,
        Self::JpegXl,
    ];

    pub fn media_format(self) -> MediaFormat {
        match self {
            Self::Jpeg => MediaFormat::Jpeg,
            Self::Png => MediaFormat::Png,
            Self::Webp => MediaFormat::Webp,
            Self::Gif => MediaFormat::Gif,
            Self::Tiff => MediaFormat::Tiff,
            Self::Bmp => MediaFormat::Bmp,
            Self::Avif => MediaFormat::Avif,
            #[cfg(feature = "heic")]
            Self::Heic => MediaFormat::Heic,
            Self::JpegXl => MediaFormat::JpegXl,
        }
    }

    /// The format of an encoded image, from its magic bytes or brands as the table of media formats has
    /// them (`MediaFormat::from_signature`): the formats sniffing types an upload as are the formats read.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        Self::of(MediaFormat::from_signature(bytes)?)
    }

    /// The source format of a media format the pipeline reads.
    pub fn of(format: MediaFormat) -> Option<Self> {
        Self::ALL.iter().copied().find(|source| source.media_format() == format)
    }

    /// The `image` crate's name for the formats read through it (TIFF, AVIF, HEIC and JPEG XL have
    /// decoders of their own).
    pub(crate) fn image_format(self) -> Option<ImageFormat> {
        Some(match self {
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Png => ImageFormat::Png,
            Self::Webp => ImageFormat::WebP,
            Self::Gif => ImageFormat::Gif,
            Self::Bmp => ImageFormat::Bmp,
            // Read by decoders of their own (`tiff`, `avif`, `jxl`, `heic`).
            Self::Tiff | Self::Avif | Self::JpegXl => return None,
            #[cfg(feature = "heic")]
            Self::Heic => return None,
        })
    }
}

/// The frames of `bytes` (1 for a still image), counting no further than `limit + 1`.
pub(crate) fn count_frames(bytes: &[u8], format: SourceFormat, limit: u32) -> Result<u64, PipelineError> {
    let limit = u64::from(limit);
    Ok(match format {
        SourceFormat::Gif => frames::count_gif(bytes, limit)?,
        SourceFormat::Webp => frames::count_webp(bytes, limit),
        SourceFormat::Png => frames::count_apng(bytes, limit),
        SourceFormat::Avif => crate::codecs::isobmff::sequence_frames(bytes),
        // HEIC and JPEG XL: the primary image, and an animated JPEG XL's first frame.
        #[cfg(feature = "heic")]
        SourceFormat::Heic => 1,
        SourceFormat::Jpeg | SourceFormat::Tiff | SourceFormat::Bmp | SourceFormat::JpegXl => 1,
    }
    .max(1))
}

/// What a source's headers say, read without decoding a pixel.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    pub format: SourceFormat,
    /// The size as stored, before the orientation turns it.
    pub stored: Size,
    pub orientation: Orientation,
    /// How many frames it has (1 for a still image), counted no further than the frame limit plus one.
    pub frames: u64,
    /// A JPEG libjpeg-turbo reads: what the planar path asks of its layout.
    pub jpeg: Option<JpegLayout>,
    /// An AVIF that libheif decodes rather than avif-decode (a grid, grey, or samples deeper than 8 bits), as
    /// its container read here says: decided once, so decoding does not parse the container again.
    pub libheif: bool,
    /// Its embedded colour profile, where it is not sRGB already (`crate::colour`).
    pub colour: Option<ToSrgb>,
}

/// What libjpeg-turbo's reading of a JPEG header says of its layout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JpegLayout {
    pub subsamp: Subsamp,
    pub colorspace: Colorspace,
    pub lossless: bool,
}

impl JpegLayout {
    /// A baseline 4:2:0 YCbCr JPEG: three planes, the chroma ones at half size.
    pub fn is_ycbcr_420(&self) -> bool {
        self.subsamp == Subsamp::Sub2x2 && self.colorspace == Colorspace::YCbCr && !self.lossless
    }
}

impl Probe {
    /// Reads `bytes`' headers, refusing within `options`' limits what is not a supported image, has more
    /// pixels than allowed, or more frames.
    pub fn read(bytes: &[u8], options: &RenderOptions) -> Result<Self, PipelineError> {
        crate::options::check_source_bytes(bytes.len() as u64, options.max_source_bytes)?;
        // What only decoding the whole file costs: a JPEG's scans, a PNG's texts after its image data. Not
        // part of `headers`, so facts read from a file's head agree with its whole file's.
        match SourceFormat::detect(bytes) {
            Some(SourceFormat::Jpeg) => check_scans(bytes)?,
            Some(SourceFormat::Png) => {
                crate::codecs::png_ancillary::check(bytes, crate::codecs::png_ancillary::Extent::Whole)?
            }
            _ => {}
        }
        let mut probe = Self::headers(bytes, options)?;
        probe.colour = embedded_profile(bytes, probe.format, options.max_pixels).and_then(|icc| ToSrgb::new(&icc));
        Ok(probe)
    }

    /// `read` without the colour profile.
    pub fn headers(bytes: &[u8], options: &RenderOptions) -> Result<Self, PipelineError> {
        let format = SourceFormat::detect(bytes).ok_or(PipelineError::UnsupportedFormat)?;
        match format {
            SourceFormat::Avif => crate::codecs::isobmff::check_boxes(bytes).map_err(PipelineError::decode)?,
            // What header readers inflate: the chunks before the image data (the ICC profile is among them).
            SourceFormat::Png => {
                crate::codecs::png_ancillary::check(bytes, crate::codecs::png_ancillary::Extent::BeforeImageData)?
            }
            _ => {}
        }
        let frames = count_frames(bytes, format, options.max_frames)?;
        if frames > u64::from(options.max_frames) {
            return Err(PipelineError::TooManyFrames { max_frames: options.max_frames });
        }
        let mut probe = match format {
            SourceFormat::Avif => avif_header(bytes, options.max_pixels)?,
            SourceFormat::Jpeg => match jpeg_header(bytes) {
                Some(probe) => probe,
                None => image_header(bytes, format, options.max_pixels)?,
            },
            SourceFormat::Gif => gif_header(bytes)?,
            #[cfg(feature = "heic")]
            SourceFormat::Heic => Probe::upright_only(format, crate::codecs::heic::header(bytes, options.max_pixels)?),
            SourceFormat::JpegXl => Probe::upright_only(format, crate::codecs::jxl::header(bytes, options.max_pixels)?),
            SourceFormat::Tiff => {
                let (stored, orientation) = crate::codecs::tiff::header(bytes, options.max_pixels)?;
                Probe { format, stored, orientation, frames: 1, jpeg: None, libheif: false, colour: None }
            }
            _ => image_header(bytes, format, options.max_pixels)?,
        };
        probe.frames = frames;
        check_source_pixels(probe.stored.width, probe.stored.height, options.max_pixels)?;
        Ok(probe)
    }

    /// A source whose decoder applies its orientation itself (HEIF's `irot`/`imir`/`clap`, JPEG XL's
    /// orientation), so it is stored upright at `size`.
    fn upright_only(format: SourceFormat, size: Size) -> Self {
        Probe {
            format,
            stored: size,
            orientation: Orientation::NoTransforms,
            frames: 1,
            jpeg: None,
            libheif: false,
            colour: None,
        }
    }

    /// The size once the orientation is applied: what every geometry rule is computed from.
    pub fn upright(&self) -> Size {
        crate::steps::orient_size(self.orientation, self.stored)
    }
}

/// The most scans a JPEG may have: a progressive JPEG has about ten; each scan is another pass over every
/// coefficient, so a file that repeats one 20,000 times costs minutes to decode.
pub(crate) const MAX_JPEG_SCANS: usize = 500;

/// Refuses a JPEG with more than `MAX_JPEG_SCANS` start-of-scan markers. In entropy-coded data a 0xFF is
/// always followed by 0x00 or a restart marker, so every `FF DA` in the file is a scan's start (an EXIF
/// thumbnail's scans count too, which only errs on the safe side).
fn check_scans(bytes: &[u8]) -> Result<(), PipelineError> {
    let scans = memchr::memmem::find_iter(bytes, &[0xFF, 0xDA]).take(MAX_JPEG_SCANS + 1).count();
    if scans > MAX_JPEG_SCANS {
        return Err(PipelineError::TooManyScans { max_scans: MAX_JPEG_SCANS });
    }
    Ok(())
}

/// A JPEG as libjpeg-turbo reads its header, its orientation from `jpeg_orientation`; `None` for a header
/// libjpeg-turbo does not read (the `image` crate is asked then).
fn jpeg_header(bytes: &[u8]) -> Option<Probe> {
    let header = turbojpeg::read_header(bytes).ok()?;
    let stored = Size::new(u32::try_from(header.width).ok()?, u32::try_from(header.height).ok()?);
    Some(Probe {
        format: SourceFormat::Jpeg,
        stored,
        orientation: jpeg_orientation(bytes),
        frames: 1,
        jpeg: Some(JpegLayout { subsamp: header.subsamp, colorspace: header.colorspace, lossless: header.is_lossless }),
        libheif: false,
        colour: None,
    })
}

/// A GIF: its canvas size (`frames::gif_canvas_size`), read here rather than by the gif crate, which refuses
/// an extension it does not know before the first frame where browsers skip it.
fn gif_header(bytes: &[u8]) -> Result<Probe, PipelineError> {
    let (width, height) = crate::frames::gif_canvas_size(bytes)
        .ok_or_else(|| PipelineError::Decode("the GIF's header is cut short".into()))?;
    let stored = Size::new(u32::from(width), u32::from(height));
    Ok(Probe {
        format: SourceFormat::Gif,
        stored,
        orientation: Orientation::NoTransforms,
        frames: 1,
        jpeg: None,
        libheif: false,
        colour: None,
    })
}

/// The `image` crate's reading of a header: size and orientation.
fn image_header(bytes: &[u8], format: SourceFormat, max_pixels: u64) -> Result<Probe, PipelineError> {
    let image_format = format.image_format().ok_or(PipelineError::UnsupportedFormat)?;
    // Reading headers allocates no pixels: the bound is the headroom alone, whatever the pixel budget.
    let mut decoder = image_reader(bytes, image_format, 0).into_decoder().map_err(PipelineError::decode)?;
    let (width, height) = decoder.dimensions();
    check_source_pixels(width, height, max_pixels)?;
    let orientation = match decoder.orientation() {
        Ok(orientation) if orientation != Orientation::NoTransforms => Some(orientation),
        _ => decoder.exif_metadata().ok().flatten().as_deref().and_then(exif_orientation),
    }
    .unwrap_or(Orientation::NoTransforms);
    Ok(Probe {
        format,
        stored: Size::new(width, height),
        orientation,
        frames: 1,
        jpeg: None,
        libheif: false,
        colour: None,
    })
}

/// The orientation an EXIF block gives, with or without the `Exif\0\0` header a JPEG's APP1 segment puts
/// before it: some writers (Pillow among them) keep that header in a WebP's EXIF chunk, where the `image`
/// crate does not look past it and libvips does.
fn exif_orientation(exif: &[u8]) -> Option<Orientation> {
    Orientation::from_exif_chunk(exif.strip_prefix(b"Exif\0\0").unwrap_or(exif))
}

/// An `image` crate reader of `bytes` as `format`, its allocations bounded for a `max_pixels` image: 8 bytes
/// per allowed pixel (RGBA16) plus 64 MiB of headroom for decoders' working buffers.
pub(crate) fn image_reader(bytes: &[u8], format: ImageFormat, max_pixels: u64) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(decoder_limits(max_pixels));
    reader
}

/// The `image` crate's allocation bound for decoding a `max_pixels` image (`image_reader`).
pub(crate) fn decoder_limits(max_pixels: u64) -> Limits {
    let mut limits = Limits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(8).saturating_add(64 << 20));
    limits
}

/// AVIF: the container's sequence header gives the largest frame size, which the primary item's `clap`,
/// `irot` and `imir` (`heif`) make the size delivered; its EXIF orientation is never applied on top. The
/// pixel limit holds for the coded size, which is what the decoder allocates. A grid, which avif-parse
/// does not read, is read by libheif (`heic`), which gives the size delivered itself.
fn avif_header(bytes: &[u8], max_pixels: u64) -> Result<Probe, PipelineError> {
    crate::codecs::heif::check_item_sizes(bytes, max_pixels)?;
    let (stored, misread) = match avif_parse::read_avif(&mut &bytes[..]) {
        Ok(avif) => {
            let meta = avif.primary_item_metadata().map_err(PipelineError::decode)?;
            let coded = Size::new(meta.max_frame_width.get(), meta.max_frame_height.get());
            check_source_pixels(coded.width, coded.height, max_pixels)?;
            // The alpha item is decoded at its own coded size, whatever the colour item's: a 64×64 picture
            // with an 8192×8192 alpha plane must be held to the budget too.
            if let Some(alpha) = avif.alpha_item_metadata().map_err(PipelineError::decode)? {
                let size = Size::new(alpha.max_frame_width.get(), alpha.max_frame_height.get());
                check_source_pixels(size.width, size.height, max_pixels)?;
            }
            (
                crate::codecs::heif::transformed_size(&crate::codecs::heif::primary_transforms(bytes), coded)?,
                meta.bit_depth > 8 || meta.monochrome,
            )
        }
        #[cfg(feature = "heic")]
        Err(error) if avif_is_grid(&error) => (crate::codecs::heic::header(bytes, max_pixels)?, true),
        Err(error) => return Err(PipelineError::decode(error)),
    };
    // avif-decode 1.0 misreads grey (monochrome AV1) and high-bit-depth alpha: libheif decodes those, where
    // it is linked.
    let libheif = misread && cfg!(feature = "heic");
    Ok(Probe {
        format: SourceFormat::Avif,
        stored,
        orientation: Orientation::NoTransforms,
        frames: 1,
        jpeg: None,
        libheif,
        colour: None,
    })
}

/// Whether reading `bytes` runs libheif (and libde265, C that parses the file): a HEIC, and an AVIF that
/// avif-parse cannot read (a grid) or avif-decode misreads (grey, deeper than 8 bits), as `Probe` decides.
/// Told from the container alone, in Rust, so that the caller can run what reads it elsewhere.
pub fn parsed_by_libheif(bytes: &[u8]) -> bool {
    match SourceFormat::detect(bytes) {
        #[cfg(feature = "heic")]
        Some(SourceFormat::Heic) => true,
        #[cfg(feature = "heic")]
        Some(SourceFormat::Avif) => {
            // A container the checks refuse is refused before any decoder runs.
            crate::codecs::isobmff::check_boxes(bytes).is_ok()
                && match avif_parse::read_avif(&mut &bytes[..]) {
                    Ok(avif) => avif.primary_item_metadata().is_ok_and(|meta| meta.bit_depth > 8 || meta.monochrome),
                    Err(_) => true,
                }
        }
        _ => false,
    }
}

/// Whether avif-parse refused an AVIF for being a grid, which libheif reads.
#[cfg(feature = "heic")]
fn avif_is_grid(error: &avif_parse::Error) -> bool {
    matches!(error, avif_parse::Error::Unsupported(what) if what.contains("Grid"))
}

/// The EXIF orientation of a JPEG: the Orientation tag of the last `Exif` APP1 segment before the first
/// scan (as the `image` crate reads it), or no transformation when there is none or it cannot be read.
pub(crate) fn jpeg_orientation(bytes: &[u8]) -> Orientation {
    jpeg_exif(bytes).and_then(Orientation::from_exif_chunk).unwrap_or(Orientation::NoTransforms)
}

/// The TIFF data of the last `Exif` APP1 segment before the first scan; `None` when there is none or the
/// markers are damaged before one is found.
fn jpeg_exif(bytes: &[u8]) -> Option<&[u8]> {
    const APP1: u8 = 0xE1;
    crate::codecs::jpeg_markers::segments(bytes)
        .filter(|segment| segment.marker == APP1)
        .filter_map(|segment| segment.payload.strip_prefix(b"Exif\0\0").filter(|tiff| !tiff.is_empty()))
        .last()
}

/// The ICC profile of a JPEG: its `ICC_PROFILE` APP2 segments before the first scan, each a numbered
/// chunk of the profile (1 to the count every chunk states), joined in their numbers' order. `None` when
/// there is none, or a chunk is missing, repeated or numbered past the count.
pub(crate) fn jpeg_icc_profile(bytes: &[u8]) -> Option<Vec<u8>> {
    const APP2: u8 = 0xE2;
    let mut chunks: Vec<(u8, u8, &[u8])> = crate::codecs::jpeg_markers::segments(bytes)
        .filter(|segment| segment.marker == APP2)
        .filter_map(|segment| {
            let rest = segment.payload.strip_prefix(b"ICC_PROFILE\0")?;
            Some((*rest.first()?, *rest.get(1)?, rest.get(2..)?))
        })
        .collect();
    let count = chunks.first()?.1;
    chunks.sort_by_key(|&(number, _, _)| number);
    let complete = chunks.len() == usize::from(count)
        && chunks.iter().enumerate().all(|(i, &(number, total, _))| usize::from(number) == i + 1 && total == count);
    complete.then(|| chunks.iter().flat_map(|&(_, _, data)| data).copied().collect())
}

/// The ICC profile `bytes` embed where their format keeps one: a JPEG's `ICC_PROFILE` APP2 segments, a
/// PNG's `iCCP` chunk, a WebP's `ICCP` chunk, a TIFF's tag 34675, an AVIF's or HEIC's `colr` property of
/// the primary image. JPEG XL is rendered to sRGB by its decoder (`crate::codecs::jxl`); GIF and BMP carry none
/// that libvips reads.
fn embedded_profile(bytes: &[u8], format: SourceFormat, max_pixels: u64) -> Option<Vec<u8>> {
    match format {
        SourceFormat::Jpeg => jpeg_icc_profile(bytes),
        SourceFormat::Png | SourceFormat::Webp => {
            use image::ImageDecoder;
            let mut decoder = image_reader(bytes, format.image_format()?, max_pixels).into_decoder().ok()?;
            decoder.icc_profile().ok().flatten()
        }
        SourceFormat::Tiff => crate::codecs::tiff::icc_profile(bytes, max_pixels),
        SourceFormat::Avif => crate::codecs::heif::primary_icc_profile(bytes),
        #[cfg(feature = "heic")]
        SourceFormat::Heic => crate::codecs::heif::primary_icc_profile(bytes),
        SourceFormat::Gif | SourceFormat::Bmp | SourceFormat::JpegXl => None,
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use image::{ImageFormat, ImageReader};

    use super::*;

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
        let plain = crate::codecs::test_jpeg::photo(32, 24, 90);
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
        let whole = with_segments(&crate::codecs::test_jpeg::photo(16, 16, 90), &[exif_segment(6)]);
        assert_eq!(jpeg_orientation(&whole), Orientation::Rotate90);
        // Cut before its Exif segment ends (at byte 38): none. (Cut anywhere before the scan, the file is
        // refused for its header anyway.)
        for cut in 0..38 {
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
