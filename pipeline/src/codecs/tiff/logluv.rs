//! SGI's LogLuv pages (photometric 32845: Greg Ward Larson's high-dynamic-range coding, as libtiff defines
//! it), which the tiff crate does not decode. A pixel is a log luminance and a CIE 1976 u'v' chromaticity,
//! turned into XYZ as libtiff does and then into sRGB with white at Y = 1 (as libvips shows these), brighter
//! light clipped. Two codings, named by the page's compression:
//!
//! - 34676 (`SGILOG`): 32-bit pixels (a sign, a 15-bit log luminance, 8-bit u' and v'), each row four
//!   run-length coded byte planes;
//! - 34677 (`SGILOG24`): 24-bit pixels (a 10-bit log luminance, then the 14-bit index of a u'v' cell of
//!   `UV_ROWS`), three bytes each, uncoded.

use image::{DynamicImage, ImageBuffer, Rgb};
use tiff::tags::Tag;

use super::{PageDecoder, Strips, tag};
use crate::{PipelineError, geometry::Size};

/// A LogLuv page's picture; `None` for another photometric interpretation. An error for a coding or
/// layout not read here (tiles, planes).
pub(super) fn decode(
    decoder: &mut PageDecoder<'_>,
    bytes: &[u8],
    size: Size,
) -> Result<Option<DynamicImage>, PipelineError> {
    if tag(decoder, Tag::PhotometricInterpretation) != Some(32845) {
        return Ok(None);
    }
    let compression = tag(decoder, Tag::Compression).unwrap_or(1);
    let coding = Coding::of(compression)
        .ok_or_else(|| PipelineError::Decode(format!("LogLuv TIFF with compression {compression} is not supported")))?;
    if tag(decoder, Tag::TileWidth).is_some() || tag(decoder, Tag::PlanarConfiguration).is_some_and(|p| p != 1) {
        return Err(PipelineError::Decode("LogLuv TIFF in tiles or planes is not supported".into()));
    }
    let (width, height) = (size.width as usize, size.height as usize);
    let strips = Strips::of(decoder, height)?;
    let rows_per_strip = strips.rows;

    let mut pixels = Vec::with_capacity(width * height * 3);
    let mut line = vec![0u32; width];
    for (index, top) in (0..height).step_by(rows_per_strip).enumerate() {
        let mut data = strips.data(bytes, index)?.iter().copied();
        for _ in top..(top + rows_per_strip).min(height) {
            coding.read_row(&mut data, &mut line)?;
            pixels.extend(line.iter().flat_map(|&p| coding.luv(p).to_srgb16()));
        }
    }
    let image = ImageBuffer::<Rgb<u16>, _>::from_raw(size.width, size.height, pixels)
        .ok_or_else(|| PipelineError::Decode("the LogLuv TIFF holds fewer rows than its size".into()))?;
    Ok(Some(DynamicImage::ImageRgb16(image)))
}

/// How a LogLuv page stores its pixels.
#[derive(Clone, Copy, Debug)]
enum Coding {
    RunLength32,
    Packed24,
}

impl Coding {
    fn of(compression: u32) -> Option<Self> {
        match compression {
            34676 => Some(Self::RunLength32),
            34677 => Some(Self::Packed24),
            _ => None,
        }
    }

