//! Hostile files, made in the test rather than checked in: each is a few lines of its format's grammar, so a
//! reader sees exactly what it attacks. Small ones seed the `decode` fuzz target (`fuzz/corpus/decode/attack-*`).

/// Bits written least significant first, as deflate and AV1's headers (there most significant first) want.
#[derive(Default)]
struct LsbBits {
    out: Vec<u8>,
    acc: u64,
    len: u32,
}

impl LsbBits {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.len;
        self.len += bits;
        while self.len >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.len -= 8;
        }
    }

    /// A Huffman code, which deflate packs most significant bit first.
    fn code(&mut self, code: u32, bits: u32) {
        let reversed = code.reverse_bits() >> (32 - bits);
        self.put(u64::from(reversed), bits);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.len > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A zlib stream that inflates to `len` zero bytes, written with deflate's fixed codes: one literal, then
/// copies of 258 bytes at distance 1 (13 bits each), so 2 GiB take 13.5 MB.
pub fn zeros_zlib(len: u64) -> Vec<u8> {
    let mut bits = LsbBits::default();
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE = fixed codes
    let (copies, rest) = ((len.saturating_sub(1)) / 258, (len.saturating_sub(1)) % 258);
    if len > 0 {
        bits.code(0x30, 8); // literal 0
    }
    for _ in 0..copies {
        bits.code(0xC5, 8); // length 258 (symbol 285)
        bits.code(0, 5); // distance 1
    }
    for _ in 0..rest {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block (256)
    let mut out = vec![0x78, 0x01];
    out.extend(bits.finish());
    // Adler-32 of zeros: a stays 1, b adds it once per byte.
    let adler = ((len % 65_521) << 16) | 1;
    out.extend_from_slice(&(adler as u32).to_be_bytes());
    out
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.finalize().to_be_bytes());
}

/// A 1×1 RGB PNG whose `iCCP` profile inflates to `inflated` bytes.
pub fn iccp_bomb_png(inflated: u64) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
    let mut iccp = b"icc\0\0".to_vec();
    iccp.extend(zeros_zlib(inflated));
    chunk(&mut png, b"iCCP", &iccp);
    // One row: filter 0 and a grey pixel, in a stored deflate block.
    let row = [0u8, 128, 128, 128];
    let mut idat = vec![0x78, 0x01, 0x01, 4, 0, !4, 0xFF];
    idat.extend_from_slice(&row);
    let (a, b) = row
        .iter()
        .fold((1u32, 0u32), |(a, b), &byte| ((a + u32::from(byte)) % 65_521, (b + a + u32::from(byte)) % 65_521));
    idat.extend_from_slice(&((b << 16) | a).to_be_bytes());
    chunk(&mut png, b"IDAT", &idat);
    chunk(&mut png, b"IEND", &[]);
    png
}

/// `png` with its last `IDAT` damaged near its end (its CRC made right again): a decoder inflates nearly
/// all of the image before it finds out.
pub fn with_corrupt_last_idat(png: &[u8]) -> Vec<u8> {
    let mut at = 8;
    let mut last = None;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            last = Some((at, len));
        }
        at += 12 + len;
    }
    let (start, len) = last.expect("a PNG with image data");
    let mut out = png.to_vec();
    let data = start + 8;
    for byte in &mut out[data + len.saturating_sub(64)..data + len.saturating_sub(16)] {
        *byte = 0xFF;
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[start + 4..data + len]);
    out[data + len..data + len + 4].copy_from_slice(&crc.finalize().to_be_bytes());
    out
}

