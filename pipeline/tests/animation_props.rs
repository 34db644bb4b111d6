//! Animations over the input space: generated GIFs (every disposal method, local palettes, transparency,
//! frames placed anywhere on the canvas), APNGs (every dispose and blend op) and animated WebPs
//! (libwebp's encoder choosing sub-frames, blending and disposal), 1 to 300 frames of 1×1 to 1000×1000,
//! delays 0–65535 cs, loop counts 0–65535, each rendered with random valid queries. Every output decodes; it
//! is animated exactly when it should be, with the source's frame count, delays and loop count; and each
//! frame is the still pipeline's render of that composited source frame, within the lossy encoders' error.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{borrow::Cow, io::Cursor};

use image::{AnimationDecoder, DynamicImage, RgbaImage, codecs::gif::GifDecoder, codecs::webp::WebPDecoder};
use proptest::prelude::*;
use shutterbox_pipeline::{OutputFormat, RenderOptions, SourceFormat, Target, Transform, render};

/// One generated frame: where it goes, how it is disposed, how long it shows.
#[derive(Debug, Clone)]
struct FrameSpec {
    /// Left, top, width, height as fractions of the canvas (0–255 each), so every canvas size has frames.
    rect: [u8; 4],
    dispose: u8,
    blend: bool,
    transparent: bool,
    delay_cs: u16,
    seed: u64,
}

#[derive(Debug, Clone)]
struct AnimationSpec {
    width: u32,
    height: u32,
    frames: Vec<FrameSpec>,
    loops: u16,
}

fn frame_spec() -> impl Strategy<Value = FrameSpec> {
    (any::<[u8; 4]>(), 0u8..4, any::<bool>(), any::<bool>(), prop_oneof![0u16..20, any::<u16>()], any::<u64>())
        .prop_map(|(rect, dispose, blend, transparent, delay_cs, seed)| FrameSpec {
            rect,
            dispose,
            blend,
            transparent,
            delay_cs,
            seed,
        })
}

/// 1×1 to 1000×1000, 1 to 300 frames, no more than a million pixels over all frames so a case stays quick.
fn animation_spec() -> impl Strategy<Value = AnimationSpec> {
    (prop_oneof![1u32..8, 1u32..1001], prop_oneof![1u32..8, 1u32..1001], 1usize..301, any::<u16>()).prop_flat_map(
        |(width, height, frames, loops)| {
            let frames = frames.min((1_000_000 / (width * height) as usize).max(1));
            prop::collection::vec(frame_spec(), frames).prop_map(move |frames| AnimationSpec {
                width,
                height,
                frames,
                loops,
            })
        },
    )
}

/// The frame's rectangle on the canvas, at least 1×1 and inside it.
fn placed(spec: &FrameSpec, width: u32, height: u32) -> (u32, u32, u32, u32) {
    let [l, t, w, h] = spec.rect.map(u32::from);
    let left = l * (width - 1) / 255;
    let top = t * (height - 1) / 255;
    let w = (1 + w * (width - left - 1) / 255).max(1);
    let h = (1 + h * (height - top - 1) / 255).max(1);
    (left, top, w, h)
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

fn gif(spec: &AnimationSpec) -> Vec<u8> {
    let (w, h) = (spec.width as u16, spec.height as u16);
    let mut out = Vec::new();
    {
        let mut encoder = gif::Encoder::new(&mut out, w, h, &[]).unwrap();
        match spec.loops {
            1 => {}
            0 => encoder.set_repeat(gif::Repeat::Infinite).unwrap(),
            plays => encoder.set_repeat(gif::Repeat::Finite(plays - 1)).unwrap(),
        }
        for frame in &spec.frames {
            let (left, top, fw, fh) = placed(frame, spec.width, spec.height);
            let indices: Vec<u8> =
                (0..fh).flat_map(|y| (0..fw).map(move |x| block_colour(frame.seed, x + left, y + top) as u8)).collect();
            let dispose = [
                gif::DisposalMethod::Any,
                gif::DisposalMethod::Keep,
                gif::DisposalMethod::Background,
                gif::DisposalMethod::Previous,
            ][usize::from(frame.dispose)];
            encoder
                .write_frame(&gif::Frame {
                    left: left as u16,
                    top: top as u16,
                    width: fw as u16,
                    height: fh as u16,
                    delay: frame.delay_cs,
                    dispose,
                    transparent: frame.transparent.then_some(0),
                    // Interlaced sub-frames of some sizes come back "truncated" from the gif crate's own
                    // round trip (encoder or decoder, not yet known): left out until that is settled.
                    interlaced: false,
                    palette: Some(palette(frame.seed)),
                    buffer: Cow::Owned(indices),
                    needs_user_input: false,
                })
                .unwrap();
        }
    }
    out
}

fn apng(spec: &AnimationSpec) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, spec.width, spec.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_animated(spec.frames.len() as u32, u32::from(spec.loops)).unwrap();
        let mut writer = encoder.write_header().unwrap();
        for (i, frame) in spec.frames.iter().enumerate() {
            // The first frame is the default image: the whole canvas.
            let (left, top, fw, fh) =
                if i == 0 { (0, 0, spec.width, spec.height) } else { placed(frame, spec.width, spec.height) };
            // Each is checked against the other's current value: shrink first, then move, then size.
            writer.set_frame_dimension(1, 1).unwrap();
            writer.set_frame_position(left, top).unwrap();
            writer.set_frame_dimension(fw, fh).unwrap();
            writer.set_frame_delay(frame.delay_cs, 100).unwrap();
            let dispose =
                [png::DisposeOp::None, png::DisposeOp::Background, png::DisposeOp::Previous, png::DisposeOp::None]
                    [usize::from(frame.dispose)];
            writer.set_dispose_op(dispose).unwrap();
            writer.set_blend_op(if frame.blend { png::BlendOp::Over } else { png::BlendOp::Source }).unwrap();
            let colours = palette(frame.seed);
            let pixels: Vec<u8> = (0..fh)
                .flat_map(|y| (0..fw).map(move |x| (x, y)))
                .flat_map(|(x, y)| {
                    let c = block_colour(frame.seed, x + left, y + top);
                    let alpha = if frame.transparent && c == 0 { 0 } else { 255 };
                    [colours[c * 3], colours[c * 3 + 1], colours[c * 3 + 2], alpha]
                })
                .collect();
            writer.write_image_data(&pixels).unwrap();
        }
        writer.finish().unwrap();
    }
    out
}

