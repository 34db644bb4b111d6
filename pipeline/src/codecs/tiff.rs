//! TIFF as libvips reads it: the first page, through the `tiff` crate directly. The `image` crate's TIFF
//! adapter refuses every layout but 8/16-bit grey and RGB(A) and 32-bit float RGB(A): 1-, 2- and 4-bit
//! grey, CMYK, signed and 32-bit samples, 16-bit floats, extra samples. Here each layout's samples become
//! 8- or 16-bit grey or RGB, with alpha where libvips sees one (an extra sample after the colour ones, as
//! libvips takes it whatever `ExtraSamples` says), the values as libvips gives them where it gives a
//! picture: unsigned samples kept (32-bit ones scaled to 16), signed ones clipped at 0, floats as 0–1
//! (RGB linear light, as libvips' scRGB; grey as it is stored), CMYK as ink.

use std::io::Cursor;

use image::{
    DynamicImage, GrayAlphaImage, GrayImage, ImageBuffer, Luma, LumaA, Rgb, RgbImage, Rgba, RgbaImage,
    metadata::Orientation,
};
use tiff::{
    ColorType,
    decoder::{Decoder, DecodingResult, Limits, ifd::Value},
    tags::Tag,
};

use crate::{PipelineError, geometry::Size, options::check_source_pixels};

mod logluv;

/// A decoder of the first page, its buffers bounded for a `max_pixels` image of up to 16 bytes a pixel
/// (RGBA in 32-bit floats) and the page's size checked before anything is read.
type PageDecoder<'a> = Decoder<Cursor<&'a [u8]>>;

fn open(bytes: &[u8], max_pixels: u64) -> Result<(PageDecoder<'_>, Size), PipelineError> {
    let mut limits = Limits::default();
    let budget = usize::try_from(max_pixels.saturating_mul(16).saturating_add(64 << 20)).unwrap_or(usize::MAX);
    limits.decoding_buffer_size = budget;
    limits.intermediate_buffer_size = budget;
    let mut decoder = Decoder::new(Cursor::new(bytes)).map_err(PipelineError::decode)?.with_limits(limits);
    let (width, height) = decoder.dimensions().map_err(PipelineError::decode)?;
    check_source_pixels(width, height, max_pixels)?;
    Ok((decoder, Size::new(width, height)))
}

/// The first page's size as stored and its orientation (TIFF tag 274).
pub(crate) fn header(bytes: &[u8], max_pixels: u64) -> Result<(Size, Orientation), PipelineError> {
    let (mut decoder, size) = open(bytes, max_pixels)?;
    let orientation = decoder
        .find_tag_unsigned::<u8>(Tag::Orientation)
        .ok()
        .flatten()
        .and_then(Orientation::from_exif)
        .unwrap_or(Orientation::NoTransforms);
    Ok((size, orientation))
}

/// Whether the first page decodes with an alpha channel (`decode`): a sample after the colour ones, as
/// libvips takes it, except in a palette or LogL/LogLuv page, which decode without one.
pub(crate) fn has_alpha(bytes: &[u8], max_pixels: u64) -> Result<bool, PipelineError> {
    const LOG_L: u16 = 32844;
    const LOG_LUV: u16 = 32845;
    let (mut decoder, _) = open(bytes, max_pixels)?;
    let photometric = decoder.find_tag_unsigned::<u16>(Tag::PhotometricInterpretation).ok().flatten();
    if matches!(photometric, Some(LOG_L | LOG_LUV)) {
        return Ok(false);
    }
    let color = decoder.colortype().map_err(PipelineError::decode)?;
    let samples = samples_per_pixel(&mut decoder, color);
    Ok(Layout::of(color).is_some_and(|layout| usize::from(samples) > layout.shape().0))
}

/// The samples a pixel has: the colour type's, or more where SamplesPerPixel says so (the colour type
/// leaves out an extra sample that is not marked alpha).
fn samples_per_pixel(decoder: &mut PageDecoder<'_>, color: ColorType) -> u16 {
    let samples = decoder.find_tag_unsigned::<u16>(Tag::SamplesPerPixel).ok().flatten();
    samples.map_or(samples_of(color), |n| n.max(samples_of(color)))
}

