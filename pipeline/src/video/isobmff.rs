//! ISO base media (MP4, QuickTime, 3GPP): the top-level boxes walked by their headers alone, `moov` read
//! whole, and, for a fragmented file whose `moov` holds no samples, each `moof` for its samples' count and
//! durations. The video track is the first whose handler is `vide`, the audio track the first `soun`, as
//! FFmpeg numbers streams.

use shutterbox_model::{FrameRate, VideoFacts};

use super::{Reads, VideoError, be, codec_names, displayed, millis};

/// What one `trak` says.
#[derive(Default)]
struct Track {
    id: u32,
    handler: [u8; 4],
    /// The sample entry's type and its bytes (after the 8-byte box header).
    entry: Option<([u8; 4], Vec<u8>)>,
    coded: Option<(u32, u32)>,
    rotation: u16,
    timescale: u64,
    duration: u64,
    samples: u64,
    /// The sum of the samples' durations (`stts`), in `timescale` units.
    sample_time: u64,
}

/// Samples found in the fragments, per track id.
#[derive(Default)]
struct Fragments {
    /// (track id, samples, their total duration)
    tracks: Vec<(u32, u64, u64)>,
    /// `trex` defaults: (track id, default sample duration).
    defaults: Vec<(u32, u64)>,
}

pub(super) fn read(reads: &mut Reads<'_>) -> Result<VideoFacts, VideoError> {
    let size = reads.size();
    let mut offset = 0u64;
    let mut moov = None;
    let mut moofs = Vec::new();
    while offset.saturating_add(8) <= size {
        let head = reads.at(offset, 16)?;
        let Some((name, header, length)) = box_header(&head, size - offset) else {
            // A box that claims more than the file holds ends the walk: what came before it stands.
            break;
        };
        match &name {
            b"moov" if moov.is_none() => moov = Some(reads.at(offset + header, length - header)?),
            b"moof" => moofs.push((offset + header, length - header)),
            _ => {}
        }
        offset += length;
    }
    let moov = moov.ok_or(VideoError::Malformed("no moov box"))?;
    let mut fragments = Fragments::default();
    let (movie_timescale, movie_duration, mut tracks) = read_moov(&moov, &mut fragments);
    let fragmented = tracks.iter().all(|t| t.samples == 0) && !moofs.is_empty();
    if fragmented {
        for (at, length) in moofs {
            let moof = reads.at(at, length)?;
            read_moof(&moof, &mut fragments);
        }
        for track in &mut tracks {
            if let Some(&(_, samples, time)) = fragments.tracks.iter().find(|(id, ..)| *id == track.id) {
                track.samples = samples;
                track.sample_time = time;
                if track.duration == 0 || track.duration == u64::from(u32::MAX) {
                    track.duration = time;
                }
            }
        }
    }
    let video = tracks.iter().find(|t| &t.handler == b"vide");
    let audio = tracks.iter().find(|t| &t.handler == b"soun");
    let unknown = |d: u64| d == 0 || d == u64::from(u32::MAX) || d == u64::MAX;
    let duration_ms = if !unknown(movie_duration) && !fragmented {
        millis(movie_duration, movie_timescale)
    } else {
        tracks
            .iter()
            .filter(|t| !unknown(t.duration))
            .filter_map(|t| millis(t.duration, t.timescale))
            .max()
            .or_else(|| millis(movie_duration, movie_timescale).filter(|_| !unknown(movie_duration)))
    };
    let rotation = video.map_or(0, |v| v.rotation);
    Ok(VideoFacts {
        size: video.and_then(|v| v.coded).map(|(w, h)| displayed(w, h, rotation)),
        rotation,
        duration_ms,
        frame_rate: video
            .and_then(|v| FrameRate::new(v.timescale.checked_mul(v.samples)?, v.sample_time).filter(|_| v.samples > 0)),
        video_codec: video.and_then(|v| v.entry.as_ref()).map(|(kind, entry)| codec_names::isobmff_video(kind, entry)),
        audio_codec: audio.and_then(|a| a.entry.as_ref()).map(|(kind, entry)| codec_names::isobmff_audio(kind, entry)),
        bitrate: None,
        frame_count: video.map(|v| v.samples).filter(|n| *n > 0),
    })
}

