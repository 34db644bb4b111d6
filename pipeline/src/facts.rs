//! What a front end needs to know about a picture (`shutterbox_model::facts`): `read_facts` from its
//! headers (cheap enough for the request that confirms an upload), `summarize` from its pixels (a job's
//! work: one decode, shrunk on load).

use base64::{Engine, engine::general_purpose::STANDARD};
use image::{DynamicImage, ImageDecoder, RgbaImage};
use shutterbox_model::{ImageFacts, PixelSummary, Rgb};

use crate::{
    OutputFormat, PipelineError,
    decode::decode_pixels,
    encode::encode,
    geometry::Size,
    options::RenderOptions,
    params::{Fit, Transform},
    render::plan::{RenderPlan, Target},
    source::{Probe, SourceFormat, image_reader},
    steps,
};

/// The largest picture whose facts are read, in pixels: far beyond what the service renders, so that a
/// picture refused for its size still has its size shown.
const FACTS_MAX_PIXELS: u64 = 1 << 34;

/// Reads the facts of the image `bytes` begins. With `whole` false `bytes` may be the first part of the
/// file only: `None` then says the facts need more of it (the frames of a GIF, an animated WebP or PNG,
/// the directories of a TIFF, the boxes of a HEIF container can lie anywhere in the file). With `whole`
/// true the answer is always the facts or why there are none.
pub fn read_facts(bytes: &[u8], whole: bool) -> Result<Option<ImageFacts>, PipelineError> {
    let format = SourceFormat::detect(bytes).ok_or(PipelineError::UnsupportedFormat)?;
    if !whole && !headers_within(bytes, format) {
        return Ok(None);
    }
    let options = RenderOptions { max_pixels: FACTS_MAX_PIXELS, max_frames: u32::MAX - 1, ..RenderOptions::default() };
    let probe = match Probe::headers(bytes, &options) {
        Ok(probe) => probe,
        Err(_) if !whole => return Ok(None),
        Err(e) => return Err(e),
    };
    let size = probe.upright();
    Ok(Some(ImageFacts {
        width: size.width,
        height: size.height,
        has_alpha: has_alpha(bytes, &probe)?,
        frame_count: u32::try_from(probe.frames).unwrap_or(u32::MAX),
    }))
}

/// Whether the first part of a file, `prefix`, holds every header the facts are read from.
fn headers_within(prefix: &[u8], format: SourceFormat) -> bool {
    const SOS: u8 = 0xDA;
    match format {
        // The frame header and every EXIF segment come before the first scan.
        SourceFormat::Jpeg => crate::codecs::jpeg_markers::segments(prefix).any(|segment| segment.marker == SOS),
        // IHDR, tRNS and acTL come before the image data; an animation's frames run to the end.
        SourceFormat::Png => {
            let chunks = png_chunks(prefix);
            chunks.iter().any(|&kind| kind == *b"IDAT") && !chunks.contains(b"acTL")
        }
        // A still WebP's header is its first chunk; an animation's frames run to the end.
        SourceFormat::Webp => webp_flags(prefix).is_some_and(|flags| flags & WEBP_ANIMATION == 0),
        // Every header (file, info, masks, palette) comes before the pixels, which start at the offset
        // the file header gives (bytes 10-13); 256 bytes hold any header but a large palette's.
        SourceFormat::Bmp => {
            let pixels = prefix.get(10..14).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
            prefix.len() >= 256 || pixels.is_some_and(|at| at >= 26 && prefix.len() as u64 >= u64::from(at))
        }
        _ => false,
    }
}

/// The kinds of a PNG's chunks up to and including its first IDAT, as far as `bytes` holds them.
fn png_chunks(bytes: &[u8]) -> Vec<[u8; 4]> {
    let mut kinds = Vec::new();
    let mut at = 8usize;
    while let Some(header) = bytes.get(at..at + 8) {
        let kind = [header[4], header[5], header[6], header[7]];
        kinds.push(kind);
        if &kind == b"IDAT" {
            break;
        }
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        at = at.saturating_add(12).saturating_add(len);
    }
    kinds
}

