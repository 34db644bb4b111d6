//! The file object (docs/api.md, "The file object"), built from a stored record and the service's public
//! addresses.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use poem_openapi::Object;
use shutterbox_metadata::FileRecord;
use shutterbox_model::{FocalPoint, FolderId, human_size, iso_millis, time_ago};

use crate::{
    delivery::{DELIVER_FILE, GET_THUMBNAIL},
    state::Settings,
};

/// A stored file.
#[derive(Debug, Clone, Object)]
#[oai(example, rename = "File", rename_all = "camelCase")]
pub struct FileObject {
    /// Unique identifier (UUID).
    pub id: String,
    /// Name of the file: the customFilename when one was given, else the original filename.
    pub name: String,
    /// Public delivery URL; needs no authentication.
    pub secure_url: String,
    /// Public thumbnail URL, `{base_url}/files/<id>/thumbnail`; needs no authentication.
    pub secure_thumbnail_url: String,
    /// Public URL of the stored bytes, unchanged.
    pub raw_url: String,
    /// `image`, `video`, `json` or `file`, from the type sniffed from the bytes.
    #[oai(rename = "type")]
    pub kind: String,
    /// MIME type sniffed from the bytes, or the declared one when the bytes identify none.
    pub raw_type: String,
    /// Human-readable size, e.g. `1.5 MB` (1024-based).
    pub size: String,
    /// Size in bytes.
    pub raw_size: u64,
    /// Time since the last update, e.g. `Just now` or `3 hours ago`.
    pub updated: String,
    /// Time of the last update, ISO 8601 UTC with milliseconds.
    pub raw_updated: String,
    /// The containing folder's id; null when the file is in no folder.
    #[oai(nullable)]
    pub folder_id: Option<String>,
    /// Where `gravity=focus` centres a crop, set by `PATCH /files/{id}`; null when none is set (the crop
    /// then follows `gravity=attention`).
    #[oai(nullable)]
    pub focus: Option<Focus>,
    /// An image's width in pixels as delivered (after its EXIF orientation), or a video's as displayed
    /// (after the rotation its container states), from its headers; null for a file that is neither, a
    /// video with no picture, or one whose headers could not be read.
    #[oai(nullable)]
    pub width: Option<u32>,
    /// An image's or a video's height in pixels, as `width`; null as `width` is.
    #[oai(nullable)]
    pub height: Option<u32>,
    /// Whether an image has an alpha channel, from its headers; null as `width` is.
    #[oai(nullable)]
    pub has_alpha: Option<bool>,
    /// Whether an image has more than one frame (an animated GIF, WebP, PNG or AVIF); null as `width` is.
    #[oai(nullable)]
    pub animated: Option<bool>,
    /// An image's frames (1 for a still), or a video's where its container states them (MP4, QuickTime
    /// and AVI do; Matroska, WebM and transport streams do not); null otherwise.
    #[oai(nullable)]
    pub frame_count: Option<u64>,
    /// A video's duration in milliseconds, from its container's headers; null for a file that is no
    /// video, or whose container states none.
    #[oai(nullable)]
    pub duration: Option<u64>,
    /// A video's frames per second as its container states them (e.g. 29.97, to three decimals); null as
    /// `duration` is.
    #[oai(nullable)]
    pub frame_rate: Option<f64>,
    /// A video's picture codec, by FFmpeg's name (`h264`, `hevc`, `vp9`, `av1`, `prores`…); null for a file
    /// that is no video, or a video with no picture.
    #[oai(nullable)]
    pub video_codec: Option<String>,
    /// A video's sound codec, by FFmpeg's name (`aac`, `opus`, `mp3`…); null for a video without sound, and
    /// for a file that is no video.
    #[oai(nullable)]
    pub audio_codec: Option<String>,
    /// A video's bits per second over the whole file (its size over its duration); null as `duration` is.
    #[oai(nullable)]
    pub bitrate: Option<u64>,
    /// An image's most common colour, `#rrggbb` (sRGB). Computed from its pixels by a job after the upload
    /// is confirmed (or by `shutterbox backfill`): null until it has run, and for a file that is no image.
    #[oai(nullable)]
    pub dominant_color: Option<String>,
    /// ThumbHash of an image (base64), for a placeholder that keeps its aspect ratio and alpha; null as
    /// `dominantColor` is.
    #[oai(nullable)]
    pub thumbhash: Option<String>,
    /// BlurHash of an image (4×3 components; transparency taken as white); null as `dominantColor` is.
    #[oai(nullable)]
    pub blurhash: Option<String>,
    /// A tiny image of the picture (16 pixels on its longer side) as a `data:image/webp;base64,…` URL,
    /// ready for Next.js' `blurDataURL` or a CSS background; null as `dominantColor` is.
    #[oai(nullable)]
    pub placeholder: Option<String>,
}

