//! Generated source images of every kind people upload, and the property every render of them must hold,
//! for tests and fuzzing (the `samples` feature): the render property suite (`tests/render_props.rs`), the
//! `render` fuzz target and the end-to-end width sweep all draw their sources from here and check renders
//! with `check_render`, so "every kind of upload" is one list and "renders correctly" one definition.
//!
//! Each `SampleKind` is one way a file can be laid out (a JPEG's chroma subsampling, coding and EXIF
//! orientation; a PNG's bit depth and colour type; lossy, lossless, alpha and animated WebP; …), written
//! by the encoder people's files usually come from: libjpeg-turbo for JPEG (jpeg-encoder for restart
//! markers, which libjpeg-turbo's Rust API does not expose), the `png`, `tiff` and `gif` crates, libwebp
//! and our own AVIF encoder. The picture is photo-like (gradients, waves and seeded noise, alpha varying
//! across it for the kinds that have alpha) so resampling and entropy coding see realistic data.

mod animation;

pub use animation::{AnimationKind, AnimationSpec, FrameSpec, animation_request, check_animation};

use std::{
    io::Cursor,
    panic::{AssertUnwindSafe, catch_unwind},
};

use image::{
    DynamicImage, RgbImage, Rgba, RgbaImage,
    codecs::{bmp::BmpEncoder, gif::GifEncoder},
};
use turbojpeg::{Colorspace, Compressor, PixelFormat, Subsamp};

use crate::{
    OutputFormat, PipelineError, RenderOptions, Size, SourceFormat, Target, Transform, decode::decode, output_size,
    render,
};

/// One way an uploaded image can be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// Baseline JPEG, 4:2:0 (what most cameras and phones write): the planar path's input.
    Jpeg420,
    Jpeg422,
    Jpeg440,
    Jpeg444,
    Jpeg411,
    JpegGray,
    /// Adobe CMYK (stored as YCCK), as print workflows write it.
    JpegCmyk,
    /// Progressive 4:2:0.
    JpegProgressive,
    /// Baseline 4:2:0 with a restart marker every 4 MCUs.
    JpegRestartMarkers,
    /// Arithmetic-coded 4:2:0.
    JpegArithmetic,
    /// Baseline 4:2:0 with an EXIF orientation (1–8); the stored pixels are `width`×`height`.
    JpegOriented(u8),
    PngGray1,
    PngGray8,
    PngGray16,
    PngGrayAlpha,
    PngRgb,
    PngRgb16,
    PngRgba,
    /// 8-bit palette with a tRNS chunk (some entries transparent).
    PngPaletteTrns,
    WebpLossy,
    WebpLossless,
    WebpAlpha,
    /// Three frames, with alpha.
    WebpAnimated,
    /// One frame whose palette has a transparent entry.
    GifTransparent,
    /// Three frames.
    GifAnimated,
    /// RGB, LZW-compressed.
    TiffLzw,
    TiffCmyk,
    TiffRgba,
    TiffGray16,
    Bmp8,
    Bmp24,
    Bmp32,
    Avif,
    AvifAlpha,
    /// Baseline 4:2:0 with a Display P3 ICC profile, as an iPhone writes its JPEGs: converted to sRGB.
    JpegDisplayP3,
    /// HEIC as a phone writes it: HEVC 4:2:0 through libheif's x265 encoder (the `heic` feature). Without a
    /// profile: libheif-rs 0.19 hands libheif the profile type without the NUL its C API reads up to.
    #[cfg(feature = "heic")]
    Heic,
    /// HEIC with an alpha plane.
    #[cfg(feature = "heic")]
    HeicAlpha,
    /// Lossless JPEG XL (zune-jpegxl's encoder, which needs sides of 2 or more: `min_side`).
    JpegXl,
    JpegXlAlpha,
}

impl SampleKind {
    /// Every kind, each JPEG orientation included.
    pub const ALL: &[SampleKind] = &[
        Self::Jpeg420,
        Self::Jpeg422,
        Self::Jpeg440,
        Self::Jpeg444,
        Self::Jpeg411,
        Self::JpegGray,
        Self::JpegCmyk,
        Self::JpegProgressive,
        Self::JpegRestartMarkers,
        Self::JpegArithmetic,
        Self::JpegOriented(1),
        Self::JpegOriented(2),
        Self::JpegOriented(3),
        Self::JpegOriented(4),
        Self::JpegOriented(5),
        Self::JpegOriented(6),
        Self::JpegOriented(7),
        Self::JpegOriented(8),
        Self::PngGray1,
        Self::PngGray8,
        Self::PngGray16,
        Self::PngGrayAlpha,
        Self::PngRgb,
        Self::PngRgb16,
        Self::PngRgba,
        Self::PngPaletteTrns,
        Self::WebpLossy,
        Self::WebpLossless,
        Self::WebpAlpha,
        Self::WebpAnimated,
        Self::GifTransparent,
        Self::GifAnimated,
        Self::TiffLzw,
        Self::TiffCmyk,
        Self::TiffRgba,
        Self::TiffGray16,
        Self::Bmp8,
        Self::Bmp24,
        Self::Bmp32,
        Self::Avif,
        Self::AvifAlpha,
        Self::JpegDisplayP3,
        #[cfg(feature = "heic")]
        Self::Heic,
        #[cfg(feature = "heic")]
        Self::HeicAlpha,
        Self::JpegXl,
        Self::JpegXlAlpha,
    ];