/// A decoded animation: composited frames, delays in milliseconds, loop count (0 for ever).
struct Decoded {
    frames: Vec<RgbaImage>,
    delays_ms: Vec<u32>,
}

fn decode_frames(bytes: &[u8]) -> Decoded {
    let mut decoded = Decoded { frames: Vec::new(), delays_ms: Vec::new() };
    let frames = match SourceFormat::detect(bytes) {
        Some(SourceFormat::Gif) => GifDecoder::new(Cursor::new(bytes)).unwrap().into_frames(),
        // libwebp's animation decoder: the format's reference compositing.
        Some(SourceFormat::Webp) => {
            let animation = webp::AnimDecoder::new(bytes).decode().unwrap();
            let mut previous = 0;
            for frame in &animation {
                decoded.delays_ms.push((frame.get_time_ms() - previous) as u32);
                previous = frame.get_time_ms();
                let pixels = frame.get_image().to_vec();
                decoded.frames.push(RgbaImage::from_raw(frame.width(), frame.height(), pixels).unwrap());
            }
            return decoded;
        }
        Some(SourceFormat::Png) => {
            image::codecs::png::PngDecoder::new(Cursor::new(bytes)).unwrap().apng().unwrap().into_frames()
        }
        other => panic!("not an animation: {other:?}"),
    };
    for frame in frames {
        let frame = frame.unwrap();
        let (n, d) = frame.delay().numer_denom_ms();
        decoded.delays_ms.push((n + d / 2) / d.max(1));
        decoded.frames.push(frame.into_buffer());
    }
    decoded
}

/// The loop count an animated GIF or WebP declares (0 for ever; a GIF without one plays once).
fn loops_of(bytes: &[u8]) -> u16 {
    if bytes.starts_with(b"GIF") {
        let decoder = gif::DecodeOptions::new().read_info(Cursor::new(bytes)).unwrap();
        return match decoder.repeat() {
            gif::Repeat::Infinite => 0,
            gif::Repeat::Finite(0) => 1,
            gif::Repeat::Finite(n) => n.saturating_add(1),
        };
    }
    let decoder = WebPDecoder::new(Cursor::new(bytes)).unwrap();
    match decoder.loop_count() {
        image::metadata::LoopCount::Infinite => 0,
        image::metadata::LoopCount::Finite(n) => n.get() as u16,
    }
}

/// Mean absolute difference of premultiplied RGBA (what shows; colour under a transparent pixel is free),
/// or for a 4:2:0 format of premultiplied luma and alpha, which it does not subsample (its chroma at a
/// few pixels a side differs from any full-resolution reference by more than its coding does).
fn difference(a: &RgbaImage, b: &RgbaImage, subsampled: bool) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
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
    total as f64 / ((if subsampled { 2 } else { 4 }) * a.width() * a.height()) as f64
}

fn png_of(image: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(image.clone()).write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).unwrap();
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Gif,
    Apng,
    Webp,
}

fn query() -> impl Strategy<Value = (String, Target)> {
    let size = prop_oneof![
        Just(String::new()),
        (1u32..400).prop_map(|w| format!("&w={w}")),
        (1u32..400, 1u32..400, 0usize..5)
            .prop_map(|(w, h, f)| format!("&w={w}&h={h}&fit={}", ["cover", "contain", "fill", "inside", "outside"][f]))
    ];
    let extra = prop_oneof![
        Just(""),
        Just("&gray=true"),
        Just("&rot=90"),
        Just("&blur=1.5"),
        Just("&border=2_ff000080"),
        Just("&anim=false")
    ];
    let target = prop_oneof![
        Just(Target::Source),
        Just(Target::Auto),
        Just(Target::Format(OutputFormat::Gif)),
        Just(Target::Format(OutputFormat::Webp)),
        Just(Target::Format(OutputFormat::Png)),
        Just(Target::Format(OutputFormat::Jpeg)),
    ];
    (size, extra, target).prop_map(|(size, extra, target)| (format!("q=90{size}{extra}"), target))
}

