//! Matroska and WebM: the EBML header, then the Segment's top-level elements walked by their headers until
//! its `Info` (time scale, duration) and `Tracks` are read; a `SeekHead` says where they are when they
//! come after the first `Cluster`. Matroska states no frame count.

use shutterbox_model::{FrameRate, VideoFacts};

use super::{Reads, VideoError, be, codec_names};

const EBML: u64 = 0x1A45_DFA3;
const SEGMENT: u64 = 0x1853_8067;
const SEEK_HEAD: u64 = 0x114D_9B74;
const INFO: u64 = 0x1549_A966;
const TRACKS: u64 = 0x1654_AE6B;
const CLUSTER: u64 = 0x1F43_B675;

/// The largest `Info` or `Tracks` element read.
const MAX_ELEMENT: u64 = 16 << 20;

/// An element's id, the length of its header, and its size (`None`: unknown, "to the end of its parent").
struct Header {
    id: u64,
    header: u64,
    size: Option<u64>,
}

pub(super) fn read(reads: &mut Reads<'_>) -> Result<VideoFacts, VideoError> {
    let file = reads.size();
    let first = header_at(reads, 0)?.ok_or(VideoError::Malformed("no EBML header"))?;
    if first.id != EBML {
        return Err(VideoError::Malformed("no EBML header"));
    }
    let mut offset = first.header + first.size.ok_or(VideoError::Malformed("an EBML header of unknown size"))?;
    // The segment, past any element before it (Void).
    let segment = loop {
        let header = header_at(reads, offset)?.ok_or(VideoError::Malformed("no segment"))?;
        if header.id == SEGMENT {
            break header;
        }
        offset += header.header + header.size.ok_or(VideoError::Malformed("an element of unknown size"))?;
    };
    let start = offset + segment.header;
    let end = segment.size.map_or(file, |size| start.saturating_add(size).min(file));
    let (mut info, mut tracks, mut seeks) = (None, None, Vec::new());
    let mut at = start;
    while at < end && (info.is_none() || tracks.is_none()) {
        let Some(header) = header_at(reads, at)? else { break };
        let body = at + header.header;
        match (header.id, header.size) {
            (INFO | TRACKS | SEEK_HEAD, Some(size)) => {
                let bytes = reads.at(body, size.min(MAX_ELEMENT))?;
                match header.id {
                    INFO => info = Some(bytes),
                    TRACKS => tracks = Some(bytes),
                    _ => seeks = seek_positions(&bytes),
                }
            }
            (CLUSTER, _) if !seeks.is_empty() => break,
            _ => {}
        }
        match header.size {
            Some(size) => at = body.saturating_add(size),
            // A live stream's cluster of unknown size: nothing after it can be found by walking.
            None => break,
        }
    }
    for (id, position) in seeks {
        let slot = match id {
            INFO if info.is_none() => &mut info,
            TRACKS if tracks.is_none() => &mut tracks,
            _ => continue,
        };
        let at = start.saturating_add(position);
        if let Some(Header { id: found, header, size: Some(size) }) = header_at(reads, at)?
            && found == id
        {
            *slot = Some(reads.at(at + header, size.min(MAX_ELEMENT))?);
        }
    }
    let tracks = tracks.ok_or(VideoError::Malformed("no Tracks element"))?;
    let (scale, duration) = info.as_deref().map_or((1_000_000, None), read_info);
    let entries = read_tracks(&tracks);
    let video = entries.iter().find(|t| t.kind == 1);
    let audio = entries.iter().find(|t| t.kind == 2);
    Ok(VideoFacts {
        size: video.and_then(|v| v.size),
        rotation: 0,
        duration_ms: duration.and_then(|units| {
            let nanos = units * scale as f64;
            (nanos.is_finite() && nanos >= 0.0).then(|| (nanos / 1e6).round() as u64)
        }),
        frame_rate: video.and_then(|v| v.default_duration).and_then(|ns| FrameRate::new(1_000_000_000, ns)),
        video_codec: video.map(|v| codec_names::matroska(&v.codec, &v.private)),
        audio_codec: audio.map(|a| codec_names::matroska(&a.codec, &a.private)),
        bitrate: None,
        frame_count: None,
    })
}

/// The header of the element at `offset`; `None` at the end of the file.
fn header_at(reads: &mut Reads<'_>, offset: u64) -> Result<Option<Header>, VideoError> {
    if offset >= reads.size() {
        return Ok(None);
    }
    let bytes = reads.at(offset, 12)?;
    Ok(header(&bytes))
}

