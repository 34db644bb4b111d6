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
    yuv::{Yuv420, YuvPlanes},
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
mod tests {
    use super::*;

    /// The mean difference per sample, decoded against the picture, that each quality stays under:
    /// linear from q 1 to q 100. Calibrated on the sweep's three pictures (2026-11-27): 11.4–12.6 at q 1,
    /// 4.8–5.1 at q 75, 1.2–1.3 at q 100; the line keeps at least 1.4× that at every quality.
    const BOUND_AT_Q1: f64 = 18.0;
    const BOUND_AT_Q100: f64 = 4.0;

    #[test]
    fn the_range_tables_span_vp8s_studio_range() {
        assert_eq!((LUMA[0], LUMA[255]), (16, 235));
        assert_eq!((CHROMA[0], CHROMA[128], CHROMA[255]), (16, 128, 240));
        assert!(LUMA.windows(2).all(|pair| pair[0] <= pair[1]));
        assert!(CHROMA.windows(2).all(|pair| pair[0] <= pair[1]));
    }

    /// A photo-like 4:2:0 JPEG's planes as libjpeg-turbo decodes them for the planar path (`align` 1: the
    /// `Yuv420` layout), and the same JPEG decoded to RGB, the pixels those planes stand for.
    fn photo_planes(width: u32, height: u32, seed: u32) -> (Vec<u8>, image::RgbImage) {
        use turbojpeg::{Decompressor, Subsamp, YuvImage};
        let jpeg = crate::test_jpeg::encode(&crate::test_jpeg::photo_pixels(width, height, seed), 95, Subsamp::Sub2x2);
        let (w, h) = (width as usize, height as usize);
        let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(w, 1, h, Subsamp::Sub2x2).unwrap()];
        let image = YuvImage { pixels: &mut pixels[..], width: w, align: 1, height: h, subsamp: Subsamp::Sub2x2 };
        Decompressor::new().unwrap().decompress_to_yuv(&jpeg, image).unwrap();
        (pixels, crate::decode::decode(&jpeg, u64::MAX).unwrap().0.to_rgb8())
    }

    /// Every quality from 1 to 100, on photo-like pictures with odd and even sides: libwebp (the vendored
    /// one, whose intra-4×4 mode search is pruned: third_party/libwebp-sys) writes a WebP that decodes to
    /// the picture's size and close to its pixels, closer as the quality rises. A mode search that chose
    /// badly would still decode, but further off or in more bytes.
    #[test]
    fn every_quality_encodes_a_photo_that_decodes_close_to_it() {
        for (width, height, seed) in [(97, 66, 0x9e37_79b9), (64, 48, 0x2545_f491), (33, 130, 0x1234_5677)] {
            let (pixels, rgb) = photo_planes(width, height, seed);
            let picture = Yuv420 { pixels: &pixels, width, height };
            let mut previous_bytes = 0;
            let mut differences = Vec::new();
            for quality in 1..=100u8 {
                let webp = encode(&picture, quality).unwrap();
                let decoded = crate::decode::decode(&webp, u64::MAX).unwrap().0.to_rgb8();
                assert_eq!(decoded.dimensions(), (width, height), "{width}x{height} q{quality}");
                let total: u64 =
                    decoded.as_raw().iter().zip(rgb.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
                let difference = total as f64 / rgb.as_raw().len() as f64;
                let bound = BOUND_AT_Q1 - (BOUND_AT_Q1 - BOUND_AT_Q100) * f64::from(quality - 1) / 99.0;
                assert!(
                    difference < bound,
                    "{width}x{height} q{quality}: mean difference {difference:.2} (bound {bound:.2})"
                );
                // Bytes grow with the quality, give or take libwebp's own steps (a few bytes of headers).
                assert!(
                    webp.len() + 64 >= previous_bytes,
                    "{width}x{height} q{quality}: {} bytes after {previous_bytes}",
                    webp.len()
                );
                previous_bytes = webp.len();
                differences.push(difference);
            }
            let mean =
                |q: std::ops::RangeInclusive<usize>| differences[q.clone()].iter().sum::<f64>() / q.count() as f64;
            assert!(mean(75..=99) < 0.6 * mean(0..=24), "{width}x{height}: {differences:.2?}");
        }
    }

    #[test]
    fn a_buffer_that_is_not_the_pictures_layout_is_refused() {
        // 3×3: luma 4×4 (even sides), each chroma plane 2×2.
        let pixels = [128u8; 16 + 2 * 4];
        let picture = |len: usize, width: u32| Yuv420 { pixels: &pixels[..len], width, height: 3 };
        assert!(encode(&picture(24, 3), 80).is_ok());
        assert!(encode(&picture(23, 3), 80).is_err(), "a byte short");
        assert!(encode(&picture(24, 5), 80).is_err(), "a wider picture than the planes");
        assert!(encode(&picture(0, 0), 80).is_err(), "no pixels");
    }
}
