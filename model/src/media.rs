//! Every media format the service knows, one row each (`MEDIA_FORMATS`): its names, extensions, media
//! types, how its bytes are recognised, and what the service does with it. Sniffing (`crate::sniff`), a
//! file's kind and how it is served (`crate::MediaType`), the pipeline's format choices, the API's value
//! sets and the CLI's guess from a file name all read these rows; no other place writes a media type or an
//! extension. Adding a format is a row here and, for one that is read or written, its decoder or encoder
//! arm in the pipeline; `every_row_keeps_what_its_columns_promise` fails on a row that contradicts itself.
//! Non-image media are rows too (the video containers, when they are read, are rows, not a second table).

/// What the file object's `type` says a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Image,
    Video,
    Json,
    File,
}

impl FileKind {
    /// The kind of a media type: its row's, else from its top-level type (`image/x-icon` is an image).
    pub fn of_mime(mime: &str) -> Self {
        if let Some(format) = MediaFormat::from_mime(mime) {
            return format.info().kind;
        }
        match mime.split_once('/').map(|(top, _)| top) {
            Some("image") => Self::Image,
            Some("video") => Self::Video,
            _ => Self::File,
        }
    }

    /// The kind named by `as_str`'s text (as stored), or `None` for any other text.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Image, Self::Video, Self::Json, Self::File].into_iter().find(|kind| kind.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Video => "video",
            Self::Json => "json",
            Self::File => "file",
        }
    }
}

/// A media format: a row of `MEDIA_FORMATS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaFormat {
    Jpeg,
    Png,
    Webp,
    Avif,
    Gif,
    Tiff,
    Bmp,
    Heic,
    JpegXl,
    Svg,
    Pdf,
    Text,
    Json,
    Html,
    Css,
    JavaScript,
    // 3GPP and QuickTime before MP4: their files list MP4's brands as compatible ones too.
    ThreeGpp,
    QuickTime,
    Mp4,
    Matroska,
    Webm,
    Avi,
    MpegTs,
    /// Bytes of no known format.
    Binary,
}

/// How a format's bytes are recognised when it is sniffed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// Bytes at offsets: any one of the alternatives, each a set of `(offset, bytes)` that must all match,
    /// unless the `unless` bytes match too (a Canon CR2 raw file begins as a TIFF does).
    Magic { any: &'static [&'static [(usize, &'static [u8])]], unless: Option<(usize, &'static [u8])> },
    /// An ISO-BMFF `ftyp` box with one of `strong` as its major or a compatible brand; failing that, one of
    /// `weak`, which gives the row's second media type (a HEIF of no more specific brand is `image/heif`).
    Brands { strong: &'static [&'static [u8; 4]], weak: &'static [&'static [u8; 4]] },
    /// An EBML header (Matroska's) whose `DocType` is `doctype`, within the first bytes.
    Ebml { doctype: &'static [u8] },
    /// Text that begins (after a byte-order mark and white space, in any case) with one of `starts` and,
    /// where `contains` is given, holds it somewhere in its first kilobyte.
    Markup { starts: &'static [&'static str], contains: Option<&'static str> },
    /// Nothing in its bytes says so: it is what it is declared to be (text, JSON), or what the `infer`
    /// crate's matchers recognise (PDF).
    Declared,
}

