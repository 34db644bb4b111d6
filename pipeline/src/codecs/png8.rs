//! The decoder of the common PNG: 8 bits a sample, not interlaced, gray, gray + alpha, RGB or RGBA, with
//! nothing that changes its pixels on the way (no `tRNS`, no `eXIf` orientation, not animated). Its image
//! data is inflated in one call (libdeflate) and unfiltered eight rows at a time: a PNG row's filters chain
//! each pixel to the one on its left, so the rows, not the pixels of one row, are what runs side by side,
//! each row a pixel behind the one above (a wavefront). Anything else, and any file this decoder finds at
//! fault, goes to the `png` crate through `image`, as before: this one either gives the same pixels or
//! declines.

use image::{DynamicImage, GrayAlphaImage, GrayImage, RgbImage, RgbaImage};

use crate::{
    PipelineError,
    options::{check_source_pixels, zeroed},
};

const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The most bytes deflate can give per byte of input (a run of length-258 matches, each under 2 bits).
const MAX_DEFLATE_RATIO: usize = 1032;

/// What `IHDR` says, for a layout this decoder handles.
struct Header {
    width: u32,
    height: u32,
    /// Bytes a pixel: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA.
    channels: usize,
}

/// Decodes `bytes` when it is a PNG of the kind this module handles, within `max_pixels`; `Ok(None)`
/// when it is not (or is damaged), for the `png` crate to decode or refuse.
pub(crate) fn decode(bytes: &[u8], max_pixels: u64) -> Result<Option<DynamicImage>, PipelineError> {
    let Some(header) = header(bytes) else { return Ok(None) };
    let Header { width: w, height: h, channels } = header;
    check_source_pixels(w, h, max_pixels)?;
    let Some(zlib) = image_data(bytes) else { return Ok(None) };
    let Some(pixels) = pixels(&header, &zlib) else { return Ok(None) };
    Ok(match channels {
        1 => GrayImage::from_raw(w, h, pixels).map(DynamicImage::ImageLuma8),
        2 => GrayAlphaImage::from_raw(w, h, pixels).map(DynamicImage::ImageLumaA8),
        3 => RgbImage::from_raw(w, h, pixels).map(DynamicImage::ImageRgb8),
        _ => RgbaImage::from_raw(w, h, pixels).map(DynamicImage::ImageRgba8),
    })
}

/// The `IHDR`, when this decoder handles the layout.
fn header(bytes: &[u8]) -> Option<Header> {
    let rest = bytes.strip_prefix(SIGNATURE)?;
    let (kind, data, _) = chunk(rest)?;
    if kind != *b"IHDR" || data.len() != 13 {
        return None;
    }
    let width = u32::from_be_bytes(data[0..4].try_into().ok()?);
    let height = u32::from_be_bytes(data[4..8].try_into().ok()?);
    let channels = match data[9] {
        0 => 1,
        4 => 2,
        2 => 3,
        6 => 4,
        _ => return None,
    };
    // Depth 8, compression 0, filter method 0, no interlacing.
    (data[8] == 8 && data[10..13] == [0, 0, 0] && width > 0 && height > 0 && width <= i32::MAX as u32)
        .then_some(Header { width, height, channels })
}

/// The chunk at the start of `bytes`: its type, data and the bytes after it, when its CRC holds.
fn chunk(bytes: &[u8]) -> Option<([u8; 4], &[u8], &[u8])> {
    let length = usize::try_from(u32::from_be_bytes(bytes.get(0..4)?.try_into().ok()?)).ok()?;
    let end = length.checked_add(12)?;
    let whole = bytes.get(..end)?;
    let kind: [u8; 4] = whole[4..8].try_into().ok()?;
    let crc = u32::from_be_bytes(whole[end - 4..].try_into().ok()?);
    (crc32fast::hash(&whole[4..end - 4]) == crc).then_some((kind, &whole[8..end - 4], &bytes[end..]))
}

