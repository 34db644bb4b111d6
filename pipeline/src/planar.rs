//! The planar JPEG path: a JPEG resized to a JPEG or a WebP without ever leaving YCbCr.
//!
//! A 4:2:0 JPEG is three planes, the chroma ones at half size, and so is the JPEG it is re-encoded to, and
//! the lossy WebP (VP8 is 4:2:0 YCbCr too; `webp_yuv` maps the planes into its studio range). The
//! general path converts to RGB after decoding (upsampling chroma to full size) and back to 4:2:0 YCbCr
//! before encoding; here libjpeg-turbo decodes (shrunk on load, as in `decode`) straight into planes, each
//! plane is resized on its own (luma to the output size, chroma to half of it, the `cover` crop folded into
//! the resize), and the planes are encoded as they are. Same geometry as the general path; the pixels
//! differ by resampling rounding only. It saves the chroma upsampling, both colour conversions and half the
//! resampling; measured when it was added (2026-11-23), libjpeg-turbo's decode of the 4000×3000 photo at 1/4
//! alone took 35.8 ms into planes against 38.5 ms into RGB.
//!
//! It applies only where nothing else happens to the pixels: a baseline 4:2:0 YCbCr JPEG with no EXIF
//! rotation, resized (`w`/`h` with `fit` other than a padded `contain`) with no other operation, to a JPEG
//! or a WebP (named, the source's own format, or `auto`'s choice) at an explicit `q`. Everything else goes
//! the general way, whose first steps (decode, resize) are still done here in planes when the resize is
//! the first change of scale (`resized_rgb`): each plane resized to the output size, then converted to
//! RGB for the steps that follow.
//!
//! Decoding at 1/4 or 1/8 goes through `split_jpeg` (entropy decoding on two threads) where the file allows,
//! else libjpeg-turbo.

use fast_image_resize::{PixelType, ResizeOptions, Resizer, images::Image, images::ImageRef};
use image::{DynamicImage, RgbImage};
use turbojpeg::{Decompressor, ScalingFactor, Subsamp, YuvImage};

use crate::{
    PipelineError,
    encode::{OutputFormat, Rendered, encode_yuv420},
    geometry::{Rect, ResizePlan, Size},
    ops::lanczos3_resize,
    options::Deadline,
    params::Quality,
    plan::RenderPlan,
    split_jpeg,
    steps::Step,
    yuv::Yuv420,
};

/// Renders `source` through the planar path the plan chose (`RenderPath::Planar`), or `None` when
/// libjpeg-turbo will not decode the file this way after all (the general path, which has its own
/// fallback decoder, then renders it and reports failures as it always has).
pub(crate) fn render(
    source: &[u8],
    plan: &RenderPlan,
    parallel: bool,
    deadline: &Deadline,
) -> Option<Result<Rendered, PipelineError>> {
    let planned = PlanarPlan::of(plan)?;
    let Quality::Value(quality) = plan.quality else { return None };
    let decoded = decode_planes(source, planned.shrink, plan.full, parallel).ok()?;
    if let Err(e) = deadline.check() {
        return Some(Err(e));
    }
    Some(resize_and_encode(&decoded, planned.scaled, planned.kept, plan.output, quality, parallel))
}

/// The first step of a plan that takes `RenderPath::PlanarThenRgb`, its resize: the JPEG decoded (shrunk
/// on load) into planes, each plane resized to the kept part of the scaled image (chroma straight from its
/// half-size plane, so it is never upsampled at the decoded size), then converted to RGB at the output
/// size, and padded as `contain` pads. What decode and resize give on the general path, within resampling
/// rounding, for a fraction of the work: at 1/4 or 1/8 the decoding is `split_jpeg`'s, and the colour
/// conversion touches only output pixels. `None` when libjpeg-turbo will not decode the file this way.
pub(crate) fn resized_rgb(
    source: &[u8],
    plan: &RenderPlan,
    parallel: bool,
) -> Option<Result<DynamicImage, PipelineError>> {
    let planned = PlanarPlan::of(plan)?;
    let decoded = decode_planes(source, planned.shrink, plan.full, parallel).ok()?;
    Some(
        resize_to_rgb(&decoded, planned.scaled, planned.kept, parallel)
            .map(|rgb| crate::ops::pad(DynamicImage::ImageRgb8(rgb), &planned.resize)),
    )
}

/// What the planar paths do for a plan whose first step is a resize: decode at 1/`shrink`, scale the planes
/// so the whole image would be `scaled`, and keep `kept` of that.
#[derive(Debug, Clone, Copy)]
struct PlanarPlan {
    shrink: usize,
    scaled: Size,
    kept: Rect,
    /// The resize all of it comes from (its padding is what `contain` adds after).
    resize: ResizePlan,
}

