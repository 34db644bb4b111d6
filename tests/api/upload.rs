//! The three-step upload over real HTTP: presign (validation of every field, scopes), the presigned PUT to
//! the local store (signature, expiry, size limit, no credentials), and confirm (the file object, naming,
//! folders, type sniffing, expiry, idempotence and races).

use std::{collections::HashSet, time::Duration};

use futures_util::future::join_all;
use reqwest::{Method, StatusCode, Url};
use serde_json::{Value, json};
use shutterbox_model::Scope;

use crate::helpers::{PNG, TestApp, assert_error};

/// The presign body for `filename` with `size` bytes of `mimetype`.
fn presign_body(filename: &str, mimetype: &str, size: usize) -> Value {
    json!({ "filename": filename, "mimetype": mimetype, "size": size })
}

/// Presigns with `key` and returns the pending upload object.
async fn presign_ok(app: &TestApp, key: &str, body: Value) -> Value {
    let response = app.presign(key, body.clone()).await;
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, StatusCode::OK, "presign {body}: {text}");
    serde_json::from_str(&text).unwrap()
}

fn upload_url(pending: &Value) -> &str {
    pending["uploadUrl"].as_str().unwrap()
}

fn pending_id(pending: &Value) -> &str {
    pending["pendingUploadId"].as_str().unwrap()
}

/// Confirms and returns the file object, asserting 200.
async fn confirm_ok(app: &TestApp, key: &str, pending: &Value) -> Value {
    let response = app.confirm(key, pending_id(pending)).await;
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, StatusCode::OK, "confirm: {text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{text}");
    body["file"].clone()
}

