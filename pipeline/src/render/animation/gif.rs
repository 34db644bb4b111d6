//! An animated GIF, written a frame at a time: each frame the full canvas, quantised to its own palette
//! (`gif::palette`, as a still GIF is), disposed to the background so its transparent pixels show nothing of the
//! frame before, its delay in hundredths of a second (rounded from milliseconds; a GIF's own delays come
//! back exactly).

use image::RgbaImage;

use super::Loops;
use crate::{PipelineError, codecs::gif::palette, geometry::Size};

pub(super) struct GifAnimation {
    encoder: ::gif::Encoder<Vec<u8>>,
    width: u16,
    height: u16,
}

impl GifAnimation {
    /// `size` within GIF's 16-bit sides (`encode::check_size` said so).
    pub(super) fn new(size: Size, loops: Loops) -> Result<Self, PipelineError> {
        let side = |n: u32| u16::try_from(n).map_err(PipelineError::internal);
        let (width, height) = (side(size.width)?, side(size.height)?);
        let mut encoder = ::gif::Encoder::new(Vec::new(), width, height, &[]).map_err(PipelineError::internal)?;
        // Without a NETSCAPE block a GIF plays once; with one, it repeats that many times after the first.
        match loops {
            1 => {}
            0 => encoder.set_repeat(::gif::Repeat::Infinite).map_err(PipelineError::internal)?,
            plays => encoder.set_repeat(::gif::Repeat::Finite(plays - 1)).map_err(PipelineError::internal)?,
        }
        Ok(Self { encoder, width, height })
    }

    pub(super) fn add(&mut self, frame: &RgbaImage, delay_ms: u32) -> Result<(), PipelineError> {
        if frame.dimensions() != (u32::from(self.width), u32::from(self.height)) {
            return Err(PipelineError::Internal("an animation frame of another size".into()));
        }
        let mut frame = palette::quantise(frame)?.into_gif_frame(self.width, self.height)?;
        frame.delay = u16::try_from(delay_ms.saturating_add(5) / 10).unwrap_or(u16::MAX);
        frame.dispose = ::gif::DisposalMethod::Background;
        self.encoder.write_frame(&frame).map_err(PipelineError::internal)
    }

    pub(super) fn encoded_len(&self) -> usize {
        self.encoder.get_ref().len()
    }

    pub(super) fn finish(self) -> Result<Vec<u8>, PipelineError> {
        self.encoder.into_inner().map_err(PipelineError::internal)
    }
}
