//! Deciding what a stored object really is. The declared MIME type is a claim; the first bytes are
//! evidence. A claim to be an image, video or audio that the bytes do not back becomes
//! `application/octet-stream`, so a file declared `image/png` that is really HTML is never typed `image`.

/// The `type` field of the file object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Image,
    Video,
    Json,
    File,
}

impl FileKind {
    pub fn of_mime(mime: &str) -> Self {
        if mime.starts_with("image/") {
            Self::Image
        } else if mime.starts_with("video/") {
            Self::Video
        } else if mime == "application/json" {
            Self::Json
        } else {
            Self::File
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

/// The outcome of sniffing: the MIME type to record (`rawType`) and the kind derived from it (`type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SniffedType {
    pub mime: String,
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
    let declared = normalize_mime(declared).unwrap_or_else(|| "application/octet-stream".into());
    let mime = sniffed_mime(&declared, head);
    SniffedType { kind: FileKind::of_mime(&mime), mime }
}

fn sniffed_mime(declared: &str, head: &[u8]) -> String {
    // SVG first: infer reports it as generic XML.
    let text = leading_text(head);
    if looks_like_svg(&text) {
        return "image/svg+xml".into();
    }
    if let Some(kind) = infer::get(head) {
        return kind.mime_type().to_owned();
    }
    if looks_like_html(&text) {
        return "text/html".into();
    }
    let binary_claim = ["image/", "video/", "audio/", "font/"].iter().any(|top| declared.starts_with(top));
    if binary_claim {
        return "application/octet-stream".into();
    }
    if declared == "application/json" && !(text.starts_with('{') || text.starts_with('[')) {
        return "text/plain".into();
    }
    declared.to_owned()
}

/// The start of the object as lower-case text, byte-order mark and leading white space removed.
fn leading_text(head: &[u8]) -> String {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let head = &head[..head.len().min(1024)];
    String::from_utf8_lossy(head).trim_start().to_ascii_lowercase()
}

fn looks_like_svg(text: &str) -> bool {
    (text.starts_with("<svg") || text.starts_with("<?xml") || text.starts_with("<!doctype svg"))
        && text.contains("<svg")
}

fn looks_like_html(text: &str) -> bool {
    ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe", "<meta", "<title", "<div"]
        .iter()
        .any(|tag| text.starts_with(tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn the_bytes_win_over_the_claim() {
        assert_eq!(sniff("image/jpeg", PNG), SniffedType { mime: "image/png".into(), kind: FileKind::Image });
        let html = sniff("image/png", b"<!DOCTYPE html><script>alert(1)</script>");
        assert_eq!(html.mime, "text/html");
        assert_eq!(html.kind, FileKind::File);
        for kind in [FileKind::Image, FileKind::Video, FileKind::Json, FileKind::File] {
            assert_eq!(FileKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(FileKind::parse("Image"), None);
        assert_eq!(sniff("image/png", b"just text").mime, "application/octet-stream");
        assert_eq!(sniff("image/png", b"").kind, FileKind::File);
    }

    #[test]
    fn text_formats_keep_their_declared_type() {
        assert_eq!(sniff("application/json", b" {\"a\":1}").kind, FileKind::Json);
        assert_eq!(sniff("application/json", b"nope").mime, "text/plain");
        assert_eq!(sniff("text/csv; charset=utf-8", b"a,b\n1,2").mime, "text/csv");
        assert_eq!(sniff("not a mime", b"a,b").mime, "application/octet-stream");
    }

    #[test]
    fn svg_is_recognised_as_an_image() {
        let svg = sniff("image/svg+xml", b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        assert_eq!(svg, SniffedType { mime: "image/svg+xml".into(), kind: FileKind::Image });
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