    /// The JPEG chroma subsamplings the planar and general paths branch on.
    pub const JPEG_SUBSAMPLINGS: [SampleKind; 6] =
        [Self::Jpeg420, Self::Jpeg422, Self::Jpeg440, Self::Jpeg444, Self::Jpeg411, Self::JpegGray];

    /// The longest side the kind's format can store (the encoders refuse more).
    pub fn max_side(self) -> u32 {
        match self {
            Self::WebpLossy | Self::WebpLossless | Self::WebpAlpha | Self::WebpAnimated => 16_383,
            Self::Avif | Self::AvifAlpha => 65_536,
            // JPEG's and GIF's 16-bit sides; PNG, TIFF and BMP could go further, no test needs it.
            _ => u32::from(u16::MAX),
        }
    }

    /// The shortest side the kind's encoder writes (zune-jpegxl's is 2).
    pub fn min_side(self) -> u32 {
        if matches!(self, Self::JpegXl | Self::JpegXlAlpha) { 2 } else { 1 }
    }

    /// Whether the kind's encoder writes a `width`×`height` picture: its sides within `min_side` and
    /// `max_side`, and for HEIC not a long thin one (x265 refuses a side over 4096 px with the other under
    /// 32: "Invalid image size"; phones write large pictures as grids of 512 px tiles).
    pub fn encodes(self, width: u32, height: u32) -> bool {
        let sides = self.min_side()..=self.max_side();
        #[cfg(feature = "heic")]
        if matches!(self, Self::Heic | Self::HeicAlpha) && width.max(height) > 4096 && width.min(height) < 32 {
            return false;
        }
        sides.contains(&width) && sides.contains(&height)
    }

    /// Whether the file stores the picture turned (EXIF orientations 5–8): its upright size is then
    /// `height`×`width`.
    pub fn swaps_sides(self) -> bool {
        matches!(self, Self::JpegOriented(5..=8))
    }
}

/// A `width`×`height` image of `kind`, its content drawn from `seed`. Fails only when the kind's encoder
/// refuses the size (`kind.encodes`).
pub fn sample(kind: SampleKind, width: u32, height: u32, seed: u64) -> Result<Vec<u8>, String> {
    if !kind.encodes(width, height) {
        return Err(format!("{kind:?} cannot be {width}x{height}"));
    }
    let rgba = picture(width, height, seed);
    let fail = |e: &dyn std::fmt::Display| format!("{kind:?} {width}x{height}: {e}");
    use SampleKind as K;
    match kind {
        K::Jpeg420 => turbo_jpeg(&rgba, Subsamp::Sub2x2, |_| Ok(())),
        K::Jpeg422 => turbo_jpeg(&rgba, Subsamp::Sub2x1, |_| Ok(())),
        K::Jpeg440 => turbo_jpeg(&rgba, Subsamp::Sub1x2, |_| Ok(())),
        K::Jpeg444 => turbo_jpeg(&rgba, Subsamp::None, |_| Ok(())),
        K::Jpeg411 => turbo_jpeg(&rgba, Subsamp::Sub4x1, |_| Ok(())),
        K::JpegGray => turbo_jpeg(&rgba, Subsamp::Gray, |_| Ok(())),
        K::JpegProgressive => turbo_jpeg(&rgba, Subsamp::Sub2x2, |c| c.set_progressive(true)),
        K::JpegArithmetic => turbo_jpeg(&rgba, Subsamp::Sub2x2, |c| c.set_arithmetic(true)),
        K::JpegCmyk => cmyk_jpeg(&rgba),
        K::JpegRestartMarkers => restart_jpeg(&rgba),
        K::JpegOriented(orientation) => {
            turbo_jpeg(&rgba, Subsamp::Sub2x2, |_| Ok(())).map(|jpeg| with_exif_orientation(&jpeg, orientation))
        }
        K::PngGray1 | K::PngGray8 | K::PngGray16 | K::PngGrayAlpha | K::PngRgb | K::PngRgb16 | K::PngRgba => {
            png(kind, &rgba)
        }
        K::PngPaletteTrns => palette_png(&rgba),
        K::WebpLossy => Ok(webp::Encoder::from_rgb(&rgb8(&rgba), width, height).encode(80.0).to_vec()),
        K::WebpLossless => Ok(webp::Encoder::from_rgb(&rgb8(&rgba), width, height).encode_lossless().to_vec()),
        K::WebpAlpha => Ok(webp::Encoder::from_rgba(rgba.as_raw(), width, height).encode(80.0).to_vec()),
        K::WebpAnimated => animated_webp(&rgba, seed),
        K::GifTransparent => gif(&[rgba]),
        K::GifAnimated => gif(&frames(&rgba, seed)),
        K::TiffLzw => write_tiff::<tiff::encoder::colortype::RGB8>(&rgb8(&rgba), width, height, true),
        K::TiffCmyk => {
            let cmyk: Vec<u8> = rgba.pixels().flat_map(|p| cmyk(p.0)).collect();
            write_tiff::<tiff::encoder::colortype::CMYK8>(&cmyk, width, height, false)
        }
        K::TiffRgba => write_tiff::<tiff::encoder::colortype::RGBA8>(rgba.as_raw(), width, height, false),
        K::TiffGray16 => {
            let gray = DynamicImage::ImageRgba8(rgba).to_luma16();
            write_tiff::<tiff::encoder::colortype::Gray16>(gray.as_raw(), width, height, true)
        }
        K::Bmp8 => bmp(&DynamicImage::ImageRgba8(rgba).to_luma8().into()),
        K::Bmp24 => bmp(&DynamicImage::ImageRgb8(RgbImage::from_raw(width, height, rgb8(&rgba)).ok_or("size")?)),
        K::Bmp32 => bmp(&DynamicImage::ImageRgba8(rgba)),
        K::Avif => {
            let rgb = RgbImage::from_raw(width, height, rgb8(&rgba)).ok_or("size")?;
            crate::codecs::avif::encode(&DynamicImage::ImageRgb8(rgb), 70).map_err(|e| fail(&e))
        }
        K::AvifAlpha => crate::codecs::avif::encode(&DynamicImage::ImageRgba8(rgba), 70).map_err(|e| fail(&e)),
        K::JpegDisplayP3 => turbo_jpeg(&rgba, Subsamp::Sub2x2, |_| Ok(()))
            .and_then(|jpeg| with_icc_profile(&jpeg, &display_p3_profile()?)),
        #[cfg(feature = "heic")]
        K::Heic => heic(&rgba, false),
        #[cfg(feature = "heic")]
        K::HeicAlpha => heic(&rgba, true),
        K::JpegXl => jpeg_xl(&DynamicImage::ImageRgba8(rgba).to_rgb8().into_raw(), width, height, false),
        K::JpegXlAlpha => jpeg_xl(rgba.as_raw(), width, height, true),
    }
    .map_err(|e| fail(&e))
}

