//! Generated animations and the property every render of one must hold, for the animation property suite
//! (`tests/animation_props.rs`) and the `render` fuzz target: GIFs (every disposal method, local palettes,
//! transparency, interlaced frames, frames placed anywhere on the canvas), APNGs (every dispose and blend
//! op) and animated WebPs (libwebp's encoder choosing sub-frames, blending and disposal).

use std::{borrow::Cow, io::Cursor};

use image::{AnimationDecoder, DynamicImage, RgbaImage, codecs::gif::GifDecoder, codecs::webp::WebPDecoder};

use super::{Choices, panic_message};
use crate::{OutputFormat, RenderOptions, SourceFormat, Target, Transform, render};

/// The container an animation is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimationKind {
    Gif,
    Apng,
    /// Written by libwebp's animation encoder (losslessly, through the pipeline) from the GIF.
    Webp,
}

impl AnimationKind {
    pub const ALL: [Self; 3] = [Self::Gif, Self::Apng, Self::Webp];
}

/// One frame: where it goes, how it is disposed and blended, how long it shows.
#[derive(Debug, Clone)]
pub struct FrameSpec {
    /// Left, top, width, height as fractions of the canvas (0–255 each), so every canvas size has frames.
    pub rect: [u8; 4],
    /// 0–3: GIF's unspecified, keep, background, previous; APNG's none, background, previous, none.
    pub dispose: u8,
    /// APNG only: over (blended) or source.
    pub blend: bool,
    /// Colour 0 of the frame is transparent.
    pub transparent: bool,
    /// GIF only: rows stored in the four interlace passes.
    pub interlaced: bool,
    pub delay_cs: u16,
    pub seed: u64,
}

#[derive(Debug, Clone)]
pub struct AnimationSpec {
    pub width: u32,
    pub height: u32,
    pub frames: Vec<FrameSpec>,
    /// Plays: 0 for ever.
    pub loops: u16,
}

impl AnimationSpec {
    /// A spec drawn from `random`: sides 1 to `largest_side`, 1 to `max_frames` frames.
    pub fn generate(random: &mut impl Choices, largest_side: u32, max_frames: u32) -> Self {
        let width = random.between(1, largest_side.clamp(1, u32::from(u16::MAX)));
        let height = random.between(1, largest_side.clamp(1, u32::from(u16::MAX)));
        let count = random.between(1, max_frames.max(1));
        let frames = (0..count)
            .map(|_| FrameSpec {
                rect: [0; 4].map(|_| random.between(0, 255) as u8),
                dispose: random.between(0, 3) as u8,
                blend: random.chance(50),
                transparent: random.chance(50),
                interlaced: random.chance(50),
                delay_cs: if random.chance(70) { random.between(0, 19) } else { random.between(0, 65_535) } as u16,
                seed: u64::from(random.between(0, u32::MAX)) << 32 | u64::from(random.between(0, u32::MAX)),
            })
            .collect();
        let loops = random.between(0, 65_535) as u16;
        Self { width, height, frames, loops }
    }

    /// The animation in `kind`'s container.
    pub fn encode(&self, kind: AnimationKind) -> Vec<u8> {
        match kind {
            AnimationKind::Gif => self.gif(),
            AnimationKind::Apng => self.apng(),
            AnimationKind::Webp => {
                let lossless = Transform::from_query("q=100").unwrap_or_default();
                render(&self.gif(), &lossless, Target::Format(OutputFormat::Webp), RenderOptions::default())
                    .map(|rendered| rendered.bytes)
                    .unwrap_or_default()
            }
        }
    }

    /// The frame's rectangle on the canvas, at least 1×1 and inside it.
    fn placed(&self, frame: &FrameSpec) -> (u32, u32, u32, u32) {
        let [l, t, w, h] = frame.rect.map(u32::from);
        let left = l * (self.width - 1) / 255;
        let top = t * (self.height - 1) / 255;
        let w = (1 + w * (self.width - left - 1) / 255).max(1);
        let h = (1 + h * (self.height - top - 1) / 255).max(1);
        (left, top, w, h)
    }