impl PlanarPlan {
    fn of(plan: &RenderPlan) -> Option<Self> {
        let Some(Step::Resize(resize)) = plan.steps.first() else { return None };
        let kept = resize.crop.unwrap_or(Rect { x: 0, y: 0, width: resize.scaled.width, height: resize.scaled.height });
        Some(Self { shrink: plan.shrink as usize, scaled: resize.scaled, kept, resize: *resize })
    }
}

/// A JPEG decoded (at 1/n) into libjpeg-turbo's 4:2:0 plane layout.
struct DecodedPlanes {
    /// Luma, then the two chroma planes, each row-contiguous (`align` 1).
    pixels: Vec<u8>,
    width: usize,
    height: usize,
}

/// The three planes of a `DecodedPlanes`, and their sizes.
struct PlaneViews<'a> {
    y: &'a [u8],
    u: &'a [u8],
    v: &'a [u8],
    /// Luma: the decoded size rounded up to even sides.
    luma_size: (usize, usize),
    /// Each chroma plane: half the luma's.
    chroma_size: (usize, usize),
}

impl DecodedPlanes {
    fn planes(&self) -> Result<PlaneViews<'_>, PipelineError> {
        let luma_size = (self.width.next_multiple_of(2), self.height.next_multiple_of(2));
        let chroma_size = (luma_size.0 / 2, luma_size.1 / 2);
        let (luma_len, chroma_len) = (luma_size.0 * luma_size.1, chroma_size.0 * chroma_size.1);
        if self.pixels.len() != luma_len + 2 * chroma_len {
            return Err(PipelineError::Internal("unexpected YUV plane layout".into()));
        }
        let (y, chroma) = self.pixels.split_at(luma_len);
        let (u, v) = chroma.split_at(chroma_len);
        Ok(PlaneViews { y, u, v, luma_size, chroma_size })
    }
}

impl PlaneViews<'_> {
    /// Runs `luma` (the luma plane's resize) and resizes `chroma_window` of both chroma planes into
    /// `outputs` (each `output_size`): the chroma beside the luma on rayon's pool when `parallel` (half the
    /// luma's work together), else after it.
    fn resize(
        &self,
        luma: impl FnOnce() -> Result<(), PipelineError> + Send,
        chroma_window: Window,
        [u_out, v_out]: [&mut [u8]; 2],
        output_size: (usize, usize),
        parallel: bool,
    ) -> Result<(), PipelineError> {
        let mut chroma = || {
            let mut resizer = Resizer::new();
            resize_plane(&mut resizer, self.u, self.chroma_size, chroma_window, u_out, output_size)?;
            resize_plane(&mut resizer, self.v, self.chroma_size, chroma_window, v_out, output_size)
        };
        let (luma, chroma) = if parallel { rayon::join(luma, chroma) } else { (luma(), chroma()) };
        luma.and(chroma)
    }
}

fn decode_planes(source: &[u8], shrink: usize, full: Size, parallel: bool) -> Result<DecodedPlanes, turbojpeg::Error> {
    let factor = if shrink > 1 { ScalingFactor::new(1, shrink) } else { ScalingFactor::ONE };
    let (width, height) = (factor.scale(full.width as usize), factor.scale(full.height as usize));
    // At 1/4 and 1/8, where entropy decoding is nearly all the work, two threads share it when there is a
    // core to spare (one otherwise: the same decoder, so the same pixels whatever the load).
    if matches!(shrink, 4 | 8)
        && let Some(planes) = split_jpeg::decode(source, shrink, parallel)
        && (planes.width, planes.height) == (width, height)
    {
        return Ok(DecodedPlanes { pixels: planes.pixels, width, height });
    }
    let mut decompressor = Decompressor::new()?;
    decompressor.read_header(source)?;
    decompressor.set_scaling_factor(factor)?;
    let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(width, 1, height, Subsamp::Sub2x2)?];
    let image = YuvImage { pixels: &mut pixels[..], width, align: 1, height, subsamp: Subsamp::Sub2x2 };
    decompressor.decompress_to_yuv(source, image)?;
    Ok(DecodedPlanes { pixels, width, height })
}