/// A point of the picture as fractions of its width and height, 0,0 the top left (up to four decimals).
#[derive(Debug, Clone, Copy, PartialEq, Object, serde::Deserialize)]
#[oai(example)]
pub struct Focus {
    /// From 0 (left) to 1 (right).
    #[oai(validator(minimum(value = "0"), maximum(value = "1")))]
    pub x: f64,
    /// From 0 (top) to 1 (bottom).
    #[oai(validator(minimum(value = "0"), maximum(value = "1")))]
    pub y: f64,
}

impl From<FocalPoint> for Focus {
    fn from(point: FocalPoint) -> Self {
        Self { x: point.x_fraction(), y: point.y_fraction() }
    }
}

/// Characters kept as they are in a URL path segment: RFC 3986 unreserved.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A stored path with each segment percent-encoded.
pub fn encode_path(path: &str) -> String {
    path.split('/').map(|segment| utf8_percent_encode(segment, SEGMENT).to_string()).collect::<Vec<_>>().join("/")
}

impl FileObject {
    pub fn new(file: FileRecord, settings: &Settings, now_ms: i64) -> Self {
        let path = encode_path(&file.path.to_string());
        let video = file.video.as_ref();
        Self {
            secure_url: DELIVER_FILE.url(&settings.base_url, &[&path]),
            secure_thumbnail_url: GET_THUMBNAIL.url(&settings.base_url, &[file.id.as_str()]),
            raw_url: format!("{}/{path}", settings.raw_base_url),
            kind: file.kind.as_str().to_owned(),
            raw_type: file.raw_type.to_string(),
            size: human_size(file.size),
            raw_size: file.size,
            updated: time_ago(now_ms, file.updated_at_ms),
            raw_updated: iso_millis(file.updated_at_ms),
            folder_id: file.folder_id.map(FolderId::into_string),
            focus: file.focus.map(Focus::from),
            width: file.facts.map(|f| f.width).or(video.and_then(|v| v.size).map(|(w, _)| w)),
            height: file.facts.map(|f| f.height).or(video.and_then(|v| v.size).map(|(_, h)| h)),
            has_alpha: file.facts.map(|f| f.has_alpha),
            animated: file.facts.map(|f| f.animated()),
            frame_count: file.facts.map(|f| u64::from(f.frame_count)).or(video.and_then(|v| v.frame_count)),
            duration: video.and_then(|v| v.duration_ms),
            frame_rate: video.and_then(|v| v.frame_rate).map(|rate| (rate.per_second() * 1000.0).round() / 1000.0),
            video_codec: video.and_then(|v| v.video_codec.clone()),
            audio_codec: video.and_then(|v| v.audio_codec.clone()),
            bitrate: video.and_then(|v| v.bitrate),
            dominant_color: file.summary.as_ref().map(|s| s.dominant_color.hex()),
            thumbhash: file.summary.as_ref().map(|s| s.thumbhash.clone()),
            blurhash: file.summary.as_ref().map(|s| s.blurhash.clone()),
            placeholder: file.summary.map(|s| s.placeholder),
            id: file.id.into_string(),
            name: file.name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded_but_separators_kept() {
        assert_eq!(encode_path("acme/my photos/cat #1.jpg"), "acme/my%20photos/cat%20%231.jpg");
        assert_eq!(encode_path("acme/été.png"), "acme/%C3%A9t%C3%A9.png");
        assert_eq!(encode_path("a/b-c_d~e.f"), "a/b-c_d~e.f");
    }
}
