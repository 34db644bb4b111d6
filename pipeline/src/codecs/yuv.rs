//! `Yuv420`: a 4:2:0 picture as planes, the form the planar JPEG path hands to the JPEG and WebP encoders.

/// A 4:2:0 picture in JFIF's full-range YCbCr, in libjpeg-turbo's plane layout (`align` 1): luma at
/// `width × height` rounded up to even sides (an odd side's extra column or row repeats the last), then
/// each chroma plane at half that.
pub(crate) struct Yuv420<'a> {
    pub pixels: &'a [u8],
    pub width: u32,
    pub height: u32,
}

/// The planes of a `Yuv420`: luma rows `luma_stride` long (the width rounded up to even), chroma rows half
/// that.
pub(crate) struct YuvPlanes<'a> {
    pub y: &'a [u8],
    pub u: &'a [u8],
    pub v: &'a [u8],
    pub luma_stride: usize,
}

impl Yuv420<'_> {
    /// The planes, or `None` when `pixels` is not the layout of a picture of this size.
    pub(crate) fn planes(&self) -> Option<YuvPlanes<'_>> {
        let luma = ((self.width as usize).next_multiple_of(2), (self.height as usize).next_multiple_of(2));
        let (luma_len, chroma_len) = (luma.0 * luma.1, luma.0 * luma.1 / 4);
        if luma_len == 0 || self.pixels.len() != luma_len + 2 * chroma_len {
            return None;
        }
        let (y, chroma) = self.pixels.split_at(luma_len);
        let (u, v) = chroma.split_at(chroma_len);
        Some(YuvPlanes { y, u, v, luma_stride: luma.0 })
    }
}
