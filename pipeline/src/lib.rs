//! Shutterbox's image pipeline: pure code, no I/O, the one place where transformation rules live. It is
//! shared by the API (validation, cache keys, synchronous renders) and the workers (precomputed variants).
//!
//! - `params` parses a delivery query string (or a transform-url body) into a validated, canonical
//!   `Transform`; its canonical text is the variant's cache key, independent of parameter order.
//! - `render` reads the source's headers (`source::Probe`), plans the render once (`render::plan`: the
//!   output, the steps in order with the size each makes, shrink-on-load, the path) and runs the path the
//!   plan chose, in one `match`: general (`decode`, the steps, `encode`), planar (`render::planar`: YCbCr
//!   planes from decoder to encoder, or up to the resize), or every frame of an animation
//!   (`render::animation`).
//! - `steps` holds the transformations, a module each (orient, crop, rotate, resize, colour, blur, sharpen,
//!   gray, border), each knowing the size it makes and how to apply itself; `steps::resize` has sharp's
//!   resize geometry (`ResizePlan`).
//! - `formats` holds the pipeline's views of the one table of media formats (`shutterbox_model::MEDIA_FORMATS`):
//!   `OutputFormat` there, `Format`, `SourceFormat` and `Target` beside what reads them; `codecs` the
//!   container parsers, decoders and encoders of our own or around a C library.
//! - `geometry` is the sizes and rectangles everything measures with (a leaf); `resample` the Lanczos3
//!   kernel every resize uses.
//! - `gravity` places a `cover` crop's window: by compass or focal point, or from the scaled pixels
//!   (`attention`, `entropy`, as libvips' smartcrop).
//! - `working_copy` says which sources renders read through a full-size JPEG copy (HEIC, JPEG XL).
//! - `facts` reads what a front end needs to know of a picture: its size, alpha and frames from its
//!   headers, its dominant colour, ThumbHash, BlurHash, placeholder and attention point from its pixels.
//! - `video` reads a video's facts from its container's headers (MP4, QuickTime, Matroska, WebM, AVI,
//!   transport streams), through ranged reads the caller backs.
//! - `placeholder` draws the thumbnails of files that have no picture of their own.

mod codecs;
pub mod decode;
pub mod encode;
mod error;
pub mod facts;
pub mod formats;
mod frames;
pub mod geometry;
mod gravity;
mod options;
pub mod params;
pub mod placeholder;
pub mod render;
mod resample;
#[cfg(feature = "samples")]
pub mod samples;
mod source;
pub mod steps;
pub mod video;
mod working_copy;

pub use codecs::{avif, codec_memory};
pub use encode::Rendered;
pub use error::PipelineError;
pub use facts::{read_facts, summarize};
pub use formats::OutputFormat;
pub use geometry::{Crop, Padding, Rect, Size};
pub use gravity::{FOCAL_UNITS, FocalPoint, Gravity, Interest};
pub use options::{
    CancelOnDrop, Cancellation, DEFAULT_MAX_ANIMATION_PIXELS, DEFAULT_MAX_FRAMES, DEFAULT_MAX_SOURCE_BYTES,
    DEFAULT_RENDER_CPU_SECS, DEFAULT_RENDER_TIMEOUT_SECS, RenderOptions, check_source_bytes,
};
pub use params::{Border, Fit, Format, PARAMS, ParamError, ParamKind, ParamSpec, Quality, Transform};
pub use placeholder::{PLACEHOLDER_SIZE, PlaceholderKind, placeholder_png};
pub use render::plan::{Target, choose_auto_quality, output_size, shrink_on_load};
pub use render::{crop_window, render, render_cancellable};
pub use source::{SourceFormat, parsed_by_libheif};
pub use steps::resize::{ResizePlan, plan_resize};
pub use working_copy::{WORKING_COPY_TARGET, reads_working_copy, working_copy_transform};