    fn gif(&self) -> Vec<u8> {
        let (w, h) = (self.width as u16, self.height as u16);
        let mut out = Vec::new();
        let Ok(mut encoder) = gif::Encoder::new(&mut out, w, h, &[]) else { return Vec::new() };
        let _ = match self.loops {
            1 => Ok(()),
            0 => encoder.set_repeat(gif::Repeat::Infinite),
            plays => encoder.set_repeat(gif::Repeat::Finite(plays - 1)),
        };
        for frame in &self.frames {
            let (left, top, fw, fh) = self.placed(frame);
            // An interlaced frame stores every 8th row from 0, every 8th from 4, every 4th from 2, then
            // the odd rows.
            let rows: Vec<u32> = if frame.interlaced {
                [(0, 8), (4, 8), (2, 4), (1, 2)].iter().flat_map(|&(first, step)| (first..fh).step_by(step)).collect()
            } else {
                (0..fh).collect()
            };
            let indices: Vec<u8> = rows
                .iter()
                .flat_map(|&y| (0..fw).map(move |x| block_colour(frame.seed, x + left, y + top) as u8))
                .collect();
            let dispose = [
                gif::DisposalMethod::Any,
                gif::DisposalMethod::Keep,
                gif::DisposalMethod::Background,
                gif::DisposalMethod::Previous,
            ][usize::from(frame.dispose % 4)];
            let _ = encoder.write_frame(&gif::Frame {
                left: left as u16,
                top: top as u16,
                width: fw as u16,
                height: fh as u16,
                delay: frame.delay_cs,
                dispose,
                transparent: frame.transparent.then_some(0),
                interlaced: frame.interlaced,
                palette: Some(palette(frame.seed)),
                buffer: Cow::Owned(indices),
                needs_user_input: false,
            });
        }
        drop(encoder);
        out
    }

    fn apng(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let written = (|| -> Result<(), png::EncodingError> {
            let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_animated(self.frames.len() as u32, u32::from(self.loops))?;
            let mut writer = encoder.write_header()?;
            for (i, frame) in self.frames.iter().enumerate() {
                // The first frame is the default image: the whole canvas.
                let (left, top, fw, fh) = if i == 0 { (0, 0, self.width, self.height) } else { self.placed(frame) };
                // Each is checked against the other's current value: shrink first, then move, then size.
                writer.set_frame_dimension(1, 1)?;
                writer.set_frame_position(left, top)?;
                writer.set_frame_dimension(fw, fh)?;
                writer.set_frame_delay(frame.delay_cs, 100)?;
                let dispose =
                    [png::DisposeOp::None, png::DisposeOp::Background, png::DisposeOp::Previous, png::DisposeOp::None]
                        [usize::from(frame.dispose % 4)];
                writer.set_dispose_op(dispose)?;
                writer.set_blend_op(if frame.blend { png::BlendOp::Over } else { png::BlendOp::Source })?;
                let colours = palette(frame.seed);
                let pixels: Vec<u8> = (0..fh)
                    .flat_map(|y| (0..fw).map(move |x| (x, y)))
                    .flat_map(|(x, y)| {
                        let c = block_colour(frame.seed, x + left, y + top);
                        let alpha = if frame.transparent && c == 0 { 0 } else { 255 };
                        [colours[c * 3], colours[c * 3 + 1], colours[c * 3 + 2], alpha]
                    })
                    .collect();
                writer.write_image_data(&pixels)?;
            }
            writer.finish()
        })();
        if written.is_err() {
            return Vec::new();
        }
        out
    }
}

/// A frame's pictures are blocks of a few colours, so the lossy encoders' error stays small and comparable.
fn block_colour(seed: u64, x: u32, y: u32) -> usize {
    let block = u64::from(x / 8) * 7919 + u64::from(y / 8) * 104_729;
    ((seed ^ block).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) as usize
}