/// Walks the chunks up to the end of the image data and joins the `IDAT`s (the zlib stream); `None` at
/// anything that changes the pixels, at an unknown critical chunk, or at a damaged chunk.
fn image_data(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut rest = bytes.get(SIGNATURE.len()..)?;
    let mut zlib = Vec::new();
    let mut in_data = false;
    loop {
        let (kind, data, after) = chunk(rest)?;
        match &kind {
            b"IDAT" => {
                zlib.try_reserve(data.len()).ok()?;
                zlib.extend_from_slice(data);
                in_data = true;
            }
            // The image data is over: what follows cannot change these pixels.
            _ if in_data => break,
            // Only as the first chunk (read by `header`): a second one is a damaged file.
            b"IHDR" => {
                if rest.len() + SIGNATURE.len() != bytes.len() {
                    return None;
                }
            }
            // Transparency and orientation change the decoded image; animation may put another image first.
            b"tRNS" | b"eXIf" | b"acTL" | b"fcTL" | b"IEND" => return None,
            // A palette with a truecolor image is a suggestion only.
            b"PLTE" => {}
            // An ancillary chunk (lowercase first letter) may be skipped; an unknown critical one may not.
            [first, ..] if first.is_ascii_lowercase() => {}
            _ => return None,
        }
        rest = after;
    }
    Some(zlib)
}

/// The unfiltered pixels, rows packed.
fn pixels(header: &Header, zlib: &[u8]) -> Option<Vec<u8>> {
    let stride = usize::try_from(header.width).ok()?.checked_mul(header.channels)?;
    let height = usize::try_from(header.height).ok()?;
    let filtered_len = stride.checked_add(1)?.checked_mul(height)?;
    // Deflate expands at most 1032:1: image data too short to fill the rows is declined before the
    // buffer for them is allocated (a small file naming a large image costs nothing here).
    if zlib.len().saturating_mul(MAX_DEFLATE_RATIO) < filtered_len {
        return None;
    }
    let mut filtered = zeroed(filtered_len)?;
    let inflated = libdeflater::Decompressor::new().zlib_decompress(zlib, &mut filtered).ok()?;
    if inflated != filtered_len {
        return None;
    }
    let mut pixels = zeroed(stride.checked_mul(height)?)?;
    unfilter(&filtered, &mut pixels, stride, header.channels)?;
    Some(pixels)
}

/// Unfilters `filtered` (each row its filter type, then `stride` bytes) into `pixels`; `None` at a filter
/// type PNG does not define.
fn unfilter(filtered: &[u8], pixels: &mut [u8], stride: usize, bpp: usize) -> Option<()> {
    if filtered.chunks(stride + 1).any(|row| row[0] > 4) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if (bpp == 3 || bpp == 4) && std::arch::is_x86_feature_detected!("avx2") {
        let height = pixels.len() / stride;
        for y0 in (0..height).step_by(wavefront::ROWS) {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { wavefront::rows(filtered, pixels, stride, bpp, y0) };
        }
        return Some(());
    }
    unfilter_by_rows(filtered, pixels, stride, bpp);
    Some(())
}