/// Scales each plane so the full image would be `scaled`, keeps `crop` of that, and encodes the planes as
/// `format` (JPEG or WebP, both 4:2:0) at `quality`.
fn resize_and_encode(
    decoded: &DecodedPlanes,
    scaled: Size,
    crop: Rect,
    format: OutputFormat,
    quality: u8,
    parallel: bool,
) -> Result<Rendered, PipelineError> {
    let (dw, dh) = (decoded.width, decoded.height);

    // libjpeg-turbo's 4:2:0 planes: luma padded to even sides, chroma half of that (`tj3YUVPlaneWidth`).
    let (ow, oh) = (crop.width as usize, crop.height as usize);
    let (oyw, oyh) = (ow.next_multiple_of(2), oh.next_multiple_of(2));
    let (cow, coh) = (oyw / 2, oyh / 2);
    let planes = decoded.planes()?;
    let mut output = vec![0u8; oyw * oyh + 2 * cow * coh];
    let (output_y, output_chroma) = output.split_at_mut(oyw * oyh);
    let (output_u, output_v) = output_chroma.split_at_mut(cow * coh);
    let (luma_window, chroma_window) = plane_windows((dw, dh), planes.luma_size, scaled, crop);
    planes.resize(
        || resize_luma(planes.y, planes.luma_size, luma_window, output_y, (ow, oh), oyw),
        chroma_window,
        [output_u, output_v],
        (cow, coh),
        parallel,
    )?;
    let picture = Yuv420 { pixels: &output, width: crop.width, height: crop.height };
    let bytes = encode_yuv420(&picture, format, quality)?;
    Ok(Rendered { bytes, format, width: crop.width, height: crop.height })
}

/// Scales each plane so the full image would be `scaled`, keeps `crop` of that, all three planes at the
/// output size, and converts the result to RGB.
fn resize_to_rgb(decoded: &DecodedPlanes, scaled: Size, crop: Rect, parallel: bool) -> Result<RgbImage, PipelineError> {
    let planes = decoded.planes()?;
    let (ow, oh) = (crop.width as usize, crop.height as usize);
    let (luma_window, chroma_window) =
        full_size_windows((decoded.width, decoded.height), planes.chroma_size, scaled, crop);
    let mut resized = vec![0u8; 3 * ow * oh];
    let (y, chroma) = resized.split_at_mut(ow * oh);
    let (u, v) = chroma.split_at_mut(ow * oh);
    planes.resize(
        || resize_plane(&mut Resizer::new(), planes.y, planes.luma_size, luma_window, y, (ow, oh)),
        chroma_window,
        [u, v],
        (ow, oh),
        parallel,
    )?;
    let (y, chroma) = resized.split_at(ow * oh);
    let (u, v) = chroma.split_at(ow * oh);
    let mut rgb = vec![0u8; 3 * ow * oh];
    ycbcr_to_rgb(y, u, v, &mut rgb);
    RgbImage::from_raw(crop.width, crop.height, rgb)
        .ok_or_else(|| PipelineError::Internal("RGB buffer size mismatch".into()))
}

/// JFIF's YCbCr → RGB, in libjpeg's fixed point (16 fractional bits, rounded).
fn ycbcr_to_rgb(y: &[u8], cb: &[u8], cr: &[u8], rgb: &mut [u8]) {
    let clamp = |v: i32| v.clamp(0, 255) as u8;
    for (((pixel, &y), &cb), &cr) in rgb.chunks_exact_mut(3).zip(y).zip(cb).zip(cr) {
        let (y, cb, cr) = (i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128);
        pixel[0] = clamp(y + ((91_881 * cr + 32_768) >> 16));
        pixel[1] = clamp(y + ((-22_554 * cb - 46_802 * cr + 32_768) >> 16));
        pixel[2] = clamp(y + ((116_130 * cb + 32_768) >> 16));
    }
}

/// Resizes the luma plane into `output`, rows `padded_width` apart: libjpeg-turbo pads luma to even sides,
/// and for an odd side the encoder reads that padding too, so it repeats the last column or row.
fn resize_luma(
    source: &[u8],
    source_size: (usize, usize),
    window: Window,
    output: &mut [u8],
    (ow, oh): (usize, usize),
    padded_width: usize,
) -> Result<(), PipelineError> {
    let mut resizer = Resizer::new();
    if output.len() == ow * oh {
        return resize_plane(&mut resizer, source, source_size, window, output, (ow, oh));
    }
    let mut luma = vec![0u8; ow * oh];
    resize_plane(&mut resizer, source, source_size, window, &mut luma, (ow, oh))?;
    for (row, padded) in output.chunks_exact_mut(padded_width).enumerate() {
        let line = &luma[row.min(oh - 1) * ow..][..ow];
        padded[..ow].copy_from_slice(line);
        padded[ow..].fill(line[ow - 1]);
    }
    Ok(())
}

/// A part of a source plane, in (fractional) source pixels, that lies inside the plane: built only by
/// `Window::inside`, so fast_image_resize's crop-box check (`left + width <= plane width`, in f64) holds
/// for every window handed to it, whatever rounding went into computing it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

impl Window {
    /// The span `[start, end)` on each axis, each clamped into `[0, plane side]`; a span that computes
    /// beyond the plane (float rounding, an odd side's extra chroma sample) is cut at its edge.
    fn inside(plane: (usize, usize), (left, right): (f64, f64), (top, bottom): (f64, f64)) -> Self {
        let (left, width) = span_inside(left, right, plane.0 as f64);
        let (top, height) = span_inside(top, bottom, plane.1 as f64);
        Self { left, top, width, height }
    }

