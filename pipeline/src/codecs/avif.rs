//! AVIF encoding: libaom's AV1 encoder in all-intra (still picture) mode, wrapped in an AVIF container by
//! avif-serialize.
//!
//! libaom, not rav1e (ravif): at the same SSIM against the same reference, rav1e needed ~16% more bytes than
//! libaom (sharp's encoder) at every speed we tried; libaom's all-intra mode at a fast `cpu-used` keeps
//! libaom's compression at a fraction of sharp's time (BENCHMARKS.md, "AVIF: libaom instead of rav1e").
//! libaom is already linked for AVIF decoding (`libaom-sys`, built from its bundled source with the encoder
//! enabled).
//!
//! Colour: 8-bit YCbCr 4:4:4, BT.601 matrix, full range, sRGB transfer and BT.709 primaries signalled in the
//! sequence header and the container (sharp's defaults). Gray images are encoded monochrome; alpha, when
//! present, as a second monochrome AV1 image.

use std::{borrow::Cow, ffi::CStr, os::raw::c_int, ptr};

use avif_serialize::constants::{ColorPrimaries, MatrixCoefficients, TransferCharacteristics};
use image::DynamicImage;
use libaom_sys as aom;

use crate::PipelineError;

/// How libaom is driven; `AvifSettings::for_quality` is what the service uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AvifSettings {
    /// libaom's constant-quality level, 0 (best) – 63.
    pub cq_level: u8,
    /// libaom's `cpu-used`, 0 (slowest, smallest) – 9.
    pub speed: u8,
    /// Encoder threads (libaom's row-based multithreading).
    pub threads: u8,
}

/// libaom's all-intra `cpu-used` for every render. On the 800 px photo, 6 needs ~4% more bytes than 5 for the
/// same SSIM at a fifth of its time (73 vs 407 ms); 7 and up lose SSIM that more bytes must buy back
/// (BENCHMARKS.md, "AVIF: libaom instead of rav1e").
const SPEED: u8 = 6;

impl AvifSettings {
    /// The service's `q` (1–100, anchored on JPEG's scale) mapped to libaom's cq-level: two straight lines
    /// through q 100 → 0 (best), q 80 → `DEFAULT_CQ_LEVEL` and q 1 → 63 (worst). The default q = 80 is
    /// calibrated to sharp's default AVIF: the same SSIM against the same reference with no more than 10%
    /// more bytes (BENCHMARKS.md, "AVIF: libaom instead of rav1e").
    pub fn for_quality(quality: u8) -> Self {
        let q = u32::from(quality.clamp(1, 100));
        let cq_level = if q >= 80 {
            ((100 - q) * DEFAULT_CQ_LEVEL + 10) / 20
        } else {
            DEFAULT_CQ_LEVEL + ((80 - q) * (63 - DEFAULT_CQ_LEVEL) + 39) / 79
        };
        Self { cq_level: cq_level.min(63) as u8, speed: SPEED, threads: 2 }
    }
}

/// libaom's cq-level for the default q = 80: at speed 6 it gives sharp's SSIM (0.9558 against 0.9550 on
/// the 800 px photo) for 1.06× its bytes; 24 falls just short of that SSIM.
const DEFAULT_CQ_LEVEL: u32 = 23;

/// Encodes `image` as an AVIF file with the service's settings for `quality`.
pub fn encode(image: &DynamicImage, quality: u8) -> Result<Vec<u8>, PipelineError> {
    encode_with(image, AvifSettings::for_quality(quality))
}

