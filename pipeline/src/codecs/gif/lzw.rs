//! A GIF frame's LZW data decoded into its palette indices.
//!
//! The codes mean what they mean to the weezl crate, which the gif crate decodes with (variable-width codes
//! read LSB first, from `min_code_size + 1` bits up to 12; a clear code resets the table; a full table of
//! 4,096 entries stops growing until the next clear; a code past the next free one, or the next free one
//! right after a clear, is an error), and a valid stream decodes to the same indices (tested against weezl
//! below). What differs is how: every entry of the table is a string already written to the output (the
//! string of the code before it plus one byte), so an entry is kept as where that string starts and how
//! long it is, and a code is decoded by copying its bytes from earlier in the output, eight at a time,
//! instead of following a chain of links a byte at a time. On an animated GIF from video that is half of
//! weezl's time (BENCHMARKS.md, "Animations").
//!
//! Decoding stops when the output is full (data after a frame's last pixel is ignored, as browsers ignore
//! it); data that ends before then, or an end code, is `Truncated`.

/// Why a frame's indices could not be decoded.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LzwError {
    #[error("the GIF frame's LZW code size {0} is outside 1 to 11")]
    CodeSize(u8),
    #[error("the GIF frame's LZW data holds a code that is not in its table")]
    InvalidCode,
    #[error("the GIF frame's data ends before its last pixel")]
    Truncated,
}

const MAX_CODE_SIZE: u8 = 12;
const MAX_ENTRIES: usize = 1 << MAX_CODE_SIZE;
/// The largest clear code (code size 11): the buffer begins with the byte of every literal code below it, so
/// a literal is copied from there like any other entry, with no branch on which kind a code is.
const LITERALS: usize = 1 << 11;
/// Room past the frame's last pixel for the last code's 8-byte words.
const SLACK: usize = 8;

/// Where each entry's string starts in the buffer and how long it is, and the buffer: the literals, then the
/// frame's indices. Kept between frames, so a frame allocates nothing unless it is larger than all before.
pub(crate) struct LzwTable {
    start: Box<[u32; MAX_ENTRIES]>,
    len: Box<[u16; MAX_ENTRIES]>,
    buffer: Vec<u8>,
}

impl LzwTable {
    pub(crate) fn new() -> Self {
        let buffer = (0..LITERALS).map(|code| code as u8).collect();
        Self { start: Box::new([0; MAX_ENTRIES]), len: Box::new([0; MAX_ENTRIES]), buffer }
    }

    /// The `pixels` indices `data` codes, `min_code_size` being the byte before the frame's first data
    /// sub-block.
    pub(crate) fn decode(&mut self, min_code_size: u8, data: &[u8], pixels: usize) -> Result<&[u8], LzwError> {
        if !(1..=11).contains(&min_code_size) {
            return Err(LzwError::CodeSize(min_code_size));
        }
        let end = LITERALS + pixels;
        // Every position fits the table's u32.
        if end + SLACK > u32::MAX as usize {
            return Err(LzwError::Truncated);
        }
        if self.buffer.len() < end + SLACK {
            self.buffer.resize(end + SLACK, 0);
        }
        let (start, len, out) = (&mut *self.start, &mut *self.len, &mut self.buffer[..end + SLACK]);
        let clear = 1u16 << min_code_size;
        // A frame of a smaller code size may have made entries where this one's literals are.
        for code in 0..usize::from(clear) {
            (start[code], len[code]) = (code as u32, 1);
        }
        let mut bits = Bits { data, at: 0, buffer: 0, count: 0 };
        let mut size = min_code_size + 1;
        let mut next = clear + 2;
        let mut pos = LITERALS;
        // The string the previous code wrote: where it starts and how long it is.
        let (mut previous_start, mut previous_len) = (0, 0);
        // Right after a clear code (and at the start) the next code is a literal that adds no entry.
        let mut after_clear = true;
        while pos < end {
            let code = bits.read(size).ok_or(LzwError::Truncated)?;
            let written = if code.wrapping_sub(clear) >= 2 && code < next && !after_clear {
                let entry = usize::from(code) & (MAX_ENTRIES - 1);
                copy_earlier(out, start[entry] as usize, usize::from(len[entry]), pos, end)
            } else if code == clear {
                (size, next, after_clear) = (min_code_size + 1, clear + 2, true);
                continue;
            } else if code == clear + 1 {
                // The end code, before the frame's last pixel.
                return Err(LzwError::Truncated);
            } else if after_clear {
                if code >= next {
                    return Err(LzwError::InvalidCode);
                }
                out[pos] = code as u8;
                (previous_start, previous_len, after_clear) = (pos, 1, false);
                pos += 1;
                if next > max_code(size) && size < MAX_CODE_SIZE {
                    size += 1;
                }
                continue;
            } else if code == next {
                // The entry being made: the previous string and its own first byte again. The two overlap,
                // so the byte is written after the copy.
                let copied = copy_earlier(out, previous_start, previous_len, pos, end);
                if pos + copied < end {
                    out[pos + copied] = out[previous_start];
                    copied + 1
                } else {
                    copied
                }
            } else {
                return Err(LzwError::InvalidCode);
            };
            if usize::from(next) < MAX_ENTRIES {
                let entry = usize::from(next) & (MAX_ENTRIES - 1);
                start[entry] = previous_start as u32;
                len[entry] = (previous_len + 1) as u16;
                if next >= max_code(size) && size < MAX_CODE_SIZE {
                    size += 1;
                }
                next += 1;
            }
            (previous_start, previous_len) = (pos, written);
            pos += written;
        }
        Ok(&self.buffer[LITERALS..end])
    }
}

