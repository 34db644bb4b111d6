//! Counting an animated source's frames without decoding them, so that a file of 100,000 tiny frames is
//! refused before any decoder walks it (`RenderOptions::max_frames`, `SHUTTERBOX_MAX_SOURCE_FRAMES`), and an
//! animated render's work is known before its first frame (`RenderOptions::max_animation_pixels`). Also a
//! GIF's loop count (`gif_loops`), which the `image` crate misreads.
//!
//! Each count walks the container's own structure, skipping payloads by their lengths: GIF image
//! descriptors, WebP `ANMF` chunks, APNG `fcTL` chunks (not `acTL`'s declared count, which a damaged file
//! gets wrong) and the sample count of an AVIF image sequence's tracks. A file cut short counts the frames
//! seen so far: the decoder reports the damage itself.

use crate::PipelineError;

/// The number of image descriptors in a GIF.
pub(crate) fn count_gif(bytes: &[u8], limit: u64) -> Result<u64, PipelineError> {
    let malformed = |what: &str| PipelineError::Decode(format!("malformed GIF: {what}"));
    if bytes.len() < 13 || !(bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) {
        return Err(malformed("no GIF header"));
    }
    let mut at = 13 + color_table_len(bytes[10]);
    let mut frames = 0;
    while let Some(&block) = bytes.get(at) {
        match block {
            // Extension: label, then data sub-blocks.
            0x21 => at = skip_sub_blocks(bytes, at + 2),
            // Image descriptor (10 bytes), optional local color table, LZW minimum code size, sub-blocks.
            0x2C => {
                frames += 1;
                if frames > limit {
                    return Ok(frames);
                }
                let Some(&flags) = bytes.get(at + 9) else { break };
                at = skip_sub_blocks(bytes, at + 10 + color_table_len(flags) + 1);
            }
            // The trailer, or a byte that starts no block: browsers and libvips end the file there.
            _ => break,
        }
    }
    Ok(frames)
}

/// Whether a GIF has a transparent colour: a graphic control extension (before any of its images) whose
/// transparency flag is set, as libvips gives such a GIF an alpha channel.
pub(crate) fn gif_has_transparency(bytes: &[u8]) -> bool {
    if bytes.len() < 13 {
        return false;
    }
    let mut at = 13 + color_table_len(bytes[10]);
    while let Some(&block) = bytes.get(at) {
        match block {
            0x21 => {
                // A graphic control extension: label 0xF9, block size 4, then its packed flags.
                if bytes.get(at + 1) == Some(&0xF9) && bytes.get(at + 3).is_some_and(|flags| flags & 1 == 1) {
                    return true;
                }
                at = skip_sub_blocks(bytes, at + 2);
            }
            0x2C => {
                let Some(&flags) = bytes.get(at + 9) else { break };
                at = skip_sub_blocks(bytes, at + 10 + color_table_len(flags) + 1);
            }
            _ => break,
        }
    }
    false
}

/// The size of a GIF's canvas, as libvips (libnsgif) takes it: its logical screen, grown to hold its first
/// image where that reaches past it; later images are clipped to it. A screen with a side of zero, written by
/// some encoders, counts as 1×1, so the canvas is the first image's extent and never empty. None for a file
/// without a header.
pub(crate) fn gif_canvas_size(bytes: &[u8]) -> Option<(u16, u16)> {
    let mut screen =
        (u16::from_le_bytes([*bytes.get(6)?, *bytes.get(7)?]), u16::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?]));
    if screen.0 == 0 || screen.1 == 0 {
        screen = (1, 1);
    }
    let mut at = 13 + color_table_len(*bytes.get(10)?);
    while let Some(&block) = bytes.get(at) {
        match block {
            0x21 => at = skip_sub_blocks(bytes, at + 2),
            0x2C => {
                let field = |i: usize| Some(u16::from_le_bytes([*bytes.get(at + i)?, *bytes.get(at + i + 1)?]));
                let right = field(1)?.saturating_add(field(5)?);
                let bottom = field(3)?.saturating_add(field(7)?);
                return Some((screen.0.max(right), screen.1.max(bottom)));
            }
            _ => break,
        }
    }
    Some(screen)
}