/// Encodes `image` as an AVIF file with explicit encoder settings (benchmarks and calibration use this).
pub fn encode_with(image: &DynamicImage, settings: AvifSettings) -> Result<Vec<u8>, PipelineError> {
    let (width, height) = (image.width(), image.height());
    if width == 0 || height == 0 {
        return Err(PipelineError::Internal("cannot encode an empty image as AVIF".into()));
    }
    let has_alpha = image.color().has_alpha();
    let gray = matches!(
        image,
        DynamicImage::ImageLuma8(_)
            | DynamicImage::ImageLuma16(_)
            | DynamicImage::ImageLumaA8(_)
            | DynamicImage::ImageLumaA16(_)
    );
    let mut alpha_plane = None;
    let color = if gray {
        let la = image.to_luma_alpha8();
        let luma: Vec<u8> = la.pixels().map(|p| p.0[0]).collect();
        if has_alpha {
            alpha_plane = Some(la.pixels().map(|p| p.0[1]).collect::<Vec<u8>>());
        }
        encode_planes(Planes::Mono(&luma), width, height, settings)?
    } else if has_alpha {
        let rgba = image.to_rgba8();
        let yuv = Yuv444::from_pixels(rgba.as_raw(), 4, width, height);
        alpha_plane = Some(rgba.pixels().map(|p| p.0[3]).collect());
        encode_planes(Planes::Yuv444(&yuv), width, height, settings)?
    } else {
        let rgb = match image {
            DynamicImage::ImageRgb8(rgb) => Cow::Borrowed(rgb),
            other => Cow::Owned(other.to_rgb8()),
        };
        let yuv = Yuv444::from_pixels(rgb.as_raw(), 3, width, height);
        encode_planes(Planes::Yuv444(&yuv), width, height, settings)?
    };
    // A fully opaque alpha channel carries nothing: leave it out.
    let alpha = match alpha_plane {
        Some(plane) if plane.iter().any(|&a| a != u8::MAX) => {
            Some(encode_planes(Planes::Mono(&plane), width, height, settings)?)
        }
        _ => None,
    };

    let mut container = avif_serialize::Aviffy::new();
    container
        .set_full_color_range(true)
        .set_matrix_coefficients(MatrixCoefficients::Bt601)
        .set_transfer_characteristics(TransferCharacteristics::Srgb)
        .set_color_primaries(ColorPrimaries::Bt709)
        .set_bit_depth(8);
    if gray {
        container.set_monochrome(true).set_seq_profile(0).set_chroma_subsampling((true, true));
    } else {
        container.set_seq_profile(1).set_chroma_subsampling((false, false));
    }
    Ok(container.to_vec(&color, alpha.as_deref(), width, height, 8))
}

/// Full-range BT.601 YCbCr planes of an RGB(A) image.
struct Yuv444 {
    y: Vec<u8>,
    u: Vec<u8>,
    v: Vec<u8>,
}

impl Yuv444 {
    fn from_pixels(pixels: &[u8], channels: usize, width: u32, height: u32) -> Self {
        let len = width as usize * height as usize;
        let (mut y, mut u, mut v) = (Vec::with_capacity(len), Vec::with_capacity(len), Vec::with_capacity(len));
        for px in pixels.chunks_exact(channels) {
            let (r, g, b) = (i32::from(px[0]), i32::from(px[1]), i32::from(px[2]));
            // 16-bit fixed-point BT.601 (JFIF) coefficients, rounded.
            y.push(((19_595 * r + 38_470 * g + 7_471 * b + 32_768) >> 16) as u8);
            u.push(((-11_059 * r - 21_709 * g + 32_768 * b + (128 << 16) + 32_768) >> 16).clamp(0, 255) as u8);
            v.push(((32_768 * r - 27_439 * g - 5_329 * b + (128 << 16) + 32_768) >> 16).clamp(0, 255) as u8);
        }
        Self { y, u, v }
    }
}

