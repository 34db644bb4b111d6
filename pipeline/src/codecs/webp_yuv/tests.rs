use super::*;

/// The mean difference per sample, decoded against the picture, that each quality stays under:
/// linear from q 1 to q 100. Calibrated on the sweep's three pictures (2026-11-27): 11.4–12.6 at q 1,
/// 4.8–5.1 at q 75, 1.2–1.3 at q 100; the line keeps at least 1.4× that at every quality.
const BOUND_AT_Q1: f64 = 18.0;
const BOUND_AT_Q100: f64 = 4.0;

#[test]
fn the_range_tables_span_vp8s_studio_range() {
    assert_eq!((LUMA[0], LUMA[255]), (16, 235));
    assert_eq!((CHROMA[0], CHROMA[128], CHROMA[255]), (16, 128, 240));
    assert!(LUMA.windows(2).all(|pair| pair[0] <= pair[1]));
    assert!(CHROMA.windows(2).all(|pair| pair[0] <= pair[1]));
}

/// A photo-like 4:2:0 JPEG's planes as libjpeg-turbo decodes them for the planar path (`align` 1: the
/// `Yuv420` layout), and the same JPEG decoded to RGB, the pixels those planes stand for.
fn photo_planes(width: u32, height: u32, seed: u32) -> (Vec<u8>, image::RgbImage) {
    use turbojpeg::{Decompressor, Subsamp, YuvImage};
    let jpeg = crate::codecs::test_jpeg::encode(
        &crate::codecs::test_jpeg::photo_pixels(width, height, seed),
        95,
        Subsamp::Sub2x2,
    );
    let (w, h) = (width as usize, height as usize);
    let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(w, 1, h, Subsamp::Sub2x2).unwrap()];
    let image = YuvImage { pixels: &mut pixels[..], width: w, align: 1, height: h, subsamp: Subsamp::Sub2x2 };
    Decompressor::new().unwrap().decompress_to_yuv(&jpeg, image).unwrap();
    (pixels, crate::decode::decode(&jpeg, u64::MAX).unwrap().0.to_rgb8())
}

/// Every quality from 1 to 100, on photo-like pictures with odd and even sides: libwebp (the vendored
/// one, whose intra-4×4 mode search is pruned: third_party/libwebp-sys) writes a WebP that decodes to
/// the picture's size and close to its pixels, closer as the quality rises. A mode search that chose
/// badly would still decode, but further off or in more bytes.
#[test]
fn every_quality_encodes_a_photo_that_decodes_close_to_it() {
    for (width, height, seed) in [(97, 66, 0x9e37_79b9), (64, 48, 0x2545_f491), (33, 130, 0x1234_5677)] {
        let (pixels, rgb) = photo_planes(width, height, seed);
        let picture = Yuv420 { pixels: &pixels, width, height };
        let mut previous_bytes = 0;
        let mut differences = Vec::new();
        for quality in 1..=100u8 {
            let webp = encode(&picture, quality).unwrap();
            let decoded = crate::decode::decode(&webp, u64::MAX).unwrap().0.to_rgb8();
            assert_eq!(decoded.dimensions(), (width, height), "{width}x{height} q{quality}");
            let total: u64 = decoded.as_raw().iter().zip(rgb.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
            let difference = total as f64 / rgb.as_raw().len() as f64;
            let bound = BOUND_AT_Q1 - (BOUND_AT_Q1 - BOUND_AT_Q100) * f64::from(quality - 1) / 99.0;
            assert!(
                difference < bound,
                "{width}x{height} q{quality}: mean difference {difference:.2} (bound {bound:.2})"
            );
            // Bytes grow with the quality, give or take libwebp's own steps (a few bytes of headers).
            assert!(
                webp.len() + 64 >= previous_bytes,
                "{width}x{height} q{quality}: {} bytes after {previous_bytes}",
                webp.len()
            );
            previous_bytes = webp.len();
            differences.push(difference);
        }
        let mean = |q: std::ops::RangeInclusive<usize>| differences[q.clone()].iter().sum::<f64>() / q.count() as f64;
        assert!(mean(75..=99) < 0.6 * mean(0..=24), "{width}x{height}: {differences:.2?}");
    }
}

#[test]
fn a_buffer_that_is_not_the_pictures_layout_is_refused() {
    // 3×3: luma 4×4 (even sides), each chroma plane 2×2.
    let pixels = [128u8; 16 + 2 * 4];
    let picture = |len: usize, width: u32| Yuv420 { pixels: &pixels[..len], width, height: 3 };
    assert!(encode(&picture(24, 3), 80).is_ok());
    assert!(encode(&picture(23, 3), 80).is_err(), "a byte short");
    assert!(encode(&picture(24, 5), 80).is_err(), "a wider picture than the planes");
    assert!(encode(&picture(0, 0), 80).is_err(), "no pixels");
}