/// An AV1 sequence header OBU (a reduced still picture, 8-bit) declaring `width`×`height`: all that a
/// container parser reads of an item before a decoder allocates its planes.
pub fn av1_sequence_header(width: u32, height: u32, monochrome: bool) -> Vec<u8> {
    // AV1 writes its header fields most significant bit first.
    let mut fields: Vec<(u32, u32)> = vec![(0, 3), (1, 1), (1, 1), (31, 5), (15, 4), (15, 4)];
    fields.extend([(width - 1, 16), (height - 1, 16)]);
    // 128×128 superblocks, filter intra, intra edge, superres, cdef, restoration
    fields.extend([(0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1)]);
    // colour: not high bit depth, mono, no description, full range (mono ends here; else 4:2:0 at
    // chroma position 0 and no separate uv delta q)
    fields.extend([(0, 1), (u32::from(monochrome), 1), (0, 1), (1, 1)]);
    if !monochrome {
        fields.extend([(0, 2), (0, 1)]);
    }
    fields.push((0, 1)); // no film grain
    fields.push((1, 1)); // trailing one bit
    let mut payload = Vec::new();
    let (mut acc, mut len) = (0u64, 0u32);
    for (value, bits) in fields {
        acc = (acc << bits) | u64::from(value);
        len += bits;
        while len >= 8 {
            payload.push((acc >> (len - 8)) as u8);
            len -= 8;
        }
    }
    if len > 0 {
        payload.push((acc << (8 - len)) as u8);
    }
    let mut obu = vec![0x0A, payload.len() as u8];
    obu.extend(payload);
    obu
}

/// An AVIF of a `colour`-sized picture whose alpha item's coded size is `alpha`.
pub fn avif_with_alpha(colour: (u32, u32), alpha: (u32, u32)) -> Vec<u8> {
    let colour_item = av1_sequence_header(colour.0, colour.1, false);
    let alpha_item = av1_sequence_header(alpha.0, alpha.1, true);
    avif_serialize::serialize_to_vec(&colour_item, Some(&alpha_item), colour.0, colour.1, 8)
}

/// A HEIC of a `colour`-sized HEVC item with an `alpha`-sized auxiliary alpha item, each with its own
/// `ispe` (what a decoder allocates for it), the coded data left empty: the bound refuses it from the
/// item sizes, before libheif parses a coded byte.
pub fn heic_with_alpha(colour: (u32, u32), alpha: (u32, u32)) -> Vec<u8> {
    fn boxed(name: &[u8; 4], content: &[u8]) -> Vec<u8> {
        [&((content.len() + 8) as u32).to_be_bytes()[..], name, content].concat()
    }
    fn full(name: &[u8; 4], version: u8, content: &[u8]) -> Vec<u8> {
        boxed(name, &[&[version, 0, 0, 0][..], content].concat())
    }
    let ispe = |(w, h): (u32, u32)| full(b"ispe", 0, &[w.to_be_bytes(), h.to_be_bytes()].concat());
    let infe = |id: u16| full(b"infe", 2, &[&id.to_be_bytes()[..], &[0, 0], b"hvc1", b"\0"].concat());
    let auxc = full(b"auxC", 0, b"urn:mpeg:hevc:2015:auxid:1\0");
    let hvcc = boxed(b"hvcC", &[1u8; 23]);
    let ipco = boxed(b"ipco", &[ispe(colour), ispe(alpha), hvcc, auxc].concat());
    // Item 1: ispe 1, hvcC 3; item 2: ispe 2, hvcC 3, auxC 4.
    let ipma = full(b"ipma", 0, &[0, 0, 0, 2, 0, 1, 2, 0x81, 0x83, 0, 2, 3, 0x82, 0x83, 0x84]);
    let iinf = full(b"iinf", 0, &[&2u16.to_be_bytes()[..], &infe(1), &infe(2)].concat());
    let iref = full(b"iref", 0, &boxed(b"auxl", &[0, 2, 0, 1, 0, 1]));
    let iloc = full(b"iloc", 0, &[0x44, 0x00, 0, 0]);
    let meta = full(
        b"meta",
        0,
        &[
            full(b"hdlr", 0, &[&[0u8; 4][..], b"pict", &[0; 12], b"\0"].concat()),
            full(b"pitm", 0, &1u16.to_be_bytes()),
            iloc,
            iinf,
            iref,
            boxed(b"iprp", &[ipco, ipma].concat()),
        ]
        .concat(),
    );
    [boxed(b"ftyp", b"heic\0\0\0\0mif1heic"), meta, boxed(b"mdat", &[])].concat()
}

