//! Fuzz target `video_facts`: the video container readers of pipeline/src/video/ (ISO base media,
//! Matroska, AVI, MPEG-TS) through `read_video_facts`.
//!
//! Input: the first byte picks the container (its value modulo 4, in `VideoContainer`'s order: ISO base
//! media, Matroska, AVI, transport stream); the rest is the file. Seeds are the smallest corpus videos of
//! each family, prefixed so.
//!
//! Beyond "never panics": the reads asked of the source stay within `MAX_HEADER_BYTES` (plus the one read
//! that crosses it and is refused), so a file cannot make the reader fetch or allocate what it declares;
//! the facts hold what `VideoFacts` promises: a size, when there is one, of non-zero sides; a rotation of a
//! quarter turn; a duration, when there is one, above zero.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shutterbox_model::VideoContainer;
use shutterbox_pipeline::video::{ByteSource, MAX_HEADER_BYTES, VideoError, read_video_facts};

/// The file, with what was asked of it counted.
struct Counted<'a> {
    bytes: &'a [u8],
    asked: u64,
}

impl ByteSource for Counted<'_> {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, VideoError> {
        self.asked += len as u64;
        let mut bytes = self.bytes;
        bytes.read_at(offset, len)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, file)) = data.split_first() else { return };
    let container = [VideoContainer::Isobmff, VideoContainer::Matroska, VideoContainer::Avi, VideoContainer::MpegTs]
        [usize::from(which % 4)];
    let mut source = Counted { bytes: file, asked: 0 };
    let facts = read_video_facts(container, &mut source);
    assert!(source.asked <= MAX_HEADER_BYTES, "{} bytes asked of a {}-byte file", source.asked, file.len());
    if let Ok(facts) = facts {
        if let Some((width, height)) = facts.size {
            assert!(width > 0 && height > 0, "{width}x{height}");
        }
        assert!([0, 90, 180, 270].contains(&facts.rotation), "{}", facts.rotation);
        assert_ne!(facts.duration_ms, Some(0));
        if let Some(rate) = facts.frame_rate {
            assert!(rate.numerator > 0 && rate.denominator > 0);
        }
    }
});