fn check(kind: Kind, spec: &AnimationSpec, query: &str, target: Target) {
    let gif_source = gif(spec);
    let source = match kind {
        Kind::Gif => gif_source,
        Kind::Apng => apng(spec),
        // libwebp's own animation encoder makes the WebP source (sub-frames, blending and disposal of its
        // choosing), from the GIF.
        Kind::Webp => {
            let lossless = Transform::from_query("q=100").unwrap();
            render(&gif_source, &lossless, Target::Format(OutputFormat::Webp), RenderOptions::default()).unwrap().bytes
        }
    };
    let transform = Transform::from_query(query).unwrap();
    let rendered = render(&source, &transform, target, RenderOptions::default())
        .unwrap_or_else(|e| panic!("{kind:?} {spec:?} {query} {target:?}: {e}"));
    let source_frames = decode_frames(&source);
    let count = source_frames.frames.len();
    let animates = count > 1 && !transform.still && matches!(rendered.format, OutputFormat::Gif | OutputFormat::Webp);
    let context = || format!("{kind:?} {}x{} of {count} frames, {query} as {target:?}", spec.width, spec.height);
    if !animates {
        let image = image::load_from_memory(&rendered.bytes).unwrap_or_else(|e| panic!("{}: {e}", context()));
        assert_eq!((image.width(), image.height()), (rendered.width, rendered.height), "{}", context());
        return;
    }
    let output = decode_frames(&rendered.bytes);
    assert_eq!(output.frames.len(), count, "{}: frame count", context());
    let expected_delays: Vec<u32> = match rendered.format {
        // A GIF stores hundredths of a second.
        OutputFormat::Gif => source_frames.delays_ms.iter().map(|ms| (ms + 5) / 10 * 10).collect(),
        _ => source_frames.delays_ms.clone(),
    };
    assert_eq!(output.delays_ms, expected_delays, "{}: delays", context());
    assert_eq!(loops_of(&rendered.bytes), spec.loops, "{}: loop count", context());
    // Each frame against the still pipeline's render of the composited source frame, losslessly.
    let still = Transform { format: None, still: true, ..transform };
    let bound = if rendered.format == OutputFormat::Gif { 12.0 } else { 10.0 };
    for (i, (frame, composited)) in output.frames.iter().zip(&source_frames.frames).enumerate() {
        let reference =
            render(&png_of(composited), &still, Target::Format(OutputFormat::Png), RenderOptions::default()).unwrap();
        let mut reference = image::load_from_memory(&reference.bytes).unwrap().to_rgba8();
        if rendered.format == OutputFormat::Gif {
            // GIF's transparency is all or nothing (at half opacity).
            for pixel in reference.pixels_mut() {
                pixel.0 = if pixel.0[3] < 128 { [0; 4] } else { [pixel.0[0], pixel.0[1], pixel.0[2], 255] };
            }
        }
        let diff = difference(frame, &reference, rendered.format == OutputFormat::Webp);
        assert!(diff < bound, "{}: frame {i} is {diff:.2} from the still render", context());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn gif_sources(spec in animation_spec(), (query, target) in query()) {
        check(Kind::Gif, &spec, &query, target);
    }

    #[test]
    fn apng_sources(spec in animation_spec(), (query, target) in query()) {
        check(Kind::Apng, &spec, &query, target);
    }

    #[test]
    fn webp_sources(spec in animation_spec(), (query, target) in query()) {
        check(Kind::Webp, &spec, &query, target);
    }
}

/// The budget on an animated render's source pixels refuses before decoding, naming the limit, and
/// `anim=false` renders the first frame within it.
#[test]
fn the_animation_budget_is_checked_on_the_headers() {
    let spec = AnimationSpec {
        width: 100,
        height: 100,
        frames: (0..10)
            .map(|i| FrameSpec {
                rect: [0, 0, 255, 255],
                dispose: 1,
                blend: false,
                transparent: false,
                delay_cs: 10,
                seed: i,
            })
            .collect(),
        loops: 0,
    };
    let source = gif(&spec);
    let options = RenderOptions { max_animation_pixels: 99_999, ..RenderOptions::default() };
    let animated = Transform::from_query("w=50").unwrap();
    let err = render(&source, &animated, Target::Source, options).unwrap_err();
    assert!(err.is_client_error() && err.to_string().contains("99999"), "{err}");
    let still = Transform::from_query("w=50&anim=false").unwrap();
    assert_eq!(render(&source, &still, Target::Source, options).unwrap().format, OutputFormat::Gif);
    let within = RenderOptions { max_animation_pixels: 100_000, ..RenderOptions::default() };
    assert_eq!(decode_frames(&render(&source, &animated, Target::Source, within).unwrap().bytes).frames.len(), 10);
}
