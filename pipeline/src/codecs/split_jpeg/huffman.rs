//! Huffman tables as DHT segments give them (`Huffman`), and the DC and AC lookup tables built on them
//! that decode a symbol and its value (one or two AC symbols) in one lookup.

use super::bits::extend;

/// A canonical Huffman table: a lookahead table for the short codes, and per-length limits for the rest.
#[derive(Debug, Clone)]
pub(super) struct Huffman {
    /// `length << 8 | symbol` for the codes of up to `FAST_BITS` bits, indexed by the next `FAST_BITS` bits;
    /// 0 for longer codes.
    fast: Box<[u16; 1 << Self::FAST_BITS]>,
    /// The largest code of each length (-1 when there is none), for lengths 0..=16.
    max_code: [i32; 17],
    /// Added to a code of each length to index `symbols`.
    offset: [i32; 17],
    symbols: Vec<u8>,
}

/// A DC table: its codes, and for each `FAST_BITS` prefix the difference coded there in one lookup,
/// `difference << 8 | bits` when the code and the difference's bits fit in the prefix, else 0.
#[derive(Debug)]
pub(super) struct DcTable {
    pub(super) codes: Huffman,
    pub(super) fast: Box<[i32; 1 << Huffman::FAST_BITS]>,
}

impl DcTable {
    pub(super) fn new(codes: Huffman) -> Self {
        let fast = Box::new(std::array::from_fn(|prefix| {
            let word = (prefix as u64) << (64 - Huffman::FAST_BITS);
            // A DC symbol is the difference's size.
            codes
                .short_symbol(word, Huffman::FAST_BITS, u32::from)
                .map_or(0, |(_, value, bits)| value << 8 | bits as i32)
        }));
        Self { codes, fast }
    }
}

/// An AC table: its codes, and for each `FAST_BITS` prefix the one or two symbols coded there (`AcEntry`).
#[derive(Debug)]
pub(super) struct AcTable {
    pub(super) codes: Huffman,
    pub(super) fast: Box<[AcEntry; 1 << Huffman::FAST_BITS]>,
}

impl AcTable {
    pub(super) fn new(codes: Huffman) -> Self {
        let fast = Box::new(std::array::from_fn(|prefix| AcEntry::new(&codes, prefix)));
        Self { codes, fast }
    }
}

/// One or two AC symbols read in one lookup. The Huffman decoding is a chain of dependent steps (look the
/// next bits up, shift them out, look up again), one round per symbol; most codes and values of a photo
/// are short (4.8 bits a symbol in the 12 MP corpus photo), so one round can often take two.
///
/// A symbol is a run of zeros and a coefficient: `skip` positions on (the run plus one), `value` (EXTEND
/// done). ZRL is a zero after a run of 15, EOB a zero 63 positions on (past the block's end from any
/// position), so neither needs a case of its own. An EOB is only ever the second symbol or alone: the
/// next block's DC code follows it.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(8))]
pub(super) struct AcEntry {
    /// The bits both symbols take; 0 when the first symbol's code or value is longer than `FAST_BITS`
    /// allows (or is corrupt): decoded the slow way.
    pub(super) bits: u8,
    /// The bits the first symbol takes.
    pub(super) first_bits: u8,
    pub(super) first_skip: u8,
    /// 0 when there is no second symbol (its value is then 0).
    pub(super) second_skip: u8,
    pub(super) first_value: i16,
    pub(super) second_value: i16,
}

impl AcEntry {
    /// The AC symbol at the top of `word` (code and value within `room` bits), as (skip, value, bits), if
    /// it is fast: an EOB, a ZRL or a coefficient.
    fn symbol(codes: &Huffman, word: u64, room: u32) -> Option<(u8, i16, u8)> {
        // An AC symbol is a run (high nibble) and the coefficient's size (low nibble).
        let (symbol, value, bits) = codes.short_symbol(word, room, |symbol| u32::from(symbol & 15))?;
        match (symbol >> 4, symbol & 15) {
            (0, 0) => Some((64, 0, bits as u8)),
            (15, 0) => Some((16, 0, bits as u8)),
            // Other symbols without a value end the block in libjpeg-turbo (the slow path does so).
            (_, 0) => None,
            (run, _) => Some((run + 1, value as i16, bits as u8)),
        }
    }

