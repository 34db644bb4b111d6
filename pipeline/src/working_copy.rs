//! The working copy of a source that is decoded only whole, and slowly (HEIC, JPEG XL: the `working_copy`
//! column of `shutterbox_model::MEDIA_FORMATS`): the render of `q=95` into JPEG — the picture upright, in sRGB, at full size,
//! 4:2:0 as a phone's HEIC is. A render that reads it instead of the source decodes a JPEG, which
//! libjpeg-turbo shrinks in the DCT, so an 800 px render of a 12 MP photo costs what it costs from a JPEG
//! rather than a whole HEVC or JPEG XL decode. The service makes it once per file and keeps it as one of
//! the file's variants (docs/formats.md, "Working copies"); renders of this module's transform always read
//! the source itself.
//!
//! Only a copy that loses nothing the outputs could show is made: not for a source with an alpha channel
//! (a JPEG has none), nor for one a JPEG cannot hold or the output limit refuses. Both decoders give 8-bit
//! samples already, so no depth is lost.

use crate::{
    Quality, RenderOptions, SourceFormat, Transform, encode::OutputFormat, geometry::Size, render::plan::Target,
};

/// The working copy's JPEG quality.
const WORKING_COPY_QUALITY: u8 = 95;

/// The transformation that makes a working copy, into `WORKING_COPY_TARGET`.
pub fn working_copy_transform() -> Transform {
    Transform { quality: Quality::Value(WORKING_COPY_QUALITY), quality_given: true, ..Transform::default() }
}

/// A working copy's output format.
pub const WORKING_COPY_TARGET: Target = Target::Format(OutputFormat::Jpeg);

/// Whether renders of `source` read its working copy rather than `source`: its format's row says so, and
/// its headers say it is opaque and fits in a JPEG within `options`' output limit. Read from headers only;
/// anything unreadable is `false` (the render of the source then says what is wrong).
pub fn reads_working_copy(source: &[u8], options: &RenderOptions) -> bool {
    let Some(format) = SourceFormat::detect(source) else { return false };
    if !format.media_format().info().working_copy {
        return false;
    }
    let layout = match format {
        #[cfg(feature = "heic")]
        SourceFormat::Heic => crate::codecs::heic::layout(source, options.max_pixels),
        SourceFormat::JpegXl => crate::codecs::jxl::layout(source, options.max_pixels),
        _ => return false,
    };
    let Ok((size, alpha)) = layout else { return false };
    !alpha && fits_a_jpeg(size, options)
}

fn fits_a_jpeg(size: Size, options: &RenderOptions) -> bool {
    let max_side = OutputFormat::Jpeg.max_side().unwrap_or(u32::MAX);
    size.width <= max_side
        && size.height <= max_side
        && u64::from(size.width) * u64::from(size.height) <= options.max_output_pixels
}

#[cfg(all(test, feature = "samples"))]
mod tests {
    use super::*;
    use crate::{
        render,
        samples::{self, SampleKind},
    };

    fn sample(kind: SampleKind, width: u32, height: u32) -> Result<Vec<u8>, String> {
        samples::sample(kind, width, height, 7)
    }

    #[test]
    fn opaque_heic_and_jpeg_xl_read_a_working_copy_and_nothing_else_does() {
        let options = RenderOptions::default();
        let reads = |kind| reads_working_copy(&sample(kind, 64, 48).unwrap(), &options);
        #[cfg(feature = "heic")]
        {
            assert!(reads(SampleKind::Heic));
            assert!(!reads(SampleKind::HeicAlpha), "a JPEG would drop its alpha");
        }
        assert!(reads(SampleKind::JpegXl));
        assert!(!reads(SampleKind::JpegXlAlpha), "a JPEG would drop its alpha");
        for kind in
            [SampleKind::Jpeg420, SampleKind::PngRgb, SampleKind::WebpLossy, SampleKind::Avif, SampleKind::TiffLzw]
        {
            assert!(!reads(kind), "{kind:?} is read as it is");
        }
        assert!(!reads_working_copy(b"not an image", &options));
        let small = RenderOptions { max_output_pixels: 64 * 48 - 1, ..options };
        assert!(!reads_working_copy(&sample(SampleKind::JpegXl, 64, 48).unwrap(), &small), "over the output limit");
    }

    #[test]
    fn a_render_from_the_working_copy_is_the_render_from_the_source() {
        // Same size and format for every request; pixels within what a q 95 generation costs (measured on
        // this picture, seeded noise of ±20 per sample: a mean of 0.7–1.7 levels).
        let options = RenderOptions::default();
        let kinds = [
            #[cfg(feature = "heic")]
            SampleKind::Heic,
            SampleKind::JpegXl,
        ];
        for kind in kinds {
            let source = sample(kind, 302, 200).unwrap();
            let copy = render(&source, &working_copy_transform(), WORKING_COPY_TARGET, options).unwrap();
            assert_eq!((copy.width, copy.height, copy.format), (302, 200, OutputFormat::Jpeg));
            // Into PNG, so that only the copy's generation shows, not the output's own.
            let png = Target::Format(OutputFormat::Png);
            for query in ["w=100", "w=64&h=64&fit=cover", "crop=10,20,150,100&rot=90", "h=50&gray=true", "w=300"] {
                let transform = Transform::from_query(query).unwrap();
                let direct = render(&source, &transform, png, options).unwrap();
                let copied = render(&copy.bytes, &transform, png, options).unwrap();
                assert_eq!((copied.width, copied.height, copied.format), (direct.width, direct.height, direct.format));
                let a = image::load_from_memory(&direct.bytes).unwrap().to_rgb8();
                let b = image::load_from_memory(&copied.bytes).unwrap().to_rgb8();
                let mean = a.as_raw().iter().zip(b.as_raw()).map(|(x, y)| f64::from(x.abs_diff(*y))).sum::<f64>()
                    / a.as_raw().len() as f64;
                assert!(mean < 2.5, "{kind:?} {query}: mean difference {mean}");
            }
        }
    }
}
