#![allow(clippy::unwrap_used, clippy::expect_used)]

use image::{AnimationDecoder, codecs::gif::GifDecoder};

use super::GifCanvas;
use crate::samples::{AnimationKind, AnimationSpec, Seeded};

/// Every disposal method, transparency, local palettes, interlacing and frames anywhere on the canvas,
/// composited exactly as the `image` crate's GIF decoder (the property suite's reference) composites them.
#[test]
fn frames_equal_the_image_crate_compositing() {
    let mut compared = 0;
    for seed in 1..=300u64 {
        let spec = AnimationSpec::generate(&mut Seeded(seed), if seed % 3 == 0 { 7 } else { 90 }, 12);
        let gif = spec.encode(AnimationKind::Gif);
        let expected: Vec<_> = GifDecoder::new(std::io::Cursor::new(&gif)).unwrap().into_frames().collect();
        let ours: Vec<_> = GifCanvas::new(&gif, u64::MAX).unwrap().collect();
        assert_eq!(ours.len(), expected.len(), "seed {seed}: frame count");
        for (i, (ours, expected)) in ours.into_iter().zip(expected).enumerate() {
            let (ours, expected) = (ours.unwrap(), expected.unwrap());
            let (numerator, denominator) = expected.delay().numer_denom_ms();
            assert_eq!(ours.delay_ms, numerator / denominator, "seed {seed}: frame {i}'s delay");
            assert!(ours.pixels == *expected.buffer(), "seed {seed}: frame {i} differs");
            compared += 1;
        }
    }
    assert!(compared > 1000, "{compared} frames compared");
}
