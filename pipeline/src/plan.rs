//! `RenderPlan`: everything a render decides before it touches a pixel, computed once from the source's
//! headers (`Probe`), the request and the limits: the output format and quality, how far a JPEG is shrunk
//! on load, the steps the request needs in their order, which path runs them, and whether the output is
//! an animation. Every limit is checked here, so a refused request has decoded nothing.
//!
//! The order is docs/transformations.md's, "Order": orient (EXIF) → crop → rot → resize → blur → sharp →
//! gray → border → encode. `RenderPlan::steps` is that list for one request; the paths differ only in how
//! they run its first steps:
//! - *Planar JPEG* (`crate::planar::render`): a baseline 4:2:0 JPEG whose only step is a resize that
//!   scales, into a JPEG or a WebP at an explicit `q`, stays in YCbCr planes from decoder to encoder.
//! - *Planar, then RGB* (`crate::planar::resized_rgb`): such a JPEG whose first step is that resize is
//!   decoded and resized in planes and converted to RGB at the output size; the rest of the list follows.
//! - *General*: decoded (shrunk on load where `shrink` allows), then every step.
//!
//! Two shortcuts keep the order's result while doing less work: *shrink-on-load* (`shrink_on_load`), and
//! *gray first*: gray is a fixed linear mix of the channels and blur is linear per channel, so
//! gray(blur(x)) = blur(gray(x)) up to rounding; with `gray` and no `sharp` (the unsharp mask's threshold
//! is not linear) gray runs right after the resize, and the blur handles one channel, not three.

use image::{DynamicImage, GenericImageView, metadata::Orientation};
use shutterbox_model::MediaFormat;

use crate::{
    PipelineError,
    encode::OutputFormat,
    geometry::Size,
    ops,
    options::RenderOptions,
    params::{Quality, Transform},
    resize_plan::plan_resize,
    source::{Probe, SourceFormat},
    steps::Step,
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

/// Which path runs the plan's steps (the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderPath {
    Planar,
    PlanarThenRgb,
    General,
}

