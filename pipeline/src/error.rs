//! `PipelineError`: why a render failed, the request's fault or the pipeline's own.

use crate::{formats::OutputFormat, geometry::Crop};

/// Why an image could not be rendered. Every variant but `Internal` is the request's doing (its image or
/// its parameters) and says what was wrong with it; `Internal` is the pipeline's own fault, never a
/// consequence of input (the render property suite and the `render` fuzz target hold it to that).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("the file is not an image in a supported format (JPEG, PNG, WebP, GIF, TIFF, BMP, AVIF, HEIC or JPEG XL)")]
    UnsupportedFormat,
    #[error("the image is {width}x{height} pixels, more than the {max_pixels} pixels allowed")]
    TooManyPixels { width: u32, height: u32, max_pixels: u64 },
    #[error("the image could not be decoded: {0}")]
    Decode(String),
    #[error("the image has more than {max_frames} frames, the most allowed")]
    TooManyFrames { max_frames: u32 },
    #[error(
        "the animation is {frames} frames of {width}x{height} pixels (the larger of its source and output \
         frames), more than the {max_pixels} pixels over all frames one render may decode and encode; ask for a \
         smaller w or h, or anim=false to render its first frame"
    )]
    AnimationTooLarge { width: u32, height: u32, frames: u64, max_pixels: u64 },
    #[error(
        "the output would be {width}x{height} pixels, more than the {max_pixels} pixels allowed; ask for a smaller \
         w, h or border"
    )]
    OutputTooManyPixels { width: u32, height: u32, max_pixels: u64 },
    #[error("crop {},{},{},{} lies outside the {width}x{height} image", crop.x, crop.y, crop.width, crop.height)]
    CropOutside { crop: Crop, width: u32, height: u32 },
    #[error(
        "the output would be {width}x{height} pixels, larger than {} allows ({max_side} pixels a side); \
         ask for a smaller w or h, or another format",
        format.display_name()
    )]
    OutputTooLarge { format: OutputFormat, width: u32, height: u32, max_side: u32 },
    #[error("the file is {bytes} bytes, more than the {max_bytes} bytes a render reads")]
    SourceTooLarge { bytes: u64, max_bytes: u64 },
    #[error("the image has more than {max_scans} scans, the most decoded")]
    TooManyScans { max_scans: usize },
    /// Past the wall-clock deadline: the service was too busy to finish in time (not the input's fault, so
    /// never remembered as a refusal).
    #[error("the render did not finish within the {secs} s one render may take; the service is busy, try again")]
    DeadlineExceeded { secs: u64 },
    #[error(
        "the render needed more than the {secs} s of CPU time one render may use; ask for a smaller output, or \
         anim=false for an animation"
    )]
    CpuBudgetExceeded { secs: u64 },
    /// The caller went away; nobody reads this.
    #[error("the render was cancelled: its request went away")]
    Cancelled,
    #[error("the animation would be more than {max_bytes} bytes; ask for a smaller w or h, or anim=false")]
    OutputTooLargeBytes { max_bytes: u64 },
    #[error("the image's {what} is larger than {limit} bytes, the most read")]
    MetadataTooLarge { what: &'static str, limit: u64 },
    /// Refused where the reason was said already (a decoder run in a child process, which answers with
    /// its own refusal's words).
    #[error("{0}")]
    Refused(String),
    #[error("internal pipeline fault: {0}")]
    Internal(String),
}

impl PipelineError {
    pub(crate) fn decode(e: impl std::fmt::Display) -> Self {
        Self::Decode(e.to_string())
    }

    pub(crate) fn internal(e: impl std::fmt::Display) -> Self {
        Self::Internal(e.to_string())
    }

    /// Whether the request (its image or its parameters) is at fault, as opposed to the service.
    pub fn is_client_error(&self) -> bool {
        !matches!(self, Self::Internal(_))
    }

    /// Whether the render stopped for the service's load or its caller's leaving, not for what it was
    /// asked: the same request may succeed later, so it is answered 503 and never remembered as refused.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::DeadlineExceeded { .. } | Self::Cancelled)
    }
}
