//! A GIF's frames composited onto its canvas, as browsers and libvips show them: every frame of an animation,
//! and the first of a still GIF. The gif crate reads the blocks (skipping extensions it does not know, as
//! browsers do) and hands over each frame's LZW data; `lzw` decodes it into one reused buffer of indices,
//! which are drawn through the frame's palette straight onto the canvas (its transparent index, and an index
//! past the end of its palette, leave the pixel beneath; an interlaced frame's rows in the order they were
//! stored); the frame's disposal is applied before the next one is drawn: `Background` clears its rectangle
//! to transparent, `Previous` puts back what was there before it. A frame with no colour table of its own and
//! none in the file is drawn through a grey ramp (index i as grey i), as libvips draws it. Nothing is
//! allocated per frame but the copy of the canvas handed on.

use image::RgbaImage;

use crate::{PipelineError, codecs::gif::lzw::LzwTable};

/// One frame on the canvas: the whole canvas as it shows, and for how long.
pub(crate) struct GifFrame {
    pub pixels: RgbaImage,
    pub delay_ms: u32,
}

type Rgba = [u8; 4];

/// What the frame just shown leaves for the next one to be drawn over.
enum Disposal {
    Keep,
    Clear(Area),
    /// The area, and what the canvas held there before the frame was drawn (in `GifCanvas::saved`).
    Restore(Area),
}

/// A frame's rectangle clipped to the canvas.
#[derive(Clone, Copy)]
struct Area {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
}

pub(crate) struct GifCanvas<'a> {
    decoder: gif::Decoder<&'a [u8]>,
    width: usize,
    height: usize,
    canvas: Vec<Rgba>,
    /// The colours of a frame without its own (a copy: the decoder lends a frame only mutably).
    global_palette: Option<Vec<u8>>,
    /// Decodes each frame's indices, into a buffer of its own.
    table: LzwTable,
    saved: Vec<Rgba>,
    disposal: Disposal,
    /// The most bytes one frame's indices may take (the decoder's allocation limit).
    max_frame_bytes: u64,
    failed: bool,
}

