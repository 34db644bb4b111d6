//! `RenderOptions`: the limits and resources one render works within, and the checks made against them
//! before any pixel memory is allocated.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use crate::PipelineError;

/// The largest original a render reads (`RenderOptions::max_source_bytes`, `SHUTTERBOX_MAX_SOURCE_BYTES`):
/// a 50-megapixel picture is well under it in any format but uncompressed 16-bit TIFF.
pub const DEFAULT_MAX_SOURCE_BYTES: u64 = 256 << 20;

/// How long one render may take from its start, waiting for a core included (`SHUTTERBOX_RENDER_TIMEOUT_SECS`).
pub const DEFAULT_RENDER_TIMEOUT_SECS: u64 = 30;

/// How much CPU time one render may use (`SHUTTERBOX_RENDER_CPU_SECS`): a 50-megapixel JPEG to a large
/// AVIF takes about 5 s of one core here; a render needing more is the input's doing.
pub const DEFAULT_RENDER_CPU_SECS: u64 = 20;

/// A render's caller giving up on it: set when the request that wanted it goes away, so a render already
/// running stops at its next step or frame instead of finishing for nobody.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(Arc<AtomicBool>);

impl Cancellation {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// A guard that cancels when it is dropped unless `disarm`ed: held by the future awaiting the render.
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(Some(self.clone()))
    }
}

/// Cancels its render when dropped (`Cancellation::on_drop`).
#[derive(Debug)]
pub struct CancelOnDrop(Option<Cancellation>);

impl CancelOnDrop {
    /// The render's result was taken: nothing to cancel.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancellation) = self.0.take() {
            cancellation.cancel();
        }
    }
}

/// When a render must stop: past its wall-clock deadline, past its CPU budget (the render thread's own CPU
/// time), or cancelled by its caller. Checked between its steps and its frames, so a render past it stops
/// there instead of holding its thread.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    at: Instant,
    secs: u64,
    cpu_start: Duration,
    cpu_secs: u64,
    cancellation: Cancellation,
}

impl Deadline {
    /// The limits of `options` from now, for a render on the calling thread.
    pub(crate) fn of(options: &RenderOptions, cancellation: &Cancellation) -> Self {
        Self {
            at: Instant::now() + Duration::from_secs(options.render_timeout_secs),
            secs: options.render_timeout_secs,
            cpu_start: thread_cpu_time(),
            cpu_secs: options.render_cpu_secs,
            cancellation: cancellation.clone(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), PipelineError> {
        if self.cancellation.is_cancelled() {
            return Err(PipelineError::Cancelled);
        }
        if Instant::now() >= self.at {
            return Err(PipelineError::DeadlineExceeded { secs: self.secs });
        }
        if thread_cpu_time().saturating_sub(self.cpu_start) >= Duration::from_secs(self.cpu_secs) {
            return Err(PipelineError::CpuBudgetExceeded { secs: self.cpu_secs });
        }
        Ok(())
    }
}

/// The CPU time the calling thread has used (zero where the clock cannot be read, which never stops a
/// render).
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec, which `now` is.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(u64::try_from(now.tv_sec).unwrap_or(0), u32::try_from(now.tv_nsec).unwrap_or(0))
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
    /// Seconds one render may take, from its start; past them it stops at its next frame or step (a 503:
    /// the service was too busy to finish it).
    pub render_timeout_secs: u64,
    /// Seconds of CPU time one render may use; past them it stops likewise (a 400: the input asked for
    /// more work than a render may do).
    pub render_cpu_secs: u64,
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
            render_cpu_secs: DEFAULT_RENDER_CPU_SECS,
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