async fn list_all(app: &TestApp) -> Value {
    let response = app.authed(Method::GET, "/files?pageSize=100", &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

async fn file_count(app: &TestApp) -> usize {
    list_all(app).await["files"].as_array().unwrap().len()
}

/// The upload URL with the query parameter `name` replaced by `value`.
fn with_query(url: &str, name: &str, value: &str) -> String {
    let mut url = Url::parse(url).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == name { value.to_owned() } else { v.into_owned() };
            (k.into_owned(), v)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    url.to_string()
}

fn query_value(url: &str, name: &str) -> String {
    Url::parse(url).unwrap().query_pairs().find(|(k, _)| k == name).unwrap().1.into_owned()
}

/// `2026-11-22T10:11:12.345Z`.
fn is_iso_millis(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
}

/// `cat` + `_` + six lower-case letters or digits + `.jpg`.
fn is_suffixed(name: &str, stem: &str, ext: &str) -> bool {
    let Some(rest) = name.strip_prefix(&format!("{stem}_")) else { return false };
    let Some(suffix) = rest.strip_suffix(&format!(".{ext}")) else { return false };
    suffix.len() == 6 && suffix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

#[tokio::test]
async fn presign_returns_a_pending_upload() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("cat.png", "image/png", PNG.len())).await;
    let fields: HashSet<&str> = pending.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(fields, HashSet::from(["uploadUrl", "pendingUploadId", "expiresIn"]), "{pending}");
    let upload_base = match &app.config.backend.s3.endpoint {
        None => format!("{}/storage/pending/", app.root),
        Some(s3) => format!("{s3}/{}/pending/", app.config.backend.s3.bucket),
    };
    assert!(upload_url(&pending).starts_with(&upload_base), "{pending}");
    assert!(!pending_id(&pending).is_empty());
    assert_eq!(pending["expiresIn"], 3600, "expiresIn is seconds, default one hour");
    // Nothing exists until confirm.
    assert_eq!(file_count(&app).await, 0);
}

#[tokio::test]
async fn a_png_upload_returns_a_complete_file_object() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let object = file.as_object().unwrap();
    let fields: HashSet<&str> = object.keys().map(String::as_str).collect();
    let expected = [
        "id",
        "name",
        "secureUrl",
        "secureThumbnailUrl",
        "rawUrl",
        "type",
        "rawType",
        "size",
        "rawSize",
        "updated",
        "rawUpdated",
        "folderId",
        // Beyond the first version's fields (docs/api.md): the focal point, null until one is set, and the image's
        // facts (docs/api.md, "Image facts"), its placeholders null until its description job ran.
        "focus",
        "width",
        "height",
        "hasAlpha",
        "animated",
        "frameCount",
        "dominantColor",
        "thumbhash",
        "blurhash",
        "placeholder",
        // A video's facts (docs/api.md, "Video facts"): null for an image.
        "duration",
        "frameRate",
        "videoCodec",
        "audioCodec",
        "bitrate",
    ];
    assert_eq!(fields, HashSet::from(expected), "{file}");
    assert_eq!(file["focus"], serde_json::Value::Null);

    let id = file["id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(id).is_ok(), "id {id} is a UUID");
    assert_eq!(file["name"], "cat.png");
    assert_eq!(file["secureUrl"], format!("{}/file/default/cat.png", app.base));
    assert_eq!(file["secureThumbnailUrl"], format!("{}/files/{id}/thumbnail", app.base));
    assert_eq!(file["rawUrl"], format!("{}/raw/default/cat.png", app.base));
    assert_eq!(file["type"], "image");
    assert_eq!(file["rawType"], "image/png");
    assert_eq!(file["size"], format!("{} B", PNG.len()));
    assert_eq!(file["rawSize"], PNG.len());
    assert_eq!(file["updated"], "Just now");
    let raw_updated = file["rawUpdated"].as_str().unwrap();
    assert!(is_iso_millis(raw_updated), "rawUpdated {raw_updated}");
    assert!(file["folderId"].is_null());

    // The stored bytes are the uploaded ones.
    let served = app.client.get(file["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(served.bytes().await.unwrap(), PNG);
}

#[tokio::test]
async fn non_images_are_typed_by_their_content() {
    let app = TestApp::spawn().await;
    let text = app.upload("notes.txt", "text/plain", b"hello, world\n").await;
    assert_eq!(text["type"], "file");
    assert_eq!(text["rawType"], "text/plain");
    assert_eq!(text["size"], "13 B");
    assert_eq!(text["rawSize"], 13);
    assert_eq!(text["rawUrl"], format!("{}/raw/default/notes.txt", app.base));

    let json = app.upload("data.json", "application/json", br#"{"a": [1, 2, 3]}"#).await;
    assert_eq!(json["type"], "json");
    assert_eq!(json["rawType"], "application/json");

    // A JSON claim whose bytes are not JSON is plain text.
    let fake = app.upload("fake.json", "application/json", b"not json at all").await;
    assert_eq!(fake["type"], "file");

    // The bytes win over the declared type for images too.
    let png = app.upload("declared.bin", "application/octet-stream", PNG).await;
    assert_eq!(png["type"], "image");
    assert_eq!(png["rawType"], "image/png");
}

#[tokio::test]
async fn html_declared_as_png_is_not_an_image() {
    let app = TestApp::spawn().await;
    let html = b"<!DOCTYPE html><html><script>alert(document.cookie)</script></html>";
    let file = app.upload("evil.png", "image/png", html).await;
    assert_eq!(file["type"], "file");
    assert_eq!(file["rawType"], "text/html");
    assert_eq!(file["name"], "evil.png");
}

#[tokio::test]
async fn custom_filename_names_the_file() {
    let app = TestApp::spawn().await;
    let mut body = presign_body("IMG_0001.png", "image/png", PNG.len());
    body["customFilename"] = json!("holiday");
    let file = app.upload_as(&app.key, body, PNG).await;
    assert_eq!(file["name"], "holiday.png", "the original extension is kept");
    assert_eq!(file["secureUrl"], format!("{}/file/default/holiday.png", app.base));

    let mut body = presign_body("IMG_0002.png", "image/png", PNG.len());
    body["customFilename"] = json!("beach.image");
    let file = app.upload_as(&app.key, body, PNG).await;
    assert_eq!(file["name"], "beach.image", "an extension of its own is kept");

    let mut body = presign_body("README", "text/plain", 2);
    body["customFilename"] = json!("notes");
    let file = app.upload_as(&app.key, body, b"hi").await;
    assert_eq!(file["name"], "notes");

    let mut body = presign_body("a.png", "image/png", PNG.len());
    body["customFilename"] = json!("../escape");
    let message = assert_error(app.presign(&app.key, body).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("customFilename"), "{message}");
}

#[tokio::test]
async fn folders_nest_and_are_shared() {
    let app = TestApp::spawn().await;
    let mut body = presign_body("one.png", "image/png", PNG.len());
    body["folderName"] = json!("pets/cats");
    let one = app.upload_as(&app.key, body, PNG).await;
    let mut body = presign_body("two.txt", "text/plain", 3);
    body["folderName"] = json!("pets/cats");
    let two = app.upload_as(&app.key, body, b"two").await;
    let mut body = presign_body("three.txt", "text/plain", 5);
    body["folderName"] = json!("pets");
    let three = app.upload_as(&app.key, body, b"three").await;

    let folder = one["folderId"].as_str().expect("folderId is set");
    assert!(uuid::Uuid::parse_str(folder).is_ok(), "folderId {folder}");
    assert_eq!(two["folderId"], folder, "same folder, same id");
    assert!(three["folderId"].is_string());
    assert_ne!(three["folderId"], folder, "the parent folder is another folder");
    assert_eq!(one["name"], "one.png");
    assert_eq!(one["secureUrl"], format!("{}/file/default/pets/cats/one.png", app.base));
    assert_eq!(one["rawUrl"], format!("{}/raw/default/pets/cats/one.png", app.base));
    assert_eq!(three["secureUrl"], format!("{}/file/default/pets/three.txt", app.base));

    // The same name in another folder does not clash.
    let root = app.upload("one.png", "image/png", PNG).await;
    assert_eq!(root["name"], "one.png");
    assert!(root["folderId"].is_null());

    let served = app.client.get(one["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(served.bytes().await.unwrap(), PNG);
}

#[tokio::test]
async fn a_clashing_stem_gets_a_suffix() {
    let app = TestApp::spawn().await;
    let first = app.upload("cat.png", "image/png", PNG).await;
    assert_eq!(first["name"], "cat.png");

    // Same stem, other extension: still a clash (cat.webp must keep meaning cat.png).
    let second = app.upload("cat.jpg", "image/png", PNG).await;
    let name = second["name"].as_str().unwrap();
    assert!(is_suffixed(name, "cat", "jpg"), "{name}");
    assert_eq!(second["secureUrl"], format!("{}/file/default/{name}", app.base));

    // Exactly the same name: suffixed too, and differently.
    let third = app.upload("cat.png", "image/png", PNG).await;
    let third_name = third["name"].as_str().unwrap();
    assert!(is_suffixed(third_name, "cat", "png"), "{third_name}");

    let ids: HashSet<&str> = [&first, &second, &third].iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(file_count(&app).await, 3);
}

#[tokio::test]
async fn urls_percent_encode_each_segment() {
    let app = TestApp::spawn().await;
    let mut body = presign_body("my cat #1 é.png", "image/png", PNG.len());
    body["folderName"] = json!("holiday photos/été");
    let file = app.upload_as(&app.key, body, PNG).await;
    assert_eq!(file["name"], "my cat #1 é.png");
    let path = "default/holiday%20photos/%C3%A9t%C3%A9/my%20cat%20%231%20%C3%A9.png";
    assert_eq!(file["secureUrl"], format!("{}/file/{path}", app.base));
    assert_eq!(file["rawUrl"], format!("{}/raw/{path}", app.base));

    let unicode = app.upload("猫.png", "image/png", PNG).await;
    assert_eq!(unicode["secureUrl"], format!("{}/file/default/%E7%8C%AB.png", app.base));

    for url in [&file["secureUrl"], &file["rawUrl"], &unicode["secureUrl"]] {
        let served = app.client.get(url.as_str().unwrap()).send().await.unwrap();
        assert_eq!(served.status(), StatusCode::OK, "{url}");
        assert_eq!(served.bytes().await.unwrap(), PNG);
    }
}

#[tokio::test]
async fn presign_refuses_missing_and_mistyped_fields() {
    let app = TestApp::spawn().await;
    // Each message says what is wrong: the missing field, or the wrong type or value.
    let cases = [
        (json!({"mimetype": "image/png", "size": 1}), "missing field `filename`"),
        (json!({"filename": "a.png", "size": 1}), "missing field `mimetype`"),
        (json!({"filename": "a.png", "mimetype": "image/png"}), "missing field `size`"),
        (json!({"filename": "a.png", "mimetype": "image/png", "size": "5"}), "size: invalid type: string \"5\""),
        (json!({"filename": "a.png", "mimetype": "image/png", "size": -1}), "size: invalid value: integer `-1`"),
        (
            json!({"filename": "a.png", "mimetype": "image/png", "size": 1.5}),
            "size: invalid type: floating point `1.5`",
        ),
        (json!({"filename": "a.png", "mimetype": "image/png", "size": null}), "size: invalid type: null"),
        (json!({"filename": 7, "mimetype": "image/png", "size": 1}), "filename: invalid type: integer `7`"),
        (json!({"filename": "a.png", "mimetype": "image", "size": 1}), "mimetype"),
        (json!({"filename": "a.png", "mimetype": "not a mime", "size": 1}), "mimetype"),
        (json!({"filename": "a.png", "mimetype": "", "size": 1}), "mimetype"),
        (json!([]), "invalid"),
        (json!("a.png"), "invalid type: string \"a.png\""),
    ];
    for (body, expected) in cases {
        let message = assert_error(app.presign(&app.key, body.clone()).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains(expected), "{body}: {message}");
    }
    assert_eq!(file_count(&app).await, 0);
}

#[tokio::test]
async fn presign_refuses_bad_names_and_folders() {
    let app = TestApp::spawn().await;
    let long = format!("{}.png", "x".repeat(252));
    for filename in ["a/b.png", "a\\b.png", "..", ".", "", "a\u{1}b.png", "a\nb.png", "x\u{202E}gnp.exe", &long] {
        let response = app.presign(&app.key, presign_body(filename, "image/png", 1)).await;
        let message = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("filename"), "{filename:?}: {message}");
    }
    // Exactly 255 bytes is fine.
    let longest = format!("{}.png", "x".repeat(251));
    presign_ok(&app, &app.key, presign_body(&longest, "image/png", 1)).await;

    let deep = vec!["a"; 33].join("/");
    for folder in ["..", "a/../b", "a//b", "a/./b", "a\\b", "a/\u{0}", &"f".repeat(256), &deep] {
        let mut body = presign_body("a.png", "image/png", 1);
        body["folderName"] = json!(folder);
        let message = assert_error(app.presign(&app.key, body).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("folderName"), "{folder:?}: {message}");
    }
}

#[tokio::test]
async fn presign_refuses_sizes_above_the_maximum() {
    let app = TestApp::spawn_with(|c| c.max_upload_bytes = 10).await;
    let message =
        assert_error(app.presign(&app.key, presign_body("a.txt", "text/plain", 11)).await, StatusCode::BAD_REQUEST)
            .await;
    assert!(message.contains("size") && message.contains("10"), "{message}");
    let big = json!({"filename": "a.txt", "mimetype": "text/plain", "size": u64::MAX});
    assert_error(app.presign(&app.key, big).await, StatusCode::BAD_REQUEST).await;
    // The maximum itself is allowed.
    let file = app.upload("ten.txt", "text/plain", b"0123456789").await;
    assert_eq!(file["rawSize"], 10);
}

#[tokio::test]
async fn presign_refuses_malformed_json_and_other_media_types() {
    let app = TestApp::spawn().await;
    for raw in ["{\"filename\": \"a.png\",", "not json", "", "   "] {
        let response = app
            .authed(Method::POST, "/upload/presign", &app.key)
            .header("Content-Type", "application/json")
            .body(raw)
            .send()
            .await
            .unwrap();
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    let valid = presign_body("a.png", "image/png", 1).to_string();
    // Another media type is refused with a declared 400 that names the problem.
    let response = app
        .authed(Method::POST, "/upload/presign", &app.key)
        .header("Content-Type", "text/plain")
        .body(valid.clone())
        .send()
        .await
        .unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("Content-Type must be application/json"), "{message}");
    // A body sent without any Content-Type is read as JSON (curl --data-binary without -H, say).
    let response = app.authed(Method::POST, "/upload/presign", &app.key).body(valid).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(file_count(&app).await, 0);
}

#[tokio::test]
async fn tampered_upload_urls_are_403() {
    let app = TestApp::spawn().await;
    if !app.is_embedded() {
        // The local store's own upload receiver; S3's checks of its presigned URLs (tampering, expiry, a
        // missing signature) are storage/tests/s3.rs's, against the same S3 server.
        return;
    }
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let url = upload_url(&pending);
    let signature = query_value(url, "signature");
    let flipped: String =
        signature.char_indices().map(|(i, c)| if i == 0 { if c == '0' { '1' } else { '0' } } else { c }).collect();
    let expires: u64 = query_value(url, "expires").parse().unwrap();
    let other = presign_ok(&app, &app.key, presign_body("b.txt", "text/plain", 5)).await;
    let other_key = Url::parse(upload_url(&other)).unwrap().path().to_owned();
    let mut moved = Url::parse(url).unwrap();
    moved.set_path(&other_key);

    let tampered = [
        ("signature", with_query(url, "signature", &flipped)),
        ("size", with_query(url, "size", "6")),
        ("expires", with_query(url, "expires", &(expires + 3600).to_string())),
        ("key", moved.to_string()),
    ];
    for (what, tampered_url) in tampered {
        let response = app.put_bytes(&tampered_url, "text/plain", b"hello".to_vec()).await;
        let message = assert_error(response, StatusCode::FORBIDDEN).await;
        assert!(message.contains("signature"), "{what}: {message}");
    }
    // Nothing arrived at either pending upload.
    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("no bytes"), "{message}");
    assert_error(app.confirm(&app.key, pending_id(&other)).await, StatusCode::BAD_REQUEST).await;

    // The untouched URL still works.
    let response = app.put_bytes(url, "text/plain", b"hello".to_vec()).await;
    assert_eq!(response.status(), StatusCode::OK);
    confirm_ok(&app, &app.key, &pending).await;
}

#[tokio::test]
async fn an_upload_url_without_a_signature_is_400() {
    let app = TestApp::spawn().await;
    if !app.is_embedded() {
        // The local store's own upload receiver; S3's checks of its presigned URLs (tampering, expiry, a
        // missing signature) are storage/tests/s3.rs's, against the same S3 server.
        return;
    }
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let mut url = Url::parse(upload_url(&pending)).unwrap();
    let kept: Vec<(String, String)> =
        url.query_pairs().filter(|(k, _)| k != "signature").map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    url.query_pairs_mut().clear().extend_pairs(kept);
    let response = app.put_bytes(url.as_str(), "text/plain", b"hello".to_vec()).await;
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("signature"), "{message}");

    let bare = upload_url(&pending).split('?').next().unwrap().to_owned();
    let response = app.put_bytes(&bare, "text/plain", b"hello".to_vec()).await;
    assert_error(response, StatusCode::BAD_REQUEST).await;
    let response =
        app.put_bytes(&with_query(upload_url(&pending), "signature", "zz"), "text/plain", b"hello".to_vec()).await;
    assert_error(response, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn expired_upload_urls_are_403() {
    let app = TestApp::spawn_with(|c| c.upload_expiry_secs = 0).await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    assert_eq!(pending["expiresIn"], 0);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let response = app.put_bytes(upload_url(&pending), "text/plain", b"hello".to_vec()).await;
    if !app.is_embedded() {
        // S3 answers in its own XML; the status is what matters.
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert!(response.text().await.unwrap().contains("expired"));
        return;
    }
    let message = assert_error(response, StatusCode::FORBIDDEN).await;
    assert!(message.contains("expired"), "{message}");
}

#[tokio::test]
async fn bodies_larger_than_declared_are_413_and_never_become_files() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let url = upload_url(&pending);
    if !app.is_embedded() {
        // S3 cannot bound a presigned PUT's size: it stores the body, and confirm refuses it and removes it.
        assert_eq!(app.put_bytes(url, "text/plain", b"hello world".to_vec()).await.status(), StatusCode::OK);
        let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("11") && message.contains('5'), "{message}");
        assert_eq!(file_count(&app).await, 0);
        assert!(!app.objects_dir.join("pending").join(pending_id(&pending)).exists(), "the object was removed");
        return;
    }

    // Announced by Content-Length.
    let response = app.put_bytes(url, "text/plain", b"hello world".to_vec()).await;
    assert_error(response, StatusCode::PAYLOAD_TOO_LARGE).await;

    // Chunked, without a length: counted as it arrives.
    let chunks: Vec<Result<&'static [u8], std::io::Error>> = vec![Ok(b"hel"), Ok(b"lo world")];
    let response = app
        .client
        .put(url)
        .header("Content-Type", "text/plain")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(chunks)))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::PAYLOAD_TOO_LARGE).await;

    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("no bytes"), "{message}");
    assert_eq!(file_count(&app).await, 0);
    let leftovers = std::fs::read_dir(app.data_dir.join("tmp")).unwrap().count();
    assert_eq!(leftovers, 0, "no partial object is left behind");
}

