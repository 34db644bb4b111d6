//! The headers before the scan: walks the markers, reading the quantization and Huffman tables (DQT, DHT),
//! the frame header (SOF0/SOF1) and the scan header (SOS), and rejects what this decoder does not handle.

use std::sync::Arc;

use super::huffman::{AcTable, DcTable, Huffman};
use crate::codecs::jpeg_markers::{Segment, segments};

/// One component of the frame, with the tables its scan uses.
#[derive(Debug, Clone)]
pub(super) struct Component {
    /// Quantization table, zigzag order.
    pub(super) quant: [u16; 64],
    pub(super) dc: Arc<DcTable>,
    pub(super) ac: Arc<AcTable>,
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
pub(super) struct Frame<'a> {
    pub(super) width: usize,
    pub(super) height: usize,
    /// Luma, Cb, Cr.
    pub(super) components: [Component; 3],
    /// From the first byte after the SOS header to the end of the file.
    pub(super) entropy: &'a [u8],
}

impl<'a> Frame<'a> {
    pub(super) fn parse(source: &'a [u8]) -> Option<Self> {
        if source.get(..2)? != [0xFF, 0xD8] {
            return None;
        }
        let mut quant = [None::<[u16; 64]>; 4];
        // Shared by the components that use them, built once each.
        let mut dc: [Option<Arc<DcTable>>; 4] = Default::default();
        let mut ac: [Option<Arc<AcTable>>; 4] = Default::default();
        // (id, quant table) of Y, Cb, Cr, once the frame header is read.
        let mut frame: Option<FrameHeader> = None;
        for Segment { marker: code, payload: segment, end } in segments(source) {
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
                    return Some(Self { width, height, components, entropy: source.get(end..)? });
                }
                _ => {}
            }
        }
        // The headers ended (EOI, damage) before a scan.
        None
    }
}
