//! Each container's codec tags as FFmpeg names the codecs (`ffprobe`'s `codec_name`), so a file's facts
//! say `h264` whether it came in an MP4, a Matroska file or an AVI. A tag FFmpeg has no name for is
//! reported as the container wrote it.

/// FFmpeg's name for an ISO base media video sample entry; MPEG-4 Part 2 and its kin are told apart by
/// their `esds` descriptor.
pub(super) fn isobmff_video(kind: &[u8; 4], entry: &[u8]) -> String {
    let kind = &original_format(kind, entry);
    let name = match kind {
        b"avc1" | b"avc2" | b"avc3" | b"avc4" | b"dva1" | b"dvav" => "h264",
        b"hvc1" | b"hev1" | b"dvh1" | b"dvhe" => "hevc",
        b"av01" | b"dav1" => "av1",
        b"vp09" => "vp9",
        b"vp08" => "vp8",
        b"vvc1" | b"vvi1" => "vvc",
        b"s263" | b"h263" | b"H263" => "h263",
        b"apch" | b"apcn" | b"apcs" | b"apco" | b"ap4h" | b"ap4x" => "prores",
        b"jpeg" | b"mjpa" | b"AVDJ" | b"dmb1" => "mjpeg",
        b"mjpb" => "mjpegb",
        b"png " => "png",
        b"rle " => "qtrle",
        b"raw " | b"2vuy" | b"yuv2" | b"v210" => "rawvideo",
        b"dvc " | b"dvcp" | b"dvpp" | b"dv5n" | b"dv5p" | b"dvh5" | b"dvh6" => "dvvideo",
        b"mp1v" => "mpeg1video",
        b"mp2v" | b"hdv1" | b"hdv2" | b"hdv3" | b"hdv5" | b"hdv6" | b"xdv1" | b"xdv2" | b"xdv3" | b"xdv4" | b"xdv5"
        | b"xdv6" | b"xdvc" | b"xd54" | b"xd55" | b"xd59" | b"xd5a" | b"xd5b" | b"xd5c" | b"xd5d" | b"xd5e"
        | b"xd5f" => "mpeg2video",
        b"mp4v" => {
            return match object_type(entry) {
                Some(0x20) | None => "mpeg4",
                Some(0x21) => "h264",
                Some(0x60..=0x65) => "mpeg2video",
                Some(0x6A) => "mpeg1video",
                Some(0x6C) => "mjpeg",
                Some(_) => "mpeg4",
            }
            .into();
        }
        _ => return tag(kind),
    };
    name.into()
}

/// FFmpeg's name for an ISO base media audio sample entry.
pub(super) fn isobmff_audio(kind: &[u8; 4], entry: &[u8]) -> String {
    let kind = &original_format(kind, entry);
    let name = match kind {
        b"mp4a" => match object_type(entry) {
            Some(0x69 | 0x6B) => "mp3",
            Some(0xA5) => "ac3",
            Some(0xA6) => "eac3",
            Some(0xDD) => "vorbis",
            Some(0xA9) => "dts",
            _ => "aac",
        },
        b"ac-3" | b"sac3" => "ac3",
        b"ec-3" => "eac3",
        b"ac-4" => "ac4",
        b"Opus" | b"opus" => "opus",
        b"fLaC" => "flac",
        b"alac" => "alac",
        b"samr" => "amr_nb",
        b"sawb" => "amr_wb",
        b"sowt" => "pcm_s16le",
        b"twos" => "pcm_s16be",
        b"in24" => "pcm_s24be",
        b"in32" => "pcm_s32be",
        b"fl32" => "pcm_f32be",
        b"fl64" => "pcm_f64be",
        b"raw " => "pcm_u8",
        b"ulaw" => "pcm_mulaw",
        b"alaw" => "pcm_alaw",
        b"ima4" => "adpcm_ima_qt",
        b".mp3" => "mp3",
        b"dtsc" | b"dtsh" | b"dtsl" | b"dtse" => "dts",
        b"mha1" | b"mhm1" => "mpegh_3d_audio",
        b"lpcm" => "pcm_s16le",
        _ => return tag(kind),
    };
    name.into()
}

