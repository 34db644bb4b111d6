//! The decoder against libjpeg-turbo (exactly at 1/8, within rounding at 1/4), split or not, and on what
//! it does not handle or finds corrupt.

use image::{Rgb, RgbImage};
use turbojpeg::{Decompressor, ScalingFactor, Subsamp, YuvImage};

use super::*;

fn photo(w: u32, h: u32, quality: i32) -> Vec<u8> {
    crate::codecs::test_jpeg::photo(w, h, quality)
}

fn libjpeg(source: &[u8], denominator: usize) -> Planes {
    let mut decompressor = Decompressor::new().unwrap();
    let header = decompressor.read_header(source).unwrap();
    let factor = ScalingFactor::new(1, denominator);
    decompressor.set_scaling_factor(factor).unwrap();
    let (width, height) = (factor.scale(header.width), factor.scale(header.height));
    let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(width, 1, height, Subsamp::Sub2x2).unwrap()];
    let image = YuvImage { pixels: &mut pixels[..], width, align: 1, height, subsamp: Subsamp::Sub2x2 };
    decompressor.decompress_to_yuv(source, image).unwrap();
    Planes { pixels, width, height }
}

/// The samples of `planes` inside the image (libjpeg-turbo's padding columns and rows hold whatever its
/// scratch buffer held).
fn visible(planes: &Planes) -> Vec<u8> {
    let (yw, yh) = (planes.width.next_multiple_of(2), planes.height.next_multiple_of(2));
    let (cw, ch) = (yw / 2, yh / 2);
    let mut samples = Vec::new();
    for (offset, stride, w, h) in [
        (0, yw, planes.width, planes.height),
        (yw * yh, cw, planes.width.div_ceil(2), planes.height.div_ceil(2)),
        (yw * yh + cw * ch, cw, planes.width.div_ceil(2), planes.height.div_ceil(2)),
    ] {
        for row in 0..h {
            samples.extend_from_slice(&planes.pixels[offset + row * stride..][..w]);
        }
    }
    samples
}

#[test]
fn matches_libjpeg_turbo_exactly_at_one_eighth_and_within_rounding_at_one_quarter() {
    for (w, h, q) in [(640, 480, 90), (333, 217, 75), (17, 9, 100), (1000, 37, 40)] {
        let source = photo(w, h, q);
        for (denominator, tolerance) in [(8, 0), (4, 1)] {
            let ours = decode_with_split(&source, denominator, Split::Never).unwrap();
            let reference = libjpeg(&source, denominator);
            assert_eq!(
                (ours.width, ours.height, ours.pixels.len()),
                (reference.width, reference.height, reference.pixels.len())
            );
            let (ours, reference) = (visible(&ours), visible(&reference));
            let worst = ours.iter().zip(&reference).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
            assert!(worst <= tolerance, "{w}×{h} q{q} at 1/{denominator}: a sample off by {worst}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(160))]

    /// Over the space of files this decoder takes: any size (odd sides, partial MCUs, one row of them),
    /// any quality (the coefficients' sizes, so every lookup path: codes and values within the fast
    /// lookup, beyond it, EOB, ZRL) and both standard and per-image Huffman tables, it decodes what
    /// libjpeg-turbo decodes: exactly at 1/8, within rounding at 1/4.
    #[test]
    fn decodes_as_libjpeg_turbo_does(
        w in 1u32..400,
        h in 1u32..300,
        quality in 1i32..=100,
        optimize: bool,
        seed in 1u32..,
    ) {
        let source = crate::codecs::test_jpeg::encode_with(
            &crate::codecs::test_jpeg::photo_pixels(w, h, seed),
            quality,
            Subsamp::Sub2x2,
            optimize,
        );
        for (denominator, tolerance) in [(8, 0), (4, 1)] {
            let ours = decode_with_split(&source, denominator, Split::Never).unwrap();
            let reference = libjpeg(&source, denominator);
            proptest::prop_assert_eq!((ours.width, ours.height), (reference.width, reference.height));
            let (ours, reference) = (visible(&ours), visible(&reference));
            let worst = ours.iter().zip(&reference).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
            proptest::prop_assert!(worst <= tolerance, "{}×{} q{} at 1/{}: a sample off by {}", w, h, quality, denominator, worst);
        }
    }
}

/// Blocks whose last coefficient (position 63) is not zero end without an EOB, so the next bits are the
/// next block's DC code: a two-symbol lookup (`AcEntry`) must then give back its second symbol. Noise at
/// the highest qualities keeps position 63 nonzero in most blocks; with a split too.
#[test]
fn blocks_ending_at_the_last_coefficient_decode_as_libjpeg_turbo_does() {
    let mut seed = 0x2545_f491_u32;
    let noise = RgbImage::from_fn(256, 192, |_, _| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        Rgb([seed as u8, (seed >> 8) as u8, (seed >> 16) as u8])
    });
    for (quality, optimize) in [(100, false), (100, true), (97, false)] {
        let source = crate::codecs::test_jpeg::encode_with(&noise, quality, Subsamp::Sub2x2, optimize);
        let bytes = Frame::parse(&source).unwrap().entropy.len();
        for (denominator, tolerance) in [(8, 0), (4, 1)] {
            let whole = decode_with_split(&source, denominator, Split::Never).unwrap();
            let reference = libjpeg(&source, denominator);
            let worst = visible(&whole).iter().zip(&visible(&reference)).map(|(a, b)| a.abs_diff(*b)).max();
            assert!(worst <= Some(tolerance), "q{quality} at 1/{denominator}: a sample off by {worst:?}");
            let split = decode_with_split(&source, denominator, Split::AtByte(bytes / 2)).unwrap();
            assert!(split == whole, "q{quality} at 1/{denominator}, split");
        }
    }
}

#[test]
fn a_split_anywhere_gives_the_single_thread_result() {
    let source = photo(800, 600, 85);
    let frame = Frame::parse(&source).unwrap();
    let bytes = frame.entropy.len();
    for denominator in [4, 8] {
        let whole = decode_with_split(&source, denominator, Split::Never).unwrap();
        for at in [0, 1, 7, bytes / 3, bytes / 2, bytes - 200, bytes] {
            let split = decode_with_split(&source, denominator, Split::AtByte(at)).unwrap();
            assert!(split == whole, "1/{denominator} split at byte {at} of {bytes}");
        }
    }
}

#[test]
fn what_it_does_not_handle_is_none() {
    let four_four_four = crate::codecs::test_jpeg::encode(
        &RgbImage::from_fn(64, 64, |x, y| Rgb([x as u8, y as u8, 7])),
        80,
        Subsamp::None,
    );
    assert!(decode(&four_four_four, 8, true).is_none());
    let source = photo(200, 100, 80);
    assert!(decode(&source, 2, true).is_none());
    assert!(decode(b"not a jpeg", 8, true).is_none());
    assert!(decode(&source[..source.len() / 2], 8, true).is_none(), "truncated");
}

#[test]
fn corrupt_data_never_panics() {
    let source = photo(160, 120, 80);
    let mut seed = 0x9e37_79b9_u32;
    for round in 0..400 {
        let mut corrupt = source.clone();
        for _ in 0..1 + round % 8 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let at = seed as usize % corrupt.len();
            corrupt[at] = (seed >> 24) as u8;
        }
        for denominator in [4, 8] {
            let _ = decode_with_split(&corrupt, denominator, Split::AtByte(corrupt.len() / 3));
            let _ = decode_with_split(&corrupt, denominator, Split::Never);
        }
    }
}