/// The first page's ICC profile (tag 34675), if it has one.
pub(crate) fn icc_profile(bytes: &[u8], max_pixels: u64) -> Option<Vec<u8>> {
    let (mut decoder, _) = open(bytes, max_pixels).ok()?;
    decoder.get_tag_u8_vec(Tag::IccProfile).ok()
}

/// The first page's pixels as stored (its orientation is the render's first step).
pub(crate) fn decode(bytes: &[u8], max_pixels: u64) -> Result<DynamicImage, PipelineError> {
    let (mut decoder, size) = open(bytes, max_pixels)?;
    if let Some(image) = logluv::decode(&mut decoder, bytes, size)? {
        return Ok(image);
    }
    let color = decoder.colortype().map_err(PipelineError::decode)?;
    let samples = usize::from(samples_per_pixel(&mut decoder, color));
    let ycbcr = matches!(color, ColorType::YCbCr(_)).then(|| YCbCr::of(&mut decoder));
    if let Some(ycbcr) = ycbcr
        && let Some(image) = subsampled_ycbcr(&mut decoder, bytes, size, ycbcr)?
    {
        return Ok(image);
    }
    // ExtraSamples 1: the colour samples are premultiplied by the alpha, which libvips undoes.
    let premultiplied =
        decoder.find_tag_unsigned_vec::<u16>(Tag::ExtraSamples).ok().flatten().is_some_and(|v| v.first() == Some(&1));
    let bits = color.bit_depth();
    let mut data = DecodingResult::U8(Vec::new());
    let layout = decoder.read_image_to_buffer(&mut data).map_err(PipelineError::decode)?;
    let (width, height) = (size.width as usize, size.height as usize);
    let planar = layout.planes > 1;
    let values = if bits < 8 {
        let DecodingResult::U8(packed) = data else {
            return Err(PipelineError::Decode(format!("{bits}-bit samples that are not bytes")));
        };
        if planar {
            return Err(PipelineError::Decode(format!("planar TIFF of {bits}-bit samples is not supported")));
        }
        let palette = matches!(color, ColorType::Palette(_));
        Values::Narrow(unpack(&packed, width * samples, height, bits, !palette)?)
    } else {
        Values::of(data)
    };
    // Planes (all of one sample, then all of the next) interleaved into pixels.
    let mut values = if planar { values.interleaved(width * height, samples)? } else { values };
    if let (Some(ycbcr), Values::Narrow(v)) = (ycbcr, &mut values) {
        v.chunks_exact_mut(samples).for_each(|px| ycbcr.to_rgb(px));
    }
    let expected = width * height * samples;
    if values.len() < expected {
        return Err(PipelineError::Decode("the TIFF page holds fewer samples than its size".into()));
    }
    if let ColorType::Palette(bits) = color {
        let map = decoder.get_tag_u16_vec(Tag::ColorMap).map_err(PipelineError::decode)?;
        return through_palette(&values, &map, bits, size);
    }
    // An extra sample after the colour ones is alpha, as libvips takes it.
    let layout = Layout::of(color)
        .ok_or_else(|| PipelineError::Decode(format!("TIFF colour type {color:?} is not supported")))?;
    let image = build(&values, layout, samples, size)?;
    Ok(if premultiplied { unpremultiplied(image) } else { image })
}

/// `image` with its colour divided by its alpha (where the alpha is not 0).
fn unpremultiplied(image: DynamicImage) -> DynamicImage {
    fn undo<P: image::Pixel>(mut buffer: ImageBuffer<P, Vec<P::Subpixel>>, max: f32) -> ImageBuffer<P, Vec<P::Subpixel>>
    where
        P::Subpixel: Into<f32> + num_from::FromF32,
    {
        for pixel in buffer.pixels_mut() {
            let channels = pixel.channels_mut();
            let Some((alpha, colour)) = channels.split_last_mut() else { continue };
            let a: f32 = (*alpha).into();
            if a > 0.0 {
                for c in colour {
                    *c = num_from::FromF32::from_f32(((*c).into() * max / a).round().min(max));
                }
            }
        }
        buffer
    }
    match image {
        DynamicImage::ImageLumaA8(b) => DynamicImage::ImageLumaA8(undo(b, 255.0)),
        DynamicImage::ImageRgba8(b) => DynamicImage::ImageRgba8(undo(b, 255.0)),
        DynamicImage::ImageLumaA16(b) => DynamicImage::ImageLumaA16(undo(b, 65_535.0)),
        DynamicImage::ImageRgba16(b) => DynamicImage::ImageRgba16(undo(b, 65_535.0)),
        other => other,
    }
}

