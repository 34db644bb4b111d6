//! AVI: the `hdrl` list at the start of the RIFF file, its main header (`avih`) and each stream's header
//! (`strh`: kind, codec, rate, length) and format (`strf`: the picture's size, the sound's format tag).

use shutterbox_model::{FrameRate, VideoFacts};

use super::{Reads, VideoError, codec_names, le, millis};

/// The largest `hdrl` list read: a few kilobytes in a real file (an OpenDML index may follow it).
const MAX_HEADER_LIST: u64 = 1 << 20;

pub(super) fn read(reads: &mut Reads<'_>) -> Result<VideoFacts, VideoError> {
    let riff = reads.at(0, 24)?;
    if riff.get(..4) != Some(b"RIFF") || riff.get(8..12) != Some(b"AVI ") {
        return Err(VideoError::Malformed("no RIFF AVI header"));
    }
    if riff.get(12..16) != Some(b"LIST") || riff.get(20..24) != Some(b"hdrl") {
        return Err(VideoError::Malformed("no hdrl list first"));
    }
    let length = le(&riff, 16, 4).ok_or(VideoError::Malformed("no hdrl list first"))?;
    let hdrl = reads.at(24, length.saturating_sub(4).min(MAX_HEADER_LIST))?;
    let mut facts = VideoFacts {
        size: None,
        rotation: 0,
        duration_ms: None,
        frame_rate: None,
        video_codec: None,
        audio_codec: None,
        bitrate: None,
        frame_count: None,
    };
    let mut main_frames = None;
    let mut longest = None::<u64>;
    for (id, body) in chunks(&hdrl) {
        match id {
            b"avih" => {
                main_frames = le(body, 16, 4);
                if let (Some(w), Some(h)) = (le(body, 32, 4), le(body, 36, 4)) {
                    facts.size = Some((w as u32, h as u32));
                }
            }
            b"LIST" if body.get(..4) == Some(b"strl") => {
                let stream: Vec<_> = chunks(&body[4..]).collect();
                let Some(strh) = stream.iter().find(|(id, _)| *id == b"strh").map(|(_, b)| *b) else { continue };
                let strf = stream.iter().find(|(id, _)| *id == b"strf").map(|(_, b)| *b).unwrap_or(&[]);
                let (scale, rate, length) =
                    (le(strh, 20, 4).unwrap_or(0), le(strh, 24, 4).unwrap_or(0), le(strh, 32, 4).unwrap_or(0));
                let duration = millis(length.saturating_mul(scale), rate);
                match strh.get(..4) {
                    Some(b"vids") if facts.video_codec.is_none() => {
                        let fourcc = strf.get(16..20).or_else(|| strh.get(4..8)).unwrap_or(&[]);
                        facts.video_codec = Some(codec_names::avi_video(fourcc));
                        if let (Some(w), Some(h)) = (le(strf, 4, 4), le(strf, 8, 4)) {
                            // A negative height is a top-down picture of that many rows.
                            facts.size = Some((w as u32, (h as u32 as i32).unsigned_abs()));
                        }
                        facts.frame_rate = FrameRate::new(rate, scale);
                        facts.frame_count = Some(length).filter(|n| *n > 0).or(main_frames);
                        longest = longest.max(duration);
                    }
                    Some(b"auds") if facts.audio_codec.is_none() => {
                        let format = le(strf, 0, 2).unwrap_or(0) as u16;
                        let bits = le(strf, 14, 2).unwrap_or(0) as u16;
                        facts.audio_codec = Some(codec_names::avi_audio(format, bits));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    facts.duration_ms = longest;
    Ok(facts)
}

/// A list's chunks, as (id, body), ending at the first that runs past the bytes; bodies are padded to an
/// even length.
fn chunks(mut bytes: &[u8]) -> impl Iterator<Item = (&[u8; 4], &[u8])> {
    std::iter::from_fn(move || {
        let id: &[u8; 4] = bytes.get(..4)?.try_into().ok()?;
        let length = usize::try_from(le(bytes, 4, 4)?).ok()?;
        let body = bytes.get(8..8usize.checked_add(length)?)?;
        let next = (8 + length + (length & 1)).min(bytes.len());
        bytes = &bytes[next..];
        Some((id, body))
    })
}
