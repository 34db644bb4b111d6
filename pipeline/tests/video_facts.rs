//! A video's facts against ffprobe's (FFmpeg's reading of the same file, asked here), over every file of
//! the video corpora (`tests/corpora/video-*`): the displayed size (the coded size turned by the display
//! matrix), the rotation, the duration within one frame, the frame rate within 0.5 %, the codecs and the
//! stated frame count. A file our reader refuses must be one ffprobe refuses or reads without a video track's
//! headers; each place where we and ffprobe differ on purpose is listed in `KNOWN`, with why.

use std::{path::Path, process::Command};

use serde_json::Value;
use shutterbox_model::{MediaFormat, VideoFacts};
use shutterbox_pipeline::video::read_video_facts;

use crate::common::corpora;

/// Files where ffprobe's reading is not what the container states, and what we say instead.
const KNOWN: &[(&str, &str)] = &[
    // The `mvhd` duration is all ones ("unknown", ISO/IEC 14496-12); ffprobe prints it as 143165 s. Ours is
    // the fragments' samples.
    ("video-androidx-media/sample_fragmented.mp4", "duration"),
    ("video-go-mp4/sample_fragmented.mp4", "duration"),
    // Half an AVI: its header states the whole video's length, which we report; ffprobe, finding no index,
    // measures the half that is there.
    ("truncated.avi", "duration"),
];

struct Probe {
    refused: bool,
    size: Option<(u32, u32)>,
    rotation: u16,
    duration_ms: Option<f64>,
    frame_rate: Option<f64>,
    video_codec: Option<String>,
    audio_codec: Option<String>,
    frame_count: Option<u64>,
}

fn ffprobe(path: &Path) -> Probe {
    let output = Command::new("ffprobe")
        .args(["-v", "error", "-show_streams", "-show_format", "-of", "json"])
        .arg(path)
        .output()
        .expect("ffprobe runs (scripts/test.sh installs Debian's ffmpeg)");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let streams = json["streams"].as_array().cloned().unwrap_or_default();
    let video =
        streams.iter().find(|s| s["codec_type"] == "video" && s["disposition"]["attached_pic"].as_i64() != Some(1));
    let audio = streams.iter().find(|s| s["codec_type"] == "audio");
    let rotation = video
        .and_then(|v| v["side_data_list"].as_array())
        .and_then(|list| list.iter().find_map(|d| d["rotation"].as_f64()))
        // An all-zero matrix is printed as INT64_MIN: it turns nothing.
        .filter(|r| r.abs() <= 360.0)
        .map_or(0, |r| ((-r).round() as i64).rem_euclid(360) as u16);
    let size = video.and_then(|v| Some((v["width"].as_u64()? as u32, v["height"].as_u64()? as u32)));
    let rate = |text: &str| {
        let (n, d) = text.split_once('/')?;
        let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
        (n > 0.0 && d > 0.0).then(|| n / d)
    };
    let codec = |s: Option<&Value>| s.and_then(|s| s["codec_name"].as_str()).map(str::to_owned);
    Probe {
        refused: !output.status.success() || json["format"].is_null(),
        size: size.map(|(w, h)| if rotation % 180 == 90 { (h, w) } else { (w, h) }),
        rotation,
        duration_ms: json["format"]["duration"].as_str().and_then(|d| d.parse::<f64>().ok()).map(|s| s * 1000.0),
        frame_rate: video.and_then(|v| rate(v["avg_frame_rate"].as_str()?)),
        video_codec: codec(video),
        audio_codec: codec(audio),
        frame_count: video.and_then(|v| v["nb_frames"].as_str()?.parse().ok()),
    }
}

