//! Animations: a GIF, animated WebP or APNG source into an animated GIF or WebP. Each frame is composited
//! onto the full canvas (its disposal and blending applied, as a browser shows it), run through the plan's
//! steps exactly as a still image is, and handed to the encoder, one at a time: memory holds the canvas, one
//! frame in each step and the encoded output, never the frames decoded so far, so it does not grow with the
//! frame count. Every frame keeps its delay and the animation its loop count.
//!
//! A frame the decoder cannot read ends the animation there, with the frames before it (as browsers show
//! a damaged animation); a first frame that cannot be read is the request's error.

mod decode;
mod gif;
mod webp;

use image::DynamicImage;

use crate::{
    PipelineError,
    encode::{OutputFormat, Rendered, check_size},
    geometry::Size,
    options::{Deadline, RenderOptions},
    render::plan::RenderPlan,
    source::Probe,
    steps,
};

/// How many times an animation plays: 0 for ever, else that many times (WebP's `ANIM` loop count, APNG's
/// `num_plays`; a GIF's as libvips and browsers read it: its NETSCAPE repeat count plus one, 1 without one).
pub(crate) type Loops = u16;

/// The largest animation written: encoders hold the whole output, and the variant caches and stores it.
pub(crate) const MAX_ANIMATION_BYTES: usize = 64 << 20;

/// Renders every frame of an animated `source` as `plan` says, into an animated GIF or WebP.
pub(crate) fn render(
    source: &[u8],
    probe: &Probe,
    plan: &RenderPlan,
    options: &RenderOptions,
    deadline: &Deadline,
) -> Result<Rendered, PipelineError> {
    check_size(plan.output, plan.size.width, plan.size.height)?;
    let (frames, loops) = decode::frames(source, probe.format, options.max_pixels)?;
    let mut encoder: Option<Encoder> = None;
    // One crop window for every frame: the first frame's, where its pixels choose it.
    let mut steps = plan.steps.clone();
    for frame in frames {
        let frame = match frame {
            Ok(frame) => frame,
            Err(_) if encoder.is_some() => break,
            Err(e) => return Err(e),
        };
        deadline.check()?;
        let image = steps::run_pinning(&mut steps, DynamicImage::ImageRgba8(frame.pixels))?;
        let encoder = match &mut encoder {
            Some(encoder) => encoder,
            None => encoder.insert(Encoder::new(plan.output, plan.size, loops, plan.quality_for(&image))?),
        };
        encoder.add(&image, frame.delay_ms)?;
        if encoder.encoded_len() > MAX_ANIMATION_BYTES {
            return Err(PipelineError::OutputTooLargeBytes { max_bytes: MAX_ANIMATION_BYTES as u64 });
        }
    }
    let bytes = encoder.ok_or_else(|| PipelineError::Decode("the animation has no frames".into()))?.finish()?;
    Ok(Rendered { bytes, format: plan.output, width: plan.size.width, height: plan.size.height })
}

/// One composited frame: the full canvas, and how long it shows.
pub(crate) struct Frame {
    pub pixels: image::RgbaImage,
    pub delay_ms: u32,
}

/// The encoder of an animated output format.
enum Encoder {
    Webp(webp::WebpAnimation),
    Gif(gif::GifAnimation),
}

impl Encoder {
    fn new(format: OutputFormat, size: Size, loops: Loops, quality: u8) -> Result<Self, PipelineError> {
        match format {
            OutputFormat::Webp => Ok(Self::Webp(webp::WebpAnimation::new(size, loops, quality)?)),
            OutputFormat::Gif => Ok(Self::Gif(gif::GifAnimation::new(size, loops)?)),
            other => Err(PipelineError::Internal(format!("{} is not written animated", other.display_name()))),
        }
    }

    fn add(&mut self, image: &DynamicImage, delay_ms: u32) -> Result<(), PipelineError> {
        // Frames come out of the steps as RGBA, so usually borrowed.
        let rgba = match image {
            DynamicImage::ImageRgba8(rgba) => std::borrow::Cow::Borrowed(rgba),
            other => std::borrow::Cow::Owned(other.to_rgba8()),
        };
        match self {
            Self::Webp(encoder) => encoder.add(&rgba, delay_ms),
            Self::Gif(encoder) => encoder.add(&rgba, delay_ms),
        }
    }

    /// The bytes written so far, where the encoder writes as it goes (GIF); WebP's assembles at the end,
    /// bounded by the pixel budget instead.
    fn encoded_len(&self) -> usize {
        match self {
            Self::Webp(_) => 0,
            Self::Gif(encoder) => encoder.encoded_len(),
        }
    }

    fn finish(self) -> Result<Vec<u8>, PipelineError> {
        match self {
            Self::Webp(encoder) => encoder.finish(),
            Self::Gif(encoder) => encoder.finish(),
        }
    }
}

#[cfg(test)]
mod tests;