/// A GIF89a of `frames` 1×1 frames, each with a graphic control extension: written directly, so that a
/// file of 100,000 frames costs nothing to make.
pub fn animated_gif(frames: usize) -> Vec<u8> {
    let mut gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
    for _ in 0..frames {
        gif.extend_from_slice(b"\x21\xf9\x04\x00\x01\x00\x00\x00");
        gif.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00");
    }
    gif.push(0x3B);
    gif
}

/// A moving picture: a `width`×`height` GIF of `frames` frames (a square crossing a gradient, one colour
/// per frame), frame i shown for `delays_cs[i % len]` hundredths of a second, playing `loops` times (0 for
/// ever, 1 without a loop count), each frame's palette its own.
pub fn moving_gif(width: u16, height: u16, frames: usize, delays_cs: &[u16], loops: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let Ok(mut encoder) = gif::Encoder::new(&mut out, width, height, &[]) else { return out };
    let _ = match loops {
        1 => Ok(()),
        0 => encoder.set_repeat(gif::Repeat::Infinite),
        plays => encoder.set_repeat(gif::Repeat::Finite(plays - 1)),
    };
    for i in 0..frames {
        let (w, h) = (u32::from(width), u32::from(height));
        let at = (i as u32 * 7) % w.max(1);
        let mut rgba: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                let inside = x >= at && x < at + w / 4 + 1 && y >= h / 3 && y < h / 3 + h / 4 + 1;
                if inside {
                    [255, (i * 37 % 256) as u8, 40, 255]
                } else {
                    [(x * 255 / w) as u8, (y * 255 / h) as u8, 128, 255]
                }
            })
            .collect();
        let mut frame = gif::Frame::from_rgba_speed(width, height, &mut rgba, 10);
        frame.delay = delays_cs.get(i % delays_cs.len().max(1)).copied().unwrap_or(10);
        let _ = encoder.write_frame(&frame);
    }
    drop(encoder);
    out
}

/// The budget `check_render` renders with: the service's default.
const RENDER_OPTIONS: RenderOptions = RenderOptions {
    max_pixels: 50_000_000,
    max_output_pixels: 50_000_000,
    max_frames: crate::options::DEFAULT_MAX_FRAMES,
    max_animation_pixels: crate::options::DEFAULT_MAX_ANIMATION_PIXELS,
    max_source_bytes: crate::options::DEFAULT_MAX_SOURCE_BYTES,
    render_timeout_secs: crate::options::DEFAULT_RENDER_TIMEOUT_SECS,
    render_cpu_secs: crate::options::DEFAULT_RENDER_CPU_SECS,
    parallel: true,
};

/// A generated upload and the upright size every geometry rule starts from.
pub struct Source {
    pub name: String,
    pub bytes: Vec<u8>,
    pub upright: Size,
}

impl Source {
    /// `sample(kind, width, height, seed)`, with its upright size.
    pub fn generate(kind: SampleKind, width: u32, height: u32, seed: u64) -> Result<Self, String> {
        let bytes = sample(kind, width, height, seed)?;
        let upright = if kind.swaps_sides() { Size::new(height, width) } else { Size::new(width, height) };
        Ok(Self { name: format!("{kind:?} {width}x{height}"), bytes, upright })
    }
}

