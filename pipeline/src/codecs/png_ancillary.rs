//! A PNG's compressed ancillary chunks, bounded before any decoder inflates them. The png crate inflates an
//! `iCCP` profile and every `zTXt`/`iTXt` text into memory up to its allocation bound, which is sized for
//! pixels (hundreds of MiB): a 2 MB file whose profile inflates to 2 GiB held that much. Here each is
//! inflated into a buffer of its cap, once, and a file whose profile or text passes it is refused (400).

use crate::PipelineError;

/// The largest ICC profile read: real ones are a few KiB, a printer's with large tables a few MiB.
pub(crate) const MAX_ICC_BYTES: usize = 4 << 20;
/// The most inflated text (`zTXt`, compressed `iTXt`: XMP and comments) read over all chunks.
pub(crate) const MAX_TEXT_BYTES: usize = 8 << 20;

/// How much of a PNG `check` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extent {
    /// The chunks before the first `IDAT`: what a header reader inflates (the profile must be there).
    BeforeImageData,
    /// Every chunk: what a whole decode inflates.
    Whole,
}

/// Refuses a PNG whose `iCCP` profile inflates past `MAX_ICC_BYTES` or whose compressed texts together
/// pass `MAX_TEXT_BYTES`, within `extent`. A chunk that does not inflate is left to the decoder, which
/// ignores or refuses it as it does today.
pub(crate) fn check(bytes: &[u8], extent: Extent) -> Result<(), PipelineError> {
    let mut inflater = Inflater { decompressor: libdeflater::Decompressor::new(), buffer: Vec::new() };
    let mut text_left = MAX_TEXT_BYTES;
    let mut profile_seen = false;
    for (kind, data) in chunks(bytes) {
        if extent == Extent::BeforeImageData && &kind == b"IDAT" {
            break;
        }
        match &kind {
            // Decoders read the first profile only.
            b"iCCP" if !profile_seen => {
                profile_seen = true;
                // keyword\0, compression method, zlib stream
                let Some(stream) = after_keyword(data).and_then(|rest| rest.get(1..)) else { continue };
                if inflater.inflated_len(stream, MAX_ICC_BYTES) == Inflated::TooLarge {
                    return Err(PipelineError::MetadataTooLarge { what: "ICC profile", limit: MAX_ICC_BYTES as u64 });
                }
            }
            b"zTXt" | b"iTXt" => {
                let stream = if &kind == b"zTXt" {
                    after_keyword(data).and_then(|rest| rest.get(1..))
                } else {
                    // keyword\0, compression flag, method, language\0, translated keyword\0, text
                    after_keyword(data)
                        .filter(|rest| rest.first() == Some(&1))
                        .and_then(|rest| rest.get(2..))
                        .and_then(after_keyword_or_empty)
                        .and_then(after_keyword_or_empty)
                };
                let Some(stream) = stream else { continue };
                match inflater.inflated_len(stream, text_left) {
                    Inflated::Fits(len) => text_left -= len,
                    // It inflated to an unknown length before the error: counted as the most it could have
                    // (deflate's ratio is at most 1032:1), so broken chunks cannot repeat the work for free.
                    Inflated::Corrupt => text_left -= text_left.min(stream.len().saturating_mul(1032)),
                    Inflated::TooLarge => {
                        return Err(PipelineError::MetadataTooLarge {
                            what: "compressed text (zTXt, iTXt)",
                            limit: MAX_TEXT_BYTES as u64,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The chunks of a PNG after its signature, as far as the bytes hold whole ones.
fn chunks(bytes: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    let mut at = 8usize;
    std::iter::from_fn(move || {
        let header = bytes.get(at..at.checked_add(8)?)?;
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let kind = [header[4], header[5], header[6], header[7]];
        let data = bytes.get(at + 8..(at + 8).checked_add(len)?)?;
        at = at + 12 + len;
        Some((kind, data))
    })
}

/// What follows a 1–79 byte keyword and its NUL.
fn after_keyword(data: &[u8]) -> Option<&[u8]> {
    let nul = data.iter().take(80).position(|&b| b == 0).filter(|&n| n > 0)?;
    data.get(nul + 1..)
}

/// What follows a NUL-terminated field that may be empty (iTXt's language and translated keyword).
fn after_keyword_or_empty(data: &[u8]) -> Option<&[u8]> {
    let nul = data.iter().position(|&b| b == 0)?;
    data.get(nul + 1..)
}

#[derive(Debug, PartialEq, Eq)]
enum Inflated {
    Fits(usize),
    TooLarge,
    Corrupt,
}

/// libdeflate and one output buffer, grown to the largest cap asked and reused.
struct Inflater {
    decompressor: libdeflater::Decompressor,
    buffer: Vec<u8>,
}

impl Inflater {
    /// How long the zlib `stream` inflates to, if no longer than `cap`: inflated into `cap + 1` bytes of the
    /// buffer (libdeflate stops where they end).
    fn inflated_len(&mut self, stream: &[u8], cap: usize) -> Inflated {
        if self.buffer.len() < cap + 1 {
            if self.buffer.try_reserve_exact(cap + 1 - self.buffer.len()).is_err() {
                return Inflated::TooLarge;
            }
            self.buffer.resize(cap + 1, 0);
        }
        match self.decompressor.zlib_decompress(stream, &mut self.buffer[..=cap]) {
            Ok(len) if len <= cap => Inflated::Fits(len),
            Ok(_) | Err(libdeflater::DecompressionError::InsufficientSpace) => Inflated::TooLarge,
            Err(libdeflater::DecompressionError::BadData) => Inflated::Corrupt,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut compressor = libdeflater::Compressor::new(libdeflater::CompressionLvl::best());
        let mut out = vec![0; compressor.zlib_compress_bound(data.len())];
        let len = compressor.zlib_compress(data, &mut out).unwrap();
        out.truncate(len);
        out
    }

    fn png(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
        for (kind, data) in chunks {
            file.extend_from_slice(&(data.len() as u32).to_be_bytes());
            file.extend_from_slice(*kind);
            file.extend_from_slice(data);
            file.extend_from_slice(&[0; 4]);
        }
        file
    }

    fn keyword(word: &[u8], rest: &[u8]) -> Vec<u8> {
        [word, b"\0", rest].concat()
    }

    #[test]
    fn a_profile_or_text_within_the_caps_passes() {
        let icc = keyword(b"icc", &[&[0u8][..], &zlib(&vec![7; 100_000])].concat());
        let text = keyword(b"Comment", &[&[0u8][..], &zlib(b"hello")].concat());
        let itxt = keyword(b"XML:com.adobe.xmp", &[&[1u8, 0][..], b"\0\0", &zlib(&vec![b'x'; 1 << 20])].concat());
        check(&png(&[(b"iCCP", icc), (b"zTXt", text), (b"iTXt", itxt)]), Extent::Whole).unwrap();
    }

    #[test]
    fn a_profile_past_its_cap_is_refused_naming_it() {
        let icc = keyword(b"icc", &[&[0u8][..], &zlib(&vec![0; MAX_ICC_BYTES + 1])].concat());
        let error = check(&png(&[(b"iCCP", icc)]), Extent::Whole).unwrap_err();
        assert!(error.to_string().contains("ICC profile"), "{error}");
    }

    #[test]
    fn texts_past_their_cap_together_are_refused() {
        let one = keyword(b"Comment", &[&[0u8][..], &zlib(&vec![b'a'; MAX_TEXT_BYTES / 2 + 1])].concat());
        check(&png(&[(b"zTXt", one.clone())]), Extent::Whole).unwrap();
        let error = check(&png(&[(b"zTXt", one.clone()), (b"zTXt", one)]), Extent::Whole).unwrap_err();
        assert!(error.to_string().contains("compressed text"), "{error}");
    }

    #[test]
    fn corrupt_or_cut_chunks_are_left_to_the_decoder() {
        check(&png(&[(b"iCCP", keyword(b"icc", b"\0not zlib"))]), Extent::Whole).unwrap();
        let mut cut = png(&[(b"iCCP", keyword(b"icc", &[&[0u8][..], &zlib(&[1; 10])].concat()))]);
        cut.truncate(cut.len() - 6);
        check(&cut, Extent::Whole).unwrap();
        check(b"\x89PNG\r\n\x1a\n", Extent::Whole).unwrap();
    }
}
