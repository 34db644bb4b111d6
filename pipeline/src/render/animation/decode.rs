//! An animation's frames, one at a time, composited onto the full canvas, with their delays, and the
//! animation's loop count: GIF by `GifCanvas`, APNG (blend and dispose ops) by the `image` crate's decoder,
//! animated WebP by libwebp's own animation decoder (`WebPAnimDecoder`, as libvips
//! reads it), whose blending and disposal are the format's reference (image-webp 0.2 leaves a frame
//! disposed to the background on the canvas, and its blending over partly transparent frames differs).

use std::{io::Cursor, ptr};

use image::{AnimationDecoder, ImageDecoder, RgbaImage, codecs::png::PngDecoder, metadata::LoopCount};

use super::{Frame, Loops};
use crate::{
    PipelineError,
    codecs::gif::canvas::GifCanvas,
    source::{SourceFormat, decoder_limits},
};

/// Frames as they are decoded.
pub(crate) type FrameStream<'a> = Box<dyn Iterator<Item = Result<Frame, PipelineError>> + 'a>;

/// The frames of `bytes` as they are decoded, and how many times the animation plays.
pub(crate) fn frames(
    bytes: &[u8],
    format: SourceFormat,
    max_pixels: u64,
) -> Result<(FrameStream<'_>, Loops), PipelineError> {
    let limits = decoder_limits(max_pixels);
    let (frames, loops) = match format {
        SourceFormat::Gif => {
            let frames = GifCanvas::new(bytes, max_pixels)?
                .map(|frame| frame.map(|frame| Frame { pixels: frame.pixels, delay_ms: frame.delay_ms }));
            // A GIF without a loop count plays once in browsers and libvips.
            return Ok((Box::new(frames), crate::frames::gif_loops(bytes)));
        }
        SourceFormat::Webp => {
            let frames = WebpFrames::new(bytes)?;
            let loops = frames.loops;
            return Ok((Box::new(frames), loops));
        }
        SourceFormat::Png => {
            let mut decoder = PngDecoder::new(Cursor::new(bytes)).map_err(PipelineError::decode)?;
            decoder.set_limits(limits).map_err(PipelineError::decode)?;
            let decoder = decoder.apng().map_err(PipelineError::decode)?;
            let loops = loops_of(decoder.loop_count());
            (decoder.into_frames(), loops)
        }
        other => {
            return Err(PipelineError::Internal(format!(
                "{} is not decoded as an animation",
                other.media_format().name()
            )));
        }
    };
    let frames = frames.map(|frame| {
        let frame = frame.map_err(PipelineError::decode)?;
        let (numerator, denominator) = frame.delay().numer_denom_ms();
        let delay_ms = (numerator + denominator / 2).checked_div(denominator).unwrap_or(0);
        Ok(Frame { pixels: frame.into_buffer(), delay_ms })
    });
    Ok((Box::new(frames), loops))
}

fn loops_of(count: LoopCount) -> Loops {
    match count {
        LoopCount::Infinite => 0,
        LoopCount::Finite(n) => Loops::try_from(n.get()).unwrap_or(Loops::MAX),
    }
}

/// An animated WebP's frames through libwebp's animation decoder, which borrows `bytes` for its life.
struct WebpFrames<'a> {
    decoder: ptr::NonNull<libwebp_sys::WebPAnimDecoder>,
    width: u32,
    height: u32,
    loops: Loops,
    /// When the previous frame ended, in milliseconds.
    previous_ms: i32,
    failed: bool,
    _bytes: std::marker::PhantomData<&'a [u8]>,
}

impl<'a> WebpFrames<'a> {
    fn new(bytes: &'a [u8]) -> Result<Self, PipelineError> {
        use libwebp_sys as sys;
        let data = sys::WebPData { bytes: bytes.as_ptr(), size: bytes.len() };
        // SAFETY: plain data, initialised by WebPAnimDecoderOptionsInit before it is read.
        let mut options: sys::WebPAnimDecoderOptions = unsafe { std::mem::zeroed() };
        if unsafe { sys::WebPAnimDecoderOptionsInit(&mut options) } == 0 {
            return Err(PipelineError::Internal("WebP: no decoder options".into()));
        }
        options.color_mode = sys::WEBP_CSP_MODE::MODE_RGBA;
        options.use_threads = 0;
        // SAFETY: `data` points into `bytes`, which outlives the decoder (`'a`); freed once, by `Drop`.
        let decoder = unsafe { sys::WebPAnimDecoderNew(&data, &options) };
        let decoder =
            ptr::NonNull::new(decoder).ok_or_else(|| PipelineError::Decode("the animated WebP is malformed".into()))?;
        let mut frames = Self {
            decoder,
            width: 0,
            height: 0,
            loops: 0,
            previous_ms: 0,
            failed: false,
            _bytes: std::marker::PhantomData,
        };
        // SAFETY: plain data, filled by a live decoder.
        let mut info: sys::WebPAnimInfo = unsafe { std::mem::zeroed() };
        if unsafe { sys::WebPAnimDecoderGetInfo(decoder.as_ptr(), &mut info) } == 0 {
            return Err(PipelineError::Decode("the animated WebP is malformed".into()));
        }
        (frames.width, frames.height) = (info.canvas_width, info.canvas_height);
        frames.loops = Loops::try_from(info.loop_count).unwrap_or(Loops::MAX);
        Ok(frames)
    }
}

impl Iterator for WebpFrames<'_> {
    type Item = Result<Frame, PipelineError>;

    fn next(&mut self) -> Option<Self::Item> {
        use libwebp_sys as sys;
        // SAFETY: a live decoder.
        if self.failed || unsafe { sys::WebPAnimDecoderHasMoreFrames(self.decoder.as_ptr()) } == 0 {
            return None;
        }
        let (mut canvas, mut timestamp) = (ptr::null_mut::<u8>(), 0);
        // SAFETY: a live decoder; on success `canvas` is its own width × height × 4 bytes, valid until the
        // next call, copied below.
        if unsafe { sys::WebPAnimDecoderGetNext(self.decoder.as_ptr(), &mut canvas, &mut timestamp) } == 0
            || canvas.is_null()
        {
            self.failed = true;
            return Some(Err(PipelineError::Decode("a frame of the animated WebP is malformed".into())));
        }
        let len = self.width as usize * self.height as usize * 4;
        let pixels = unsafe { std::slice::from_raw_parts(canvas, len) }.to_vec();
        let delay_ms = u32::try_from(timestamp.wrapping_sub(self.previous_ms)).unwrap_or(0);
        self.previous_ms = timestamp;
        let pixels = RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| PipelineError::Internal("WebP canvas size mismatch".into()));
        Some(pixels.map(|pixels| Frame { pixels, delay_ms }))
    }
}

impl Drop for WebpFrames<'_> {
    fn drop(&mut self) {
        // SAFETY: created by WebPAnimDecoderNew, deleted once.
        unsafe { libwebp_sys::WebPAnimDecoderDelete(self.decoder.as_ptr()) }
    }
}
