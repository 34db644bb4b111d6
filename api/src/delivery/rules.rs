//! Delivery's rule of what a file and a transformation are served as, in one type: `/v1/file/` follows it,
//! and so do the routes that hand out or prepare delivery URLs (transform-url queues the variant delivery
//! will serve; warming renders it or, for what is served as stored, counts the item done).

use shutterbox_metadata::FileRecord;
use shutterbox_model::FileKind;
use shutterbox_pipeline::{Format, OutputFormat, Target, Transform};
use shutterbox_variants::{VariantSpec, beyond_duration};

/// What delivery serves for a file, a transformation and the format a URL's extension names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rendition {
    /// The stored bytes: nothing to transform, or a file delivery serves as stored whatever the query
    /// asks (anything but the images delivery transforms, `MediaType::is_transformable`: SVG and BMP
    /// originals pass through, docs/transformations.md, "Originals passed through"; and `format=bmp`).
    Original,
    /// A rendered variant.
    Variant(VariantSpec),
}

/// Why a transformation is refused for a file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotRendered {
    /// Asked of a file that is neither an image nor a video.
    #[error("transformations apply to images only; this file is not one")]
    NotAnImage,
    /// `t` past a video's end.
    #[error("{0}")]
    BeyondDuration(String),
    /// An animated preview asked in a format that does not animate.
    #[error("an animated preview (dur) is a GIF or a WebP: ask for one of them, or auto, as the format")]
    PreviewNotAnimated,
}

impl Rendition {
    pub(crate) fn of(
        file: &FileRecord,
        transform: &Transform,
        extension_format: Option<OutputFormat>,
    ) -> Result<Self, NotRendered> {
        if file.raw_type.format().is_some_and(|format| format.info().video.is_some()) {
            return Self::of_video(file, transform, extension_format);
        }
        // `t` and `dur` choose a video's frames: an image ignores them, and its variants keep their keys.
        let transform = &Transform { frame_at_ms: None, preview_ms: None, ..*transform };
        let nothing_asked = transform.is_identity() && extension_format.is_none();
        if !file.raw_type.is_transformable() || transform.format.is_some_and(Format::serves_original) {
            if file.kind != FileKind::Image && !nothing_asked {
                return Err(NotRendered::NotAnImage);
            }
            return Ok(Self::Original);
        }
        if nothing_asked {
            return Ok(Self::Original);
        }
        // The file's focal point is part of what is rendered, so of the variant's key: a new point is a
        // new variant, and nothing made for the old one is served. Without one, the attention point its
        // description found stands in (what `attention` would choose, without looking at the pixels again).
        let transform = transform.with_focus(file.focus.or(file.summary.as_ref().map(|s| s.attention)));
        Ok(Self::Variant(VariantSpec::new(transform, target_of(transform.format, extension_format))))
    }

    /// A video's: the video itself when nothing is asked (or `format=bmp`), else a frame rendered as an
    /// image (docs/transformations.md, "Videos"): the poster, or the frame at `t`, which must be within the
    /// video; JPEG unless a format is named, a WebP still for `auto`. With `dur`, an animated preview, GIF or
    /// WebP (`auto` and no format named: WebP).
    fn of_video(
        file: &FileRecord,
        transform: &Transform,
        extension_format: Option<OutputFormat>,
    ) -> Result<Self, NotRendered> {
        if (transform.is_identity() && extension_format.is_none())
            || transform.format.is_some_and(Format::serves_original)
        {
            return Ok(Self::Original);
        }
        if let (Some(ms), Some(duration)) = (transform.frame_at_ms, file.video.as_ref().and_then(|v| v.duration_ms))
            && u64::from(ms) > duration
        {
            return Err(NotRendered::BeyondDuration(beyond_duration(ms, duration)));
        }
        let transform = transform.with_focus(file.focus.or(file.summary.as_ref().map(|s| s.attention)));
        let asked = target_of(transform.format, extension_format);
        let target = match (asked, transform.preview_ms) {
            (Target::Source, None) => Target::Format(OutputFormat::Jpeg),
            (Target::Source | Target::Auto, _) => Target::Format(OutputFormat::Webp),
            (Target::Format(OutputFormat::Gif | OutputFormat::Webp), Some(_)) | (Target::Format(_), None) => asked,
            (Target::Format(_), Some(_)) => return Err(NotRendered::PreviewNotAnimated),
        };
        Ok(Self::Variant(VariantSpec::new(transform, target)))
    }
}

/// The output a request asks for: `format` if given, else the format the URL's extension names, else the
/// original's.
fn target_of(format: Option<Format>, extension_format: Option<OutputFormat>) -> Target {
    match format {
        Some(Format::Auto) => Target::Auto,
        Some(format) => format.output_format().map_or(Target::Source, Target::Format),
        None => extension_format.map_or(Target::Source, Target::Format),
    }
}
