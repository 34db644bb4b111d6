//! `Step`: one transformation of a render, applied to the whole image (and to every frame of an
//! animation). Each step is a module of its own that knows two things: the size it makes of an image
//! (`Step::size`, checked before any pixel is touched) and how to apply itself (`Step::apply`).
//! `RenderPlan` lists the steps a request needs, in order, and folds their sizes once; every path runs
//! that list, so a step added here cannot be skipped by one of them.

mod blur;
mod border;
pub(crate) mod colour;
mod crop;
mod gray;
mod orient;
pub mod resize;
mod rotate;
mod sharpen;

pub use blur::blur;
pub use gray::gray;
pub(crate) use orient::size as orient_size;

use image::{DynamicImage, metadata::Orientation};

use crate::{
    PipelineError,
    geometry::Size,
    params::{Border, Crop},
};
use colour::ToSrgb;
use resize::ResizePlan;

/// One step, with what it needs decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The EXIF orientation, so every later step sees the image as it is meant to be seen.
    Orient(Orientation),
    /// `crop`, in upright source pixels.
    Crop(Crop),
    /// `rot`, clockwise degrees (1–359).
    Rotate(u16),
    /// `w`, `h`, `fit`: sharp's geometry, computed from the full-size image the steps before it make (a
    /// JPEG shrunk on load is scaled to the same size).
    Resize(ResizePlan),
    /// The source's embedded colour profile to sRGB, at the output size where there is a resize (a
    /// per-pixel mapping, so where it runs changes only its cost) and before any step that mixes or adds
    /// colours in sRGB terms (`gray`, `border`).
    ToSrgb(ToSrgb),
    Blur(f32),
    Sharpen,
    Gray,
    Border(Border),
}

impl Step {
    /// The size this step makes of an `input`-sized image, or why it cannot apply to one: a crop outside
    /// it, a free rotation whose canvas would exceed `max_pixels`.
    pub fn size(&self, input: Size, max_pixels: u64) -> Result<Size, PipelineError> {
        match *self {
            Self::Orient(orientation) => Ok(orient::size(orientation, input)),
            Self::Crop(rect) => crop::size(rect, input),
            Self::Rotate(degrees) => rotate::size(degrees, input, max_pixels),
            // Planned for the full-size image; one shrunk on load is scaled to the same size.
            Self::Resize(ref plan) => Ok(plan.output),
            Self::Border(border) => Ok(border::size(border, input)),
            Self::ToSrgb(_) | Self::Blur(_) | Self::Sharpen | Self::Gray => Ok(input),
        }
    }

    pub fn apply(&self, image: DynamicImage) -> Result<DynamicImage, PipelineError> {
        Ok(match *self {
            Self::Orient(orientation) => orient::apply(orientation, image),
            Self::Crop(rect) => crop::apply(&image, rect)?,
            Self::Rotate(degrees) => rotate::apply(image, degrees),
            Self::Resize(ref plan) => resize::apply(image, plan)?,
            Self::ToSrgb(ref conversion) => conversion.apply(image),
            Self::Blur(sigma) => blur::blur(image, sigma),
            Self::Sharpen => sharpen::apply(&image),
            Self::Gray => gray::gray(&image),
            Self::Border(border) => border::apply(&image, border),
        })
    }

    /// Whether the step turns the image without changing its scale (an orientation, a right angle): a
    /// resize after such steps only may still be shrunk on load.
    pub(crate) fn only_turns(&self) -> bool {
        matches!(*self, Self::Orient(_)) || matches!(*self, Self::Rotate(degrees) if degrees % 90 == 0)
    }
}

/// Runs `steps` over `image` in order.
pub fn run(steps: &[Step], mut image: DynamicImage) -> Result<DynamicImage, PipelineError> {
    for step in steps {
        image = step.apply(image)?;
    }
    Ok(image)
}

/// `run`, pinning every crop window the pixels chose (`gravity=attention|entropy`) into its step, so the
/// next images run through `steps` (an animation's later frames) get the same window.
pub fn run_pinning(steps: &mut [Step], mut image: DynamicImage) -> Result<DynamicImage, PipelineError> {
    for step in steps.iter_mut() {
        image = match step {
            Step::Resize(plan) if plan.interest.is_some() => {
                let (resized, chosen) = resize::apply_choosing(image, plan)?;
                if let Some(rect) = chosen {
                    *plan = plan.pinned(rect);
                }
                resized
            }
            step => step.apply(image)?,
        };
    }
    Ok(image)
}