#[tokio::test]
async fn the_put_needs_no_credentials_and_answers_put_only() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let url = upload_url(&pending);

    // The local store's receiver answers PUT only (a presigned S3 URL is signed for PUT: S3 refuses the rest).
    let (get, post) =
        (app.client.get(url).send().await.unwrap(), app.client.post(url).body("hello").send().await.unwrap());
    if app.is_embedded() {
        assert_error(get, StatusCode::METHOD_NOT_ALLOWED).await;
        assert_error(post, StatusCode::METHOD_NOT_ALLOWED).await;
    } else {
        assert_eq!((get.status(), post.status()), (StatusCode::FORBIDDEN, StatusCode::FORBIDDEN));
    }

    // put_bytes sends no Authorization header.
    let response = app.put_bytes(url, "text/plain", b"hello".to_vec()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let file = confirm_ok(&app, &app.key, &pending).await;
    assert_eq!(file["rawSize"], 5);
}

#[tokio::test]
async fn confirm_of_an_unknown_id_is_404() {
    let app = TestApp::spawn().await;
    for id in ["0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f", "nope", "", "../x"] {
        let message = assert_error(app.confirm(&app.key, id).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains("pending"), "{id:?}: {message}");
    }
    let response = app.authed(Method::POST, "/upload/confirm", &app.key).json(&json!({})).send().await.unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("pendingUploadId"), "{message}");
    let response = app
        .authed(Method::POST, "/upload/confirm", &app.key)
        .json(&json!({"pendingUploadId": 5}))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn confirm_of_another_accounts_upload_is_404() {
    let app = TestApp::spawn().await;
    let other = app.key_for("other", Scope::Secret).await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let response = app.put_bytes(upload_url(&pending), "text/plain", b"hello".to_vec()).await;
    assert_eq!(response.status(), StatusCode::OK);

    assert_error(app.confirm(&other, pending_id(&pending)).await, StatusCode::NOT_FOUND).await;
    // The owner still can, and after that the other account still cannot see it.
    let file = confirm_ok(&app, &app.key, &pending).await;
    assert_error(app.confirm(&other, pending_id(&pending)).await, StatusCode::NOT_FOUND).await;
    let response = app.authed(Method::GET, "/files", &other).send().await.unwrap();
    let listed: Value = response.json().await.unwrap();
    assert_eq!(listed["files"], json!([]));
    assert_eq!(file["secureUrl"], format!("{}/file/default/a.txt", app.base));
}

