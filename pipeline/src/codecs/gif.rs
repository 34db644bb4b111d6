//! GIF, read and written: `canvas` composites a GIF's frames onto its canvas (every frame of an animation,
//! the first of a still GIF), `lzw` decodes a frame's LZW data into palette indices, and `palette` makes a
//! frame's palette and indices for the still and the animated encoder alike. Counting a GIF's frames and
//! reading its canvas size from the header are in `frames`, with the other formats'.

pub(crate) mod canvas;
pub(crate) mod lzw;
pub(crate) mod palette;