const WEBP_ALPHA: u8 = 0x10;
const WEBP_ANIMATION: u8 = 0x02;

/// A WebP's feature flags: its `VP8X` chunk's, or for a simple file (`VP8 `, `VP8L`) the alpha flag its
/// bitstream header sets. `None` when the first chunk's header is not all there.
fn webp_flags(bytes: &[u8]) -> Option<u8> {
    let chunk = bytes.get(12..16)?;
    match chunk {
        b"VP8X" => bytes.get(20).copied(),
        // VP8L: a signature byte, then 14 + 14 bits of size and the alpha_is_used bit.
        b"VP8L" => {
            let header = bytes.get(21..25)?;
            let bits = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
            Some(if bits >> 28 & 1 == 1 { WEBP_ALPHA } else { 0 })
        }
        b"VP8 " => Some(0),
        _ => None,
    }
}

/// Whether the image has an alpha channel, from its headers, as libvips reads it: a PNG with an alpha
/// colour type or a `tRNS` chunk, a GIF one of whose frames has a transparent colour, a WebP with its alpha
/// flag, an AVIF or HEIF with an alpha item, a TIFF with an alpha sample, a JPEG XL with an alpha channel.
fn has_alpha(bytes: &[u8], probe: &Probe) -> Result<bool, PipelineError> {
    Ok(match probe.format {
        SourceFormat::Jpeg => false,
        SourceFormat::Png => matches!(bytes.get(25), Some(4 | 6)) || png_chunks(bytes).contains(b"tRNS"),
        SourceFormat::Gif => crate::frames::gif_has_transparency(bytes),
        SourceFormat::Webp => webp_flags(bytes).is_some_and(|flags| flags & WEBP_ALPHA != 0),
        SourceFormat::Bmp => {
            let format = probe.format.image_format().ok_or(PipelineError::UnsupportedFormat)?;
            let decoder =
                image_reader(bytes, format, FACTS_MAX_PIXELS).into_decoder().map_err(PipelineError::decode)?;
            decoder.color_type().has_alpha()
        }
        SourceFormat::Tiff => crate::codecs::tiff::has_alpha(bytes, FACTS_MAX_PIXELS)?,
        SourceFormat::Avif => match avif_parse::read_avif(&mut &bytes[..]) {
            Ok(avif) => avif.alpha_item.is_some(),
            #[cfg(feature = "heic")]
            Err(_) => crate::codecs::heic::layout(bytes, FACTS_MAX_PIXELS)?.1,
            #[cfg(not(feature = "heic"))]
            Err(e) => return Err(PipelineError::decode(e)),
        },
        #[cfg(feature = "heic")]
        SourceFormat::Heic => crate::codecs::heic::layout(bytes, FACTS_MAX_PIXELS)?.1,
        SourceFormat::JpegXl => crate::codecs::jxl::layout(bytes, FACTS_MAX_PIXELS)?.1,
    })
}

/// The side of the picture the dominant colour is counted on: large enough that a downscale's averaging has
/// not yet mixed a textured region's pixels into colours it does not have (as libvips counts the whole
/// picture), small enough that a 12 MP JPEG (4000 or 4032 px wide, or 4K's 3840) is decoded at 1/8.
const HISTOGRAM_SIDE: u32 = 480;

/// The side of the picture the hashes, placeholder and attention point are computed from (ThumbHash takes
/// at most 100 pixels a side).
const SUMMARY_SIDE: u32 = 100;

/// The longest side of the placeholder image: Next.js asks for 10 pixels or fewer; 16 keeps a face a
/// face, and its WebP is still about 150 bytes.
const PLACEHOLDER_SIDE: u32 = 16;

