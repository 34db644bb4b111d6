//! Baseline 4:2:0 JPEG decoding at 1/4 or 1/8 scale, with the entropy decoding split across two threads.
//!
//! Shrinking a large JPEG on load leaves Huffman decoding as nearly all of the work (84% of a 200×200
//! thumbnail of a 12 MP photo in libjpeg-turbo: BENCHMARKS.md, "Split JPEG decoding"), and it is sequential:
//! a symbol's position depends on every symbol before it. Huffman codes resynchronise, though: a decoder
//! started at an arbitrary bit soon falls into step with the true symbol and block boundaries. So a second
//! thread starts decoding at the middle of the entropy-coded data and records where each MCU it decodes
//! began; the first thread decodes from the start, and once an MCU of its own begins at a position the second
//! thread recorded, both have decoded the same bits from the same state, so the rest is the second thread's.
//! The DC coefficients are coded as differences, so the second half's come out offset by a per-component
//! constant, known once the threads meet; they are fixed up then. When the second thread never falls into
//! step (or is not scheduled), the first decodes everything, so the result never depends on it.
//!
//! At 1/8 a block's one output pixel is its DC coefficient; at 1/4 its 2×2 pixels need the coefficients of
//! rows and columns 0, 1, 3, 5 and 7, weighted as libjpeg-turbo's reduced IDCT weights them (`jidctred.c`),
//! accumulated as each coefficient is decoded, and rounded once. The planes come out in libjpeg-turbo's
//! 4:2:0 layout (luma padded to even sides, chroma half of that), as `tj3DecompressToYUVPlanes8` would
//! give them: the same pixels at 1/8, within rounding at 1/4.
//!
//! Only what the thumbnailing fast path needs is handled: baseline (SOF0/SOF1) 8-bit three-component 4:2:0
//! in one interleaved scan, without restart markers. Anything else, and any decoding error, is `None`, and
//! the caller decodes with libjpeg-turbo.

mod bits;
mod huffman;
mod idct;
mod markers;
mod planes;
mod split;
#[cfg(test)]
mod tests;

use bits::unstuff;
use markers::Frame;
use planes::Planes;
use split::{Decoder, Split};
#[cfg(test)]
use {bits::PADDING, split::SPLIT_MIN_BYTES};

/// Decodes `source` at 1/`denominator` (4 or 8), on two threads when `parallel` and the file is large
/// enough, or `None` when it is not a JPEG this decoder handles or is corrupt. The planes are the same
/// either way.
pub(crate) fn decode(source: &[u8], denominator: usize, parallel: bool) -> Option<Planes> {
    decode_with_split(source, denominator, if parallel { Split::Auto } else { Split::Never })
}

/// Whether `source` would be decoded on two threads (tests of the callers check they reach that path).
#[cfg(test)]
pub(crate) fn splits(source: &[u8]) -> bool {
    Frame::parse(source)
        .and_then(|frame| unstuff(frame.entropy))
        .is_some_and(|data| data.len() - PADDING >= SPLIT_MIN_BYTES)
}

fn decode_with_split(source: &[u8], denominator: usize, split: Split) -> Option<Planes> {
    let frame = Frame::parse(source)?;
    let data = unstuff(frame.entropy)?;
    match denominator {
        4 => Decoder::<4>::new(&frame, &data).run(split),
        8 => Decoder::<1>::new(&frame, &data).run(split),
        _ => None,
    }
}
