//! Every image format the service knows, one row each (`IMAGE_TYPES`): its names, extension, media type,
//! and what the pipeline does with it. The format types elsewhere (`Format`, the `format` parameter;
//! `OutputFormat`, what an encoder writes; `Target`, a variant's output; `SourceFormat`, what a decoder
//! reads) each map their variants to an `ImageType` once and take every name and property from its row,
//! and the API and the CLI ask it for media types and extensions. Adding a format is a row here, its
//! variant in the types that apply, and its decoding or encoding step; `rows_agree_with_the_format_types`
//! fails on a place forgotten.

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageType {
    Jpeg,
    Png,
    Webp,
    Avif,
    Gif,
    Tiff,
    Bmp,
    Heic,
    JpegXl,
}

/// What the service knows of one format.
#[derive(Debug)]
pub struct ImageTypeInfo {
    pub image_type: ImageType,
    /// The name the `format` parameter, a job's target and the docs use.
    pub name: &'static str,
    /// Other names `format` and a URL's extension accept.
    pub aliases: &'static [&'static str],
    /// The name people know it by, for messages.
    pub display: &'static str,
    /// The extension of a file the service names (a transform-url whose format changes the extension).
    pub extension: &'static str,
    pub mime: &'static str,
    /// Whether the `format` parameter and a URL's extension name it: every format that is written, and
    /// `bmp`, which returns the original. Formats that are only read (HEIC, JPEG XL) are not named: a
    /// request for one could never be served.
    pub requestable: bool,
    /// Whether the pipeline reads it.
    pub decodable: bool,
    /// Whether the pipeline writes it (`bmp` is read, and served as stored, never written).
    pub encodable: bool,
    /// Whether it keeps an alpha channel.
    pub alpha: bool,
    /// Whether it can hold several frames.
    pub animation: bool,
    /// Whether `q` applies when writing it.
    pub lossy: bool,
    /// The longest side it can store, where it has a limit below `u32`: JPEG's and GIF's 16-bit sizes,
    /// WebP's 14-bit ones, AV1's 16-bit `frame_width_minus_1`.
    pub max_side: Option<u32>,
    /// Whether renders read a full-size JPEG copy of an opaque source instead of the source itself: the
    /// format is decoded only whole, and slowly, where a JPEG is decoded shrunk in its DCT
    /// (`crate::working_copy`).
    pub working_copy: bool,
}

/// Every format, in the order the docs and the OpenAPI document list them.
pub static IMAGE_TYPES: [ImageTypeInfo; 9] = [
    ImageTypeInfo {
        image_type: ImageType::Jpeg,
        name: "jpeg",
        aliases: &["jpg"],
        display: "JPEG",
        extension: "jpg",
        mime: "image/jpeg",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: false,
        animation: false,
        lossy: true,
        max_side: Some(65_535),
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Png,
        name: "png",
        aliases: &[],
        display: "PNG",
        extension: "png",
        mime: "image/png",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: true,
        animation: false,
        lossy: false,
        max_side: None,
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Webp,
        name: "webp",
        aliases: &[],
        display: "WebP",
        extension: "webp",
        mime: "image/webp",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: true,
        animation: true,
        lossy: true,
        max_side: Some(16_383),
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Avif,
        name: "avif",
        aliases: &[],
        display: "AVIF",
        extension: "avif",
        mime: "image/avif",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: true,
        animation: true,
        lossy: true,
        max_side: Some(65_536),
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Gif,
        name: "gif",
        aliases: &[],
        display: "GIF",
        extension: "gif",
        mime: "image/gif",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: true,
        animation: true,
        lossy: false,
        max_side: Some(65_535),
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Tiff,
        name: "tiff",
        aliases: &["tif"],
        display: "TIFF",
        extension: "tiff",
        mime: "image/tiff",
        requestable: true,
        decodable: true,
        encodable: true,
        alpha: true,
        animation: false,
        lossy: false,
        max_side: None,
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Bmp,
        name: "bmp",
        aliases: &[],
        display: "BMP",
        extension: "bmp",
        mime: "image/bmp",
        requestable: true,
        decodable: true,
        encodable: false,
        alpha: true,
        animation: false,
        lossy: false,
        max_side: None,
        working_copy: false,
    },
    ImageTypeInfo {
        image_type: ImageType::Heic,
        name: "heic",
        aliases: &["heif"],
        display: "HEIC",
        extension: "heic",
        mime: "image/heic",
        requestable: false,
        decodable: cfg!(feature = "heic"),
        encodable: false,
        alpha: true,
        animation: false,
        lossy: false,
        max_side: None,
        working_copy: true,
    },
    ImageTypeInfo {
        image_type: ImageType::JpegXl,
        name: "jxl",
        aliases: &[],
        display: "JPEG XL",
        extension: "jxl",
        mime: "image/jxl",
        requestable: false,
        decodable: true,
        encodable: false,
        alpha: true,
        animation: false,
        lossy: false,
        max_side: None,
        working_copy: true,
    },
];

