use super::*;

use crate::{
    samples::animated_gif as gif_of,
    source::{SourceFormat, count_frames as count},
};

#[test]
fn counts_frames_and_stops_past_the_limit() {
    assert_eq!(count_gif(&gif_of(1), 10).unwrap(), 1);
    assert_eq!(count_gif(&gif_of(7), 10).unwrap(), 7);
    assert_eq!(count_gif(&gif_of(50), 10).unwrap(), 11);
}

#[test]
fn damaged_files_never_panic() {
    let gif = gif_of(3);
    for end in 0..gif.len() {
        let _ = count_gif(&gif[..end], 10);
    }
    // A byte that starts no block ends the file, as browsers and libvips read it.
    assert_eq!(count_gif(b"GIF89a\x01\x00\x01\x00\x00\x00\x00\x99", 10).unwrap(), 0);
    let mut cut = gif_of(3);
    let second = cut.iter().enumerate().filter(|(_, b)| **b == 0x2C).nth(1).map(|(i, _)| i).unwrap();
    cut[second] = 0x99;
    assert!(count_gif(&cut, 10).unwrap() >= 1);
    assert!(count_gif(b"PNG", 10).is_err());
}

#[test]
fn the_canvas_grows_to_hold_the_first_image() {
    // Screen 0×0, no colour table; an image at (2, 3) of 4×5.
    let gif = b"GIF89a\x00\x00\x00\x00\x00\x00\x00\x2C\x02\x00\x03\x00\x04\x00\x05\x00\x00\x02\x00\x3B";
    assert_eq!(gif_canvas_size(gif), Some((6, 8)));
    assert_eq!(gif_canvas_size(&gif_of(2)), Some((gif_of(2)[6].into(), gif_of(2)[8].into())));
    assert_eq!(gif_canvas_size(b"GIF89a\x01"), None);
    // Screen 4×4; a first image at (2, 3) of 4×5 grows it to 6×8 (libnsgif), a later one does not.
    let grown = b"GIF89a\x04\x00\x04\x00\x00\x00\x00\x2C\x02\x00\x03\x00\x04\x00\x05\x00\x00\x02\x00\x3B";
    assert_eq!(gif_canvas_size(grown), Some((6, 8)));
    let inside = b"GIF89a\x09\x00\x09\x00\x00\x00\x00\x2C\x02\x00\x03\x00\x04\x00\x05\x00\x00\x02\x00\x3B";
    assert_eq!(gif_canvas_size(inside), Some((9, 9)));
    // Screen 185×0 and a first image of 0×0 at (12337, 0) (image-gif's small-codesize crash test): the
    // screen counts as 1×1, the image widens it, so libvips' 12337×1 and never an empty canvas.
    let empty = b"GIF87a\xB9\x00\x00\x00\x00\x00\x00\x2C\x31\x30\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3B";
    assert_eq!(gif_canvas_size(empty), Some((12337, 1)));
}

/// An animated WebP of `frames` 4×4 frames of different colours, from libwebp's animation encoder.
fn webp_of(frames: u8) -> Vec<u8> {
    let config = webp::WebPConfig::new().unwrap();
    let pixels: Vec<Vec<u8>> = (0..frames).map(|i| [i.wrapping_mul(37), 255 - i, i].repeat(16)).collect();
    let mut encoder = webp::AnimEncoder::new(4, 4, &config);
    for (i, frame) in pixels.iter().enumerate() {
        encoder.add_frame(webp::AnimFrame::from_rgb(frame, 4, 4, i as i32 * 100));
    }
    encoder.try_encode().unwrap().to_vec()
}

/// A PNG skeleton (CRCs left zero: counting does not read them) with `acTL` declaring `declared`
/// frames and `controls` `fcTL` chunks, each followed by an `fdAT`, numbered in sequence.
fn apng_of(declared: u32, controls: usize) -> Vec<u8> {
    apng_numbered(declared, 8, &(0..2 * controls as u32).collect::<Vec<_>>())
}

/// The same skeleton with `bits`-bit samples, its `fcTL`/`fdAT` pairs carrying `numbers`.
fn apng_numbered(declared: u32, bits: u8, numbers: &[u32]) -> Vec<u8> {
    let chunk = |kind: &[u8; 4], data: &[u8]| {
        let mut c = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        c.extend_from_slice(&[0; 4]);
        c
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, bits, 0, 0, 0, 0]));
    png.extend(chunk(b"acTL", &[declared.to_be_bytes(), [0; 4]].concat()));
    for pair in numbers.chunks(2) {
        png.extend(chunk(b"fcTL", &[&pair[0].to_be_bytes()[..], &[0; 22]].concat()));
        if let Some(data) = pair.get(1) {
            png.extend(chunk(b"fdAT", &[data.to_be_bytes(), [0; 4]].concat()));
        }
    }
    png.extend(chunk(b"IEND", &[]));
    png
}