/// A box's type, header length and total length, within `left` bytes of the file; `None` when it is
/// shorter than its header or longer than what is left. A length of 0 means "to the end".
fn box_header(head: &[u8], left: u64) -> Option<([u8; 4], u64, u64)> {
    let length = be(head, 0, 4)?;
    let name: [u8; 4] = head.get(4..8)?.try_into().ok()?;
    let (header, length) = match length {
        0 => (8, left),
        1 => (16, be(head, 8, 8)?),
        n => (8, n),
    };
    (length >= header && length <= left).then_some((name, header, length))
}

/// The boxes inside a box's content, as (type, content), ending at the first malformed one.
fn children(mut bytes: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    std::iter::from_fn(move || {
        let (name, header, length) = box_header(bytes, bytes.len() as u64)?;
        let (header, length) = (usize::try_from(header).ok()?, usize::try_from(length).ok()?);
        let content = bytes.get(header..length)?;
        bytes = &bytes[length..];
        Some((name, content))
    })
}

fn child<'a>(bytes: &'a [u8], wanted: &[u8; 4]) -> Option<&'a [u8]> {
    children(bytes).find(|(name, _)| name == wanted).map(|(_, content)| content)
}

/// The movie's timescale and duration, and its tracks.
fn read_moov(moov: &[u8], fragments: &mut Fragments) -> (u64, u64, Vec<Track>) {
    let (mut timescale, mut duration) = (0, 0);
    let mut tracks = Vec::new();
    for (name, content) in children(moov) {
        match &name {
            b"mvhd" => {
                let wide = content.first() == Some(&1);
                let (at, len) = if wide { (20, 8) } else { (12, 4) };
                timescale = be(content, at, 4).unwrap_or(0);
                duration = be(content, at + 4, len).unwrap_or(0);
            }
            b"trak" => tracks.push(read_trak(content)),
            b"mvex" => {
                for (name, trex) in children(content) {
                    if &name == b"trex"
                        && let (Some(id), Some(default)) = (be(trex, 4, 4), be(trex, 12, 4))
                    {
                        fragments.defaults.push((id as u32, default));
                    }
                }
            }
            _ => {}
        }
    }
    (timescale, duration, tracks)
}

fn read_trak(trak: &[u8]) -> Track {
    let mut track = Track::default();
    if let Some(tkhd) = child(trak, b"tkhd") {
        let wide = tkhd.first() == Some(&1);
        track.id = be(tkhd, if wide { 20 } else { 12 }, 4).unwrap_or(0) as u32;
        let matrix = if wide { 52 } else { 40 };
        track.rotation = rotation(be(tkhd, matrix, 4), be(tkhd, matrix + 4, 4));
    }
    let Some(mdia) = child(trak, b"mdia") else { return track };
    if let Some(mdhd) = child(mdia, b"mdhd") {
        let wide = mdhd.first() == Some(&1);
        let (at, len) = if wide { (20, 8) } else { (12, 4) };
        track.timescale = be(mdhd, at, 4).unwrap_or(0);
        track.duration = be(mdhd, at + 4, len).unwrap_or(0);
    }
    if let Some(handler) = child(mdia, b"hdlr").and_then(|h| h.get(8..12)) {
        track.handler.copy_from_slice(handler);
    }
    let Some(stbl) = child(mdia, b"minf").and_then(|minf| child(minf, b"stbl")) else { return track };
    for (name, content) in children(stbl) {
        match &name {
            b"stsd" => {
                // Version and flags, the entry count, then the first entry as a box.
                if let Some((kind, entry)) = content.get(8..).and_then(|entries| children(entries).next()) {
                    if &track.handler == b"vide"
                        && let (Some(w), Some(h)) = (be(entry, 24, 2), be(entry, 26, 2))
                    {
                        track.coded = Some((w as u32, h as u32));
                    }
                    track.entry = Some((kind, entry.to_vec()));
                }
            }
            b"stts" => {
                let count = be(content, 4, 4).unwrap_or(0);
                let entries = content.get(8..).unwrap_or(&[]);
                let mut samples = 0u64;
                let mut time = 0u64;
                for entry in entries.chunks_exact(8).take(usize::try_from(count).unwrap_or(usize::MAX)) {
                    let n = be(entry, 0, 4).unwrap_or(0);
                    samples = samples.saturating_add(n);
                    time = time.saturating_add(n.saturating_mul(be(entry, 4, 4).unwrap_or(0)));
                }
                track.sample_time = time;
                if track.samples == 0 {
                    track.samples = samples;
                }
            }
            b"stsz" => track.samples = be(content, 8, 4).unwrap_or(0),
            b"stz2" => track.samples = be(content, 8, 4).unwrap_or(0),
            _ => {}
        }
    }
    track
}

