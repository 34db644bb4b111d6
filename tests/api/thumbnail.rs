//! `GET /v1/files/<id>/thumbnail`: rendered by the job confirm queues (so the first request reads it from
//! the store), public, 256×256 WebP; placeholders for files without a picture; ETag, 304, HEAD, 404; and
//! deleting a file removes its stored variants.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{PNG, TestApp, assert_error, dimensions, eventually, file_id};

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = RgbaImage::from_fn(width, height, |x, y| Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255]));
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
    out
}

fn thumbnail_url(file: &Value) -> &str {
    file["secureThumbnailUrl"].as_str().unwrap()
}

const RENDERS: &str = "shutterbox_renders_total";
const STORED: &str = "shutterbox_variant_store_hits_total";

#[tokio::test]
async fn the_confirm_job_renders_the_thumbnail_before_anyone_asks() {
    let app = TestApp::spawn().await;
    let file = app.upload("photo.png", "image/png", &png(600, 400)).await;
    app.wait_for_jobs(2).await;
    let (renders, stored) = (app.metric(RENDERS).await, app.metric(STORED).await);

    let (status, content_type, bytes) = app.fetch(thumbnail_url(&file)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type, "image/webp");
    assert_eq!(&bytes[8..12], b"WEBP");
    assert_eq!(dimensions(&bytes), (256, 256), "the preset is a 256×256 cover crop");
    assert_eq!(app.metric(RENDERS).await, renders, "nothing rendered on request");
    assert_eq!(app.metric(STORED).await, stored + 1, "read from the stored variant");
}

#[tokio::test]
async fn the_thumbnail_is_the_delivery_variant_of_the_preset() {
    let app = TestApp::spawn().await;
    let file = app.upload("photo.png", "image/png", &png(300, 500)).await;
    let (_, _, thumbnail) = app.fetch(thumbnail_url(&file)).await;
    let preset = format!("{}?w=256&h=256&fit=cover&q=80&anim=false&format=webp", file["secureUrl"].as_str().unwrap());
    let (status, _, delivered) = app.fetch(&preset).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(thumbnail, delivered);
}

#[tokio::test]
async fn small_images_are_not_enlarged() {
    let app = TestApp::spawn().await;
    let file = app.upload("tiny.png", "image/png", PNG).await;
    let (status, content_type, bytes) = app.fetch(thumbnail_url(&file)).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"));
    let (width, height) = dimensions(&bytes);
    assert!(width <= 16 && height <= 8, "{width}x{height} from a 16x8 source");
}

#[tokio::test]
async fn files_without_a_picture_get_the_placeholder_of_their_type() {
    let app = TestApp::spawn().await;
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"></svg>";
    let cases: [(&str, &str, &[u8]); 4] = [
        ("notes.txt", "text/plain", b"just some text"),
        ("data.json", "application/json", b"{\"a\": 1}"),
        ("logo.svg", "image/svg+xml", svg),
        // PNG magic but truncated: typed an image, but it cannot be decoded.
        ("broken.png", "image/png", &PNG[..60]),
    ];
    let mut placeholders = Vec::new();
    for (name, mime, bytes) in cases {
        let file = app.upload(name, mime, bytes).await;
        let (status, content_type, body) = app.fetch(thumbnail_url(&file)).await;
        assert_eq!(status, StatusCode::OK, "{name}");
        assert_eq!(content_type, "image/png", "{name}");
        assert_eq!(dimensions(&body), (256, 256), "{name}");
        placeholders.push(body);
    }
    assert_ne!(placeholders[0], placeholders[1], "a document and data look different");
    assert_ne!(placeholders[0], placeholders[2]);
    assert_eq!(placeholders[2], placeholders[3], "SVG and undecodable images share the image placeholder");
}

#[tokio::test]
async fn etag_304_head_and_unknown_ids() {
    let app = TestApp::spawn().await;
    for (name, mime, bytes) in [("photo.png", "image/png", png(300, 300)), ("a.txt", "text/plain", b"text".to_vec())] {
        let file = app.upload(name, mime, &bytes).await;
        let url = thumbnail_url(&file);
        let response = app.client.get(url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let etag = response.headers()["etag"].to_str().unwrap().to_owned();
        assert!(etag.starts_with('"') && etag.ends_with('"'), "strong ETag {etag}");
        assert!(response.headers()["cache-control"].to_str().unwrap().starts_with("public, max-age="));
        let length = response.headers()["content-length"].to_str().unwrap().to_owned();
        assert_eq!(response.bytes().await.unwrap().len().to_string(), length);

        let again = app.client.get(url).header("If-None-Match", &etag).send().await.unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{name}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
        assert!(again.bytes().await.unwrap().is_empty());

        let head = app.client.head(url).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::OK);
        assert_eq!(head.headers()["content-length"].to_str().unwrap(), length);
        assert!(head.bytes().await.unwrap().is_empty());
    }
    let unknown = app.client.get(format!("{}/files/0190-nope/thumbnail", app.base)).send().await.unwrap();
    assert_error(unknown, StatusCode::NOT_FOUND).await;
    let post = app.client.post(format!("{}/files/whatever/thumbnail", app.base)).send().await.unwrap();
    assert_error(post, StatusCode::METHOD_NOT_ALLOWED).await;
}

#[tokio::test]
async fn deleting_a_file_removes_its_stored_variants() {
    let app = TestApp::spawn().await;
    let file = app.upload("photo.png", "image/png", &png(400, 300)).await;
    let id = file["id"].as_str().unwrap();
    let variant = format!("{}?w=100&format=jpeg", file["secureUrl"].as_str().unwrap());
    assert_eq!(app.fetch(&variant).await.0, StatusCode::OK);
    // The original, the thumbnail (job) and the variant (kept in the background).
    eventually(10, "the original, the thumbnail and the variant stored", || async {
        app.stored_objects(&file_id(&file)).len() == 3
    })
    .await;

    let deleted = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    // A variant whose object is written but whose record is not yet is removed by the write that finds
    // the file gone, just after the delete answers: so "soon", not "at once".
    eventually(10, "every stored object of the deleted file removed", || async {
        app.stored_objects(&file_id(&file)).is_empty()
    })
    .await;
    if app.is_embedded() {
        assert!(!app.objects_dir.join("files").join(id).exists(), "no empty directories left behind");
    }
    assert_error(app.client.get(&variant).send().await.unwrap(), StatusCode::NOT_FOUND).await;
    assert_error(app.client.get(thumbnail_url(&file)).send().await.unwrap(), StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn stored_variants_are_read_back_when_memory_holds_nothing() {
    // A zero-byte memory cache: every request misses memory, so the store is what answers.
    let app = TestApp::spawn_with(|config| config.cache_bytes = 0).await;
    let file = app.upload("photo.png", "image/png", &png(400, 300)).await;
    let variant = format!("{}?w=120&format=png", file["secureUrl"].as_str().unwrap());
    let (status, _, first) = app.fetch(&variant).await;
    assert_eq!(status, StatusCode::OK);
    for _ in 0..200 {
        if app.stored_objects(&file_id(&file)).len() == 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (renders, stored) = (app.metric(RENDERS).await, app.metric(STORED).await);
    let (status, _, second) = app.fetch(&variant).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first, second);
    assert_eq!(app.metric(RENDERS).await, renders);
    assert_eq!(app.metric(STORED).await, stored + 1);
}