/// The render property for one request: renders `query` on `source` into `target` (with a 50-megapixel
/// budget) and checks that a valid request rendered, that its output decodes as the format asked for at
/// `output_size`'s size, and that a refusal is the request's error for its reason (a crop outside the
/// image, an output larger than the format stores, a free rotation's canvas over the budget). `Err`
/// describes a violation; a panic inside the render is one too.
pub fn check_render(source: &Source, query: &str, target: Target) -> Result<(), String> {
    let case = || format!("{} ?{query} → {}", source.name, target.as_str());
    let transform =
        Transform::from_query(query).map_err(|e| format!("{}: the generated query is invalid: {e}", case()))?;
    let outcome = catch_unwind(AssertUnwindSafe(|| render(&source.bytes, &transform, target, RENDER_OPTIONS)))
        .map_err(|panic| format!("{}: panicked: {}", case(), panic_message(&panic)))?;
    let expected = output_size(&transform, source.upright);
    match (outcome, expected) {
        (Ok(rendered), Ok(size)) => {
            if (rendered.width, rendered.height) != (size.width, size.height) {
                return Err(format!("{}: rendered {}x{}, planned {size:?}", case(), rendered.width, rendered.height));
            }
            if let Target::Format(format) = target
                && rendered.format != format
            {
                return Err(format!("{}: rendered {:?}", case(), rendered.format));
            }
            let written = SourceFormat::detect(&rendered.bytes);
            if written.map(format_written) != Some(rendered.format) {
                return Err(format!("{}: the bytes are {written:?}, not {:?}", case(), rendered.format));
            }
            let (image, _) = decode(&rendered.bytes, u64::MAX)
                .map_err(|e| format!("{}: the output does not decode: {e}", case()))?;
            if (image.width(), image.height()) != (size.width, size.height) {
                return Err(format!("{}: the output decodes as {}x{}", case(), image.width(), image.height()));
            }
            Ok(())
        }
        (Err(error), expected) => {
            if !error.is_client_error() {
                return Err(format!("{}: internal error: {error}", case()));
            }
            // The request's errors are those a valid request can still meet, each for its reason.
            let explained = match (&error, &expected) {
                (PipelineError::CropOutside { .. }, Err(PipelineError::CropOutside { .. })) => true,
                (PipelineError::OutputTooLarge { width, height, max_side, .. }, Ok(size)) => {
                    (*width, *height) == (size.width, size.height) && size.width.max(size.height) > *max_side
                }
                // A free rotation's canvas over the pixel budget.
                (PipelineError::TooManyPixels { .. }, Ok(_)) => transform.rotation % 90 != 0,
                _ => false,
            };
            if explained { Ok(()) } else { Err(format!("{}: {error} (planned {expected:?})", case())) }
        }
        (Ok(rendered), Err(e)) => Err(format!("{}: rendered {}x{} where {e}", case(), rendered.width, rendered.height)),
    }
}

/// The output format whose files `detect` recognises as `source`.
fn format_written(source: SourceFormat) -> OutputFormat {
    match source {
        SourceFormat::Jpeg => OutputFormat::Jpeg,
        SourceFormat::Png => OutputFormat::Png,
        SourceFormat::Webp => OutputFormat::Webp,
        SourceFormat::Gif => OutputFormat::Gif,
        SourceFormat::Tiff => OutputFormat::Tiff,
        SourceFormat::Avif => OutputFormat::Avif,
        // Never written: a mismatch either way.
        SourceFormat::Bmp | SourceFormat::JpegXl => OutputFormat::Png,
        #[cfg(feature = "heic")]
        SourceFormat::Heic => OutputFormat::Png,
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "non-text panic".into())
}

/// Where a generated request's choices come from: a seeded generator (`Seeded`, the property suite) or
/// the fuzzer's bytes (the `render` fuzz target), so both explore the same space of valid requests.
pub trait Choices {
    /// A value in `low..=high`.
    fn between(&mut self, low: u32, high: u32) -> u32;

    /// True with probability `percent` %.
    fn chance(&mut self, percent: u32) -> bool {
        self.between(0, 99) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.between(0, items.len().saturating_sub(1) as u32) as usize]
    }
}

/// A small deterministic generator (xorshift64*): a suite drawing from it fails the same way on every run.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl Choices for Seeded {
    fn between(&mut self, low: u32, high: u32) -> u32 {
        let span = u64::from(high.saturating_sub(low)) + 1;
        low + (self.next_u64() % span) as u32
    }
}

/// The `fit` values.
pub const FITS: [&str; 5] = ["cover", "contain", "fill", "inside", "outside"];