/// Sample types made from an `f32` already in their range.
mod num_from {
    pub trait FromF32 {
        fn from_f32(value: f32) -> Self;
    }
    impl FromF32 for u8 {
        fn from_f32(value: f32) -> Self {
            value as u8
        }
    }
    impl FromF32 for u16 {
        fn from_f32(value: f32) -> Self {
            value as u16
        }
    }
}

/// How YCbCr samples become RGB (TIFF 6.0, section 21): the luma coefficients (`YCbCrCoefficients`,
/// by default Rec. 601's) and the code ranges (`ReferenceBlackWhite`, by default full range).
#[derive(Clone, Copy)]
struct YCbCr {
    luma: [f32; 3],
    reference: [f32; 6],
}

impl YCbCr {
    fn of<R: std::io::Read + std::io::Seek>(decoder: &mut Decoder<R>) -> Self {
        let floats = |decoder: &mut Decoder<R>, tag| match decoder.find_tag(tag).ok().flatten()? {
            Value::List(values) => values.into_iter().map(number).collect::<Option<Vec<f32>>>(),
            value => number(value).map(|v| vec![v]),
        };
        let luma = floats(decoder, Tag::Unknown(529)).filter(|v| v.len() == 3 && v[1] > 0.0);
        let reference = floats(decoder, Tag::Unknown(532)).filter(|v| v.len() == 6);
        YCbCr {
            luma: luma.map_or([0.299, 0.587, 0.114], |v| [v[0], v[1], v[2]]),
            reference: reference
                .map_or([0.0, 255.0, 128.0, 255.0, 128.0, 255.0], |v| [v[0], v[1], v[2], v[3], v[4], v[5]]),
        }
    }

    /// The first three samples of `px`, Y, Cb and Cr, replaced by R, G and B.
    fn to_rgb(self, px: &mut [u8]) {
        let [lr, lg, lb] = self.luma;
        let [y0, y1, b0, b1, r0, r1] = self.reference;
        let scale = |v: u8, low: f32, high: f32, span: f32| (f32::from(v) - low) * span / (high - low).max(1.0);
        let y = scale(px[0], y0, y1, 255.0);
        let cb = scale(px[1], b0, b1, 127.0);
        let cr = scale(px[2], r0, r1, 127.0);
        let r = cr * (2.0 - 2.0 * lr) + y;
        let b = cb * (2.0 - 2.0 * lb) + y;
        let g = (y - lb * b - lr * r) / lg;
        for (out, value) in px.iter_mut().zip([r, g, b]) {
            *out = value.round().clamp(0.0, 255.0) as u8;
        }
    }
}