/// The format an encrypted sample entry (`encv`, `enca`) protects, from its `sinf` → `frma` box; any other
/// entry is its own.
fn original_format(kind: &[u8; 4], entry: &[u8]) -> [u8; 4] {
    if kind != b"encv" && kind != b"enca" {
        return *kind;
    }
    memchr::memmem::find(entry, b"frma")
        .and_then(|at| entry.get(at + 4..at + 8))
        .and_then(|original| original.try_into().ok())
        .unwrap_or(*kind)
}

/// The `objectTypeIndication` of the `esds` box inside a sample entry: the ES descriptor (tag 3), past its
/// optional fields, holds the decoder configuration descriptor (tag 4) whose first byte it is.
fn object_type(entry: &[u8]) -> Option<u8> {
    let at = memchr::memmem::find(entry, b"esds")? + 8;
    let mut bytes = entry.get(at..)?;
    let (tag, rest) = descriptor(bytes)?;
    if tag == 3 {
        let flags = *rest.get(2)?;
        let mut skip = 3;
        if flags & 0x80 != 0 {
            skip += 2;
        }
        if flags & 0x40 != 0 {
            skip += 1 + usize::from(*rest.get(skip)?);
        }
        if flags & 0x20 != 0 {
            skip += 2;
        }
        bytes = rest.get(skip..)?;
    } else {
        bytes = rest;
    }
    let (tag, rest) = descriptor(bytes)?;
    (tag == 4).then(|| rest.first().copied())?
}

/// A descriptor's tag and the bytes after its size (1 to 4 bytes of 7 bits each).
fn descriptor(bytes: &[u8]) -> Option<(u8, &[u8])> {
    let tag = *bytes.first()?;
    let mut at = 1;
    for _ in 0..4 {
        let byte = *bytes.get(at)?;
        at += 1;
        if byte & 0x80 == 0 {
            break;
        }
    }
    Some((tag, bytes.get(at..)?))
}