enum Planes<'a> {
    Yuv444(&'a Yuv444),
    /// One plane: luma of a gray image, or an alpha channel.
    Mono(&'a [u8]),
}

/// Owns an `aom_image_t` allocated by libaom.
struct AomImage(*mut aom::aom_image_t);

impl Drop for AomImage {
    fn drop(&mut self) {
        // SAFETY: the pointer came from aom_img_alloc and is freed once.
        unsafe { aom::aom_img_free(self.0) }
    }
}

/// Owns an initialised libaom encoder context.
struct AomEncoder(aom::aom_codec_ctx_t);

impl Drop for AomEncoder {
    fn drop(&mut self) {
        // SAFETY: the context was initialised by aom_codec_enc_init_ver and is destroyed once.
        unsafe {
            aom::aom_codec_destroy(&mut self.0);
        }
    }
}

impl AomEncoder {
    fn control(&mut self, id: aom::aome_enc_control_id, value: c_int) -> Result<(), PipelineError> {
        // SAFETY: every control used here takes one int-sized argument.
        let status = unsafe { aom::aom_codec_control(&mut self.0, id as c_int, value) };
        self.check(status, "aom_codec_control")
    }

    /// Appends the compressed frame data waiting in the encoder to `out`.
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        let mut iter: aom::aom_codec_iter_t = ptr::null();
        loop {
            // SAFETY: each packet stays valid until the next call into the encoder; its bytes are copied out
            // before that.
            unsafe {
                let packet = aom::aom_codec_get_cx_data(&mut self.0, &mut iter);
                if packet.is_null() {
                    break;
                }
                if (*packet).kind == aom::AOM_CODEC_CX_FRAME_PKT {
                    let frame = (*packet).data.frame;
                    out.extend_from_slice(std::slice::from_raw_parts(frame.buf as *const u8, frame.sz));
                }
            }
        }
    }

    fn check(&self, status: aom::aom_codec_err_t, call: &str) -> Result<(), PipelineError> {
        if status == aom::AOM_CODEC_OK {
            return Ok(());
        }
        // SAFETY: aom_codec_error returns a static string (or one owned by the context) that outlives this call.
        let message = unsafe {
            let text = aom::aom_codec_error(&self.0);
            if text.is_null() { "unknown error".into() } else { CStr::from_ptr(text).to_string_lossy().into_owned() }
        };
        Err(PipelineError::Internal(format!("AV1 encoder: {call}: {message}")))
    }
}