/// The facts and the pixel summary of an image (its first frame for an animation): decoded shrunk on load
/// and reduced to fit 100×100, upright and in sRGB, as a render would.
pub fn summarize(bytes: &[u8], options: &RenderOptions) -> Result<(ImageFacts, PixelSummary), PipelineError> {
    let facts = read_facts(bytes, true)?.ok_or(PipelineError::UnsupportedFormat)?;
    let probe = Probe::read(bytes, options)?;
    let transform = Transform {
        width: Some(HISTOGRAM_SIDE),
        height: Some(HISTOGRAM_SIDE),
        fit: Fit::Inside,
        still: true,
        ..Transform::default()
    };
    let plan = RenderPlan::new(&probe, &transform, Target::Format(OutputFormat::Png), options)?;
    let large = steps::run(&plan.steps, decode_pixels(bytes, &probe, plan.shrink, options.max_pixels)?)?.to_rgba8();
    let small = crate::steps::resize::plan_resize(
        large.width(),
        large.height(),
        Some(SUMMARY_SIDE),
        Some(SUMMARY_SIDE),
        Fit::Inside,
    )
    .output;
    let rgba = crate::resample::scale_rgba(&large, small);
    let (width, height) = rgba.dimensions();
    let thumbhash = thumbhash::rgba_to_thumb_hash(width as usize, height as usize, rgba.as_raw());
    let blurhash = blurhash::encode(4, 3, width, height, over_white(&rgba).as_raw())
        .map_err(|e| PipelineError::Decode(format!("blurhash: {e}")))?;
    Ok((
        facts,
        PixelSummary {
            dominant_color: dominant_color(&large),
            thumbhash: STANDARD.encode(thumbhash),
            blurhash,
            placeholder: placeholder(&rgba)?,
            attention: crate::gravity::attention_point(&DynamicImage::ImageRgba8(rgba)),
        },
    ))
}

/// `rgba` composited over white: BlurHash has no alpha, and a transparent picture mostly sits on a light
/// page.
fn over_white(rgba: &RgbaImage) -> RgbaImage {
    let mut flat = rgba.clone();
    for pixel in flat.pixels_mut() {
        let alpha = u32::from(pixel.0[3]);
        for channel in &mut pixel.0[..3] {
            *channel = ((u32::from(*channel) * alpha + 255 * (255 - alpha) + 127) / 255) as u8;
        }
        pixel.0[3] = 255;
    }
    flat
}

/// The most common colour, as libvips' (sharp's) `dominant`: a histogram of 16 levels per channel, the
/// fullest bin's centre. Pixels more than half transparent are not seen, unless no pixel is more opaque.
fn dominant_color(rgba: &RgbaImage) -> Rgb {
    const LEVELS: usize = 16;
    let step = 256 / LEVELS;
    let bin = |p: &[u8; 4]| {
        usize::from(p[0]) / step * LEVELS * LEVELS + usize::from(p[1]) / step * LEVELS + usize::from(p[2]) / step
    };
    let mut histogram = vec![0u32; LEVELS * LEVELS * LEVELS];
    for pixel in rgba.pixels().filter(|p| p.0[3] >= 128) {
        histogram[bin(&pixel.0)] += 1;
    }
    if histogram.iter().all(|&n| n == 0) {
        for pixel in rgba.pixels() {
            histogram[bin(&pixel.0)] += 1;
        }
    }
    // The first of equal bins, as libvips' max finds it scanning in order.
    let fullest = histogram.iter().enumerate().fold(0, |best, (i, &n)| if n > histogram[best] { i } else { best });
    let centre = |level: usize| (level * step + step / 2) as u8;
    Rgb([centre(fullest / (LEVELS * LEVELS)), centre(fullest / LEVELS % LEVELS), centre(fullest % LEVELS)])
}