/// A YCbCr page whose chroma is subsampled (`YCbCrSubSampling` other than 1×1), stored in strips without
/// JPEG compression: the tiff crate refuses it (JPEG-compressed ones it reads, the JPEG decoder upsampling
/// them). Each strip holds data units of h×v luma samples followed by one Cb and one Cr (TIFF 6.0, section
/// 21); the chroma is replicated over its unit, as libtiff's RGBA reader (through which libvips reads these)
/// does. None when the page is not of this kind; an error for a layout of it not read here (tiles, planes,
/// a predictor, other compressions).
fn subsampled_ycbcr(
    decoder: &mut PageDecoder<'_>,
    bytes: &[u8],
    size: Size,
    ycbcr: YCbCr,
) -> Result<Option<DynamicImage>, PipelineError> {
    let unsupported = |what: String| PipelineError::Decode(format!("subsampled YCbCr TIFF {what} is not supported"));
    // The tag's default is 2×2.
    let (h, v) = match decoder.find_tag_unsigned_vec::<u16>(Tag::ChromaSubsampling).ok().flatten().as_deref() {
        Some(&[h, v]) => (h, v),
        _ => (2, 2),
    };
    let compression = decoder.find_tag_unsigned::<u16>(Tag::Compression).ok().flatten().unwrap_or(1);
    if (h, v) == (1, 1) || compression == 7 {
        return Ok(None);
    }
    if ![1, 2, 4].contains(&h) || ![1, 2, 4].contains(&v) {
        return Err(PipelineError::Decode(format!("YCbCr subsampling {h}x{v} is not one TIFF defines")));
    }
    if tag(decoder, Tag::PlanarConfiguration).is_some_and(|p| p != 1) {
        return Err(unsupported("in planes".into()));
    }
    if tag(decoder, Tag::Predictor).is_some_and(|p| p != 1) {
        return Err(unsupported("with a predictor".into()));
    }
    if tag(decoder, Tag::TileWidth).is_some() {
        return Err(unsupported("in tiles".into()));
    }
    if decoder
        .find_tag_unsigned_vec::<u16>(Tag::BitsPerSample)
        .ok()
        .flatten()
        .is_some_and(|b| b.iter().any(|&b| b != 8))
    {
        return Err(unsupported("of other than 8-bit samples".into()));
    }
    let (width, height) = (size.width as usize, size.height as usize);
    let strips = Strips::of(decoder, height)?;
    let rows_per_strip = strips.rows;
    let (h, v) = (usize::from(h), usize::from(v));
    let unit_len = h * v + 2;
    let units_across = width.div_ceil(h);

    let mut pixels = vec![0u8; width * height * 3];
    let mut strip = Vec::new();
    for (index, top) in (0..height).step_by(rows_per_strip).enumerate() {
        let rows = rows_per_strip.min(height - top);
        let expected = units_across * rows.div_ceil(v) * unit_len;
        let data = strips.data(bytes, index)?;
        strip.clear();
        strip.resize(expected, 0);
        decompress(data, compression, &mut strip)?;
        for (u, unit) in strip.chunks_exact(unit_len).enumerate() {
            let (left, unit_top) = ((u % units_across) * h, top + (u / units_across) * v);
            let (cb, cr) = (unit[h * v], unit[h * v + 1]);
            for (j, row) in unit[..h * v].chunks_exact(h).enumerate() {
                let y = unit_top + j;
                if y >= top + rows {
                    break;
                }
                for (i, &luma) in row.iter().enumerate().take(width.saturating_sub(left)) {
                    let at = (y * width + left + i) * 3;
                    let px = &mut pixels[at..at + 3];
                    px.copy_from_slice(&[luma, cb, cr]);
                    ycbcr.to_rgb(px);
                }
            }
        }
    }
    let image = RgbImage::from_raw(size.width, size.height, pixels)
        .ok_or_else(|| PipelineError::Decode("the TIFF page's size overflows".into()))?;
    Ok(Some(DynamicImage::ImageRgb8(image)))
}

/// An unsigned tag's value, or `None` when it is absent or not a number that fits.
fn tag(decoder: &mut PageDecoder<'_>, tag: Tag) -> Option<u32> {
    decoder.find_tag_unsigned::<u32>(tag).ok().flatten()
}

/// A page's strips as its tags list them, for the layouts read here rather than by the tiff crate.
struct Strips {
    offsets: Vec<u64>,
    counts: Vec<u64>,
    /// Rows in each strip but the last (`RowsPerStrip`, by default the whole page).
    rows: usize,
}

impl Strips {
    fn of(decoder: &mut PageDecoder<'_>, height: usize) -> Result<Self, PipelineError> {
        let offsets = decoder.get_tag_u64_vec(Tag::StripOffsets).map_err(PipelineError::decode)?;
        let counts = decoder.get_tag_u64_vec(Tag::StripByteCounts).map_err(PipelineError::decode)?;
        let rows = tag(decoder, Tag::RowsPerStrip).map_or(height, |r| (r as usize).clamp(1, height.max(1)));
        Ok(Self { offsets, counts, rows })
    }

    /// Strip `index`'s bytes in the file.
    fn data<'a>(&self, bytes: &'a [u8], index: usize) -> Result<&'a [u8], PipelineError> {
        let (Some(&offset), Some(&count)) = (self.offsets.get(index), self.counts.get(index)) else {
            return Err(PipelineError::Decode("the TIFF page has fewer strips than rows".into()));
        };
        usize::try_from(offset)
            .ok()
            .zip(usize::try_from(count).ok())
            .and_then(|(offset, count)| bytes.get(offset..offset.checked_add(count)?))
            .ok_or_else(|| PipelineError::Decode("a TIFF strip lies past the end of the file".into()))
    }
}

