//! MPEG transport streams (`.ts`, a camcorder's `.mts`/`.m2ts`): the program tables (PAT, then the first
//! program's PMT) for the streams' codecs, and the first and last presentation time of the video stream
//! for the duration, from the first and the last megabyte. A transport stream states neither its picture
//! size nor its frame count in a table: an H.264 stream's size is its sequence parameter set's (`h264`), in
//! the first packets of the video stream; another codec's is not read (no frames are decoded without it).

use shutterbox_model::VideoFacts;

use super::{Reads, VideoError, be, codec_names, h264};

/// How much of each end is read.
const WINDOW: u64 = 1 << 20;

pub(super) fn read(reads: &mut Reads<'_>) -> Result<VideoFacts, VideoError> {
    let head = reads.at(0, WINDOW)?;
    let (stride, offset) = match (head.first(), head.get(4)) {
        (Some(0x47), _) => (188, 0),
        (_, Some(0x47)) => (192, 4),
        _ => return Err(VideoError::Malformed("no transport stream sync byte")),
    };
    let mut pmt_pid = None;
    let mut streams: Vec<(u16, u8)> = Vec::new();
    for packet in packets(&head, 0, stride, offset) {
        let (pid, payload) = match split(packet) {
            Some(split) => split,
            None => continue,
        };
        if pid == 0 && pmt_pid.is_none() {
            pmt_pid = section(payload).and_then(|s| s.get(8..12)).and_then(|entry| {
                let program = be(entry, 0, 2)?;
                if program == 0 { None } else { Some((be(entry, 2, 2)? & 0x1FFF) as u16) }
            });
        } else if Some(pid) == pmt_pid && streams.is_empty() {
            streams = section(payload).map(pmt_streams).unwrap_or_default();
            break;
        }
    }
    if streams.is_empty() {
        return Err(VideoError::Malformed("no program map table in the first megabyte"));
    }
    let named: Vec<(u16, &str, bool)> = streams
        .iter()
        .filter_map(|&(pid, kind)| codec_names::mpegts(kind).map(|(name, video)| (pid, name, video)))
        .collect();
    let video = named.iter().find(|s| s.2);
    let audio = named.iter().find(|s| !s.2);
    // The span of every stream's presentation times, as FFmpeg measures a transport stream's duration.
    let timed: Vec<u16> = named.iter().map(|s| s.0).collect();
    let first = packets(&head, 0, stride, offset).filter_map(|p| timed.iter().find_map(|pid| pts(p, *pid))).min();
    let size = reads.size();
    let tail_start = size.saturating_sub(WINDOW);
    let tail = reads.at(tail_start, WINDOW)?;
    // Packets are counted from the file's start: the tail's first whole one.
    let skip = usize::try_from((stride as u64 - tail_start % stride as u64) % stride as u64).unwrap_or(0);
    let last = packets(&tail, skip, stride, offset).filter_map(|p| timed.iter().find_map(|pid| pts(p, *pid))).max();
    // The last frame lasts as long as the shortest step between the video's last presentation times.
    let mut times: Vec<u64> =
        video.map(|v| packets(&tail, skip, stride, offset).filter_map(|p| pts(p, v.0)).collect()).unwrap_or_default();
    times.sort_unstable();
    let frame = times.windows(2).map(|pair| pair[1] - pair[0]).filter(|step| *step > 0).min().unwrap_or(0);
    let duration_ms = match (first, last) {
        // Presentation times run at 90 kHz and wrap at 33 bits.
        (Some(first), Some(last)) => Some(((last.wrapping_sub(first) & ((1 << 33) - 1)) + frame) / 90),
        _ => None,
    };
    let size = video.filter(|v| v.1 == "h264").and_then(|v| {
        // The first payload unit of the video stream, past its PES header, up to 64 KB.
        let mut stream = Vec::new();
        for packet in packets(&head, 0, stride, offset) {
            let Some((pid, payload)) = payload_of(packet) else { continue };
            if pid != v.0 || (stream.is_empty() && !starts_unit(packet)) {
                continue;
            }
            if stream.is_empty() {
                let header = usize::from(*payload.get(8)?);
                stream.extend_from_slice(payload.get(9 + header..)?);
            } else if starts_unit(packet) || stream.len() > 64 << 10 {
                break;
            } else {
                stream.extend_from_slice(payload);
            }
        }
        h264::sps_size(&stream)
    });
    Ok(VideoFacts {
        size,
        rotation: 0,
        duration_ms,
        frame_rate: None,
        video_codec: video.map(|s| s.1.to_owned()),
        audio_codec: audio.map(|s| s.1.to_owned()),
        bitrate: None,
        frame_count: None,
    })
}

