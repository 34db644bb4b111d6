use super::*;

/// Each row is its own, every name and type finds it, and no row contradicts a column: a format written
/// is read and requestable, `q` means something only for a written one, a default output is written, a
/// transformed format is read, a recognised signature gives the row's own type.
#[test]
fn every_row_keeps_what_its_columns_promise() {
    for (index, info) in MEDIA_FORMATS.iter().enumerate() {
        let name = info.name;
        assert_eq!(info.format as usize, index, "{name}: MEDIA_FORMATS lists the formats in the enum's order");
        assert!(!name.is_empty() && !info.display.is_empty(), "row {index} has a name");
        assert!(!info.extensions.is_empty() && !info.mimes.is_empty(), "{name}: an extension and a media type");
        for alias in std::iter::once(name).chain(info.aliases.iter().copied()) {
            assert_eq!(MediaFormat::from_name(alias), Some(info.format), "{alias}");
            assert_eq!(MediaFormat::from_name(&alias.to_ascii_uppercase()), Some(info.format), "{alias}");
        }
        for extension in info.extensions {
            assert_eq!(MediaFormat::from_extension(extension), Some(info.format), "{extension}");
            assert_eq!(MediaFormat::from_extension(&extension.to_ascii_uppercase()), Some(info.format));
        }
        for mime in info.mimes {
            assert_eq!(MediaFormat::from_mime(mime), Some(info.format), "{mime}");
            assert_eq!(FileKind::of_mime(mime), info.kind, "{mime}");
            assert_eq!(crate::sniff::normalize_mime(mime).as_deref(), Some(*mime), "{mime} is a normal type");
        }
        assert!(!info.encodable || (info.decodable && info.requestable), "{name}: a written format is read and named");
        assert!(!info.requestable || info.decodable, "{name}: a named format is read");
        assert_eq!(info.auto_quality.is_some(), info.lossy, "{name}: q=auto starts from a quality for lossy formats");
        assert!(!info.lossy || info.encodable, "{name}: lossy only means something when written");
        assert!(!info.transformable || info.decodable, "{name}: a transformed format is read");
        assert!(!info.raster || info.kind == FileKind::Image, "{name}: a raster is an image");
        assert!(!info.decodable || info.raster, "{name}: what the pipeline reads is a raster");
        assert_eq!(info.default_output.is_some(), info.decodable, "{name}: a read format has a default output");
        if let Some(output) = info.default_output {
            assert!(output.info().encodable, "{name}: its default output {} is written", output.name());
        }
        assert!(
            !info.working_copy || (info.decodable && !info.encodable),
            "{name}: a working copy is of a read-only format"
        );
        assert!(!info.animation || info.decodable, "{name}: an animation is read");
        if info.decodable {
            assert_ne!(
                info.signature,
                Signature::Declared,
                "{name}: what the pipeline reads is recognised by its bytes"
            );
        }
    }
    let mut mimes: Vec<&str> = MEDIA_FORMATS.iter().flat_map(|info| info.mimes.iter().copied()).collect();
    let mut extensions: Vec<&str> = MEDIA_FORMATS.iter().flat_map(|info| info.extensions.iter().copied()).collect();
    let count = (mimes.len(), extensions.len());
    mimes.sort_unstable();
    mimes.dedup();
    extensions.sort_unstable();
    extensions.dedup();
    assert_eq!((mimes.len(), extensions.len()), count, "a media type or an extension names one row");
    assert_eq!(MediaFormat::from_name("auto"), None);
    assert_eq!(MediaFormat::from_mime("image/x-icon"), None);
}