/// Every video of the corpora whose format has a row, with that row's format.
fn videos() -> Vec<(String, std::path::PathBuf, MediaFormat)> {
    let root = corpora();
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !folder.starts_with("video-") {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let head = std::fs::read(&path).unwrap();
            let head = &head[..head.len().min(4096)];
            if let Some(format) = MediaFormat::from_signature(head).filter(|f| f.info().video.is_some()) {
                let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
                files.push((name, path, format));
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn ours(path: &Path, format: MediaFormat) -> Result<VideoFacts, String> {
    let bytes = std::fs::read(path).unwrap();
    let container = format.info().video.unwrap();
    read_video_facts(container, &mut bytes.as_slice()).map_err(|e| e.to_string())
}

#[test]
fn facts_equal_ffprobes_over_the_video_corpora() {
    let files = videos();
    assert!(files.len() >= 90, "the video corpora are in tests/corpora ({} videos found)", files.len());
    let mut differences = Vec::new();
    for (name, path, format) in &files {
        compare(name, path, *format, &mut differences);
    }
    assert!(
        differences.is_empty(),
        "{} of {} differ from ffprobe:\n{}",
        differences.len(),
        files.len(),
        differences.join("\n")
    );
}

/// Videos ffmpeg makes here, one of each kind the issue of record names: every codec in the containers
/// that carry it, each rotation, an odd size, one frame, a variable frame rate, sound alone, and
/// truncations.
#[test]
fn facts_equal_ffprobes_over_generated_videos() {
    let dir = std::env::temp_dir().join(format!("shutterbox-video-facts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let picture = "testsrc2=size=320x240:rate=25:duration=1";
    let sound = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("h264.mp4", [&sound[..], &["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]].concat()),
        ("h264.mov", vec!["-c:v", "libx264", "-preset", "ultrafast"]),
        (
            "hevc.mp4",
            vec!["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"],
        ),
        ("hevc.mkv", vec!["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"]),
        ("vp8.webm", [&sound[..], &["-c:v", "libvpx", "-deadline", "realtime", "-c:a", "libopus"]].concat()),
        ("vp9.webm", vec!["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"]),
        ("vp9.mp4", vec!["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"]),
        ("av1.mkv", vec!["-c:v", "libsvtav1", "-preset", "12"]),
        ("av1.mp4", vec!["-c:v", "libsvtav1", "-preset", "12"]),
        ("mpeg4.avi", [&sound[..], &["-c:v", "mpeg4", "-c:a", "libmp3lame"]].concat()),
        ("mpeg4.mp4", vec!["-c:v", "mpeg4"]),
        ("h264.avi", vec!["-c:v", "libx264", "-preset", "ultrafast"]),
        ("h264.mkv", [&sound[..], &["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libopus"]].concat()),
        ("h264.ts", [&sound[..], &["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]].concat()),
        ("prores.mov", vec!["-c:v", "prores_ks", "-profile:v", "3"]),
        ("unturned.mp4", vec!["-c:v", "libx264", "-preset", "ultrafast"]),
        ("unturned.mov", vec!["-c:v", "libx264", "-preset", "ultrafast"]),
        ("odd-161x121.webm", vec!["-vf", "scale=161:121", "-c:v", "libvpx-vp9", "-deadline", "realtime"]),
        (
            "odd-161x121.mp4",
            vec!["-vf", "scale=161:121", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p"],
        ),
        ("one-frame.mp4", vec!["-frames:v", "1", "-c:v", "libx264", "-preset", "ultrafast"]),
        ("10bit-422.mov", vec!["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv422p10le"]),
        (
            "vfr.mp4",
            vec![
                "-vf",
                "select='not(mod(n\\,3))+eq(n\\,1)'",
                "-fps_mode",
                "vfr",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
            ],
        ),
        ("faststart.mp4", vec!["-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart"]),
    ];
    let mut differences = Vec::new();
    for (name, args) in &cases {
        let path = dir.join(name);
        let status = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-f", "lavfi", "-i", picture])
            .args(args)
            .args(["-t", "1"])
            .arg(&path)
            .status()
            .expect("ffmpeg runs (scripts/test.sh installs Debian's ffmpeg)");
        assert!(status.success(), "ffmpeg made {name}");
    }
    // Turned: a display matrix written by remuxing (FFmpeg 5.1 drops a `rotate` tag given to an encode).
    for (from, degrees, to) in [
        ("unturned.mp4", 90, "rotate-90.mp4"),
        ("unturned.mp4", 180, "rotate-180.mp4"),
        ("unturned.mov", 270, "rotate-270.mov"),
    ] {
        let status = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-i"])
            .arg(dir.join(from))
            .args(["-c", "copy", "-metadata:s:v:0"])
            .arg(format!("rotate={degrees}"))
            .arg(dir.join(to))
            .status()
            .unwrap();
        assert!(status.success(), "ffmpeg turned {to}");
        let probe = ffprobe(&dir.join(to));
        assert_ne!(probe.rotation, 0, "{to} is turned");
    }
    // Sound alone, in an MP4: a video file with no picture.
    let sound_only = dir.join("sound-only.mp4");
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(sound)
        .args(["-c:a", "aac"])
        .arg(&sound_only)
        .status()
        .unwrap();
    assert!(status.success());
    // Truncations: half of a file whose index is at its end (ffprobe and we refuse it), and of one whose
    // index is at its front (both read it).
    for (from, to) in [
        ("h264.mp4", "truncated-index-last.mp4"),
        ("faststart.mp4", "truncated-index-first.mp4"),
        ("h264.mkv", "truncated.mkv"),
        ("mpeg4.avi", "truncated.avi"),
    ] {
        let bytes = std::fs::read(dir.join(from)).unwrap();
        std::fs::write(dir.join(to), &bytes[..bytes.len() / 2]).unwrap();
    }
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let head = std::fs::read(&path).unwrap();
        let format = MediaFormat::from_signature(&head[..head.len().min(4096)])
            .unwrap_or_else(|| panic!("{name} is recognised as a video format"));
        assert!(format.info().video.is_some(), "{name} is a video, not {}", format.name());
        if ours(&path, format).is_ok() {
            read += 1;
        }
        compare(&name, &path, format, &mut differences);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(differences.is_empty(), "{} differ from ffprobe:\n{}", differences.len(), differences.join("\n"));
    assert_eq!(read, cases.len() + 7, "every generated video but the one truncated before its index is read");
}

/// What differs between our facts of `path` and ffprobe's, each a line of `differences`.
fn compare(name: &str, path: &Path, format: MediaFormat, differences: &mut Vec<String>) {
    let probe = ffprobe(path);
    let known = |what: &str| KNOWN.contains(&(name, what));
    let facts = match ours(path, format) {
        Ok(facts) => facts,
        Err(e) => {
            if !probe.refused && probe.size.is_some() {
                differences.push(format!("{name}: ours refused ({e}), ffprobe reads {:?}", probe.size));
            }
            return;
        }
    };
    if probe.refused {
        return;
    }
    let mut differ = |what: &str, detail: String| {
        if !known(what) {
            differences.push(format!("{name}: {what}: {detail}"));
        }
    };
    // A transport stream states no size but in its video's own headers, which are read for H.264 only.
    let unstated = format == MediaFormat::MpegTs && probe.video_codec.as_deref() != Some("h264");
    if facts.size != probe.size && !(facts.size.is_none() && unstated) {
        differ("size", format!("ours {:?}, ffprobe {:?}", facts.size, probe.size));
    }
    if facts.rotation != probe.rotation {
        differ("rotation", format!("ours {}, ffprobe {}", facts.rotation, probe.rotation));
    }
    let frame_ms = probe.frame_rate.map_or(50.0, |fps| 1000.0 / fps).max(1.0);
    match (facts.duration_ms, probe.duration_ms) {
        (Some(ours), Some(theirs)) if (ours as f64 - theirs).abs() > frame_ms => {
            differ("duration", format!("ours {ours} ms, ffprobe {theirs:.1} ms"))
        }
        (None, Some(theirs)) => differ("duration", format!("ours none, ffprobe {theirs:.1} ms")),
        _ => {}
    }
    if let (Some(ours), Some(theirs)) = (facts.frame_rate, probe.frame_rate)
        && (ours.per_second() / theirs - 1.0).abs() > 0.005
    {
        differ("frame rate", format!("ours {:.3}, ffprobe {theirs:.3}", ours.per_second()));
    }
    if probe.video_codec.is_some() && facts.video_codec != probe.video_codec {
        differ("video codec", format!("ours {:?}, ffprobe {:?}", facts.video_codec, probe.video_codec));
    }
    if facts.audio_codec != probe.audio_codec && !(probe.audio_codec.is_none() && facts.audio_codec.is_none()) {
        differ("audio codec", format!("ours {:?}, ffprobe {:?}", facts.audio_codec, probe.audio_codec));
    }
    if let (Some(ours), Some(theirs)) = (facts.frame_count, probe.frame_count)
        && ours != theirs
    {
        differ("frame count", format!("ours {ours}, ffprobe {theirs}"));
    }
}