/// What the service knows of one format.
#[derive(Debug)]
pub struct MediaFormatInfo {
    pub format: MediaFormat,
    /// The name the `format` parameter, a job's target and the docs use.
    pub name: &'static str,
    /// Other names `format` accepts.
    pub aliases: &'static [&'static str],
    /// The name people know it by, for messages.
    pub display: &'static str,
    /// The extensions of its files; the first is the one the service writes (a transform-url whose format
    /// changes the extension).
    pub extensions: &'static [&'static str],
    /// Its media types; the first is the one recorded and served, the others are recognised too.
    pub mimes: &'static [&'static str],
    /// The file object's `type`.
    pub kind: FileKind,
    pub signature: Signature,
    /// Whether the `format` parameter and a URL's extension name it: every format that is written, and
    /// `bmp`, which returns the original. Formats that are only read (HEIC, JPEG XL) are not named: a
    /// request for one could never be served.
    pub requestable: bool,
    /// Whether the pipeline reads it (HEIC: when built with libheif, the default).
    pub decodable: bool,
    /// Whether the pipeline writes it.
    pub encodable: bool,
    /// Whether delivery transforms it; a file of any other format is served as stored whatever the query
    /// asks (docs/transformations.md, "Originals passed through").
    pub transformable: bool,
    /// Whether it is made of pixels (an SVG is not: its thumbnail is a placeholder).
    pub raster: bool,
    /// Whether a browser may show it in place rather than download it (never a type that runs script).
    pub inline: bool,
    /// Whether it keeps an alpha channel.
    pub alpha: bool,
    /// Whether it can hold several frames.
    pub animation: bool,
    /// Whether `q` applies when writing it.
    pub lossy: bool,
    /// `q=auto`'s starting quality when writing it (the lossy formats).
    pub auto_quality: Option<u8>,
    /// What a render that names no format writes when the source is of this format.
    pub default_output: Option<MediaFormat>,
    /// The longest side it can store, where it has a limit below `u32`: JPEG's and GIF's 16-bit sizes,
    /// WebP's 14-bit ones, AV1's 16-bit `frame_width_minus_1`.
    pub max_side: Option<u32>,
    /// Whether renders read a full-size JPEG copy of an opaque source instead of the source itself: the
    /// format is decoded only whole, and slowly, where a JPEG is decoded shrunk in its DCT.
    pub working_copy: bool,
    /// For a video container, how its headers are read (`shutterbox_pipeline::video`) and which FFmpeg
    /// demuxer its frames are decoded through: named, never guessed from the bytes.
    pub video: Option<VideoContainer>,
}

/// The container families whose headers the service reads for a video's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoContainer {
    /// ISO base media: MP4, QuickTime, 3GPP.
    Isobmff,
    /// Matroska and WebM (EBML).
    Matroska,
    /// RIFF AVI.
    Avi,
    /// MPEG transport stream (`.ts`, a camcorder's `.mts`/`.m2ts`).
    MpegTs,
}

impl VideoContainer {
    /// The FFmpeg demuxer that reads it (`ffmpeg -f`), so a file is never probed into another one (a
    /// playlist demuxer would open what the file names).
    pub fn demuxer(self) -> &'static str {
        match self {
            Self::Isobmff => "mov",
            Self::Matroska => "matroska",
            Self::Avi => "avi",
            Self::MpegTs => "mpegts",
        }
    }
}

/// A row's defaults: a file format the service stores and serves but neither reads nor writes.
const STORED: MediaFormatInfo = MediaFormatInfo {
    format: MediaFormat::Binary,
    name: "",
    aliases: &[],
    display: "",
    extensions: &[],
    mimes: &[],
    kind: FileKind::File,
    signature: Signature::Declared,
    requestable: false,
    decodable: false,
    encodable: false,
    transformable: false,
    raster: false,
    inline: false,
    alpha: false,
    animation: false,
    lossy: false,
    auto_quality: None,
    default_output: None,
    max_side: None,
    working_copy: false,
    video: None,
};

/// A row's defaults for a raster image the pipeline reads and delivery transforms.
const IMAGE: MediaFormatInfo = MediaFormatInfo {
    kind: FileKind::Image,
    requestable: true,
    decodable: true,
    encodable: true,
    transformable: true,
    raster: true,
    inline: true,
    alpha: true,
    ..STORED
};

/// A row's defaults for a video container: stored, served inline, its headers read for the video's facts
/// (ISO base media unless the row says otherwise) and its frames decoded through FFmpeg.
const VIDEO: MediaFormatInfo =
    MediaFormatInfo { kind: FileKind::Video, inline: true, video: Some(VideoContainer::Isobmff), ..STORED };

const TIFF_MAGIC: &[&[(usize, &[u8])]] = &[&[(0, b"II*\0")], &[(0, b"MM\0*")], &[(0, b"II+\0")], &[(0, b"MM\0+")]];

