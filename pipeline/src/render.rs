//! `render`: source bytes + `Transform` → encoded output. The source's headers are read (`Probe`), the
//! render is planned once (`RenderPlan`: output format and quality, shrink-on-load, the steps in their
//! order, the path), and the path the plan names runs the plan's steps: planar, planar then RGB, or
//! general; an animation runs them on every frame (`animation`).

pub(crate) mod animation;
pub(crate) mod plan;
pub(crate) mod planar;

use image::DynamicImage;

use crate::{
    PipelineError,
    decode::decode_pixels,
    encode::{Rendered, encode},
    options::{Cancellation, Deadline, RenderOptions},
    params::Transform,
    source::Probe,
    steps::{self, Step, resize},
};
use plan::{RenderPath, RenderPlan, Target};

/// Renders `source` with `transform` into `target`.
pub fn render(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: RenderOptions,
) -> Result<Rendered, PipelineError> {
    render_cancellable(source, transform, target, options, &Cancellation::new())
}

/// `render`, stopping with `PipelineError::Cancelled` at its next step or frame once `cancellation` is
/// cancelled (and, like every render, at its deadline and CPU budget).
pub fn render_cancellable(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: RenderOptions,
    cancellation: &Cancellation,
) -> Result<Rendered, PipelineError> {
    let deadline = Deadline::of(&options, cancellation);
    let probe = Probe::read(source, &options)?;
    let plan = RenderPlan::new(&probe, transform, target, &options)?;
    deadline.check()?;
    match &plan.path {
        RenderPath::Animation => animation::render(source, &probe, &plan, &options, &deadline),
        RenderPath::Planar { resize, quality } => {
            planar::render(source, &probe, resize, (plan.output, *quality), &options, &deadline)
        }
        RenderPath::PlanarThenRgb(resize) => {
            let resized = planar::resized_rgb(source, &probe, resize, &options)?;
            finish(resized, &plan.steps[1..], &plan, &deadline)
        }
        RenderPath::General => general(source, &probe, &plan, &options, &deadline),
    }
}

/// Every step through RGB(A) pixels: decoded (shrunk on load as the plan says), then the plan's steps.
fn general(
    source: &[u8],
    probe: &Probe,
    plan: &RenderPlan,
    options: &RenderOptions,
    deadline: &Deadline,
) -> Result<Rendered, PipelineError> {
    let image = decode_pixels(source, probe, plan.shrink, options.max_pixels)?;
    finish(image, &plan.steps, plan, deadline)
}

/// `steps` on `image`, then the encoding, the deadline checked before each.
fn finish(
    mut image: DynamicImage,
    steps: &[Step],
    plan: &RenderPlan,
    deadline: &Deadline,
) -> Result<Rendered, PipelineError> {
    for step in steps {
        deadline.check()?;
        image = step.apply(image)?;
    }
    deadline.check()?;
    let bytes = encode(&image, plan.output, plan.quality_for(&image))?;
    Ok(Rendered { bytes, format: plan.output, width: image.width(), height: image.height() })
}

/// The window of the scaled picture that `transform`'s `cover` crop keeps (`None` when it crops nothing),
/// chosen as a render chooses it: for comparing `gravity`'s windows with another implementation's.
pub fn crop_window(
    source: &[u8],
    transform: &Transform,
    options: &RenderOptions,
) -> Result<Option<crate::geometry::Rect>, PipelineError> {
    let probe = Probe::read(source, options)?;
    let plan = RenderPlan::new(&probe, transform, Target::Source, options)?;
    let Some(resize) = plan.steps.iter().position(|step| matches!(step, Step::Resize(_))) else { return Ok(None) };
    let Step::Resize(resize_plan) = &plan.steps[resize] else { return Ok(None) };
    if resize_plan.interest.is_none() {
        return Ok(resize_plan.crop);
    }
    let image = steps::run(&plan.steps[..resize], decode_pixels(source, &probe, plan.shrink, options.max_pixels)?)?;
    Ok(resize::apply_choosing(image, resize_plan)?.1)
}

/// The general path whatever the plan chose, for comparing the others with it.
#[cfg(test)]
pub(crate) fn render_general(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: RenderOptions,
) -> Result<Rendered, PipelineError> {
    let probe = Probe::read(source, &options)?;
    let plan = RenderPlan::new(&probe, transform, target, &options)?;
    general(source, &probe, &plan, &options, &Deadline::of(&options, &Cancellation::new()))
}

