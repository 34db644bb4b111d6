//! The output: `Planes` in libjpeg-turbo's 4:2:0 layout, and `PlaneWriter`, which fills them block by
//! block.

/// Planes decoded at 1/`denominator`, laid out as libjpeg-turbo lays out 4:2:0 YUV with `align` 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planes {
    /// Luma (`padded_width × padded_height`), then the two chroma planes (half of each).
    pub pixels: Vec<u8>,
    /// The scaled image's size; the luma plane is that rounded up to even sides.
    pub width: usize,
    pub height: usize,
}

/// The output planes, in libjpeg-turbo's layout, written pixel by pixel (outside the planes: dropped).
pub(super) struct PlaneWriter {
    pixels: Vec<u8>,
    width: usize,
    height: usize,
    /// (offset, width, height) of Y, Cb, Cr.
    planes: [(usize, usize, usize); 3],
}

impl PlaneWriter {
    pub(super) fn new(width: usize, height: usize) -> Self {
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
    pub(super) fn set_block<const P: usize>(&mut self, component: usize, x: usize, y: usize, values: &[u8; P]) {
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

    pub(super) fn finish(self) -> Planes {
        Planes { pixels: self.pixels, width: self.width, height: self.height }
    }
}