/// A tag as text: printable ASCII, trailing spaces dropped; otherwise its bytes in hex.
pub(super) fn tag(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        String::from_utf8_lossy(bytes).trim_end().to_owned()
    } else {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// FFmpeg's name for a Matroska `CodecID`; a Video for Windows track names its codec in the
/// `BITMAPINFOHEADER` of its `CodecPrivate`, as an AVI does.
pub(super) fn matroska(codec_id: &str, private: &[u8]) -> String {
    let name = match codec_id {
        "V_MS/VFW/FOURCC" => return private.get(16..20).map_or_else(|| codec_id.to_owned(), avi_video),
        "V_MPEG4/ISO/AVC" => "h264",
        "V_MPEGH/ISO/HEVC" => "hevc",
        "V_MPEGI/ISO/VVC" => "vvc",
        "V_AV1" => "av1",
        "V_VP8" => "vp8",
        "V_VP9" => "vp9",
        "V_THEORA" => "theora",
        "V_MPEG1" => "mpeg1video",
        "V_MPEG2" => "mpeg2video",
        "V_MPEG4/ISO/ASP" | "V_MPEG4/ISO/SP" | "V_MPEG4/ISO/AP" | "V_MPEG4/ISO/SAP" => "mpeg4",
        "V_MPEG4/MS/V3" => "msmpeg4v3",
        "V_MJPEG" => "mjpeg",
        "V_PRORES" => "prores",
        "V_FFV1" => "ffv1",
        "V_UNCOMPRESSED" => "rawvideo",
        "A_OPUS" => "opus",
        "A_VORBIS" => "vorbis",
        "A_AC3" | "A_AC3/BSID9" | "A_AC3/BSID10" => "ac3",
        "A_EAC3" => "eac3",
        "A_MPEG/L3" => "mp3",
        "A_MPEG/L2" | "A_MPEG/L1" => "mp2",
        "A_FLAC" => "flac",
        "A_ALAC" => "alac",
        "A_DTS" | "A_DTS/EXPRESS" | "A_DTS/LOSSLESS" => "dts",
        "A_TRUEHD" => "truehd",
        "A_PCM/INT/LIT" => "pcm_s16le",
        "A_PCM/INT/BIG" => "pcm_s16be",
        "A_PCM/FLOAT/IEEE" => "pcm_f32le",
        other if other.starts_with("A_AAC") => "aac",
        other => return other.to_owned(),
    };
    name.into()
}

/// FFmpeg's name for an AVI video stream's compression `FourCC` (any case).
pub(super) fn avi_video(fourcc: &[u8]) -> String {
    let upper: Vec<u8> = fourcc.iter().map(u8::to_ascii_uppercase).collect();
    let name = match upper.as_slice() {
        b"H264" | b"X264" | b"AVC1" | b"DAVC" | b"VSSH" => "h264",
        b"HEVC" | b"H265" | b"HVC1" | b"X265" => "hevc",
        b"XVID" | b"DIVX" | b"DX50" | b"FMP4" | b"MP4V" | b"3IV2" | b"M4S2" | b"DIV1" => "mpeg4",
        b"DIV3" | b"MP43" | b"DIV4" => "msmpeg4v3",
        b"MP42" => "msmpeg4v2",
        b"MJPG" | b"AVRN" | b"JPEG" | b"LJPG" | b"DMB1" => "mjpeg",
        b"MPG1" | b"PIM1" => "mpeg1video",
        b"MPG2" | b"MPEG" => "mpeg2video",
        b"VP80" => "vp8",
        b"VP90" => "vp9",
        b"AV01" => "av1",
        b"CVID" => "cinepak",
        b"DVSD" | b"DV25" | b"DV50" => "dvvideo",
        b"WMV1" => "wmv1",
        b"WMV2" => "wmv2",
        b"WMV3" => "wmv3",
        b"FFV1" => "ffv1",
        b"HFYU" => "huffyuv",
        b"MSVC" | b"CRAM" | b"WHAM" => "msvideo1",
        b"IV50" => "indeo5",
        b"\0\0\0\0" | b"DIB " | b"RGB " => "rawvideo",
        b"\x01\0\0\0" => "msrle",
        _ => return tag(fourcc),
    };
    name.into()
}

/// FFmpeg's name for a `WAVEFORMATEX` format tag (with its bits per sample, which PCM's name carries).
pub(super) fn avi_audio(format_tag: u16, bits: u16) -> String {
    let name = match (format_tag, bits) {
        (0x0001, 8) => "pcm_u8",
        (0x0001, 24) => "pcm_s24le",
        (0x0001, 32) => "pcm_s32le",
        (0x0001, _) => "pcm_s16le",
        (0x0003, 64) => "pcm_f64le",
        (0x0003, _) => "pcm_f32le",
        (0x0002, _) => "adpcm_ms",
        (0x0006, _) => "pcm_alaw",
        (0x0007, _) => "pcm_mulaw",
        (0x0011, _) => "adpcm_ima_wav",
        (0x0050, _) => "mp2",
        (0x0055, _) => "mp3",
        (0x00FF | 0x1610 | 0x706D | 0xA106, _) => "aac",
        (0x2000, _) => "ac3",
        (0x2001, _) => "dts",
        (0x0160, _) => "wmav1",
        (0x0161, _) => "wmav2",
        (0x566F, _) => "vorbis",
        (0xF1AC, _) => "flac",
        (tag, _) => return format!("0x{tag:04x}"),
    };
    name.into()
}

/// FFmpeg's name for an MPEG transport stream's `stream_type`, and whether it is a video stream.
pub(super) fn mpegts(stream_type: u8) -> Option<(&'static str, bool)> {
    Some(match stream_type {
        0x01 => ("mpeg1video", true),
        0x02 => ("mpeg2video", true),
        0x10 => ("mpeg4", true),
        0x1B => ("h264", true),
        0x24 => ("hevc", true),
        0x33 => ("vvc", true),
        0xEA => ("vc1", true),
        0x03 | 0x04 => ("mp2", false),
        0x0F => ("aac", false),
        0x11 => ("aac_latm", false),
        0x81 => ("ac3", false),
        0x87 => ("eac3", false),
        0x82 | 0x85 | 0x8A => ("dts", false),
        0x80 => ("pcm_bluray", false),
        _ => return None,
    })
}
