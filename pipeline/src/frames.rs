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
mod tests;
