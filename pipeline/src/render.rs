//! `render`: source bytes + `Transform` → encoded output, in the fixed order of docs/transformations.md,
//! "Order": decode (EXIF auto-orient) → crop → rot → resize → blur → sharp → gray → border → encode. The order
//! of the request's parameters never matters.
//!
//! Shortcuts keep that order's result while doing less work:
//! - *Shrink-on-load* (`shrink_on_load`): when a JPEG is about to be scaled down at least 2×, it is
//!   decoded at 1/2, 1/4 or 1/8 size and the resize starts from there, as libvips does. The resize plan is
//!   still computed from the full-size geometry, so output sizes are exactly sharp's.
//! - *Planar JPEG* (`crate::planar`): a 4:2:0 JPEG only resized into a JPEG or a WebP stays in YCbCr
//!   planes from decoder to encoder, skipping two colour conversions and resampling chroma at half size.
//!   Resized for anything else (PNG, blur, gray…), it is decoded and resized in planes and converted to
//!   RGB at the output size (`planar::resized_rgb`), where its chroma holds the detail the output needs.
//! - *Gray first*: gray is a fixed linear mix of the channels, and blur is linear and works per channel,
//!   so gray(blur(x)) = blur(gray(x)) up to rounding; with `gray` and no `sharp` (the unsharp mask's
//!   threshold is not linear) gray runs right after the resize, and the blur handles one channel, not
//!   three.

use image::{DynamicImage, GenericImageView};

use crate::{
    PipelineError,
    decode::{SourceFormat, decode_shrunk},
    encode::{OutputFormat, encode},
    geometry::{Size, plan_resize},
    ops,
    params::{Quality, Transform},
};

/// What the output format should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A format named by `format` or by the URL's extension.
    Format(OutputFormat),
    /// `format=auto`: the service chooses (see `choose_auto_format`).
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
            Self::Format(format) => format.image_type().name(),
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "source" => Some(Self::Source),
            "auto" => Some(Self::Auto),
            other => crate::ImageType::from_name(other).and_then(OutputFormat::of).map(Self::Format),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Largest source accepted, in pixels, checked against the header before decoding.
    pub max_pixels: u64,
    /// Largest output rendered, in pixels (after `rot`'s canvas and `border`), checked before the pixels
    /// are touched.
    pub max_output_pixels: u64,
    /// Most frames an animated source may have, counted before decoding (`crate::frames`).
    pub max_frames: u32,
    /// Whether this render may use a second core (a 4:2:0 JPEG's split entropy decoding, its chroma
    /// resized beside the luma). Worth it when a core would otherwise idle; when every core has a render
    /// of its own, the split's coordination and speculative decoding are work taken from those renders.
    pub parallel: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            max_pixels: 50_000_000,
            max_output_pixels: 50_000_000,
            max_frames: crate::frames::DEFAULT_MAX_FRAMES,
            parallel: true,
        }
    }
}