    fn fits(&self, plane: (usize, usize)) -> bool {
        let (pw, ph) = (plane.0 as f64, plane.1 as f64);
        self.left >= 0.0
            && self.top >= 0.0
            && self.width > 0.0
            && self.height > 0.0
            && self.left < pw
            && self.top < ph
            && self.left + self.width <= pw
            && self.top + self.height <= ph
    }
}

/// `(start, length)` of `[start, end)` clamped into `[0, limit)`, with `start + length <= limit` as f64
/// computes it (the sum can round up past `limit` even when the exact values do not reach it) and a
/// length of at least the smallest positive step, so the span is never empty.
fn span_inside(start: f64, end: f64, limit: f64) -> (f64, f64) {
    let start = if start.is_finite() { start.clamp(0.0, (limit - 1.0).max(0.0)) } else { 0.0 };
    let end = if end.is_finite() { end.min(limit) } else { limit };
    let mut length = (end - start).max(f64::MIN_POSITIVE);
    while start + length > limit {
        length = length.next_down();
    }
    (start, length)
}

/// Where the kept part (`crop`) of the scaled image (`scaled`) lies in the decoded planes: the luma window
/// in the `decoded`-sized picture (whose plane is `padded`, even-sided), the chroma window in the half-size
/// chroma planes. Pure arithmetic, and both windows lie inside their planes for every input.
fn plane_windows(decoded: (usize, usize), padded: (usize, usize), scaled: Size, crop: Rect) -> (Window, Window) {
    let ((left, right), (top, bottom)) = kept_span(decoded, scaled, crop);
    let (dw, dh) = (decoded.0 as f64, decoded.1 as f64);
    let (sw, sh) = (f64::from(scaled.width.max(1)), f64::from(scaled.height.max(1)));
    let luma = Window::inside(decoded, (left, right), (top, bottom));
    // Chroma samples sit at half the luma resolution; an odd output side still gets a whole chroma sample
    // for its last luma column or row, whose centre lies that much further into the source (and is cut
    // at the plane's edge when there is no more source).
    let (cow, coh) = (f64::from(crop.width.div_ceil(2)), f64::from(crop.height.div_ceil(2)));
    let chroma_plane = (padded.0 / 2, padded.1 / 2);
    let chroma =
        Window::inside(chroma_plane, (left / 2.0, left / 2.0 + cow * dw / sw), (top / 2.0, top / 2.0 + coh * dh / sh));
    (luma, chroma)
}

/// Where the kept part (`crop`) of the scaled image (`scaled`) lies in the decoded planes when every
/// plane is resized to the output size: the luma window as in `plane_windows`, the chroma window the same
/// span at half scale (a chroma sample covers two luma samples each way, centred between them, as JFIF
/// sites it). Both lie inside their planes for every input.
fn full_size_windows(
    decoded: (usize, usize),
    chroma_plane: (usize, usize),
    scaled: Size,
    crop: Rect,
) -> (Window, Window) {
    let ((left, right), (top, bottom)) = kept_span(decoded, scaled, crop);
    let luma = Window::inside(decoded, (left, right), (top, bottom));
    let chroma = Window::inside(chroma_plane, (left / 2.0, right / 2.0), (top / 2.0, bottom / 2.0));
    (luma, chroma)
}

/// The kept part (`crop`) of the scaled image (`scaled`) in the `decoded`-sized picture's coordinates:
/// `(left, right)` and `(top, bottom)`, unclamped.
fn kept_span(decoded: (usize, usize), scaled: Size, crop: Rect) -> ((f64, f64), (f64, f64)) {
    let (dw, dh) = (decoded.0 as f64, decoded.1 as f64);
    let (sw, sh) = (f64::from(scaled.width.max(1)), f64::from(scaled.height.max(1)));
    // Each edge is one product and one division, so an edge at the scaled image's border maps exactly onto
    // the decoded image's (`dw * sw / sw == dw`), not a rounding error past it.
    let x_at = |x: u32| dw * f64::from(x) / sw;
    let y_at = |y: u32| dh * f64::from(y) / sh;
    ((x_at(crop.x), x_at(crop.x.saturating_add(crop.width))), (y_at(crop.y), y_at(crop.y.saturating_add(crop.height))))
}

/// Lanczos3, as the general path's resize, from `window` of one 8-bit plane to a whole output plane.
fn resize_plane(
    resizer: &mut Resizer,
    source: &[u8],
    (sw, sh): (usize, usize),
    window: Window,
    output: &mut [u8],
    (ow, oh): (usize, usize),
) -> Result<(), PipelineError> {
    let failed = |e: &dyn std::fmt::Display| PipelineError::Internal(format!("resize failed: {e}"));
    if !window.fits((sw, sh)) {
        return Err(failed(&format_args!("{window:?} is not inside the {sw}x{sh} plane")));
    }
    let source = ImageRef::new(sw as u32, sh as u32, source, PixelType::U8).map_err(|e| failed(&e))?;
    let mut target = Image::from_slice_u8(ow as u32, oh as u32, output, PixelType::U8).map_err(|e| failed(&e))?;
    let options =
        ResizeOptions::new().resize_alg(lanczos3_resize()).crop(window.left, window.top, window.width, window.height);
    resizer.resize(&source, &mut target, &options).map_err(|e| failed(&e))
}

