//! Videos over HTTP (issue 60, parts 1–3 and 6): their facts in the file object, against ffprobe's reading
//! of the same file; their thumbnail, a poster that is not the black opening; frames at `t` through every
//! image parameter, against ffmpeg's frame at `t` through the same resize; and what a broken or hostile
//! video gets (a 400 that names it, never a crash or a hang). The videos are made here by ffmpeg, the
//! reference (scripts/test.sh installs Debian's), and asked of ffprobe and ffmpeg here too.

use std::{path::Path, process::Command};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, eventually};

/// A video ffmpeg makes from its test pattern: `seconds` long at 25 frames a second, `extra` its encoder
/// and muxer arguments, `filter` what the picture goes through first.
fn make_video(dir: &Path, name: &str, seconds: f64, filter: &str, extra: &[&str]) -> Vec<u8> {
    let path = dir.join(name);
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg(format!("testsrc2=size=320x240:rate=25:duration={seconds}"))
        .args(["-f", "lavfi", "-i"])
        .arg(format!("sine=frequency=440:duration={seconds}"))
        .args(["-vf", filter])
        .args(extra)
        .args(["-shortest"])
        .arg(&path)
        .status()
        .expect("ffmpeg runs (scripts/test.sh installs Debian's ffmpeg)");
    assert!(status.success(), "ffmpeg made {name}");
    std::fs::read(&path).unwrap()
}

/// `bytes` (a video of `dir` named `name`) with a display matrix turning it `degrees`, as a phone writes
/// one: remuxed, since FFmpeg 5.1 drops a `rotate` tag given to an encode.
fn turned(dir: &Path, name: &str, degrees: u32) -> Vec<u8> {
    let to = dir.join(format!("turned-{name}"));
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(dir.join(name))
        .args(["-c", "copy", "-metadata:s:v:0"])
        .arg(format!("rotate={degrees}"))
        .arg(&to)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(to).unwrap()
}

fn h264(extra: &[&'static str]) -> Vec<&'static str> {
    [&["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"][..], extra].concat()
}

/// ffprobe's facts of `path`, as the file object states them.
fn ffprobe_facts(path: &Path) -> Value {
    let output = Command::new("ffprobe")
        .args(["-v", "error", "-show_streams", "-show_format", "-of", "json"])
        .arg(path)
        .output()
        .unwrap();
    let probe: Value = serde_json::from_slice(&output.stdout).unwrap();
    let streams = probe["streams"].as_array().unwrap();
    let video = streams.iter().find(|s| s["codec_type"] == "video").unwrap();
    let audio = streams.iter().find(|s| s["codec_type"] == "audio");
    let rotation = video["side_data_list"]
        .as_array()
        .and_then(|list| list.iter().find_map(|d| d["rotation"].as_i64()))
        .map_or(0, |r| (-r).rem_euclid(360));
    let (w, h) = (video["width"].as_u64().unwrap(), video["height"].as_u64().unwrap());
    let (width, height) = if rotation % 180 == 90 { (h, w) } else { (w, h) };
    let rate = video["avg_frame_rate"].as_str().unwrap();
    let (n, d) = rate.split_once('/').unwrap();
    json!({
        "width": width,
        "height": height,
        "duration": (probe["format"]["duration"].as_str().unwrap().parse::<f64>().unwrap() * 1000.0),
        "frameRate": n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap(),
        "videoCodec": video["codec_name"],
        "audioCodec": audio.map_or(Value::Null, |a| a["codec_name"].clone()),
        "frameCount": video["nb_frames"].as_str().and_then(|n| n.parse::<u64>().ok()),
    })
}

async fn file_object(app: &TestApp, id: &str) -> Value {
    let response = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["file"].clone()
}

/// The mean absolute difference of two pictures' RGB bytes, which must be the same size.
fn mean_difference(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let sum: u64 = a.as_raw().iter().zip(b.as_raw()).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
    sum as f64 / a.as_raw().len() as f64
}

/// The luma's standard deviation: near 0 for a picture of one colour.
fn deviation(picture: &image::RgbImage) -> f64 {
    let luma: Vec<f64> =
        picture.pixels().map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])).collect();
    let mean = luma.iter().sum::<f64>() / luma.len() as f64;
    (luma.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / luma.len() as f64).sqrt()
}

