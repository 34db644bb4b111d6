//! WebP straight from 4:2:0 planes: libwebp's lossy encoder given the planar path's YCbCr as its own
//! picture, with no RGB in between.
//!
//! A lossy WebP is VP8, which codes 4:2:0 BT.601 YCbCr; handed RGB, libwebp converts it to that itself
//! (with a gamma-aware chroma average). The planar path already holds 4:2:0 YCbCr at the output size, so
//! converting it to RGB for libwebp to convert back is two passes over every output pixel and a loss of
//! precision on each. Only the range differs: JFIF's planes use all of 0–255, VP8's the studio range (luma
//! 16–235, chroma 16–240, what libwebp's RGB import writes and every WebP decoder expects), so each sample
//! is mapped through a table on the way in. The encoder's settings are `encode`'s for WebP: libwebp's
//! defaults (method 4) at the requested quality.

use std::{ffi::c_void, ptr};

use libwebp_sys as sys;

use crate::{
    PipelineError,
    codecs::yuv::{Yuv420, YuvPlanes},
};

/// JFIF luma (0–255) → VP8 luma (16–235): `16 + y × 219 / 255`, rounded.
const LUMA: [u8; 256] = studio_range(219, 16);
/// JFIF chroma (0–255, 128 neutral) → VP8 chroma (16–240): `128 + (c − 128) × 224 / 255`, rounded.
const CHROMA: [u8; 256] = studio_range(224, 16);

/// `low + v × span / 255`, rounded to nearest, for every byte `v`.
const fn studio_range(span: u32, low: u32) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut v = 0;
    while v < 256 {
        table[v] = (low + (v as u32 * span + 127) / 255) as u8;
        v += 1;
    }
    table
}

/// A picture libwebp allocated, freed once.
struct Picture(sys::WebPPicture);

impl Drop for Picture {
    fn drop(&mut self) {
        // SAFETY: initialised by WebPPictureInit; WebPPictureFree accepts a picture with or without planes.
        unsafe { sys::WebPPictureFree(&mut self.0) }
    }
}

/// The encoder's output, freed once.
struct Output(sys::WebPMemoryWriter);

impl Drop for Output {
    fn drop(&mut self) {
        // SAFETY: initialised by WebPMemoryWriterInit; clearing frees what WebPMemoryWrite allocated.
        unsafe { sys::WebPMemoryWriterClear(&mut self.0) }
    }
}

/// Encodes a full-range 4:2:0 picture as a lossy WebP at `quality` (1–100).
pub(crate) fn encode(picture: &Yuv420<'_>, quality: u8) -> Result<Vec<u8>, PipelineError> {
    let (width, height) = (picture.width, picture.height);
    let failed = |what: &str| PipelineError::Internal(format!("WebP cannot encode a {width}x{height} image: {what}"));
    // The layout holds every row asked for below: luma `luma_stride` ≥ w wide and ≥ h tall, chroma half.
    let YuvPlanes { y, u, v, luma_stride } = picture.planes().ok_or_else(|| failed("unexpected YUV plane layout"))?;
    let (w, h) = (width as usize, height as usize);
    let (cw, ch, chroma_stride) = (w.div_ceil(2), h.div_ceil(2), luma_stride / 2);
    let mut config = sys::WebPConfig::new().map_err(|()| failed("no configuration"))?;
    config.quality = f32::from(quality.clamp(1, 100));
    // SAFETY: a configuration initialised by WebPConfigInit.
    if unsafe { sys::WebPValidateConfig(&config) } == 0 {
        return Err(failed("invalid configuration"));
    }

    let mut webp = Picture(sys::WebPPicture::new().map_err(|()| failed("no picture"))?);
    webp.0.use_argb = 0;
    webp.0.colorspace = sys::WebPEncCSP::WEBP_YUV420;
    webp.0.width = i32::try_from(width).map_err(|_| failed("too wide"))?;
    webp.0.height = i32::try_from(height).map_err(|_| failed("too tall"))?;
    // SAFETY: an initialised picture with its size and colourspace set; on failure nothing is allocated.
    if unsafe { sys::WebPPictureAlloc(&mut webp.0) } == 0 {
        return Err(failed("cannot allocate the picture"));
    }
    // SAFETY: WebPPictureAlloc gave the picture a luma plane of `height` rows of `y_stride` ≥ `width` bytes
    // and chroma planes of ⌈height/2⌉ rows of `uv_stride` ≥ ⌈width/2⌉ bytes, which outlive these slices.
    unsafe {
        let p = &webp.0;
        let (y_stride, uv_stride) = (p.y_stride as usize, p.uv_stride as usize);
        let into = |plane: *mut u8, stride: usize, rows: usize| std::slice::from_raw_parts_mut(plane, stride * rows);
        map_plane(y, luma_stride, into(p.y, y_stride, h), y_stride, (w, h), &LUMA);
        map_plane(u, chroma_stride, into(p.u, uv_stride, ch), uv_stride, (cw, ch), &CHROMA);
        map_plane(v, chroma_stride, into(p.v, uv_stride, ch), uv_stride, (cw, ch), &CHROMA);
    }

    // SAFETY: the writer is plain data, zeroed and then initialised by WebPMemoryWriterInit.
    let mut output = Output(unsafe { std::mem::zeroed() });
    unsafe { sys::WebPMemoryWriterInit(&mut output.0) };
    webp.0.writer = Some(sys::WebPMemoryWrite);
    webp.0.custom_ptr = ptr::from_mut(&mut output.0).cast::<c_void>();
    // SAFETY: a validated configuration and an allocated picture whose writer appends to `output`, which
    // outlives the call.
    if unsafe { sys::WebPEncode(&config, &mut webp.0) } == 0 {
        return Err(failed(&format!("{:?}", webp.0.error_code)));
    }
    if output.0.mem.is_null() || output.0.size == 0 {
        return Err(failed("no output"));
    }
    // SAFETY: `mem` holds `size` bytes written by WebPMemoryWrite, freed only when `output` drops.
    Ok(unsafe { std::slice::from_raw_parts(output.0.mem, output.0.size) }.to_vec())
}

/// Copies the `w × h` picture from `source` (rows `source_stride` apart) into `target` (rows
/// `target_stride` apart), each sample through `table`.
fn map_plane(
    source: &[u8],
    source_stride: usize,
    target: &mut [u8],
    target_stride: usize,
    (w, h): (usize, usize),
    table: &[u8; 256],
) {
    for (from, to) in source.chunks(source_stride).zip(target.chunks_mut(target_stride)).take(h) {
        for (out, &sample) in to[..w].iter_mut().zip(&from[..w]) {
            *out = table[usize::from(sample)];
        }
    }
}

#[cfg(test)]
mod tests;