/// A strip's data decompressed into `out` (its expected size; a strip that decompresses short leaves the
/// rest zero, as libtiff does).
fn decompress(data: &[u8], compression: u16, out: &mut [u8]) -> Result<(), PipelineError> {
    match compression {
        1 => {
            let n = data.len().min(out.len());
            out[..n].copy_from_slice(&data[..n]);
        }
        5 => {
            let mut lzw = weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
            let (mut read, mut written) = (0, 0);
            while written < out.len() {
                let step = lzw.decode_bytes(&data[read..], &mut out[written..]);
                read += step.consumed_in;
                written += step.consumed_out;
                match step.status {
                    Ok(weezl::LzwStatus::Ok) if step.consumed_in + step.consumed_out > 0 => {}
                    _ => break,
                }
            }
        }
        8 | 32946 => {
            // A strip that inflates past its expected size is cut there; one that is damaged, refused.
            let mut inflater = libdeflater::Decompressor::new();
            match inflater.zlib_decompress(data, out) {
                Ok(_) | Err(libdeflater::DecompressionError::InsufficientSpace) => {}
                Err(error) => {
                    return Err(PipelineError::Decode(format!("a damaged Deflate strip in a TIFF ({error})")));
                }
            }
        }
        other => {
            return Err(PipelineError::Decode(format!(
                "subsampled YCbCr TIFF with compression {other} is not supported"
            )));
        }
    }
    Ok(())
}

/// A tag's number, rational or not.
fn number(value: Value) -> Option<f32> {
    Some(match value {
        Value::Rational(n, d) => n as f32 / d.max(1) as f32,
        Value::SRational(n, d) => n as f32 / if d == 0 { 1.0 } else { d as f32 },
        Value::Float(v) => v,
        Value::Double(v) => v as f32,
        Value::Short(v) => f32::from(v),
        Value::Unsigned(v) => v as f32,
        _ => return None,
    })
}

/// How many samples a pixel of `color` has.
fn samples_of(color: ColorType) -> u16 {
    match color {
        ColorType::Gray(_) | ColorType::Palette(_) => 1,
        ColorType::GrayA(_) => 2,
        ColorType::RGB(_) | ColorType::YCbCr(_) | ColorType::Lab(_) => 3,
        ColorType::RGBA(_) | ColorType::CMYK(_) => 4,
        ColorType::CMYKA(_) => 5,
        ColorType::Multiband { num_samples, .. } => num_samples,
        _ => 1,
    }
}

/// A palette image's indices drawn through its `ColorMap` (all the reds, then the greens, then the
/// blues, 16 bits each, `2^bits` of each), as 16-bit RGB.
fn through_palette(values: &Values, map: &[u16], bits: u8, size: Size) -> Result<DynamicImage, PipelineError> {
    let entries = 1usize << bits.min(16);
    if map.len() < 3 * entries {
        return Err(PipelineError::Decode("the TIFF's colour map is shorter than its palette".into()));
    }
    let colour = |index: usize| {
        let index = index.min(entries - 1);
        [map[index], map[entries + index], map[2 * entries + index]]
    };
    let pixels = (size.width as usize) * (size.height as usize);
    let rgb: Vec<u16> = match values {
        Values::Narrow(v) => v.iter().take(pixels).flat_map(|&i| colour(usize::from(i))).collect(),
        Values::Wide(v) => v.iter().take(pixels).flat_map(|&i| colour(usize::from(i))).collect(),
        Values::Float(_) => return Err(PipelineError::Decode("a TIFF palette of floats".into())),
    };
    ImageBuffer::<Rgb<u16>, _>::from_raw(size.width, size.height, rgb)
        .map(DynamicImage::ImageRgb16)
        .ok_or_else(|| PipelineError::Decode("the TIFF page holds fewer samples than its size".into()))
}

/// Rows of `bits`-bit samples (1 to 7, most significant bit first; each row starting on a byte) spread
/// to 8 bits, scaled to 0–255 when `scale` (grey levels), kept as they are when not (palette indices).
fn unpack(packed: &[u8], row_samples: usize, rows: usize, bits: u8, scale: bool) -> Result<Vec<u8>, PipelineError> {
    let bits = usize::from(bits);
    let row_bytes = (row_samples * bits).div_ceil(8);
    if packed.len() < row_bytes * rows {
        return Err(PipelineError::Decode("the TIFF page holds fewer samples than its size".into()));
    }
    let max = (1u32 << bits) - 1;
    let mut out = Vec::with_capacity(row_samples * rows);
    for row in packed.chunks_exact(row_bytes).take(rows) {
        for i in 0..row_samples {
            // The sample's bits, read from the (at most two) bytes it spans.
            let at = i * bits;
            let pair = u32::from(row[at / 8]) << 8 | u32::from(row.get(at / 8 + 1).copied().unwrap_or(0));
            let value = (pair >> (16 - at % 8 - bits)) & max;
            out.push(if scale { value * 255 / max } else { value } as u8);
        }
    }
    Ok(out)
}

