//! Image facts and placeholders in the file object (issue 41, part 1): from the headers at confirm, from
//! the pixels by the description job, and by `shutterbox backfill` for files stored before they existed.

use base64::{Engine, engine::general_purpose::STANDARD};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_pipeline::{
    Gravity, RenderOptions,
    samples::{SampleKind, sample},
    summarize,
};

use crate::helpers::{TestApp, eventually, shutterbox, subject_png};

/// The file's object as `GET /v1/files/{id}` answers it.
async fn get(app: &TestApp, id: &str) -> Value {
    let response = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["file"].clone()
}

/// The file's object once its description job has run (its placeholder is set).
async fn described(app: &TestApp, id: &str) -> Value {
    eventually(20, "the description job runs", || async { !get(app, id).await["placeholder"].is_null() }).await;
    get(app, id).await
}

const HEADER_FIELDS: [&str; 5] = ["width", "height", "hasAlpha", "animated", "frameCount"];
const PIXEL_FIELDS: [&str; 4] = ["dominantColor", "thumbhash", "blurhash", "placeholder"];

/// The pixel fields the pipeline computes for `bytes`, as the file object shows them.
fn expected_pixel_fields(bytes: &[u8]) -> Value {
    let (_, summary) = summarize(bytes, &RenderOptions::default()).unwrap();
    json!({
        "dominantColor": summary.dominant_color.hex(),
        "thumbhash": summary.thumbhash,
        "blurhash": summary.blurhash,
        "placeholder": summary.placeholder,
    })
}

fn fields(file: &Value, names: &[&str]) -> Value {
    Value::Object(names.iter().map(|&name| (name.to_owned(), file[name].clone())).collect())
}

#[tokio::test]
async fn files_carry_their_image_facts_and_placeholders() {
    let app = TestApp::spawn().await;
    let cases = [
        // Stored 120×80 and turned by its EXIF orientation: delivered 80×120.
        ("turned.jpg", "image/jpeg", sample(SampleKind::JpegOriented(6), 120, 80, 7).unwrap(), (80, 120, false, 1)),
        ("alpha.png", "image/png", sample(SampleKind::PngRgba, 50, 40, 1).unwrap(), (50, 40, true, 1)),
        ("moving.gif", "image/gif", sample(SampleKind::GifAnimated, 30, 20, 2).unwrap(), (30, 20, true, 3)),
        ("photo.heic", "image/heic", sample(SampleKind::HeicAlpha, 64, 48, 3).unwrap(), (64, 48, true, 1)),
    ];
    let mut ids = Vec::new();
    for (name, mime, bytes, (width, height, alpha, frames)) in &cases {
        let file = app.upload(name, mime, bytes).await;
        // The headers' facts are in confirm's answer already.
        let facts =
            json!({"width": width, "height": height, "hasAlpha": alpha, "animated": *frames > 1, "frameCount": frames});
        assert_eq!(fields(&file, &HEADER_FIELDS), facts, "{name} at confirm");
        ids.push((file["id"].as_str().unwrap().to_owned(), facts, bytes));
    }
    let text = app.upload("notes.txt", "text/plain", b"no picture here").await;
    for (id, facts, bytes) in &ids {
        let file = described(&app, id).await;
        assert_eq!(&fields(&file, &HEADER_FIELDS), facts);
        // The job's fields are the pipeline's, byte for byte, in get and list alike.
        let pixels = fields(&file, &PIXEL_FIELDS);
        assert_eq!(pixels, expected_pixel_fields(bytes));
        let colour = file["dominantColor"].as_str().unwrap();
        assert!(colour.len() == 7 && colour.starts_with('#'), "{colour}");
        assert_eq!(file["blurhash"].as_str().unwrap().len(), 28);
        assert!(!STANDARD.decode(file["thumbhash"].as_str().unwrap()).unwrap().is_empty());
        let webp = file["placeholder"].as_str().unwrap().strip_prefix("data:image/webp;base64,").unwrap();
        let tiny = image::load_from_memory(&STANDARD.decode(webp).unwrap()).unwrap();
        assert_eq!(tiny.width().max(tiny.height()), 16);
        let page: Value =
            app.authed(Method::GET, "/files?pageSize=100", &app.key).send().await.unwrap().json().await.unwrap();
        let listed = page["files"].as_array().unwrap().iter().find(|f| f["id"] == id.as_str()).unwrap();
        assert_eq!(fields(listed, &PIXEL_FIELDS), pixels);
        assert_eq!(&fields(listed, &HEADER_FIELDS), facts);
    }
    // What is no image has none of them, sent as null.
    let text = get(&app, text["id"].as_str().unwrap()).await;
    for name in HEADER_FIELDS.iter().chain(&PIXEL_FIELDS) {
        assert!(text.get(*name).is_some_and(Value::is_null), "{name} of a text file: {}", text[*name]);
    }
}