/// The picture reduced to `PLACEHOLDER_SIDE` on its longer side, as a WebP `data:` URL.
fn placeholder(rgba: &RgbaImage) -> Result<String, PipelineError> {
    let (width, height) = rgba.dimensions();
    let longer = width.max(height).max(1);
    let side =
        |v: u32| ((u64::from(v) * u64::from(PLACEHOLDER_SIDE) + u64::from(longer) / 2) / u64::from(longer)) as u32;
    let size = if longer > PLACEHOLDER_SIDE {
        Size::new(side(width).max(1), side(height).max(1))
    } else {
        Size::new(width, height)
    };
    let small = crate::resample::scale_rgba(rgba, size);
    let image = if small.pixels().all(|p| p.0[3] == 255) {
        DynamicImage::ImageRgb8(DynamicImage::ImageRgba8(small).to_rgb8())
    } else {
        DynamicImage::ImageRgba8(small)
    };
    let webp = encode(&image, OutputFormat::Webp, 70)?;
    Ok(format!("data:image/webp;base64,{}", STANDARD.encode(webp)))
}

#[cfg(test)]
mod tests {
    use image::{Rgba, RgbaImage};
    use proptest::prelude::*;

    use super::*;
    use crate::samples::{SampleKind, Source};

    /// The kinds whose samples have an alpha channel, as their encoders write them.
    fn has_alpha_sample(kind: SampleKind) -> bool {
        use SampleKind as K;
        #[cfg(feature = "heic")]
        if kind == K::HeicAlpha {
            return true;
        }
        matches!(
            kind,
            K::PngGrayAlpha
                | K::PngRgba
                | K::PngPaletteTrns
                | K::WebpAlpha
                | K::WebpAnimated
                | K::GifTransparent
                // The `image` crate's GIF encoder gives every frame a transparent index.
                | K::GifAnimated
                | K::TiffRgba
                | K::Bmp32
                | K::AvifAlpha
                | K::JpegXlAlpha
        )
    }

    fn frames_of(kind: SampleKind) -> u32 {
        if matches!(kind, SampleKind::WebpAnimated | SampleKind::GifAnimated) { 3 } else { 1 }
    }

    /// Kinds whose facts a first part of the file holds (`headers_within`).
    fn read_from_a_head(kind: SampleKind) -> bool {
        use SampleKind as K;
        !matches!(
            kind,
            K::WebpAnimated
                | K::GifTransparent
                | K::GifAnimated
                | K::TiffLzw
                | K::TiffCmyk
                | K::TiffRgba
                | K::TiffGray16
                | K::Avif
                | K::AvifAlpha
                | K::JpegXl
                | K::JpegXlAlpha
        ) && !is_heic(kind)
    }

    fn is_heic(kind: SampleKind) -> bool {
        #[cfg(feature = "heic")]
        if matches!(kind, SampleKind::Heic | SampleKind::HeicAlpha) {
            return true;
        }
        let _ = kind;
        false
    }

    fn kind() -> impl Strategy<Value = SampleKind> {
        proptest::sample::select(SampleKind::ALL.to_vec())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Over every kind of upload the tests generate: the size as delivered (orientation applied), alpha
        /// and frames as written; and any first part of the file gives those facts or asks for more, never
        /// other ones.
        #[test]
        fn facts_are_what_was_written_and_a_head_never_misleads(
            kind in kind(),
            width in 2u32..160,
            height in 2u32..160,
            seed in any::<u64>(),
            cut in 0.0f64..1.0,
        ) {
            let source = Source::generate(kind, width, height, seed).unwrap();
            let facts = read_facts(&source.bytes, true).unwrap().unwrap();
            prop_assert_eq!((facts.width, facts.height), (source.upright.width, source.upright.height));
            prop_assert_eq!(facts.has_alpha, has_alpha_sample(kind), "{:?}", kind);
            prop_assert_eq!(facts.frame_count, frames_of(kind));
            prop_assert_eq!(facts.animated(), frames_of(kind) > 1);
            let head = read_facts(&source.bytes, false).unwrap();
            prop_assert_eq!(head.is_some(), read_from_a_head(kind), "{:?}", kind);
            let cut = (source.bytes.len() as f64 * cut) as usize;
            match read_facts(&source.bytes[..cut], false) {
                Ok(None) | Err(PipelineError::UnsupportedFormat) => {}
                Ok(Some(from_head)) => prop_assert_eq!(from_head, facts, "cut at {}", cut),
                Err(e) => prop_assert!(false, "cut at {}: {}", cut, e),
            }
        }
    }

