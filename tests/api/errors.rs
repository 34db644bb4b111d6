//! Every error the service or the framework produces is the API's JSON body `{message, status, headers}`.

use reqwest::{Method, StatusCode};

use crate::helpers::{TestApp, assert_error};

#[tokio::test]
async fn framework_errors_are_json() {
    let app = TestApp::spawn().await;
    // Unknown route.
    let response = app.client.get(format!("{}/no/such/route", app.base)).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    let response = app.client.get(format!("{}/nothing-here", app.root)).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    // Wrong method on a known route.
    let response = app.authed(Method::PUT, "/files", &app.key).send().await.unwrap();
    assert_error(response, StatusCode::METHOD_NOT_ALLOWED).await;
    // Body of the wrong media type.
    let response = app
        .authed(Method::POST, "/upload/presign", &app.key)
        .header("Content-Type", "text/plain")
        .body("filename=x")
        .send()
        .await
        .unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("Content-Type"), "{message}");
    // Malformed JSON and a missing required field name what was wrong.
    let response = app
        .authed(Method::POST, "/upload/confirm", &app.key)
        .header("Content-Type", "application/json")
        .body("{\"pendingUploadId\":")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST).await;
    let response =
        app.authed(Method::POST, "/upload/confirm", &app.key).json(&serde_json::json!({})).send().await.unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains("pendingUploadId"), "{message}");
}

#[tokio::test]
async fn every_response_says_nosniff() {
    let app = TestApp::spawn().await;
    for url in [format!("{}/files", app.base), format!("{}/healthz", app.root), format!("{}/missing", app.base)] {
        let response = app.client.get(&url).send().await.unwrap();
        assert_eq!(response.headers().get("x-content-type-options").unwrap(), "nosniff", "{url}");
    }
}

#[tokio::test]
async fn a_405_names_the_allowed_methods() {
    let app = TestApp::spawn().await;
    for (method, path, allow) in [
        ("PUT", "/v1/files", "GET"),
        ("PUT", "/v1/files/0190", "DELETE, GET, PATCH"),
        ("GET", "/v1/upload/presign", "POST"),
        ("DELETE", "/v1/file/default/cat.png", "GET, HEAD"),
        ("GET", "/storage/pending/x", "PUT"),
        ("POST", "/v1/raw/default/cat.png", "GET, HEAD"),
        ("DELETE", "/v1/files/0190/thumbnail", "GET, HEAD"),
        ("POST", "/healthz", "GET, HEAD"),
        ("PUT", "/metrics", "GET, HEAD"),
        ("POST", "/v1/openapi.json", "GET, HEAD"),
        ("DELETE", "/console/", "GET, HEAD"),
        ("GET", "/v1/uploads/tus", "OPTIONS, POST"),
    ] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let response = app.client.request(method.clone(), format!("{}{path}", app.root)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(response.headers()["allow"], allow, "{method} {path}");
        let error: serde_json::Value = response.json().await.unwrap();
        assert_eq!(error["status"], 405, "{method} {path}");
    }
    // HEAD is answered wherever GET is.
    for path in ["/healthz", "/v1/openapi.json", "/console/"] {
        let head = app.client.head(format!("{}{path}", app.root)).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::OK, "HEAD {path}");
    }
}
