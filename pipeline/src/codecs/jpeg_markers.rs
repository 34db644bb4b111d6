//! The marker segments of a JPEG's headers, walked by their lengths: what the probe reads (EXIF
//! orientation, ICC profile) and what the planar decoder reads (tables, frame and scan headers) come from
//! this one walk.

/// One marker segment: its code and payload (after the two length bytes), and where the next byte after
/// it is (for SOS, the first byte of the entropy-coded data).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Segment<'a> {
    pub marker: u8,
    pub payload: &'a [u8],
    pub end: usize,
}

const SOS: u8 = 0xDA;
const EOI: u8 = 0xD9;

/// The segments of `bytes` from SOI up to and including the first scan's header (SOS). The walk ends
/// there, at EOI, or at the first damaged marker: a byte that is not 0xFF where a marker starts, a length
/// shorter than its own two bytes, a segment running past the end. Fill bytes (0xFF) before a marker
/// are skipped, as are the markers without a length (TEM, RSTn, a stray SOI).
pub(crate) fn segments(bytes: &[u8]) -> impl Iterator<Item = Segment<'_>> {
    let mut at = if bytes.starts_with(&[0xFF, 0xD8]) { 2 } else { bytes.len() };
    std::iter::from_fn(move || {
        loop {
            if *bytes.get(at)? != 0xFF {
                return None;
            }
            while *bytes.get(at)? == 0xFF {
                at += 1;
            }
            let marker = *bytes.get(at)?;
            at += 1;
            match marker {
                EOI => {
                    at = bytes.len();
                    return None;
                }
                0x01 | 0xD0..=0xD8 => continue,
                _ => {}
            }
            let length = usize::from(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]));
            let payload = bytes.get(at + 2..at.checked_add(length)?)?;
            let end = at + length;
            // After the scan's header comes entropy-coded data, not markers.
            at = if marker == SOS { bytes.len() } else { end };
            return Some(Segment { marker, payload, end });
        }
    })
}