/// One row after the other, the portable way (and the reference the wavefront is tested against). Filter
/// types are known to be 0–4.
fn unfilter_by_rows(filtered: &[u8], pixels: &mut [u8], stride: usize, bpp: usize) {
    let zero = vec![0u8; stride];
    for (y, row) in filtered.chunks_exact(stride + 1).enumerate() {
        let (done, rest) = pixels.split_at_mut(y * stride);
        let current = &mut rest[..stride];
        let above = if y == 0 { &zero[..] } else { &done[(y - 1) * stride..] };
        let (kind, data) = (row[0], &row[1..]);
        for x in 0..stride {
            let a = if x >= bpp { current[x - bpp] } else { 0 };
            let b = above[x];
            let c = if x >= bpp { above[x - bpp] } else { 0 };
            let prediction = match kind {
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => paeth(a, b, c),
                _ => 0,
            };
            current[x] = data[x].wrapping_add(prediction);
        }
    }
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let (a16, b16, c16) = (i16::from(a), i16::from(b), i16::from(c));
    let pa = (b16 - c16).abs();
    let pb = (a16 - c16).abs();
    let pc = (a16 + b16 - 2 * c16).abs();
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

/// Eight rows at once with AVX2, for 3 and 4 bytes a pixel. A step takes row `g` of the eight at pixel
/// `s - g`: its left neighbour is what the row gave the step before, and the pixel above is what row `g - 1`
/// gave the step before, so both stay in registers. Each row is a 4-byte lane group of one of two 16-byte
/// vectors (rows 0–3 and 4–7), the math in u8 lanes. In the middle of the rows four steps go together:
/// each row's filtered bytes are loaded 16 at a time and the 4×4 block transposed into steps, and back for
/// the stores.
#[cfg(target_arch = "x86_64")]
mod wavefront {
    use std::arch::x86_64::*;

    pub(super) const ROWS: usize = 8;

    /// Unfilters rows `y0..y0 + 8` (those that exist); the rows above `y0` are done.
    #[target_feature(enable = "avx2")]
    pub(super) fn rows(filtered: &[u8], pixels: &mut [u8], stride: usize, bpp: usize, y0: usize) {
        let height = pixels.len() / stride;
        let width = stride / bpp;
        let rows = (height - y0).min(ROWS);
        let filtered_stride = stride + 1;
        let masks: [[__m128i; 4]; 2] = std::array::from_fn(|half| {
            let kind = |k: usize| {
                let y = y0 + half * 4 + k;
                if y < height { i32::from(filtered[y * filtered_stride]) * 0x0101_0101 } else { 0 }
            };
            let kinds = _mm_setr_epi32(kind(0), kind(1), kind(2), kind(3));
            [1, 2, 3, 4].map(|f| _mm_cmpeq_epi8(kinds, _mm_set1_epi8(f)))
        });
        let (expand, compress) = if bpp == 3 {
            (
                _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1),
                _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1),
            )
        } else {
            let identity = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            (identity, identity)
        };
        let above_row = y0.checked_sub(1).map(|y| y * stride);
        let mut state = [Chain::default(); 2];
        let steps = width + rows - 1;
        let mut s = 0;
        while s < steps {
            // Four steps from whole 16-byte loads and stores, all inside the rows.
            if rows == ROWS && s >= ROWS - 1 && s * bpp + 16 <= stride {
                let loaded: [__m128i; ROWS] = std::array::from_fn(|g| {
                    _mm_shuffle_epi8(load(filtered, (y0 + g) * filtered_stride + 1 + (s - g) * bpp), expand)
                });
                let x0 = transpose([loaded[0], loaded[1], loaded[2], loaded[3]]);
                let x1 = transpose([loaded[4], loaded[5], loaded[6], loaded[7]]);
                let above =
                    above_row.map_or(_mm_setzero_si128(), |at| _mm_shuffle_epi8(load(pixels, at + s * bpp), expand));
                let aboves =
                    [above, _mm_srli_si128::<4>(above), _mm_srli_si128::<8>(above), _mm_srli_si128::<12>(above)];
                let mut out0 = [_mm_setzero_si128(); 4];
                let mut out1 = [_mm_setzero_si128(); 4];
                for j in 0..4 {
                    let carried = _mm_srli_si128::<12>(state[0].value);
                    out0[j] = state[0].step(x0[j], aboves[j], &masks[0]);
                    out1[j] = state[1].step(x1[j], carried, &masks[1]);
                }
                let (rows0, rows1) = (transpose(out0), transpose(out1));
                for k in 0..4 {
                    store(pixels, (y0 + k) * stride + (s - k) * bpp, _mm_shuffle_epi8(rows0[k], compress));
                    store(pixels, (y0 + 4 + k) * stride + (s - 4 - k) * bpp, _mm_shuffle_epi8(rows1[k], compress));
                }
                s += 4;
                continue;
            }
            // One step, each row's pixel read and written on its own (the wavefront's edges).
            let live = |g: usize| (g < rows).then(|| s.wrapping_sub(g)).filter(|&px| px < width);
            let bytes_at = |px: usize| if px + 1 < width { 4 } else { bpp };
            let mut x = [0i32; ROWS];
            for (g, x) in x.iter_mut().enumerate() {
                if let Some(px) = live(g) {
                    *x = read(filtered, (y0 + g) * filtered_stride + 1 + px * bpp, bytes_at(px));
                }
            }
            let above = match above_row {
                Some(at) if s < width => read(pixels, at + s * bpp, bytes_at(s)),
                _ => 0,
            };
            let carried = _mm_srli_si128::<12>(state[0].value);
            let out = [
                state[0].step(_mm_setr_epi32(x[0], x[1], x[2], x[3]), _mm_cvtsi32_si128(above), &masks[0]),
                state[1].step(_mm_setr_epi32(x[4], x[5], x[6], x[7]), carried, &masks[1]),
            ];
            let mut values = [0u8; 32];
            // SAFETY: `values` holds the 32 bytes stored.
            unsafe {
                _mm_storeu_si128(values.as_mut_ptr().cast(), out[0]);
                _mm_storeu_si128(values.as_mut_ptr().add(16).cast(), out[1]);
            }
            for g in 0..rows {
                if let Some(px) = live(g) {
                    let at = (y0 + g) * stride + px * bpp;
                    pixels[at..at + bpp].copy_from_slice(&values[g * 4..g * 4 + bpp]);
                }
            }
            s += 1;
        }
    }

    /// One chain of four rows: each row's last pixel and the pixel above it.
    #[derive(Clone, Copy)]
    struct Chain {
        value: __m128i,
        above: __m128i,
    }

    impl Default for Chain {
        fn default() -> Self {
            // SAFETY: SSE2 is part of x86_64.
            unsafe { Self { value: _mm_setzero_si128(), above: _mm_setzero_si128() } }
        }
    }

    impl Chain {
        /// One step: `x` the four rows' filtered pixels, `first_above` (low 4 bytes) the pixel above row 0;
        /// returns the four rows' pixels. `masks`: rows filtered with Sub, Up, Average, Paeth.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn step(&mut self, x: __m128i, first_above: __m128i, masks: &[__m128i; 4]) -> __m128i {
            let a = self.value;
            let b = _mm_blend_epi16::<0b0000_0011>(_mm_slli_si128::<4>(a), first_above);
            let c = self.above;
            // Paeth in u8 lanes: pc = |(a - c) + (b - c)| is pa + pb when the two differences have the same
            // sign and |pa - pb| when not.
            let pa = _mm_or_si128(_mm_subs_epu8(b, c), _mm_subs_epu8(c, b));
            let pb = _mm_or_si128(_mm_subs_epu8(a, c), _mm_subs_epu8(c, a));
            let a_up = _mm_cmpeq_epi8(_mm_max_epu8(a, c), a);
            let b_up = _mm_cmpeq_epi8(_mm_max_epu8(b, c), b);
            let differ = _mm_xor_si128(a_up, b_up);
            let pc = _mm_blendv_epi8(
                _mm_adds_epu8(pa, pb),
                _mm_or_si128(_mm_subs_epu8(pa, pb), _mm_subs_epu8(pb, pa)),
                differ,
            );
            let pa_least =
                _mm_and_si128(_mm_cmpeq_epi8(_mm_min_epu8(pa, pb), pa), _mm_cmpeq_epi8(_mm_min_epu8(pa, pc), pa));
            let pb_not_more = _mm_cmpeq_epi8(_mm_min_epu8(pb, pc), pb);
            let paeth = _mm_blendv_epi8(_mm_blendv_epi8(c, b, pb_not_more), a, pa_least);
            // (a + b) / 2 without overflow: the rounded-up average less the carried-away bit.
            let average = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), _mm_set1_epi8(1)));
            let prediction = _mm_or_si128(
                _mm_or_si128(_mm_and_si128(masks[0], a), _mm_and_si128(masks[1], b)),
                _mm_or_si128(_mm_and_si128(masks[2], average), _mm_and_si128(masks[3], paeth)),
            );
            let value = _mm_add_epi8(x, prediction);
            self.value = value;
            self.above = b;
            value
        }
    }

    /// 4×4 transpose of 4-byte lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn transpose(r: [__m128i; 4]) -> [__m128i; 4] {
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        [_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2), _mm_unpacklo_epi64(t1, t3), _mm_unpackhi_epi64(t1, t3)]
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(bytes: &[u8], at: usize) -> __m128i {
        let sixteen = &bytes[at..at + 16];
        // SAFETY: `sixteen` is 16 readable bytes; the load is unaligned.
        unsafe { _mm_loadu_si128(sixteen.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn store(bytes: &mut [u8], at: usize, value: __m128i) {
        let sixteen = &mut bytes[at..at + 16];
        // SAFETY: `sixteen` is 16 writable bytes; the store is unaligned.
        unsafe { _mm_storeu_si128(sixteen.as_mut_ptr().cast(), value) }
    }

    /// `n` (≤ 4) bytes at `at`, zero-extended.
    #[inline(always)]
    fn read(bytes: &[u8], at: usize, n: usize) -> i32 {
        let mut four = [0u8; 4];
        four[..n].copy_from_slice(&bytes[at..at + n]);
        i32::from_le_bytes(four)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so a failure names its seed.
    struct Noise(u64);

    impl Noise {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Filtered rows of random bytes, each row's filter type drawn from `kinds`; half the rows smooth
    /// (small steps) so the filters' sums take every path, half noise.
    fn filtered_rows(noise: &mut Noise, stride: usize, height: usize, kinds: &[u8]) -> Vec<u8> {
        let mut rows = Vec::with_capacity((stride + 1) * height);
        for _ in 0..height {
            rows.push(kinds[(noise.next() % kinds.len() as u64) as usize]);
            let smooth = noise.next().is_multiple_of(2);
            for _ in 0..stride {
                let r = noise.next();
                rows.push(if smooth { [0, 1, 255, 2, 254][(r % 5) as usize] } else { r as u8 });
            }
        }
        rows
    }

    #[test]
    fn the_wavefront_unfilters_as_row_by_row_does_for_every_small_size() {
        // Every width 1..=40 and height 1..=19 (the wavefront's edges, the eight-row groups' last group
        // short or whole), both pixel sizes it takes, each filter alone and all mixed.
        let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
        for bpp in [3, 4] {
            for kinds in [&[0u8][..], &[1], &[2], &[3], &[4], &[0, 1, 2, 3, 4]] {
                for width in 1..=40 {
                    for height in 1..=19 {
                        let stride = width * bpp;
                        let filtered = filtered_rows(&mut noise, stride, height, kinds);
                        let mut expected = vec![0; stride * height];
                        unfilter_by_rows(&filtered, &mut expected, stride, bpp);
                        let mut got = vec![0; stride * height];
                        unfilter(&filtered, &mut got, stride, bpp).unwrap();
                        assert_eq!(got, expected, "bpp {bpp}, kinds {kinds:?}, {width}×{height}");
                    }
                }
            }
        }
    }

    #[test]
    fn row_by_row_unfilters_as_the_png_crate_does() {
        // Every filter type on every layout, against the png crate's decoder, through whole files.
        let mut noise = Noise(0x2545_f491_4f6c_dd1d);
        for (color, bpp) in [(0u8, 1usize), (4, 2), (2, 3), (6, 4)] {
            for (width, height) in [(1, 1), (1, 9), (7, 3), (33, 17), (64, 8)] {
                let stride = width * bpp;
                let filtered = filtered_rows(&mut noise, stride, height, &[0, 1, 2, 3, 4]);
                let file = png_file(width as u32, height as u32, color, &[(*b"IDAT", zlib(&filtered))]);
                let ours = decode(&file, u64::MAX).unwrap().expect("a layout this decoder takes");
                assert_eq!(ours.as_bytes(), png_crate(&file).as_slice(), "color type {color}, {width}×{height}");
            }
        }
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut compressor = libdeflater::Compressor::new(libdeflater::CompressionLvl::default());
        let mut out = vec![0; compressor.zlib_compress_bound(data.len())];
        let n = compressor.zlib_compress(data, &mut out).unwrap();
        out.truncate(n);
        out
    }

    fn png_file(width: u32, height: u32, color: u8, chunks: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut file = SIGNATURE.to_vec();
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, color, 0, 0, 0]);
        for (kind, data) in std::iter::once((*b"IHDR", ihdr)).chain(chunks.iter().cloned()).chain([(*b"IEND", vec![])])
        {
            file.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let start = file.len();
            file.extend_from_slice(&kind);
            file.extend_from_slice(&data);
            let crc = crc32fast::hash(&file[start..]);
            file.extend_from_slice(&crc.to_be_bytes());
        }
        file
    }

    fn png_crate(file: &[u8]) -> Vec<u8> {
        image::load_from_memory_with_format(file, image::ImageFormat::Png).unwrap().into_bytes()
    }

    #[test]
    fn what_it_does_not_handle_it_declines() {
        let rgb = zlib(&[0, 10, 20, 30]);
        let declined = |chunks: &[([u8; 4], Vec<u8>)], color: u8| {
            decode(&png_file(1, 1, color, chunks), u64::MAX).unwrap().is_none()
        };
        assert!(!declined(&[(*b"IDAT", rgb.clone())], 2));
        assert!(declined(&[(*b"tRNS", vec![0, 1, 0, 2, 0, 3]), (*b"IDAT", rgb.clone())], 2));
        assert!(declined(&[(*b"eXIf", vec![0; 8]), (*b"IDAT", rgb.clone())], 2));
        assert!(declined(&[(*b"acTL", vec![0; 8]), (*b"IDAT", rgb.clone())], 2));
        assert!(declined(&[(*b"ABCD", vec![]), (*b"IDAT", rgb.clone())], 2));
        assert!(!declined(&[(*b"abCD", vec![1]), (*b"IDAT", rgb.clone())], 2));
        // Palette images, a filter type past 4, too little or too much data, a broken CRC.
        assert!(declined(&[(*b"PLTE", vec![0; 3]), (*b"IDAT", zlib(&[0, 0]))], 3));
        assert!(declined(&[(*b"IDAT", zlib(&[5, 10, 20, 30]))], 2));
        assert!(declined(&[(*b"IDAT", zlib(&[0, 10, 20]))], 2));
        assert!(declined(&[(*b"IDAT", zlib(&[0, 10, 20, 30, 40]))], 2));
        let mut broken = png_file(1, 1, 2, &[(*b"IDAT", rgb.clone())]);
        let last_idat_byte = broken.len() - 12 - 5;
        broken[last_idat_byte] ^= 1;
        assert!(decode(&broken, u64::MAX).unwrap().is_none());
        // The IDATs may come in any number of pieces.
        let (first, second) = rgb.split_at(3);
        let split = png_file(1, 1, 2, &[(*b"IDAT", first.to_vec()), (*b"IDAT", second.to_vec())]);
        assert_eq!(decode(&split, u64::MAX).unwrap().unwrap().as_bytes(), [10, 20, 30]);
        // The pixel budget is checked from the header, before anything is inflated; within it, image data
        // that cannot fill the rows is declined before their buffer is allocated.
        assert!(matches!(
            decode(&png_file(3000, 3000, 2, &[(*b"IDAT", rgb.clone())]), 1_000_000),
            Err(PipelineError::TooManyPixels { .. })
        ));
        assert!(decode(&png_file(3000, 3000, 2, &[(*b"IDAT", rgb)]), u64::MAX).unwrap().is_none());
        // An all-black image, about as compressed as deflate gets, still passes that guard.
        let black = zlib(&vec![0; 3000 * (3000 * 3 + 1)]);
        assert!(decode(&png_file(3000, 3000, 2, &[(*b"IDAT", black)]), u64::MAX).unwrap().is_some());
    }
}
