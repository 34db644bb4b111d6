//! Shutterbox's image pipeline: pure code, no I/O, the one place where transformation rules live. It is
//! shared by the API (validation, cache keys, synchronous renders) and the workers (precomputed variants).
//!
//! - `params` parses a delivery query string (or a transform-url body) into a validated, canonical
//!   `Transform`; its canonical text is the variant's cache key, independent of parameter order.
//! - `render` reads the source's headers (`source::Probe`), plans the render once (`plan::RenderPlan`: the
//!   output, shrink-on-load, the steps in order, the path) and runs the plan: `decode`, the `steps` (each
//!   `ops`' operation), `encode`; the planar JPEG path (`planar`, `split_jpeg`) where the plan allows; every
//!   frame of an animation (`animation`).
//! - `formats` holds the pipeline's views of the one table of media formats (`shutterbox_model::MEDIA_FORMATS`):
//!   `OutputFormat` there, `Format`, `SourceFormat` and `Target` beside what reads them.
//! - `geometry` is the sizes and rectangles everything measures with (a leaf).
//! - `resize_plan` plans a resize (scaled size, `cover` crop, `contain` padding, output size) from the source
//!   size, `w`, `h` and `fit`, matching sharp's `resize({ fit, withoutEnlargement: true })` exactly.
//! - `gravity` places a `cover` crop's window: by compass or focal point, or from the scaled pixels
//!   (`attention`, `entropy`, as libvips' smartcrop).
//! - `working_copy` says which sources renders read through a full-size JPEG copy (HEIC, JPEG XL).
//! - `facts` reads what a front end needs to know of a picture: its size, alpha and frames from its
//!   headers, its dominant colour, ThumbHash, BlurHash, placeholder and attention point from its pixels.
//! - `placeholder` draws the thumbnails of files that have no picture of their own.

mod animation;
pub mod avif;
pub mod codec_memory;
mod colour;
pub mod decode;
pub mod encode;
mod error;
pub mod facts;
pub mod formats;
mod frames;
pub mod geometry;
mod gif;
mod gravity;
#[cfg(feature = "heic")]
mod heic;
mod heif;
mod isobmff;
mod jpeg_markers;
mod jxl;
pub mod ops;
mod options;
pub mod params;
pub mod placeholder;
mod plan;
mod planar;
mod png8;
mod png_ancillary;
pub mod render;
mod resample;
pub mod resize_plan;
#[cfg(feature = "samples")]
pub mod samples;
mod source;
mod split_jpeg;
mod steps;
#[cfg(test)]
mod test_jpeg;
mod tiff;
mod webp_yuv;
mod working_copy;
mod yuv;

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
pub use plan::{Target, choose_auto_quality, output_size, shrink_on_load};
pub use render::{crop_window, render, render_cancellable};
pub use resize_plan::{ResizePlan, plan_resize};
pub use source::{SourceFormat, parsed_by_libheif};
pub use working_copy::{WORKING_COPY_TARGET, reads_working_copy, working_copy_transform};