/// A random valid query for a source of `size` (sometimes with a crop outside it, the one invalid value a
/// parser cannot see) and the target it is rendered into. `w` and `h` go up to `largest_box` (at most
/// 5000, the parameters' limit), borders to a quarter of it: the space a caller wants to spend its time on
/// (`contain` pads to the whole box, so a 5000 px box is a 25-megapixel encode whatever the source).
pub fn random_request(random: &mut impl Choices, size: Size, largest_box: u32) -> (String, Target) {
    let largest_box = largest_box.clamp(1, crate::params::MAX_DIMENSION);
    let mut params = Vec::new();
    // Mostly near the source's side (the sizes people ask for), sometimes anywhere in the box.
    fn side(random: &mut impl Choices, len: u32, largest_box: u32) -> u32 {
        let near = len.saturating_add(len / 3).saturating_add(2).min(largest_box);
        if random.chance(10) { random.between(1, largest_box) } else { random.between(1, near) }
    }
    if random.chance(70) {
        params.push(format!("w={}", side(random, size.width, largest_box)));
    }
    if random.chance(50) {
        params.push(format!("h={}", side(random, size.height, largest_box)));
    }
    if random.chance(60) {
        params.push(format!("fit={}", random.pick(&FITS)));
    }
    if random.chance(3) {
        let x = random.between(0, size.width);
        params.push(format!("crop={x},0,{},1", size.width - x + 1));
    } else if random.chance(20) {
        let (x, y) = (random.between(0, size.width - 1), random.between(0, size.height - 1));
        let (w, h) = (random.between(1, size.width - x), random.between(1, size.height - y));
        params.push(format!("crop={x},{y},{w},{h}"));
    }
    if random.chance(25) {
        params.push(format!("rot={}", random.pick(&[90, 180, 270, -90, 360, -270])));
    } else if random.chance(12) {
        params.push(format!("rot={}", random.between(0, 720) as i32 - 360));
    }
    if random.chance(15) {
        let sigma = if random.chance(10) { random.between(300, 10_000) } else { random.between(3, 300) };
        params.push(format!("blur={}", f64::from(sigma) / 10.0));
    }
    if random.chance(15) {
        params.push("sharp=true".into());
    }
    if random.chance(20) {
        params.push("gray=true".into());
    }
    if random.chance(15) {
        let largest = (largest_box / 4).clamp(1, crate::params::MAX_BORDER);
        let width = if random.chance(5) { random.between(1, largest) } else { random.between(1, largest.min(40)) };
        let colour = if random.chance(50) {
            format!("{:06x}", random.between(0, 0xFF_FFFF))
        } else {
            format!("{:08x}", random.between(0, u32::MAX))
        };
        params.push(format!("border={width}_{colour}"));
    }
    if random.chance(25) {
        let names = crate::gravity::Gravity::names();
        let gravity = if random.chance(25) {
            let (x, y) = (random.between(0, 1000), random.between(0, 1000));
            format!("fp:{},{}", f64::from(x) / 1000.0, f64::from(y) / 1000.0)
        } else {
            random.pick(&names).to_string()
        };
        params.push(format!("gravity={gravity}"));
    }
    match random.between(0, 9) {
        0..=2 => params.push(format!("q={}", random.between(1, 100))),
        3 => params.push("q=auto".into()),
        _ => {}
    }
    let target = match random.between(0, 19) {
        0..=3 => Target::Source,
        4 | 5 => Target::Auto,
        6..=8 => Target::Format(OutputFormat::Jpeg),
        9..=11 => Target::Format(OutputFormat::Png),
        12..=14 => Target::Format(OutputFormat::Webp),
        15 | 16 => Target::Format(OutputFormat::Tiff),
        17 | 18 => Target::Format(OutputFormat::Gif),
        _ => Target::Format(OutputFormat::Avif),
    };
    if let Target::Format(format) = target {
        params.push(format!("format={}", format.extension()));
    } else if target == Target::Auto {
        params.push("format=auto".into());
    }
    // The order of parameters never matters; shuffle it so the parser sees every order.
    for i in (1..params.len()).rev() {
        params.swap(i, random.between(0, i as u32) as usize);
    }
    (params.join("&"), target)
}

/// The photo-like test picture: colour gradients, a wave, seeded noise, and alpha that goes from opaque
/// through partial to fully transparent across the picture.
pub fn picture(width: u32, height: u32, seed: u64) -> RgbaImage {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let (fw, fh) = (width.max(2) as f32 - 1.0, height.max(2) as f32 - 1.0);
    RgbaImage::from_fn(width, height, |x, y| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let noise = (state % 40) as f32 - 20.0;
        let (u, v) = (x as f32 / fw, y as f32 / fh);
        let wave = 50.0 * (x as f32 / 11.0).sin() * (y as f32 / 17.0).cos();
        let px = |base: f32| (base + wave + noise).clamp(0.0, 255.0) as u8;
        let alpha = ((1.0 - u * v) * 300.0 - 20.0).clamp(0.0, 255.0) as u8;
        Rgba([px(255.0 * u), px(255.0 * v), px(128.0 + 80.0 * (u - v)), alpha])
    })
}

fn rgb8(rgba: &RgbaImage) -> Vec<u8> {
    rgba.pixels().flat_map(|p| [p.0[0], p.0[1], p.0[2]]).collect()
}

fn cmyk([r, g, b, _]: [u8; 4]) -> [u8; 4] {
    let k = 255 - r.max(g).max(b);
    let ink = |c: u8| {
        let d = 255 - u16::from(k);
        ((u16::from(255 - c) - u16::from(k)) * 255).checked_div(d).unwrap_or(0) as u8
    };
    [ink(r), ink(g), ink(b), k]
}

fn turbo_jpeg(
    rgba: &RgbaImage,
    subsamp: Subsamp,
    setup: impl FnOnce(&mut Compressor) -> turbojpeg::Result<()>,
) -> Result<Vec<u8>, String> {
    let mut compressor = Compressor::new().map_err(|e| e.to_string())?;
    compressor.set_quality(85).map_err(|e| e.to_string())?;
    compressor.set_subsamp(subsamp).map_err(|e| e.to_string())?;
    setup(&mut compressor).map_err(|e| e.to_string())?;
    let (w, h) = (rgba.width() as usize, rgba.height() as usize);
    let image = turbojpeg::Image {
        pixels: rgba.as_raw().as_slice(),
        width: w,
        pitch: w * 4,
        height: h,
        format: PixelFormat::RGBA,
    };
    compressor.compress_to_vec(image).map_err(|e| e.to_string())
}

fn cmyk_jpeg(rgba: &RgbaImage) -> Result<Vec<u8>, String> {
    let pixels: Vec<u8> = rgba.pixels().flat_map(|p| cmyk(p.0)).collect();
    let mut compressor = Compressor::new().map_err(|e| e.to_string())?;
    compressor.set_quality(85).map_err(|e| e.to_string())?;
    compressor.set_colorspace(Colorspace::YCCK).map_err(|e| e.to_string())?;
    let (w, h) = (rgba.width() as usize, rgba.height() as usize);
    let image =
        turbojpeg::Image { pixels: pixels.as_slice(), width: w, pitch: w * 4, height: h, format: PixelFormat::CMYK };
    compressor.compress_to_vec(image).map_err(|e| e.to_string())
}

