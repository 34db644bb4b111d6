//! Authentication and authorization: both key header forms, 401 for missing or bad keys, 403 for a scope
//! that does not allow the operation, and 404 (never 403) for another account's files.

use reqwest::{Method, StatusCode};
use serde_json::json;
use shutterbox_model::Scope;

use crate::helpers::{PNG, TestApp, assert_error};

#[tokio::test]
async fn both_key_header_forms_are_accepted() {
    let app = TestApp::spawn().await;
    let with_authorization = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
    assert_eq!(with_authorization.status(), StatusCode::OK);
    let with_apikey = app.client.get(format!("{}/files", app.base)).header("ApiKey", &app.key).send().await.unwrap();
    assert_eq!(with_apikey.status(), StatusCode::OK);
    let lower_scheme = app
        .client
        .get(format!("{}/files", app.base))
        .header("Authorization", format!("apikey {}", app.key))
        .send()
        .await
        .unwrap();
    assert_eq!(lower_scheme.status(), StatusCode::OK);
}

#[tokio::test]
async fn missing_and_invalid_keys_are_401_on_every_management_endpoint() {
    let app = TestApp::spawn().await;
    let endpoints = [
        (Method::POST, "/upload/presign"),
        (Method::POST, "/upload/confirm"),
        (Method::GET, "/files"),
        (Method::GET, "/files/0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"),
        (Method::DELETE, "/files/0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"),
    ];
    for (method, path) in endpoints {
        let url = format!("{}{path}", app.base);
        let missing = app.client.request(method.clone(), &url).json(&json!({})).send().await.unwrap();
        let message = assert_error(missing, StatusCode::UNAUTHORIZED).await;
        assert!(message.contains("missing API key"), "{method} {path}: {message}");

        let wrong = app.authed(method.clone(), path, "sbx_not-a-real-key").json(&json!({})).send().await.unwrap();
        let message = assert_error(wrong, StatusCode::UNAUTHORIZED).await;
        assert_eq!(message, "invalid API key", "{method} {path}");

        let bearer =
            app.client.request(method.clone(), &url).bearer_auth(&app.key).json(&json!({})).send().await.unwrap();
        let message = assert_error(bearer, StatusCode::UNAUTHORIZED).await;
        assert!(message.contains("ApiKey <key>"), "{method} {path}: {message}");

        let empty = app.client.request(method.clone(), &url).header("ApiKey", "").send().await.unwrap();
        assert_error(empty, StatusCode::UNAUTHORIZED).await;
    }
}

#[tokio::test]
async fn auth_is_checked_before_the_body_is_parsed() {
    let app = TestApp::spawn().await;
    let response = app
        .client
        .post(format!("{}/upload/presign", app.base))
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED).await;
}

#[tokio::test]
async fn scopes_limit_what_a_key_may_do() {
    let app = TestApp::spawn().await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    let read = app.key_for("default", Scope::Read).await;
    let upload = app.key_for("default", Scope::Upload).await;

    // read: list and get only.
    assert_eq!(app.authed(Method::GET, "/files", &read).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(app.authed(Method::GET, &format!("/files/{id}"), &read).send().await.unwrap().status(), StatusCode::OK);
    let presign = app.presign(&read, json!({"filename": "a.txt", "mimetype": "text/plain", "size": 1})).await;
    let message = assert_error(presign, StatusCode::FORBIDDEN).await;
    assert!(message.contains("'read'"), "{message}");
    assert_error(app.confirm(&read, "whatever").await, StatusCode::FORBIDDEN).await;
    let delete = app.authed(Method::DELETE, &format!("/files/{id}"), &read).send().await.unwrap();
    assert_error(delete, StatusCode::FORBIDDEN).await;

    // upload: may add files, may not delete them.
    let delete = app.authed(Method::DELETE, &format!("/files/{id}"), &upload).send().await.unwrap();
    assert_error(delete, StatusCode::FORBIDDEN).await;
    let added = app.upload_as(&upload, json!({"filename": "b.txt", "mimetype": "text/plain", "size": 2}), b"hi").await;
    assert_eq!(added["name"], "b.txt");

    // The file survived the forbidden deletes.
    assert_eq!(
        app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn another_accounts_files_do_not_exist_for_a_key() {
    let app = TestApp::spawn().await;
    let theirs = app.upload("secret.png", "image/png", PNG).await;
    let id = theirs["id"].as_str().unwrap();
    let other = app.key_for("other", Scope::Secret).await;

    let get = app.authed(Method::GET, &format!("/files/{id}"), &other).send().await.unwrap();
    assert_error(get, StatusCode::NOT_FOUND).await;
    let delete = app.authed(Method::DELETE, &format!("/files/{id}"), &other).send().await.unwrap();
    assert_error(delete, StatusCode::NOT_FOUND).await;
    let list: serde_json::Value = app.authed(Method::GET, "/files", &other).send().await.unwrap().json().await.unwrap();
    assert_eq!(list["pagination"]["totalCount"], 0);

    // Still there for its owner.
    let get = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::OK);
}
