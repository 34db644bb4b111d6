//! The operator's delivery rules over real HTTP: signed URLs (`SHUTTERBOX_URL_SIGNING_KEYS`), named presets
//! (`SHUTTERBOX_PRESETS`) and presets only. What stays public stays public; every refusal is the JSON error
//! body, and renders and stores nothing.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_api::UrlSigningKeys;

use crate::helpers::{PNG, TestApp, assert_error, dimensions, file_id, shutterbox};

const KEY_A: &str = "key-a-0123456789abcdef0123456789abcdef";
const KEY_B: &str = "key-b-fedcba9876543210fedcba9876543210";
const PRESETS: &str = "thumb: w=8&h=8&fit=cover; wide: w=12&format=webp";

fn keys(list: &str) -> UrlSigningKeys {
    list.parse().unwrap()
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

async fn spawn(signing: Option<&str>, presets_only: bool) -> TestApp {
    TestApp::spawn_with(|config| {
        config.url_signing_keys = signing.map(str::to_owned);
        config.presets = PRESETS.parse().unwrap();
        config.presets_only = presets_only;
    })
    .await
}

/// An uploaded PNG, its thumbnail and description jobs done: the file object.
async fn upload(app: &TestApp) -> Value {
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    file
}

fn secure_url(file: &Value) -> &str {
    file["secureUrl"].as_str().unwrap()
}

async fn get(app: &TestApp, url: &str) -> reqwest::Response {
    app.client.get(url).send().await.unwrap()
}

/// A 200 image: its Content-Type and dimensions.
async fn image(app: &TestApp, url: &str) -> (String, (u32, u32)) {
    let (status, content_type, bytes) = app.fetch(url).await;
    assert_eq!(status, StatusCode::OK, "{url}: {}", String::from_utf8_lossy(&bytes));
    (content_type, dimensions(&bytes))
}

/// Renders (of the API nodes and the job runners) and stored objects of `file` so far.
async fn work_done(app: &TestApp, file: &Value) -> (u64, u64, usize) {
    (
        app.metric("shutterbox_renders_total").await,
        app.job_metric("shutterbox_job_renders_total").await,
        app.stored_objects(&file_id(file)).len(),
    )
}

async fn transform_url(app: &TestApp, id: &str, body: Value) -> reqwest::Response {
    app.authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key).json(&body).send().await.unwrap()
}

#[tokio::test]
async fn with_signing_keys_a_render_needs_a_valid_signature_and_originals_stay_public() {
    let app = spawn(Some(KEY_A), false).await;
    let file = upload(&app).await;
    let url = secure_url(&file);

    // Public: the original, the thumbnail, presets.
    assert_eq!(get(&app, url).await.status(), StatusCode::OK);
    assert_eq!(get(&app, file["secureThumbnailUrl"].as_str().unwrap()).await.status(), StatusCode::OK);
    assert_eq!(image(&app, &format!("{url}?preset=thumb")).await, ("image/png".into(), (8, 8)));
    let before = work_done(&app, &file).await;

    // Refused before any render: unsigned, by extension, malformed, tampered, re-pathed.
    let webp = url.replace("cat.png", "cat.webp");
    let signed = keys(KEY_A).sign_url(&format!("{url}?w=8"), None).unwrap();
    let sig = signed.rsplit_once("sig=").unwrap().1;
    let refused = [
        format!("{url}?w=8"),
        format!("{url}?format=webp"),
        webp.clone(),
        format!("{url}?w=8&sig="),
        format!("{url}?w=8&sig=not-base64!"),
        format!("{url}?w=8&sig={}", "A".repeat(43)),
        format!("{url}?w=8&sig={sig}&sig={sig}"),
        format!("{url}?w=9&sig={sig}"),
        format!("{url}?w=8&h=8&sig={sig}"),
        format!("{webp}?w=8&sig={sig}"),
        format!("{url}?preset=thumb&sig={}", "A".repeat(43)),
    ];
    for refused in &refused {
        let message = assert_error(get(&app, refused).await, StatusCode::FORBIDDEN).await;
        assert!(message.contains("sig"), "{refused}: {message}");
    }
    assert_eq!(work_done(&app, &file).await.0, before.0, "nothing rendered for a refused URL");

    // Signed: renders; parameters the service does not read may be added.
    assert_eq!(image(&app, &signed).await, ("image/png".into(), (8, 4)));
    assert_eq!(image(&app, &format!("{signed}&utm_source=mail")).await.1, (8, 4));
    let signed_webp = keys(KEY_A).sign_url(&webp, None).unwrap();
    assert_eq!(image(&app, &signed_webp).await.0, "image/webp");

    // transform-url signs what it returns; presets stay unsigned.
    let id = file["id"].as_str().unwrap();
    let body: Value = transform_url(&app, id, json!({"w": 6, "format": "webp"})).await.json().await.unwrap();
    let returned = body["url"].as_str().unwrap();
    assert!(returned.contains("&sig="), "{returned}");
    assert_eq!(image(&app, returned).await, ("image/webp".into(), (6, 3)));
    let body: Value = transform_url(&app, id, json!({"preset": "thumb"})).await.json().await.unwrap();
    assert_eq!(body["url"], format!("{url}?preset=thumb"));
    assert_eq!(body["transformations"], json!({"preset": "thumb"}));
}

