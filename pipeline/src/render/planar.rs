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
//! else libjpeg-turbo, else (a file libjpeg-turbo refuses) the general decoder, whose pixels are turned
//! into planes: the plan chose this path from the headers, and it never hands the render back.

use fast_image_resize::{PixelType, ResizeOptions, Resizer, images::Image, images::ImageRef};
use image::{DynamicImage, RgbImage};
use turbojpeg::{Decompressor, ScalingFactor, Subsamp, YuvImage};

use crate::{
    PipelineError,
    codecs::split_jpeg,
    codecs::yuv::Yuv420,
    decode::decode_pixels,
    encode::{OutputFormat, Rendered, encode_yuv420},
    geometry::{Rect, Size},
    options::{Deadline, RenderOptions},
    resample::lanczos3_resize,
    source::Probe,
    steps::resize::{self, ResizePlan},
};

/// Renders `source` (a baseline 4:2:0 JPEG by its headers, `probe`) as `planned` says, into `format` (JPEG
/// or WebP) at `quality`: the whole render of `RenderPath::Planar`.
pub(crate) fn render(
    source: &[u8],
    probe: &Probe,
    planned: &PlanarResize,
    (format, quality): (OutputFormat, u8),
    options: &RenderOptions,
    deadline: &Deadline,
) -> Result<Rendered, PipelineError> {
    let decoded = decode_planes(source, probe, planned.shrink, options)?;
    deadline.check()?;
    resize_and_encode(&decoded, planned.scaled, planned.kept, format, quality, options.parallel)
}

/// The first step of a plan that takes `RenderPath::PlanarThenRgb`, its resize: the JPEG decoded (shrunk
/// on load) into planes, each plane resized to the kept part of the scaled image (chroma straight from its
/// half-size plane, so it is never upsampled at the decoded size), then converted to RGB at the output
/// size, and padded as `contain` pads. What decode and resize give on the general path, within resampling
/// rounding, for a fraction of the work: at 1/4 or 1/8 the decoding is `split_jpeg`'s, and the colour
/// conversion touches only output pixels.
pub(crate) fn resized_rgb(
    source: &[u8],
    probe: &Probe,
    planned: &PlanarResize,
    options: &RenderOptions,
) -> Result<DynamicImage, PipelineError> {
    let decoded = decode_planes(source, probe, planned.shrink, options)?;
    let rgb = resize_to_rgb(&decoded, planned.scaled, planned.kept, options.parallel)?;
    Ok(resize::pad(DynamicImage::ImageRgb8(rgb), &planned.resize))
}

/// What the planar paths do for a plan whose first step is a resize: decode at 1/`shrink`, scale the planes
/// so the whole image would be `scaled`, and keep `kept` of that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlanarResize {
    shrink: u32,
    scaled: Size,
    kept: Rect,
    /// The resize all of it comes from (its padding is what `contain` adds after).
    resize: ResizePlan,
}

impl PlanarResize {
    /// The planar form of `resize`, for a JPEG decoded at 1/`shrink`.
    pub(crate) fn new(resize: &ResizePlan, shrink: u32) -> Self {
        let kept = resize.crop.unwrap_or(Rect { x: 0, y: 0, width: resize.scaled.width, height: resize.scaled.height });
        Self { shrink, scaled: resize.scaled, kept, resize: *resize }
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

/// The JPEG's planes at 1/`shrink` (1, 2, 4 or 8): `split_jpeg`'s at 1/4 and 1/8 where the file allows,
/// else libjpeg-turbo's. A file libjpeg-turbo refuses (a truncated or corrupt one: it reports any warning
/// as a failure) is read by the general decoder instead and turned into planes, so the path the plan chose
/// still renders it, as the general path would have.
fn decode_planes(
    source: &[u8],
    probe: &Probe,
    shrink: u32,
    options: &RenderOptions,
) -> Result<DecodedPlanes, PipelineError> {
    let shrink_by = shrink as usize;
    let factor = if shrink_by > 1 { ScalingFactor::new(1, shrink_by) } else { ScalingFactor::ONE };
    let full = probe.stored;
    let (width, height) = (factor.scale(full.width as usize), factor.scale(full.height as usize));
    // At 1/4 and 1/8, where entropy decoding is nearly all the work, two threads share it when there is a
    // core to spare (one otherwise: the same decoder, so the same pixels whatever the load).
    if matches!(shrink_by, 4 | 8)
        && let Some(planes) = split_jpeg::decode(source, shrink_by, options.parallel)
        && (planes.width, planes.height) == (width, height)
    {
        return Ok(DecodedPlanes { pixels: planes.pixels, width, height });
    }
    let turbo = || -> Result<DecodedPlanes, turbojpeg::Error> {
        let mut decompressor = Decompressor::new()?;
        decompressor.read_header(source)?;
        decompressor.set_scaling_factor(factor)?;
        let mut pixels = vec![0u8; turbojpeg::yuv_pixels_len(width, 1, height, Subsamp::Sub2x2)?];
        let image = YuvImage { pixels: &mut pixels[..], width, align: 1, height, subsamp: Subsamp::Sub2x2 };
        decompressor.decompress_to_yuv(source, image)?;
        Ok(DecodedPlanes { pixels, width, height })
    };
    match turbo() {
        Ok(planes) => Ok(planes),
        Err(_) => Ok(planes_of_rgb(&decode_pixels(source, probe, shrink, options.max_pixels)?.to_rgb8())),
    }
}

/// Any decoder's RGB picture in libjpeg-turbo's 4:2:0 plane layout: JFIF's full-range YCbCr, luma at even
/// sides (an odd side repeats its last column or row), each chroma sample the mean of its 2×2 block.
fn planes_of_rgb(rgb: &RgbImage) -> DecodedPlanes {
    let (width, height) = (rgb.width() as usize, rgb.height() as usize);
    let (luma_width, luma_height) = (width.next_multiple_of(2), height.next_multiple_of(2));
    let (chroma_width, chroma_height) = (luma_width / 2, luma_height / 2);
    let mut pixels = vec![0u8; luma_width * luma_height + 2 * chroma_width * chroma_height];
    let (luma, chroma) = pixels.split_at_mut(luma_width * luma_height);
    let (cb, cr) = chroma.split_at_mut(chroma_width * chroma_height);
    let at = |x: usize, y: usize| {
        let [r, g, b] = rgb.get_pixel(x.min(width.saturating_sub(1)) as u32, y.min(height.saturating_sub(1)) as u32).0;
        (f32::from(r), f32::from(g), f32::from(b))
    };
    let byte = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    for (y, row) in luma.chunks_exact_mut(luma_width).enumerate() {
        for (x, sample) in row.iter_mut().enumerate() {
            let (r, g, b) = at(x, y);
            *sample = byte(0.299 * r + 0.587 * g + 0.114 * b);
        }
    }
    for (index, (cb, cr)) in cb.iter_mut().zip(cr.iter_mut()).enumerate() {
        let (cx, cy) = (index % chroma_width, index / chroma_width);
        let (mut r, mut g, mut b) = (0.0, 0.0, 0.0);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (pr, pg, pb) = at(2 * cx + dx, 2 * cy + dy);
            (r, g, b) = (r + pr / 4.0, g + pg / 4.0, b + pb / 4.0);
        }
        *cb = byte(128.0 - 0.168_736 * r - 0.331_264 * g + 0.5 * b);
        *cr = byte(128.0 + 0.5 * r - 0.418_688 * g - 0.081_312 * b);
    }
    DecodedPlanes { pixels, width, height }
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
mod tests;