fn palette(seed: u64) -> Vec<u8> {
    (0..8u64)
        .flat_map(|i| {
            let v = (seed.rotate_left(i as u32 * 8) ^ i.wrapping_mul(0xA24B_AED4_963E_E407)).to_le_bytes();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// A request on an animation: `q=90` (so the lossy encoders' error stays within the bound below), a size
/// (none, a width, or a box with each fit), at most one other step or `anim=false`, and a target.
pub fn animation_request(random: &mut impl Choices) -> (String, Target) {
    let size = match random.between(0, 2) {
        0 => String::new(),
        1 => format!("&w={}", random.between(1, 399)),
        _ => format!("&w={}&h={}&fit={}", random.between(1, 399), random.between(1, 399), random.pick(&super::FITS)),
    };
    let extra = random.pick(&["", "&gray=true", "&rot=90", "&blur=1.5", "&border=2_ff000080", "&anim=false"]);
    let target = random.pick(&[
        Target::Source,
        Target::Auto,
        Target::Format(OutputFormat::Gif),
        Target::Format(OutputFormat::Webp),
        Target::Format(OutputFormat::Png),
        Target::Format(OutputFormat::Jpeg),
    ]);
    (format!("q=90{size}{extra}"), target)
}

/// The animation property for one request: `query` on `spec` written as `kind` renders into `target`; the
/// output decodes; it is animated exactly when the source has frames to animate, the output format is
/// animated (GIF, WebP) and `anim=false` is not asked; then it has the source's frame count, delays (GIF's
/// rounded to hundredths) and loop count, and each frame is the still pipeline's render of that composited
/// source frame: a GIF's exactly the still GIF (each frame quantised as a still image is), a WebP's within
/// lossy coding's error of the lossless still render (a mean absolute difference of premultiplied luma and
/// alpha, as WebP subsamples chroma, of at most 10). `Err` describes a violation; a panic inside a render
/// is one too.
pub fn check_animation(kind: AnimationKind, spec: &AnimationSpec, query: &str, target: Target) -> Result<(), String> {
    let source = spec.encode(kind);
    let context = |count: usize| {
        format!("{kind:?} {}x{} of {count} frames, ?{query} → {}", spec.width, spec.height, target.as_str())
    };
    let transform = Transform::from_query(query).map_err(|e| format!("{}: invalid query: {e}", context(0)))?;
    let guarded = |f: &dyn Fn() -> Result<crate::Rendered, crate::PipelineError>| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .map_err(|panic| format!("{}: panicked: {}", context(0), panic_message(&panic)))
    };
    let rendered = guarded(&|| render(&source, &transform, target, RenderOptions::default()))?
        .map_err(|e| format!("{}: {e}", context(0)))?;
    let source_frames = decode_frames(&source).map_err(|e| format!("{}: the source: {e}", context(0)))?;
    let count = source_frames.frames.len();
    let context = || context(count);
    let animates = count > 1 && !transform.still && matches!(rendered.format, OutputFormat::Gif | OutputFormat::Webp);
    if !animates {
        let image = image::load_from_memory(&rendered.bytes).map_err(|e| format!("{}: {e}", context()))?;
        if (image.width(), image.height()) != (rendered.width, rendered.height) {
            return Err(format!("{}: decodes as {}x{}", context(), image.width(), image.height()));
        }
        return Ok(());
    }
    let output = decode_frames(&rendered.bytes).map_err(|e| format!("{}: the output: {e}", context()))?;
    if output.frames.len() != count {
        return Err(format!("{}: {} frames out", context(), output.frames.len()));
    }
    let expected_delays: Vec<u32> = match rendered.format {
        // A GIF stores hundredths of a second.
        OutputFormat::Gif => source_frames.delays_ms.iter().map(|ms| (ms + 5) / 10 * 10).collect(),
        _ => source_frames.delays_ms.clone(),
    };
    if output.delays_ms != expected_delays {
        return Err(format!("{}: delays {:?}, expected {expected_delays:?}", context(), output.delays_ms));
    }
    let loops = loops_of(&rendered.bytes).map_err(|e| format!("{}: {e}", context()))?;
    if loops != spec.loops {
        return Err(format!("{}: loop count {loops}, expected {}", context(), spec.loops));
    }
    // Each frame against the still pipeline's render of the composited source frame: as a GIF for a GIF
    // (the same quantiser on the same pixels: exactly), losslessly for a WebP.
    let still = Transform { format: None, still: true, ..transform };
    let (reference_format, bound) = match rendered.format {
        OutputFormat::Gif => (OutputFormat::Gif, 0.0),
        _ => (OutputFormat::Png, 10.0),
    };
    for (i, (frame, composited)) in output.frames.iter().zip(&source_frames.frames).enumerate() {
        let png = png_of(composited)?;
        let reference = guarded(&|| render(&png, &still, Target::Format(reference_format), RenderOptions::default()))?
            .map_err(|e| format!("{}: the still render of frame {i}: {e}", context()))?;
        let reference = image::load_from_memory(&reference.bytes).map_err(|e| e.to_string())?.to_rgba8();
        if frame.dimensions() != reference.dimensions() {
            let (frame, reference) = (frame.dimensions(), reference.dimensions());
            return Err(format!("{}: frame {i} is {frame:?}, the still render {reference:?}", context()));
        }
        let diff = difference(frame, &reference, rendered.format == OutputFormat::Webp);
        if diff > bound {
            return Err(format!("{}: frame {i} is {diff:.2} from the still render", context()));
        }
    }
    Ok(())
}

/// A decoded animation: composited frames and their delays in milliseconds.
struct Decoded {
    frames: Vec<RgbaImage>,
    delays_ms: Vec<u32>,
}

/// The frames as the formats' reference decoders composite them: the `image` crate's for GIF and APNG,
/// libwebp's animation decoder for WebP.
fn decode_frames(bytes: &[u8]) -> Result<Decoded, String> {
    let mut decoded = Decoded { frames: Vec::new(), delays_ms: Vec::new() };
    let frames = match SourceFormat::detect(bytes) {
        Some(SourceFormat::Gif) => GifDecoder::new(Cursor::new(bytes)).map_err(|e| e.to_string())?.into_frames(),
        Some(SourceFormat::Webp) => {
            let animation = webp::AnimDecoder::new(bytes).decode()?;
            let mut previous = 0;
            for frame in &animation {
                decoded.delays_ms.push((frame.get_time_ms() - previous) as u32);
                previous = frame.get_time_ms();
                let pixels = frame.get_image().to_vec();
                let image = RgbaImage::from_raw(frame.width(), frame.height(), pixels).ok_or("a short WebP frame")?;
                decoded.frames.push(image);
            }
            return Ok(decoded);
        }
        Some(SourceFormat::Png) => image::codecs::png::PngDecoder::new(Cursor::new(bytes))
            .and_then(|decoder| decoder.apng())
            .map_err(|e| e.to_string())?
            .into_frames(),
        other => return Err(format!("not an animation: {other:?}")),
    };
    for frame in frames {
        let frame = frame.map_err(|e| e.to_string())?;
        let (n, d) = frame.delay().numer_denom_ms();
        decoded.delays_ms.push((n + d / 2) / d.max(1));
        decoded.frames.push(frame.into_buffer());
    }
    Ok(decoded)
}

/// The loop count an animated GIF or WebP declares (0 for ever; a GIF without one plays once).
fn loops_of(bytes: &[u8]) -> Result<u16, String> {
    if bytes.starts_with(b"GIF") {
        let decoder = gif::DecodeOptions::new().read_info(Cursor::new(bytes)).map_err(|e| e.to_string())?;
        return Ok(match decoder.repeat() {
            gif::Repeat::Infinite => 0,
            gif::Repeat::Finite(0) => 1,
            gif::Repeat::Finite(n) => n.saturating_add(1),
        });
    }
    let decoder = WebPDecoder::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    Ok(match decoder.loop_count() {
        image::metadata::LoopCount::Infinite => 0,
        image::metadata::LoopCount::Finite(n) => u16::try_from(n.get()).unwrap_or(u16::MAX),
    })
}

/// Mean absolute difference of premultiplied RGBA (what shows; colour under a transparent pixel is free),
/// or for a 4:2:0 format of premultiplied luma and alpha, which it does not subsample (its chroma at a
/// few pixels a side differs from any full-resolution reference by more than its coding does).
fn difference(a: &RgbaImage, b: &RgbaImage, subsampled: bool) -> f64 {
    let premultiplied = |p: &image::Rgba<u8>| {
        let [r, g, b, a] = p.0.map(u32::from);
        let [r, g, b] = [r * a / 255, g * a / 255, b * a / 255];
        if subsampled { [(299 * r + 587 * g + 114 * b) / 1000, a, 0, 0] } else { [r, g, b, a] }
    };
    let total: u64 = a
        .pixels()
        .zip(b.pixels())
        .map(|(p, q)| premultiplied(p).iter().zip(premultiplied(q)).map(|(x, y)| u64::from(x.abs_diff(y))).sum::<u64>())
        .sum();
    total as f64 / f64::from((if subsampled { 2 } else { 4 }) * a.width() * a.height())
}

fn png_of(image: &RgbaImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(image.clone())
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out)
}
