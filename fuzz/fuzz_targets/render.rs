//! Fuzz target `render`: structured requests through decode → operations → encode. The fuzz bytes choose a
//! small generated upload (any `SampleKind`: every JPEG subsampling, coding and orientation, every PNG,
//! WebP, GIF, TIFF, BMP, AVIF and JPEG XL layout, a JPEG with a Display P3 profile, at 1–96 px a side) and a valid request on it (every parameter,
//! every output format, through the same generator as the render property suite). The property is the
//! suite's (`samples::check_render`): a valid request renders, its output decodes at the planned size, and
//! a refusal is the request's error for its reason. A violation or a panic is a crash.
//!
//! A quarter of the runs are animations instead (`samples::AnimationSpec`: a GIF, APNG or animated WebP of
//! 1–12 frames at 1–64 px a side, every disposal and blend mode, transparency, interlaced frames, frames
//! anywhere on the canvas) with a request on one (`samples::animation_request`), checked by the animation
//! property suite's `samples::check_animation`: frame count, delays, loop count and every frame against
//! the still render.
//!
//! Where `decode` feeds arbitrary bytes to the decoders, this one keeps the inputs valid so the fuzzer
//! spends its time on the space of sizes, layouts and parameters instead.

#![no_main]

use libfuzzer_sys::{arbitrary::Unstructured, fuzz_target};
use shutterbox_pipeline::samples::{
    AnimationKind, AnimationSpec, Choices, SampleKind, Source, animation_request, check_animation, check_render,
    random_request,
};

/// The fuzz bytes as choices; once they run out every choice is its lowest value.
struct FuzzChoices<'a, 'b>(&'a mut Unstructured<'b>);

impl Choices for FuzzChoices<'_, '_> {
    fn between(&mut self, low: u32, high: u32) -> u32 {
        self.0.int_in_range(low..=high.max(low)).unwrap_or(low)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Unstructured::new(data);
    let mut choices = FuzzChoices(&mut bytes);
    if choices.chance(25) {
        let kind = choices.pick(&AnimationKind::ALL);
        let spec = AnimationSpec::generate(&mut choices, 64, 12);
        let (query, target) = animation_request(&mut choices);
        if let Err(violation) = check_animation(kind, &spec, &query, target) {
            panic!("{violation}");
        }
        return;
    }
    let kind = choices.pick(SampleKind::ALL);
    // Not HEIC: writing one runs libheif's x265 encoder, which LeakSanitizer finds leaking (a HeicAlpha
    // input, CI of 2026-11-28); the picture is the encoder's, not the service's. HEIC decoding is fuzzed by
    // `decode` from HEIC seeds, and the render property suite renders HEIC samples.
    if matches!(kind, SampleKind::Heic | SampleKind::HeicAlpha) {
        return;
    }
    // Small sides keep each run fast; AVIF sources and outputs (libaom, tens of ms) smaller still.
    let largest = if matches!(kind, SampleKind::Avif | SampleKind::AvifAlpha) { 24 } else { 96 };
    let least = kind.min_side();
    let (width, height) = (choices.between(least, largest), choices.between(least, largest));
    let seed = u64::from(choices.between(0, u32::MAX));
    let source = Source::generate(kind, width, height, seed).expect("every kind encodes 1–96 px sides");
    let (query, target) = random_request(&mut choices, source.upright, 256);
    if let Err(violation) = check_render(&source, &query, target) {
        panic!("{violation}");
    }
});