#[cfg(test)]
mod tests {
    use image::{DynamicImage, Rgb, RgbImage};

    use super::*;
    use crate::{
        options::RenderOptions,
        params::{Fit, Transform},
        plan::{RenderPath, Target},
        source::{Probe, SourceFormat},
    };

    /// The plan for `transform` of `source`, when it takes one of `paths`.
    fn plan_taking(
        source: &[u8],
        transform: &Transform,
        target: Target,
        options: &RenderOptions,
        paths: &[RenderPath],
    ) -> Option<RenderPlan> {
        let probe = Probe::read(source, options).ok()?;
        RenderPlan::new(&probe, transform, target, options).ok().filter(|plan| paths.contains(&plan.path))
    }

    /// What the planar paths would do for `transform` on a JPEG of `full` size, when the resize scales.
    fn planned(transform: &Transform, full: Size) -> Option<PlanarPlan> {
        let resize =
            crate::geometry::plan_resize(full.width, full.height, transform.width, transform.height, transform.fit)
                .with_gravity(transform.gravity);
        let kept = resize.crop.unwrap_or(Rect { x: 0, y: 0, width: resize.scaled.width, height: resize.scaled.height });
        if !resize.scales() || kept.width == 0 || kept.height == 0 {
            return None;
        }
        let shrink = crate::plan::shrink_on_load(transform, full) as usize;
        Some(PlanarPlan { shrink, scaled: resize.scaled, kept, resize })
    }

    /// The planar render, when the plan takes it.
    fn render_planar(
        source: &[u8],
        transform: &Transform,
        target: Target,
        options: &RenderOptions,
    ) -> Option<Result<Rendered, PipelineError>> {
        let plan = plan_taking(source, transform, target, options, &[RenderPath::Planar])?;
        render(source, &plan, options.parallel, &Deadline::of(options, &crate::Cancellation::new()))
    }

    /// The planar steps into RGB, when the plan takes a planar path (both start with them).
    fn rgb_steps(
        source: &[u8],
        transform: &Transform,
        target: Target,
        options: &RenderOptions,
    ) -> Option<Result<DynamicImage, PipelineError>> {
        let plan = plan_taking(source, transform, target, options, &[RenderPath::Planar, RenderPath::PlanarThenRgb])?;
        resized_rgb(source, &plan, options.parallel)
    }

    fn jpeg(w: u32, h: u32, subsamp: Subsamp) -> Vec<u8> {
        let image = RgbImage::from_fn(w, h, |x, y| {
            Rgb([
                ((x * 255) / w) as u8,
                ((y * 255) / h) as u8,
                (128.0 + 100.0 * (x as f32 / 37.0).sin() * (y as f32 / 23.0).cos()) as u8,
            ])
        });
        crate::test_jpeg::encode(&image, 95, subsamp)
    }

    fn general(source: &[u8], query: &str) -> DynamicImage {
        general_as(source, query, Target::Source)
    }

    fn general_as(source: &[u8], query: &str, target: Target) -> DynamicImage {
        let transform = Transform::from_query(query).unwrap();
        let rendered = crate::render::render_general(source, &transform, target, RenderOptions::default());
        crate::decode::decode(&rendered.unwrap().bytes, u64::MAX).unwrap().0
    }

    fn planar(source: &[u8], query: &str) -> Option<Rendered> {
        planar_as(source, query, Target::Source)
    }

    fn planar_as_result(source: &[u8], query: &str, target: Target) -> Result<Rendered, PipelineError> {
        render_planar(source, &Transform::from_query(query).unwrap(), target, &RenderOptions::default())
            .unwrap_or_else(|| panic!("{query} as {target:?} qualifies"))
    }

    fn planar_as(source: &[u8], query: &str, target: Target) -> Option<Rendered> {
        render_planar(source, &Transform::from_query(query).unwrap(), target, &RenderOptions::default())
            .map(Result::unwrap)
    }

    /// Mean absolute difference per sample between two same-sized images.
    fn mean_difference(a: &[u8], b: &[u8]) -> f64 {
        assert_eq!(a.len(), b.len());
        let total: u64 = a.iter().zip(b).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
        total as f64 / a.len() as f64
    }