/// The general path's decoding and steps up to the resize, for comparing the planar steps with them.
#[cfg(test)]
pub(crate) fn decode_and_resize(
    source: &[u8],
    transform: &Transform,
    options: &RenderOptions,
) -> Result<DynamicImage, PipelineError> {
    let probe = Probe::read(source, options)?;
    let plan = RenderPlan::new(&probe, transform, Target::Source, options)?;
    let resize = plan.steps.iter().position(|step| matches!(step, Step::Resize(_))).map_or(0, |i| i + 1);
    steps::run(&plan.steps[..resize], decode_pixels(source, &probe, plan.shrink, options.max_pixels)?)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use image::{ImageFormat, Rgba, RgbaImage};

    use super::*;
    use crate::encode::OutputFormat;
    use plan::choose_auto_quality;

    fn photo(w: u32, h: u32) -> Vec<u8> {
        let img = RgbaImage::from_fn(w, h, |x, y| Rgba([(x % 251) as u8, (y % 241) as u8, ((x * y) % 239) as u8, 255]));
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
    }

    /// A render stops at its first check once cancelled, or once its CPU budget is spent; neither is a
    /// refusal of the file for the negative cache (`is_transient` tells the cancellation apart).
    #[test]
    fn a_cancelled_render_and_a_spent_cpu_budget_stop_it_at_its_next_step() {
        let source = photo(64, 64);
        let transform = Transform::from_query("w=32").unwrap();
        let cancelled = Cancellation::new();
        cancelled.cancel();
        let stopped = render_cancellable(&source, &transform, Target::Source, RenderOptions::default(), &cancelled);
        assert!(matches!(stopped, Err(PipelineError::Cancelled)), "{stopped:?}");
        assert!(stopped.unwrap_err().is_transient());
        let spent = RenderOptions { render_cpu_secs: 0, ..RenderOptions::default() };
        let stopped = render(&source, &transform, Target::Source, spent);
        assert!(matches!(stopped, Err(PipelineError::CpuBudgetExceeded { secs: 0 })), "{stopped:?}");
        assert!(!stopped.unwrap_err().is_transient());
        // Dropping the guard cancels; disarming it does not.
        let (dropped, kept) = (Cancellation::new(), Cancellation::new());
        drop(dropped.on_drop());
        kept.on_drop().disarm();
        assert!(dropped.is_cancelled() && !kept.is_cancelled());
    }

    fn run(query: &str, target: Target) -> Rendered {
        render(&photo(400, 300), &Transform::from_query(query).unwrap(), target, RenderOptions::default()).unwrap()
    }

    #[test]
    fn the_order_of_operations_is_fixed() {
        // crop first (in source pixels), then rotate, then resize.
        let r = run("w=50&rot=90&crop=0,0,200,100", Target::Source);
        assert_eq!((r.width, r.height, r.format), (50, 100, OutputFormat::Png));
        let r = run("border=5_000&w=100&h=100&fit=contain", Target::Format(OutputFormat::Jpeg));
        assert_eq!((r.width, r.height), (110, 110));
    }

    #[test]
    fn targets_pick_the_format() {
        assert_eq!(run("w=10", Target::Auto).format, OutputFormat::Webp);
        assert_eq!(run("w=10", Target::Format(OutputFormat::Jpeg)).format, OutputFormat::Jpeg);
        assert_eq!(&run("w=10&format=png", Target::Source).bytes[1..4], b"PNG");
    }

    #[test]
    fn a_free_rotation_larger_than_the_budget_is_refused_before_allocating() {
        // Found by the decode fuzz target: a 64295×30 JPEG at rot=45 asked for a 45,484² canvas (8.3 GB).
        let wide = DynamicImage::ImageRgb8(image::RgbImage::new(2000, 10));
        let mut png = Vec::new();
        wide.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
        let transform = Transform::from_query("rot=45&w=64").unwrap();
        let err = render(
            &png,
            &transform,
            Target::Format(OutputFormat::Png),
            RenderOptions { max_pixels: 1_000_000, ..RenderOptions::default() },
        )
        .unwrap_err();
        assert!(matches!(err, PipelineError::TooManyPixels { width: 1421, height: 1421, .. }), "{err:?}");
        // Within the budget, the same rotation renders.
        let ok = render(
            &png,
            &transform,
            Target::Format(OutputFormat::Png),
            RenderOptions { max_pixels: 4_000_000, ..RenderOptions::default() },
        );
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn a_crop_outside_the_image_is_a_client_error() {
        let err = render(
            &photo(40, 30),
            &Transform::from_query("crop=30,0,20,10").unwrap(),
            Target::Source,
            RenderOptions::default(),
        )
        .unwrap_err();
        assert!(err.is_client_error(), "{err}");
    }

    #[test]
    fn auto_quality_rewards_graphics() {
        let flat = DynamicImage::ImageRgba8(RgbaImage::from_pixel(64, 64, Rgba([10, 20, 30, 255])));
        assert_eq!(choose_auto_quality(&flat, OutputFormat::Jpeg), 90);
        let (noisy, _) = crate::decode::decode(&photo(128, 128), 1 << 20).unwrap();
        assert_eq!(choose_auto_quality(&noisy, OutputFormat::Avif), 60);
    }
}