impl<'a> GifCanvas<'a> {
    /// The canvas and each frame's buffer are bounded as the `image` crate's decoders are for a `max_pixels`
    /// image (`source::decoder_limits`).
    pub(crate) fn new(bytes: &'a [u8], max_pixels: u64) -> Result<Self, PipelineError> {
        let max_alloc = crate::source::decoder_limits(max_pixels).max_alloc.unwrap_or(u64::MAX);
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::Indexed);
        options.skip_frame_decoding(true);
        options.allow_unknown_blocks(true);
        let decoder = options.read_info(bytes).map_err(PipelineError::decode)?;
        let (width, height) = crate::frames::gif_canvas_size(bytes).unwrap_or((decoder.width(), decoder.height()));
        let (width, height) = (usize::from(width), usize::from(height));
        let global_palette = decoder.global_palette().map(<[u8]>::to_vec);
        if width as u64 * height as u64 * 4 > max_alloc {
            return Err(PipelineError::Decode(format!(
                "a {width}x{height} GIF canvas is more than the memory allowed"
            )));
        }
        Ok(Self {
            decoder,
            width,
            height,
            canvas: vec![[0; 4]; width * height],
            global_palette,
            table: LzwTable::new(),
            saved: Vec::new(),
            disposal: Disposal::Keep,
            max_frame_bytes: max_alloc,
            failed: false,
        })
    }

    fn next_frame(&mut self) -> Result<Option<GifFrame>, PipelineError> {
        self.dispose();
        let Some(info) = self.decoder.read_next_frame().map_err(PipelineError::decode)? else { return Ok(None) };
        let (frame_width, frame_height) = (usize::from(info.width), usize::from(info.height));
        let area = Area {
            left: usize::from(info.left).min(self.width),
            top: usize::from(info.top).min(self.height),
            width: frame_width.min(self.width.saturating_sub(usize::from(info.left))),
            height: frame_height.min(self.height.saturating_sub(usize::from(info.top))),
        };
        let (delay_ms, dispose, interlaced) = (u32::from(info.delay) * 10, info.dispose, info.interlaced);
        let colours = match info.palette.as_deref().or(self.global_palette.as_deref()) {
            Some(table) => palette(table, info.transparent),
            None => palette(&GREY_RAMP, info.transparent),
        };
        let len = frame_width * frame_height;
        if len as u64 > self.max_frame_bytes {
            return Err(PipelineError::Decode(format!(
                "a {frame_width}x{frame_height} GIF frame is more than the memory allowed"
            )));
        }
        // The frame's data: its LZW code size, then its sub-blocks' bytes.
        let (&min_code_size, data) =
            info.buffer.split_first().ok_or_else(|| PipelineError::Decode("a GIF frame has no data".into()))?;
        let indices = self.table.decode(min_code_size, data, len).map_err(PipelineError::decode)?;

        self.disposal = match dispose {
            gif::DisposalMethod::Any | gif::DisposalMethod::Keep => Disposal::Keep,
            gif::DisposalMethod::Background => Disposal::Clear(area),
            gif::DisposalMethod::Previous => {
                self.saved.clear();
                for row in area.top..area.top + area.height {
                    let start = row * self.width + area.left;
                    self.saved.extend_from_slice(&self.canvas[start..start + area.width]);
                }
                Disposal::Restore(area)
            }
        };
        if area.width > 0 {
            for (row, source) in stored_rows(frame_height, interlaced).zip(indices.chunks_exact(frame_width)) {
                if row >= area.height {
                    continue;
                }
                let start = (area.top + row) * self.width + area.left;
                for (pixel, &index) in self.canvas[start..start + area.width].iter_mut().zip(source) {
                    let colour = colours[usize::from(index)];
                    if colour[3] != 0 {
                        *pixel = colour;
                    }
                }
            }
        }
        let pixels = RgbaImage::from_raw(self.width as u32, self.height as u32, self.canvas.as_flattened().to_vec())
            .ok_or_else(|| PipelineError::Internal("GIF canvas size mismatch".into()))?;
        Ok(Some(GifFrame { pixels, delay_ms }))
    }

    /// Applies the disposal of the frame shown last.
    fn dispose(&mut self) {
        let (area, saved) = match std::mem::replace(&mut self.disposal, Disposal::Keep) {
            Disposal::Keep => return,
            Disposal::Clear(area) => (area, None),
            Disposal::Restore(area) => (area, Some(&self.saved)),
        };
        if area.width == 0 {
            return;
        }
        for row in 0..area.height {
            let start = (area.top + row) * self.width + area.left;
            let target = &mut self.canvas[start..start + area.width];
            match saved {
                Some(saved) => target.copy_from_slice(&saved[row * area.width..(row + 1) * area.width]),
                None => target.fill([0; 4]),
            }
        }
    }
}

/// The rows of a frame of `height` rows in the order its data stores them: top to bottom, or an interlaced
/// frame's four passes (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
fn stored_rows(height: usize, interlaced: bool) -> impl Iterator<Item = usize> {
    let passes: &[(usize, usize)] = if interlaced { &[(0, 8), (4, 8), (2, 4), (1, 2)] } else { &[(0, 1)] };
    passes.iter().flat_map(move |&(first, step)| (first..height).step_by(step))
}

/// The colour table of a frame that has none: index i is grey i.
const GREY_RAMP: [u8; 768] = {
    let mut table = [0; 768];
    let mut i = 0;
    while i < 768 {
        table[i] = (i / 3) as u8;
        i += 1;
    }
    table
};

/// A frame's 256 colours: its palette's opaque, its transparent index and every index past the palette's end
/// transparent (drawing nothing).
fn palette(table: &[u8], transparent: Option<u8>) -> [Rgba; 256] {
    let mut colours = [[0; 4]; 256];
    for (colour, rgb) in colours.iter_mut().zip(table.chunks_exact(3)) {
        *colour = [rgb[0], rgb[1], rgb[2], 255];
    }
    if let Some(index) = transparent {
        colours[usize::from(index)] = [0; 4];
    }
    colours
}

impl Iterator for GifCanvas<'_> {
    type Item = Result<GifFrame, PipelineError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let frame = self.next_frame().transpose();
        self.failed = matches!(frame, Some(Err(_)));
        frame
    }
}

#[cfg(all(test, feature = "samples"))]
mod tests;