impl ImageType {
    /// Every format, in the table's order.
    pub fn all() -> impl Iterator<Item = Self> {
        IMAGE_TYPES.iter().map(|info| info.image_type)
    }

    /// The format's row.
    pub fn info(self) -> &'static ImageTypeInfo {
        match self {
            Self::Jpeg => &IMAGE_TYPES[0],
            Self::Png => &IMAGE_TYPES[1],
            Self::Webp => &IMAGE_TYPES[2],
            Self::Avif => &IMAGE_TYPES[3],
            Self::Gif => &IMAGE_TYPES[4],
            Self::Tiff => &IMAGE_TYPES[5],
            Self::Bmp => &IMAGE_TYPES[6],
            Self::Heic => &IMAGE_TYPES[7],
            Self::JpegXl => &IMAGE_TYPES[8],
        }
    }

    /// The format a name or alias names, whatever its case (`format=JPG`, `cat.Tif`).
    pub fn from_name(name: &str) -> Option<Self> {
        IMAGE_TYPES
            .iter()
            .find(|info| {
                info.name.eq_ignore_ascii_case(name) || info.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            })
            .map(|info| info.image_type)
    }

    /// The format a media type names: its row's (`image/heic`), or `image/` and one of its aliases
    /// (`image/heif`, which sniffing gives a HEIF file of no more specific brand).
    pub fn from_mime(mime: &str) -> Option<Self> {
        let alias = mime.strip_prefix("image/");
        IMAGE_TYPES
            .iter()
            .find(|info| info.mime == mime || alias.is_some_and(|alias| info.aliases.contains(&alias)))
            .map(|info| info.image_type)
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn mime(self) -> &'static str {
        self.info().mime
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_is_its_own_and_every_name_finds_it() {
        for (index, info) in IMAGE_TYPES.iter().enumerate() {
            assert!(std::ptr::eq(info.image_type.info(), &IMAGE_TYPES[index]), "{}", info.name);
            for name in std::iter::once(info.name).chain(info.aliases.iter().copied()) {
                assert_eq!(ImageType::from_name(name), Some(info.image_type));
                assert_eq!(ImageType::from_name(&name.to_ascii_uppercase()), Some(info.image_type));
            }
            assert_eq!(ImageType::from_name(info.extension), Some(info.image_type), "the extension is a name");
            assert!(!info.lossy || info.encodable, "{}: lossy only means something when written", info.name);
            assert_eq!(IMAGE_TYPES.iter().filter(|other| other.mime == info.mime).count(), 1, "{}", info.mime);
            assert_eq!(ImageType::from_mime(info.mime), Some(info.image_type));
        }
        assert_eq!(ImageType::from_mime("image/heif"), Some(ImageType::Heic));
        assert_eq!(ImageType::from_mime("image/svg+xml"), None);
        assert_eq!(ImageType::from_name("auto"), None);
        assert_eq!(ImageType::from_name("svg"), None);
    }

    /// Each format type takes its names from the rows, and has a variant for exactly the rows it covers: a
    /// row added without its place in these types, or a variant without its row, fails here.
    #[test]
    fn rows_agree_with_the_format_types() {
        use crate::{Format, OutputFormat, PipelineError, SourceFormat, Target};

        for info in &IMAGE_TYPES {
            let format = Format::parse(info.name);
            assert_eq!(format.is_some(), info.requestable, "{}: requestable", info.name);
            assert!(info.requestable || !info.encodable, "{}: a written format is requestable", info.name);
            let output = OutputFormat::of(info.image_type);
            assert_eq!(output.is_some(), info.encodable, "{}: encodable", info.name);
            if let Some(format) = format {
                assert_eq!((format.image_type(), format.as_str()), (Some(info.image_type), info.name));
            }
            if let (Some(output), Some(format)) = (output, format) {
                assert_eq!(OutputFormat::from_requested(format), Some(output));
                assert_eq!(Target::parse(info.name), Some(Target::Format(output)));
                assert_eq!(Target::Format(output).as_str(), info.name);
                assert_eq!(
                    (output.mime(), output.extension(), output.display_name()),
                    (info.mime, info.extension, info.display)
                );
                assert_eq!(
                    (output.has_alpha(), output.is_lossy(), output.max_side()),
                    (info.alpha, info.lossy, info.max_side)
                );
            }
            let source = SourceFormat::ALL.iter().copied().find(|source| source.image_type() == info.image_type);
            assert_eq!(source.is_some(), info.decodable, "{}: decodable", info.name);
            if info.decodable {
                let message = PipelineError::UnsupportedFormat.to_string();
                assert!(message.contains(info.display), "the unsupported-format message names {}", info.display);
            }
        }
        assert!(OutputFormat::ALL.iter().all(|output| output.image_type().info().encodable));
        assert!(SourceFormat::ALL.iter().all(|source| source.image_type().info().decodable));
        let requestable = IMAGE_TYPES.iter().filter(|info| info.requestable).count();
        assert_eq!(Format::names().len(), requestable + 1, "every requestable format, and auto");
    }
}
