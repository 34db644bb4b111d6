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

    pub fn image_type(self) -> ImageType {
        match self {
            Self::Jpeg => ImageType::Jpeg,
            Self::Png => ImageType::Png,
            Self::Webp => ImageType::Webp,
            Self::Avif => ImageType::Avif,
            Self::Gif => ImageType::Gif,
            Self::Tiff => ImageType::Tiff,
        }
    }

    /// The output format of an image format the pipeline writes (`None` for one it only reads).
    pub fn of(image_type: ImageType) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.image_type() == image_type)
    }

    pub fn mime(self) -> &'static str {
        self.image_type().info().mime
    }

    pub fn extension(self) -> &'static str {
        self.image_type().info().extension
    }

    /// The name users know it by, for messages.
    pub fn display_name(self) -> &'static str {
        self.image_type().info().display
    }

    /// The longest side the format can store, where it has a limit below `u32`.
    pub fn max_side(self) -> Option<u32> {
        self.image_type().info().max_side
    }

    /// Whether the format keeps an alpha channel.
    pub fn has_alpha(self) -> bool {
        self.image_type().info().alpha
    }

    /// Whether `q` applies.
    pub fn is_lossy(self) -> bool {
        self.image_type().info().lossy
    }
}

#[cfg(test)]
mod tests;