#[derive(Debug, Clone)]
pub struct RenderPlan {
    /// The source's upright size at full resolution.
    pub full: Size,
    pub output: OutputFormat,
    pub quality: Quality,
    /// A JPEG is decoded at 1/`shrink` of its size (1, 2, 4 or 8).
    pub shrink: u32,
    pub steps: Vec<Step>,
    pub path: RenderPath,
    /// Whether the output is an animation: an animated source into an output that animates, not asked
    /// for as a still (`anim=false`).
    pub animated: bool,
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
        let full = probe.upright();
        let size = output_size(transform, full)?;
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
        let steps = Self::steps(transform, probe, full, options)?;
        let shrink = if probe.jpeg.is_some() { shrink_on_load(transform, full) } else { 1 };
        let mut plan =
            Self { full, output, quality: transform.quality, shrink, steps, path: RenderPath::General, animated, size };
        plan.path = plan.choose_path(probe);
        Ok(plan)
    }

    /// The steps `transform` needs on an image `orientation` turns to `full`, in order. The one place that
    /// says which steps run: every path takes them from here.
    fn steps(
        transform: &Transform,
        probe: &Probe,
        full: Size,
        options: &RenderOptions,
    ) -> Result<Vec<Step>, PipelineError> {
        let mut steps = Vec::new();
        if probe.orientation != Orientation::NoTransforms {
            steps.push(Step::Orient(probe.orientation));
        }
        let (mut width, mut height) = (full.width, full.height);
        if let Some(crop) = transform.crop {
            steps.push(Step::Crop(crop));
            (width, height) = (crop.width, crop.height);
        }
        if transform.rotation != 0 {
            (width, height) = ops::rotated_size(width, height, transform.rotation);
            // A free rotation grows the canvas, beyond the source's own budget for a long thin image.
            if u64::from(width) * u64::from(height) > options.max_pixels {
                return Err(PipelineError::TooManyPixels { width, height, max_pixels: options.max_pixels });
            }
            steps.push(Step::Rotate(transform.rotation));
        }
        if transform.width.is_some() || transform.height.is_some() {
            let resize = plan_resize(width, height, transform.width, transform.height, transform.fit);
            steps.push(Step::Resize(resize.with_gravity(transform.gravity)));
        }
        if let Some(conversion) = &probe.colour {
            steps.push(Step::ToSrgb(conversion.clone()));
        }
        let gray_first = transform.gray && !transform.sharp;
        if gray_first {
            steps.push(Step::Gray);
        }
        if let Some(sigma) = transform.blur {
            steps.push(Step::Blur(sigma));
        }
        if transform.sharp {
            steps.push(Step::Sharpen);
        }
        if transform.gray && !gray_first {
            steps.push(Step::Gray);
        }
        if let Some(border) = transform.border {
            steps.push(Step::Border(border));
        }
        Ok(steps)
    }

    /// The planar paths where the source and the steps allow them (the module's documentation), else
    /// the general one.
    fn choose_path(&self, probe: &Probe) -> RenderPath {
        let planar_source = probe.jpeg.is_some_and(|layout| layout.is_ycbcr_420())
            && probe.orientation == Orientation::NoTransforms
            && !self.animated;
        let Some(Step::Resize(resize)) = self.steps.first() else { return RenderPath::General };
        // A window the scaled pixels choose needs the scaled picture whole first.
        if resize.interest.is_some() {
            return RenderPath::General;
        }
        let kept = resize.crop.map_or(resize.scaled, |rect| Size::new(rect.width, rect.height));
        if !planar_source || !resize.scales() || kept.width == 0 || kept.height == 0 {
            return RenderPath::General;
        }
        let subsampled = matches!(self.output, OutputFormat::Jpeg | OutputFormat::Webp);
        let padded = resize.padding.is_some_and(|p| !p.is_zero());
        if self.steps.len() == 1 && subsampled && !padded && matches!(self.quality, Quality::Value(_)) {
            return RenderPath::Planar;
        }
        // The decoded planes' chroma is at half the decoded size: enough for a 4:2:0 output, and for a
        // 4:4:4 one no larger than it.
        let chroma = |side: u32| side.div_ceil(self.shrink).div_ceil(2);
        let needed = |side: u32| if subsampled { side.div_ceil(2) } else { side };
        if needed(resize.scaled.width) > chroma(self.full.width)
            || needed(resize.scaled.height) > chroma(self.full.height)
        {
            return RenderPath::General;
        }
        RenderPath::PlanarThenRgb
    }

    /// The quality to encode `image` at: the request's, or `q=auto`'s choice for it.
    pub fn quality_for(&self, image: &DynamicImage) -> u8 {
        match self.quality {
            Quality::Value(q) => q,
            Quality::Auto => choose_auto_quality(image, self.output),
        }
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

/// How far a JPEG of upright size `full` may be shrunk on load (1, 2, 4 or 8) for `transform`.
///
/// - Only when the resize is the first step that changes the pixels' scale: a `crop` is given in
///   full-size pixels (1 px accuracy could not survive a 1/8 decode), and a rotation other than a right
///   angle grows the canvas from the full size; either one disables it.
/// - Like sharp (`fastShrinkOnLoad`, its default): the largest n of 8, 4, 2 not above the smaller of the
///   two shrink factors, halved when that factor's integer part equals n exactly, so the decoded image is
///   always reduced further by the resize (libjpeg's scaled sizes round up, and a resize from exactly
///   the target size would be skipped with that rounding in it).
/// - And never so far that a side of the decoded image (`ceil(side / n)`) would be smaller than the
///   plan's scaled size on that side.
pub fn shrink_on_load(transform: &Transform, full: Size) -> u32 {
    if transform.crop.is_some() || !transform.rotation.is_multiple_of(90) {
        return 1;
    }
    if transform.width.is_none() && transform.height.is_none() {
        return 1;
    }
    let (w, h) = if transform.rotation % 180 == 90 { (full.height, full.width) } else { (full.width, full.height) };
    let plan = plan_resize(w, h, transform.width, transform.height, transform.fit);
    if !plan.scales() || plan.scaled.width == 0 || plan.scaled.height == 0 {
        return 1;
    }
    let shrink = (f64::from(w) / f64::from(plan.scaled.width)).min(f64::from(h) / f64::from(plan.scaled.height));
    let mut n = [8u32, 4, 2].into_iter().find(|&n| shrink >= f64::from(n)).unwrap_or(1);
    if n > 1 && shrink.floor() as u32 == n {
        n /= 2;
    }
    while n > 1 && (w.div_ceil(n) < plan.scaled.width || h.div_ceil(n) < plan.scaled.height) {
        n /= 2;
    }
    n
}

/// The size `render` gives a source whose upright size is `source`: `crop`, then `rot`'s canvas, then the
/// resize plan (sharp's geometry), then the border. What a render must produce, computed without pixels;
/// a `crop` outside the source is the error `render` reports for it.
pub fn output_size(transform: &Transform, source: Size) -> Result<Size, PipelineError> {
    let (mut width, mut height) = (source.width, source.height);
    if let Some(crop) = transform.crop {
        if !crop.lies_inside(width, height) {
            return Err(PipelineError::CropOutside { crop, width, height });
        }
        (width, height) = (crop.width, crop.height);
    }
    (width, height) = ops::rotated_size(width, height, transform.rotation);
    let plan = plan_resize(width, height, transform.width, transform.height, transform.fit);
    let grow = transform.border.map_or(0, |b| b.width.saturating_mul(2));
    Ok(Size::new(plan.output.width.saturating_add(grow), plan.output.height.saturating_add(grow)))
}