    /// JPEG and WebP (asked by name, by `auto`, or as the source's own format) from the planes give what
    /// the general path gives through RGB: the same size, the same format, the same pixels within
    /// resampling and coding rounding.
    #[test]
    fn matches_the_general_path_for_every_fit_and_odd_sizes() {
        let source = jpeg(1001, 667, Subsamp::Sub2x2);
        let targets = [
            (Target::Source, OutputFormat::Jpeg),
            (Target::Format(OutputFormat::Jpeg), OutputFormat::Jpeg),
            (Target::Format(OutputFormat::Webp), OutputFormat::Webp),
            (Target::Auto, OutputFormat::Webp),
        ];
        for (target, format) in targets {
            for query in [
                "w=300",
                "h=111",
                "w=200&h=200&fit=cover",
                "w=200&h=200&gravity=east",
                "w=300&h=90&gravity=southwest",
                "w=151&h=75&fit=fill",
                "w=99&h=99&fit=inside",
                "w=17",
                "h=1",
            ] {
                let query = format!("{query}&q=90");
                let rendered = planar_as(&source, &query, target).unwrap_or_else(|| panic!("{query} qualifies"));
                assert_eq!(rendered.format, format, "{query} as {target:?}");
                let sniffed = if format == OutputFormat::Jpeg { SourceFormat::Jpeg } else { SourceFormat::Webp };
                assert_eq!(SourceFormat::detect(&rendered.bytes), Some(sniffed), "{query} as {target:?}");
                let ours = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0;
                let reference = general_as(&source, &query, target);
                assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
                assert_eq!((rendered.width, rendered.height), (ours.width(), ours.height()), "{query}");
                // Luma is resampled alike on both paths (a misplaced window shows here); chroma differs
                // more, as the general path resamples it at full size between an upsampling and a
                // downsampling.
                // VP8 codes the two paths' slightly different inputs less alike than JPEG does at the smallest
                // sizes (w=17: 2.4 luma, 6.0 RGB).
                let (luma_bound, rgb_bound) = if format == OutputFormat::Jpeg { (2.0, 6.0) } else { (3.0, 8.0) };
                let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
                let rgb = mean_difference(ours.to_rgb8().as_raw(), reference.to_rgb8().as_raw());
                assert!(
                    luma < luma_bound && rgb < rgb_bound,
                    "{query} as {target:?}: mean difference {luma:.2} (luma), {rgb:.2} (RGB)"
                );
            }
        }
    }

    /// Every output size from 1×1 up, odd and even, each side on its own: the WebP made from the planes
    /// decodes to the requested size and to the picture the JPEG made from the same planes decodes to,
    /// within the two codecs' rounding at q 95 (a plane read with a wrong stride, chroma of the wrong size
    /// or range shows as a shift or a shear of tens of levels).
    #[test]
    fn webp_from_the_planes_has_every_size_and_the_jpegs_pixels() {
        let source = jpeg(160, 120, Subsamp::Sub2x2);
        let mut checked = 0;
        for (w, h) in (1..=40).map(|w| (w, 0)).chain((1..=30).map(|h| (0, h))) {
            let query = if w > 0 { format!("w={w}&q=95") } else { format!("h={h}&q=95") };
            let decoded = |format| {
                let rendered = planar_as(&source, &query, Target::Format(format))
                    .unwrap_or_else(|| panic!("{query} as {format:?} qualifies"));
                let image = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0.to_rgb8();
                assert_eq!((rendered.width, rendered.height), image.dimensions(), "{query} as {format:?}");
                image
            };
            let (webp, jpeg) = (decoded(OutputFormat::Webp), decoded(OutputFormat::Jpeg));
            let lossless = general_as(&source, &query, Target::Format(OutputFormat::Png)).to_rgb8();
            assert_eq!(webp.dimensions(), lossless.dimensions(), "{query}");
            let difference = mean_difference(webp.as_raw(), jpeg.as_raw());
            // Below 4 px a side, the two decoders' chroma upsampling (one or two chroma samples across)
            // differs by more than the coding does: 8.6 and 15.2 at 3×2 and 4×3, as between the general
            // path's WebP and JPEG.
            let bound = if webp.width().min(webp.height()) >= 4 { 3.0 } else { 20.0 };
            assert!(difference < bound, "{query}: the WebP is {difference:.2} from the JPEG of the same planes");
            checked += 1;
        }
        assert_eq!(checked, 70);
    }