#[tokio::test]
async fn gravity_focus_uses_the_attention_point_of_the_description() {
    let app = TestApp::spawn().await;
    let bytes = subject_png();
    let file = app.upload("subject.png", "image/png", &bytes).await;
    described(&app, file["id"].as_str().unwrap()).await;
    let (_, summary) = summarize(&bytes, &RenderOptions::default()).unwrap();
    let point = Gravity::Point(summary.attention).canonical();
    let base = file["secureUrl"].as_str().unwrap();
    let focus = app.fetch(&format!("{base}?w=120&h=120&gravity=focus")).await;
    let at_point = app.fetch(&format!("{base}?w=120&h=120&gravity={point}")).await;
    let attention = app.fetch(&format!("{base}?w=120&h=120&gravity=attention")).await;
    assert_eq!(focus.0, StatusCode::OK);
    assert!(focus.2 == at_point.2, "focus is the stored attention point, {point}");
    assert!(focus.2 == attention.2, "which is where attention crops this picture too");
}

/// Clears what the description and confirm recorded, as a database from before image facts has it.
async fn forget_descriptions(app: &TestApp, ids: &[&str]) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.config.backend.database_url()).await.unwrap();
    for id in ids {
        sqlx::query(
            "UPDATE files SET width = NULL, height = NULL, has_alpha = NULL, frame_count = NULL, \
             dominant_color = NULL, thumbhash = NULL, blurhash = NULL, placeholder = NULL, attention_x = NULL, \
             attention_y = NULL, described_at = NULL WHERE id = $1",
        )
        .bind(*id)
        .execute(&pool)
        .await
        .unwrap();
    }
}

#[tokio::test]
async fn backfill_describes_what_is_left_and_only_that() {
    let app = TestApp::spawn().await;
    let mut files = Vec::new();
    for seed in 0..3 {
        let bytes = sample(SampleKind::Jpeg420, 90 + seed as u32, 60, seed).unwrap();
        let file = app.upload(&format!("old-{seed}.jpg"), "image/jpeg", &bytes).await;
        files.push(described(&app, file["id"].as_str().unwrap()).await);
    }
    app.upload("notes.txt", "text/plain", b"not an image").await;
    let ids: Vec<&str> = files.iter().map(|f| f["id"].as_str().unwrap()).collect();
    forget_descriptions(&app, &ids).await;
    for id in &ids {
        let file = get(&app, id).await;
        assert!(file["width"].is_null() && file["placeholder"].is_null(), "forgotten: {file}");
    }
    let env: Vec<(&str, String)> = app.command_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(name, value)| (*name, value.as_str())).collect();
    let (ok, stdout, stderr) = shutterbox(&["backfill"], &env).await;
    assert!(ok, "backfill failed: {stdout}{stderr}");
    assert!(stdout.contains("backfill: 3 images described, 0 not readable, 0 failed"), "{stdout}");
    for (id, before) in ids.iter().zip(&files) {
        let after = get(&app, id).await;
        let all: Vec<&str> = HEADER_FIELDS.iter().chain(&PIXEL_FIELDS).copied().collect();
        assert_eq!(fields(&after, &all), fields(before, &all), "{id} described again as it was");
    }
    // A run takes only what is left: one image forgotten, one described; none left, none.
    forget_descriptions(&app, &ids[1..2]).await;
    let (ok, stdout, _) = shutterbox(&["backfill"], &env).await;
    assert!(ok && stdout.contains("backfill: 1 images described"), "{stdout}");
    let (ok, stdout, _) = shutterbox(&["backfill"], &env).await;
    assert!(ok && stdout.contains("backfill: 0 images described"), "{stdout}");
    assert_eq!(fields(&get(&app, ids[1]).await, &PIXEL_FIELDS), fields(&files[1], &PIXEL_FIELDS));
}