#[tokio::test]
async fn signatures_expire_and_keys_rotate() {
    // B signs, A (the previous key) still verifies.
    let app = spawn(Some(&format!("{KEY_B}, {KEY_A}")), false).await;
    let file = upload(&app).await;
    let url = format!("{}?w=8", secure_url(&file));
    assert_eq!(image(&app, &keys(KEY_A).sign_url(&url, None).unwrap()).await.1, (8, 4));
    assert_eq!(image(&app, &keys(KEY_B).sign_url(&url, None).unwrap()).await.1, (8, 4));

    let expired = keys(KEY_B).sign_url(&url, Some(now_secs() - 1)).unwrap();
    let message = assert_error(get(&app, &expired).await, StatusCode::FORBIDDEN).await;
    assert!(message.contains("expired"), "{message}");
    let extended = expired.replace(&format!("exp={}", now_secs() - 1), &format!("exp={}", now_secs() + 3600));
    assert_error(get(&app, &extended).await, StatusCode::FORBIDDEN).await;
    let malformed = keys(KEY_B).sign_url(&format!("{url}&exp=soon"), None).unwrap();
    assert_error(get(&app, &malformed).await, StatusCode::FORBIDDEN).await;

    // Valid until it expires, even after it was served once (expiring answers are not kept by URL).
    let expires = now_secs() + 2;
    let expiring = keys(KEY_B).sign_url(&url, Some(expires)).unwrap();
    assert_eq!(image(&app, &expiring).await.1, (8, 4));
    assert_eq!(image(&app, &expiring).await.1, (8, 4));
    while now_secs() <= expires {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_error(get(&app, &expiring).await, StatusCode::FORBIDDEN).await;

    // A key taken off the list no longer verifies.
    let rotated = spawn(Some(KEY_B), false).await;
    let file = upload(&rotated).await;
    let url = format!("{}?w=8", secure_url(&file));
    assert_error(get(&rotated, &keys(KEY_A).sign_url(&url, None).unwrap()).await, StatusCode::FORBIDDEN).await;
    assert_eq!(image(&rotated, &keys(KEY_B).sign_url(&url, None).unwrap()).await.1, (8, 4));
}

#[tokio::test]
async fn presets_render_by_name_and_anything_else_named_preset_is_a_400() {
    let app = spawn(None, false).await;
    let file = upload(&app).await;
    let url = secure_url(&file);
    let webp = url.replace("cat.png", "cat.webp");
    assert_eq!(image(&app, &format!("{url}?preset=thumb")).await, ("image/png".into(), (8, 8)));
    assert_eq!(image(&app, &format!("{webp}?preset=thumb")).await, ("image/webp".into(), (8, 8)));
    assert_eq!(image(&app, &format!("{url}?preset=wide")).await, ("image/webp".into(), (12, 6)));
    assert_eq!(image(&app, &format!("{url}?preset=thumb&utm=1")).await.1, (8, 8));
    // Ad-hoc transformations stay open by default.
    assert_eq!(image(&app, &format!("{url}?w=8")).await.1, (8, 4));

    let long = "t".repeat(5000);
    for (query, expected) in [
        ("preset=nope", "unknown preset 'nope'"),
        ("preset=", "unknown preset ''"),
        ("preset=THUMB", "unknown preset"),
        ("preset=thumb%00", "unknown preset"),
        ("preset=..%2Fthumb", "unknown preset '../thumb'"),
        ("preset=%E2%80%AEthumb", "unknown preset"),
        ("preset=thumb+", "unknown preset"),
        (&format!("preset={long}"), "unknown preset"),
        ("preset=thumb&w=8", "cannot be combined"),
        ("preset=thumb&format=webp", "cannot be combined"),
        ("preset=thumb&preset=thumb", "more than once"),
    ] {
        let message = assert_error(get(&app, &format!("{url}?{query}")).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains(expected), "{query}: {message}");
        assert!(message.len() < 200, "the message echoes a bounded name: {message}");
    }

    // transform-url and warming take presets by name.
    let id = file["id"].as_str().unwrap();
    let body: Value = transform_url(&app, id, json!({"preset": "wide"})).await.json().await.unwrap();
    assert_eq!(body["url"], format!("{webp}?preset=wide"));
    assert_eq!(image(&app, body["url"].as_str().unwrap()).await, ("image/webp".into(), (12, 6)));
    let response = transform_url(&app, id, json!({"preset": "nope"})).await;
    assert_error(response, StatusCode::BAD_REQUEST).await;
    let response = transform_url(&app, id, json!({"preset": "thumb", "w": 3})).await;
    assert_error(response, StatusCode::BAD_REQUEST).await;
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["preset=thumb"]}));
    assert_eq!(warm.send().await.unwrap().status(), StatusCode::ACCEPTED);
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["preset=nope"]}));
    assert_error(warm.send().await.unwrap(), StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn presets_only_refuses_every_other_transformation() {
    let app = spawn(None, true).await;
    let file = upload(&app).await;
    let url = secure_url(&file);
    let before = work_done(&app, &file).await;
    for refused in [format!("{url}?w=8"), format!("{url}?format=webp"), url.replace("cat.png", "cat.webp")] {
        let message = assert_error(get(&app, &refused).await, StatusCode::FORBIDDEN).await;
        assert!(message.contains("presets only"), "{refused}: {message}");
    }
    assert_eq!(work_done(&app, &file).await, before, "nothing rendered or stored for a refused URL");
    assert_eq!(get(&app, url).await.status(), StatusCode::OK);
    assert_eq!(get(&app, &format!("{url}?utm=1")).await.status(), StatusCode::OK);
    assert_eq!(get(&app, file["secureThumbnailUrl"].as_str().unwrap()).await.status(), StatusCode::OK);
    assert_eq!(image(&app, &format!("{url}?preset=thumb")).await.1, (8, 8));

    let id = file["id"].as_str().unwrap();
    assert_error(transform_url(&app, id, json!({"w": 8})).await, StatusCode::FORBIDDEN).await;
    assert_eq!(transform_url(&app, id, json!({"preset": "thumb"})).await.status(), StatusCode::OK);
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["w=8"]}));
    assert_error(warm.send().await.unwrap(), StatusCode::FORBIDDEN).await;
}

