//! How each format's bytes are read and written where a library does not do it whole: the container
//! parsers (`isobmff`, `heif`, `jpeg_markers`, `png_ancillary`), the decoders and encoders of our own or
//! around a C library (`avif`, `heic`, `jxl`, `tiff`, `gif`, `png8`, `split_jpeg`, `webp_yuv`), the 4:2:0
//! planes they share (`yuv`), and how the C codecs' memory is kept (`codec_memory`). Which of them a
//! render uses is `decode`'s, `encode`'s and `source`'s to say.

pub mod avif;
pub mod codec_memory;
pub(crate) mod gif;
#[cfg(feature = "heic")]
pub(crate) mod heic;
pub(crate) mod heif;
pub(crate) mod isobmff;
pub(crate) mod jpeg_markers;
pub(crate) mod jxl;
pub(crate) mod png8;
pub(crate) mod png_ancillary;
pub(crate) mod split_jpeg;
#[cfg(test)]
pub(crate) mod test_jpeg;
pub(crate) mod tiff;
pub(crate) mod webp_yuv;
pub(crate) mod yuv;
