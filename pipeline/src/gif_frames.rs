//! Counting a GIF's frames without decoding them: the block structure is walked and every data sub-block
//! skipped by its length byte. Only the first frame is ever decoded, but a file of 100,000 one-pixel frames
//! is still a bomb (for any client that animates it, and for the time spent in a decoder that walks them),
//! so the pipeline refuses GIFs beyond `MAX_GIF_FRAMES` before decoding anything.

use crate::PipelineError;

/// More frames than any real animation has (ten minutes at 16 frames a second).
pub const MAX_GIF_FRAMES: usize = 10_000;

/// The number of image descriptors in `bytes`, stopping early once it exceeds `limit` (returns `limit + 1`
/// then). A file cut short counts the frames seen so far: the decoder reports the damage itself.
pub fn count_frames(bytes: &[u8], limit: usize) -> Result<usize, PipelineError> {
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
            0x3B => break,
            _ => return Err(malformed("unknown block")),
        }
    }
    Ok(frames)
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

    /// A GIF89a of `frames` 1×1 frames, each with a graphic control extension.
    fn gif_of(frames: usize) -> Vec<u8> {
        let mut gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
        for _ in 0..frames {
            gif.extend_from_slice(b"\x21\xf9\x04\x00\x01\x00\x00\x00");
            gif.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00");
        }
        gif.push(0x3B);
        gif
    }

    #[test]
    fn counts_frames_and_stops_past_the_limit() {
        assert_eq!(count_frames(&gif_of(1), 10).unwrap(), 1);
        assert_eq!(count_frames(&gif_of(7), 10).unwrap(), 7);
        assert_eq!(count_frames(&gif_of(50), 10).unwrap(), 11);
    }

    #[test]
    fn damaged_files_never_panic() {
        let gif = gif_of(3);
        for end in 0..gif.len() {
            let _ = count_frames(&gif[..end], 10);
        }
        assert!(count_frames(b"GIF89a\x01\x00\x01\x00\x00\x00\x00\x99", 10).is_err());
    }

    #[test]
    fn the_image_crate_decodes_the_test_gif() {
        let image = image::load_from_memory(&gif_of(2)).unwrap();
        assert_eq!((image.width(), image.height()), (1, 1));
    }
}
