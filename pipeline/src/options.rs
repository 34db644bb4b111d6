//! `RenderOptions`: the limits and resources one render works within, and the checks made against them
//! before any pixel memory is allocated.

use std::time::{Duration, Instant};

use crate::PipelineError;

/// The largest original a render reads (`RenderOptions::max_source_bytes`, `SHUTTERBOX_MAX_SOURCE_BYTES`):
/// a 50-megapixel picture is well under it in any format but uncompressed 16-bit TIFF.
pub const DEFAULT_MAX_SOURCE_BYTES: u64 = 256 << 20;

/// How long one render may take (`SHUTTERBOX_RENDER_TIMEOUT_SECS`).
pub const DEFAULT_RENDER_TIMEOUT_SECS: u64 = 30;

/// When a render must have finished: checked between its steps and its frames, so a render past it stops
/// there with `PipelineError::DeadlineExceeded` instead of holding its thread.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    secs: u64,
}

impl Deadline {
    /// `secs` from now.
    pub(crate) fn after(secs: u64) -> Self {
        Self { at: Instant::now() + Duration::from_secs(secs), secs }
    }

    pub(crate) fn check(&self) -> Result<(), PipelineError> {
        if Instant::now() >= self.at {
            return Err(PipelineError::DeadlineExceeded { secs: self.secs });
        }
        Ok(())
    }
}

/// More frames than any real animation has (ten minutes at 16 frames a second).
pub const DEFAULT_MAX_FRAMES: u32 = 10_000;

/// Most pixels one animated render may decode, summed over its frames (`RenderOptions::max_animation_pixels`,
/// `SHUTTERBOX_MAX_ANIMATION_PIXELS`): 500 frames of 1000×1000, or 4,000 frames of a 480×270 clip.
pub const DEFAULT_MAX_ANIMATION_PIXELS: u64 = 500_000_000;

#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Largest source accepted, in pixels, checked against the header before decoding.
    pub max_pixels: u64,
    /// Largest output rendered, in pixels (after `rot`'s canvas and `border`), checked before the pixels
    /// are touched.
    pub max_output_pixels: u64,
    /// Most frames an animated source may have, counted before decoding (`crate::frames`).
    pub max_frames: u32,
    /// Most source pixels an animated render decodes over all its frames (width × height × frames),
    /// checked against the headers before the first frame is decoded. A still render of an animation
    /// (`anim=false`, or an output format that holds one frame) decodes one frame and is not counted.
    pub max_animation_pixels: u64,
    /// Largest source read, in bytes, checked before it is read (a file of a few pixels followed by a
    /// gigabyte of anything is refused, not read whole).
    pub max_source_bytes: u64,
    /// Seconds one render may take, from its start; past them it stops at its next frame or step.
    pub render_timeout_secs: u64,
    /// Whether this render may use a second core (a 4:2:0 JPEG's split entropy decoding, its chroma
    /// resized beside the luma). Worth it when a core would otherwise idle; when every core has a render
    /// of its own, the split's coordination and speculative decoding are work taken from those renders.
    pub parallel: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            max_pixels: 50_000_000,
            max_output_pixels: 50_000_000,
            max_frames: DEFAULT_MAX_FRAMES,
            max_animation_pixels: DEFAULT_MAX_ANIMATION_PIXELS,
            max_source_bytes: DEFAULT_MAX_SOURCE_BYTES,
            render_timeout_secs: DEFAULT_RENDER_TIMEOUT_SECS,
            parallel: true,
        }
    }
}

/// `SourceTooLarge` when a source of `len` bytes is over `max_bytes`.
pub fn check_source_bytes(len: u64, max_bytes: u64) -> Result<(), PipelineError> {
    if len > max_bytes {
        return Err(PipelineError::SourceTooLarge { bytes: len, max_bytes });
    }
    Ok(())
}

/// `TooManyPixels` when a `width × height` source is over `max_pixels`; a `Decode` error when it has none.
pub(crate) fn check_source_pixels(width: u32, height: u32, max_pixels: u64) -> Result<(), PipelineError> {
    if width == 0 || height == 0 {
        return Err(PipelineError::Decode("image has no pixels".into()));
    }
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(PipelineError::TooManyPixels { width, height, max_pixels });
    }
    Ok(())
}

/// A zeroed buffer of `len` bytes, or `None` when the allocator refuses it (a decoder's pixels must not
/// abort the process).
pub(crate) fn zeroed(len: usize) -> Option<Vec<u8>> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).ok()?;
    buffer.resize(len, 0);
    Some(buffer)
}