#[tokio::test]
async fn bad_presets_and_keys_stop_the_start_naming_the_entry() {
    for (env, expected) in [
        (("SHUTTERBOX_PRESETS", "thumb: wdith=300"), "unknown parameter 'wdith'"),
        (("SHUTTERBOX_PRESETS", "thumb: w=0"), "preset 'thumb'"),
        (("SHUTTERBOX_PRESETS", "Thumb: w=10"), "preset name 'Thumb'"),
        (("SHUTTERBOX_PRESETS", "a: w=1; a: w=2"), "defined twice"),
        (("SHUTTERBOX_PRESETS", "a: sharp=false"), "changes nothing"),
        (("SHUTTERBOX_URL_SIGNING_KEYS", "too-short"), "at least 32"),
        (("SHUTTERBOX_URL_SIGNING_KEYS", &format!("{KEY_A},short")), "key 2 of SHUTTERBOX_URL_SIGNING_KEYS"),
        (("SHUTTERBOX_URL_SIGNING_KEYS", ","), "names no key"),
    ] {
        let (started, _, stderr) = shutterbox(&["serve"], &[env]).await;
        assert!(!started, "{env:?} started");
        assert!(stderr.contains(expected) && !stderr.contains("panicked"), "{env:?}: {stderr}");
        assert!(!stderr.contains(KEY_A), "keys are never echoed");
    }
}

#[tokio::test]
async fn the_sign_command_signs_urls_the_service_accepts() {
    let app = spawn(Some(KEY_A), false).await;
    let file = upload(&app).await;
    let url = format!("{}?w=8&format=webp", secure_url(&file));
    let (ok, stdout, stderr) =
        shutterbox(&["sign", &url, "--expires-in", "600"], &[("SHUTTERBOX_URL_SIGNING_KEYS", KEY_A)]).await;
    assert!(ok, "{stderr}");
    let signed = stdout.trim();
    assert!(signed.starts_with(&format!("{url}&exp=")) && signed.contains("&sig="), "{signed}");
    assert_eq!(image(&app, signed).await, ("image/webp".into(), (8, 4)));

    let (ok, _, stderr) =
        shutterbox(&["sign", "https://x/v1/raw/a.png"], &[("SHUTTERBOX_URL_SIGNING_KEYS", KEY_A)]).await;
    assert!(!ok && stderr.contains("not a delivery URL"), "{stderr}");
    let (ok, _, stderr) = shutterbox(&["sign", &url], &[]).await;
    assert!(!ok && stderr.contains("SHUTTERBOX_URL_SIGNING_KEYS"), "{stderr}");
}

/// The fenced block of docs/internet.md that follows the line starting with `intro`.
fn docs_example(intro: &str) -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/internet.md")).unwrap();
    let after = &doc[doc.find(&format!("\n{intro}")).unwrap_or_else(|| panic!("no {intro} in docs/internet.md"))..];
    let block = &after[after.find("```").unwrap()..];
    let body = &block[block.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_owned()
}

#[test]
fn the_docs_sign_like_the_service() {
    let expected = "https://img.example.com/v1/file/default/cat.webp?";
    let sig = "&sig=2QpYDi-gYIkdGiJb1c7KtufHk2gedn36lfNSCEzFOnk";
    let keys = keys("0123456789abcdef0123456789abcdef");
    assert_eq!(
        keys.sign_url(&format!("{expected}w=400&format=webp"), None).unwrap(),
        format!("{expected}w=400&format=webp{sig}")
    );
    for (intro, program) in [("**Shell**", "bash"), ("**Python**", "python3")] {
        let output = std::process::Command::new(program).arg("-c").arg(docs_example(intro)).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.trim().starts_with(expected) && stdout.trim().ends_with(sig),
            "{intro}: {stdout} {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