fn restart_jpeg(rgba: &RgbaImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut out, 85);
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    encoder.set_restart_interval(4);
    let (w, h) = (
        u16::try_from(rgba.width()).map_err(|e| e.to_string())?,
        u16::try_from(rgba.height()).map_err(|e| e.to_string())?,
    );
    encoder.encode(rgba.as_raw(), w, h, jpeg_encoder::ColorType::Rgba).map_err(|e| e.to_string())?;
    Ok(out)
}

/// `jpeg` with an APP1 `Exif` segment right after SOI whose IFD0 holds one Orientation entry.
pub fn with_exif_orientation(jpeg: &[u8], orientation: u8) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&1u16.to_be_bytes()); // one IFD entry
    tiff.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
    tiff.extend_from_slice(&3u16.to_be_bytes()); // SHORT
    tiff.extend_from_slice(&1u32.to_be_bytes()); // count
    tiff.extend_from_slice(&u16::from(orientation).to_be_bytes());
    tiff.extend_from_slice(&[0, 0]); // value padding
    tiff.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
    let payload = [b"Exif\0\0".as_slice(), &tiff].concat();
    let length = (payload.len() + 2) as u16;
    [&jpeg[..2], &[0xFF, 0xE1], &length.to_be_bytes(), &payload, &jpeg[2..]].concat()
}

/// The Display P3 ICC profile, as moxcms writes it.
pub fn display_p3_profile() -> Result<Vec<u8>, String> {
    moxcms::ColorProfile::new_display_p3().encode().map_err(|e| format!("{e:?}"))
}

/// `jpeg` with `icc` in `ICC_PROFILE` APP2 segments right after SOI (one chunk per 65,519 bytes).
pub fn with_icc_profile(jpeg: &[u8], icc: &[u8]) -> Result<Vec<u8>, String> {
    const CHUNK: usize = 65_519;
    let chunks: Vec<&[u8]> = icc.chunks(CHUNK).collect();
    let count = u8::try_from(chunks.len()).map_err(|_| "the profile is too long for a JPEG")?;
    let mut out = jpeg.get(..2).ok_or("not a JPEG")?.to_vec();
    for (i, chunk) in chunks.iter().enumerate() {
        let length = (2 + 12 + 2 + chunk.len()) as u16;
        out.extend_from_slice(&[0xFF, 0xE2]);
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(b"ICC_PROFILE\0");
        out.extend_from_slice(&[i as u8 + 1, count]);
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&jpeg[2..]);
    Ok(out)
}

/// A little-endian TIFF of one page held in one strip, `strip`: the `tags` given (each a tag and its values,
/// in increasing tag order; SHORT when every value fits in 16 bits, else LONG), with `StripOffsets` (273) and
/// `StripByteCounts` (279) added in their place. Values longer than an entry's four bytes follow the
/// directory, then the strip. For layouts no encoder here writes.
pub fn one_strip_tiff(tags: &[(u16, &[u32])], strip: &[u8]) -> Vec<u8> {
    let strip_len = u32::try_from(strip.len()).unwrap_or(u32::MAX);
    let mut all: Vec<(u16, Vec<u32>)> = tags.iter().map(|(tag, values)| (*tag, values.to_vec())).collect();
    all.extend([(273, vec![0]), (279, vec![strip_len])]);
    all.sort_by_key(|(tag, _)| *tag);
    let short = |tag: u16, values: &[u32]| tag != 273 && tag != 279 && values.iter().all(|&v| v <= 0xFFFF);
    let size = |tag: u16, values: &[u32]| values.len() * if short(tag, values) { 2 } else { 4 };
    let mut outside = 8 + 2 + 12 * all.len() + 4;
    let strip_at = outside + all.iter().map(|(t, v)| size(*t, v)).filter(|&n| n > 4).sum::<usize>();
    let mut tiff = b"II*\0\x08\0\0\0".to_vec();
    tiff.extend_from_slice(&(all.len() as u16).to_le_bytes());
    let mut after = Vec::new();
    for (tag, values) in &mut all {
        if *tag == 273 {
            values[0] = u32::try_from(strip_at).unwrap_or(u32::MAX);
        }
        let bytes: Vec<u8> = if short(*tag, values) {
            values.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect()
        } else {
            values.iter().flat_map(|&v| v.to_le_bytes()).collect()
        };
        let kind: u16 = if short(*tag, values) { 3 } else { 4 };
        tiff.extend_from_slice(&tag.to_le_bytes());
        tiff.extend_from_slice(&kind.to_le_bytes());
        tiff.extend_from_slice(&(values.len() as u32).to_le_bytes());
        if bytes.len() <= 4 {
            tiff.extend_from_slice(&bytes);
            tiff.resize(tiff.len() + 4 - bytes.len(), 0);
        } else {
            tiff.extend_from_slice(&(outside as u32).to_le_bytes());
            outside += bytes.len();
            after.extend_from_slice(&bytes);
        }
    }
    tiff.extend_from_slice(&[0; 4]);
    tiff.extend_from_slice(&after);
    tiff.extend_from_slice(strip);
    tiff
}

