//! An animated WebP through libwebp's animation encoder (`WebPAnimEncoder`, as libvips and so sharp use
//! it): each frame reduced to the rectangle that changed, coded lossy at the request's quality (or
//! losslessly where that is smaller), added as it comes with its timestamp, and the animation closed with
//! the end time of its last frame, so that frame keeps its own delay (the `webp` crate's `AnimEncoder`
//! closes at timestamp 0, which libwebp refuses, giving the last frame the average delay instead). The
//! vendored libwebp keeps a frame identical to the one before it as a 1×1 frame rather than merging the two
//! (third_party/libwebp-sys/README.md), so an animation keeps its frame count.

use std::ptr;

use image::RgbaImage;
use libwebp_sys as sys;

use super::Loops;
use crate::{PipelineError, geometry::Size};

pub(super) struct WebpAnimation {
    encoder: ptr::NonNull<sys::WebPAnimEncoder>,
    config: sys::WebPConfig,
    size: Size,
    /// When the next frame starts, in milliseconds (wrapping: libwebp reads differences).
    timestamp: i32,
}

// SAFETY: the encoder is owned by this value alone and libwebp keeps no thread-local state for it.
unsafe impl Send for WebpAnimation {}

fn failed(what: &str) -> PipelineError {
    PipelineError::Internal(format!("WebP cannot encode the animation: {what}"))
}

impl WebpAnimation {
    pub(super) fn new(size: Size, loops: Loops, quality: u8) -> Result<Self, PipelineError> {
        let side = |n: u32| i32::try_from(n).map_err(|_| failed("too large"));
        let (width, height) = (side(size.width)?, side(size.height)?);
        // SAFETY: plain data, initialised by WebPAnimEncoderOptionsInitInternal before it is read.
        let mut options: sys::WebPAnimEncoderOptions = unsafe { std::mem::zeroed() };
        if unsafe { sys::WebPAnimEncoderOptionsInitInternal(&mut options, sys::WEBP_MUX_ABI_VERSION as i32) } == 0 {
            return Err(failed("options"));
        }
        options.anim_params.loop_count = i32::from(loops);
        // SAFETY: initialised options; the encoder is freed once, by `Drop`.
        let encoder =
            unsafe { sys::WebPAnimEncoderNewInternal(width, height, &options, sys::WEBP_MUX_ABI_VERSION as i32) };
        let encoder = ptr::NonNull::new(encoder).ok_or_else(|| failed("no encoder"))?;
        let mut config = sys::WebPConfig::new().map_err(|()| failed("no configuration"))?;
        config.quality = f32::from(quality.clamp(1, 100));
        // SAFETY: a configuration initialised by WebPConfigInit.
        if unsafe { sys::WebPValidateConfig(&config) } == 0 {
            return Err(failed("invalid configuration"));
        }
        Ok(Self { encoder, config, size, timestamp: 0 })
    }

    pub(super) fn add(&mut self, frame: &RgbaImage, delay_ms: u32) -> Result<(), PipelineError> {
        if frame.dimensions() != (self.size.width, self.size.height) {
            return Err(failed("a frame of another size"));
        }
        let mut picture = Picture(sys::WebPPicture::new().map_err(|()| failed("no picture"))?);
        picture.0.use_argb = 1;
        picture.0.width = self.size.width as i32;
        picture.0.height = self.size.height as i32;
        let stride = i32::try_from(self.size.width * 4).map_err(|_| failed("too wide"))?;
        // SAFETY: `frame` holds height rows of `stride` bytes; the picture copies them into its own buffer.
        if unsafe { sys::WebPPictureImportRGBA(&mut picture.0, frame.as_raw().as_ptr(), stride) } == 0 {
            return Err(failed("cannot import a frame"));
        }
        // SAFETY: a live encoder, an imported picture and a validated configuration, all outliving the call.
        if unsafe { sys::WebPAnimEncoderAdd(self.encoder.as_ptr(), &mut picture.0, self.timestamp, &self.config) } == 0
        {
            return Err(failed(&self.error()));
        }
        self.timestamp = self.timestamp.wrapping_add(i32::try_from(delay_ms).unwrap_or(i32::MAX));
        Ok(())
    }

    pub(super) fn finish(self) -> Result<Vec<u8>, PipelineError> {
        // SAFETY: a live encoder; a null frame closes the animation at `timestamp`, the last frame's end.
        if unsafe { sys::WebPAnimEncoderAdd(self.encoder.as_ptr(), ptr::null_mut(), self.timestamp, ptr::null()) } == 0
        {
            return Err(failed(&self.error()));
        }
        let mut data = sys::WebPData { bytes: ptr::null(), size: 0 };
        // SAFETY: a live encoder; on success `data` owns a libwebp allocation, copied and freed below.
        if unsafe { sys::WebPAnimEncoderAssemble(self.encoder.as_ptr(), &mut data) } == 0 {
            return Err(failed(&self.error()));
        }
        if data.bytes.is_null() {
            return Err(failed("no output"));
        }
        // SAFETY: `bytes` holds `size` bytes libwebp allocated; freed right after the copy.
        let bytes = unsafe { std::slice::from_raw_parts(data.bytes, data.size) }.to_vec();
        unsafe { sys::WebPDataClear(&mut data) };
        Ok(bytes)
    }

    fn error(&self) -> String {
        // SAFETY: a live encoder; the message is a NUL-terminated string it owns.
        let message = unsafe { sys::WebPAnimEncoderGetError(self.encoder.as_ptr()) };
        if message.is_null() {
            return "unknown error".into();
        }
        unsafe { std::ffi::CStr::from_ptr(message) }.to_string_lossy().into_owned()
    }
}

impl Drop for WebpAnimation {
    fn drop(&mut self) {
        // SAFETY: created by WebPAnimEncoderNew, deleted once.
        unsafe { sys::WebPAnimEncoderDelete(self.encoder.as_ptr()) }
    }
}

/// A picture libwebp allocated, freed once.
struct Picture(sys::WebPPicture);

impl Drop for Picture {
    fn drop(&mut self) {
        // SAFETY: initialised by WebPPictureInit; WebPPictureFree accepts a picture with or without pixels.
        unsafe { sys::WebPPictureFree(&mut self.0) }
    }
}