/// Every format: the images first, in the order the docs and the OpenAPI document list them.
pub static MEDIA_FORMATS: [MediaFormatInfo; 24] = [
    MediaFormatInfo {
        format: MediaFormat::Jpeg,
        name: "jpeg",
        aliases: &["jpg"],
        display: "JPEG",
        extensions: &["jpg", "jpeg"],
        mimes: &["image/jpeg"],
        signature: Signature::Magic { any: &[&[(0, b"\xFF\xD8\xFF")]], unless: None },
        alpha: false,
        lossy: true,
        auto_quality: Some(80),
        default_output: Some(MediaFormat::Jpeg),
        max_side: Some(65_535),
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::Png,
        name: "png",
        display: "PNG",
        extensions: &["png"],
        mimes: &["image/png"],
        signature: Signature::Magic { any: &[&[(0, b"\x89PNG")]], unless: None },
        default_output: Some(MediaFormat::Png),
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::Webp,
        name: "webp",
        display: "WebP",
        extensions: &["webp"],
        mimes: &["image/webp"],
        signature: Signature::Magic { any: &[&[(0, b"RIFF"), (8, b"WEBP")]], unless: None },
        animation: true,
        lossy: true,
        auto_quality: Some(80),
        default_output: Some(MediaFormat::Webp),
        max_side: Some(16_383),
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::Avif,
        name: "avif",
        display: "AVIF",
        extensions: &["avif"],
        mimes: &["image/avif"],
        signature: Signature::Brands { strong: &[b"avif", b"avis"], weak: &[] },
        animation: true,
        lossy: true,
        auto_quality: Some(60),
        default_output: Some(MediaFormat::Avif),
        max_side: Some(65_536),
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::Gif,
        name: "gif",
        display: "GIF",
        extensions: &["gif"],
        mimes: &["image/gif"],
        signature: Signature::Magic { any: &[&[(0, b"GIF8")]], unless: None },
        animation: true,
        default_output: Some(MediaFormat::Gif),
        max_side: Some(65_535),
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::Tiff,
        name: "tiff",
        aliases: &["tif"],
        display: "TIFF",
        extensions: &["tiff", "tif"],
        mimes: &["image/tiff"],
        signature: Signature::Magic { any: TIFF_MAGIC, unless: Some((8, b"CR")) },
        default_output: Some(MediaFormat::Tiff),
        ..IMAGE
    },
    // Read, and served as stored: `format=bmp` means "the original".
    MediaFormatInfo {
        format: MediaFormat::Bmp,
        name: "bmp",
        display: "BMP",
        extensions: &["bmp"],
        mimes: &["image/bmp"],
        signature: Signature::Magic { any: &[&[(0, b"BM")]], unless: None },
        encodable: false,
        transformable: false,
        default_output: Some(MediaFormat::Png),
        ..IMAGE
    },
    // Read only, and written as JPEG, as a phone shares its photos.
    MediaFormatInfo {
        format: MediaFormat::Heic,
        name: "heic",
        aliases: &["heif"],
        display: "HEIC",
        extensions: &["heic", "heif"],
        mimes: &["image/heic", "image/heif"],
        signature: Signature::Brands {
            strong: &[b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis"],
            weak: &[b"mif1", b"msf1"],
        },
        requestable: false,
        encodable: false,
        default_output: Some(MediaFormat::Jpeg),
        working_copy: true,
        ..IMAGE
    },
    MediaFormatInfo {
        format: MediaFormat::JpegXl,
        name: "jxl",
        display: "JPEG XL",
        extensions: &["jxl"],
        mimes: &["image/jxl"],
        signature: Signature::Magic { any: &[&[(0, b"\xFF\x0A")], &[(0, b"\0\0\0\x0cJXL \r\n\x87\n")]], unless: None },
        requestable: false,
        encodable: false,
        default_output: Some(MediaFormat::Jpeg),
        working_copy: true,
        ..IMAGE
    },
    // Markup that can run script: an image, never drawn by the pipeline, never shown inline.
    MediaFormatInfo {
        format: MediaFormat::Svg,
        name: "svg",
        display: "SVG",
        extensions: &["svg"],
        mimes: &["image/svg+xml"],
        kind: FileKind::Image,
        signature: Signature::Markup { starts: &["<svg", "<?xml", "<!doctype svg"], contains: Some("<svg") },
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::Pdf,
        name: "pdf",
        display: "PDF",
        extensions: &["pdf"],
        mimes: &["application/pdf"],
        inline: true,
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::Text,
        name: "text",
        display: "plain text",
        extensions: &["txt"],
        mimes: &["text/plain"],
        inline: true,
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::Json,
        name: "json",
        display: "JSON",
        extensions: &["json"],
        mimes: &["application/json"],
        kind: FileKind::Json,
        inline: true,
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::Html,
        name: "html",
        display: "HTML",
        extensions: &["html", "htm"],
        mimes: &["text/html"],
        signature: Signature::Markup {
            starts: &["<!doctype html", "<html", "<head", "<body", "<script", "<iframe", "<meta", "<title", "<div"],
            contains: None,
        },
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::Css,
        name: "css",
        display: "CSS",
        extensions: &["css"],
        mimes: &["text/css"],
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::JavaScript,
        name: "javascript",
        aliases: &["js"],
        display: "JavaScript",
        extensions: &["js", "mjs"],
        mimes: &["text/javascript", "application/javascript"],
        ..STORED
    },
    MediaFormatInfo {
        format: MediaFormat::ThreeGpp,
        name: "3gp",
        display: "3GPP",
        extensions: &["3gp", "3g2"],
        mimes: &["video/3gpp", "video/3gpp2"],
        signature: Signature::Brands {
            strong: &[b"3gp4", b"3gp5", b"3gp6", b"3gp7", b"3ge6", b"3ge7", b"3gg6", b"3gs7"],
            weak: &[b"3g2a", b"3g2b", b"3g2c"],
        },
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::QuickTime,
        name: "mov",
        display: "QuickTime",
        extensions: &["mov", "qt"],
        mimes: &["video/quicktime"],
        signature: Signature::Brands { strong: &[b"qt  "], weak: &[] },
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::Mp4,
        name: "mp4",
        display: "MP4",
        extensions: &["mp4", "m4v"],
        mimes: &["video/mp4", "video/x-m4v"],
        signature: Signature::Brands {
            strong: &[
                b"isom", b"iso2", b"iso3", b"iso4", b"iso5", b"iso6", b"iso8", b"mp41", b"mp42", b"avc1", b"dash",
                b"M4V ", b"M4VH", b"M4VP", b"MSNV", b"f4v ", b"mmp4", b"XAVC", b"cmfc", b"av01",
            ],
            weak: &[],
        },
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::Matroska,
        name: "mkv",
        display: "Matroska",
        extensions: &["mkv"],
        mimes: &["video/x-matroska"],
        signature: Signature::Ebml { doctype: b"matroska" },
        video: Some(VideoContainer::Matroska),
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::Webm,
        name: "webm",
        display: "WebM",
        extensions: &["webm"],
        mimes: &["video/webm"],
        signature: Signature::Ebml { doctype: b"webm" },
        video: Some(VideoContainer::Matroska),
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::Avi,
        name: "avi",
        display: "AVI",
        extensions: &["avi"],
        mimes: &["video/x-msvideo"],
        signature: Signature::Magic { any: &[&[(0, b"RIFF"), (8, b"AVI ")]], unless: None },
        video: Some(VideoContainer::Avi),
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::MpegTs,
        name: "ts",
        display: "MPEG transport stream",
        extensions: &["ts", "mts", "m2ts"],
        mimes: &["video/mp2t"],
        // Three packets' sync bytes (188-byte packets), or of 192-byte ones (a timestamp before each:
        // `.m2ts`, `.mts`).
        signature: Signature::Magic {
            any: &[&[(0, b"\x47"), (188, b"\x47"), (376, b"\x47")], &[(4, b"\x47"), (196, b"\x47"), (388, b"\x47")]],
            unless: None,
        },
        video: Some(VideoContainer::MpegTs),
        ..VIDEO
    },
    MediaFormatInfo {
        format: MediaFormat::Binary,
        name: "binary",
        display: "binary data",
        extensions: &["bin"],
        mimes: &["application/octet-stream"],
        ..STORED
    },
];

/// The content type of the API's JSON bodies: JSON's media type, in UTF-8.
pub const JSON_UTF8: &str = "application/json; charset=utf-8";

/// The body of a resumable upload's `PATCH`: bytes at an offset, the TUS protocol's own media type (a
/// protocol's, not a format a file is stored as).
pub const TUS_CHUNK: &str = "application/offset+octet-stream";

impl MediaFormat {
    /// Every format, in the table's order.
    pub fn all() -> impl Iterator<Item = Self> {
        MEDIA_FORMATS.iter().map(|info| info.format)
    }

    /// The format's row: `MEDIA_FORMATS` lists the formats in the enum's order
    /// (`every_row_keeps_what_its_columns_promise`), so this is an index, not a search.
    pub fn info(self) -> &'static MediaFormatInfo {
        &MEDIA_FORMATS[self as usize]
    }

    /// The format a name or alias names, whatever its case (`format=JPG`).
    pub fn from_name(name: &str) -> Option<Self> {
        MEDIA_FORMATS
            .iter()
            .find(|info| {
                info.name.eq_ignore_ascii_case(name) || info.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            })
            .map(|info| info.format)
    }

    /// The format a file name's extension names, whatever its case (`cat.Tif`).
    pub fn from_extension(extension: &str) -> Option<Self> {
        MEDIA_FORMATS
            .iter()
            .find(|info| info.extensions.iter().any(|e| e.eq_ignore_ascii_case(extension)))
            .map(|info| info.format)
    }

    /// The format of a media type (lower-case, without parameters), by any of its row's types.
    pub fn from_mime(mime: &str) -> Option<Self> {
        MEDIA_FORMATS.iter().find(|info| info.mimes.contains(&mime)).map(|info| info.format)
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The media type it is recorded and served as.
    pub fn mime(self) -> &'static str {
        self.info().mimes[0]
    }

    /// The extension of a file of it the service names.
    pub fn extension(self) -> &'static str {
        self.info().extensions[0]
    }

    /// Whether a request that names it (`format=bmp`) is answered with the original: it is named but never
    /// written.
    pub fn serves_original(self) -> bool {
        let info = self.info();
        info.requestable && !info.encodable
    }
}