fn max_code(size: u8) -> u16 {
    (1 << size) - 1
}

/// Copies the `len` bytes at `from` (ending at or before `to`) to `to`, as many as fit before `end`, and
/// returns how many. It copies whole 8-byte words: the bytes it writes past the string are rewritten by the
/// codes that follow or lie in the slack past `end`, and those it reads lie before `to + len`.
#[inline(always)]
fn copy_earlier(out: &mut [u8], from: usize, len: usize, to: usize, end: usize) -> usize {
    let len = len.min(end - to);
    let mut k = 0;
    while k < len {
        let mut word = [0; 8];
        word.copy_from_slice(&out[from + k..from + k + 8]);
        out[to + k..to + k + 8].copy_from_slice(&word);
        k += 8;
    }
    len
}

/// The data's bits, least significant first.
struct Bits<'a> {
    data: &'a [u8],
    at: usize,
    buffer: u64,
    count: u8,
}

impl Bits<'_> {
    #[inline(always)]
    fn read(&mut self, size: u8) -> Option<u16> {
        if self.count < size {
            self.refill();
            if self.count < size {
                return None;
            }
        }
        let code = (self.buffer & ((1 << size) - 1)) as u16;
        self.buffer >>= size;
        self.count -= size;
        Some(code)
    }

    /// Brings the buffer to at least 56 bits, or to what is left of the data. Bits above `count` are zero or
    /// already the data's next bits (a word read whole), so ORing the same bytes in again changes nothing.
    fn refill(&mut self) {
        if let Some(word) = self.data.get(self.at..self.at + 8) {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(word);
            self.buffer |= u64::from_le_bytes(bytes) << self.count;
            let taken = (63 - self.count) / 8;
            self.at += usize::from(taken);
            self.count += taken * 8;
        } else {
            while self.count <= 56 {
                let Some(&byte) = self.data.get(self.at) else { break };
                self.buffer |= u64::from(byte) << self.count;
                self.at += 1;
                self.count += 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;
    use weezl::{BitOrder, LzwStatus, decode::Decoder, encode::Encoder};

    use super::{LzwError, LzwTable};

    /// What the gif crate makes of `data` through weezl for a frame of `len` pixels: the indices, or None
    /// where it fails.
    fn weezl(min_code_size: u8, data: &[u8], len: usize) -> Option<Vec<u8>> {
        let mut decoder = Decoder::new(BitOrder::Lsb, min_code_size);
        let mut out = vec![0; len];
        let (mut input, mut filled) = (data, 0);
        while filled < len {
            let result = decoder.decode_bytes(input, &mut out[filled..]);
            input = &input[result.consumed_in..];
            filled += result.consumed_out;
            match result.status {
                Ok(LzwStatus::Ok) => {}
                _ if filled == len => break,
                _ => return None,
            }
            if result.consumed_in == 0 && result.consumed_out == 0 {
                return None;
            }
        }
        Some(out)
    }

    fn ours(min_code_size: u8, data: &[u8], len: usize) -> Result<Vec<u8>, LzwError> {
        LzwTable::new().decode(min_code_size, data, len).map(<[u8]>::to_vec)
    }

    fn encoded(min_code_size: u8, indices: &[u8]) -> Vec<u8> {
        Encoder::new(BitOrder::Lsb, min_code_size).encode(indices).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Any frame weezl encodes, at any code size, decodes to its indices: long runs (strings of up to
        /// thousands of bytes, the table filling and the encoder's clear codes) and noise alike.
        #[test]
        fn decodes_what_weezl_encodes(
            min_code_size in 1u8..=8,
            runs in prop::collection::vec((any::<u8>(), 1usize..600), 1..40),
            noise in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let alphabet = 1u16 << min_code_size;
            let mut state = seed | 1;
            let mut indices = Vec::new();
            for (value, run) in runs {
                for _ in 0..run {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let value = if noise { state as u16 } else { u16::from(value) };
                    indices.push((value % alphabet) as u8);
                }
            }
            let data = encoded(min_code_size, &indices);
            prop_assert_eq!(ours(min_code_size, &data, indices.len()).unwrap(), indices.clone());
            prop_assert_eq!(weezl(min_code_size, &data, indices.len()).unwrap(), indices);
        }

        /// On any bytes at all, where weezl fills the frame we fill it with the same indices; and we never
        /// panic.
        #[test]
        fn agrees_with_weezl_on_any_bytes(
            min_code_size in 1u8..=11,
            data in prop::collection::vec(any::<u8>(), 0..300),
            len in 0usize..2000,
        ) {
            let ours = ours(min_code_size, &data, len);
            if let Some(theirs) = weezl(min_code_size, &data, len) {
                prop_assert_eq!(ours, Ok(theirs));
            }
        }
    }

    /// Valid streams with bytes changed: where weezl still fills the frame, we fill it with the same indices.
    #[test]
    fn agrees_with_weezl_on_damaged_streams() {
        let (mut state, mut compared) = (0x2545_f491_4f6c_dd1d_u64, 0);
        let mut random = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for _ in 0..20_000 {
            let min_code_size = 1 + random(8) as u8;
            let alphabet = 1u64 << min_code_size;
            let run = 1 + random(6);
            let indices: Vec<u8> = (0..1 + random(3000)).map(|i| ((i / run + random(2)) % alphabet) as u8).collect();
            let mut data = encoded(min_code_size, &indices);
            for _ in 0..1 + random(3) {
                let at = random(data.len() as u64) as usize;
                data[at] ^= 1 << random(8);
            }
            let len = if random(2) == 0 { indices.len() } else { random(indices.len() as u64 + 1) as usize };
            if let Some(theirs) = weezl(min_code_size, &data, len) {
                assert_eq!(ours(min_code_size, &data, len), Ok(theirs), "code size {min_code_size}, {data:?}");
                compared += 1;
            }
        }
        assert!(compared > 5_000, "only {compared} damaged streams weezl decoded");
    }

    /// An encoder that never clears: once the table is full (4,096 entries) codes stay 12 bits and no entry
    /// is added (the "deferred clear" some GIF writers use), which weezl's own encoder never produces.
    fn encoded_without_clearing(min_code_size: u8, indices: &[u8]) -> Vec<u8> {
        let clear = 1u32 << min_code_size;
        let (mut bits, mut count, mut out) = (0u64, 0u32, Vec::new());
        let mut emit = |code: u32, size: u32, bits: &mut u64, count: &mut u32| {
            *bits |= u64::from(code) << *count;
            *count += size;
            while *count >= 8 {
                out.push(*bits as u8);
                *bits >>= 8;
                *count -= 8;
            }
        };
        let mut size = u32::from(min_code_size) + 1;
        emit(clear, size, &mut bits, &mut count);
        let mut table = std::collections::HashMap::new();
        let mut next = clear + 2;
        let mut current: Option<u32> = None;
        for &index in indices {
            let Some(prefix) = current else {
                current = Some(u32::from(index));
                continue;
            };
            if let Some(&code) = table.get(&(prefix, index)) {
                current = Some(code);
                continue;
            }
            emit(prefix, size, &mut bits, &mut count);
            if next < 4096 {
                table.insert((prefix, index), next);
                if next == 1 << size && size < 12 {
                    size += 1;
                }
                next += 1;
            }
            current = Some(u32::from(index));
        }
        if let Some(code) = current {
            emit(code, size, &mut bits, &mut count);
        }
        emit(clear + 1, size, &mut bits, &mut count);
        if count > 0 {
            out.push(bits as u8);
        }
        out
    }

    #[test]
    fn a_full_table_stops_growing() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for min_code_size in [2, 4, 8] {
            let indices: Vec<u8> = (0..60_000)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % (1 << min_code_size)) as u8
                })
                .collect();
            let data = encoded_without_clearing(min_code_size, &indices);
            assert_eq!(
                weezl(min_code_size, &data, indices.len()).as_deref(),
                Some(&indices[..]),
                "weezl, {min_code_size}"
            );
            assert_eq!(ours(min_code_size, &data, indices.len()), Ok(indices), "code size {min_code_size}");
        }
    }

    #[test]
    fn refuses_what_is_not_lzw() {
        assert_eq!(ours(0, &[0; 8], 4), Err(LzwError::CodeSize(0)));
        assert_eq!(ours(12, &[0; 8], 4), Err(LzwError::CodeSize(12)));
        // Code size 2: clear (4), then 6, the next free code, which needs a code before it.
        assert_eq!(ours(2, &[0b0011_0100], 4), Err(LzwError::InvalidCode));
        // Clear, literal 1, end: one pixel of four.
        assert_eq!(ours(2, &[0b0100_1100, 0b0000_0001], 4), Err(LzwError::Truncated));
        assert_eq!(ours(2, &[0b0100_1100, 0b0000_0001], 1), Ok(vec![1]));
        assert_eq!(ours(2, &[], 1), Err(LzwError::Truncated));
        assert_eq!(ours(2, &[], 0), Ok(vec![]));
    }
}