/// Samples as the pipeline keeps them: 8-bit, 16-bit, or floats (0–1).
enum Values {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
    Float(Vec<f32>),
}

impl Values {
    fn of(data: DecodingResult) -> Self {
        match data {
            DecodingResult::U8(v) => Self::Narrow(v),
            DecodingResult::U16(v) => Self::Wide(v),
            DecodingResult::U32(v) => Self::Wide(v.into_iter().map(|s| (s >> 16) as u16).collect()),
            DecodingResult::U64(v) => Self::Wide(v.into_iter().map(|s| (s >> 48) as u16).collect()),
            DecodingResult::I8(v) => Self::Narrow(v.into_iter().map(|s| s.max(0) as u8).collect()),
            DecodingResult::I16(v) => Self::Wide(v.into_iter().map(|s| s.max(0) as u16).collect()),
            DecodingResult::I32(v) => Self::Wide(v.into_iter().map(|s| (s.max(0) >> 15) as u16).collect()),
            DecodingResult::I64(v) => Self::Wide(v.into_iter().map(|s| (s.max(0) >> 47) as u16).collect()),
            DecodingResult::F16(v) => Self::Float(v.into_iter().map(|s| s.to_f32()).collect()),
            DecodingResult::F32(v) => Self::Float(v),
            DecodingResult::F64(v) => Self::Float(v.into_iter().map(|s| s as f32).collect()),
        }
    }

    /// `planes` planes of `plane` samples each, as pixels of one sample from each plane.
    fn interleaved(self, plane: usize, planes: usize) -> Result<Self, PipelineError> {
        fn weave<T: Copy>(v: &[T], plane: usize, planes: usize) -> Result<Vec<T>, PipelineError> {
            if v.len() < plane * planes {
                return Err(PipelineError::Decode("the TIFF page holds fewer planes than samples".into()));
            }
            Ok((0..plane).flat_map(|p| (0..planes).map(move |c| v[c * plane + p])).collect())
        }
        Ok(match self {
            Self::Narrow(v) => Self::Narrow(weave(&v, plane, planes)?),
            Self::Wide(v) => Self::Wide(weave(&v, plane, planes)?),
            Self::Float(v) => Self::Float(weave(&v, plane, planes)?),
        })
    }

    fn len(&self) -> usize {
        match self {
            Self::Narrow(v) => v.len(),
            Self::Wide(v) => v.len(),
            Self::Float(v) => v.len(),
        }
    }
}

/// What a pixel's first samples are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Gray,
    Rgb,
    Cmyk,
}

impl Layout {
    /// How a colour type's samples are read; `None` for what is decoded otherwise (a palette) or not at all.
    fn of(color: ColorType) -> Option<Self> {
        Some(match color {
            ColorType::Gray(_) | ColorType::GrayA(_) | ColorType::Multiband { .. } => Self::Gray,
            ColorType::RGB(_) | ColorType::RGBA(_) | ColorType::YCbCr(_) => Self::Rgb,
            ColorType::CMYK(_) | ColorType::CMYKA(_) => Self::Cmyk,
            _ => return None,
        })
    }

    /// Colour samples in, colour channels out, where the alpha sample is when there is one.
    fn shape(self) -> (usize, usize, usize) {
        match self {
            Self::Gray => (1, 1, 1),
            Self::Rgb => (3, 3, 3),
            Self::Cmyk => (4, 3, 4),
        }
    }
}

