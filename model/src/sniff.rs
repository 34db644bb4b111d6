//! Deciding what a stored object really is. The declared MIME type is a claim; the first bytes are
//! evidence. A claim to be an image, video or audio that the bytes do not back becomes
//! `application/octet-stream`, so a file declared `image/png` that is really HTML is never typed `image`.
//! What each format's bytes look like, and what the service does with it, is its row of `crate::media`.

use crate::media::{FileKind, MediaFormat, recognise};

/// A file's media type as sniffed (`rawType`): lower-case `type/subtype` without parameters. What the
/// service does with a file by its type (render it, show it inline, draw a placeholder) is asked of this
/// type, so each such rule is written once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MediaType(String);

impl MediaType {
    /// A type as recorded (sniffed before it was stored).
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `type` of the file object.
    pub fn kind(&self) -> FileKind {
        FileKind::of_mime(&self.0)
    }

    /// Its row of the format table, when it has one.
    pub fn format(&self) -> Option<MediaFormat> {
        MediaFormat::from_mime(&self.0)
    }

    /// An image made of pixels: every image type but SVG (whose thumbnail is a placeholder).
    pub fn is_raster_image(&self) -> bool {
        self.format().map_or(self.kind() == FileKind::Image, |format| format.info().raster)
    }

    /// An image that delivery transforms; everything else, SVG and BMP originals included, is served as
    /// stored whatever the query asks (docs/transformations.md, "Originals passed through"). An image type
    /// of no row (`image/x-icon`) is tried, and refused by the pipeline if it cannot read it.
    pub fn is_transformable(&self) -> bool {
        self.format().map_or(self.kind() == FileKind::Image, |format| format.info().transformable)
    }

    /// Whether a browser may show the file in place rather than download it: raster images, video, audio,
    /// plain text, JSON and PDF. Anything else (SVG and HTML above all) is served as an attachment.
    pub fn displays_inline(&self) -> bool {
        match self.format() {
            Some(format) => format.info().inline,
            None => matches!(self.0.split_once('/'), Some(("image" | "video" | "audio", _))),
        }
    }
}