/// A TIFF of one uncompressed strip of 2×2-subsampled YCbCr (`YCbCrSubSampling` 2, 2): for each 2×2 block,
/// left to right and top to bottom, its four lumas row by row, then its Cb and Cr — a camera layout the
/// tiff crate refuses and `crate::codecs::tiff` reads itself. `width` and `height` are even and `units` holds six
/// bytes per block.
pub fn ycbcr_subsampled_tiff(width: u32, height: u32, units: &[u8]) -> Vec<u8> {
    let tags: [(u16, &[u32]); 8] = [
        (256, &[width]),
        (257, &[height]),
        (258, &[8, 8, 8]),
        (259, &[1]),
        (262, &[6]),
        (277, &[3]),
        (278, &[height]),
        (530, &[2, 2]),
    ];
    one_strip_tiff(&tags, units)
}

/// An 8×2 fax page in CCITT Group 3, one-dimensional (compression 3, `T4Options` 0, MSB first, no fill
/// bits): its first line white, its second black, each line after an EOL — what a fax machine's TIFF
/// holds, and the layout the vendored tiff crate's `Group3Reader` reads.
pub fn group3_fax_tiff() -> Vec<u8> {
    // EOL, white run of 8 (10011); EOL, white run of 0 (00110101), black run of 8 (000101); zero padding.
    let bits = "000000000001".to_owned() + "10011" + "000000000001" + "00110101" + "000101";
    let mut strip: Vec<u8> = bits
        .as_bytes()
        .chunks(8)
        .map(|chunk| chunk.iter().enumerate().fold(0u8, |byte, (i, &bit)| byte | (u8::from(bit == b'1') << (7 - i))))
        .collect();
    strip.push(0);
    let tags: [(u16, &[u32]); 7] =
        [(256, &[8]), (257, &[2]), (258, &[1]), (259, &[3]), (262, &[0]), (277, &[1]), (278, &[2])];
    one_strip_tiff(&tags, &strip)
}

/// A 2×1 SGI LogLuv TIFF (photometric 32845, 32-bit pixels in libtiff's run-length coding, compression
/// 34676): white at luminance 1, then a sixteenth of it, both neutral — the HDR layout `crate::codecs::tiff` decodes
/// itself.
pub fn logluv32_tiff() -> Vec<u8> {
    // 15-bit log luminance (16384 is Y = 1), then 8-bit u' and v' (81, 192: near D65).
    let pixels: [u32; 2] = [(16384 << 16) | (81 << 8) | 192, ((16384 - 4 * 256) << 16) | (81 << 8) | 192];
    // One row: each byte plane, most significant first, as a literal run of two.
    let strip: Vec<u8> =
        [24, 16, 8, 0].iter().flat_map(|shift| [2, (pixels[0] >> shift) as u8, (pixels[1] >> shift) as u8]).collect();
    logluv_tiff(34676, &strip)
}

/// The same 2×1 picture as [`logluv32_tiff`] in SGI's 24-bit LogLuv (compression 34677): three bytes a
/// pixel, uncoded, a 10-bit log luminance (768 is Y = 1) and the index of the u'v' cell nearest D65 (11926).
pub fn logluv24_tiff() -> Vec<u8> {
    let pixels: [u32; 2] = [(768 << 14) | 11926, ((768 - 4 * 64) << 14) | 11926];
    let strip: Vec<u8> = pixels.iter().flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8]).collect();
    logluv_tiff(34677, &strip)
}

/// A 2×1 LogLuv page in one strip, coded as `compression` says.
fn logluv_tiff(compression: u32, strip: &[u8]) -> Vec<u8> {
    let tags: [(u16, &[u32]); 8] = [
        (256, &[2]),
        (257, &[1]),
        (258, &[16, 16, 16]),
        (259, &[compression]),
        (262, &[32845]),
        (277, &[3]),
        (278, &[1]),
        (339, &[2, 2, 2]),
    ];
    one_strip_tiff(&tags, strip)
}

/// HEIC through libheif's HEVC encoder (x265), 8-bit 4:2:0.
#[cfg(feature = "heic")]
fn heic(rgba: &RgbaImage, alpha: bool) -> Result<Vec<u8>, String> {
    use libheif_rs::{Channel, ColorSpace, CompressionFormat, EncoderQuality, HeifContext, Image, LibHeif, RgbChroma};
    let text = |e: libheif_rs::HeifError| e.to_string();
    let (width, height) = rgba.dimensions();
    let channels = if alpha { 4 } else { 3 };
    let chroma = if alpha { RgbChroma::Rgba } else { RgbChroma::Rgb };
    let mut image = Image::new(width, height, ColorSpace::Rgb(chroma)).map_err(text)?;
    image.create_plane(Channel::Interleaved, width, height, 8).map_err(text)?;
    let planes = image.planes_mut();
    let plane = planes.interleaved.ok_or("libheif made no interleaved plane")?;
    for (y, row) in rgba.rows().enumerate() {
        for (x, pixel) in row.enumerate() {
            let at = y * plane.stride + x * channels;
            plane.data[at..at + channels].copy_from_slice(&pixel.0[..channels]);
        }
    }
    let library = LibHeif::new();
    let mut encoder = library.encoder_for_format(CompressionFormat::Hevc).map_err(text)?;
    encoder.set_quality(EncoderQuality::Lossy(80)).map_err(text)?;
    let mut context = HeifContext::new().map_err(text)?;
    context.encode_image(&image, &mut encoder, None).map_err(text)?;
    context.write_to_bytes().map_err(text)
}