    /// The entry for the `FAST_BITS` bits `prefix`.
    fn new(codes: &Huffman, prefix: usize) -> Self {
        let word = (prefix as u64) << (64 - Huffman::FAST_BITS);
        let Some((first_skip, first_value, first_bits)) = Self::symbol(codes, word, Huffman::FAST_BITS) else {
            return Self::default();
        };
        let single = Self { bits: first_bits, first_bits, first_skip, second_skip: 0, first_value, second_value: 0 };
        if first_skip == 64 {
            return single;
        }
        let room = Huffman::FAST_BITS - u32::from(first_bits);
        match Self::symbol(codes, word << first_bits, room) {
            Some((second_skip, second_value, second_bits)) => {
                Self { bits: first_bits + second_bits, second_skip, second_value, ..single }
            }
            None => single,
        }
    }
}

impl Huffman {
    pub(super) const FAST_BITS: u32 = 11;

    /// Builds the table from a DHT segment's 16 counts and its symbols.
    pub(super) fn new(counts: &[u8; 16], symbols: &[u8]) -> Option<Self> {
        let mut fast = Box::new([0u16; 1 << Self::FAST_BITS]);
        let (mut max_code, mut offset) = ([-1i32; 17], [0i32; 17]);
        let (mut code, mut index) = (0i32, 0usize);
        for length in 1..=16u32 {
            let count = usize::from(counts[length as usize - 1]);
            if count > 0 {
                offset[length as usize] = index as i32 - code;
                for _ in 0..count {
                    // A table whose codes do not fit their lengths is corrupt.
                    if code >= 1 << length {
                        return None;
                    }
                    let symbol = *symbols.get(index)?;
                    if length <= Self::FAST_BITS {
                        let shift = Self::FAST_BITS - length;
                        let entry = (length as u16) << 8 | u16::from(symbol);
                        let first = (code as usize) << shift;
                        fast[first..first + (1 << shift)].fill(entry);
                    }
                    code += 1;
                    index += 1;
                }
                max_code[length as usize] = code - 1;
            }
            code <<= 1;
        }
        Some(Self { fast, max_code, offset, symbols: symbols.get(..index)?.to_vec() })
    }

    /// The symbol whose code is at the top of `word`, with the value bits after the code (EXTEND done;
    /// `size` of the symbol bits), when the code and the value both lie within its first `room` bits
    /// (at most `FAST_BITS`, so values of more than 10 bits, corrupt in 8-bit baseline, never are):
    /// (symbol, value, bits taken).
    fn short_symbol(&self, word: u64, room: u32, size: impl Fn(u8) -> u32) -> Option<(u8, i32, u32)> {
        let entry = self.fast[(word >> (64 - Self::FAST_BITS)) as usize];
        let (length, symbol) = (u32::from(entry >> 8), entry as u8);
        let size = size(symbol);
        (entry != 0 && length + size <= room).then(|| (symbol, extend(word << length, size), length + size))
    }

    /// The (length, symbol) of the code at the top of `word`.
    #[inline(always)]
    pub(super) fn decode(&self, word: u64) -> Option<(u32, u8)> {
        let entry = self.fast[(word >> (64 - Self::FAST_BITS)) as usize];
        if entry != 0 {
            return Some((u32::from(entry >> 8), entry as u8));
        }
        self.decode_long(word)
    }

    #[cold]
    fn decode_long(&self, word: u64) -> Option<(u32, u8)> {
        for length in Self::FAST_BITS + 1..=16 {
            let code = (word >> (64 - length)) as i32;
            if code <= self.max_code[length as usize] {
                let symbol = *self.symbols.get((code + self.offset[length as usize]) as usize)?;
                return Some((length, symbol));
            }
        }
        None
    }
}