impl RenderOptions {
    /// `Err` naming the limit when `transform` would make more than `max_output_pixels` of an upright
    /// `source`.
    pub(crate) fn check_output(&self, transform: &Transform, source: Size) -> Result<(), PipelineError> {
        let output = output_size(transform, source)?;
        if u64::from(output.width) * u64::from(output.height) > self.max_output_pixels {
            return Err(PipelineError::OutputTooManyPixels {
                width: output.width,
                height: output.height,
                max_pixels: self.max_output_pixels,
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    pub format: OutputFormat,
    pub width: u32,
    pub height: u32,
}

/// `format=auto`: WebP for everything (smaller than JPEG and PNG for photos and graphics alike, alpha
/// included, universally decoded, and far faster to encode than AVIF), except animated sources' GIF.
/// Never depends on the request (no `Accept` sniffing), so one URL is one cacheable object.
pub fn choose_auto_format(source: SourceFormat) -> OutputFormat {
    match source {
        SourceFormat::Gif => OutputFormat::Gif,
        _ => OutputFormat::Webp,
    }
}

pub(crate) fn source_output(source: SourceFormat) -> OutputFormat {
    match source {
        SourceFormat::Jpeg => OutputFormat::Jpeg,
        SourceFormat::Png | SourceFormat::Bmp => OutputFormat::Png,
        SourceFormat::Webp => OutputFormat::Webp,
        SourceFormat::Gif => OutputFormat::Gif,
        SourceFormat::Tiff => OutputFormat::Tiff,
        SourceFormat::Avif => OutputFormat::Avif,
    }
}

/// `q=auto`: a per-format starting quality (JPEG 80, WebP 80, AVIF 60), raised by 10 for simple graphics
/// (few distinct colours, where compression artefacts show on flat areas and hard edges) and by 5 when the
/// image has partial transparency (alpha edges). Deterministic: the same image always gets the same `q`.
pub fn choose_auto_quality(image: &DynamicImage, format: OutputFormat) -> u8 {
    let base: u8 = match format {
        OutputFormat::Avif => 60,
        _ => 80,
    };
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

/// Renders `source` with `transform` into `target`.
pub fn render(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: RenderOptions,
) -> Result<Rendered, PipelineError> {
    if let Some(rendered) = crate::planar::render(source, transform, target, &options) {
        return rendered;
    }
    render_general(source, transform, target, options)
}

/// Every request through RGB(A) pixels, step by step (`render` takes the planar JPEG path when it can).
pub(crate) fn render_general(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: RenderOptions,
) -> Result<Rendered, PipelineError> {
    let (mut image, source_format) = match crate::planar::resized_rgb(source, transform, target, &options) {
        Some(resized) => (resized?, SourceFormat::Jpeg),
        None => decode_and_resize(source, transform, &options)?,
    };
    let gray_first = transform.gray && !transform.sharp;
    if gray_first {
        image = ops::gray(&image);
    }
    if let Some(sigma) = transform.blur {
        image = ops::blur(image, sigma);
    }
    if transform.sharp {
        image = ops::sharpen(&image);
    }
    if transform.gray && !gray_first {
        image = ops::gray(&image);
    }
    if let Some(border) = transform.border {
        image = ops::border(&image, border);
    }
    let format = match target {
        Target::Format(format) => format,
        Target::Auto => choose_auto_format(source_format),
        Target::Source => source_output(source_format),
    };
    let quality = match transform.quality {
        Quality::Value(q) => q,
        Quality::Auto => choose_auto_quality(&image, format),
    };
    let bytes = encode(&image, format, quality)?;
    Ok(Rendered { bytes, format, width: image.width(), height: image.height() })
}

/// The general path's steps up to the resize: decode (shrunk on load where the plan allows), `crop`,
/// `rot`, then the resize plan computed from the geometry the spec's order sees.
pub(crate) fn decode_and_resize(
    source: &[u8],
    transform: &Transform,
    options: &RenderOptions,
) -> Result<(DynamicImage, SourceFormat), PipelineError> {
    let decoded = decode_shrunk(source, options, |full| shrink_on_load(transform, full))?;
    let (shrunk, full, source_format) = (decoded.is_shrunk(), decoded.full, decoded.format);
    options.check_output(transform, full)?;
    let mut image = decoded.image;
    if let Some(rect) = transform.crop {
        image = ops::crop(&image, rect)?;
    }
    let (rotated_w, rotated_h) = ops::rotated_size(image.width(), image.height(), transform.rotation);
    if u64::from(rotated_w) * u64::from(rotated_h) > options.max_pixels {
        return Err(PipelineError::TooManyPixels {
            width: rotated_w,
            height: rotated_h,
            max_pixels: options.max_pixels,
        });
    }
    image = ops::rotate(image, transform.rotation);
    if transform.width.is_some() || transform.height.is_some() {
        // The geometry the spec's order sees: a shrunk image stands for its full-size original (crop and
        // free rotation are excluded by `shrink_on_load`, so that is the full size turned by `rot`).
        let (w, h) = match (shrunk, transform.rotation % 180 == 90) {
            (false, _) => (image.width(), image.height()),
            (true, false) => (full.width, full.height),
            (true, true) => (full.height, full.width),
        };
        let plan = plan_resize(w, h, transform.width, transform.height, transform.fit);
        image = ops::resize(image, &plan)?;
    }
    Ok((image, source_format))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use image::{ImageFormat, Rgba, RgbaImage};

    use super::*;

    fn photo(w: u32, h: u32) -> Vec<u8> {
        let img = RgbaImage::from_fn(w, h, |x, y| Rgba([(x % 251) as u8, (y % 241) as u8, ((x * y) % 239) as u8, 255]));
        let mut out = Vec::new();
        DynamicImage::ImageRgba8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
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
