//! HEIC/HEIF input through libheif (the system's shared library, LGPL-3.0, linked dynamically; docs/formats.md
//! says how it is installed): the primary image, its grid composed, its `clap`, `irot` and `imir` applied by
//! libheif, its alpha kept. The size is read from the container before anything is decoded, so the pixel
//! limit holds before libheif allocates.
//!
//! Through libheif-sys rather than libheif-rs: libheif-rs 0.19 (the last binding of the 1.14 API that
//! Debian 12's libheif provides) reads the file in the call that makes the context, so the context's own
//! size limit could never be set before libheif parses the file. Here it is (`side_limit`).

use std::{ffi::CStr, marker::PhantomData, ptr};

use image::{DynamicImage, RgbImage, RgbaImage};
use libheif_sys as lh;

use crate::{PipelineError, geometry::Size, options::check_source_pixels};

/// The primary image's size as delivered (after `clap`, `irot`, `imir`), refused over `max_pixels` as
/// coded or as delivered.
pub(crate) fn header(bytes: &[u8], max_pixels: u64) -> Result<Size, PipelineError> {
    let context = Context::read(bytes, max_pixels)?;
    checked_size(&context.primary()?, max_pixels)
}

/// The primary image's size as delivered and whether it has an alpha channel, from the container alone.
pub(crate) fn layout(bytes: &[u8], max_pixels: u64) -> Result<(Size, bool), PipelineError> {
    let context = Context::read(bytes, max_pixels)?;
    let handle = context.primary()?;
    Ok((checked_size(&handle, max_pixels)?, handle.has_alpha()))
}

/// The widest or tallest image libheif may read: libheif 1.15's one size limit bounds each side (32,768
/// by default), so it is told the tighter of that and the pixel budget (a side can be no longer than the
/// budget's pixels). The budget itself is held by `heif::check_item_sizes` and `checked_size`.
fn side_limit(max_pixels: u64) -> i32 {
    const LIBHEIF_DEFAULT: u64 = 32_768;
    i32::try_from(max_pixels.clamp(1, LIBHEIF_DEFAULT)).unwrap_or(i32::MAX)
}

/// libheif's reading of one file, which it keeps borrowing (`read_from_memory_without_copy`).
struct Context<'a> {
    inner: *mut lh::heif_context,
    bytes: PhantomData<&'a [u8]>,
}

impl<'a> Context<'a> {
    /// Reads `bytes` once every item's coded size is within `max_pixels` (`heif::check_item_sizes`), with
    /// libheif's side limit set first.
    fn read(bytes: &'a [u8], max_pixels: u64) -> Result<Self, PipelineError> {
        crate::codecs::heif::check_item_sizes(bytes, max_pixels)?;
        // SAFETY: heif_context_alloc has no preconditions; a null result is handled.
        let inner = unsafe { lh::heif_context_alloc() };
        if inner.is_null() {
            return Err(PipelineError::Internal("libheif could not make a context".into()));
        }
        let context = Self { inner, bytes: PhantomData };
        // SAFETY: the context is live; `bytes` outlives it (the lifetime), as reading without a copy needs.
        unsafe {
            lh::heif_context_set_maximum_image_size_limit(inner, side_limit(max_pixels));
            check(lh::heif_context_read_from_memory_without_copy(
                inner,
                bytes.as_ptr().cast(),
                bytes.len(),
                ptr::null(),
            ))?;
        }
        Ok(context)
    }

    fn primary(&self) -> Result<Handle<'_>, PipelineError> {
        let mut handle = ptr::null_mut();
        // SAFETY: the context is live and read; the out-pointer is valid.
        check(unsafe { lh::heif_context_get_primary_image_handle(self.inner, &mut handle) })?;
        if handle.is_null() {
            return Err(PipelineError::Decode("the HEIF file has no primary image".into()));
        }
        Ok(Handle { inner: handle, context: PhantomData })
    }
}

impl Drop for Context<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by heif_context_alloc and freed once; every handle borrowed from it is gone.
        unsafe { lh::heif_context_free(self.inner) }
    }
}

/// An image of a `Context`.
struct Handle<'a> {
    inner: *mut lh::heif_image_handle,
    context: PhantomData<&'a ()>,
}

impl Handle<'_> {
    /// The size coded (`ispe`: a grid's whole canvas), which is what libheif allocates.
    fn coded_size(&self) -> (u32, u32) {
        // SAFETY: the handle is live.
        let (width, height) = unsafe {
            (lh::heif_image_handle_get_ispe_width(self.inner), lh::heif_image_handle_get_ispe_height(self.inner))
        };
        (u32::try_from(width).unwrap_or(0), u32::try_from(height).unwrap_or(0))
    }

    /// The size delivered, its transformations applied.
    fn size(&self) -> Size {
        // SAFETY: the handle is live.
        let (width, height) =
            unsafe { (lh::heif_image_handle_get_width(self.inner), lh::heif_image_handle_get_height(self.inner)) };
        Size::new(u32::try_from(width).unwrap_or(0), u32::try_from(height).unwrap_or(0))
    }

    fn has_alpha(&self) -> bool {
        // SAFETY: the handle is live.
        unsafe { lh::heif_image_handle_has_alpha_channel(self.inner) != 0 }
    }
}

