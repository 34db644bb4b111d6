//! Animations over the input space: generated GIFs, APNGs and animated WebPs (`samples::AnimationSpec`:
//! every disposal and blend mode, local palettes, transparency, interlaced frames, frames anywhere on the
//! canvas), 1 to 300 frames of 1×1 to 1000×1000, delays 0–65535 cs, loop counts 0–65535, each rendered with
//! random valid queries (`samples::animation_request`) and checked by `samples::check_animation`: the
//! output decodes; it is animated exactly when it should be, with the source's frame count, delays and
//! loop count; and each frame is the still pipeline's render of that composited source frame, within the
//! lossy encoders' error. proptest shrinks a failing animation to its smallest.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use shutterbox_pipeline::{
    OutputFormat, RenderOptions, Target, Transform, render,
    samples::{AnimationKind, AnimationSpec, FrameSpec, Seeded, animation_request, check_animation},
};

use crate::common;

fn frame_spec() -> impl Strategy<Value = FrameSpec> {
    (
        any::<[u8; 4]>(),
        0u8..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![0u16..20, any::<u16>()],
        any::<u64>(),
    )
        .prop_map(|(rect, dispose, blend, transparent, interlaced, delay_cs, seed)| FrameSpec {
            rect,
            dispose,
            blend,
            transparent,
            interlaced,
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

fn check(kind: AnimationKind, spec: &AnimationSpec, request_seed: u64) {
    let (query, target) = animation_request(&mut Seeded(request_seed | 1));
    if let Err(violation) = check_animation(kind, spec, &query, target) {
        panic!("{violation}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn gif_sources(spec in animation_spec(), request in any::<u64>()) {
        check(AnimationKind::Gif, &spec, request);
    }

    #[test]
    fn apng_sources(spec in animation_spec(), request in any::<u64>()) {
        check(AnimationKind::Apng, &spec, request);
    }

    #[test]
    fn webp_sources(spec in animation_spec(), request in any::<u64>()) {
        check(AnimationKind::Webp, &spec, request);
    }

    /// Canvases of 1–3 pixels a side, where every frame is one or two colours and consecutive frames are
    /// often identical: found the lossy WebP encoder blending a partly transparent pixel over itself
    /// (third_party/libwebp-sys/README.md).
    #[test]
    fn tiny_canvases(
        spec in (1u32..4, 1u32..4, 2usize..100, any::<u16>()).prop_flat_map(|(width, height, frames, loops)| {
            prop::collection::vec(frame_spec(), frames)
                .prop_map(move |frames| AnimationSpec { width, height, frames, loops })
        }),
        kind in prop::sample::select(AnimationKind::ALL.to_vec()),
        request in any::<u64>(),
    ) {
        check(kind, &spec, request);
    }
}

/// The budget on an animated render's source pixels refuses before decoding, naming the limit, and
/// `anim=false` renders the first frame within it.
#[test]
fn the_animation_budget_is_checked_on_the_headers() {
    let _cores = common::shared_cores();
    let frame = |seed| FrameSpec {
        rect: [0, 0, 255, 255],
        dispose: 1,
        blend: false,
        transparent: false,
        interlaced: false,
        delay_cs: 10,
        seed,
    };
    let spec = AnimationSpec { width: 100, height: 100, frames: (0..10).map(frame).collect(), loops: 0 };
    let source = spec.encode(AnimationKind::Gif);
    let options = RenderOptions { max_animation_pixels: 99_999, ..RenderOptions::default() };
    let animated = Transform::from_query("w=50").unwrap();
    let err = render(&source, &animated, Target::Source, options).unwrap_err();
    assert!(err.is_client_error() && err.to_string().contains("99999"), "{err}");
    let still = Transform::from_query("w=50&anim=false").unwrap();
    assert_eq!(render(&source, &still, Target::Source, options).unwrap().format, OutputFormat::Gif);
    let within = RenderOptions { max_animation_pixels: 100_000, ..RenderOptions::default() };
    let rendered = render(&source, &animated, Target::Source, within).unwrap();
    let frames = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(&rendered.bytes)).unwrap();
    assert_eq!(image::AnimationDecoder::into_frames(frames).count(), 10);
}

/// The generator the `render` fuzz target draws animations from (`AnimationSpec::generate`), seeded: its
/// specs and requests hold the same property.
#[test]
fn seeded_animations_as_the_fuzz_target_draws_them() {
    let _cores = common::shared_cores();
    let mut random = Seeded(0x5eed_0a11);
    for i in 0..36 {
        let kind = AnimationKind::ALL[i % 3];
        let spec = AnimationSpec::generate(&mut random, 64, 12);
        let (query, target) = animation_request(&mut random);
        if let Err(violation) = check_animation(kind, &spec, &query, target) {
            panic!("{violation}");
        }
    }
}