/// `ANMF` chunks of a WebP: RIFF header (12 bytes), then chunks of a FourCC, a little-endian length and
/// the payload padded to an even length.
pub(crate) fn count_webp(bytes: &[u8], limit: u64) -> u64 {
    // Without VP8X's animation flag the file is a still, whatever chunks follow (as libwebp reads it).
    const ANIMATION: u8 = 0x02;
    if bytes.get(12..16) != Some(b"VP8X") || bytes.get(20).is_none_or(|flags| flags & ANIMATION == 0) {
        return 0;
    }
    let mut at = 12;
    let mut frames = 0;
    while let Some(header) = bytes.get(at..at + 8) {
        if &header[..4] == b"ANMF" {
            frames += 1;
            if frames > limit {
                break;
            }
        }
        let len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        at = at.saturating_add(8).saturating_add(len).saturating_add(len & 1);
    }
    frames
}

/// APNG frames: the `fcTL` chunks present, whatever `acTL` declares (a count that disagrees with the
/// chunks is a damaged file, which browsers play with the frames it has); 0 for a PNG without them or
/// without an `acTL` before its image data (browsers show such a file as a still), and for
/// an APNG that is shown as its default image: one whose `fcTL`/`fdAT` sequence numbers do not run 0, 1, 2…
/// (browsers then drop the animation, and libvips always shows the default image), or of 16-bit samples,
/// which the `image` crate's APNG decoder refuses. PNG chunks are a big-endian length, a type, the data and
/// a CRC, after the 8-byte signature.
pub(crate) fn count_apng(bytes: &[u8], limit: u64) -> u64 {
    // IHDR comes first: its bit depth is the 9th byte of its data.
    if bytes.get(12..16) == Some(b"IHDR") && bytes.get(24) == Some(&16) {
        return 0;
    }
    let (mut at, mut controls, mut sequence, mut declared) = (8, 0, 0u32, false);
    while let Some(header) = bytes.get(at..at + 8) {
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        match &header[4..8] {
            b"acTL" => declared = true,
            // An APNG declares itself (acTL) before its image data; after it, browsers show a still.
            b"IDAT" if !declared => return 0,
            kind @ (b"fcTL" | b"fdAT") => {
                let number = bytes.get(at + 8..at + 12).map(|n| u32::from_be_bytes([n[0], n[1], n[2], n[3]]));
                if number != Some(sequence) {
                    return 0;
                }
                sequence = sequence.wrapping_add(1);
                if kind == b"fcTL" {
                    controls += 1;
                }
            }
            b"IEND" => break,
            _ => {}
        }
        if controls > limit {
            break;
        }
        at = at.saturating_add(12).saturating_add(len);
    }
    controls
}

/// How many times a GIF plays, as libvips and browsers read it (`Loops`): its NETSCAPE2.0 (or ANIMEXTS1.0)
/// application extension before the first image repeats it that many times after the first play, 0
/// meaning for ever; without one it plays once.
pub(crate) fn gif_loops(bytes: &[u8]) -> u16 {
    if bytes.len() < 13 {
        return 1;
    }
    let mut at = 13 + color_table_len(bytes[10]);
    while let Some(&block) = bytes.get(at) {
        if block != 0x21 {
            break;
        }
        let application = bytes.get(at + 1) == Some(&0xFF) && bytes.get(at + 2) == Some(&11);
        let name = bytes.get(at + 3..at + 14);
        if application
            && (name == Some(b"NETSCAPE2.0") || name == Some(b"ANIMEXTS1.0"))
            && let Some(&[3, 1, low, high]) = bytes.get(at + 14..at + 18)
        {
            let repeats = u16::from_le_bytes([low, high]);
            return if repeats == 0 { 0 } else { repeats.saturating_add(1) };
        }
        at = skip_sub_blocks(bytes, at + 2);
    }
    1
}

/// Bytes of the color table announced by a packed-fields byte (bit 7: present; bits 0–2: size).
fn color_table_len(flags: u8) -> usize {
    if flags & 0x80 == 0 { 0 } else { 3 << ((flags & 0x07) + 1) }
}

/// The offset after the sub-blocks starting at `at` (each a length byte and that many bytes, ended by a zero
/// length); past the end when the file is cut short.
fn skip_sub_blocks(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&len) = bytes.get(at) {
        at += 1;
        if len == 0 {
            return at;
        }
        at += usize::from(len);
    }
    at
}

#[cfg(test)]
mod tests {
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
}
