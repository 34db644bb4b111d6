//! Attempts to break in, over HTTP: traversal and encoding tricks on every route that takes an id or a key,
//! hostile names, one account reaching for another's files through every operation, scopes, and images
//! built to exhaust the decoder (huge headers in every format, 100,000 GIF frames, truncated and corrupt
//! files of every input format). The answers are 4xx with the JSON body — never a 5xx, never another
//! object's bytes.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_model::Scope;
use shutterbox_pipeline::samples::animated_gif;

use crate::helpers::{PNG, TestApp, assert_error, raw_request};

const TRICKS: &[&str] = &[
    "..",
    "../..",
    "%2e%2e",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "..%2f..%2fsigning.key",
    "..%5c..%5csigning.key",
    "%5c",
    "%00",
    "x%00y",
    "%c0%ae%c0%ae",
    "%c0%af",
    "%e2%80%a5", // U+2025 two dot leader, a look-alike of ".."
    "%ef%bc%8f", // U+FF0F fullwidth solidus, a look-alike of "/"
    "%e2%80%ae", // U+202E right-to-left override
    "%ff%fe",
    "01900000-0000-7000-8000-000000000000%2f..",
    "files%2f..%2f..%2fshutterbox.db",
];

/// Sends a request with `target` exactly as written and checks the answer is a 4xx with the JSON body.
async fn refused(app: &TestApp, method: &str, target: &str, key: &str, body: &[u8]) {
    let auth = format!("ApiKey {key}");
    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    let response = raw_request(app, method, target, &headers, body).await;
    assert!((400..500).contains(&response.status), "{method} {target}: status {}", response.status);
    let content_type = response.header("content-type").unwrap_or("");
    assert!(content_type.starts_with("application/json"), "{method} {target}: content-type {content_type:?}");
    let parsed: Value = serde_json::from_slice(&response.body)
        .unwrap_or_else(|e| panic!("{method} {target}: body is not JSON ({e}): {:?}", response.body));
    assert_eq!(parsed["status"], response.status, "{method} {target}");
    assert!(!response.body.windows(4).any(|w| w == b"\x89PNG"), "{method} {target}: served image bytes");
}

#[tokio::test]
async fn every_route_that_takes_an_id_or_key_refuses_tricks() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    for trick in TRICKS.iter().copied().chain([&format!("{id}%2f..")[..], &format!("..%2f{id}")[..]]) {
        refused(&app, "GET", &format!("/v1/files/{trick}"), &app.key, b"").await;
        refused(&app, "DELETE", &format!("/v1/files/{trick}"), &app.key, b"").await;
        refused(&app, "GET", &format!("/v1/files/{trick}/thumbnail"), &app.key, b"").await;
        refused(&app, "POST", &format!("/v1/file/{trick}/transform-url"), &app.key, br#"{"w":10}"#).await;
        refused(&app, "GET", &format!("/v1/warm/{trick}"), &app.key, b"").await;
        refused(&app, "PUT", &format!("/storage/{trick}"), &app.key, b"bytes").await;
        refused(&app, "PUT", &format!("/storage/pending/{trick}?expires=9999999999&size=5&signature=00"), "", b"x")
            .await;
    }
    // The file is untouched by all of that.
    let get = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::OK);
    let (status, _, bytes) = app.fetch(file["rawUrl"].as_str().unwrap()).await;
    assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG));
}

#[tokio::test]
async fn hostile_names_are_refused_or_kept_inert() {
    let app = TestApp::spawn().await;
    let presign = |filename: String, folder: Option<&str>| {
        let mut body = json!({"filename": filename, "mimetype": "image/png", "size": PNG.len()});
        if let Some(folder) = folder {
            body["folderName"] = json!(folder);
        }
        body
    };
    // Refused: separators, dot segments, control and bidi-override characters, over-long names.
    let refused_names = [
        "a/b.png".to_owned(),
        "a\\b.png".into(),
        "..".into(),
        "a\u{0}b.png".into(),
        "a\u{7f}b.png".into(),
        "a\u{1b}[31mb.png".into(),
        "cat\u{202E}gnp.exe".into(),
        "cat\u{2066}.png".into(),
        format!("{}.png", "n".repeat(1_000)),
    ];
    for name in refused_names {
        let response = app.presign(&app.key, presign(name.clone(), None)).await;
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    for folder in ["../x", "a/../../b", "a\\b", &"d".repeat(1_000), "a/\u{202E}b"] {
        let response = app.presign(&app.key, presign("ok.png".into(), Some(folder))).await;
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    // Kept as plain text: reserved device names and look-alikes are names like any other here, since no
    // name ever becomes a file-system path (object keys are UUIDs), and each stays one path segment.
    for name in ["CON.png", "nul.png", "COM1.png", "aux", "a\u{FF0F}b.png", "\u{2025}.png", "ｃａｔ.png"] {
        let body = presign(name.into(), Some("inert"));
        let file = app.upload_as(&app.key, body, PNG).await;
        assert_eq!(file["name"].as_str().unwrap(), name, "{name}");
        let (status, _, bytes) = app.fetch(file["rawUrl"].as_str().unwrap()).await;
        assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG), "{name}");
        let url = file["secureUrl"].as_str().unwrap();
        let segments = url.strip_prefix(&format!("{}/file/", app.base)).unwrap().split('/').count();
        assert_eq!(segments, 3, "{name}: account, folder, name in {url}");
    }
}

