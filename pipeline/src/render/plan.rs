//! `RenderPlan`: everything a render decides before it touches a pixel, computed once from the source's
//! headers (`Probe`), the request and the limits: the output format and quality, how far a JPEG is shrunk
//! on load, the steps the request needs in their order and the size each makes, and which path runs them.
//! Every limit is checked here, so a refused request has decoded nothing; and the path chosen is final.
//!
//! The order is docs/transformations.md's, "Order": orient (EXIF) → crop → rot → resize → blur → sharp →
//! gray → border → encode. `RenderPlan::steps` is that list for one request; the paths differ only in how
//! they run its first steps:
//! - *Planar JPEG* (`crate::render::planar::render`): a baseline 4:2:0 JPEG whose only step is a resize that
//!   scales, into a JPEG or a WebP at an explicit `q`, stays in YCbCr planes from decoder to encoder.
//! - *Planar, then RGB* (`crate::render::planar::resized_rgb`): such a JPEG whose first step is that resize is
//!   decoded and resized in planes and converted to RGB at the output size; the rest of the list follows.
//! - *Animation* (`crate::render::animation`): an animated source into an output that animates, not asked for as a
//!   still (`anim=false`): every frame decoded, then every step.
//! - *General*: decoded (shrunk on load where `shrink` allows), then every step.
//!
//! Two shortcuts keep the order's result while doing less work: *shrink-on-load* (`shrink_for`), and
//! *gray first*: gray is a fixed linear mix of the channels and blur is linear per channel, so
//! gray(blur(x)) = blur(gray(x)) up to rounding; with `gray` and no `sharp` (the unsharp mask's threshold
//! is not linear) gray runs right after the resize, and the blur handles one channel, not three.

use image::{DynamicImage, GenericImageView, metadata::Orientation};
use shutterbox_model::MediaFormat;

use crate::{
    PipelineError,
    encode::OutputFormat,
    geometry::Size,
    options::RenderOptions,
    params::{Quality, Transform},
    render::planar::PlanarResize,
    source::{Probe, SourceFormat},
    steps::{
        Step,
        colour::ToSrgb,
        resize::{self, plan_resize},
    },
};

/// What the output format should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A format named by `format` or by the URL's extension.
    Format(OutputFormat),
    /// `format=auto`: the service chooses (see `AUTO_FORMAT`).
    Auto,
    /// The source's own format (no `format`, extension matching the original).
    Source,
}

impl Target {
    /// A stable name, for job payloads and digests: `source`, `auto`, or the format's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Auto => "auto",
            Self::Format(format) => format.media_format().name(),
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "source" => Some(Self::Source),
            "auto" => Some(Self::Auto),
            other => MediaFormat::from_name(other).and_then(OutputFormat::of).map(Self::Format),
        }
    }
}

/// Which path runs the plan's steps (the module's documentation), with what it needs decided.
#[derive(Debug, Clone, PartialEq)]
pub enum RenderPath {
    /// Every frame through the steps (`crate::render::animation`).
    Animation,
    /// Planes from the decoder to the encoder, at `quality`.
    Planar {
        resize: PlanarResize,
        quality: u8,
    },
    /// The resize in planes, then RGB for the steps after it.
    PlanarThenRgb(PlanarResize),
    General,
}

#[derive(Debug, Clone)]
pub struct RenderPlan {
    pub output: OutputFormat,
    pub quality: Quality,
    /// A JPEG is decoded at 1/`shrink` of its size (1, 2, 4 or 8).
    pub shrink: u32,
    pub steps: Vec<Step>,
    pub path: RenderPath,
    /// The output's size (every frame's, for an animation).
    pub size: Size,
}