#[tokio::test]
async fn confirm_before_the_put_is_400() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("no bytes have arrived"), "{message}");
    assert_eq!(file_count(&app).await, 0);

    // The upload is still usable afterwards.
    app.put_bytes(upload_url(&pending), "text/plain", b"hello".to_vec()).await;
    confirm_ok(&app, &app.key, &pending).await;
    assert_eq!(file_count(&app).await, 1);
}

#[tokio::test]
async fn a_short_body_fails_confirm_and_can_be_sent_again() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    let url = upload_url(&pending);
    let response = app.put_bytes(url, "text/plain", b"hel".to_vec()).await;
    assert_eq!(response.status(), StatusCode::OK, "the store takes up to the declared size");

    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains('3') && message.contains('5'), "{message}");
    assert_eq!(file_count(&app).await, 0);
    // The short object was discarded.
    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("no bytes"), "{message}");

    let response = app.put_bytes(url, "text/plain", b"hello".to_vec()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let file = confirm_ok(&app, &app.key, &pending).await;
    assert_eq!(file["rawSize"], 5);
    let served = app.client.get(file["rawUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(served.bytes().await.unwrap(), &b"hello"[..]);
}

#[tokio::test]
async fn confirm_after_expiry_is_400() {
    let app = TestApp::spawn_with(|c| c.upload_expiry_secs = 0).await;
    let pending = presign_ok(&app, &app.key, presign_body("a.txt", "text/plain", 5)).await;
    // Sent in time (the URL is valid through its expiry second)…
    let response = app.put_bytes(upload_url(&pending), "text/plain", b"hello".to_vec()).await;
    let put_in_time = response.status() == StatusCode::OK;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // …or not: either way the confirm comes too late.
    let message = assert_error(app.confirm(&app.key, pending_id(&pending)).await, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("expired"), "put in time: {put_in_time}: {message}");
    assert_eq!(file_count(&app).await, 0);
}

#[tokio::test]
async fn a_repeated_confirm_returns_the_same_file() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("cat.png", "image/png", PNG.len())).await;
    app.put_bytes(upload_url(&pending), "image/png", PNG.to_vec()).await;
    let first = confirm_ok(&app, &app.key, &pending).await;
    let second = confirm_ok(&app, &app.key, &pending).await;
    let third = confirm_ok(&app, &app.key, &pending).await;
    assert_eq!(first["id"], second["id"]);
    assert_eq!(first["id"], third["id"]);
    assert_eq!(second["name"], "cat.png");
    assert_eq!(second["secureUrl"], first["secureUrl"]);
    let listed = list_all(&app).await;
    assert_eq!(listed["files"].as_array().unwrap().len(), 1);
    assert_eq!(listed["files"][0]["id"], first["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_confirms_create_one_file() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("cat.png", "image/png", PNG.len())).await;
    app.put_bytes(upload_url(&pending), "image/png", PNG.to_vec()).await;
    let responses = join_all((0..10).map(|_| async {
        let response = app.confirm(&app.key, pending_id(&pending)).await;
        let status = response.status();
        (status, response.text().await.unwrap())
    }))
    .await;
    let mut ids = HashSet::new();
    for (status, text) in responses {
        assert_eq!(status, StatusCode::OK, "{text}");
        let body: Value = serde_json::from_str(&text).unwrap();
        ids.insert(body["file"]["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
    let listed = list_all(&app).await;
    assert_eq!(listed["files"].as_array().unwrap().len(), 1);
    let id = ids.into_iter().next().unwrap();
    assert_eq!(listed["files"][0]["id"], id);
    // Exactly one stored original: the losers' copies were removed.
    let originals = std::fs::read_dir(app.objects_dir.join("files"))
        .unwrap()
        .filter(|dir| dir.as_ref().is_ok_and(|dir| dir.path().join("original").exists()))
        .count();
    assert_eq!(originals, 1);
    let served = app.client.get(listed["files"][0]["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(served.bytes().await.unwrap(), PNG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_concurrent_uploads_all_succeed() {
    let app = TestApp::spawn().await;
    let files = join_all((0..30).map(|i| {
        let app = &app;
        async move {
            let bytes = format!("file number {i}");
            app.upload(&format!("f{i}.txt"), "text/plain", bytes.as_bytes()).await
        }
    }))
    .await;
    assert_eq!(files.len(), 30);
    let listed = list_all(&app).await;
    let listed = listed["files"].as_array().unwrap();
    assert_eq!(listed.len(), 30);
    let ids: HashSet<&str> = listed.iter().map(|f| f["id"].as_str().unwrap()).collect();
    let names: HashSet<&str> = listed.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 30);
    let expected: HashSet<String> = (0..30).map(|i| format!("f{i}.txt")).collect();
    assert_eq!(names, expected.iter().map(String::as_str).collect::<HashSet<_>>());
    for file in &files {
        assert!(ids.contains(file["id"].as_str().unwrap()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_uploads_of_one_name_get_distinct_names() {
    let app = TestApp::spawn().await;
    let files = join_all((0..8).map(|_| app.upload("same.png", "image/png", PNG))).await;
    let names: HashSet<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 8, "{names:?}");
    assert!(names.contains("same.png"), "{names:?}");
    for name in names.iter().filter(|n| **n != "same.png") {
        assert!(is_suffixed(name, "same", "png"), "{name}");
    }
}

#[tokio::test]
async fn read_keys_cannot_upload_but_upload_keys_can() {
    let app = TestApp::spawn().await;
    let read = app.key_for("acme", Scope::Read).await;
    let upload = app.key_for("acme", Scope::Upload).await;

    let response = app.presign(&read, presign_body("a.png", "image/png", PNG.len())).await;
    assert_error(response, StatusCode::FORBIDDEN).await;
    let pending = presign_ok(&app, &upload, presign_body("a.png", "image/png", PNG.len())).await;
    app.put_bytes(upload_url(&pending), "image/png", PNG.to_vec()).await;
    assert_error(app.confirm(&read, pending_id(&pending)).await, StatusCode::FORBIDDEN).await;

    let file = confirm_ok(&app, &upload, &pending).await;
    assert_eq!(file["secureUrl"], format!("{}/file/acme/a.png", app.base));
    // The read key sees it in its account's listing.
    let response = app.authed(Method::GET, "/files", &read).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let listed: Value = response.json().await.unwrap();
    assert_eq!(listed["files"][0]["id"], file["id"]);
    // No credentials at all is 401, not 403.
    let response = app.client.post(format!("{}/upload/presign", app.base)).json(&json!({})).send().await.unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn an_upload_url_takes_nothing_after_its_upload_is_confirmed() {
    let app = TestApp::spawn().await;
    let pending = presign_ok(&app, &app.key, presign_body("cat.png", "image/png", PNG.len())).await;
    app.put_bytes(upload_url(&pending), "image/png", PNG.to_vec()).await;
    let file = confirm_ok(&app, &app.key, &pending).await;

    let again = app.put_bytes(upload_url(&pending), "image/png", PNG.to_vec()).await;
    if app.is_embedded() {
        let message = assert_error(again, StatusCode::CONFLICT).await;
        assert!(message.contains("already been confirmed"), "{message}");
        let pending_object = app.objects_dir.join("pending").join(pending_id(&pending));
        assert!(!pending_object.exists(), "no unreferenced object is left at {}", pending_object.display());
    } else {
        // A presigned S3 URL stays valid until it expires: S3 takes the late bytes under pending/, where
        // nothing refers to them (the bucket's lifecycle rule on pending/ removes them; docs/distributed.md).
        assert_eq!(again.status(), StatusCode::OK);
    }
    // The confirmed file is untouched.
    let served = app.client.get(file["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(served.bytes().await.unwrap().as_ref(), PNG);
}

/// Runs `shutterbox upload` against the app with `args`; returns its exit status and outputs.
async fn upload_command(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    command.args(["upload", "--url", &app.root, "--key", &app.key]).args(args);
    let output = tokio::time::timeout(Duration::from_secs(60), command.output()).await.unwrap().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_upload_command_uploads_files_and_prints_their_file_objects() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let (png, text) = (dir.path().join("pixel.png"), dir.path().join("notes.txt"));
    std::fs::write(&png, PNG).unwrap();
    std::fs::write(&text, b"hello").unwrap();

    let (ok, stdout, stderr) =
        upload_command(&app, &["--folder", "cli", png.to_str().unwrap(), text.to_str().unwrap()]).await;
    assert!(ok, "stdout: {stdout}\nstderr: {stderr}");
    let files: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(files.len(), 2, "{stdout}");
    assert_eq!(files[0]["rawType"], "image/png");
    assert_eq!(files[1]["rawType"], "text/plain");
    assert_eq!(files[0]["secureUrl"], format!("{}/file/default/cli/pixel.png", app.base));
    for file in &files {
        assert!(file["folderId"].is_string(), "{file}");
        let id = file["id"].as_str().unwrap();
        let got = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
        assert_eq!(got.status(), StatusCode::OK);
    }
    let raw = app.client.get(files[0]["rawUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(raw.bytes().await.unwrap().as_ref(), PNG);

    let (ok, stdout, stderr) = upload_command(&app, &["--name", "renamed.png", png.to_str().unwrap()]).await;
    assert!(ok, "{stderr}");
    let file: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(file["name"], "renamed.png");

    // The API's refusal is shown and fails the command.
    let (ok, _, stderr) = upload_command(&app, &["--folder", "../up", png.to_str().unwrap()]).await;
    assert!(!ok);
    assert!(stderr.contains("presign") && stderr.contains("400"), "{stderr}");
    let (ok, _, stderr) =
        upload_command(&app, &["--name", "x.png", png.to_str().unwrap(), png.to_str().unwrap()]).await;
    assert!(!ok);
    assert!(stderr.contains("--name"), "{stderr}");
}