fn header(bytes: &[u8]) -> Option<Header> {
    let (id, id_len) = vint(bytes, true)?;
    let (size, size_len) = vint(bytes.get(id_len..)?, false)?;
    let unknown = size == (1u64 << (7 * size_len)) - 1;
    Some(Header { id, header: (id_len + size_len) as u64, size: (!unknown).then_some(size) })
}

/// An EBML variable-length integer and its length: an id keeps its marker bit, a size does not.
fn vint(bytes: &[u8], keep_marker: bool) -> Option<(u64, usize)> {
    let first = *bytes.first()?;
    let len = first.leading_zeros() as usize + 1;
    if len > 8 || (keep_marker && len > 4) {
        return None;
    }
    let mut value = if keep_marker { u64::from(first) } else { u64::from(first) & ((1u64 << (8 - len)) - 1) };
    for byte in bytes.get(1..len)? {
        value = (value << 8) | u64::from(*byte);
    }
    Some((value, len))
}

/// The elements of a master element's body, as (id, body), ending at the first malformed one.
fn elements(mut bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    std::iter::from_fn(move || {
        let header = header(bytes)?;
        let start = usize::try_from(header.header).ok()?;
        let end = start.checked_add(usize::try_from(header.size?).ok()?)?;
        let body = bytes.get(start..end)?;
        bytes = &bytes[end..];
        Some((header.id, body))
    })
}

fn uint(body: &[u8]) -> Option<u64> {
    (body.len() <= 8).then(|| be(body, 0, body.len()))?
}

fn float(body: &[u8]) -> Option<f64> {
    match body.len() {
        4 => Some(f64::from(f32::from_bits(be(body, 0, 4)? as u32))),
        8 => Some(f64::from_bits(be(body, 0, 8)?)),
        _ => None,
    }
}

/// (element id, position from the segment's start) of each `Seek`.
fn seek_positions(seek_head: &[u8]) -> Vec<(u64, u64)> {
    elements(seek_head)
        .filter(|(id, _)| *id == 0x4DBB)
        .filter_map(|(_, seek)| {
            let id = elements(seek).find(|(id, _)| *id == 0x53AB).and_then(|(_, b)| uint(b))?;
            let position = elements(seek).find(|(id, _)| *id == 0x53AC).and_then(|(_, b)| uint(b))?;
            Some((id, position))
        })
        .take(64)
        .collect()
}

/// The segment's time scale (nanoseconds a unit) and duration (in units).
fn read_info(info: &[u8]) -> (u64, Option<f64>) {
    let mut scale = 1_000_000;
    let mut duration = None;
    for (id, body) in elements(info) {
        match id {
            0x2A_D7B1 => scale = uint(body).filter(|s| *s > 0).unwrap_or(scale),
            0x4489 => duration = float(body),
            _ => {}
        }
    }
    (scale, duration)
}

struct Entry {
    kind: u64,
    codec: String,
    /// `CodecPrivate`, up to the bytes a codec's name is read from.
    private: Vec<u8>,
    size: Option<(u32, u32)>,
    default_duration: Option<u64>,
}

fn read_tracks(tracks: &[u8]) -> Vec<Entry> {
    elements(tracks)
        .filter(|(id, _)| *id == 0xAE)
        .map(|(_, entry)| {
            let mut track =
                Entry { kind: 0, codec: String::new(), private: Vec::new(), size: None, default_duration: None };
            for (id, body) in elements(entry) {
                match id {
                    0x83 => track.kind = uint(body).unwrap_or(0),
                    0x86 => track.codec = String::from_utf8_lossy(body).trim_end_matches('\0').to_owned(),
                    0x63A2 => track.private = body[..body.len().min(64)].to_vec(),
                    0x23_E383 => track.default_duration = uint(body).filter(|d| *d > 0),
                    0xE0 => {
                        let find =
                            |wanted: u64| elements(body).find(|(id, _)| *id == wanted).and_then(|(_, b)| uint(b));
                        if let (Some(w), Some(h)) = (find(0xB0), find(0xBA)) {
                            track.size = Some((u32::try_from(w).unwrap_or(0), u32::try_from(h).unwrap_or(0)));
                        }
                    }
                    _ => {}
                }
            }
            track
        })
        .take(128)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_length_integers_read_as_ebml_says() {
        assert_eq!(vint(&[0x81], false), Some((1, 1)));
        assert_eq!(vint(&[0x40, 0x02], false), Some((2, 2)));
        assert_eq!(vint(&[0x1A, 0x45, 0xDF, 0xA3], true), Some((EBML, 4)));
        assert_eq!(vint(&[0x00], false), None);
        assert_eq!(vint(&[0x10, 0x00], true), None, "shorter than it says");
        let unknown = header(&[0x1F, 0x43, 0xB6, 0x75, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap();
        assert_eq!((unknown.id, unknown.size), (CLUSTER, None));
    }
}