impl RenderPlan {
    /// The plan for `transform` into `target` of the source `probe` describes, within `options`' limits.
    pub(crate) fn new(
        probe: &Probe,
        transform: &Transform,
        target: Target,
        options: &RenderOptions,
    ) -> Result<Self, PipelineError> {
        let (steps, size) =
            steps_for(transform, probe.stored, probe.orientation, probe.colour.as_ref(), options.max_pixels)?;
        if u64::from(size.width) * u64::from(size.height) > options.max_output_pixels {
            return Err(PipelineError::OutputTooManyPixels {
                width: size.width,
                height: size.height,
                max_pixels: options.max_output_pixels,
            });
        }
        let output = match target {
            Target::Format(format) => format,
            Target::Auto => AUTO_FORMAT,
            Target::Source => source_output(probe.format),
        };
        let animated = probe.frames > 1 && !transform.still && matches!(output, OutputFormat::Gif | OutputFormat::Webp);
        if animated {
            // Every frame is decoded at the source's size and encoded at the output's: the larger of the
            // two, times the frames, is the render's work (a 16×16 GIF asked at 2000×2000 is the output's).
            let frame = [probe.stored, size].into_iter().max_by_key(|s| u64::from(s.width) * u64::from(s.height));
            let frame = frame.unwrap_or(size);
            let pixels = u64::from(frame.width) * u64::from(frame.height) * probe.frames;
            if pixels > options.max_animation_pixels {
                return Err(PipelineError::AnimationTooLarge {
                    width: frame.width,
                    height: frame.height,
                    frames: probe.frames,
                    max_pixels: options.max_animation_pixels,
                });
            }
        }
        let shrink = if probe.jpeg.is_some() { shrink_for(&steps) } else { 1 };
        let mut plan = Self { output, quality: transform.quality, shrink, steps, path: RenderPath::General, size };
        plan.path = if animated { RenderPath::Animation } else { plan.choose_path(probe) };
        Ok(plan)
    }

    /// The planar paths where the source and the steps allow them (the module's documentation), else
    /// the general one. Decided from the headers alone, and final: the planar paths read any JPEG the
    /// probe takes for a baseline 4:2:0 one (`crate::render::planar`'s decoding has the general decoder behind it).
    fn choose_path(&self, probe: &Probe) -> RenderPath {
        let planar_source =
            probe.jpeg.is_some_and(|layout| layout.is_ycbcr_420()) && probe.orientation == Orientation::NoTransforms;
        let Some(Step::Resize(resize)) = self.steps.first() else { return RenderPath::General };
        // A window the scaled pixels choose needs the scaled picture whole first.
        if resize.interest.is_some() {
            return RenderPath::General;
        }
        let kept = resize.crop.map_or(resize.scaled, |rect| Size::new(rect.width, rect.height));
        if !planar_source || !resize.scales() || kept.width == 0 || kept.height == 0 {
            return RenderPath::General;
        }
        let planned = PlanarResize::new(resize, self.shrink);
        let subsampled = matches!(self.output, OutputFormat::Jpeg | OutputFormat::Webp);
        let padded = resize.padding.is_some_and(|p| !p.is_zero());
        if let (1, true, false, Quality::Value(quality)) = (self.steps.len(), subsampled, padded, self.quality) {
            return RenderPath::Planar { resize: planned, quality };
        }
        // The decoded planes' chroma is at half the decoded size: enough for a 4:2:0 output, and for a
        // 4:4:4 one no larger than it.
        let full = probe.stored;
        let chroma = |side: u32| side.div_ceil(self.shrink).div_ceil(2);
        let needed = |side: u32| if subsampled { side.div_ceil(2) } else { side };
        if needed(resize.scaled.width) > chroma(full.width) || needed(resize.scaled.height) > chroma(full.height) {
            return RenderPath::General;
        }
        RenderPath::PlanarThenRgb(planned)
    }

    /// The quality to encode `image` at: the request's, or `q=auto`'s choice for it.
    pub fn quality_for(&self, image: &DynamicImage) -> u8 {
        match self.quality {
            Quality::Value(q) => q,
            Quality::Auto => choose_auto_quality(image, self.output),
        }
    }
}

/// The steps `transform` needs on a source stored at `stored` with `orientation` and `colour`, in order,
/// and the size they make: the one place that says which steps run (every path takes them from here) and
/// where their sizes are computed, each by its step (`Step::size`), in order.
fn steps_for(
    transform: &Transform,
    stored: Size,
    orientation: Orientation,
    colour: Option<&ToSrgb>,
    max_pixels: u64,
) -> Result<(Vec<Step>, Size), PipelineError> {
    let mut steps = Vec::new();
    let mut size = stored;
    let mut push = |step: Step, size: &mut Size| -> Result<(), PipelineError> {
        *size = step.size(*size, max_pixels)?;
        steps.push(step);
        Ok(())
    };
    if orientation != Orientation::NoTransforms {
        push(Step::Orient(orientation), &mut size)?;
    }
    if let Some(crop) = transform.crop {
        push(Step::Crop(crop), &mut size)?;
    }
    if transform.rotation != 0 {
        push(Step::Rotate(transform.rotation), &mut size)?;
    }
    if transform.width.is_some() || transform.height.is_some() {
        let resize = plan_resize(size.width, size.height, transform.width, transform.height, transform.fit);
        push(Step::Resize(resize.with_gravity(transform.gravity)), &mut size)?;
    }
    if let Some(conversion) = colour {
        push(Step::ToSrgb(conversion.clone()), &mut size)?;
    }
    let gray_first = transform.gray && !transform.sharp;
    if gray_first {
        push(Step::Gray, &mut size)?;
    }
    if let Some(sigma) = transform.blur {
        push(Step::Blur(sigma), &mut size)?;
    }
    if transform.sharp {
        push(Step::Sharpen, &mut size)?;
    }
    if transform.gray && !gray_first {
        push(Step::Gray, &mut size)?;
    }
    if let Some(border) = transform.border {
        push(Step::Border(border), &mut size)?;
    }
    Ok((steps, size))
}

