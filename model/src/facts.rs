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
}
