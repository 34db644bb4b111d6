//! The picture size an H.264 stream's sequence parameter set states (ITU-T H.264 §7.3.2.1.1), for a
//! container that states none of its own (an MPEG transport stream, a camcorder's `.mts`). Every field
//! before the size is read as the syntax has it (scaling lists and picture-order cycles included); every
//! number is bounded, so a hostile set reads as no size rather than as a huge one.

/// The width and height, cropping applied, of the first SPS in `annexb` (NAL units after start codes).
pub(super) fn sps_size(annexb: &[u8]) -> Option<(u32, u32)> {
    let sps = nal_units(annexb).find(|nal| nal.first().is_some_and(|header| header & 0x1F == 7))?;
    let rbsp = unescape(sps.get(1..)?);
    parse(&mut Bits { bytes: &rbsp, at: 0 })
}

/// The NAL units after each `00 00 01` start code.
fn nal_units(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let starts: Vec<usize> =
        bytes.windows(3).enumerate().filter(|(_, w)| *w == [0, 0, 1]).map(|(i, _)| i + 3).collect();
    (0..starts.len()).map(move |k| {
        let end = starts.get(k + 1).map_or(bytes.len(), |next| next - 3);
        &bytes[starts[k]..end.max(starts[k])]
    })
}

/// The payload without its emulation-prevention bytes (`00 00 03` → `00 00`).
fn unescape(nal: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(nal.len());
    let mut zeros = 0;
    for &byte in nal {
        if zeros >= 2 && byte == 3 {
            zeros = 0;
            continue;
        }
        zeros = if byte == 0 { zeros + 1 } else { 0 };
        out.push(byte);
    }
    out
}

struct Bits<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    fn bit(&mut self) -> Option<u32> {
        let byte = *self.bytes.get(self.at / 8)?;
        let bit = (byte >> (7 - self.at % 8)) & 1;
        self.at += 1;
        Some(u32::from(bit))
    }

    fn bits(&mut self, n: u32) -> Option<u32> {
        (0..n).try_fold(0, |value, _| Some((value << 1) | self.bit()?))
    }

    /// Exp-Golomb, unsigned; at most 32 leading zeros.
    fn ue(&mut self) -> Option<u32> {
        let mut zeros = 0;
        while self.bit()? == 0 {
            zeros += 1;
            if zeros > 31 {
                return None;
            }
        }
        Some((1u32 << zeros) - 1 + self.bits(zeros)?)
    }

    fn se(&mut self) -> Option<i64> {
        let k = i64::from(self.ue()?);
        Some(if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) })
    }
}

fn parse(bits: &mut Bits<'_>) -> Option<(u32, u32)> {
    let profile = bits.bits(8)?;
    bits.bits(16)?; // constraint flags, level
    bits.ue()?; // seq_parameter_set_id
    let (mut chroma_format, mut separate_planes) = (1, false);
    if matches!(profile, 100 | 110 | 122 | 244 | 44 | 83 | 86 | 118 | 128 | 138 | 139 | 134 | 135) {
        chroma_format = bits.ue()?;
        if chroma_format > 3 {
            return None;
        }
        if chroma_format == 3 {
            separate_planes = bits.bit()? == 1;
        }
        bits.ue()?; // bit_depth_luma_minus8
        bits.ue()?; // bit_depth_chroma_minus8
        bits.bit()?; // qpprime_y_zero_transform_bypass_flag
        if bits.bit()? == 1 {
            for list in 0..if chroma_format == 3 { 12 } else { 8 } {
                if bits.bit()? == 1 {
                    let size = if list < 6 { 16 } else { 64 };
                    let (mut last, mut next) = (8i64, 8i64);
                    for _ in 0..size {
                        if next != 0 {
                            next = (last + bits.se()? + 256).rem_euclid(256);
                        }
                        last = if next == 0 { last } else { next };
                    }
                }
            }
        }
    }
    bits.ue()?; // log2_max_frame_num_minus4
    match bits.ue()? {
        0 => {
            bits.ue()?;
        }
        1 => {
            bits.bit()?;
            bits.se()?;
            bits.se()?;
            let cycle = bits.ue()?;
            if cycle > 255 {
                return None;
            }
            for _ in 0..cycle {
                bits.se()?;
            }
        }
        2 => {}
        _ => return None,
    }
    bits.ue()?; // max_num_ref_frames
    bits.bit()?; // gaps_in_frame_num_value_allowed_flag
    let width_mbs = u64::from(bits.ue()?) + 1;
    let height_units = u64::from(bits.ue()?) + 1;
    let frames_only = bits.bit()? == 1;
    if !frames_only {
        bits.bit()?; // mb_adaptive_frame_field_flag
    }
    bits.bit()?; // direct_8x8_inference_flag
    let field = if frames_only { 1 } else { 2 };
    let mut width = width_mbs * 16;
    let mut height = height_units * 16 * field;
    if bits.bit()? == 1 {
        let (crop_x, crop_y) = match (separate_planes, chroma_format) {
            (true, _) | (_, 0) => (1, field),
            (_, 1) => (2, 2 * field),
            (_, 2) => (2, field),
            _ => (1, field),
        };
        let (left, right, top, bottom) = (bits.ue()?, bits.ue()?, bits.ue()?, bits.ue()?);
        width = width.checked_sub((u64::from(left) + u64::from(right)) * crop_x)?;
        height = height.checked_sub((u64::from(top) + u64::from(bottom)) * crop_y)?;
    }
    let fits = |side: u64| (1..=65_535).contains(&side);
    (fits(width) && fits(height)).then_some((width as u32, height as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1080p_sps_states_its_cropped_size() {
        // x264's SPS of a 1920x1080 High-profile stream: 120x68 macroblocks, 8 rows cropped at the bottom.
        let sps = [
            0, 0, 0, 1, 0x67, 0x64, 0x00, 0x28, 0xAC, 0xD9, 0x40, 0x78, 0x02, 0x27, 0xE5, 0x84, 0x00, 0x00, 0x03, 0x00,
            0x04, 0x00, 0x00, 0x03, 0x00, 0xF0, 0x3C, 0x60, 0xC6, 0x58,
        ];
        assert_eq!(sps_size(&sps), Some((1920, 1080)));
        assert_eq!(sps_size(&sps[..12]), None, "cut short");
        assert_eq!(sps_size(&[0, 0, 1, 0x68, 0xEE]), None, "no SPS");
    }

    #[test]
    fn emulation_prevention_bytes_are_removed() {
        assert_eq!(unescape(&[1, 0, 0, 3, 1, 0, 0, 3, 0, 3]), [1, 0, 0, 1, 0, 0, 0, 3]);
    }
}