/// The picture from `samples`-sample pixels laid out as `layout` (samples past the ones used ignored).
fn build(values: &Values, layout: Layout, samples: usize, size: Size) -> Result<DynamicImage, PipelineError> {
    let (w, h) = (size.width, size.height);
    let pixels = (w as usize) * (h as usize);
    let fail = || PipelineError::Decode("the TIFF page's samples do not match its size".into());
    match (values, layout) {
        (Values::Narrow(v), _) => {
            let (channels, out) = convert(v, layout, samples, pixels, 255);
            narrow(w, h, channels, out).ok_or_else(fail)
        }
        (Values::Wide(v), _) => {
            let (channels, out) = convert(v, layout, samples, pixels, 65_535);
            wide(w, h, channels, out).ok_or_else(fail)
        }
        (Values::Float(v), Layout::Rgb) => {
            // scRGB: linear light, encoded with the sRGB curve as libvips does.
            let colour = |s: f32| (srgb_encoded(s.clamp(0.0, 1.0)) * 65_535.0).round() as u16;
            let alpha = |s: f32| (s.clamp(0.0, 1.0) * 65_535.0).round() as u16;
            let encoded: Vec<u16> = v
                .chunks_exact(samples)
                .take(pixels)
                .flat_map(|px| px.iter().enumerate().map(move |(i, &s)| if i < 3 { colour(s) } else { alpha(s) }))
                .collect();
            let (channels, out) = convert(&encoded, layout, samples, pixels, 65_535);
            wide(w, h, channels, out).ok_or_else(fail)
        }
        (Values::Float(v), _) => {
            let scaled: Vec<u16> = v.iter().map(|&s| (s.clamp(0.0, 1.0) * 65_535.0).round() as u16).collect();
            let (channels, out) = convert(&scaled, layout, samples, pixels, 65_535);
            wide(w, h, channels, out).ok_or_else(fail)
        }
    }
}

/// The samples of each pixel as grey(+alpha) or RGB(+alpha): `(channels, samples)`. CMYK becomes RGB as
/// ink on white (each colour times the black's complement).
fn convert<T: Copy + Into<u32>>(
    values: &[T],
    layout: Layout,
    samples: usize,
    pixels: usize,
    max: u32,
) -> (usize, Vec<u32>) {
    let (colour_samples, colours, alpha_at) = layout.shape();
    let alpha = samples > colour_samples;
    let channels = colours + usize::from(alpha);
    let mut out = Vec::with_capacity(pixels * channels);
    for px in values.chunks_exact(samples.max(1)).take(pixels) {
        let s = |i: usize| px.get(i).map_or(0, |&v| v.into());
        if layout == Layout::Cmyk {
            let k = max - s(3).min(max);
            for c in 0..3 {
                out.push((max - s(c).min(max)) * k / max);
            }
        } else {
            (0..colours).for_each(|c| out.push(s(c)));
        }
        if alpha {
            out.push(s(alpha_at));
        }
    }
    (channels, out)
}

fn narrow(w: u32, h: u32, channels: usize, samples: Vec<u32>) -> Option<DynamicImage> {
    let data: Vec<u8> = samples.into_iter().map(|s| s.min(255) as u8).collect();
    match channels {
        1 => GrayImage::from_raw(w, h, data).map(DynamicImage::ImageLuma8),
        2 => GrayAlphaImage::from_raw(w, h, data).map(DynamicImage::ImageLumaA8),
        3 => RgbImage::from_raw(w, h, data).map(DynamicImage::ImageRgb8),
        _ => RgbaImage::from_raw(w, h, data).map(DynamicImage::ImageRgba8),
    }
}

fn wide(w: u32, h: u32, channels: usize, samples: Vec<u32>) -> Option<DynamicImage> {
    let data: Vec<u16> = samples.into_iter().map(|s| s.min(65_535) as u16).collect();
    match channels {
        1 => ImageBuffer::<Luma<u16>, _>::from_raw(w, h, data).map(DynamicImage::ImageLuma16),
        2 => ImageBuffer::<LumaA<u16>, _>::from_raw(w, h, data).map(DynamicImage::ImageLumaA16),
        3 => ImageBuffer::<Rgb<u16>, _>::from_raw(w, h, data).map(DynamicImage::ImageRgb16),
        _ => ImageBuffer::<Rgba<u16>, _>::from_raw(w, h, data).map(DynamicImage::ImageRgba16),
    }
}

/// Linear light (0–1) encoded with the sRGB curve (0–1).
fn srgb_encoded(value: f32) -> f32 {
    if value <= 0.003_130_8 { value * 12.92 } else { 1.055 * value.powf(1.0 / 2.4) - 0.055 }
}

#[cfg(test)]
mod tests;