    fn png(image: &RgbaImage) -> Vec<u8> {
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(image.clone())
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn a_summary_describes_the_picture() {
        // A red subject in the right third of a wide grey field.
        let picture = RgbaImage::from_fn(600, 300, |x, y| {
            let subject = (420..520).contains(&x) && (100..200).contains(&y);
            if subject { Rgba([220, 40, 50, 255]) } else { Rgba([120, 120, 120, 255]) }
        });
        let (facts, summary) = summarize(&png(&picture), &RenderOptions::default()).unwrap();
        // An RGBA PNG has an alpha channel, opaque or not (as libvips says).
        assert_eq!(facts, ImageFacts { width: 600, height: 300, has_alpha: true, frame_count: 1 });
        // Grey is the most common: its bin's centre (120 is in 112–127).
        assert_eq!(summary.dominant_color.hex(), "#787878");
        let hash = STANDARD.decode(&summary.thumbhash).unwrap();
        let aspect = thumbhash::thumb_hash_to_approximate_aspect_ratio(&hash).unwrap();
        // ThumbHash keeps the ratio of its (at most 7) components a side: 5:3 for 2:1.
        assert!((aspect - 2.0).abs() < 0.3, "{aspect}");
        assert_eq!(summary.blurhash.len(), 28, "{}", summary.blurhash);
        let (x, y) = (summary.attention.x_fraction(), summary.attention.y_fraction());
        assert!((0.65..0.9).contains(&x) && (0.3..0.7).contains(&y), "{x},{y}");
        let webp = STANDARD.decode(summary.placeholder.strip_prefix("data:image/webp;base64,").unwrap()).unwrap();
        let tiny = image::load_from_memory(&webp).unwrap();
        assert_eq!((tiny.width(), tiny.height()), (16, 8));
        assert!(webp.len() < 300, "{} bytes", webp.len());
    }

    #[test]
    fn transparency_is_not_the_dominant_colour() {
        // Mostly transparent black, a blue patch: blue dominates; all transparent, the transparent colour.
        let patch =
            RgbaImage::from_fn(
                100,
                100,
                |x, y| {
                    if x < 20 && y < 20 { Rgba([30, 60, 200, 255]) } else { Rgba([0, 0, 0, 0]) }
                },
            );
        assert_eq!(dominant_color(&patch).hex(), "#1838c8");
        assert_eq!(dominant_color(&RgbaImage::new(4, 4)).hex(), "#080808");
        let (_, summary) = summarize(&png(&patch), &RenderOptions::default()).unwrap();
        assert!(summary.placeholder.starts_with("data:image/webp;base64,"));
    }

    #[test]
    fn a_picture_of_any_shape_is_summarized() {
        for (width, height) in [(1, 1), (1, 3000), (3000, 1), (2, 1000), (101, 100), (100, 101)] {
            let picture = RgbaImage::from_fn(width, height, |x, y| Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255]));
            let (facts, summary) = summarize(&png(&picture), &RenderOptions::default()).unwrap();
            assert_eq!((facts.width, facts.height), (width, height));
            assert!(summary.placeholder.starts_with("data:image/webp;base64,"), "{width}x{height}");
        }
    }

    #[test]
    fn what_is_no_image_has_no_facts() {
        for bytes in [&b""[..], b"%PDF-1.7", b"GIF89a", &[0xFF, 0xD8, 0xFF]] {
            assert!(read_facts(bytes, true).is_err(), "{bytes:?}");
            assert!(!matches!(read_facts(bytes, false), Ok(Some(_))), "{bytes:?}");
        }
    }
}