/// How far a JPEG is shrunk on load for `steps` (1, 2, 4 or 8): only when the resize is the first step
/// that changes the pixels' scale. A `crop` is given in full-size pixels (1 px accuracy could not survive a
/// 1/8 decode), and a rotation other than a right angle grows the canvas from the full size: either one
/// before the resize disables it. How far is the resize's to say (`resize::shrink_on_load`).
fn shrink_for(steps: &[Step]) -> u32 {
    match steps.iter().find(|step| !step.only_turns()) {
        Some(Step::Resize(plan)) => resize::shrink_on_load(plan),
        _ => 1,
    }
}

/// `format=auto`: WebP for everything (smaller than JPEG and PNG for photos and graphics alike, alpha
/// included, universally decoded, far faster to encode than AVIF, and animated where the source is, in a
/// fraction of a GIF's bytes). Never depends on the request (no `Accept` sniffing), so one URL is one
/// cacheable object.
pub(crate) const AUTO_FORMAT: OutputFormat = OutputFormat::Webp;

/// The output format of a request that names none: the source format's `default_output` (its own, where
/// it is written; BMP as PNG; HEIC and JPEG XL as JPEG, as a phone shares its photos: `format=png` or
/// `webp` keeps a transparent one's alpha).
pub(crate) fn source_output(source: SourceFormat) -> OutputFormat {
    // Every read format's default is a written one (the table's own test); PNG keeps any picture whole.
    source.media_format().info().default_output.and_then(OutputFormat::of).unwrap_or(OutputFormat::Png)
}

/// `q=auto`: the format's starting quality (its row's `auto_quality`: JPEG 80, WebP 80, AVIF 60), raised
/// by 10 for simple graphics (few distinct colours, where compression artefacts show on flat areas and hard
/// edges) and by 5 when the image has partial transparency (alpha edges). Deterministic: the same image
/// always gets the same `q`.
pub fn choose_auto_quality(image: &DynamicImage, format: OutputFormat) -> u8 {
    let base = format.media_format().info().auto_quality.unwrap_or(crate::params::DEFAULT_QUALITY);
    let mut q = base;
    if is_simple_graphic(image) {
        q += 10;
    }
    if has_partial_alpha(image) {
        q += 5;
    }
    q.min(95)
}

/// Samples a 64×64 grid: 64 or fewer distinct colours reads as a graphic, not a photo.
fn is_simple_graphic(image: &DynamicImage) -> bool {
    let (w, h) = image.dimensions();
    let mut colours = std::collections::HashSet::new();
    for gy in 0..64u32 {
        for gx in 0..64u32 {
            let x = (u64::from(gx) * u64::from(w) / 64) as u32;
            let y = (u64::from(gy) * u64::from(h) / 64) as u32;
            colours.insert(image.get_pixel(x.min(w - 1), y.min(h - 1)).0);
            if colours.len() > 64 {
                return false;
            }
        }
    }
    true
}

fn has_partial_alpha(image: &DynamicImage) -> bool {
    image.color().has_alpha() && image.to_rgba8().pixels().any(|p| p.0[3] != 255 && p.0[3] != 0)
}

/// How far a JPEG of upright size `full` is shrunk on load for `transform` (`shrink_for`).
pub fn shrink_on_load(transform: &Transform, full: Size) -> u32 {
    steps_for(transform, full, Orientation::NoTransforms, None, u64::MAX).map_or(1, |(steps, _)| shrink_for(&steps))
}

/// The size `render` gives a source whose upright size is `source`, computed without pixels by the steps
/// themselves; a `crop` outside the source is the error `render` reports for it.
pub fn output_size(transform: &Transform, source: Size) -> Result<Size, PipelineError> {
    steps_for(transform, source, Orientation::NoTransforms, None, u64::MAX).map(|(_, size)| size)
}
