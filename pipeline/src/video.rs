//! What a video's container says, read from its headers without decoding a frame (docs/api.md, "Video
//! facts"): `read_video_facts` over a `ByteSource`, which the caller backs with ranged reads of the stored
//! object, so a 2 GB upload costs the few kilobytes of its headers. One reader per container family
//! (`shutterbox_model::VideoContainer`): `isobmff` (MP4, QuickTime, 3GPP), `matroska` (Matroska, WebM),
//! `avi`, `mpegts`; `poster` chooses a video's poster among its opening frames, `apng` completes the preview FFmpeg writes; `codec_names` maps each one's codec tags to FFmpeg's names. Pure: every read goes
//! through the source, and every read and every length a header states is bounded before it is asked
//! (`Reads`), so a hostile file costs at most `MAX_HEADER_BYTES` of reads and no allocation it chooses.

mod apng;
mod avi;
mod codec_names;
mod h264;
mod isobmff;
mod matroska;
mod mpegts;
mod poster;

pub use apng::complete_apng;
pub use poster::{POSTER_SAMPLE_SIDE, choose_poster};
use shutterbox_model::{VideoContainer, VideoFacts};

/// Where a reader gets the container's bytes.
pub trait ByteSource {
    /// The whole file's length.
    fn size(&self) -> u64;
    /// The bytes at `offset`: `len` of them, or fewer at the end of the file.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, VideoError>;
}

impl ByteSource for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, VideoError> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.len());
        let end = start.saturating_add(len).min(self.len());
        Ok(self[start..end].to_vec())
    }
}

/// The most a reader reads of one file, over all its reads: a real MP4's `moov` of a two-hour film is a
/// few megabytes.
pub const MAX_HEADER_BYTES: u64 = 64 << 20;

/// The most reads one file may cost (a fragmented MP4's fragments, a Matroska file's top-level elements).
const MAX_READS: u32 = 20_000;

/// Why a video's facts could not be read.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("the video's container is malformed: {0}")]
    Malformed(&'static str),
    #[error("the video's headers are larger than the {} MiB read of them", MAX_HEADER_BYTES >> 20)]
    HeadersTooLarge,
    #[error("the video could not be read: {0}")]
    Read(String),
}

/// The facts of a video in `container` (its format's row names it).
pub fn read_video_facts(container: VideoContainer, source: &mut dyn ByteSource) -> Result<VideoFacts, VideoError> {
    let mut reads = Reads { source, read: 0, count: 0 };
    let mut facts = match container {
        VideoContainer::Isobmff => isobmff::read(&mut reads)?,
        VideoContainer::Matroska => matroska::read(&mut reads)?,
        VideoContainer::Avi => avi::read(&mut reads)?,
        VideoContainer::MpegTs => mpegts::read(&mut reads)?,
    };
    if let Some((width, height)) = facts.size
        && (width == 0 || height == 0)
    {
        facts.size = None;
    }
    if facts.duration_ms == Some(0) {
        facts.duration_ms = None;
    }
    if facts.bitrate.is_none() {
        facts.bitrate = facts.duration_ms.and_then(|ms| {
            let bits = u128::from(reads.source.size()) * 8 * 1000;
            u64::try_from(bits / u128::from(ms)).ok()
        });
    }
    Ok(facts)
}

/// The displayed size of a `width`×`height` picture turned `rotation` degrees clockwise.
pub(crate) fn displayed(width: u32, height: u32, rotation: u16) -> (u32, u32) {
    if rotation % 180 == 90 { (height, width) } else { (width, height) }
}

/// A source's reads, counted against `MAX_HEADER_BYTES` and `MAX_READS`.
pub(crate) struct Reads<'a> {
    source: &'a mut dyn ByteSource,
    read: u64,
    count: u32,
}

impl Reads<'_> {
    pub(crate) fn size(&self) -> u64 {
        self.source.size()
    }

    /// `len` bytes at `offset`, fewer at the end of the file; refused once the budget is spent.
    pub(crate) fn at(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, VideoError> {
        let len = len.min(self.size().saturating_sub(offset));
        self.count += 1;
        self.read = self.read.saturating_add(len);
        if self.read > MAX_HEADER_BYTES {
            return Err(VideoError::HeadersTooLarge);
        }
        if self.count > MAX_READS {
            return Err(VideoError::Malformed("too many elements to read"));
        }
        let len = usize::try_from(len).map_err(|_| VideoError::HeadersTooLarge)?;
        self.source.read_at(offset, len)
    }
}

/// Big-endian integers of a slice, `None` past its end.
pub(crate) fn be(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    let slice = bytes.get(at..at.checked_add(len)?)?;
    Some(slice.iter().fold(0u64, |value, byte| (value << 8) | u64::from(*byte)))
}

/// Little-endian integers of a slice, `None` past its end.
pub(crate) fn le(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    let slice = bytes.get(at..at.checked_add(len)?)?;
    Some(slice.iter().rev().fold(0u64, |value, byte| (value << 8) | u64::from(*byte)))
}

/// Milliseconds of `units` at `per_second` units a second, `None` for no time base.
pub(crate) fn millis(units: u64, per_second: u64) -> Option<u64> {
    (per_second > 0).then(|| u64::try_from(u128::from(units) * 1000 / u128::from(per_second)).unwrap_or(u64::MAX))
}
