//! The pixel limit holds for the formats read through other decoders (issue 40, part 6): a HEIC, a JPEG
//! XL and a TIFF whose headers claim far more pixels than allowed are refused as the request's fault, from
//! their headers, before anything that size is allocated. The HEIC is libheif's sample from the test corpora
//! with its `ispe` box rewritten (`SHUTTERBOX_CORPORA`; missing fails the test); the others are written here.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use shutterbox_pipeline::{PipelineError, RenderOptions, Target, Transform, render};

fn rendered(bytes: &[u8]) -> Result<(u32, u32), PipelineError> {
    let transform = Transform::from_query("w=64").unwrap();
    render(bytes, &transform, Target::Source, RenderOptions::default()).map(|r| (r.width, r.height))
}

fn assert_refused_for_size(bytes: &[u8], side: u32, what: &str) {
    match rendered(bytes) {
        Err(PipelineError::TooManyPixels { width, height, .. }) if (width, height) == (side, side) => {}
        other => panic!("{what}: {other:?}"),
    }
}

/// Every `ispe` box of a HEIF file given `side`×`side`.
fn with_ispe(heif: Vec<u8>, side: u32) -> Vec<u8> {
    with_ispe_sized(heif, side, side)
}

/// Every `ispe` box of a HEIF file given `width`×`height`.
fn with_ispe_sized(mut heif: Vec<u8>, width: u32, height: u32) -> Vec<u8> {
    let mut at = 0;
    while let Some(found) = heif[at..].windows(4).position(|w| w == b"ispe") {
        let box_start = at + found;
        // ispe: type, version and flags (4), width (4), height (4).
        heif[box_start + 8..box_start + 12].copy_from_slice(&width.to_be_bytes());
        heif[box_start + 12..box_start + 16].copy_from_slice(&height.to_be_bytes());
        at = box_start + 4;
    }
    heif
}

#[test]
fn a_heic_claiming_too_many_pixels_is_refused() {
    let heic = std::fs::read(common::corpora().join("libheif/rainbow-451x461.heic")).unwrap();
    assert_eq!(rendered(&heic).unwrap(), (64, 65));
    // Over the default limit of 50 million pixels, within libheif's own 32,768 a side.
    assert_refused_for_size(&with_ispe(heic.clone(), 20_000), 20_000, "HEIC");
    // Past libheif's limit, libheif refuses it first, as the request's fault too.
    let refused = rendered(&with_ispe(heic, 100_000)).unwrap_err();
    assert!(refused.is_client_error() && refused.to_string().contains("100000x100000"), "{refused}");
}

/// libheif is told the side limit the budget implies before it reads the file: an item 20,000 wide and 0
/// high holds no pixels, so our own check lets it through, and libheif's limit (the budget's 10,000 here;
/// its default would be 32,768) refuses it, as the request's fault.
#[test]
fn libheif_holds_the_side_limit_it_is_told() {
    let heic = std::fs::read(common::corpora().join("libheif/rainbow-451x461.heic")).unwrap();
    let transform = Transform::from_query("w=64").unwrap();
    let options = RenderOptions { max_pixels: 10_000, ..RenderOptions::default() };
    let refused = render(&with_ispe_sized(heic, 20_000, 0), &transform, Target::Source, options).unwrap_err();
    assert!(refused.is_client_error(), "{refused}");
    assert!(refused.to_string().contains("libheif") && refused.to_string().contains("10000"), "{refused}");
}

/// A JPEG XL codestream whose size header says `side`×`side` (SizeHeader: not small, height and width
/// minus one in 18 bits each, no ratio), then default image metadata and nothing more.
fn jxl_claiming(side: u32) -> Vec<u8> {
    let mut bits: Vec<bool> = Vec::new();
    let mut push = |value: u32, count: u32| (0..count).for_each(|i| bits.push(value >> i & 1 == 1));
    push(0, 1); // small
    push(2, 2); // height: the 18-bit distribution
    push(side - 1, 18);
    push(0, 3); // ratio: none, so the width follows
    push(2, 2);
    push(side - 1, 18);
    push(1, 1); // ImageMetadata: all_default
    let mut out = vec![0xFF, 0x0A];
    out.extend(bits.chunks(8).map(|byte| byte.iter().enumerate().fold(0u8, |b, (i, &bit)| b | u8::from(bit) << i)));
    out.extend_from_slice(&[0; 4096]);
    out
}

#[test]
fn a_jpeg_xl_claiming_too_many_pixels_is_refused() {
    assert_refused_for_size(&jxl_claiming(20_000), 20_000, "JPEG XL");
    // So large that jxl-oxide's own check of the first frame's table of contents refuses it first.
    let refused = rendered(&jxl_claiming(100_000)).unwrap_err();
    assert!(matches!(refused, PipelineError::Decode(_) | PipelineError::TooManyPixels { .. }), "{refused}");
}

#[test]
fn a_tiff_claiming_too_many_pixels_is_refused() {
    // Little-endian, one IFD of 100,000×100,000 8-bit grey pixels in one strip at offset 8.
    let mut tiff = b"II*\0\x08\0\0\0".to_vec();
    let entries: [(u16, u16, u32); 7] =
        [(256, 4, 100_000), (257, 4, 100_000), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 8), (279, 4, 1 << 30)];
    tiff.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for (tag, kind, value) in entries {
        tiff.extend_from_slice(&tag.to_le_bytes());
        tiff.extend_from_slice(&kind.to_le_bytes());
        tiff.extend_from_slice(&1u32.to_le_bytes());
        tiff.extend_from_slice(&value.to_le_bytes());
    }
    tiff.extend_from_slice(&[0; 4]);
    assert_refused_for_size(&tiff, 100_000, "TIFF");
}