#[tokio::test]
async fn videos_carry_their_containers_facts() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        ("portrait.mp4", "video/mp4", h264(&[])),
        (
            "clip.mov",
            "video/quicktime",
            vec![
                "-c:v",
                "libx265",
                "-preset",
                "ultrafast",
                "-tag:v",
                "hvc1",
                "-x265-params",
                "log-level=error",
                "-c:a",
                "aac",
            ],
        ),
        (
            "clip.webm",
            "video/webm",
            vec!["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"],
        ),
        ("clip.avi", "video/x-msvideo", vec!["-c:v", "mpeg4", "-c:a", "libmp3lame"]),
        ("clip.mkv", "video/x-matroska", vec!["-c:v", "libx264", "-preset", "ultrafast", "-an"]),
        // A camcorder's kind: H.264 in a transport stream, its size read from the stream's own headers.
        ("clip.mts", "video/mp2t", h264(&["-f", "mpegts"])),
    ];
    for (name, mime, args) in &cases {
        let mut bytes = make_video(dir.path(), name, 1.0, "null", args);
        if *name == "portrait.mp4" {
            // What a phone writes upright: coded 320×240, displayed 240×320.
            bytes = turned(dir.path(), name, 90);
            std::fs::write(dir.path().join(name), &bytes).unwrap();
            assert_eq!(ffprobe_facts(&dir.path().join(name))["width"], 240);
        }
        let file = app.upload(name, mime, &bytes).await;
        assert_eq!(file["type"], "video", "{name}");
        assert_eq!(file["rawType"], *mime, "{name}");
        let expected = ffprobe_facts(&dir.path().join(name));
        for field in ["width", "height", "videoCodec", "audioCodec"] {
            assert_eq!(file[field], expected[field], "{name}: {field} at confirm, as ffprobe reads it");
        }
        let frame_ms = 1000.0 / expected["frameRate"].as_f64().unwrap();
        let duration = file["duration"].as_f64().unwrap_or_else(|| panic!("{name} has a duration"));
        assert!((duration - expected["duration"].as_f64().unwrap()).abs() <= frame_ms, "{name}: {file} {expected}");
        if let Some(rate) = file["frameRate"].as_f64() {
            assert!((rate / expected["frameRate"].as_f64().unwrap() - 1.0).abs() < 0.005, "{name}: {rate}");
        }
        if !expected["frameCount"].is_null() {
            assert_eq!(file["frameCount"], expected["frameCount"], "{name}");
        }
        let bitrate = file["bitrate"].as_f64().unwrap();
        let stated = bytes.len() as f64 * 8.0 / (duration / 1000.0);
        assert!((bitrate / stated - 1.0).abs() < 0.01, "{name}: {bitrate} bits/s");
        // A frame of each.
        let (status, content_type, _) = app.fetch(&format!("{}?t=0.5&w=64", file["secureUrl"].as_str().unwrap())).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/jpeg"), "{name}");
        // Still what the video is: served as stored.
        let (status, content_type, body) = app.fetch(file["secureUrl"].as_str().unwrap()).await;
        assert_eq!((status, content_type.as_str(), body.len()), (StatusCode::OK, *mime, bytes.len()), "{name}");
    }
    // A video whose index never arrived (cut before its `moov`): stored, its facts null, its thumbnail the
    // video placeholder, a frame of it a 400 that says why.
    let whole = make_video(dir.path(), "cut.mp4", 1.0, "null", &h264(&[]));
    let cut = app.upload("cut.mp4", "video/mp4", &whole[..whole.len() / 2]).await;
    assert_eq!(cut["type"], "video");
    for field in ["width", "height", "duration", "frameRate", "videoCodec", "audioCodec", "bitrate", "frameCount"] {
        assert!(cut[field].is_null(), "{field}: {cut}");
    }
    let (status, _, body) = app.fetch(&format!("{}?w=100&format=jpeg", cut["secureUrl"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("headers could not be read"), "{}", String::from_utf8_lossy(&body));
    // An image has none of them.
    let photo = app.upload("cat.png", "image/png", &crate::helpers::subject_png()).await;
    for field in ["duration", "frameRate", "videoCodec", "audioCodec", "bitrate"] {
        assert!(photo[field].is_null(), "{field}");
    }
}

#[tokio::test]
async fn a_videos_thumbnail_and_placeholders_come_from_a_poster_that_is_not_its_black_opening() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    // Black for the first second, then the test pattern.
    let bytes = make_video(dir.path(), "dark-open.mp4", 3.0, "drawbox=c=black:t=fill:enable='lt(t,1)'", &h264(&[]));
    let file = app.upload("dark-open.mp4", "video/mp4", &bytes).await;
    let id = file["id"].as_str().unwrap();
    let (status, content_type, thumbnail) = app.fetch(file["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"));
    let thumbnail = image::load_from_memory(&thumbnail).unwrap().to_rgb8();
    // The 256-pixel square cover of a 320×240 picture, never enlarged: 256×240, as for an image.
    assert_eq!(thumbnail.dimensions(), (256, 240));
    assert!(deviation(&thumbnail) > 20.0, "the poster is the pattern, not the black opening");
    // The description job summarises the poster.
    eventually(30, "the description job runs", || async { !file_object(&app, id).await["placeholder"].is_null() })
        .await;
    let described = file_object(&app, id).await;
    assert_ne!(described["dominantColor"], "#000000");
    for field in ["thumbhash", "blurhash", "placeholder"] {
        assert!(described[field].is_string(), "{field}: {described}");
    }
    // An all-black video still has a poster: its first frame.
    let black = make_video(dir.path(), "black.mp4", 1.0, "drawbox=c=black:t=fill", &h264(&[]));
    let black = app.upload("black.mp4", "video/mp4", &black).await;
    let (status, _, thumbnail) = app.fetch(black["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(deviation(&image::load_from_memory(&thumbnail).unwrap().to_rgb8()) < 3.0);
    // Sound alone has the video placeholder, as before.
    let sound = dir.path().join("sound.mp4");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac"])
        .arg(&sound)
        .status()
        .unwrap();
    assert!(made.success());
    let sound = app.upload("sound.mp4", "video/mp4", &std::fs::read(&sound).unwrap()).await;
    assert!(sound["width"].is_null() && sound["audioCodec"] == "aac", "{sound}");
    let (status, content_type, _) = app.fetch(sound["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/png"));
}

#[tokio::test]
async fn frames_at_t_equal_ffmpegs_through_the_same_resize() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let bytes = make_video(dir.path(), "pattern.mp4", 2.0, "null", &h264(&["-g", "25"]));
    make_video(dir.path(), "portrait.mp4", 1.0, "null", &h264(&[]));
    let portrait = turned(dir.path(), "portrait.mp4", 90);
    let file = app.upload("pattern.mp4", "video/mp4", &bytes).await;
    let url = file["secureUrl"].as_str().unwrap().to_owned();
    for t in ["0", "0.52", "1.3", "1.96"] {
        let (status, content_type, body) = app.fetch(&format!("{url}?t={t}&w=160&format=png")).await;
        assert_eq!(
            (status, content_type.as_str()),
            (StatusCode::OK, "image/png"),
            "t={t}: {}",
            String::from_utf8_lossy(&body)
        );
        let ours = image::load_from_memory(&body).unwrap().to_rgb8();
        let reference = dir.path().join(format!("ffmpeg-{t}.png"));
        let made = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-ss", t, "-i"])
            .arg(dir.path().join("pattern.mp4"))
            .args(["-frames:v", "1", "-vf", "scale=160:120:flags=lanczos"])
            .arg(&reference)
            .status()
            .unwrap();
        assert!(made.success());
        let theirs = image::open(&reference).unwrap().to_rgb8();
        let difference = mean_difference(&ours, &theirs);
        // Two Lanczos resizes of one frame (FFmpeg's in YCbCr, ours in RGB after its conversion): within a
        // few levels; a neighbouring frame of the moving pattern differs by far more.
        assert!(difference < 4.0, "t={t}: mean difference {difference:.2} from ffmpeg's frame");
    }
    // Every image parameter applies to the frame: a cover crop, a blur, gray, a rotation.
    let (status, content_type, body) =
        app.fetch(&format!("{url}?t=1&w=100&h=100&fit=cover&gray=true&rot=90&blur=1&format=jpeg")).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/jpeg"));
    assert_eq!(image::load_from_memory(&body).unwrap().width(), 100);
    // `auto` is a WebP still; no format named is JPEG; the URL's extension names one too.
    let (_, auto, _) = app.fetch(&format!("{url}?t=1&w=100&format=auto")).await;
    assert_eq!(auto, "image/webp");
    let (_, plain, _) = app.fetch(&format!("{url}?w=100")).await;
    assert_eq!(plain, "image/jpeg");
    let (status, by_extension, _) = app.fetch(&format!("{}?t=0.5&w=90", url.replace(".mp4", ".png"))).await;
    assert_eq!((status, by_extension.as_str()), (StatusCode::OK, "image/png"));
    // The variant key includes `t`.
    assert_ne!(etag(&app, &url, "0.2").await, etag(&app, &url, "0.6").await);
    assert_eq!(etag(&app, &url, "0.6").await, etag(&app, &url, "0.600").await, "one variant however `t` is written");
    // Past the end: a 400 that names the duration.
    let (status, _, body) = app.fetch(&format!("{url}?t=2.5&w=100&format=jpeg")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = String::from_utf8_lossy(&body);
    assert!(message.contains("beyond the video's end") && message.contains("2.0"), "{message}");
    // A turned video's frames are shown as it is: 240×320.
    let turned = app.upload("portrait.mp4", "video/mp4", &portrait).await;
    let (status, _, body) = app.fetch(&format!("{}?t=0.5&format=png", turned["secureUrl"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(image::load_from_memory(&body).unwrap().to_rgb8().dimensions(), (240, 320));
    // transform-url takes `t` and hands out the frame's URL; past the end it refuses as delivery does.
    let id = file["id"].as_str().unwrap();
    let made: Value = app
        .authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key)
        .json(&json!({"t": 0.5, "w": 64, "format": "webp"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let frame_url = made["url"].as_str().unwrap_or_else(|| panic!("{made}"));
    assert!(frame_url.contains("t=0.5"), "{frame_url}");
    let (status, content_type, _) = app.fetch(frame_url).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"));
    let refused = app
        .authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key)
        .json(&json!({"t": 9, "w": 64}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    // An image ignores `t`.
    let photo = app.upload("cat.png", "image/png", &crate::helpers::subject_png()).await;
    let photo_url = photo["secureUrl"].as_str().unwrap();
    let (_, _, with_t) = app.fetch(&format!("{photo_url}?w=50&t=3")).await;
    let (_, _, without) = app.fetch(&format!("{photo_url}?w=50")).await;
    assert_eq!(with_t, without);
}

/// The ETag of the frame at `t` of the video at `url`, 80 pixels wide.
async fn etag(app: &TestApp, url: &str, t: &str) -> String {
    let response = app.client.get(format!("{url}?t={t}&w=80&format=jpeg")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()["etag"].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn broken_and_hostile_videos_are_refused_by_name() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    // Headers whole, pictures gone: the index at the front, the media data cut after a few bytes.
    let whole = make_video(dir.path(), "front.mp4", 2.0, "null", &h264(&["-movflags", "+faststart"]));
    let moov_end = {
        let size = u32::from_be_bytes(whole[0..4].try_into().unwrap()) as usize;
        let moov = size + u32::from_be_bytes(whole[size..size + 4].try_into().unwrap()) as usize;
        assert_eq!(&whole[size + 4..size + 8], b"moov");
        moov
    };
    let gutted = app.upload("gutted.mp4", "video/mp4", &whole[..moov_end + 64]).await;
    assert_eq!(gutted["width"], 320, "its headers are whole");
    let (status, _, body) =
        app.fetch(&format!("{}?t=1&w=100&format=jpeg", gutted["secureUrl"].as_str().unwrap())).await;
    let message = String::from_utf8_lossy(&body);
    assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
    assert!(message.contains("FFmpeg") || message.contains("no frame"), "{message}");
    let (status, content_type, _) = app.fetch(gutted["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/png"), "the video placeholder");

    // A picture size past the pixel budget in the sample entry: refused from the headers, before decoding.
    let mut huge = whole.clone();
    // The sample entry (an `avc1` box inside `stsd`; `ftyp` names `avc1` as a brand before it).
    let stsd = huge.windows(4).position(|w| w == b"stsd").unwrap();
    let at = stsd + huge[stsd..].windows(4).position(|w| w == b"avc1").unwrap() + 4;
    // VisualSampleEntry: width and height 24 and 26 bytes into its content.
    huge[at + 24..at + 26].copy_from_slice(&30_000u16.to_be_bytes());
    huge[at + 26..at + 28].copy_from_slice(&30_000u16.to_be_bytes());
    let huge = app.upload("huge.mp4", "video/mp4", &huge).await;
    assert_eq!((huge["width"].as_u64(), huge["height"].as_u64()), (Some(30_000), Some(30_000)));
    let (status, _, body) = app.fetch(&format!("{}?w=100&format=jpeg", huge["secureUrl"].as_str().unwrap())).await;
    let message = String::from_utf8_lossy(&body);
    assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
    assert!(message.contains("30000x30000") && message.contains("pixels"), "{message}");
    // A duration past SHUTTERBOX_VIDEO_MAX_SECONDS (4 h) in the movie header: refused before decoding.
    let mut long = whole.clone();
    let mvhd = long.windows(4).position(|w| w == b"mvhd").unwrap() + 4;
    // Version 0: the timescale 12 bytes into the box's content, the duration after it.
    long[mvhd + 12..mvhd + 16].copy_from_slice(&1000u32.to_be_bytes());
    long[mvhd + 16..mvhd + 20].copy_from_slice(&(5 * 3600 * 1000u32).to_be_bytes());
    let long = app.upload("long.mp4", "video/mp4", &long).await;
    assert_eq!(long["duration"], 5 * 3600 * 1000);
    let (status, _, body) = app.fetch(&format!("{}?t=1&w=100&format=jpeg", long["secureUrl"].as_str().unwrap())).await;
    let message = String::from_utf8_lossy(&body);
    assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
    assert!(message.contains("18000 s long") && message.contains("14400 s"), "{message}");
    // The node still serves.
    let health = app.client.get(format!("{}/healthz", app.root)).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}

#[tokio::test]
async fn animated_previews_run_every_frame_through_the_image_parameters() {
    use image::AnimationDecoder;
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    make_video(dir.path(), "pattern.mp4", 3.0, "null", &h264(&[]));
    let bytes = std::fs::read(dir.path().join("pattern.mp4")).unwrap();
    let file = app.upload("pattern.mp4", "video/mp4", &bytes).await;
    let url = file["secureUrl"].as_str().unwrap().to_owned();

    let (status, content_type, body) = app.fetch(&format!("{url}?t=0.5&dur=1&w=120&format=gif")).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/gif"), "{}", String::from_utf8_lossy(&body));
    let frames = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(&body)).unwrap().into_frames();
    let frames: Vec<image::Frame> = frames.collect::<Result<_, _>>().unwrap();
    // Ten frames a second (the video has 25), each through the resize.
    assert_eq!(frames.len(), 10);
    for frame in &frames {
        assert_eq!(frame.buffer().dimensions(), (120, 90));
        let (numerator, denominator) = frame.delay().numer_denom_ms();
        assert_eq!(numerator / denominator, 100, "a tenth of a second each");
    }
    // The first is ffmpeg's frame at t through the same resize (within a GIF palette's error).
    let reference = dir.path().join("first.png");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-ss", "0.5", "-i"])
        .arg(dir.path().join("pattern.mp4"))
        .args(["-frames:v", "1", "-vf", "scale=120:90:flags=lanczos"])
        .arg(&reference)
        .status()
        .unwrap();
    assert!(made.success());
    let first = image::DynamicImage::ImageRgba8(frames[0].buffer().clone()).to_rgb8();
    let difference = mean_difference(&first, &image::open(&reference).unwrap().to_rgb8());
    assert!(difference < 12.0, "mean difference {difference:.2} from ffmpeg's frame at 0.5 s");

    // WebP, and auto: an animated WebP.
    for format in ["webp", "auto"] {
        let (status, content_type, body) = app.fetch(&format!("{url}?dur=2&w=64&format={format}")).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"), "{format}");
        assert!(body.windows(4).any(|w| w == b"ANIM"), "{format}: an animation");
    }
    // Past the configured limit (10 s by default), or as a format that does not animate: a 400 naming it.
    let (status, _, body) = app.fetch(&format!("{url}?dur=11&format=gif")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("at most 10 s"), "{}", String::from_utf8_lossy(&body));
    let (status, _, body) = app.fetch(&format!("{url}?dur=1&format=jpeg")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("GIF or a WebP"), "{}", String::from_utf8_lossy(&body));
    // A preview bigger than the animation budget is refused before FFmpeg starts.
    let small_budget = TestApp::spawn_with(|config| config.limits.max_animation_pixels = 100_000).await;
    let file = small_budget.upload("pattern.mp4", "video/mp4", &bytes).await;
    let (status, _, body) =
        small_budget.fetch(&format!("{}?dur=2&w=320&format=gif", file["secureUrl"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("frames of"), "{}", String::from_utf8_lossy(&body));
}

/// Clears what confirm and the description job recorded of a video, as a database from before video facts
/// has it.
async fn forget_video(app: &TestApp, id: &str) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.config.backend.database_url()).await.unwrap();
    sqlx::query(
        "UPDATE files SET width = NULL, height = NULL, frame_count = NULL, rotation = NULL, duration_ms = NULL, \
         frame_rate_num = NULL, frame_rate_den = NULL, video_codec = NULL, audio_codec = NULL, bitrate = NULL, \
         dominant_color = NULL, thumbhash = NULL, blurhash = NULL, placeholder = NULL, attention_x = NULL, \
         attention_y = NULL, described_at = NULL WHERE id = $1",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn backfill_reads_the_facts_and_poster_of_videos_stored_before_them() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let bytes = make_video(dir.path(), "old.mp4", 1.0, "null", &h264(&[]));
    let file = app.upload("old.mp4", "video/mp4", &bytes).await;
    let id = file["id"].as_str().unwrap();
    eventually(30, "the description job runs", || async { !file_object(&app, id).await["placeholder"].is_null() })
        .await;
    let before = file_object(&app, id).await;
    forget_video(&app, id).await;
    let forgotten = file_object(&app, id).await;
    assert!(forgotten["duration"].is_null() && forgotten["placeholder"].is_null(), "{forgotten}");
    let env: Vec<(&str, String)> = app.command_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(name, value)| (*name, value.as_str())).collect();
    let (ok, stdout, stderr) = crate::helpers::shutterbox(&["backfill"], &env).await;
    assert!(ok, "backfill failed: {stdout}{stderr}");
    assert!(stdout.contains("1 images described, 0 not readable, 0 failed"), "{stdout}");
    let after = file_object(&app, id).await;
    for field in [
        "width",
        "height",
        "duration",
        "frameRate",
        "videoCodec",
        "audioCodec",
        "bitrate",
        "frameCount",
        "dominantColor",
        "thumbhash",
        "blurhash",
        "placeholder",
    ] {
        assert_eq!(after[field], before[field], "{field} read again as it was");
    }
}

#[tokio::test]
async fn video_frames_spend_the_cold_render_budget() {
    let app = TestApp::spawn_with(|config| {
        config.cold_render_limit = Some(shutterbox_api::RateLimitSpec { requests: 2, window_secs: 86_400 });
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let bytes = make_video(dir.path(), "clip.mp4", 1.0, "null", &h264(&[]));
    let file = app.upload("clip.mp4", "video/mp4", &bytes).await;
    let url = file["secureUrl"].as_str().unwrap();
    for t in ["0.1", "0.2"] {
        let (status, _, _) = app.fetch(&format!("{url}?t={t}&w=50&format=jpeg")).await;
        assert_eq!(status, StatusCode::OK, "t={t}");
    }
    let (status, _, _) = app.fetch(&format!("{url}?t=0.3&w=50&format=jpeg")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "a third new frame is past the budget");
    let (status, _, _) = app.fetch(&format!("{url}?t=0.1&w=50&format=jpeg")).await;
    assert_eq!(status, StatusCode::OK, "a frame made already is served");
}
