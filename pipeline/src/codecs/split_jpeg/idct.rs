//! The reduced IDCT: libjpeg-turbo's 2-point weights per zigzag position with the quantizer folded in,
//! and the per-pixel sums at 1/4 from a block's parity-class sums.

/// Zigzag position → natural (row-major) position in an 8×8 block.
const NATURAL_ORDER: [u8; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63,
];

/// libjpeg-turbo's 2-point reduced IDCT weights for coefficient rows/columns 0, 1, 3, 5 and 7 (13
/// fractional bits), for the first output sample; the second negates the odd ones.
const IDCT2_WEIGHTS: [(usize, i64); 5] = [(0, 4 << 13), (1, 29692), (3, -10426), (5, 6967), (7, -5906)];

/// Weighted sums carry 2×13 fractional bits and the IDCT's final 1/128: 33 bits to drop.
pub(super) const IDCT_SHIFT: u32 = 33;

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
pub(super) struct AcWeight(i64);

impl AcWeight {
    /// Positions a coefficient can be filed at, indexed with `& 255`: past 63 only after an overlong run
    /// (at most 63 + 63 for a first symbol, 126 + 63 for a second), where libjpeg-turbo files it at 63.
    pub(super) const POSITIONS: usize = 256;

    /// One word, so that a coefficient's add reads one value: `weight << 3 | class`.
    fn new(weight: i64, class: usize) -> Self {
        Self(weight << 3 | class as i64)
    }

    #[inline(always)]
    pub(super) fn weight(self) -> i64 {
        self.0 >> 3
    }

    #[inline(always)]
    pub(super) fn class(self) -> usize {
        (self.0 & 7) as usize
    }
}

/// The `AcWeight` of each position for `quant`, by zigzag position (past 63: 63's).
pub(super) fn ac_weights(quant: &[u16; 64]) -> [AcWeight; AcWeight::POSITIONS] {
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
pub(super) fn dc_weight(quant: &[u16; 64]) -> i64 {
    i64::from(quant[0]) << (2 * 15)
}

/// A block's `P` pixel sums (row by row) from its four parity-class sums (`AcWeight`): a pixel in the
/// second row negates the classes with an odd row, one in the second column those with an odd column.
#[inline(always)]
pub(super) fn pixel_sums<const P: usize>(classes: &[i64; 4]) -> [i64; P] {
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
