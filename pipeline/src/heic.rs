//! HEIC/HEIF input through libheif (the system's shared library, LGPL-3.0, linked dynamically; docs/formats.md
//! says how it is installed): the primary image, its grid composed, its `clap`, `irot` and `imir` applied by
//! libheif, its alpha kept. The size is read from the container before anything is decoded, so the pixel
//! limit holds before libheif allocates.

use image::{DynamicImage, RgbImage, RgbaImage};
use libheif_rs::{ColorSpace, HeifContext, ImageHandle, LibHeif, RgbChroma};

use crate::{PipelineError, geometry::Size, options::check_source_pixels};

/// The `ftyp` brands of HEIF files whose images are HEVC-coded (`heic`, `heix`, `hevc`, `hevx`: images and
/// sequences) and of HEIF files in general (`mif1`, `msf1`), as the major brand or a compatible one. AVIF,
/// which also carries `mif1`, is told apart first (`source::is_avif`).
pub(crate) fn is_heic(bytes: &[u8]) -> bool {
    const BRANDS: [&[u8; 4]; 8] = [b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"];
    crate::isobmff::ftyp_brands(bytes).any(|brand| BRANDS.iter().any(|known| brand == &known[..]))
}

/// The primary image's size as delivered (after `clap`, `irot`, `imir`), refused over `max_pixels` as
/// coded or as delivered.
pub(crate) fn header(bytes: &[u8], max_pixels: u64) -> Result<Size, PipelineError> {
    let context = context(bytes, max_pixels)?;
    let handle = context.primary_image_handle().map_err(PipelineError::decode)?;
    checked_size(&handle, max_pixels)
}

/// The primary image's size as delivered and whether it has an alpha channel, from the container alone.
pub(crate) fn layout(bytes: &[u8], max_pixels: u64) -> Result<(Size, bool), PipelineError> {
    let context = context(bytes, max_pixels)?;
    let handle = context.primary_image_handle().map_err(PipelineError::decode)?;
    Ok((checked_size(&handle, max_pixels)?, handle.has_alpha_channel()))
}

/// libheif's context for `bytes`, once every item's coded size is within `max_pixels`
/// (`heif::check_item_sizes`): libheif 1.15 bounds only each side (32,768 by default), and its binding
/// reads the file as it makes the context, so the pixel bound is ours to hold first.
fn context(bytes: &[u8], max_pixels: u64) -> Result<HeifContext, PipelineError> {
    crate::heif::check_item_sizes(bytes, max_pixels)?;
    HeifContext::read_from_bytes(bytes).map_err(PipelineError::decode)
}

fn checked_size(handle: &ImageHandle, max_pixels: u64) -> Result<Size, PipelineError> {
    // ispe: the size coded (a grid's whole canvas), which is what libheif allocates.
    let coded = (u32::try_from(handle.ispe_width()).unwrap_or(0), u32::try_from(handle.ispe_height()).unwrap_or(0));
    check_source_pixels(coded.0, coded.1, max_pixels)?;
    let size = Size::new(handle.width(), handle.height());
    check_source_pixels(size.width, size.height, max_pixels)?;
    if size.width == 0 || size.height == 0 {
        return Err(PipelineError::Decode("the HEIF image has no size".into()));
    }
    Ok(size)
}

/// The primary image, upright, as 8-bit RGB or RGBA (deeper images are reduced by libheif).
pub(crate) fn decode(bytes: &[u8], max_pixels: u64) -> Result<DynamicImage, PipelineError> {
    let context = context(bytes, max_pixels)?;
    let handle = context.primary_image_handle().map_err(PipelineError::decode)?;
    let size = checked_size(&handle, max_pixels)?;
    let alpha = handle.has_alpha_channel();
    let chroma = if alpha { RgbChroma::Rgba } else { RgbChroma::Rgb };
    let image = LibHeif::new().decode(&handle, ColorSpace::Rgb(chroma), None).map_err(PipelineError::decode)?;
    let planes = image.planes();
    let plane = planes.interleaved.ok_or_else(|| PipelineError::Decode("libheif gave no interleaved plane".into()))?;
    if (plane.width, plane.height) != (size.width, size.height) {
        return Err(PipelineError::Decode(format!(
            "the HEIF image decodes to {}x{}, where its header says {}x{}",
            plane.width, plane.height, size.width, size.height
        )));
    }
    let channels = if alpha { 4 } else { 3 };
    let row = size.width as usize * channels;
    let mut pixels = crate::options::zeroed(row * size.height as usize)
        .ok_or_else(|| PipelineError::Internal("no memory for the HEIF image".into()))?;
    for (y, out) in pixels.chunks_exact_mut(row).enumerate() {
        let start = y * plane.stride;
        let line = plane
            .data
            .get(start..start + row)
            .ok_or_else(|| PipelineError::Internal("libheif's plane is shorter than its size".into()))?;
        out.copy_from_slice(line);
    }
    let image = if alpha {
        RgbaImage::from_raw(size.width, size.height, pixels).map(DynamicImage::ImageRgba8)
    } else {
        RgbImage::from_raw(size.width, size.height, pixels).map(DynamicImage::ImageRgb8)
    };
    image.ok_or_else(|| PipelineError::Internal("the HEIF buffer does not match its size".into()))
}