/// A 64×64 progressive JPEG whose last scan is repeated `repeats` times more.
pub fn repeated_scan_jpeg(repeats: usize) -> Vec<u8> {
    let pixels: Vec<u8> = (0..64 * 64).flat_map(|i| [(i % 64 * 4) as u8, (i / 64 * 4) as u8, 90]).collect();
    let mut jpeg = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, 90);
    encoder.set_progressive(true);
    encoder.encode(&pixels, 64, 64, jpeg_encoder::ColorType::Rgb).unwrap();
    let last_scan = jpeg.windows(2).rposition(|w| w == [0xFF, 0xDA]).expect("a scan");
    let end = jpeg.len() - 2;
    assert_eq!(&jpeg[end..], [0xFF, 0xD9], "ends with EOI");
    let scan = jpeg[last_scan..end].to_vec();
    let mut out = jpeg[..end].to_vec();
    for _ in 0..repeats {
        out.extend_from_slice(&scan);
    }
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

#[test]
fn the_zeros_stream_inflates_to_its_length() {
    for len in [0u64, 1, 2, 258, 259, 260, 1000, 70_000] {
        let mut out = vec![0u8; len as usize + 1];
        let inflated = libdeflater::Decompressor::new().zlib_decompress(&zeros_zlib(len), &mut out).unwrap();
        assert_eq!(inflated as u64, len);
        assert!(out[..inflated].iter().all(|&b| b == 0));
    }
}

/// The attack files, small, as seeds of the `decode` fuzz target (each behind the case byte 2: a cover
/// render into PNG). Checked against what the generators make; `SHUTTERBOX_WRITE_SEEDS=1` writes them.
#[test]
fn the_decode_fuzz_corpus_holds_the_attack_files() {
    let mut small_png = Vec::new();
    image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(64, 64, |x, y| image::Rgb([x as u8 * 4, y as u8 * 4, 7])))
        .write_to(&mut std::io::Cursor::new(&mut small_png), image::ImageFormat::Png)
        .unwrap();
    let seeds = [
        ("attack-png-iccp-bomb", iccp_bomb_png(8 << 20)),
        ("attack-avif-alpha-8192", avif_with_alpha((64, 64), (8192, 8192))),
        ("attack-heic-alpha-8192", heic_with_alpha((64, 64), (8192, 8192))),
        ("attack-jpeg-600-scans", repeated_scan_jpeg(600)),
        ("attack-png-corrupt-last-idat", with_corrupt_last_idat(&small_png)),
        ("attack-gif-2000-frames", shutterbox_pipeline::samples::animated_gif(2000)),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/decode");
    for (name, file) in seeds {
        let seed = [&[2u8][..], &file].concat();
        let path = dir.join(name);
        if std::env::var_os("SHUTTERBOX_WRITE_SEEDS").is_some() {
            std::fs::write(&path, &seed).unwrap();
        }
        let kept = std::fs::read(&path).unwrap_or_default();
        assert!(kept == seed, "{} differs from its generator: run with SHUTTERBOX_WRITE_SEEDS=1", path.display());
        // The decode target's properties: a head's facts are the whole file's, and a refusal is the file's.
        let whole = shutterbox_pipeline::read_facts(&file, true);
        if let Ok(Some(head)) = shutterbox_pipeline::read_facts(&file[..file.len() / 2], false) {
            assert_eq!(whole.as_ref().ok(), Some(&Some(head)), "{name}: the head's facts are the file's");
        }
        let transform = shutterbox_pipeline::Transform::from_query("w=64&h=64&fit=cover").unwrap();
        let target = shutterbox_pipeline::Target::Format(shutterbox_pipeline::OutputFormat::Png);
        if let Err(e) = shutterbox_pipeline::render(&file, &transform, target, Default::default()) {
            assert!(e.is_client_error(), "{name}: {e}");
        }
    }
}