/// The media type the rows' signatures give `head` (an object's first bytes), in the table's order, and
/// `text`, its start as lower-case text. `None` when no row's signature matches.
pub(crate) fn recognise(head: &[u8], text: &str) -> Option<&'static str> {
    MEDIA_FORMATS.iter().find_map(|info| match info.signature {
        Signature::Markup { starts, contains } => {
            let holds = contains.is_none_or(|inner| text.contains(inner));
            (starts.iter().any(|start| text.starts_with(start)) && holds).then_some(info.mimes[0])
        }
        _ => binary_signature(info, head),
    })
}

impl MediaFormat {
    /// The format whose magic bytes or ISO-BMFF brands `head` starts with, in the table's order: what an
    /// image decoder takes its input for. Markup and declared-only formats are never told this way.
    pub fn from_signature(head: &[u8]) -> Option<Self> {
        MEDIA_FORMATS.iter().find(|info| binary_signature(info, head).is_some()).map(|info| info.format)
    }
}

/// The media type `info`'s magic bytes or brands give `head`, if they match it.
fn binary_signature(info: &MediaFormatInfo, head: &[u8]) -> Option<&'static str> {
    match info.signature {
        Signature::Magic { any, unless } => {
            let at = |(offset, bytes): (usize, &[u8])| head.get(offset..).is_some_and(|rest| rest.starts_with(bytes));
            let matches = any.iter().any(|all| all.iter().all(|&part| at(part)));
            (matches && !unless.is_some_and(at)).then_some(info.mimes[0])
        }
        Signature::Brands { strong, weak } => {
            let brands = ftyp_brands(head);
            if brands.clone().any(|brand| strong.contains(&brand)) {
                Some(info.mimes[0])
            } else if brands.clone().any(|brand| weak.contains(&brand)) {
                info.mimes.get(1).copied()
            } else {
                None
            }
        }
        Signature::Ebml { doctype } => ebml_doctype(head).filter(|found| *found == doctype).map(|_| info.mimes[0]),
        Signature::Markup { .. } | Signature::Declared => None,
    }
}