/// The packets of `bytes` from `start`, each `stride` long, from its sync byte at `offset`.
fn packets(bytes: &[u8], start: usize, stride: usize, offset: usize) -> impl Iterator<Item = &[u8]> {
    bytes.get(start..).unwrap_or(&[]).chunks_exact(stride).map(move |p| &p[offset..]).filter(|p| p[0] == 0x47)
}

/// Whether a packet starts a payload unit (a PES packet, a section).
fn starts_unit(packet: &[u8]) -> bool {
    packet.get(1).is_some_and(|b| b & 0x40 != 0)
}

/// A packet's PID and payload, past its adaptation field, whether or not it starts a unit.
fn payload_of(packet: &[u8]) -> Option<(u16, &[u8])> {
    let pid = (be(packet, 1, 2)? & 0x1FFF) as u16;
    let control = (packet.get(3)? >> 4) & 0x3;
    let mut at = 4;
    if control & 0x2 != 0 {
        at += 1 + usize::from(*packet.get(4)?);
    }
    (control & 0x1 != 0).then(|| Some((pid, packet.get(at..)?)))?
}

/// A packet's PID and payload, when it starts a payload unit.
fn split(packet: &[u8]) -> Option<(u16, &[u8])> {
    if !starts_unit(packet) {
        return None;
    }
    payload_of(packet)
}

/// A PSI section's bytes from its table id, past the pointer field, within its stated length.
fn section(payload: &[u8]) -> Option<&[u8]> {
    let pointer = usize::from(*payload.first()?);
    let section = payload.get(1 + pointer..)?;
    let length = usize::try_from(be(section, 1, 2)? & 0x0FFF).ok()?;
    // The section's bytes without its CRC.
    section.get(..(3 + length).checked_sub(4)?)
}

/// A PMT's (elementary PID, stream type) pairs.
fn pmt_streams(pmt: &[u8]) -> Vec<(u16, u8)> {
    let Some(info) = be(pmt, 10, 2) else { return Vec::new() };
    let mut at = 12 + (info & 0x0FFF) as usize;
    let mut streams = Vec::new();
    while let (Some(kind), Some(pid), Some(es_info)) = (pmt.get(at), be(pmt, at + 1, 2), be(pmt, at + 3, 2)) {
        streams.push(((pid & 0x1FFF) as u16, *kind));
        at += 5 + (es_info & 0x0FFF) as usize;
        if streams.len() >= 64 {
            break;
        }
    }
    streams
}

/// The presentation time of a PES packet of `pid` that starts in `packet`.
fn pts(packet: &[u8], pid: u16) -> Option<u64> {
    let (found, payload) = split(packet)?;
    if found != pid || payload.get(..3) != Some(&[0, 0, 1]) || payload.get(7)? & 0x80 == 0 {
        return None;
    }
    let b = payload.get(9..14)?;
    Some(
        (u64::from(b[0] >> 1) & 0x7) << 30
            | u64::from(b[1]) << 22
            | (u64::from(b[2]) >> 1) << 15
            | u64::from(b[3]) << 7
            | u64::from(b[4]) >> 1,
    )
}
