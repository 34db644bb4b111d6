//! JPEG XL input through jxl-oxide (pure Rust, MIT OR Apache-2.0): a still image, or an animation's first
//! frame, with its orientation applied by the decoder. The size is read from the header before a pixel is
//! decoded, so the pixel limit holds first; jxl-oxide's own allocation tracker bounds what a frame whose
//! data lies about its size could make it allocate.

use image::{DynamicImage, GrayAlphaImage, GrayImage, RgbImage, RgbaImage};
use jxl_oxide::{
    AllocTracker, EnumColourEncoding, InitializeResult, JxlImage, JxlThreadPool, RenderingIntent, color::ColourSpace,
};

use crate::{PipelineError, geometry::Size, options::check_source_pixels};

/// The image's parsed header and frame index, its allocations bounded for a `max_pixels` image: 32 bytes
/// per allowed pixel (jxl-oxide renders in 32-bit floats, a plane per channel) and 64 MiB of headroom. The
/// bytes are fed a little at a time until the image header is read, and its size is checked before the
/// rest (the frames' headers and tables of contents, sized by it) is.
fn read(bytes: &[u8], max_pixels: u64) -> Result<JxlImage, PipelineError> {
    const STEP: usize = 256;
    let limit = usize::try_from(max_pixels.saturating_mul(32).saturating_add(64 << 20)).unwrap_or(usize::MAX);
    let mut uninit =
        JxlImage::builder().pool(JxlThreadPool::none()).alloc_tracker(AllocTracker::with_limit(limit)).build_uninit();
    let (mut at, mut end) = (0, 0);
    let mut image = loop {
        end = (end + STEP).min(bytes.len());
        at += uninit.feed_bytes(&bytes[at..end]).map_err(PipelineError::decode)?;
        match uninit.try_init().map_err(PipelineError::decode)? {
            InitializeResult::Initialized(image) => break image,
            InitializeResult::NeedMoreData(_) if end == bytes.len() => {
                return Err(PipelineError::Decode("the JPEG XL header is cut short".into()));
            }
            InitializeResult::NeedMoreData(more) => uninit = more,
        }
    };
    check_source_pixels(image.width(), image.height(), max_pixels)?;
    while at < bytes.len() {
        let consumed = image.feed_bytes(&bytes[at..]).map_err(PipelineError::decode)?;
        if consumed == 0 {
            break;
        }
        at += consumed;
    }
    image.finalize().map_err(PipelineError::decode)?;
    Ok(image)
}

/// The size as delivered (its orientation applied), refused over `max_pixels`.
pub(crate) fn header(bytes: &[u8], max_pixels: u64) -> Result<Size, PipelineError> {
    let image = read(bytes, max_pixels)?;
    Ok(Size::new(image.width(), image.height()))
}

/// The size as delivered and whether the image has an alpha channel, from its headers.
pub(crate) fn layout(bytes: &[u8], max_pixels: u64) -> Result<(Size, bool), PipelineError> {
    let image = read(bytes, max_pixels)?;
    Ok((Size::new(image.width(), image.height()), image.pixel_format().has_alpha()))
}

/// The first frame, upright, as 8-bit gray or RGB in sRGB, with alpha when it has one. A CMYK image's
/// black channel is applied to its colour channels.
pub(crate) fn decode(bytes: &[u8], max_pixels: u64) -> Result<DynamicImage, PipelineError> {
    let mut image = read(bytes, max_pixels)?;
    // In sRGB (grey with sRGB's tone curve for a grey image), converted by jxl-oxide from the image's
    // colour encoding or embedded profile, as libvips converts what libjxl gives it. A CMYK image keeps its
    // ink, multiplied out below: its profile is a printer's, which libvips does not use either.
    if !image.pixel_format().has_black() {
        let mut srgb = EnumColourEncoding::srgb(RenderingIntent::Perceptual);
        if image.pixel_format().is_grayscale() {
            srgb.colour_space = ColourSpace::Grey;
        }
        image.request_color_encoding(srgb);
    }
    let render = image.render_frame(0).map_err(PipelineError::decode)?;
    let format = image.pixel_format();
    let mut stream = render.stream();
    let (width, height, channels) = (stream.width(), stream.height(), stream.channels() as usize);
    let len = (width as usize).checked_mul(height as usize).and_then(|n| n.checked_mul(channels));
    let mut pixels = len
        .and_then(crate::options::zeroed)
        .ok_or_else(|| PipelineError::Decode("the JPEG XL image is too large to hold".into()))?;
    stream.write_to_buffer(&mut pixels[..]);
    let alpha = format.has_alpha();
    if format.has_black() {
        pixels = apply_black(&pixels, channels, alpha);
    }
    let image = match (format.is_grayscale(), alpha) {
        (true, false) => GrayImage::from_raw(width, height, pixels).map(DynamicImage::ImageLuma8),
        (true, true) => GrayAlphaImage::from_raw(width, height, pixels).map(DynamicImage::ImageLumaA8),
        (false, false) => RgbImage::from_raw(width, height, pixels).map(DynamicImage::ImageRgb8),
        (false, true) => RgbaImage::from_raw(width, height, pixels).map(DynamicImage::ImageRgba8),
    };
    image.ok_or_else(|| PipelineError::Decode("the JPEG XL image's channels do not match its pixel format".into()))
}

/// RGB(+K)(+A) samples with the black channel multiplied into the colour ones (JPEG XL's black channel is
/// 0 for full ink), RGB(+A) out.
fn apply_black(pixels: &[u8], channels: usize, alpha: bool) -> Vec<u8> {
    let out_channels = if alpha { 4 } else { 3 };
    let mut out = Vec::with_capacity(pixels.len() / channels.max(1) * out_channels);
    for pixel in pixels.chunks_exact(channels.max(1)) {
        let black = u16::from(pixel.get(3).copied().unwrap_or(255));
        for &sample in pixel.iter().take(3) {
            out.push(((u16::from(sample) * black + 127) / 255) as u8);
        }
        if alpha {
            out.push(pixel.get(4).copied().unwrap_or(255));
        }
    }
    out
}