/// The `DocType` of an EBML header at the start of `head`: the bytes after its element id (`42 82`) and a
/// one-byte size, within the header's first 64 bytes.
fn ebml_doctype(head: &[u8]) -> Option<&[u8]> {
    if !head.starts_with(b"\x1A\x45\xDF\xA3") {
        return None;
    }
    let window = &head[..head.len().min(64)];
    let at = window.windows(2).position(|pair| pair == b"\x42\x82")? + 2;
    let size = usize::from(*window.get(at)? & 0x7F);
    // A one-byte EBML size has its top bit set (`1xxx xxxx`); anything else is not a DocType this short.
    (window[at] & 0x80 != 0).then_some(())?;
    head.get(at + 1..at + 1 + size)
}

/// The major and compatible brands of an ISO-BMFF `ftyp` box at the start of `head` (none when it has
/// none), within the box's length and the bytes present.
fn ftyp_brands(head: &[u8]) -> impl Iterator<Item = &[u8; 4]> + Clone {
    let brands: &[u8] = if head.len() >= 16 && &head[4..8] == b"ftyp" {
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        &head[8..length.clamp(16, head.len())]
    } else {
        &[]
    };
    // The major brand, then (past the minor version) the compatible ones.
    let major = brands.get(..4).unwrap_or(&[]);
    let compatible = brands.get(8..).unwrap_or(&[]);
    major.chunks_exact(4).chain(compatible.chunks_exact(4)).filter_map(|chunk| chunk.try_into().ok())
}

#[cfg(test)]
mod tests;