impl std::fmt::Display for MediaType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The outcome of sniffing: the media type to record (`rawType`) and the kind derived from it (`type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SniffedType {
    pub mime: MediaType,
    pub kind: FileKind,
}

/// How many leading bytes `sniff` looks at.
pub const SNIFF_BYTES: usize = 8192;

/// Checks a declared MIME type's syntax (`type/subtype`, RFC 6838 token characters) and returns it
/// lower-cased without parameters.
pub fn normalize_mime(declared: &str) -> Option<String> {
    let essence = declared.split(';').next()?.trim().to_ascii_lowercase();
    let (top, sub) = essence.split_once('/')?;
    let token = |s: &str| {
        (1..=127).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
    };
    (token(top) && token(sub)).then_some(essence)
}

/// Decides `rawType` from the declared type and the object's first bytes (up to `SNIFF_BYTES`).
pub fn sniff(declared: &str, head: &[u8]) -> SniffedType {
    let declared = normalize_mime(declared).unwrap_or_else(|| MediaFormat::Binary.mime().into());
    let mime = MediaType(sniffed_mime(&declared, head));
    SniffedType { kind: mime.kind(), mime }
}

fn sniffed_mime(declared: &str, head: &[u8]) -> String {
    let text = leading_text(head);
    // The table's signatures first: `infer` misses formats the pipeline reads (every TIFF, as it refuses
    // one with `C` at byte 8 or `R` at byte 9 and knows no BigTIFF; HEIF by most of its brands, which it
    // takes for MP4 video), and reports SVG as generic XML.
    if let Some(mime) = recognise(head, &text) {
        return mime.into();
    }
    if let Some(kind) = infer::get(head) {
        return kind.mime_type().to_owned();
    }
    let binary_claim =
        declared.split_once('/').is_some_and(|(top, _)| ["image", "video", "audio", "font"].contains(&top));
    if binary_claim {
        return MediaFormat::Binary.mime().into();
    }
    if declared == MediaFormat::Json.mime() && !(text.starts_with('{') || text.starts_with('[')) {
        return MediaFormat::Text.mime().into();
    }
    declared.to_owned()
}

/// The start of the object as lower-case text, byte-order mark and leading white space removed.
fn leading_text(head: &[u8]) -> String {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let head = &head[..head.len().min(1024)];
    String::from_utf8_lossy(head).trim_start().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn the_bytes_win_over_the_claim() {
        assert_eq!(sniff("image/jpeg", PNG), SniffedType { mime: MediaType::new("image/png"), kind: FileKind::Image });
        let html = sniff("image/png", b"<!DOCTYPE html><script>alert(1)</script>");
        assert_eq!(html.mime.as_str(), "text/html");
        assert_eq!(html.kind, FileKind::File);
        for kind in [FileKind::Image, FileKind::Video, FileKind::Json, FileKind::File] {
            assert_eq!(FileKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(FileKind::parse("Image"), None);
        assert_eq!(sniff("image/png", b"just text").mime.as_str(), "application/octet-stream");
        assert_eq!(sniff("image/png", b"").kind, FileKind::File);
    }

    /// `ftyp` box of `brands` (major first; a zero minor version after it).
    fn ftyp(brands: &[&[u8; 4]]) -> Vec<u8> {
        let mut body: Vec<u8> = brands[0].to_vec();
        body.extend_from_slice(&[0; 4]);
        brands[1..].iter().for_each(|brand| body.extend_from_slice(*brand));
        let mut out = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(b"ftyp");
        out.extend_from_slice(&body);
        out.extend_from_slice(b"\0\0\0\x08meta");
        out
    }

    #[test]
    fn every_image_format_the_pipeline_reads_is_an_image() {
        let cases: [(Vec<u8>, &str); 12] = [
            (b"II*\0\x08\0\0\0\0\0".to_vec(), "image/tiff"),
            // Bytes 8 and 9 that `infer` takes for something else.
            (b"II*\0\x08\0\0\0CX\0\0".to_vec(), "image/tiff"),
            (b"MM\0*\0\0\0\x08\0R\0\0".to_vec(), "image/tiff"),
            (b"II+\0\x08\0\0\0\x10\0\0\0\0\0\0\0".to_vec(), "image/tiff"),
            (b"MM\0+\0\x08\0\0\0\0\0\0\0\0\0\x10".to_vec(), "image/tiff"),
            (ftyp(&[b"heic", b"mif1", b"heic"]), "image/heic"),
            (ftyp(&[b"mif1", b"heic"]), "image/heic"),
            (ftyp(&[b"msf1", b"hevc"]), "image/heic"),
            (ftyp(&[b"mif1", b"miaf"]), "image/heif"),
            (ftyp(&[b"mif1", b"avif", b"miaf"]), "image/avif"),
            (b"\xFF\x0A\xFA\x7F".to_vec(), "image/jxl"),
            (b"\0\0\0\x0cJXL \r\n\x87\n\0\0\0\x14ftypjxl ".to_vec(), "image/jxl"),
        ];
        for (head, mime) in cases {
            let sniffed = sniff("application/octet-stream", &head);
            assert_eq!(sniffed.mime.as_str(), mime, "{head:?}");
            assert!(sniffed.kind == FileKind::Image && sniffed.mime.is_transformable(), "{mime}");
        }
        // An MP4 stays a video, a Canon raw file what `infer` says it is.
        assert_eq!(sniff("video/mp4", &ftyp(&[b"isom", b"mp41"])).kind, FileKind::Video);
        assert_eq!(sniff("image/tiff", b"II*\0\x10\0\0\0CR\x02\0").mime.as_str(), "image/x-canon-cr2");
    }

    #[test]
    fn text_formats_keep_their_declared_type() {
        assert_eq!(sniff("application/json", b" {\"a\":1}").kind, FileKind::Json);
        assert_eq!(sniff("application/json", b"nope").mime.as_str(), "text/plain");
        assert_eq!(sniff("text/csv; charset=utf-8", b"a,b\n1,2").mime.as_str(), "text/csv");
        assert_eq!(sniff("not a mime", b"a,b").mime.as_str(), "application/octet-stream");
    }

    #[test]
    fn svg_is_recognised_as_an_image() {
        let svg = sniff("image/svg+xml", b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        assert_eq!(svg, SniffedType { mime: MediaType::new("image/svg+xml"), kind: FileKind::Image });
        assert!(!svg.mime.is_raster_image() && !svg.mime.is_transformable() && !svg.mime.displays_inline());
    }

    #[test]
    fn what_each_type_is_served_as() {
        // (type, raster image, transformed, shown inline)
        for (mime, raster, transformed, inline) in [
            ("image/jpeg", true, true, true),
            ("image/png", true, true, true),
            ("image/bmp", true, false, true),
            ("image/svg+xml", false, false, false),
            ("video/mp4", false, false, true),
            ("audio/mpeg", false, false, true),
            ("text/plain", false, false, true),
            ("application/json", false, false, true),
            ("application/pdf", false, false, true),
            ("text/html", false, false, false),
            ("application/octet-stream", false, false, false),
        ] {
            let media = MediaType::new(mime);
            assert_eq!(
                (media.is_raster_image(), media.is_transformable(), media.displays_inline()),
                (raster, transformed, inline),
                "{mime}"
            );
        }
    }

    #[test]
    fn mime_syntax() {
        assert_eq!(normalize_mime("Image/PNG").as_deref(), Some("image/png"));
        assert_eq!(normalize_mime("text/plain; charset=utf-8").as_deref(), Some("text/plain"));
        for bad in ["", "image", "image/", "/png", "ima ge/png", "image/png/x"] {
            assert_eq!(normalize_mime(bad), None, "{bad:?}");
        }
    }
}
