//! Placeholder thumbnails for files that have no picture of their own (videos, documents, SVG, images we
//! cannot decode): a 256×256 PNG per category, drawn from simple shapes so it needs no font or asset file.
//! The drawing is deterministic, so a placeholder's bytes never change between builds of one version.

use image::{ImageFormat, Rgba, RgbaImage};

/// Side of a placeholder, equal to the thumbnail preset's.
pub const PLACEHOLDER_SIZE: u32 = 256;

/// What a file is, as far as its placeholder goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlaceholderKind {
    /// An image we do not rasterise (SVG) or could not decode.
    Image,
    Video,
    Audio,
    /// PDF, text, office documents.
    Document,
    /// JSON, XML, source code.
    Data,
    /// zip, tar, gzip and the like.
    Archive,
    Other,
}

impl PlaceholderKind {
    /// The category of a MIME type.
    pub fn of_mime(mime: &str) -> Self {
        let (top, sub) = mime.split_once('/').unwrap_or((mime, ""));
        match top {
            "image" => Self::Image,
            "video" => Self::Video,
            "audio" => Self::Audio,
            "text" if matches!(sub, "csv" | "xml" | "javascript" | "css" | "html") => Self::Data,
            "text" => Self::Document,
            _ if sub.contains("json") || sub.contains("xml") || sub == "javascript" => Self::Data,
            _ if sub == "pdf" || sub.contains("document") || sub.contains("msword") || sub.contains("rtf") => {
                Self::Document
            }
            _ if ["zip", "x-tar", "gzip", "x-7z-compressed", "x-bzip2", "x-xz", "zstd", "x-rar-compressed"]
                .contains(&sub) =>
            {
                Self::Archive
            }
            _ => Self::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Video => "video",
            Self::Audio => "audio",
            Self::Document => "document",
            Self::Data => "data",
            Self::Archive => "archive",
            Self::Other => "other",
        }
    }

    fn accent(self) -> [u8; 3] {
        match self {
            Self::Image => [0x2e, 0x9d, 0x6a],
            Self::Video => [0xd9, 0x48, 0x3b],
            Self::Audio => [0x8e, 0x44, 0xad],
            Self::Document => [0x2f, 0x6f, 0xd6],
            Self::Data => [0xe0, 0x8e, 0x0b],
            Self::Archive => [0x7a, 0x5c, 0x3e],
            Self::Other => [0x6b, 0x72, 0x80],
        }
    }
}

/// The placeholder of a category, PNG-encoded.
pub fn placeholder_png(kind: PlaceholderKind) -> Vec<u8> {
    let canvas = draw(kind);
    let mut out = std::io::Cursor::new(Vec::new());
    // Encoding an in-memory RGBA image of fixed size cannot fail short of allocation failure.
    if canvas.write_to(&mut out, ImageFormat::Png).is_err() {
        return Vec::new();
    }
    out.into_inner()
}

fn rgba([r, g, b]: [u8; 3]) -> Rgba<u8> {
    Rgba([r, g, b, 255])
}

fn fill(canvas: &mut RgbaImage, color: Rgba<u8>, inside: impl Fn(f32, f32) -> bool) {
    for (x, y, pixel) in canvas.enumerate_pixels_mut() {
        // Sample at the pixel centre.
        if inside(x as f32 + 0.5, y as f32 + 0.5) {
            *pixel = color;
        }
    }
}

fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> impl Fn(f32, f32) -> bool {
    move |x, y| x >= x0 && x < x1 && y >= y0 && y < y1
}

fn triangle(a: (f32, f32), b: (f32, f32), c: (f32, f32)) -> impl Fn(f32, f32) -> bool {
    let side = move |p: (f32, f32), q: (f32, f32), x: f32, y: f32| (q.0 - p.0) * (y - p.1) - (q.1 - p.1) * (x - p.0);
    move |x, y| {
        let (d1, d2, d3) = (side(a, b, x, y), side(b, c, x, y), side(c, a, x, y));
        (d1 >= 0.0 && d2 >= 0.0 && d3 >= 0.0) || (d1 <= 0.0 && d2 <= 0.0 && d3 <= 0.0)
    }
}

