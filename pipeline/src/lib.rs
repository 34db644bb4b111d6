//! Shutterbox's image pipeline: pure code, no I/O, the one place where transformation rules live. It is
//! shared by the API (validation, cache keys, synchronous renders) and the workers (precomputed variants).
//!
//! `params` parses a delivery query string (or a transform-url body) into a validated, canonical
//! `Transform`; its canonical text is the variant's cache key, independent of parameter order.
//!
//! `render` runs the fixed order decode → crop → rot → resize → blur → sharp → gray → border → encode, with
//! `decode`, `ops` and `encode` doing the steps.
//!
//! `image_type` is the one table of image formats: names, extension, media type, what is read and written.
//!
//! `placeholder` draws the thumbnails of files that have no picture of their own.
//!
//! `geometry` plans a resize (scaled size, `cover` crop, `contain` padding, output size) from the source
//! size, `w`, `h` and `fit`, matching sharp's `resize({ fit, withoutEnlargement: true })` exactly.

pub mod avif;
pub mod codec_memory;
pub mod decode;
pub mod encode;
pub mod frames;
pub mod geometry;
pub mod image_type;
mod isobmff;
pub mod ops;
pub mod params;
pub mod placeholder;
mod planar;
mod png8;
pub mod render;
#[cfg(feature = "samples")]
pub mod samples;
mod split_jpeg;
#[cfg(test)]
mod test_jpeg;
mod webp_yuv;

pub use decode::SourceFormat;
pub use encode::OutputFormat;
pub use geometry::{Padding, Rect, ResizePlan, Size, plan_resize};
pub use image_type::{IMAGE_TYPES, ImageType, ImageTypeInfo};
pub use params::{Border, Crop, Fit, Format, PARAMS, ParamError, ParamKind, ParamSpec, Quality, Transform};
pub use placeholder::{PLACEHOLDER_SIZE, PlaceholderKind, placeholder_png};
pub use render::{RenderOptions, Rendered, Target, output_size, render};

use params::Crop as CropRect;

/// Why an image could not be rendered. Every variant but `Internal` is the request's doing (its image or
/// its parameters) and says what was wrong with it; `Internal` is the pipeline's own fault, never a
/// consequence of input (the render property suite and the `render` fuzz target hold it to that).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("the file is not an image in a supported format (JPEG, PNG, WebP, GIF, TIFF, BMP or AVIF)")]
    UnsupportedFormat,
    #[error("the image is {width}x{height} pixels, more than the {max_pixels} pixels allowed")]
    TooManyPixels { width: u32, height: u32, max_pixels: u64 },
    #[error("the image could not be decoded: {0}")]
    Decode(String),
    #[error("the image has more than {max_frames} frames, the most allowed")]
    TooManyFrames { max_frames: u32 },
    #[error(
        "the output would be {width}x{height} pixels, more than the {max_pixels} pixels allowed; ask for a smaller \
         w, h or border"
    )]
    OutputTooManyPixels { width: u32, height: u32, max_pixels: u64 },
    #[error("crop {},{},{},{} lies outside the {width}x{height} image", crop.x, crop.y, crop.width, crop.height)]
    CropOutside { crop: CropRect, width: u32, height: u32 },
    #[error(
        "the output would be {width}x{height} pixels, larger than {} allows ({max_side} pixels a side); \
         ask for a smaller w or h, or another format",
        format.display_name()
    )]
    OutputTooLarge { format: OutputFormat, width: u32, height: u32, max_side: u32 },
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
}