    /// The RGB planar steps give what decoding to RGB and resizing gives: same size, same pixels within
    /// resampling rounding (chroma is resampled once from its half-size plane rather than upsampled
    /// first), for every fit, padded `contain` included, odd sides, and every shrink-on-load factor.
    #[test]
    fn the_rgb_steps_match_decoding_to_rgb_then_resizing() {
        let large = crate::test_jpeg::photo(1600, 1200, 90);
        let odd = jpeg(1001, 667, Subsamp::Sub2x2);
        for (source, query) in [
            (&odd, "w=300"),
            (&odd, "h=111"),
            (&odd, "w=200&h=200&fit=cover"),
            (&odd, "w=151&h=75&fit=fill"),
            (&odd, "w=99&h=99&fit=inside"),
            (&odd, "w=120&h=120&fit=contain"),
            (&odd, "w=17"),
            (&odd, "w=900&h=300&fit=outside"),
            (&large, "w=400"),
            (&large, "w=150&h=150&fit=cover"),
            (&large, "w=150&h=150&gravity=northwest"),
            (&large, "w=300&h=60&gravity=south"),
            (&odd, "w=90&h=150&gravity=fp:0.9,0.1"),
            (&large, "w=700&h=100&fit=contain"),
            (&large, "w=1000"),
        ] {
            let transform = Transform::from_query(query).unwrap();
            for parallel in [false, true] {
                let options = RenderOptions { parallel, ..RenderOptions::default() };
                let ours = rgb_steps(source, &transform, Target::Format(OutputFormat::Webp), &options)
                    .unwrap_or_else(|| panic!("{query} qualifies"))
                    .unwrap();
                let reference = crate::render::decode_and_resize(source, &transform, &options).unwrap();
                assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
                assert_eq!(ours.color(), reference.color(), "{query}");
                let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
                let rgb = mean_difference(ours.to_rgba8().as_raw(), reference.to_rgba8().as_raw());
                assert!(luma < 2.0 && rgb < 4.0, "{query}: mean difference {luma:.2} (luma), {rgb:.2} (RGBA)");
            }
        }
        // Not taken: a crop, a rotation, no resize, another subsampling.
        let webp = Target::Format(OutputFormat::Webp);
        for query in [
            "w=100&crop=0,0,100,100",
            "w=100&rot=90",
            "q=50",
            "blur=2",
            "w=100&h=100&gravity=attention",
            "w=100&h=100&gravity=entropy",
        ] {
            let transform = Transform::from_query(query).unwrap();
            assert!(rgb_steps(&odd, &transform, webp, &RenderOptions::default()).is_none(), "{query}");
        }
        let four_four_four = jpeg(300, 200, Subsamp::None);
        let transform = Transform::from_query("w=100").unwrap();
        assert!(rgb_steps(&four_four_four, &transform, webp, &RenderOptions::default()).is_none());
        // A 4:4:4 output needs chroma at its full size: taken only at most half the decoded size.
        let png = Target::Format(OutputFormat::Png);
        let at =
            |query: &str| rgb_steps(&large, &Transform::from_query(query).unwrap(), png, &RenderOptions::default());
        assert!(at("w=100&h=100&fit=cover").is_none(), "1/8: 200x150 decoded, 133x100 scaled");
        assert!(at("w=120").is_none(), "1/8: 200x150 decoded, 120x90");
        assert!(at("w=100").is_some_and(|r| r.is_ok()), "1/8: 200x150 decoded, 100x75");
    }

    #[test]
    fn a_webp_beyond_its_side_limit_is_the_requests_error_on_this_path_too() {
        // `w` stops at 5000, but `h` alone on a panorama makes a wider output: 20000×16 → 18750×15.
        let panorama = jpeg(20_000, 16, Subsamp::Sub2x2);
        let webp = Target::Format(OutputFormat::Webp);
        let refused = planar_as_result(&panorama, "h=15&q=80", webp);
        assert!(
            matches!(refused, Err(ref e @ PipelineError::OutputTooLarge { max_side: 16_383, .. }) if e.is_client_error()),
            "{refused:?}"
        );
        // 20000×16 → 16250×13 fits.
        let rendered = planar_as_result(&panorama, "h=13&q=80", webp).unwrap();
        assert_eq!((rendered.width, rendered.height, rendered.format), (16_250, 13, OutputFormat::Webp));
    }

    #[test]
    fn a_large_jpeg_decoded_on_two_threads_matches_the_general_path() {
        let source = crate::test_jpeg::photo(1600, 1200, 90);
        assert!(
            crate::split_jpeg::splits(&source),
            "{} bytes: big enough for the entropy decoding to be split",
            source.len()
        );
        // 1/4 and 1/8 on load.
        for query in ["w=400&q=85", "w=150&h=150&fit=cover&q=85"] {
            let rendered = planar(&source, query).unwrap_or_else(|| panic!("{query} qualifies"));
            let ours = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0;
            let reference = general(&source, query);
            assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
            let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
            assert!(luma < 2.0, "{query}: mean luma difference {luma:.2}");
        }
    }

    #[test]
    fn one_core_or_two_the_output_is_the_same() {
        let source = crate::test_jpeg::photo(1600, 1200, 90);
        let single = RenderOptions { parallel: false, ..RenderOptions::default() };
        for target in [Target::Source, Target::Format(OutputFormat::Webp)] {
            for query in ["w=400&q=85", "w=150&h=150&fit=cover&q=85", "w=801&q=70", "h=97&q=90"] {
                let transform = Transform::from_query(query).unwrap();
                let two = render_planar(&source, &transform, target, &RenderOptions::default()).unwrap().unwrap();
                let one = render_planar(&source, &transform, target, &single).unwrap().unwrap();
                assert!(one.bytes == two.bytes, "{query} as {target:?}: the single-core render differs");
            }
        }
    }

