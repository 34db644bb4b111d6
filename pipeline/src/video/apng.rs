//! A video's animated preview comes from FFmpeg as an APNG written to a pipe, where FFmpeg cannot go back
//! to write the frame count into `acTL` (it leaves 2³² − 1): `complete_apng` counts the frames (`fcTL`
//! chunks) and writes the count, so the pipeline reads it as any uploaded APNG. The chunks are walked by
//! their stated lengths, within the bytes.

const SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

/// Writes the frame count into the `acTL` of an APNG; returns it. `None` when the bytes are no APNG (no
/// signature, a chunk running past the end, no `acTL`).
pub fn complete_apng(bytes: &mut [u8]) -> Option<u32> {
    if !bytes.starts_with(SIGNATURE) {
        return None;
    }
    let (mut at, mut actl, mut frames) = (SIGNATURE.len(), None, 0u32);
    while at + 12 <= bytes.len() {
        let length = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
        let end = at.checked_add(12)?.checked_add(length)?;
        if end > bytes.len() {
            return None;
        }
        match &bytes[at + 4..at + 8] {
            b"acTL" if length == 8 => actl = Some(at),
            b"fcTL" => frames = frames.checked_add(1)?,
            b"IEND" => break,
            _ => {}
        }
        at = end;
    }
    let actl = actl?;
    bytes[actl + 8..actl + 12].copy_from_slice(&frames.to_be_bytes());
    let crc = crc32fast::hash(&bytes[actl + 4..actl + 16]);
    bytes[actl + 16..actl + 20].copy_from_slice(&crc.to_be_bytes());
    Some(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(name: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut out = (data.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(name);
        out.extend_from_slice(data);
        let crc = crc32fast::hash(&out[4..]);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    #[test]
    fn the_frame_count_is_written_with_its_crc() {
        let mut png = SIGNATURE.to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        png.extend(chunk(b"acTL", &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]));
        for _ in 0..3 {
            png.extend(chunk(b"fcTL", &[0; 26]));
            png.extend(chunk(b"IDAT", &[1, 2, 3]));
        }
        png.extend(chunk(b"IEND", &[]));
        assert_eq!(complete_apng(&mut png), Some(3));
        let at = png.windows(4).position(|w| w == b"acTL").unwrap() - 4;
        assert_eq!(&png[at..at + 20], &chunk(b"acTL", &[0, 0, 0, 3, 0, 0, 0, 0])[..]);
        // Cut short, or no APNG: left as it is.
        let mut cut = png[..png.len() - 20].to_vec();
        cut.truncate(40);
        assert_eq!(complete_apng(&mut cut), None);
        assert_eq!(complete_apng(&mut b"GIF89a".to_vec()), None);
    }
}