/// An ISO-BMFF image sequence whose one track's `stsz` counts `samples`.
fn avis_of(samples: u32) -> Vec<u8> {
    let boxed = |name: &[u8; 4], content: &[u8]| {
        let mut b = u32::try_from(content.len() + 8).unwrap().to_be_bytes().to_vec();
        b.extend_from_slice(name);
        b.extend_from_slice(content);
        b
    };
    let stsz = boxed(b"stsz", &[[0; 4], [0; 4], samples.to_be_bytes()].concat());
    let stbl = boxed(b"stbl", &[boxed(b"stsd", &[0; 8]), stsz].concat());
    let trak = boxed(b"trak", &boxed(b"mdia", &boxed(b"minf", &stbl)));
    let moov = boxed(b"moov", &[boxed(b"mvhd", &[0; 100]), trak].concat());
    [boxed(b"ftyp", b"avis\0\0\0\0avifmsf1"), moov].concat()
}

#[test]
fn every_animated_format_is_counted() {
    for n in [1u8, 2, 7] {
        assert_eq!(count(&webp_of(n), SourceFormat::Webp, 100).unwrap(), u64::from(n), "WebP of {n}");
    }
    assert_eq!(count(&webp_of(9), SourceFormat::Webp, 3).unwrap(), 4, "stops past the limit");
    assert_eq!(count(&apng_of(3, 3), SourceFormat::Png, 100).unwrap(), 3);
    assert_eq!(count(&apng_of(1, 40), SourceFormat::Png, 100).unwrap(), 40, "more fcTL than declared");
    // The frames present count, not a declared count that disagrees with them.
    assert_eq!(count(&apng_of(4_000_000_000, 1), SourceFormat::Png, 100).unwrap(), 1);
    assert_eq!(count(&apng_of(4_000_000_000, 500), SourceFormat::Png, 100).unwrap(), 101, "stops past the limit");
    assert_eq!(count(&avis_of(240), SourceFormat::Avif, 100).unwrap(), 240);
    // Still images count one, and so do containers with no animation in them.
    assert_eq!(count(b"", SourceFormat::Jpeg, 100).unwrap(), 1);
    assert_eq!(count(&apng_of(0, 0), SourceFormat::Png, 100).unwrap(), 1);
}

#[test]
fn an_apng_shown_as_its_default_image_counts_one() {
    assert_eq!(count(&apng_numbered(2, 8, &[0, 1, 2, 3]), SourceFormat::Png, 100).unwrap(), 2);
    // Sequence numbers not starting at 0, repeated, or out of order: browsers drop the animation.
    for numbers in [&[1, 2, 3, 4][..], &[0, 0, 1, 2], &[0, 2, 1, 3], &[0, 1, 3, 2]] {
        assert_eq!(count(&apng_numbered(2, 8, numbers), SourceFormat::Png, 100).unwrap(), 1, "{numbers:?}");
    }
    // 16-bit samples: the animation decoder refuses them, so the default image is shown.
    assert_eq!(count(&apng_numbered(2, 16, &[0, 1, 2, 3]), SourceFormat::Png, 100).unwrap(), 1);
}

#[test]
fn an_animation_its_container_does_not_declare_is_a_still() {
    // acTL after the image data: browsers show the default image.
    let apng = apng_of(3, 3);
    let idat = [&[0, 0, 0, 0][..], b"IDAT", &[0; 4]].concat();
    let after_ihdr = 8 + 25;
    let undeclared = [&apng[..after_ihdr], &idat, &apng[after_ihdr..]].concat();
    assert_eq!(count(&undeclared, SourceFormat::Png, 100).unwrap(), 1);
    let declared = [&apng[..], &idat].concat();
    assert_eq!(count(&declared, SourceFormat::Png, 100).unwrap(), 3);
    // ANMF chunks without VP8X's animation flag: libwebp reads a still.
    let mut webp = webp_of(3);
    assert_eq!(&webp[12..16], b"VP8X");
    webp[20] &= !0x02;
    assert_eq!(count(&webp, SourceFormat::Webp, 100).unwrap(), 1);
}

#[test]
fn cut_or_garbled_containers_never_panic() {
    let files = [
        (webp_of(3), SourceFormat::Webp),
        (apng_of(3, 3), SourceFormat::Png),
        (avis_of(3), SourceFormat::Avif),
        (gif_of(3), SourceFormat::Gif),
    ];
    for (file, format) in &files {
        for end in 0..file.len() {
            let _ = count(&file[..end], *format, 10);
            let mut garbled = file.clone();
            garbled[end] ^= 0xA5;
            let _ = count(&garbled, *format, 10);
        }
    }
}

#[test]
fn the_image_crate_decodes_the_test_gif() {
    let image = image::load_from_memory(&gif_of(2)).unwrap();
    assert_eq!((image.width(), image.height()), (1, 1));
}