/// Lossless JPEG XL of 8-bit RGB or RGBA `pixels` (zune-jpegxl).
fn jpeg_xl(pixels: &[u8], width: u32, height: u32, alpha: bool) -> Result<Vec<u8>, String> {
    use zune_core::{bit_depth::BitDepth, colorspace::ColorSpace, options::EncoderOptions};
    let colour = if alpha { ColorSpace::RGBA } else { ColorSpace::RGB };
    let options = EncoderOptions::new(width as usize, height as usize, colour, BitDepth::Eight);
    let mut out = Vec::new();
    zune_jpegxl::JxlSimpleEncoder::new(pixels, options).encode(&mut out).map_err(|e| format!("{e:?}"))?;
    Ok(out)
}

fn png(kind: SampleKind, rgba: &RgbaImage) -> Result<Vec<u8>, String> {
    use png::{BitDepth, ColorType};
    let image = DynamicImage::ImageRgba8(rgba.clone());
    let (color, depth, data): (ColorType, BitDepth, Vec<u8>) = match kind {
        SampleKind::PngGray1 => {
            let gray = image.to_luma8();
            let row_bytes = gray.width().div_ceil(8) as usize;
            let mut packed = vec![0u8; row_bytes * gray.height() as usize];
            for (x, y, p) in gray.enumerate_pixels() {
                if p.0[0] >= 128 {
                    packed[y as usize * row_bytes + x as usize / 8] |= 0x80 >> (x % 8);
                }
            }
            (ColorType::Grayscale, BitDepth::One, packed)
        }
        SampleKind::PngGray8 => (ColorType::Grayscale, BitDepth::Eight, image.to_luma8().into_raw()),
        SampleKind::PngGray16 => (ColorType::Grayscale, BitDepth::Sixteen, be16(image.to_luma16().as_raw())),
        SampleKind::PngGrayAlpha => (ColorType::GrayscaleAlpha, BitDepth::Eight, image.to_luma_alpha8().into_raw()),
        SampleKind::PngRgb => (ColorType::Rgb, BitDepth::Eight, rgb8(rgba)),
        SampleKind::PngRgb16 => (ColorType::Rgb, BitDepth::Sixteen, be16(image.to_rgb16().as_raw())),
        _ => (ColorType::Rgba, BitDepth::Eight, rgba.as_raw().clone()),
    };
    write_png(rgba.width(), rgba.height(), color, depth, None, &data)
}

fn be16(samples: &[u16]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.to_be_bytes()).collect()
}

/// 16 colours from the picture's top bits, the darkest four of them transparent or half so.
fn palette_png(rgba: &RgbaImage) -> Result<Vec<u8>, String> {
    let palette: Vec<u8> = (0..16u8).flat_map(|i| [i * 17, 255 - i * 17, i.wrapping_mul(40)]).collect();
    let trns: Vec<u8> = (0..16u8)
        .map(|i| match i {
            0 | 1 => 0,
            2 | 3 => 128,
            _ => 255,
        })
        .collect();
    let indices: Vec<u8> = rgba.pixels().map(|p| (p.0[0] >> 6) << 2 | (p.0[1] >> 6)).collect();
    write_png(
        rgba.width(),
        rgba.height(),
        png::ColorType::Indexed,
        png::BitDepth::Eight,
        Some((&palette, &trns)),
        &indices,
    )
}

fn write_png(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    palette: Option<(&[u8], &[u8])>,
    data: &[u8],
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if let Some((palette, trns)) = palette {
        encoder.set_palette(palette.to_vec());
        encoder.set_trns(trns.to_vec());
    }
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(data).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The picture and two variations of it (shifted noise, inverted colours): three frames of an animation.
fn frames(rgba: &RgbaImage, seed: u64) -> Vec<RgbaImage> {
    let second = picture(rgba.width(), rgba.height(), seed.wrapping_add(1));
    let mut third = rgba.clone();
    for p in third.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    vec![rgba.clone(), second, third]
}

fn animated_webp(rgba: &RgbaImage, seed: u64) -> Result<Vec<u8>, String> {
    let config = webp::WebPConfig::new().map_err(|()| "WebPConfig")?;
    let frames = frames(rgba, seed);
    let mut encoder = webp::AnimEncoder::new(rgba.width(), rgba.height(), &config);
    for (i, frame) in frames.iter().enumerate() {
        encoder.add_frame(webp::AnimFrame::from_rgba(frame.as_raw(), frame.width(), frame.height(), i as i32 * 100));
    }
    encoder.try_encode().map(|memory| memory.to_vec()).map_err(|e| format!("{e:?}"))
}

fn gif(frames: &[RgbaImage]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new_with_speed(&mut out, 30);
        let frames =
            frames.iter().map(|f| image::Frame::from_parts(f.clone(), 0, 0, image::Delay::from_numer_denom_ms(100, 1)));
        encoder.encode_frames(frames).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn write_tiff<C: tiff::encoder::colortype::ColorType>(
    data: &[C::Inner],
    width: u32,
    height: u32,
    lzw: bool,
) -> Result<Vec<u8>, String>
where
    [C::Inner]: tiff::encoder::TiffValue,
{
    let mut out = Cursor::new(Vec::new());
    let compression = if lzw { tiff::encoder::Compression::Lzw } else { tiff::encoder::Compression::Uncompressed };
    let mut encoder =
        tiff::encoder::TiffEncoder::new(&mut out).map_err(|e| e.to_string())?.with_compression(compression);
    encoder.write_image::<C>(width, height, data).map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

fn bmp(image: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let encoder = BmpEncoder::new(&mut out);
    image.write_with_encoder(encoder).map_err(|e| e.to_string())?;
    Ok(out)
}
