//! Delivery's rule of what a file and a transformation are served as, in one type: `/v1/file/` follows it,
//! and so do the routes that hand out or prepare delivery URLs (transform-url queues the variant delivery
//! will serve; warming renders it or, for what is served as stored, counts the item done).

use shutterbox_metadata::FileRecord;
use shutterbox_model::FileKind;
use shutterbox_pipeline::{Format, OutputFormat, Target, Transform};
use shutterbox_variants::VariantSpec;

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

/// Transformations asked of a file that is not an image.
#[derive(Debug, thiserror::Error)]
#[error("transformations apply to images only; this file is not one")]
pub(crate) struct NotAnImage;

impl Rendition {
    pub(crate) fn of(
        file: &FileRecord,
        transform: &Transform,
        extension_format: Option<OutputFormat>,
    ) -> Result<Self, NotAnImage> {
        let nothing_asked = transform.is_identity() && extension_format.is_none();
        if !file.raw_type.is_transformable() || transform.format.is_some_and(Format::serves_original) {
            if file.kind != FileKind::Image && !nothing_asked {
                return Err(NotAnImage);
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
