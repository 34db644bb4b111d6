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

use std::sync::{
    Arc, Mutex, PoisonError,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};

/// Zigzag position → natural (row-major) position in an 8×8 block.
const NATURAL_ORDER: [u8; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63,
];

/// Blocks per 4:2:0 MCU: four luma, one of each chroma, and the component each belongs to.
const MCU_COMPONENTS: [usize; 6] = [0, 0, 0, 0, 1, 2];

/// Entropy-coded data below this size is decoded by one thread: the second would barely pay for itself.
const SPLIT_MIN_BYTES: usize = 128 * 1024;

/// Planes decoded at 1/`denominator`, laid out as libjpeg-turbo lays out 4:2:0 YUV with `align` 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planes {
    /// Luma (`padded_width × padded_height`), then the two chroma planes (half of each).
    pub pixels: Vec<u8>,
    /// The scaled image's size; the luma plane is that rounded up to even sides.
    pub width: usize,
    pub height: usize,
}

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

/// Where the second thread starts: chosen by size, or (for tests) at a given byte of the entropy data.
#[derive(Debug, Clone, Copy)]
enum Split {
    Auto,
    Never,
    #[cfg(test)]
    AtByte(usize),
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

/// A canonical Huffman table: a lookahead table for the short codes, and per-length limits for the rest.
#[derive(Debug, Clone)]
struct Huffman {
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
struct DcTable {
    codes: Huffman,
    fast: Box<[i32; 1 << Huffman::FAST_BITS]>,
}

impl DcTable {
    fn new(codes: Huffman) -> Self {
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
struct AcTable {
    codes: Huffman,
    fast: Box<[AcEntry; 1 << Huffman::FAST_BITS]>,
}

impl AcTable {
    fn new(codes: Huffman) -> Self {
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
struct AcEntry {
    /// The bits both symbols take; 0 when the first symbol's code or value is longer than `FAST_BITS`
    /// allows (or is corrupt): decoded the slow way.
    bits: u8,
    /// The bits the first symbol takes.
    first_bits: u8,
    first_skip: u8,
    /// 0 when there is no second symbol (its value is then 0).
    second_skip: u8,
    first_value: i16,
    second_value: i16,
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
    const FAST_BITS: u32 = 11;

    /// Builds the table from a DHT segment's 16 counts and its symbols.
    fn new(counts: &[u8; 16], symbols: &[u8]) -> Option<Self> {
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
    fn decode(&self, word: u64) -> Option<(u32, u8)> {
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

/// One component of the frame, with the tables its scan uses.
#[derive(Debug, Clone)]
struct Component {
    /// Quantization table, zigzag order.
    quant: [u16; 64],
    dc: Arc<DcTable>,
    ac: Arc<AcTable>,
}

/// The frame header's size and, for Y, Cb and Cr, the component id and quantization table.
#[derive(Debug, Clone, Copy)]
struct FrameHeader {
    width: usize,
    height: usize,
    layout: [(u8, usize); 3],
}

/// What decoding needs from the headers, up to the start of the one scan's entropy-coded data.
#[derive(Debug)]
struct Frame<'a> {
    width: usize,
    height: usize,
    /// Luma, Cb, Cr.
    components: [Component; 3],
    /// From the first byte after the SOS header to the end of the file.
    entropy: &'a [u8],
}

impl<'a> Frame<'a> {
    fn parse(source: &'a [u8]) -> Option<Self> {
        if source.get(..2)? != [0xFF, 0xD8] {
            return None;
        }
        let mut quant = [None::<[u16; 64]>; 4];
        // Shared by the components that use them, built once each.
        let mut dc: [Option<Arc<DcTable>>; 4] = Default::default();
        let mut ac: [Option<Arc<AcTable>>; 4] = Default::default();
        // (id, quant table) of Y, Cb, Cr, once the frame header is read.
        let mut frame: Option<FrameHeader> = None;
        let mut at = 2;
        loop {
            // A marker: 0xFF, any number of fill 0xFFs, the code.
            if *source.get(at)? != 0xFF {
                return None;
            }
            while *source.get(at)? == 0xFF {
                at += 1;
            }
            let code = *source.get(at)?;
            at += 1;
            if matches!(code, 0x01 | 0xD0..=0xD7) {
                continue;
            }
            let length = usize::from(u16::from_be_bytes([*source.get(at)?, *source.get(at + 1)?]));
            let segment = source.get(at + 2..at.checked_add(length)?)?;
            at += length;
            match code {
                0xC0 | 0xC1 => {
                    let &[8, h1, h0, w1, w0, 3, ref components @ ..] = segment else { return None };
                    let (height, width) =
                        (usize::from(u16::from_be_bytes([h1, h0])), usize::from(u16::from_be_bytes([w1, w0])));
                    let layout = components.get(..9)?;
                    // 4:2:0: luma sampled 2×2, both chroma 1×1.
                    if height == 0 || width == 0 || layout[1] != 0x22 || layout[4] != 0x11 || layout[7] != 0x11 {
                        return None;
                    }
                    let table =
                        |i: usize| (layout[i * 3 + 2] < 4).then_some((layout[i * 3], usize::from(layout[i * 3 + 2])));
                    frame = Some(FrameHeader { width, height, layout: [table(0)?, table(1)?, table(2)?] });
                }
                // Progressive, lossless, arithmetic-coded or hierarchical: libjpeg-turbo's.
                0xC2 | 0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return None,
                0xC4 => {
                    let mut rest = segment;
                    while let [class_id, rest_after @ ..] = rest {
                        let counts: &[u8; 16] = rest_after.get(..16)?.try_into().ok()?;
                        let total = counts.iter().map(|&c| usize::from(c)).sum::<usize>();
                        let codes = Huffman::new(counts, rest_after.get(16..16 + total)?)?;
                        let id = usize::from(class_id & 0x0F);
                        match class_id >> 4 {
                            0 => *dc.get_mut(id)? = Some(Arc::new(DcTable::new(codes))),
                            1 => *ac.get_mut(id)? = Some(Arc::new(AcTable::new(codes))),
                            _ => return None,
                        }
                        rest = &rest_after[16 + total..];
                    }
                }
                0xDB => {
                    let mut rest = segment;
                    while let [precision_id, rest_after @ ..] = rest {
                        let mut table = [0u16; 64];
                        let size = match precision_id >> 4 {
                            0 => {
                                table.iter_mut().zip(rest_after.get(..64)?).for_each(|(q, &v)| *q = u16::from(v));
                                64
                            }
                            1 => {
                                let bytes = rest_after.get(..128)?;
                                table
                                    .iter_mut()
                                    .zip(bytes.chunks_exact(2))
                                    .for_each(|(q, v)| *q = u16::from_be_bytes([v[0], v[1]]));
                                128
                            }
                            _ => return None,
                        };
                        *quant.get_mut(usize::from(precision_id & 0x0F))? = Some(table);
                        rest = &rest_after[size..];
                    }
                }
                // Restart markers would need resetting the predictors at each; libjpeg-turbo handles them.
                0xDD if segment.get(..2) != Some(&[0, 0][..]) => return None,
                0xDA => {
                    let FrameHeader { width, height, layout } = frame?;
                    let &[3, ref scan @ ..] = segment else { return None };
                    let &[c0, t0, c1, t1, c2, t2, 0, 63, 0] = scan else { return None };
                    let component = |i: usize, id: u8, tables: u8| -> Option<Component> {
                        let (frame_id, quant_id) = layout[i];
                        if id != frame_id {
                            return None;
                        }
                        Some(Component {
                            quant: quant[quant_id]?,
                            dc: dc.get(usize::from(tables >> 4))?.clone()?,
                            ac: ac.get(usize::from(tables & 0x0F))?.clone()?,
                        })
                    };
                    let components = [component(0, c0, t0)?, component(1, c1, t1)?, component(2, c2, t2)?];
                    return Some(Self { width, height, components, entropy: &source[at..] });
                }
                0xD9 => return None,
                _ => {}
            }
        }
    }
}

/// Zero padding after the entropy data, so that a refill (`Bits::refill`: 8 bytes, from up to 7 bytes past
/// the next bit) at any bit of it stays in bounds.
const PADDING: usize = 16;

/// The scan's entropy-coded bytes with the stuffed zeros taken out, up to the next marker, then
/// `PADDING` zeros. A restart marker inside (with no restart interval declared) is corrupt.
fn unstuff(entropy: &[u8]) -> Option<Vec<u8>> {
    let mut data = Vec::with_capacity(entropy.len() + PADDING);
    let mut rest = entropy;
    loop {
        let Some(ff) = memchr::memchr(0xFF, rest) else {
            // No end-of-image marker: a truncated file, for libjpeg-turbo to report.
            return None;
        };
        data.extend_from_slice(&rest[..ff]);
        match rest.get(ff + 1)? {
            0x00 => {
                data.push(0xFF);
                rest = &rest[ff + 2..];
            }
            // Fill bytes before a marker.
            0xFF => rest = &rest[ff + 1..],
            0xD0..=0xD7 => return None,
            _ => break,
        }
    }
    data.resize(data.len() + PADDING, 0);
    Some(data)
}

/// The `size`-bit value at the top of `word` as a signed coefficient (JPEG's EXTEND).
#[inline(always)]
fn extend(word: u64, size: u32) -> i32 {
    if size == 0 {
        return 0;
    }
    let value = (word >> (64 - size)) as i32;
    if value < 1 << (size - 1) { value - (1 << size) + 1 } else { value }
}

/// libjpeg-turbo's 2-point reduced IDCT weights for coefficient rows/columns 0, 1, 3, 5 and 7 (13
/// fractional bits), for the first output sample; the second negates the odd ones.
const IDCT2_WEIGHTS: [(usize, i64); 5] = [(0, 4 << 13), (1, 29692), (3, -10426), (5, 6967), (7, -5906)];

/// Weighted sums carry 2×13 fractional bits and the IDCT's final 1/128: 33 bits to drop.
const IDCT_SHIFT: u32 = 33;

/// What a coefficient at one zigzag position adds at 1/4, the quantizer folded in: `weight` times its value
/// goes to the sum of parity class `class`.
///
/// The 2-point IDCT weights a row or column index `i` the same for both output samples except that the
/// second negates it when `i` is odd, so a coefficient's four weights (one per pixel of the 2×2) are one
/// magnitude with signs set by whether its row and its column are odd: its class (row odd << 1 | column
/// odd). Summing each class once and combining the four sums per pixel at the block's end
/// (`pixel_sums`) costs one multiply per coefficient where four weights cost four, and gives the same
/// integers. Positions that reach no pixel (rows or columns 2, 4, 6) weigh 0, in classes 4 to 7.
#[derive(Debug, Clone, Copy, Default)]
struct AcWeight(i64);

impl AcWeight {
    /// Positions a coefficient can be filed at, indexed with `& 255`: past 63 only after an overlong run
    /// (at most 63 + 63 for a first symbol, 126 + 63 for a second), where libjpeg-turbo files it at 63.
    const POSITIONS: usize = 256;

    /// One word, so that a coefficient's add reads one value: `weight << 3 | class`.
    fn new(weight: i64, class: usize) -> Self {
        Self(weight << 3 | class as i64)
    }

    #[inline(always)]
    fn weight(self) -> i64 {
        self.0 >> 3
    }

    #[inline(always)]
    fn class(self) -> usize {
        (self.0 & 7) as usize
    }
}

/// The `AcWeight` of each position for `quant`, by zigzag position (past 63: 63's).
fn ac_weights(quant: &[u16; 64]) -> [AcWeight; AcWeight::POSITIONS] {
    let along = |index: usize| IDCT2_WEIGHTS.iter().find(|&&(i, _)| i == index).map(|&(_, w)| w);
    std::array::from_fn(|position| {
        let zigzag = position.min(63);
        let natural = usize::from(NATURAL_ORDER[zigzag]);
        let (row, column) = (natural / 8, natural % 8);
        match (along(row), along(column)) {
            (Some(v), Some(h)) => AcWeight::new(
                i64::from(quant[zigzag]) * v * h,
                usize::from(row % 2 == 1) << 1 | usize::from(column % 2 == 1),
            ),
            // Weight 0, summed apart from the four classes, and spread over four sums: consecutive
            // coefficients mostly land in different sums, so their adds do not wait for each other.
            _ => AcWeight::new(0, 4 + zigzag % 4),
        }
    })
}

/// The DC coefficient's weight at either scale: `4 << 13` along both sides, the quantizer folded in.
fn dc_weight(quant: &[u16; 64]) -> i64 {
    i64::from(quant[0]) << (2 * 15)
}

/// A block's `P` pixel sums (row by row) from its four parity-class sums (`AcWeight`): a pixel in the
/// second row negates the classes with an odd row, one in the second column those with an odd column.
#[inline(always)]
fn pixel_sums<const P: usize>(classes: &[i64; 4]) -> [i64; P] {
    if P == 1 {
        return [0; P];
    }
    let [even, odd_column, odd_row, odd_both] = *classes;
    let sums = [
        even + odd_column + odd_row + odd_both,
        even - odd_column + odd_row - odd_both,
        even + odd_column - odd_row - odd_both,
        even - odd_column - odd_row + odd_both,
    ];
    std::array::from_fn(|pixel| sums[pixel])
}

/// A block decoded by the second thread before the DC offset is known: its DC predictor after the block,
/// and its AC coefficients' weighted sums.
#[derive(Debug, Clone, Copy)]
struct PendingBlock<const P: usize> {
    dc: i32,
    ac: [i64; P],
}

/// An MCU decoded by the second thread: which of its attempts it came from, the predictors before it,
/// and its blocks.
#[derive(Debug, Clone, Copy)]
struct PendingMcu<const P: usize> {
    attempt: u32,
    dc_before: [i32; 3],
    blocks: [PendingBlock<P>; 6],
}

/// What decoding one component's blocks reads: its Huffman tables and its coefficients' weights.
struct ComponentTables<'a> {
    dc: &'a DcTable,
    ac: &'a AcTable,
    ac_weights: [AcWeight; AcWeight::POSITIONS],
    dc_weight: i64,
}

/// Decoding state shared by both threads: tables, geometry, the data.
struct Decoder<'a, const P: usize> {
    components: [ComponentTables<'a>; 3],
    data: &'a [u8],
    /// Bits of real data (the padding excluded).
    data_bits: usize,
    mcus_across: usize,
    mcu_count: usize,
    /// Output pixels per block side (1 or 2).
    side: usize,
    width: usize,
    height: usize,
}

/// Where decoding stands: the next bits in a register, most significant first, refilled before each symbol.
/// Reading a symbol then costs one table lookup on the bits at hand, where loading the data at a bit
/// position for every symbol put a second dependent memory load on the critical path.
#[derive(Debug, Clone, Copy)]
struct Bits {
    /// `count` valid bits at the top; below them, the data's next bits or zeros.
    buffer: u64,
    count: u32,
    /// The next byte of the data to load.
    next: usize,
}

impl Bits {
    /// At bit `position` of `data`, or `None` past its padding.
    fn at(data: &[u8], position: usize) -> Option<Self> {
        let mut bits = Self { buffer: 0, count: 0, next: position >> 3 };
        bits.refill(data)?;
        bits.consume((position & 7) as u32);
        Some(bits)
    }

    /// The bit position of the next bit.
    fn position(&self) -> usize {
        self.next * 8 - self.count as usize
    }

    /// Makes at least 56 bits valid (a symbol takes at most 16 + 11), or `None` past the padding.
    ///
    /// Without a branch: eight bytes are loaded below the valid bits and the whole bytes among them counted,
    /// so the bits past `count` are always the data's next bits (a later load writes the same bits over
    /// them). A refill taken only when fewer than 32 bits were left was a branch on the code lengths
    /// decoded so far, which no predictor guesses.
    #[inline(always)]
    fn refill(&mut self, data: &[u8]) -> Option<()> {
        let bytes: [u8; 8] = data.get(self.next..self.next + 8)?.try_into().ok()?;
        self.buffer |= u64::from_be_bytes(bytes) >> self.count;
        self.next += ((63 - self.count) >> 3) as usize;
        self.count |= 56;
        Some(())
    }

    #[inline(always)]
    fn consume(&mut self, bits: u32) {
        self.buffer <<= bits;
        self.count -= bits;
    }
}

impl<'a, const P: usize> Decoder<'a, P> {
    fn new(frame: &'a Frame<'_>, data: &'a [u8]) -> Self {
        let side = if P == 1 { 1 } else { 2 };
        let [y, cb, cr] = &frame.components;
        let tables = |c: &'a Component| ComponentTables {
            dc: &c.dc,
            ac: &c.ac,
            ac_weights: ac_weights(&c.quant),
            dc_weight: dc_weight(&c.quant),
        };
        let denominator = 8 / side;
        Self {
            components: [tables(y), tables(cb), tables(cr)],
            data,
            data_bits: (data.len() - PADDING) * 8,
            mcus_across: frame.width.div_ceil(16),
            mcu_count: frame.width.div_ceil(16) * frame.height.div_ceil(16),
            side,
            width: frame.width.div_ceil(denominator),
            height: frame.height.div_ceil(denominator),
        }
    }

    /// Decodes one block of `component`, updating its DC predictor; returns the AC coefficients'
    /// weighted sums per output pixel.
    #[inline(always)]
    fn block(&self, bits: &mut Bits, component: usize, predictor: &mut i32) -> Option<[i64; P]> {
        let ComponentTables { dc, ac, ac_weights: weights, .. } = &self.components[component];
        bits.refill(self.data)?;
        let entry = dc.fast[(bits.buffer >> (64 - Huffman::FAST_BITS)) as usize];
        if entry != 0 {
            *predictor = predictor.wrapping_add(entry >> 8);
            bits.consume((entry & 0xFF) as u32);
        } else {
            let (length, size) = dc.codes.decode(bits.buffer)?;
            if size > 11 {
                return None;
            }
            let size = u32::from(size);
            *predictor = predictor.wrapping_add(extend(bits.buffer << length, size));
            bits.consume(length + size);
        }

        // The tables the loop reads, held where the loop can keep them in registers.
        let (fast_ac, weights, data): (&[AcEntry; 1 << Huffman::FAST_BITS], &[AcWeight; AcWeight::POSITIONS], &[u8]) =
            (&ac.fast, weights, self.data);
        // Second symbols' sums apart from first ones', so that a lone symbol's add of 0 at its own
        // position does not wait for the add before it.
        let (mut classes, mut second_classes) = ([0i64; 8], [0i64; 8]);
        // Only 25 of the 64 positions reach a 2×2 output; the others' weights are 0. Multiplying by them
        // costs less than a branch on the position, which no predictor guesses. libjpeg-turbo files an
        // overlong run's coefficient at the last position.
        let add = |classes: &mut [i64; 8], position: usize, value: i32| {
            if P > 1 {
                let weight = weights[position & (AcWeight::POSITIONS - 1)];
                classes[weight.class()] += i64::from(value) * weight.weight();
            }
        };
        let mut k = 1;
        while k < 64 {
            bits.refill(data)?;
            let entry = fast_ac[(bits.buffer >> (64 - Huffman::FAST_BITS)) as usize];
            if entry.bits != 0 {
                let before = *bits;
                bits.consume(u32::from(entry.bits));
                let first = k + usize::from(entry.first_skip) - 1;
                add(&mut classes, first, entry.first_value.into());
                k = first + 1;
                // The first coefficient was the block's last (at position 63, or an overlong run) and the
                // entry has a second symbol: that is the next block's. Rare, so a branch that is always
                // guessed right, when tested as one comparison (on whether there is a second symbol, it
                // would be a branch no predictor guesses).
                if k.min(64) + usize::from(entry.second_skip.min(1)) > 64 {
                    *bits = before;
                    bits.consume(u32::from(entry.first_bits));
                    break;
                }
                // A lone symbol's entry adds 0 at its own position and leaves `k` where it is.
                let second = k + usize::from(entry.second_skip);
                add(&mut second_classes, second.max(1) - 1, entry.second_value.into());
                k = second;
                continue;
            }
            let (length, symbol) = ac.codes.decode(bits.buffer)?;
            let (run, size) = (usize::from(symbol >> 4), u32::from(symbol & 15));
            // 8-bit baseline AC coefficients take at most 10 bits; more is corrupt (and could overflow the
            // sums).
            if size > 10 {
                return None;
            }
            let value = extend(bits.buffer << length, size);
            bits.consume(length + size);
            if size == 0 {
                if run != 15 {
                    break;
                }
                k += 16;
                continue;
            }
            k += run;
            add(&mut classes, k, value);
            k += 1;
        }
        Some(pixel_sums(&std::array::from_fn(|class| classes[class] + second_classes[class])))
    }

    /// Decodes the MCU at `bits` into its blocks (DC predictor after each, AC sums).
    #[inline(always)]
    fn mcu(&self, bits: &mut Bits, predictors: &mut [i32; 3]) -> Option<[PendingBlock<P>; 6]> {
        let mut blocks = [PendingBlock { dc: 0, ac: [0; P] }; 6];
        for (block, &component) in blocks.iter_mut().zip(&MCU_COMPONENTS) {
            let ac = self.block(bits, component, &mut predictors[component])?;
            *block = PendingBlock { dc: predictors[component], ac };
        }
        Some(blocks)
    }

    /// Writes decoded MCU `index` into `planes`.
    fn store(&self, planes: &mut PlaneWriter, index: usize, blocks: &[PendingBlock<P>; 6]) {
        let (mx, my) = (index % self.mcus_across, index / self.mcus_across);
        for (b, (block, &component)) in blocks.iter().zip(&MCU_COMPONENTS).enumerate() {
            // The DC coefficient as libjpeg-turbo stores it: 16 bits.
            let dc = i64::from(block.dc as i16) * self.components[component].dc_weight;
            let (bx, by) = if component == 0 { (2 * mx + (b & 1), 2 * my + (b >> 1)) } else { (mx, my) };
            let values: [u8; P] = std::array::from_fn(|pixel| {
                let sum = dc + block.ac[pixel] + (1 << (IDCT_SHIFT - 1));
                (128 + (sum >> IDCT_SHIFT)).clamp(0, 255) as u8
            });
            planes.set_block(component, bx * self.side, by * self.side, &values);
        }
    }

    fn run(&self, split: Split) -> Option<Planes> {
        let mut planes = PlaneWriter::new(self.width, self.height);
        let real_bytes = self.data.len() - PADDING;
        let start = match split {
            Split::Auto if real_bytes >= SPLIT_MIN_BYTES => Some(real_bytes / 2),
            Split::Auto => None,
            Split::Never => None,
            #[cfg(test)]
            Split::AtByte(byte) => Some(byte.min(real_bytes)),
        };
        match start {
            None => {
                let (mut bits, mut predictors) = (Bits::at(self.data, 0)?, [0i32; 3]);
                for index in 0..self.mcu_count {
                    let blocks = self.mcu(&mut bits, &mut predictors)?;
                    self.store(&mut planes, index, &blocks);
                }
                (bits.position() <= self.data_bits).then_some(())?;
            }
            Some(start) => self.run_split(&mut planes, start * 8)?,
        }
        Some(planes.finish())
    }

    /// The two-thread decode: this thread from the start, a task on rayon's pool from bit `start`.
    ///
    /// A pool thread rather than a thread of our own: a thread spawned per render from the server's
    /// blocking pool was often placed on the busy core, which cost a fifth of the render (BENCHMARKS.md,
    /// "Split JPEG decoding").
    fn run_split(&self, planes: &mut PlaneWriter, start: usize) -> Option<()> {
        let shared = Meeting {
            positions: (0..self.mcu_count).map(|_| AtomicU64::new(0)).collect(),
            published: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            pending: Mutex::new(Vec::new()),
        };
        rayon::in_place_scope(|scope| {
            scope.spawn(|_| {
                let pending = self.decode_from(start, &shared);
                *shared.pending.lock().unwrap_or_else(PoisonError::into_inner) = pending;
                shared.finished.store(true, Ordering::Release);
            });
            let (mut bits, mut predictors) = (Bits::at(self.data, 0)?, [0i32; 3]);
            // The first MCU of ours found among the second thread's, and the index of its record.
            let mut met: Option<(usize, usize)> = None;
            let mut cursor = 0;
            // Whether the second thread's work may still be used.
            let mut second = true;
            let mut index = 0;
            while index < self.mcu_count {
                let position = bits.position();
                if position >= start && second {
                    if met.is_none() {
                        let published = shared.published.load(Ordering::Acquire);
                        while cursor < published && shared.positions[cursor].load(Ordering::Relaxed) < position as u64 {
                            cursor += 1;
                        }
                        if cursor < published && shared.positions[cursor].load(Ordering::Relaxed) == position as u64 {
                            met = Some((index, cursor));
                        }
                    }
                    if let Some((met_index, met_record)) = met
                        && shared.finished.load(Ordering::Acquire)
                    {
                        second = false;
                        let pending =
                            std::mem::take(&mut *shared.pending.lock().unwrap_or_else(PoisonError::into_inner));
                        let record = met_record + (index - met_index);
                        if self.finish_from(planes, &pending, index, record, &predictors) {
                            return Some(());
                        }
                    }
                }
                let blocks = self.mcu(&mut bits, &mut predictors).or_else(|| {
                    shared.stop.store(true, Ordering::Relaxed);
                    None
                })?;
                self.store(planes, index, &blocks);
                index += 1;
            }
            shared.stop.store(true, Ordering::Relaxed);
            (bits.position() <= self.data_bits).then_some(())
        })
    }

    /// Takes MCUs `index..` from the second thread's records `record..`, if they all come from one attempt
    /// (so they continue ours), fixing their DC coefficients with this thread's `predictors`.
    fn finish_from(
        &self,
        planes: &mut PlaneWriter,
        pending: &[PendingMcu<P>],
        index: usize,
        record: usize,
        predictors: &[i32; 3],
    ) -> bool {
        let remaining = self.mcu_count - index;
        let Some(records) = pending.get(record..record + remaining) else { return false };
        let attempt = records[0].attempt;
        if records.iter().any(|mcu| mcu.attempt != attempt) {
            return false;
        }
        let offset: [i32; 3] = std::array::from_fn(|c| predictors[c].wrapping_sub(records[0].dc_before[c]));
        for (i, mcu) in records.iter().enumerate() {
            let mut blocks = mcu.blocks;
            for (block, &component) in blocks.iter_mut().zip(&MCU_COMPONENTS) {
                block.dc = block.dc.wrapping_add(offset[component]);
            }
            self.store(planes, index + i, &blocks);
        }
        true
    }

    /// The second thread: decodes from bit `start` until the data ends or it is told to stop, publishing
    /// where each MCU began. A decoding error (still out of step) starts a new attempt a bit further on.
    fn decode_from(&self, start: usize, meeting: &Meeting<P>) -> Vec<PendingMcu<P>> {
        let mut pending = Vec::with_capacity(self.mcu_count / 2 + 1);
        let mut attempt = 0u32;
        let Some(mut bits) = Bits::at(self.data, start) else { return pending };
        let mut predictors = [0i32; 3];
        while pending.len() < self.mcu_count && bits.position() < self.data_bits {
            if meeting.stop.load(Ordering::Relaxed) {
                break;
            }
            let at = bits;
            let dc_before = predictors;
            match self.mcu(&mut bits, &mut predictors).filter(|_| bits.position() <= self.data_bits) {
                Some(blocks) => {
                    meeting.positions[pending.len()].store(at.position() as u64, Ordering::Relaxed);
                    pending.push(PendingMcu { attempt, dc_before, blocks });
                    meeting.published.store(pending.len(), Ordering::Release);
                }
                None => {
                    attempt += 1;
                    predictors = [0; 3];
                    let Some(next) = Bits::at(self.data, at.position() + 1) else { break };
                    bits = next;
                }
            }
        }
        pending
    }
}

/// What the two threads share: where the second thread's MCUs began, how many it has published, whether
/// the first has finished without it, and, once the second is done, what it decoded.
struct Meeting<const P: usize> {
    positions: Vec<AtomicU64>,
    published: AtomicUsize,
    stop: AtomicBool,
    finished: AtomicBool,
    pending: Mutex<Vec<PendingMcu<P>>>,
}

/// The output planes, in libjpeg-turbo's layout, written pixel by pixel (outside the planes: dropped).
struct PlaneWriter {
    pixels: Vec<u8>,
    width: usize,
    height: usize,
    /// (offset, width, height) of Y, Cb, Cr.
    planes: [(usize, usize, usize); 3],
}

impl PlaneWriter {
    fn new(width: usize, height: usize) -> Self {
        let (yw, yh) = (width.next_multiple_of(2), height.next_multiple_of(2));
        let (cw, ch) = (yw / 2, yh / 2);
        Self {
            pixels: vec![0; yw * yh + 2 * cw * ch],
            width,
            height,
            planes: [(0, yw, yh), (yw * yh, cw, ch), (yw * yh + cw * ch, cw, ch)],
        }
    }

    /// Writes a block's pixels (one, or 2×2 row by row) with its top left at (`x`, `y`); those outside the
    /// plane are dropped.
    #[inline(always)]
    fn set_block<const P: usize>(&mut self, component: usize, x: usize, y: usize, values: &[u8; P]) {
        let (offset, width, height) = self.planes[component];
        let side = if P == 1 { 1 } else { 2 };
        if x + side <= width && y + side <= height {
            let at = offset + y * width + x;
            if let [value] = values[..] {
                self.pixels[at] = value;
            } else if let [a, b, c, d] = values[..] {
                self.pixels[at..at + 2].copy_from_slice(&[a, b]);
                self.pixels[at + width..at + width + 2].copy_from_slice(&[c, d]);
            }
            return;
        }
        for (pixel, &value) in values.iter().enumerate() {
            let (x, y) = (x + pixel % 2, y + pixel / 2);
            if x < width && y < height {
                self.pixels[offset + y * width + x] = value;
            }
        }
    }

    fn finish(self) -> Planes {
        Planes { pixels: self.pixels, width: self.width, height: self.height }
    }
}

#[cfg(test)]
mod tests {
    use image::{Rgb, RgbImage};
    use turbojpeg::{Decompressor, ScalingFactor, Subsamp, YuvImage};

    use super::*;

    fn photo(w: u32, h: u32, quality: i32) -> Vec<u8> {
        crate::test_jpeg::photo(w, h, quality)
    }

    fn libjpeg(source: &[u8], denominator: usize) -> Planes {
        let mut decompressor = Decompressor::new().unwrap();
        let header = decompressor.read_header(source).unwrap();
        let factor = ScalingFactor::new(1, denominator);
        decompressor.set_scaling_factor(factor).unwrap();
        let (width, height) = (factor.scale(header.width), factor.scale(header.height));
        let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(width, 1, height, Subsamp::Sub2x2).unwrap()];
        let image = YuvImage { pixels: &mut pixels[..], width, align: 1, height, subsamp: Subsamp::Sub2x2 };
        decompressor.decompress_to_yuv(source, image).unwrap();
        Planes { pixels, width, height }
    }

    /// The samples of `planes` inside the image (libjpeg-turbo's padding columns and rows hold whatever its
    /// scratch buffer held).
    fn visible(planes: &Planes) -> Vec<u8> {
        let (yw, yh) = (planes.width.next_multiple_of(2), planes.height.next_multiple_of(2));
        let (cw, ch) = (yw / 2, yh / 2);
        let mut samples = Vec::new();
        for (offset, stride, w, h) in [
            (0, yw, planes.width, planes.height),
            (yw * yh, cw, planes.width.div_ceil(2), planes.height.div_ceil(2)),
            (yw * yh + cw * ch, cw, planes.width.div_ceil(2), planes.height.div_ceil(2)),
        ] {
            for row in 0..h {
                samples.extend_from_slice(&planes.pixels[offset + row * stride..][..w]);
            }
        }
        samples
    }

    #[test]
    fn matches_libjpeg_turbo_exactly_at_one_eighth_and_within_rounding_at_one_quarter() {
        for (w, h, q) in [(640, 480, 90), (333, 217, 75), (17, 9, 100), (1000, 37, 40)] {
            let source = photo(w, h, q);
            for (denominator, tolerance) in [(8, 0), (4, 1)] {
                let ours = decode_with_split(&source, denominator, Split::Never).unwrap();
                let reference = libjpeg(&source, denominator);
                assert_eq!(
                    (ours.width, ours.height, ours.pixels.len()),
                    (reference.width, reference.height, reference.pixels.len())
                );
                let (ours, reference) = (visible(&ours), visible(&reference));
                let worst = ours.iter().zip(&reference).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
                assert!(worst <= tolerance, "{w}×{h} q{q} at 1/{denominator}: a sample off by {worst}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(160))]

        /// Over the space of files this decoder takes: any size (odd sides, partial MCUs, one row of them),
        /// any quality (the coefficients' sizes, so every lookup path: codes and values within the fast
        /// lookup, beyond it, EOB, ZRL) and both standard and per-image Huffman tables, it decodes what
        /// libjpeg-turbo decodes: exactly at 1/8, within rounding at 1/4.
        #[test]
        fn decodes_as_libjpeg_turbo_does(
            w in 1u32..400,
            h in 1u32..300,
            quality in 1i32..=100,
            optimize: bool,
            seed in 1u32..,
        ) {
            let source = crate::test_jpeg::encode_with(
                &crate::test_jpeg::photo_pixels(w, h, seed),
                quality,
                Subsamp::Sub2x2,
                optimize,
            );
            for (denominator, tolerance) in [(8, 0), (4, 1)] {
                let ours = decode_with_split(&source, denominator, Split::Never).unwrap();
                let reference = libjpeg(&source, denominator);
                proptest::prop_assert_eq!((ours.width, ours.height), (reference.width, reference.height));
                let (ours, reference) = (visible(&ours), visible(&reference));
                let worst = ours.iter().zip(&reference).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
                proptest::prop_assert!(worst <= tolerance, "{}×{} q{} at 1/{}: a sample off by {}", w, h, quality, denominator, worst);
            }
        }
    }

    /// Blocks whose last coefficient (position 63) is not zero end without an EOB, so the next bits are the
    /// next block's DC code: a two-symbol lookup (`AcEntry`) must then give back its second symbol. Noise at
    /// the highest qualities keeps position 63 nonzero in most blocks; with a split too.
    #[test]
    fn blocks_ending_at_the_last_coefficient_decode_as_libjpeg_turbo_does() {
        let mut seed = 0x2545_f491_u32;
        let noise = RgbImage::from_fn(256, 192, |_, _| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            Rgb([seed as u8, (seed >> 8) as u8, (seed >> 16) as u8])
        });
        for (quality, optimize) in [(100, false), (100, true), (97, false)] {
            let source = crate::test_jpeg::encode_with(&noise, quality, Subsamp::Sub2x2, optimize);
            let bytes = Frame::parse(&source).unwrap().entropy.len();
            for (denominator, tolerance) in [(8, 0), (4, 1)] {
                let whole = decode_with_split(&source, denominator, Split::Never).unwrap();
                let reference = libjpeg(&source, denominator);
                let worst = visible(&whole).iter().zip(&visible(&reference)).map(|(a, b)| a.abs_diff(*b)).max();
                assert!(worst <= Some(tolerance), "q{quality} at 1/{denominator}: a sample off by {worst:?}");
                let split = decode_with_split(&source, denominator, Split::AtByte(bytes / 2)).unwrap();
                assert!(split == whole, "q{quality} at 1/{denominator}, split");
            }
        }
    }

    #[test]
    fn a_split_anywhere_gives_the_single_thread_result() {
        let source = photo(800, 600, 85);
        let frame = Frame::parse(&source).unwrap();
        let bytes = frame.entropy.len();
        for denominator in [4, 8] {
            let whole = decode_with_split(&source, denominator, Split::Never).unwrap();
            for at in [0, 1, 7, bytes / 3, bytes / 2, bytes - 200, bytes] {
                let split = decode_with_split(&source, denominator, Split::AtByte(at)).unwrap();
                assert!(split == whole, "1/{denominator} split at byte {at} of {bytes}");
            }
        }
    }

    #[test]
    fn what_it_does_not_handle_is_none() {
        let four_four_four =
            crate::test_jpeg::encode(&RgbImage::from_fn(64, 64, |x, y| Rgb([x as u8, y as u8, 7])), 80, Subsamp::None);
        assert!(decode(&four_four_four, 8, true).is_none());
        let source = photo(200, 100, 80);
        assert!(decode(&source, 2, true).is_none());
        assert!(decode(b"not a jpeg", 8, true).is_none());
        assert!(decode(&source[..source.len() / 2], 8, true).is_none(), "truncated");
    }

    #[test]
    fn corrupt_data_never_panics() {
        let source = photo(160, 120, 80);
        let mut seed = 0x9e37_79b9_u32;
        for round in 0..400 {
            let mut corrupt = source.clone();
            for _ in 0..1 + round % 8 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let at = seed as usize % corrupt.len();
                corrupt[at] = (seed >> 24) as u8;
            }
            for denominator in [4, 8] {
                let _ = decode_with_split(&corrupt, denominator, Split::AtByte(corrupt.len() / 3));
                let _ = decode_with_split(&corrupt, denominator, Split::Never);
            }
        }
    }
}