fn draw(kind: PlaceholderKind) -> RgbaImage {
    let background = rgba([0xee, 0xf0, 0xf3]);
    let page = rgba([0xff, 0xff, 0xff]);
    let accent = rgba(kind.accent());
    let mut canvas = RgbaImage::from_pixel(PLACEHOLDER_SIZE, PLACEHOLDER_SIZE, background);

    // A page with a folded corner, and a band in the category's colour along its foot.
    fill(&mut canvas, rgba([0xd5, 0xd9, 0xe0]), rect(66.0, 38.0, 194.0, 222.0));
    fill(&mut canvas, page, |x, y| rect(68.0, 40.0, 192.0, 220.0)(x, y) && !(x > 160.0 && y < 40.0 + (x - 160.0)));
    fill(&mut canvas, rgba([0xd5, 0xd9, 0xe0]), triangle((160.0, 40.0), (160.0, 72.0), (192.0, 72.0)));
    fill(&mut canvas, accent, rect(68.0, 196.0, 192.0, 220.0));

    match kind {
        PlaceholderKind::Image => {
            fill(&mut canvas, accent, |x, y| (x - 150.0).powi(2) + (y - 92.0).powi(2) <= 144.0);
            fill(&mut canvas, accent, triangle((80.0, 180.0), (118.0, 110.0), (156.0, 180.0)));
            fill(&mut canvas, accent, triangle((130.0, 180.0), (156.0, 134.0), (182.0, 180.0)));
        }
        PlaceholderKind::Video => {
            fill(&mut canvas, accent, triangle((108.0, 96.0), (108.0, 168.0), (162.0, 132.0)));
        }
        PlaceholderKind::Audio => {
            for (i, height) in [28.0, 56.0, 80.0, 44.0, 64.0, 24.0].into_iter().enumerate() {
                let x = 84.0 + 16.0 * i as f32;
                fill(&mut canvas, accent, rect(x, 170.0 - height, x + 10.0, 170.0));
            }
        }
        PlaceholderKind::Document => {
            for i in 0..6 {
                let y = 90.0 + 16.0 * i as f32;
                let end = if i == 5 { 140.0 } else { 172.0 };
                fill(&mut canvas, accent, rect(86.0, y, end, y + 6.0));
            }
        }
        PlaceholderKind::Data => {
            // "< >"
            fill(&mut canvas, accent, |x, y| {
                let left =
                    (x - 86.0) >= 0.0 && (x - 86.0) <= 30.0 && ((y - 130.0).abs() - (x - 86.0) * 1.2).abs() < 6.0;
                let right =
                    (170.0 - x) >= 0.0 && (170.0 - x) <= 30.0 && ((y - 130.0).abs() - (170.0 - x) * 1.2).abs() < 6.0;
                left || right
            });
        }
        PlaceholderKind::Archive => {
            for i in 0..7 {
                let y = 60.0 + 18.0 * i as f32;
                let x = if i % 2 == 0 { 118.0 } else { 128.0 };
                fill(&mut canvas, accent, rect(x, y, x + 10.0, y + 10.0));
            }
            fill(&mut canvas, accent, rect(114.0, 186.0 - 8.0, 142.0, 192.0));
        }
        PlaceholderKind::Other => {}
    }
    canvas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories() {
        assert_eq!(PlaceholderKind::of_mime("image/svg+xml"), PlaceholderKind::Image);
        assert_eq!(PlaceholderKind::of_mime("video/mp4"), PlaceholderKind::Video);
        assert_eq!(PlaceholderKind::of_mime("audio/mpeg"), PlaceholderKind::Audio);
        assert_eq!(PlaceholderKind::of_mime("application/pdf"), PlaceholderKind::Document);
        assert_eq!(PlaceholderKind::of_mime("text/plain"), PlaceholderKind::Document);
        assert_eq!(PlaceholderKind::of_mime("application/json"), PlaceholderKind::Data);
        assert_eq!(PlaceholderKind::of_mime("application/zip"), PlaceholderKind::Archive);
        assert_eq!(PlaceholderKind::of_mime("application/octet-stream"), PlaceholderKind::Other);
        assert_eq!(PlaceholderKind::of_mime("garbage"), PlaceholderKind::Other);
    }

    #[test]
    fn placeholders_are_distinct_deterministic_pngs() {
        let kinds = [
            PlaceholderKind::Image,
            PlaceholderKind::Video,
            PlaceholderKind::Audio,
            PlaceholderKind::Document,
            PlaceholderKind::Data,
            PlaceholderKind::Archive,
            PlaceholderKind::Other,
        ];
        let pngs: Vec<_> = kinds.iter().map(|k| placeholder_png(*k)).collect();
        for (kind, png) in kinds.iter().zip(&pngs) {
            let image = image::load_from_memory(png).unwrap();
            assert_eq!((image.width(), image.height()), (PLACEHOLDER_SIZE, PLACEHOLDER_SIZE), "{kind:?}");
            assert_eq!(&placeholder_png(*kind), png);
        }
        for i in 0..pngs.len() {
            for j in i + 1..pngs.len() {
                assert_ne!(pngs[i], pngs[j]);
            }
        }
    }
}