    /// The windows of every request the planar path takes lie inside their planes: every `w` and every `h`
    /// from 1 to a band past each side, on sources of every shape (odd, extreme, the sizes that failed), at
    /// every shrink-on-load factor those requests choose, plus seeded random boxes of every fit. Pure
    /// arithmetic, the same as `render` does before touching a pixel.
    #[test]
    fn every_window_lies_inside_its_plane() {
        let fits = [Fit::Cover, Fit::Contain, Fit::Fill, Fit::Inside, Fit::Outside];
        let mut checked = 0u64;
        let mut check = |full: Size, transform: &Transform| {
            let Some(planned) = planned(transform, full) else { return };
            let factor = ScalingFactor::new(1, planned.shrink);
            let decoded = (factor.scale(full.width as usize), factor.scale(full.height as usize));
            let padded = (decoded.0.next_multiple_of(2), decoded.1.next_multiple_of(2));
            let (luma, chroma) = plane_windows(decoded, padded, planned.scaled, planned.kept);
            let context = || format!("{}x{} {transform:?} {planned:?}: {luma:?} {chroma:?}", full.width, full.height);
            assert!(luma.fits(decoded), "luma: {}", context());
            assert!(chroma.fits((padded.0 / 2, padded.1 / 2)), "chroma: {}", context());
            let (luma, chroma) = full_size_windows(decoded, (padded.0 / 2, padded.1 / 2), planned.scaled, planned.kept);
            assert!(luma.fits(decoded), "luma at full size: {}", context());
            assert!(chroma.fits((padded.0 / 2, padded.1 / 2)), "chroma at full size: {}", context());
            checked += 1;
        };
        let sources = [
            (1200, 800),
            (4000, 3000),
            (500, 5000),
            (1201, 799),
            (4001, 2999),
            (17, 4999),
            (4999, 9),
            (3, 1),
            (1, 1),
            (2, 2),
            (640, 427),
            (6000, 4000),
        ];
        for (w, h) in sources {
            let full = Size::new(w, h);
            for side in 1..=w + 64 {
                check(full, &Transform { width: Some(side), ..Transform::default() });
            }
            for side in 1..=h + 64 {
                check(full, &Transform { height: Some(side), ..Transform::default() });
            }
        }
        let mut state = 0x5eed_u64;
        let mut next = |n: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(n)) as u32
        };
        for _ in 0..400_000 {
            let full = Size::new(1 + next(6000), 1 + next(6000));
            let side = |n: u32, next: &mut dyn FnMut(u32) -> u32| (next(4) != 0).then(|| 1 + next(n));
            let width = side(full.width + 64, &mut next);
            let height = side(full.height + 64, &mut next);
            let fit = fits[next(5) as usize];
            let gravity = crate::gravity::Gravity::parse(
                ["center", "north", "southeast", "west", "fp:0.9,0.05"][next(5) as usize],
            )
            .unwrap_or_default();
            check(full, &Transform { width, height, fit, gravity, ..Transform::default() });
        }
        assert!(checked > 300_000, "{checked} windows checked");
    }

    #[test]
    fn anything_else_takes_the_general_path() {
        let source = jpeg(400, 300, Subsamp::Sub2x2);
        for query in [
            "w=100&q=auto",
            "w=100&gray=true",
            "w=100&blur=2",
            "w=100&sharp=true",
            "w=100&rot=90",
            "w=100&crop=0,0,100,100",
            "w=100&border=2_000000",
            "w=100&h=100&fit=contain",
            "q=50",
            "w=1000",
        ] {
            assert!(planar(&source, query).is_none(), "{query}");
        }
        let q = Transform::from_query("w=100").unwrap();
        for format in [OutputFormat::Png, OutputFormat::Avif, OutputFormat::Gif, OutputFormat::Tiff] {
            assert!(
                render_planar(&source, &q, Target::Format(format), &RenderOptions::default()).is_none(),
                "{format:?}"
            );
        }
        assert!(render_planar(&jpeg(400, 300, Subsamp::None), &q, Target::Source, &RenderOptions::default()).is_none());
        let budget =
            |max_pixels, max_output_pixels| RenderOptions { max_pixels, max_output_pixels, ..RenderOptions::default() };
        assert!(
            render_planar(&source, &q, Target::Source, &budget(1_000, u64::MAX)).is_none(),
            "over the pixel budget"
        );
        assert!(
            render_planar(&source, &q, Target::Source, &budget(u64::MAX, 1_000)).is_none(),
            "over the output budget"
        );
    }
}
