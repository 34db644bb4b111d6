//! The decoder proper: a block's and an MCU's symbols into pixels, on one thread or two (the second from
//! the middle of the data, its MCUs taken over where the threads meet, DC coefficients fixed up).

use std::sync::{
    Mutex, PoisonError,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};

use super::{
    bits::{Bits, PADDING, extend},
    huffman::{AcEntry, AcTable, DcTable, Huffman},
    idct::{AcWeight, IDCT_SHIFT, ac_weights, dc_weight, pixel_sums},
    markers::{Component, Frame},
    planes::{PlaneWriter, Planes},
};

/// Blocks per 4:2:0 MCU: four luma, one of each chroma, and the component each belongs to.
const MCU_COMPONENTS: [usize; 6] = [0, 0, 0, 0, 1, 2];

/// Entropy-coded data below this size is decoded by one thread: the second would barely pay for itself.
pub(super) const SPLIT_MIN_BYTES: usize = 128 * 1024;

/// Where the second thread starts: chosen by size, or (for tests) at a given byte of the entropy data.
#[derive(Debug, Clone, Copy)]
pub(super) enum Split {
    Auto,
    Never,
    #[cfg(test)]
    AtByte(usize),
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
pub(super) struct Decoder<'a, const P: usize> {
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

impl<'a, const P: usize> Decoder<'a, P> {
    pub(super) fn new(frame: &'a Frame<'_>, data: &'a [u8]) -> Self {
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

    pub(super) fn run(&self, split: Split) -> Option<Planes> {
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
