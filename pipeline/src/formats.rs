//! The pipeline's views of the one table of media formats (`shutterbox_model::MEDIA_FORMATS`), each a
//! checked part of it that code can match on: `OutputFormat`, the formats written, here; `Format` (the
//! `format` parameter: `Auto` or a named format) in `params`; `SourceFormat`, the formats read, in
//! `source`; `Target`, a variant's output, in `plan`. Every name and property comes from the format's row;
//! `rows_agree_with_the_format_types` fails on a row a view forgets, or a view without its row.

use shutterbox_model::MediaFormat;

/// Formats the pipeline writes (`bmp` is never encoded: it means "the original").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    Jpeg,
    Png,
    Webp,
    Avif,
    Gif,
    Tiff,
}

impl OutputFormat {
    /// Every format the pipeline writes.
    pub const ALL: [Self; 6] = [Self::Jpeg, Self::Png, Self::Webp, Self::Avif, Self::Gif, Self::Tiff];

    pub fn media_format(self) -> MediaFormat {
        match self {
            Self::Jpeg => MediaFormat::Jpeg,
            Self::Png => MediaFormat::Png,
            Self::Webp => MediaFormat::Webp,
            Self::Avif => MediaFormat::Avif,
            Self::Gif => MediaFormat::Gif,
            Self::Tiff => MediaFormat::Tiff,
        }
    }

    /// The output format of a format the pipeline writes (`None` for one it only reads, or never reads).
    pub fn of(format: MediaFormat) -> Option<Self> {
        Self::ALL.into_iter().find(|output| output.media_format() == format)
    }

    pub fn mime(self) -> &'static str {
        self.media_format().mime()
    }

    pub fn extension(self) -> &'static str {
        self.media_format().extension()
    }

    /// The name users know it by, for messages.
    pub fn display_name(self) -> &'static str {
        self.media_format().info().display
    }

    /// The longest side the format can store, where it has a limit below `u32`.
    pub fn max_side(self) -> Option<u32> {
        self.media_format().info().max_side
    }

    /// Whether the format keeps an alpha channel.
    pub fn has_alpha(self) -> bool {
        self.media_format().info().alpha
    }

    /// Whether `q` applies.
    pub fn is_lossy(self) -> bool {
        self.media_format().info().lossy
    }
}

#[cfg(test)]
mod tests;
