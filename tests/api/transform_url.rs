//! `POST /v1/file/{id}/transform-url`: the result's shape, that its URL loads without credentials at the
//! requested size and format, validation like delivery's, scopes and accounts.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_model::Scope;

use crate::helpers::{PNG, TestApp, assert_error, raw_request_unsent_body};

async fn transform_url(app: &TestApp, key: &str, id: &str, body: Value) -> reqwest::Response {
    app.authed(Method::POST, &format!("/file/{id}/transform-url"), key).json(&body).send().await.unwrap()
}

#[tokio::test]
async fn the_url_serves_the_requested_variant_without_credentials() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    let response = transform_url(&app, &app.key, id, json!({"w": 8, "format": "webp", "q": 70, "gray": true})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["url"], format!("{}/file/default/cat.webp?format=webp&w=8&q=70&gray=true", app.base));
    assert_eq!(body["originalFile"], json!({"id": id, "filename": "cat.png", "mimetype": "image/png"}));
    assert_eq!(body["transformations"], json!({"w": 8, "format": "webp", "q": 70, "gray": true}));

    let image = app.client.get(body["url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(image.headers()["content-type"], "image/webp");
    let decoded = image::load_from_memory(&image.bytes().await.unwrap()).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (8, 4));
}

#[tokio::test]
async fn auto_and_no_format_keep_the_original_extension() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    for (body, expected) in [
        (json!({"format": "auto", "q": "auto"}), "/file/default/cat.png?format=auto&q=auto"),
        (json!({"h": 4, "fit": "contain"}), "/file/default/cat.png?h=4&fit=contain"),
        (json!({}), "/file/default/cat.png"),
        (json!({"format": "jpeg", "border": "2_ff0000"}), "/file/default/cat.jpg?format=jpeg&border=2_ff0000"),
    ] {
        let body: Value = transform_url(&app, &app.key, id, body.clone()).await.json().await.unwrap();
        assert_eq!(body["url"], format!("{}{expected}", app.base));
        assert_eq!(app.client.get(body["url"].as_str().unwrap()).send().await.unwrap().status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn transformations_are_validated_like_delivery() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    for body in [
        json!({"w": 0}),
        json!({"w": 5001}),
        json!({"w": "auto"}),
        json!({"h": -5}),
        json!({"fit": "stretch"}),
        json!({"q": 0}),
        json!({"q": "best"}),
        json!({"q": true}),
        json!({"blur": 0.1}),
        json!({"rot": 400}),
        json!({"border": "5"}),
        json!({"crop": "1,2"}),
        json!({"format": "heic"}),
        json!({"sharp": "yes"}),
        json!({"width": 100}),
    ] {
        let response = transform_url(&app, &app.key, id, body.clone()).await;
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    // Each message names the field and what it takes: the JSON type of the parameter table's row, then
    // the parser's range.
    for (body, says) in [
        (json!({"w": "300"}), "w: expected an integer, got \"300\""),
        (json!({"blur": true}), "blur: expected a number"),
        (json!({"gravity": 3}), "gravity: expected a string"),
        (json!({"q": [80]}), "q: expected an integer or \"auto\""),
        (json!({"w": 0}), "w must be an integer from 1 to 5000 (got '0')"),
        (json!({"width": 100}), "unknown field `width`, expected one of format, w, h"),
        (json!(["w", 100]), "invalid request body"),
    ] {
        let response = transform_url(&app, &app.key, id, body.clone()).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
        let error: Value = response.json().await.unwrap();
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
    }
    // Hostile bodies: a field name of 200,000 characters is echoed only in part; a nesting deeper than
    // serde_json's recursion limit, and a body beyond the JSON limit, are refused before anything else.
    let long = "x".repeat(200_000);
    let response = transform_url(&app, &app.key, id, json!({ long.as_str(): 1 })).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let message = response.json::<Value>().await.unwrap()["message"].as_str().unwrap().to_owned();
    assert!(message.contains("unknown field `xxx") && message.len() < 400, "{} bytes", message.len());
    let deep = format!("{{\"w\":{}1{}}}", "[".repeat(10_000), "]".repeat(10_000));
    let response = app
        .authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key)
        .header("content-type", "application/json")
        .body(deep)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST).await;
    // A body declared over the JSON limit is refused by its length, before a byte of it is read.
    let target = format!("/v1/file/{id}/transform-url");
    let authorization = format!("ApiKey {}", app.key);
    let headers = [("authorization", authorization.as_str()), ("content-type", "application/json")];
    let response = raw_request_unsent_body(&app, "POST", &target, &headers, 2 << 20).await;
    assert_eq!(response.status, 413, "{}", String::from_utf8_lossy(&response.body));
    // A null is no value, as the schema's `nullable` says.
    let response = transform_url(&app, &app.key, id, json!({"w": 4, "h": null})).await;
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["url"], format!("{}/file/default/cat.png?w=4", app.base));
    assert_eq!(body["transformations"], json!({"w": 4}));
}

#[tokio::test]
async fn needs_a_secret_key_an_image_and_the_callers_file() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    let upload = app.key_for("default", Scope::Upload).await;
    assert_error(transform_url(&app, &upload, id, json!({"w": 5})).await, StatusCode::FORBIDDEN).await;
    let other = app.key_for("other", Scope::Secret).await;
    assert_error(transform_url(&app, &other, id, json!({"w": 5})).await, StatusCode::NOT_FOUND).await;
    assert_error(transform_url(&app, "nope", id, json!({"w": 5})).await, StatusCode::UNAUTHORIZED).await;
    let missing = "0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f";
    assert_error(transform_url(&app, &app.key, missing, json!({"w": 5})).await, StatusCode::NOT_FOUND).await;
    let text = app.upload("notes.txt", "text/plain", b"hi").await;
    let response = transform_url(&app, &app.key, text["id"].as_str().unwrap(), json!({"w": 5})).await;
    assert_error(response, StatusCode::BAD_REQUEST).await;
    // Delivery under /file/ is unaffected by the route beside it.
    let get = app.client.get(file["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_variant_is_rendered_before_its_first_request() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await; // the thumbnail and the description
    let id = file["id"].as_str().unwrap();
    let body: Value =
        transform_url(&app, &app.key, id, json!({"w": 10, "format": "jpeg", "q": 60})).await.json().await.unwrap();
    app.wait_for_jobs(3).await;
    let renders = app.metric("shutterbox_renders_total").await;
    let stored = app.metric("shutterbox_variant_store_hits_total").await;
    let image = app.client.get(body["url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(image.headers()["content-type"], "image/jpeg");
    assert_eq!(app.metric("shutterbox_renders_total").await, renders, "the job rendered it, not the request");
    assert_eq!(app.metric("shutterbox_variant_store_hits_total").await, stored + 1);
}