    /// One row of pixels from a strip's bytes into `line`.
    fn read_row(self, data: &mut impl Iterator<Item = u8>, line: &mut [u32]) -> Result<(), PipelineError> {
        let mut next = || data.next().ok_or_else(|| PipelineError::Decode("a LogLuv TIFF strip is cut short".into()));
        match self {
            Self::Packed24 => {
                for pixel in line.iter_mut() {
                    *pixel = u32::from(next()?) << 16 | u32::from(next()?) << 8 | u32::from(next()?);
                }
            }
            Self::RunLength32 => {
                line.fill(0);
                let width = line.len();
                // libtiff's LogLuvDecode32: per byte plane, a control byte of 128 or more repeats the next
                // byte (control − 126) times; a smaller one is followed by that many literal bytes.
                for shift in [24, 16, 8, 0] {
                    let mut i = 0;
                    while i < width {
                        let control = next()?;
                        if control >= 128 {
                            let value = u32::from(next()?) << shift;
                            let end = (i + usize::from(control) - 126).min(width);
                            line[i..end].iter_mut().for_each(|p| *p |= value);
                            i = end;
                        } else {
                            for _ in 0..control {
                                if i == width {
                                    break;
                                }
                                line[i] |= u32::from(next()?) << shift;
                                i += 1;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A pixel's luminance and chromaticity (libtiff's `LogLuv32toXYZ` and `LogLuv24toXYZ`).
    fn luv(self, pixel: u32) -> Luv {
        match self {
            Self::RunLength32 => {
                let log = (pixel >> 16) & 0x7fff;
                // A negative luminance (the sign bit) shows as black, as a clip would.
                let luminance = if log == 0 || pixel & 0x8000_0000 != 0 {
                    0.0
                } else {
                    ((f64::from(log) + 0.5) / 256.0 - 64.0).exp2()
                };
                let u = (f64::from((pixel >> 8) & 0xff) + 0.5) / 410.0;
                let v = (f64::from(pixel & 0xff) + 0.5) / 410.0;
                Luv { luminance, u, v }
            }
            Self::Packed24 => {
                let log = (pixel >> 14) & 0x3ff;
                let luminance = if log == 0 { 0.0 } else { ((f64::from(log) + 0.5) / 64.0 - 12.0).exp2() };
                let (u, v) = uv_cell(pixel & 0x3fff);
                Luv { luminance, u, v }
            }
        }
    }
}

/// Luminance Y (1 is white) and CIE 1976 u'v' chromaticity.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Luv {
    luminance: f64,
    u: f64,
    v: f64,
}

impl Luv {
    /// As 16-bit sRGB: XYZ from x and y, then linear sRGB (D65), clipped to 0–1 and encoded.
    fn to_srgb16(self) -> [u16; 3] {
        let Luv { luminance, u, v } = self;
        let s = 6.0 * u - 16.0 * v + 12.0;
        let (x, y) = (9.0 * u / s, 4.0 * v / s);
        if y <= 0.0 || luminance <= 0.0 || !luminance.is_finite() {
            return [0; 3];
        }
        let (cx, cy, cz) = (x / y * luminance, luminance, (1.0 - x - y) / y * luminance);
        let linear = [
            3.2406 * cx - 1.5372 * cy - 0.4986 * cz,
            -0.9689 * cx + 1.8758 * cy + 0.0415 * cz,
            0.0557 * cx - 0.2040 * cy + 1.0570 * cz,
        ];
        linear.map(|c| {
            let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
            let encoded = if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
            (encoded * 65535.0).round() as u16
        })
    }
}

/// The side of a u'v' cell of the 24-bit coding.
const UV_CELL: f64 = 0.0035;

/// v' at the bottom of the cells' first row.
const UV_V_START: f64 = 0.016_94;

/// Where a cell index out of range points (libtiff's `U_NEU`, `V_NEU`: the equal-energy white).
const UV_NEUTRAL: (f64, f64) = (0.210_526_316, 0.473_684_211);

// The numbers of `UV_ROWS` are those of libtiff's `uvcode.h`, which carries this notice:
//
// Copyright (c) 1997 Greg Ward Larson
// Copyright (c) 1997 Silicon Graphics, Inc.
//
// Permission to use, copy, modify, distribute, and sell this software and
// its documentation for any purpose is hereby granted without fee, provided
// that (i) the above copyright notices and this permission notice appear in
// all copies of the software and related documentation, and (ii) the names of
// Sam Leffler, Greg Larson and Silicon Graphics may not be used in any
// advertising or publicity relating to the software without the specific,
// prior written permission of Sam Leffler, Greg Larson and Silicon Graphics.
//
// THE SOFTWARE IS PROVIDED "AS-IS" AND WITHOUT WARRANTY OF ANY KIND,
// EXPRESS, IMPLIED OR OTHERWISE, INCLUDING WITHOUT LIMITATION, ANY
// WARRANTY OF MERCHANTABILITY OR FITNESS FOR A PARTICULAR PURPOSE.
//
// IN NO EVENT SHALL SAM LEFFLER, GREG LARSON OR SILICON GRAPHICS BE LIABLE
// FOR ANY SPECIAL, INCIDENTAL, INDIRECT OR CONSEQUENTIAL DAMAGES OF ANY KIND,
// OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS,
// WHETHER OR NOT ADVISED OF THE POSSIBILITY OF DAMAGE, AND ON ANY THEORY OF
// LIABILITY, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE
// OF THIS SOFTWARE.

/// The 24-bit coding's u'v' cells, row by row from v' = `UV_V_START` up, each row `UV_CELL` high: where its
/// first cell starts in u' and how many cells it holds, so that the 16,289 cells cover the gamut of visible
/// colours. The table defines the coding (an index means nothing without it), so every decoder of the
/// format holds these same numbers (docs/formats.md).
#[rustfmt::skip]
const UV_ROWS: [(f64, u16); 163] = [
    (0.247663, 4), (0.243779, 6), (0.241684, 7), (0.237874, 9), (0.235906, 10), (0.232153, 12),
    (0.228352, 14), (0.226259, 15), (0.222371, 17), (0.220410, 18), (0.214710, 21), (0.212714, 22),
    (0.210721, 23), (0.204976, 26), (0.202986, 27), (0.199245, 29), (0.195525, 31), (0.193560, 32),
    (0.189878, 34), (0.186216, 36), (0.186216, 36), (0.182592, 38), (0.179003, 40), (0.175466, 42),
    (0.172001, 44), (0.172001, 44), (0.168612, 46), (0.168612, 46), (0.163575, 49), (0.158642, 52),
    (0.158642, 52), (0.158642, 52), (0.153815, 55), (0.153815, 55), (0.149097, 58), (0.149097, 58),
    (0.142746, 62), (0.142746, 62), (0.142746, 62), (0.138270, 65), (0.138270, 65), (0.138270, 65),
    (0.132166, 69), (0.132166, 69), (0.126204, 73), (0.126204, 73), (0.126204, 73), (0.120381, 77),
    (0.120381, 77), (0.120381, 77), (0.120381, 77), (0.112962, 82), (0.112962, 82), (0.112962, 82),
    (0.107450, 86), (0.107450, 86), (0.107450, 86), (0.107450, 86), (0.100343, 91), (0.100343, 91),
    (0.100343, 91), (0.095126, 95), (0.095126, 95), (0.095126, 95), (0.095126, 95), (0.088276, 100),
    (0.088276, 100), (0.088276, 100), (0.088276, 100), (0.081523, 105), (0.081523, 105), (0.081523, 105),
    (0.081523, 105), (0.074861, 110), (0.074861, 110), (0.074861, 110), (0.074861, 110), (0.068290, 115),
    (0.068290, 115), (0.068290, 115), (0.068290, 115), (0.063573, 119), (0.063573, 119), (0.063573, 119),
    (0.063573, 119), (0.057219, 124), (0.057219, 124), (0.057219, 124), (0.057219, 124), (0.050985, 129),
    (0.050985, 129), (0.050985, 129), (0.050985, 129), (0.050985, 129), (0.044859, 134), (0.044859, 134),
    (0.044859, 134), (0.044859, 134), (0.040571, 138), (0.040571, 138), (0.040571, 138), (0.040571, 138),
    (0.036339, 142), (0.036339, 142), (0.036339, 142), (0.036339, 142), (0.032139, 146), (0.032139, 146),
    (0.032139, 146), (0.032139, 146), (0.027947, 150), (0.027947, 150), (0.027947, 150), (0.023739, 154),
    (0.023739, 154), (0.023739, 154), (0.023739, 154), (0.019504, 158), (0.019504, 158), (0.019504, 158),
    (0.016976, 161), (0.016976, 161), (0.016976, 161), (0.016976, 161), (0.012639, 165), (0.012639, 165),
    (0.012639, 165), (0.009991, 168), (0.009991, 168), (0.009991, 168), (0.009016, 170), (0.009016, 170),
    (0.009016, 170), (0.006217, 173), (0.006217, 173), (0.005097, 175), (0.005097, 175), (0.005097, 175),
    (0.003909, 177), (0.003909, 177), (0.002340, 177), (0.002389, 170), (0.001068, 164), (0.001653, 157),
    (0.000717, 150), (0.001614, 143), (0.000270, 136), (0.000484, 129), (0.001103, 123), (0.001242, 115),
    (0.001188, 109), (0.001011, 103), (0.000709, 97), (0.000301, 89), (0.002416, 82), (0.003251, 76),
    (0.003246, 69), (0.004141, 62), (0.005963, 55), (0.008839, 47), (0.010490, 40), (0.016994, 31),
    (0.023659, 21),
];

/// The index of each row's first cell.
const UV_ROW_STARTS: [u16; 163] = {
    let mut starts = [0; 163];
    let mut row = 1;
    while row < starts.len() {
        starts[row] = starts[row - 1] + UV_ROWS[row - 1].1;
        row += 1;
    }
    starts
};

/// The number of cells: an index at or past it is no colour of the coding.
const UV_CELLS: u16 = UV_ROW_STARTS[162] + UV_ROWS[162].1;

/// The centre of cell `index` (libtiff's `uv_decode`), or the neutral point for an index past the cells.
fn uv_cell(index: u32) -> (f64, f64) {
    let Some(index) = u16::try_from(index).ok().filter(|&i| i < UV_CELLS) else {
        return UV_NEUTRAL;
    };
    // The last row starting at or before the index (rows 0 starts at 0, so there is one).
    let row = UV_ROW_STARTS.partition_point(|&start| start <= index).saturating_sub(1);
    let (Some(&(u_start, _)), Some(&start)) = (UV_ROWS.get(row), UV_ROW_STARTS.get(row)) else {
        return UV_NEUTRAL;
    };
    let column = f64::from(index - start);
    (u_start + (column + 0.5) * UV_CELL, UV_V_START + (row as f64 + 0.5) * UV_CELL)
}

#[cfg(test)]
mod tests;