/// One still AV1 frame (the OBUs of one temporal unit) of `planes`.
fn encode_planes(
    planes: Planes<'_>,
    width: u32,
    height: u32,
    settings: AvifSettings,
) -> Result<Vec<u8>, PipelineError> {
    let mono = matches!(planes, Planes::Mono(_));
    // SAFETY: the configuration struct is plain data, filled in by libaom before use.
    let mut cfg: aom::aom_codec_enc_cfg = unsafe { std::mem::zeroed() };
    // SAFETY: aom_codec_av1_cx returns the static encoder interface; cfg is a valid out-pointer.
    let iface = unsafe { aom::aom_codec_av1_cx() };
    let status = unsafe { aom::aom_codec_enc_config_default(iface, &mut cfg, aom::AOM_USAGE_ALL_INTRA) };
    if status != aom::AOM_CODEC_OK {
        return Err(PipelineError::Internal("AV1 encoder: no all-intra configuration".into()));
    }
    cfg.g_w = width;
    cfg.g_h = height;
    cfg.g_threads = u32::from(settings.threads.max(1));
    // Profile 1 is 8/10-bit 4:4:4; monochrome needs profile 0.
    cfg.g_profile = if mono { 0 } else { 1 };
    cfg.monochrome = u32::from(mono);
    cfg.g_bit_depth = aom::AOM_BITS_8;
    cfg.g_input_bit_depth = 8;
    cfg.rc_end_usage = aom::AOM_Q;
    // One frame: libaom then writes a reduced still-picture sequence header.
    cfg.g_limit = 1;
    cfg.g_lag_in_frames = 0;
    cfg.kf_mode = aom::AOM_KF_DISABLED;
    cfg.kf_max_dist = 0;

    // SAFETY: the context is zeroed plain data that aom_codec_enc_init_ver initialises.
    let mut encoder = AomEncoder(unsafe { std::mem::zeroed() });
    let status =
        unsafe { aom::aom_codec_enc_init_ver(&mut encoder.0, iface, &cfg, 0, aom::AOM_ENCODER_ABI_VERSION as c_int) };
    if status != aom::AOM_CODEC_OK {
        // A failed init leaves nothing to destroy.
        std::mem::forget(encoder);
        return Err(PipelineError::Internal("AV1 encoder: initialisation failed".into()));
    }
    encoder.control(aom::AOME_SET_CPUUSED, c_int::from(settings.speed.min(9)))?;
    encoder.control(aom::AOME_SET_CQ_LEVEL, c_int::from(settings.cq_level.min(63)))?;
    encoder.control(aom::AOME_SET_TUNING, aom::AOM_TUNE_SSIM as c_int)?;
    encoder.control(aom::AV1E_SET_COLOR_RANGE, 1)?;
    encoder.control(aom::AV1E_SET_SKIP_POSTPROC_FILTERING, 1)?;
    if !mono {
        encoder.control(aom::AV1E_SET_MATRIX_COEFFICIENTS, MatrixCoefficients::Bt601 as c_int)?;
        encoder.control(aom::AV1E_SET_TRANSFER_CHARACTERISTICS, TransferCharacteristics::Srgb as c_int)?;
        encoder.control(aom::AV1E_SET_COLOR_PRIMARIES, ColorPrimaries::Bt709 as c_int)?;
    }

    let format = if mono { aom::AOM_IMG_FMT_I420 } else { aom::AOM_IMG_FMT_I444 };
    // SAFETY: a fresh heap image of the encoder's size; null means allocation failed.
    let image = AomImage(unsafe { aom::aom_img_alloc(ptr::null_mut(), format, width, height, 32) });
    if image.0.is_null() {
        return Err(PipelineError::Internal("AV1 encoder: cannot allocate the frame".into()));
    }
    // SAFETY: aom_img_alloc sized every plane for width × height (chroma by its shift) with the given strides;
    // each row written below stays within its plane.
    unsafe {
        let img = &mut *image.0;
        img.range = aom::AOM_CR_FULL_RANGE;
        img.monochrome = c_int::from(mono);
        let (w, h) = (width as usize, height as usize);
        let copy_plane = |plane: usize, source: &[u8], rows: usize, cols: usize| {
            let stride = img.stride[plane] as usize;
            for row in 0..rows {
                ptr::copy_nonoverlapping(source[row * cols..].as_ptr(), img.planes[plane].add(row * stride), cols);
            }
        };
        match planes {
            Planes::Yuv444(yuv) => {
                copy_plane(0, &yuv.y, h, w);
                copy_plane(1, &yuv.u, h, w);
                copy_plane(2, &yuv.v, h, w);
            }
            Planes::Mono(luma) => {
                copy_plane(0, luma, h, w);
                // The chroma planes are ignored for monochrome but must hold valid samples.
                let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
                for plane in 1..3 {
                    let stride = img.stride[plane] as usize;
                    for row in 0..ch {
                        ptr::write_bytes(img.planes[plane].add(row * stride), 128, cw);
                    }
                }
            }
        }
    }

    // Packets are only valid until the next call into the encoder: drain after the frame and after the flush.
    let mut av1 = Vec::new();
    // SAFETY: the image is a valid frame for this encoder.
    let status = unsafe { aom::aom_codec_encode(&mut encoder.0, image.0, 0, 1, 0) };
    encoder.check(status, "aom_codec_encode")?;
    encoder.drain_into(&mut av1);
    // SAFETY: a null image flushes the encoder.
    let status = unsafe { aom::aom_codec_encode(&mut encoder.0, ptr::null(), 0, 0, 0) };
    encoder.check(status, "aom_codec_encode (flush)")?;
    encoder.drain_into(&mut av1);
    if av1.is_empty() {
        return Err(PipelineError::Internal("AV1 encoder produced no frame".into()));
    }
    Ok(av1)
}

#[cfg(test)]
mod tests;