/// Each row with a signature recognises a sample of its own bytes as its own type, and nothing else.
#[test]
fn each_signature_recognises_its_own_format() {
    let samples: [(&[u8], &str); 16] = [
        (b"\xFF\xD8\xFF\xE0\0\x10JFIF", "image/jpeg"),
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png"),
        (b"RIFF\x24\0\0\0WEBPVP8 ", "image/webp"),
        (b"GIF89a\x01\0\x01\0", "image/gif"),
        (b"MM\0*\0\0\0\x08\0R\0\0", "image/tiff"),
        (b"BM\x3a\0\0\0\0\0\0\0", "image/bmp"),
        (b"\xFF\x0A\xFA\x7F", "image/jxl"),
        (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", "image/heic"),
        (b"\0\0\0\x18ftypmif1\0\0\0\0avifmiaf", "image/avif"),
        (b"\0\0\0\x14ftypmif1\0\0\0\0miaf", "image/heif"),
        (b"\0\0\0\x18ftypisom\0\0\0\0mp41isom", "video/mp4"),
        (b"\0\0\0\x14ftypqt  \0\0\x02\0qt  ", "video/quicktime"),
        (b"\0\0\0\x14ftyp3gp4\0\0\0\0isom", "video/3gpp"),
        (b"\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01\x42\x82\x88matroska\x42\x87", "video/x-matroska"),
        (b"\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01\x42\x82\x84webm\x42\x87", "video/webm"),
        (b"RIFF\x24\0\0\0AVI LIST", "video/x-msvideo"),
    ];
    for (head, mime) in samples {
        assert_eq!(recognise(head, ""), Some(mime), "{head:?}");
    }
    assert_eq!(recognise(b"", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), Some("image/svg+xml"));
    assert_eq!(recognise(b"", "<?xml version=\"1.0\"?><svg/>"), Some("image/svg+xml"));
    assert_eq!(recognise(b"", "<?xml version=\"1.0\"?><feed/>"), None, "XML that is not SVG");
    assert_eq!(recognise(b"", "<!doctype html><p>"), Some("text/html"));
    // A Canon raw file begins as a TIFF does.
    assert_eq!(recognise(b"II*\0\x10\0\0\0CR\x02\0", ""), None);
    let mut ts = vec![0u8; 400];
    for at in [0, 188, 376] {
        ts[at] = 0x47;
    }
    assert_eq!(recognise(&ts, ""), Some("video/mp2t"));
    ts[188] = 0;
    assert_eq!(recognise(&ts, ""), None, "one sync byte is no transport stream");
    assert_eq!(recognise(b"\x1A\x45\xDF\xA3\x9F\x42\x82\x84webx", ""), None, "another DocType");
    // A box length past the bytes present, or none at all, reads what is there and no further.
    assert_eq!(recognise(b"\xff\xff\xff\xffftypavif", ""), None, "shorter than a box header and brand");
    assert_eq!(recognise(b"\xff\xff\xff\xffftypheic\0\0\0\0", ""), Some("image/heic"));
    assert_eq!(recognise(b"\0\0\0\0ftypavif\0\0\0\0", ""), Some("image/avif"));
}

#[test]
fn a_request_for_a_format_never_written_is_one_for_the_original() {
    let originals: Vec<&str> = MediaFormat::all().filter(|f| f.serves_original()).map(MediaFormat::name).collect();
    assert_eq!(originals, ["bmp"]);
}

#[test]
fn the_json_content_type_is_jsons_media_type() {
    assert_eq!(JSON_UTF8.split(';').next(), Some(MediaFormat::Json.mime()));
}

/// Hostile heads: every truncation of every sample, `ftyp` boxes claiming every length around the bytes
/// present, and pseudo-random bytes are recognised without a panic, looking no further than the bytes
/// given, and always as a type of some row.
#[test]
fn any_bytes_are_recognised_within_themselves() {
    let mut heads: Vec<Vec<u8>> = Vec::new();
    let samples: [&[u8]; 4] = [
        b"\0\0\0\x18ftypmif1\0\0\0\0avifmiaf",
        b"\0\0\0\x0cJXL \r\n\x87\n\0\0\0\x14ftypjxl ",
        b"RIFF\x24\0\0\0WEBPVP8 ",
        b"II*\0\x10\0\0\0CR\x02\0",
    ];
    for sample in samples {
        heads.extend((0..=sample.len()).map(|end| sample[..end].to_vec()));
    }
    for length in [0u32, 1, 7, 8, 15, 16, 17, 23, 24, 25, 4096, u32::MAX] {
        for body in [&b"heic"[..], b"heic\0\0\0\0mif1", b"mif1\0\0\0\0msf1avis"] {
            let mut head = length.to_be_bytes().to_vec();
            head.extend_from_slice(b"ftyp");
            head.extend_from_slice(body);
            heads.push(head);
        }
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 40) as usize;
        heads.push((0..len).map(|i| (state >> (i % 8 * 8)) as u8 ^ (i as u8)).collect());
    }
    for head in heads {
        if let Some(mime) = recognise(&head, "") {
            assert!(MediaFormat::from_mime(mime).is_some(), "{mime}");
        }
    }
}