/// Degrees clockwise of a display matrix whose first row is (`a`, `b`), 16.16 fixed point: FFmpeg's
/// `av_display_rotation_get`, negated to turn clockwise, rounded to a quarter turn. An all-zero matrix
/// (a broken writer's) turns nothing.
fn rotation(a: Option<u64>, b: Option<u64>) -> u16 {
    let (Some(a), Some(b)) = (a, b) else { return 0 };
    let (a, b) = (f64::from(a as u32 as i32), f64::from(b as u32 as i32));
    if a == 0.0 && b == 0.0 {
        return 0;
    }
    let degrees = b.atan2(a).to_degrees();
    let quarter = ((degrees / 90.0).round() as i64).rem_euclid(4);
    (quarter * 90) as u16
}

/// A `moof`'s samples, per track: `traf` → `tfhd` (track id, default duration) and each `trun`.
fn read_moof(moof: &[u8], fragments: &mut Fragments) {
    for (name, traf) in children(moof) {
        if &name != b"traf" {
            continue;
        }
        let Some(tfhd) = child(traf, b"tfhd") else { continue };
        let flags = be(tfhd, 1, 3).unwrap_or(0);
        let Some(id) = be(tfhd, 4, 4) else { continue };
        let id = id as u32;
        // Optional fields after the track id, in this order, each present when its flag is set.
        let mut at = 8;
        let mut default = fragments.defaults.iter().find(|(t, _)| *t == id).map_or(0, |(_, d)| *d);
        for (flag, len) in [(0x1, 8), (0x2, 4), (0x8, 4)] {
            if flags & flag != 0 {
                if flag == 0x8 {
                    default = be(tfhd, at, 4).unwrap_or(default);
                }
                at += len;
            }
        }
        let (mut samples, mut time) = (0u64, 0u64);
        for (name, trun) in children(traf) {
            if &name != b"trun" {
                continue;
            }
            let flags = be(trun, 1, 3).unwrap_or(0);
            let count = be(trun, 4, 4).unwrap_or(0);
            samples = samples.saturating_add(count);
            let mut at = 8 + if flags & 0x1 != 0 { 4 } else { 0 } + if flags & 0x4 != 0 { 4 } else { 0 };
            let per_sample: usize = [0x100, 0x200, 0x400, 0x800].iter().filter(|f| flags & **f != 0).count() * 4;
            if flags & 0x100 == 0 {
                time = time.saturating_add(count.saturating_mul(default));
                continue;
            }
            // Each sample's duration is its record's first field; the records must all be present.
            let records = trun.len().saturating_sub(at) / per_sample.max(1);
            for _ in 0..count.min(records as u64) {
                time = time.saturating_add(be(trun, at, 4).unwrap_or(0));
                at += per_sample;
            }
        }
        match fragments.tracks.iter_mut().find(|(t, ..)| *t == id) {
            Some(entry) => {
                entry.1 = entry.1.saturating_add(samples);
                entry.2 = entry.2.saturating_add(time);
            }
            None => fragments.tracks.push((id, samples, time)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_follow_ffmpeg_turned_clockwise() {
        let one = 1u64 << 16;
        let minus = |v: u64| (v as u32).wrapping_neg() as u64;
        assert_eq!(rotation(Some(one), Some(0)), 0);
        // What a phone held upright writes: `rotate=90`, FFmpeg's -90.
        assert_eq!(rotation(Some(0), Some(one)), 90);
        assert_eq!(rotation(Some(minus(one)), Some(0)), 180);
        assert_eq!(rotation(Some(0), Some(minus(one))), 270);
        assert_eq!(rotation(Some(0), Some(0)), 0);
    }

    #[test]
    fn a_box_is_held_within_the_bytes_left() {
        assert_eq!(box_header(b"\0\0\0\x10moov", 16).map(|b| b.2), Some(16));
        assert_eq!(box_header(b"\0\0\0\x10moov", 15), None);
        assert_eq!(box_header(b"\0\0\0\x04moov", 16), None, "shorter than its header");
        assert_eq!(box_header(b"\0\0\0\0mdat", 100).map(|b| b.2), Some(100), "to the end");
        assert_eq!(box_header(b"\0\0\0\x01mdat\0\0\0\0\0\0\0\x20", 32).map(|b| (b.1, b.2)), Some((16, 32)));
    }
}
