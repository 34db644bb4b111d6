//! `Step`: one transformation of a render, applied to the whole image (and to every frame of an
//! animation). `RenderPlan::steps` lists the steps a request needs, in order; every path runs that list, so
//! a step added here cannot be skipped by one of them. The operations themselves are `crate::ops`'.

use image::{DynamicImage, metadata::Orientation};

use crate::{
    PipelineError,
    colour::ToSrgb,
    ops,
    params::{Border, Crop},
    resize_plan::ResizePlan,
};

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
    pub fn apply(&self, image: DynamicImage) -> Result<DynamicImage, PipelineError> {
        Ok(match *self {
            Self::Orient(orientation) => {
                let mut image = image;
                image.apply_orientation(orientation);
                image
            }
            Self::Crop(rect) => ops::crop(&image, rect)?,
            Self::Rotate(degrees) => ops::rotate(image, degrees),
            Self::Resize(ref plan) => ops::resize(image, plan)?,
            Self::ToSrgb(ref conversion) => conversion.apply(image),
            Self::Blur(sigma) => ops::blur(image, sigma),
            Self::Sharpen => ops::sharpen(&image),
            Self::Gray => ops::gray(&image),
            Self::Border(border) => ops::border(&image, border),
        })
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
                let (resized, chosen) = ops::resize_choosing(image, plan)?;
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
