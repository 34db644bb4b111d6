//! The entropy-coded data as bits: taking out the stuffed zeros (`unstuff`), reading it through a
//! 64-bit register (`Bits`), and JPEG's EXTEND of a value's bits into a signed coefficient.

/// Zero padding after the entropy data, so that a refill (`Bits::refill`: 8 bytes, from up to 7 bytes past
/// the next bit) at any bit of it stays in bounds.
pub(super) const PADDING: usize = 16;

/// The scan's entropy-coded bytes with the stuffed zeros taken out, up to the next marker, then
/// `PADDING` zeros. A restart marker inside (with no restart interval declared) is corrupt.
pub(super) fn unstuff(entropy: &[u8]) -> Option<Vec<u8>> {
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
pub(super) fn extend(word: u64, size: u32) -> i32 {
    if size == 0 {
        return 0;
    }
    let value = (word >> (64 - size)) as i32;
    if value < 1 << (size - 1) { value - (1 << size) + 1 } else { value }
}

/// Where decoding stands: the next bits in a register, most significant first, refilled before each symbol.
/// Reading a symbol then costs one table lookup on the bits at hand, where loading the data at a bit
/// position for every symbol put a second dependent memory load on the critical path.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bits {
    /// `count` valid bits at the top; below them, the data's next bits or zeros.
    pub(super) buffer: u64,
    count: u32,
    /// The next byte of the data to load.
    next: usize,
}

impl Bits {
    /// At bit `position` of `data`, or `None` past its padding.
    pub(super) fn at(data: &[u8], position: usize) -> Option<Self> {
        let mut bits = Self { buffer: 0, count: 0, next: position >> 3 };
        bits.refill(data)?;
        bits.consume((position & 7) as u32);
        Some(bits)
    }

    /// The bit position of the next bit.
    pub(super) fn position(&self) -> usize {
        self.next * 8 - self.count as usize
    }

    /// Makes at least 56 bits valid (a symbol takes at most 16 + 11), or `None` past the padding.
    ///
    /// Without a branch: eight bytes are loaded below the valid bits and the whole bytes among them counted,
    /// so the bits past `count` are always the data's next bits (a later load writes the same bits over
    /// them). A refill taken only when fewer than 32 bits were left was a branch on the code lengths
    /// decoded so far, which no predictor guesses.
    #[inline(always)]
    pub(super) fn refill(&mut self, data: &[u8]) -> Option<()> {
        let bytes: [u8; 8] = data.get(self.next..self.next + 8)?.try_into().ok()?;
        self.buffer |= u64::from_be_bytes(bytes) >> self.count;
        self.next += ((63 - self.count) >> 3) as usize;
        self.count |= 56;
        Some(())
    }

    #[inline(always)]
    pub(super) fn consume(&mut self, bits: u32) {
        self.buffer <<= bits;
        self.count -= bits;
    }
}