#[tokio::test]
async fn one_account_never_reaches_anothers_files_and_scopes_hold() {
    let app = TestApp::spawn().await;
    let theirs = app.upload("private.png", "image/png", PNG).await;
    let id = theirs["id"].as_str().unwrap().to_owned();
    let warm: Value = app
        .authed(Method::POST, "/warm", &app.key)
        .json(&json!({"fileIds": [id], "transformations": ["w=8"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let batch = warm["batchId"].as_str().unwrap().to_owned();
    let other = app.key_for("intruder", Scope::Secret).await;

    let transform = app.authed(Method::POST, &format!("/file/{id}/transform-url"), &other).json(&json!({"w": 10}));
    assert_error(transform.send().await.unwrap(), StatusCode::NOT_FOUND).await;
    let warm_theirs =
        app.authed(Method::POST, "/warm", &other).json(&json!({"fileIds": [id], "transformations": ["w=8"]}));
    assert_error(warm_theirs.send().await.unwrap(), StatusCode::NOT_FOUND).await;
    let status = app.authed(Method::GET, &format!("/warm/{batch}"), &other).send().await.unwrap();
    assert_error(status, StatusCode::NOT_FOUND).await;
    for method in [Method::GET, Method::DELETE] {
        let response = app.authed(method.clone(), &format!("/files/{id}"), &other).send().await.unwrap();
        assert_error(response, StatusCode::NOT_FOUND).await;
    }

    // Scopes: read and upload keys can neither transform, warm nor delete.
    for scope in [Scope::Read, Scope::Upload] {
        let key = app.key_for("default", scope).await;
        let transform = app.authed(Method::POST, &format!("/file/{id}/transform-url"), &key).json(&json!({"w": 10}));
        assert_error(transform.send().await.unwrap(), StatusCode::FORBIDDEN).await;
        let warm = app.authed(Method::POST, "/warm", &key).json(&json!({"transformations": ["w=8"]}));
        assert_error(warm.send().await.unwrap(), StatusCode::FORBIDDEN).await;
        let delete = app.authed(Method::DELETE, &format!("/files/{id}"), &key).send().await.unwrap();
        assert_error(delete, StatusCode::FORBIDDEN).await;
    }
    let get = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::OK, "the owner still has the file");
}

/// A JPEG whose frame header announces `side`×`side` pixels, with no image data behind it.
fn jpeg_bomb(side: u16) -> Vec<u8> {
    let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08];
    jpeg.extend_from_slice(&side.to_be_bytes());
    jpeg.extend_from_slice(&side.to_be_bytes());
    jpeg.extend_from_slice(&[0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
    jpeg.extend_from_slice(&[0xFF, 0xD9]);
    jpeg
}

/// A GIF whose screen and only frame announce 65535×65535 pixels.
fn gif_bomb() -> Vec<u8> {
    let mut gif = b"GIF89a\xff\xff\xff\xff\x00\x00\x00".to_vec();
    gif.extend_from_slice(b"\x2c\x00\x00\x00\x00\xff\xff\xff\xff\x00\x02\x02\x44\x01\x00\x3b");
    gif
}

/// A lossless WebP whose header announces 16384×16384 pixels.
fn webp_bomb() -> Vec<u8> {
    let bits: u32 = 16383 | (16383 << 14);
    let mut vp8l = vec![0x2F];
    vp8l.extend_from_slice(&bits.to_le_bytes());
    vp8l.extend_from_slice(&[0; 8]);
    let mut webp = b"RIFF".to_vec();
    webp.extend_from_slice(&(4 + 8 + vp8l.len() as u32).to_le_bytes());
    webp.extend_from_slice(b"WEBPVP8L");
    webp.extend_from_slice(&(vp8l.len() as u32).to_le_bytes());
    webp.extend_from_slice(&vp8l);
    webp
}

/// A PNG whose header announces 100000×100000 pixels.
fn png_bomb() -> Vec<u8> {
    let mut png = PNG[..33].to_vec();
    png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    png
}

async fn transform_status(app: &TestApp, name: &str, mimetype: &str, bytes: &[u8]) -> (StatusCode, Duration) {
    let file = app.upload(name, mimetype, bytes).await;
    let started = Instant::now();
    let url = format!("{}?w=10&format=png", file["secureUrl"].as_str().unwrap());
    let response = app.client.get(url).send().await.unwrap();
    let status = response.status();
    if status.is_client_error() {
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["status"], status.as_u16(), "{name}");
    }
    (status, started.elapsed())
}

#[tokio::test]
async fn decompression_bombs_are_refused_fast() {
    let app = TestApp::spawn().await;
    let bombs = [
        ("bomb.png", "image/png", png_bomb()),
        ("bomb.jpg", "image/jpeg", jpeg_bomb(65_500)),
        ("bomb.gif", "image/gif", gif_bomb()),
        ("bomb.webp", "image/webp", webp_bomb()),
        ("frames.gif", "image/gif", animated_gif(100_000)),
    ];
    for (name, mimetype, bytes) in bombs {
        let (status, took) = transform_status(&app, name, mimetype, &bytes).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name}");
        assert!(took < Duration::from_secs(2), "{name}: refused in {took:?}");
    }
    // A GIF of a few frames is fine.
    assert_eq!(transform_status(&app, "few.gif", "image/gif", &animated_gif(3)).await.0, StatusCode::OK);
}

/// Small valid images of every input format, made by the `image` crate (AVIF by the service itself).
async fn samples(app: &TestApp) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let image = image::DynamicImage::ImageRgba8(image::RgbaImage::from_fn(24, 16, |x, y| {
        image::Rgba([(x * 10) as u8, (y * 15) as u8, 90, 255])
    }));
    let encode = |format| {
        let mut out = std::io::Cursor::new(Vec::new());
        let image = if format == image::ImageFormat::Jpeg { image.to_rgb8().into() } else { image.clone() };
        image.write_to(&mut out, format).unwrap();
        out.into_inner()
    };
    let png = encode(image::ImageFormat::Png);
    let source = app.upload("avif-source.png", "image/png", &png).await;
    let (status, _, avif) = app.fetch(&format!("{}?format=avif", source["secureUrl"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
    vec![
        ("s.jpg", "image/jpeg", encode(image::ImageFormat::Jpeg)),
        ("s.png", "image/png", png),
        ("s.gif", "image/gif", encode(image::ImageFormat::Gif)),
        ("s.webp", "image/webp", encode(image::ImageFormat::WebP)),
        ("s.tiff", "image/tiff", encode(image::ImageFormat::Tiff)),
        ("s.bmp", "image/bmp", encode(image::ImageFormat::Bmp)),
        ("s.avif", "image/avif", avif),
    ]
}

#[tokio::test]
async fn truncated_and_corrupt_images_of_every_format_are_4xx() {
    let app = TestApp::spawn().await;
    for (name, mimetype, bytes) in samples(&app).await {
        let (status, _) = transform_status(&app, name, mimetype, &bytes).await;
        assert_eq!(status, StatusCode::OK, "{name} intact");
        let mut damaged = Vec::new();
        for cut in [1, 2, 3, 5, 8] {
            damaged.push(bytes[..bytes.len() * cut / 10].to_vec());
        }
        // Flipped bytes past the header, every 7th.
        let mut flipped = bytes.clone();
        for byte in flipped.iter_mut().skip(24).step_by(7) {
            *byte ^= 0x5A;
        }
        damaged.push(flipped);
        for (i, bytes) in damaged.iter().enumerate() {
            let (status, _) = transform_status(&app, &format!("{i}-{name}"), mimetype, bytes).await;
            // BMP is served as stored (never decoded), so any answer but a 5xx is right for it.
            assert!(status.is_success() || status.is_client_error(), "{i}-{name}: {status}");
            assert!(!status.is_server_error(), "{i}-{name}: {status}");
        }
    }
}
