//! Image delivery with transformations: output formats and their Content-Types, geometry, the stem lookup
//! (`cat.webp` → `cat.png`), passthroughs, the variant cache (one render for concurrent misses, ETag, 304,
//! HEAD) and every invalid parameter or image answered with a 4xx.

use std::io::Cursor;

use futures_util::future::join_all;
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{TestApp, assert_error, dimensions, subject_png};

/// A 400×300 photo-like PNG.
fn photo_png() -> Vec<u8> {
    let img = RgbaImage::from_fn(400, 300, |x, y| Rgba([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8, 255]));
    let mut out = Vec::new();
    DynamicImage::ImageRgba8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
    out
}

async fn photo(app: &TestApp) -> Value {
    app.upload("photo.png", "image/png", &photo_png()).await
}

fn url(file: &Value) -> String {
    file["secureUrl"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn formats_have_their_magic_bytes_and_content_types() {
    let app = TestApp::spawn().await;
    let base = url(&photo(&app).await);
    let cases: [(&str, &str, &[u8], usize); 6] = [
        ("jpeg", "image/jpeg", b"\xFF\xD8\xFF", 0),
        ("png", "image/png", b"\x89PNG", 0),
        ("webp", "image/webp", b"WEBP", 8),
        ("avif", "image/avif", b"ftypavif", 4),
        ("gif", "image/gif", b"GIF8", 0),
        ("tiff", "image/tiff", b"II*\0", 0),
    ];
    for (format, mime, magic, at) in cases {
        let (status, content_type, bytes) = app.fetch(&format!("{base}?w=100&format={format}")).await;
        assert_eq!(status, StatusCode::OK, "{format}");
        assert_eq!(content_type, mime, "{format}");
        assert_eq!(&bytes[at..at + magic.len()], magic, "{format}");
    }
    // format=auto is WebP, whatever the request's Accept header says.
    let response =
        app.client.get(format!("{base}?w=100&format=auto")).header("Accept", "image/avif").send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "image/webp");
}

#[tokio::test]
async fn geometry_follows_sharp() {
    let app = TestApp::spawn().await;
    let base = url(&photo(&app).await);
    // (query, expected size) for a 400×300 source; values as sharp's resize({fit, withoutEnlargement: true}).
    let cases = [
        ("w=200", (200, 150)),
        ("h=150", (200, 150)),
        ("w=100&h=100", (100, 100)),
        ("w=100&h=100&fit=contain", (100, 100)),
        ("w=100&h=100&fit=fill", (100, 100)),
        // One side only keeps the aspect ratio for every fit, fill included (docs/transformations.md, "Resizing").
        ("w=200&fit=fill", (200, 150)),
        ("w=100&h=100&fit=inside", (100, 75)),
        ("w=100&h=100&fit=outside", (133, 100)),
        ("w=4000", (400, 300)),
        ("crop=10,10,200,100&w=100", (100, 50)),
        ("rot=90&w=150", (150, 200)),
        ("border=5_ff0000&w=100", (110, 85)),
    ];
    for (query, expected) in cases {
        let (status, _, bytes) = app.fetch(&format!("{base}?{query}&format=png")).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(dimensions(&bytes), expected, "{query}");
    }
}

#[tokio::test]
async fn the_url_extension_names_the_output_format() {
    let app = TestApp::spawn().await;
    let file = photo(&app).await;
    let webp = url(&file).replace("photo.png", "photo.webp");
    let (status, content_type, bytes) = app.fetch(&webp).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"));
    assert_eq!(dimensions(&bytes), (400, 300));
    // `format` overrides the extension.
    let (_, content_type, _) = app.fetch(&format!("{webp}?format=jpeg&w=10")).await;
    assert_eq!(content_type, "image/jpeg");
    // An extension that is no image format does not match.
    let (status, _, _) = app.fetch(&url(&file).replace("photo.png", "photo.txt")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // format=bmp returns the original unconverted.
    let (_, content_type, bytes) = app.fetch(&format!("{}?format=bmp&w=10", url(&file))).await;
    assert_eq!((content_type.as_str(), bytes), ("image/png", photo_png()));
}

#[tokio::test]
async fn parameter_order_gives_identical_bytes_and_etags() {
    let app = TestApp::spawn().await;
    let base = url(&photo(&app).await);
    let a = app.client.get(format!("{base}?w=120&gray=true&format=jpeg&q=70")).send().await.unwrap();
    let b = app.client.get(format!("{base}?q=70&format=jpeg&gray=true&w=120&utm=x")).send().await.unwrap();
    let (etag_a, etag_b) = (a.headers()["etag"].clone(), b.headers()["etag"].clone());
    assert_eq!(etag_a, etag_b);
    assert_eq!(a.bytes().await.unwrap(), b.bytes().await.unwrap());
    let other = app.client.get(format!("{base}?w=121&gray=true&format=jpeg&q=70")).send().await.unwrap();
    assert_ne!(other.headers()["etag"], etag_a);
}

#[tokio::test]
async fn variants_answer_etags_304_and_head() {
    let app = TestApp::spawn().await;
    let variant = format!("{}?w=50&format=webp", url(&photo(&app).await));
    let get = app.client.get(&variant).send().await.unwrap();
    let etag = get.headers()["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && !etag.starts_with("W/"), "strong ETag {etag}");
    assert!(get.headers()["cache-control"].to_str().unwrap().starts_with("public, max-age="));
    let length = get.headers()["content-length"].to_str().unwrap().to_owned();
    let body = get.bytes().await.unwrap();
    assert_eq!(length, body.len().to_string());
    let not_modified = app.client.get(&variant).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
    let head = app.client.head(&variant).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(head.headers()["content-length"].to_str().unwrap(), length);
    assert_eq!(head.headers()["content-type"], "image/webp");
    assert!(head.bytes().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_misses_render_once() {
    let app = TestApp::spawn().await;
    let variant = format!("{}?w=300&blur=2&format=jpeg", url(&photo(&app).await));
    let before = app.metric("shutterbox_renders_total").await;
    let bodies = join_all((0..20).map(|_| async {
        let response = app.client.get(&variant).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.bytes().await.unwrap()
    }))
    .await;
    assert!(bodies.iter().all(|b| *b == bodies[0]), "identical bytes for everyone");
    let renders = app.metric("shutterbox_renders_total").await - before;
    assert_eq!(renders, 1, "20 concurrent requests for one cold variant render it once");
}

#[tokio::test]
async fn invalid_parameters_are_400() {
    let app = TestApp::spawn().await;
    let base = url(&photo(&app).await);
    for query in [
        "w=0",
        "w=5001",
        "w=auto",
        "h=-1",
        "fit=stretch",
        "q=0",
        "q=101",
        "blur=0.2",
        "blur=1001",
        "sharp=maybe",
        "gray=2",
        "rot=361",
        "border=5",
        "border=5_zzzzzz",
        "crop=1,2,3",
        "crop=0,0,0,5",
        "format=heic",
        "gravity=up",
        "gravity=fp:1.5,0",
        "gravity=fp:0.5",
        "w=1&w=2",
        // Crop outside the source, found once the image is known.
        "crop=300,0,200,10",
    ] {
        let (status, _, body) = app.fetch(&format!("{base}?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {}", String::from_utf8_lossy(&body));
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["status"], 400);
    }
}

#[tokio::test]
async fn non_images_refuse_transformations_and_broken_images_are_4xx() {
    let app = TestApp::spawn().await;
    let text = app.upload("notes.txt", "text/plain", b"hello").await;
    let response = app.client.get(format!("{}?w=10", url(&text))).send().await.unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("images only"), "{message}");

    // A truncated PNG is still sniffed as PNG (magic bytes) but cannot be decoded.
    let png = photo_png();
    let broken = app.upload("broken.png", "image/png", &png[..png.len() / 2]).await;
    let response = app.client.get(format!("{}?w=10", url(&broken))).send().await.unwrap();
    assert_error(response, StatusCode::BAD_REQUEST).await;

    // A decompression bomb: a PNG header announcing 100000×100000 pixels.
    let mut bomb = png[..33].to_vec();
    bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let bomb = app.upload("bomb.png", "image/png", &bomb).await;
    let response = app.client.get(format!("{}?w=10", url(&bomb))).send().await.unwrap();
    assert_error(response, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn deleting_a_file_drops_its_variants() {
    let app = TestApp::spawn().await;
    let file = photo(&app).await;
    let variant = format!("{}?w=64&format=webp", url(&file));
    assert_eq!(app.fetch(&variant).await.0, StatusCode::OK);
    let id = file["id"].as_str().unwrap();
    app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(app.fetch(&variant).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn avif_sources_are_typed_and_transformed() {
    let app = TestApp::spawn().await;
    // An AVIF made by the service itself from the 400×300 photo.
    let (status, _, avif) = app.fetch(&format!("{}?format=avif", url(&photo(&app).await))).await;
    assert_eq!(status, StatusCode::OK);
    let file = app.upload("still.avif", "image/avif", &avif).await;
    assert_eq!(file["type"], "image");
    assert_eq!(file["rawType"], "image/avif");
    // No parameters: the original bytes.
    assert_eq!(app.fetch(&url(&file)).await.2, avif);
    for (query, expected) in [("w=100&format=png", (100, 75)), ("w=50&h=50&fit=cover&format=jpeg", (50, 50))] {
        let (status, _, bytes) = app.fetch(&format!("{}?{query}", url(&file))).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(dimensions(&bytes), expected, "{query}");
    }
    // Same format out: the URL's own extension.
    let (status, content_type, _) = app.fetch(&format!("{}?w=80", url(&file))).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/avif"));
    // A damaged AVIF is the client's problem, not a 5xx.
    let broken = app.upload("broken.avif", "image/avif", &avif[..avif.len() / 2]).await;
    assert_error(app.client.get(format!("{}?w=80", url(&broken))).send().await.unwrap(), StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn a_reused_name_serves_the_new_images_variants() {
    let app = TestApp::spawn().await;
    let first = photo(&app).await;
    let variant = format!("{}?w=100&format=png", url(&first));
    // Twice, so the second answer comes from the responses kept for this exact URL.
    for _ in 0..2 {
        let (status, _, bytes) = app.fetch(&variant).await;
        assert_eq!((status, dimensions(&bytes)), (StatusCode::OK, (100, 75)));
    }
    let id = first["id"].as_str().unwrap();
    let deleted = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_error(app.client.get(&variant).send().await.unwrap(), StatusCode::NOT_FOUND).await;

    let square = RgbaImage::from_fn(200, 200, |x, _| Rgba([x as u8, 0, 0, 255]));
    let mut png = Vec::new();
    DynamicImage::ImageRgba8(square).write_to(&mut Cursor::new(&mut png), ImageFormat::Png).unwrap();
    let second = app.upload("photo.png", "image/png", &png).await;
    assert_eq!(second["secureUrl"], first["secureUrl"]);
    let (status, _, bytes) = app.fetch(&variant).await;
    assert_eq!((status, dimensions(&bytes)), (StatusCode::OK, (100, 100)));
}

/// Every width a responsive page could ask for, on an ordinary 1200×800 4:2:0 photo (the planar JPEG path,
/// shrunk on load at 1/2, 1/4 and 1/8 as the width falls) and a band past it: each is a 200 whose image has
/// the planned size. One width in ten of this photo used to answer 500 (a crop box rounded past its plane).
#[tokio::test]
async fn every_width_of_a_photo_renders_at_its_planned_size() {
    use futures_util::{StreamExt, stream};
    use shutterbox_pipeline::{
        Size, Transform, output_size,
        samples::{SampleKind, sample},
    };
    let app = TestApp::spawn().await;
    let (width, height) = (1200, 800);
    let jpeg = sample(SampleKind::Jpeg420, width, height, 7).unwrap();
    let base = url(&app.upload("photo.jpg", "image/jpeg", &jpeg).await);
    let failures: Vec<String> = stream::iter(1..=width + 40)
        .map(|w| {
            let (app, base) = (&app, &base);
            async move {
                let query = format!("w={w}");
                let (status, content_type, bytes) = app.fetch(&format!("{base}?{query}")).await;
                let planned = output_size(&Transform::from_query(&query).unwrap(), Size::new(width, height)).unwrap();
                let ok = status == StatusCode::OK
                    && content_type == "image/jpeg"
                    && dimensions(&bytes) == (planned.width, planned.height);
                (!ok).then(|| format!("w={w}: {status} {content_type}, planned {planned:?}"))
            }
        })
        .buffer_unordered(4)
        .filter_map(|failure| async move { failure })
        .collect()
        .await;
    assert!(failures.is_empty(), "{} widths failed: {:?}", failures.len(), &failures[..failures.len().min(20)]);
}

/// `gravity` over HTTP: every value delivers the pipeline's own render of it byte for byte (the window it
/// places), `center` is the default's very bytes, the compass gravities keep the edges they name, and
/// `attention` and `entropy` find the subject; a gravity that places no window (`fit=contain`) shares the
/// default's variant.
#[tokio::test]
async fn gravity_places_the_cover_window() {
    use shutterbox_pipeline::{RenderOptions, Target, Transform, render};

    let app = TestApp::spawn().await;
    let source = subject_png();
    let file = app.upload("subject.png", "image/png", &source).await;
    let base = url(&file);
    let deliver = |query: String| {
        let app = &app;
        let base = base.clone();
        async move {
            let (status, _, body) = app.fetch(&format!("{base}?{query}")).await;
            assert_eq!(status, StatusCode::OK, "{query}: {}", String::from_utf8_lossy(&body));
            body
        }
    };
    let reds = |png: &[u8]| {
        let image = image::load_from_memory(png).unwrap().to_rgba8();
        image.pixels().filter(|p| p.0[0] > 180 && p.0[1] < 100).count()
    };
    let plain = deliver("w=120&h=120".into()).await;
    for gravity in [
        "center",
        "north",
        "northeast",
        "east",
        "southeast",
        "south",
        "southwest",
        "west",
        "northwest",
        "attention",
        "entropy",
        "focus",
        "fp:0.8,0.7",
        "fp:0,0",
    ] {
        let query = format!("w=120&h=120&gravity={gravity}");
        let body = deliver(query.clone()).await;
        let transform = Transform::from_query(&query).unwrap();
        let expected = render(&source, &transform, Target::Source, RenderOptions::default()).unwrap();
        assert!(body == expected.bytes, "{gravity}: the delivered bytes are the pipeline's render");
        assert_eq!(dimensions(&body), (120, 120), "{gravity}");
        let subject = reds(&body);
        match gravity {
            "center" => assert!(body == plain, "center is the default"),
            // The 400×300 source scales to 160×120: the window slides along x only.
            "east" | "northeast" | "southeast" | "attention" | "entropy" | "focus" | "fp:0.8,0.7" => {
                assert!(subject > 700, "{gravity}: the window holds the whole disc ({subject} red pixels)")
            }
            "west" | "northwest" | "southwest" | "fp:0,0" => {
                assert!(subject < reds(&plain), "{gravity}: the window leaves the disc ({subject} red pixels)")
            }
            _ => {}
        }
    }
    // No window to place: the default's variant, the same bytes.
    let contained = deliver("w=120&h=120&fit=contain".into()).await;
    assert!(deliver("w=120&h=120&fit=contain&gravity=east".into()).await == contained);
    // transform-url takes it and its URL delivers it.
    let id = file["id"].as_str().unwrap();
    let transform_url = |gravity: &'static str| {
        app.authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key)
            .json(&serde_json::json!({"w": 120, "h": 120, "gravity": gravity}))
            .send()
    };
    let response = transform_url("fp:0.8,0.7").await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let made: Value = response.json().await.unwrap();
    assert_eq!(made["transformations"]["gravity"], "fp:0.8,0.7");
    let link = made["url"].as_str().unwrap();
    assert!(link.contains("gravity=fp%3A0.8%2C0.7"), "{link}");
    let (status, _, body) = app.fetch(link).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body == deliver("w=120&h=120&gravity=fp:0.8,0.7".into()).await);
    let refused = transform_url("middle").await.unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
}