impl Drop for Handle<'_> {
    fn drop(&mut self) {
        // SAFETY: obtained from the context, released once.
        unsafe { lh::heif_image_handle_release(self.inner) }
    }
}

/// A decoded image, owned by libheif.
struct Decoded(*mut lh::heif_image);

impl Drop for Decoded {
    fn drop(&mut self) {
        // SAFETY: returned by heif_decode_image, released once.
        unsafe { lh::heif_image_release(self.0) }
    }
}

/// libheif's plugins (its decoders) registered for as long as this lives (`heif_init` counts its callers).
struct Plugins;

impl Plugins {
    fn load() -> Self {
        // SAFETY: heif_init takes null for its default parameters; it only registers decoders. A plugin that
        // fails to load leaves the built-in decoders, and the decode below says what is missing.
        unsafe {
            lh::heif_init(ptr::null_mut());
        }
        Self
    }
}

impl Drop for Plugins {
    fn drop(&mut self) {
        // SAFETY: one heif_deinit per heif_init.
        unsafe { lh::heif_deinit() }
    }
}

/// `Ok` for libheif's success, else the decode error it names.
fn check(error: lh::heif_error) -> Result<(), PipelineError> {
    if error.code == lh::heif_error_code_heif_error_Ok {
        return Ok(());
    }
    let message = if error.message.is_null() {
        String::from("unknown error")
    } else {
        // SAFETY: libheif's messages are NUL-terminated strings that live at least as long as the context.
        unsafe { CStr::from_ptr(error.message) }.to_string_lossy().into_owned()
    };
    Err(PipelineError::Decode(format!("libheif: {message}")))
}

fn checked_size(handle: &Handle<'_>, max_pixels: u64) -> Result<Size, PipelineError> {
    let coded = handle.coded_size();
    check_source_pixels(coded.0, coded.1, max_pixels)?;
    let size = handle.size();
    check_source_pixels(size.width, size.height, max_pixels)?;
    if size.width == 0 || size.height == 0 {
        return Err(PipelineError::Decode("the HEIF image has no size".into()));
    }
    Ok(size)
}

/// The primary image, upright, as 8-bit RGB or RGBA (deeper images are reduced by libheif).
pub(crate) fn decode(bytes: &[u8], max_pixels: u64) -> Result<DynamicImage, PipelineError> {
    let _plugins = Plugins::load();
    let context = Context::read(bytes, max_pixels)?;
    let handle = context.primary()?;
    let size = checked_size(&handle, max_pixels)?;
    let alpha = handle.has_alpha();
    let chroma =
        if alpha { lh::heif_chroma_heif_chroma_interleaved_RGBA } else { lh::heif_chroma_heif_chroma_interleaved_RGB };
    let mut image = ptr::null_mut();
    // SAFETY: the handle is live; the out-pointer is valid; null options are libheif's defaults.
    check(unsafe {
        lh::heif_decode_image(handle.inner, &mut image, lh::heif_colorspace_heif_colorspace_RGB, chroma, ptr::null())
    })?;
    if image.is_null() {
        return Err(PipelineError::Decode("libheif decoded no image".into()));
    }
    let image = Decoded(image);
    let channel = lh::heif_channel_heif_channel_interleaved;
    // SAFETY: the image is live.
    let (width, height) =
        unsafe { (lh::heif_image_get_width(image.0, channel), lh::heif_image_get_height(image.0, channel)) };
    if (u32::try_from(width).ok(), u32::try_from(height).ok()) != (Some(size.width), Some(size.height)) {
        return Err(PipelineError::Decode(format!(
            "the HEIF image decodes to {width}x{height}, where its header says {}x{}",
            size.width, size.height
        )));
    }
    let mut stride = 0;
    // SAFETY: the image is live and interleaved; the out-pointer is valid.
    let data = unsafe { lh::heif_image_get_plane_readonly(image.0, channel, &mut stride) };
    let channels = if alpha { 4 } else { 3 };
    let row = size.width as usize * channels;
    let stride = usize::try_from(stride).unwrap_or(0);
    if data.is_null() || stride < row {
        return Err(PipelineError::Internal("libheif gave no interleaved plane of the image's size".into()));
    }
    // SAFETY: libheif's interleaved plane is `height` rows of `stride` bytes, alive while `image` is.
    let plane = unsafe { std::slice::from_raw_parts(data, stride * size.height as usize) };
    let mut pixels = crate::options::zeroed(row * size.height as usize)
        .ok_or_else(|| PipelineError::Internal("no memory for the HEIF image".into()))?;
    for (out, line) in pixels.chunks_exact_mut(row).zip(plane.chunks(stride)) {
        out.copy_from_slice(&line[..row]);
    }
    let image = if alpha {
        RgbaImage::from_raw(size.width, size.height, pixels).map(DynamicImage::ImageRgba8)
    } else {
        RgbImage::from_raw(size.width, size.height, pixels).map(DynamicImage::ImageRgb8)
    };
    image.ok_or_else(|| PipelineError::Internal("the HEIF buffer does not match its size".into()))
}

#[cfg(test)]
mod tests {
    use super::side_limit;

    #[test]
    fn libheif_is_told_the_tighter_of_its_side_limit_and_the_budget() {
        assert_eq!(side_limit(50_000_000), 32_768);
        assert_eq!(side_limit(10_000), 10_000);
        assert_eq!(side_limit(0), 1);
    }
}
