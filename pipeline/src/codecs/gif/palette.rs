//! A GIF frame's palette and indices, shared by the still GIF (`encode`) and every frame of an animated
//! one (`animation::gif`), so an animation's frame is exactly the still render of that frame.
//!
//! A frame of at most 256 colours keeps them exactly; any other is quantised by NeuQuant (as the gif crate
//! does), undithered, learning from every pixel of a small frame (`sampling`). Against libvips'
//! libimagequant on the animation benchmark's clip that is its SSIM or better within 1.1× its bytes, where
//! Wu + k-means (quantette) and Floyd–Steinberg dithering each gave a lower SSIM (BENCHMARKS.md,
//! "Animations"). Deterministic.
//!
//! GIF's transparency is all or nothing: a pixel less than half opaque becomes transparent, the rest
//! opaque (as libvips writes a GIF). The transparent pixels take an index of their own after the colours.

use image::RgbaImage;

use crate::PipelineError;

/// One GIF frame: `palette` RGB triples (at most 256 entries with the transparent one), an index per pixel.
pub(crate) struct IndexedFrame {
    pub palette: Vec<u8>,
    pub indices: Vec<u8>,
    pub transparent: Option<u8>,
}

impl IndexedFrame {
    /// The frame at `width` × `height`, the size it was quantised at.
    pub(crate) fn into_gif_frame(self, width: u16, height: u16) -> Result<gif::Frame<'static>, PipelineError> {
        if self.indices.len() != usize::from(width) * usize::from(height) {
            return Err(PipelineError::Internal("a GIF frame of another size".into()));
        }
        Ok(gif::Frame::from_palette_pixels(width, height, self.indices, self.palette, self.transparent))
    }
}

/// An opaque pixel as NeuQuant reads it: RGB, alpha 255.
type Opaque = [u8; 4];

/// Alpha below this is transparent in a GIF.
const OPAQUE_FROM: u8 = 128;

pub(crate) fn quantise(rgba: &RgbaImage) -> Result<IndexedFrame, PipelineError> {
    let opaque: Vec<Opaque> =
        rgba.pixels().filter(|p| p.0[3] >= OPAQUE_FROM).map(|p| [p.0[0], p.0[1], p.0[2], 255]).collect();
    let has_transparency = opaque.len() < rgba.pixels().len();
    if opaque.is_empty() {
        return Ok(IndexedFrame { palette: vec![0; 3], indices: vec![0; rgba.pixels().len()], transparent: Some(0) });
    }
    let colours = if has_transparency { 255 } else { 256 };
    let (mut palette, opaque_indices) =
        exact_palette(&opaque, colours).unwrap_or_else(|| clustered_palette(&opaque, colours));
    let transparent = if has_transparency {
        let index = u8::try_from(palette.len() / 3).map_err(PipelineError::internal)?;
        palette.extend([0, 0, 0]);
        Some(index)
    } else {
        None
    };
    let mut next = opaque_indices.into_iter();
    let indices = rgba
        .pixels()
        .map(|p| if p.0[3] >= OPAQUE_FROM { next.next() } else { transparent })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| PipelineError::Internal("a GIF frame's indices do not cover its pixels".into()))?;
    Ok(IndexedFrame { palette, indices, transparent })
}

/// A picture of no more colours than the palette holds keeps each exactly (a logo, a drawing, a GIF's own
/// frame): `None` as soon as there are more.
fn exact_palette(opaque: &[Opaque], colours: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut index_of = std::collections::HashMap::<Opaque, u8>::new();
    let mut palette = Vec::new();
    let mut indices = Vec::with_capacity(opaque.len());
    for &pixel in opaque {
        let index = match index_of.get(&pixel) {
            Some(&index) => index,
            None if index_of.len() < colours => {
                let index = u8::try_from(index_of.len()).ok()?;
                index_of.insert(pixel, index);
                palette.extend(&pixel[..3]);
                index
            }
            None => return None,
        };
        indices.push(index);
    }
    Some((palette, indices))
}

/// NeuQuant learns from every `sampling`-th pixel: every pixel of a frame up to 128 Ki pixels (an
/// animation's frame, a thumbnail), so about 64 Ki samples or more from a larger one, and never fewer
/// than a tenth of them, the gif crate's "good compromise", which a 12-megapixel still needs: 4.3 s against
/// 19.3 s at every pixel (BENCHMARKS.md).
fn sampling(pixels: usize) -> i32 {
    i32::try_from(pixels / 65_536).unwrap_or(i32::MAX).clamp(1, 10)
}

fn clustered_palette(opaque: &[Opaque], colours: usize) -> (Vec<u8>, Vec<u8>) {
    let quantiser = color_quant::NeuQuant::new(sampling(opaque.len()), colours, opaque.as_flattened());
    // NeuQuant's indices are below `colours`, at most 256.
    let indices = opaque.iter().map(|p| quantiser.index_of(p) as u8).collect();
    (quantiser.color_map_rgb(), indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transparency_is_its_own_index_and_colours_stay_near() {
        let rgba = RgbaImage::from_fn(40, 30, |x, y| {
            image::Rgba([(x * 6) as u8, (y * 8) as u8, 200, if x < 5 { 127 } else { 128 + (y as u8) }])
        });
        let frame = quantise(&rgba).unwrap();
        let transparent = frame.transparent.unwrap();
        assert!(frame.palette.len() <= 256 * 3);
        let (mut error, mut opaque) = (0, 0);
        for (p, &i) in rgba.pixels().zip(&frame.indices) {
            if p.0[3] < 128 {
                assert_eq!(i, transparent);
            } else {
                assert_ne!(i, transparent);
                let c = &frame.palette[usize::from(i) * 3..][..3];
                error += c.iter().zip(&p.0[..3]).map(|(a, b)| u32::from(a.abs_diff(*b))).sum::<u32>();
                opaque += 3;
            }
        }
        // 1,050 colours into 255 (NeuQuant: 4.7 units a channel on average).
        assert!(error <= opaque * 6, "mean error {}", f64::from(error) / f64::from(opaque));
    }

    #[test]
    fn few_colours_are_kept_exactly_and_empty_frames_are_transparent() {
        // Colours one unit apart, which a quantiser would merge.
        let rgba = RgbaImage::from_fn(9, 9, |x, y| image::Rgba([(x % 3) as u8, 10, (y % 2) as u8, 255]));
        let frame = quantise(&rgba).unwrap();
        assert_eq!(frame.transparent, None);
        for (p, &i) in rgba.pixels().zip(&frame.indices) {
            assert_eq!(&frame.palette[usize::from(i) * 3..][..3], &p.0[..3]);
        }
        let clear = quantise(&RgbaImage::new(3, 2)).unwrap();
        assert_eq!((clear.transparent, clear.indices), (Some(0), vec![0; 6]));
    }
}
