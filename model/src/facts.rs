//! What a front end needs to know about a picture without fetching it (docs/api.md, "Image facts"): its
//! `ImageFacts`, read from its headers when the upload is confirmed, and its `PixelSummary`, computed from
//! its pixels once afterwards by a job. Stored with the file and shown in the file object.

use crate::FocalPoint;

/// What an image's headers say, as it is delivered: the size after its EXIF orientation (or HEIF
/// transformations) turns it, whether it has an alpha channel, and how many frames it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageFacts {
    pub width: u32,
    pub height: u32,
    pub has_alpha: bool,
    /// 1 for a still image; the frames delivery animates for an animation.
    pub frame_count: u32,
}

impl ImageFacts {
    pub fn animated(&self) -> bool {
        self.frame_count > 1
    }
}

/// What a video's container headers say, read without decoding a frame (docs/api.md, "Video facts").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoFacts {
    /// The picture's size as it is displayed: the first video track's coded size, turned by the rotation
    /// of its display matrix; none for a file with no video track (sound alone).
    pub size: Option<(u32, u32)>,
    /// Degrees clockwise the coded picture turns to be displayed: 0, 90, 180 or 270.
    pub rotation: u16,
    /// In milliseconds, where the container states it.
    pub duration_ms: Option<u64>,
    pub frame_rate: Option<FrameRate>,
    /// FFmpeg's name of the first video track's codec (`h264`, `hevc`, `vp9`, `av1`…), or the container's
    /// own tag where FFmpeg has no name for it.
    pub video_codec: Option<String>,
    /// The first audio track's codec, as `video_codec`; none without sound.
    pub audio_codec: Option<String>,
    /// Bits per second over the whole file (its size over its duration), as `ffprobe` reports it.
    pub bitrate: Option<u64>,
    /// The video track's frames, where the container states them (MP4, QuickTime and AVI do; Matroska,
    /// WebM and transport streams do not).
    pub frame_count: Option<u64>,
}

/// Frames per second as a fraction, as the container states them (`30000/1001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRate {
    pub numerator: u32,
    pub denominator: u32,
}

impl FrameRate {
    /// The fraction in lowest terms, or `None` when either side is zero or it does not fit.
    pub fn new(numerator: u64, denominator: u64) -> Option<Self> {
        if numerator == 0 || denominator == 0 {
            return None;
        }
        let divisor = gcd(numerator, denominator);
        let (mut numerator, mut denominator) = (numerator / divisor, denominator / divisor);
        // Keep the rate when its terms are too long for 32 bits, to the precision they allow.
        while numerator > u64::from(u32::MAX) || denominator > u64::from(u32::MAX) {
            numerator = numerator.div_ceil(2);
            denominator = denominator.div_ceil(2);
        }
        Some(Self { numerator: u32::try_from(numerator).ok()?, denominator: u32::try_from(denominator).ok()? })
    }

    pub fn per_second(self) -> f64 {
        f64::from(self.numerator) / f64::from(self.denominator)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What an image's pixels say, for placeholders and cropping: computed once per file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelSummary {
    /// The most common colour (sRGB), as libvips' `dominant` finds it.
    pub dominant_color: Rgb,
    /// ThumbHash of the picture, base64 (standard alphabet, padded).
    pub thumbhash: String,
    /// BlurHash of the picture, 4×3 components.
    pub blurhash: String,
    /// A tiny image of the picture as a `data:` URL, for a page's placeholder (`blurDataURL`).
    pub placeholder: String,
    /// Where `gravity=attention` centres a crop of the whole picture: what `gravity=focus` uses for a file
    /// without a focal point of its own.
    pub attention: FocalPoint,
}

/// An 8-bit sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub [u8; 3]);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        let [r, g, b] = self.0;
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    /// As stored: `0xRRGGBB`.
    pub fn to_u32(self) -> u32 {
        let [r, g, b] = self.0;
        u32::from_be_bytes([0, r, g, b])
    }

    /// From its stored form; `None` above `0xFFFFFF`.
    pub fn from_u32(value: u32) -> Option<Self> {
        let [high, r, g, b] = value.to_be_bytes();
        (high == 0).then_some(Self([r, g, b]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_round_trip_through_their_stored_form() {
        for value in [0, 1, 0x00ff_00ff, 0x0012_3456, 0x00ff_ffff] {
            let colour = Rgb::from_u32(value).unwrap();
            assert_eq!(colour.to_u32(), value);
        }
        assert_eq!(Rgb([0x12, 0xab, 0x00]).hex(), "#12ab00");
        assert_eq!(Rgb::from_u32(0x0100_0000), None);
    }

    #[test]
    fn frame_rates_are_kept_in_lowest_terms() {
        assert_eq!(FrameRate::new(60000, 2002), Some(FrameRate { numerator: 30000, denominator: 1001 }));
        assert_eq!(FrameRate::new(0, 1), None);
        assert_eq!(FrameRate::new(1, 0), None);
        let huge = FrameRate::new(u64::MAX, u64::MAX - 1).unwrap();
        assert!((huge.per_second() - 1.0).abs() < 1e-6);
    }
}
