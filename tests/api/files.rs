//! Listing with pagination, reading one file and deleting files.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{PNG, TestApp, assert_error, subject_png};

async fn list(app: &TestApp, query: &str) -> Value {
    let response = app.authed(Method::GET, &format!("/files{query}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "GET /files{query}");
    response.json().await.unwrap()
}

fn names(page: &Value) -> Vec<String> {
    page["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn an_empty_account_lists_nothing() {
    let app = TestApp::spawn().await;
    let page = list(&app, "").await;
    assert_eq!(page, json!({"files": [], "pagination": {"page": 1, "pageSize": 20, "totalCount": 0, "totalPages": 0}}));
}

#[tokio::test]
async fn listing_pages_newest_first() {
    let app = TestApp::spawn().await;
    for i in 0..5 {
        app.upload(&format!("f{i}.txt"), "text/plain", format!("file {i}").as_bytes()).await;
        // Distinct millisecond timestamps make "newest first" observable.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let first = list(&app, "?page=1&pageSize=2").await;
    assert_eq!(names(&first), ["f4.txt", "f3.txt"]);
    assert_eq!(first["pagination"], json!({"page": 1, "pageSize": 2, "totalCount": 5, "totalPages": 3}));
    assert_eq!(names(&list(&app, "?page=2&pageSize=2").await), ["f2.txt", "f1.txt"]);
    assert_eq!(names(&list(&app, "?page=3&pageSize=2").await), ["f0.txt"]);
    let past = list(&app, "?page=9&pageSize=2").await;
    assert_eq!(names(&past), Vec::<String>::new());
    assert_eq!(past["pagination"], json!({"page": 9, "pageSize": 2, "totalCount": 5, "totalPages": 3}));
    let all = list(&app, "?pageSize=100").await;
    assert_eq!(all["pagination"]["totalPages"], 1);
    assert_eq!(names(&all).len(), 5);
}

#[tokio::test]
async fn bad_pagination_is_400() {
    let app = TestApp::spawn().await;
    for query in ["?page=0", "?pageSize=0", "?pageSize=101", "?page=abc", "?pageSize=1.5", "?page=-1", "?pageSize="] {
        let response = app.authed(Method::GET, &format!("/files{query}"), &app.key).send().await.unwrap();
        let message = assert_error(response, StatusCode::BAD_REQUEST).await;
        let named = if query.contains("pageSize") { "pageSize" } else { "page" };
        assert!(message.contains(named), "{query}: {message}");
    }
}

#[tokio::test]
async fn get_returns_the_file_object() {
    let app = TestApp::spawn().await;
    let uploaded = app.upload("cat.png", "image/png", PNG).await;
    let id = uploaded["id"].as_str().unwrap();
    let response = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["file"]["id"], id);
    assert_eq!(body["file"]["secureUrl"], uploaded["secureUrl"]);
    assert_eq!(body["file"]["rawSize"], PNG.len());
    assert!(body["file"]["folderId"].is_null());
    assert!(body["file"].as_object().unwrap().contains_key("folderId"), "folderId is sent as null, not omitted");
}

#[tokio::test]
async fn unknown_ids_are_404() {
    let app = TestApp::spawn().await;
    for id in ["0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f", "not-a-uuid", "%2e%2e"] {
        let get = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
        assert_error(get, StatusCode::NOT_FOUND).await;
        let delete = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
        assert_error(delete, StatusCode::NOT_FOUND).await;
    }
}

#[tokio::test]
async fn delete_removes_the_record_and_the_bytes() {
    let app = TestApp::spawn().await;
    let file = app.upload("gone.png", "image/png", PNG).await;
    let keep = app.upload("kept.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    let object = app.objects_dir.join("files").join(id).join("original");
    assert!(object.exists(), "original stored at {}", object.display());

    let response = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"message": "File deleted"}));

    assert!(!object.exists(), "the bytes are gone");
    let again = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_error(again, StatusCode::NOT_FOUND).await;
    let get = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_error(get, StatusCode::NOT_FOUND).await;
    assert_eq!(names(&list(&app, "").await), ["kept.png"]);
    let public = app.client.get(file["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_error(public, StatusCode::NOT_FOUND).await;
    let kept = app.client.get(keep["secureUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(kept.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_deleted_files_name_can_be_used_again() {
    let app = TestApp::spawn().await;
    let first = app.upload("again.png", "image/png", PNG).await;
    let url = first["secureUrl"].as_str().unwrap();
    assert_eq!(app.fetch(url).await.2, PNG);
    let id = first["id"].as_str().unwrap();
    app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    let other = b"not the first file's bytes";
    let second = app.upload("again.png", "text/plain", other).await;
    assert_eq!(second["name"], "again.png");
    assert_eq!(second["secureUrl"], first["secureUrl"]);
    assert_ne!(second["id"], first["id"]);
    // The address now names the new file, not what was looked up there before.
    assert_eq!(app.fetch(url).await.2, other);
}

async fn patch(app: &TestApp, id: &str, key: &str, body: Value) -> reqwest::Response {
    app.authed(Method::PATCH, &format!("/files/{id}"), key).json(&body).send().await.unwrap()
}

/// `PATCH /files/{id}` sets and clears the focal point: the File shows it (confirm-free reads: get and list),
/// `gravity=focus` delivers the crop centred on it (the very bytes of `gravity=fp:X,Y`) from the moment the
/// PATCH answers, and `attention`'s without one; invalid points and bodies are 400s, other keys' scopes 403s.
#[tokio::test]
async fn a_focal_point_steers_gravity_focus() {
    use shutterbox_model::Scope;

    let app = TestApp::spawn().await;
    let file = app.upload("subject.png", "image/png", &subject_png()).await;
    assert_eq!(file["focus"], Value::Null);
    let id = file["id"].as_str().unwrap();
    let base = file["secureUrl"].as_str().unwrap();
    let deliver = |query: &'static str| {
        let app = &app;
        async move {
            let (status, _, body) = app.fetch(&format!("{base}?{query}")).await;
            assert_eq!(status, StatusCode::OK, "{query}");
            body
        }
    };
    let focus = "w=120&h=120&gravity=focus";
    let attention = deliver("w=120&h=120&gravity=attention").await;
    let on_the_left = deliver("w=120&h=120&gravity=fp:0.1,0.5").await;
    assert!(attention != on_the_left, "the test's two crops differ");
    // Twice, so the second is answered from memory: what the PATCH must make every node forget.
    for _ in 0..2 {
        assert!(deliver(focus).await == attention, "no focal point: attention");
    }

    let response = patch(&app, id, &app.key, json!({"focus": {"x": 0.1, "y": 0.5}})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let patched: Value = response.json().await.unwrap();
    assert_eq!(patched["file"]["focus"], json!({"x": 0.1, "y": 0.5}));
    assert!(deliver(focus).await == on_the_left, "the crop follows the focal point at once");
    let got: Value =
        app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap().json().await.unwrap();
    assert_eq!(got["file"]["focus"], json!({"x": 0.1, "y": 0.5}));
    assert_eq!(list(&app, "").await["files"][0]["focus"], json!({"x": 0.1, "y": 0.5}));

    // A body without `focus` changes nothing; `null` clears it.
    let unchanged: Value = patch(&app, id, &app.key, json!({})).await.json().await.unwrap();
    assert_eq!(unchanged["file"]["focus"], json!({"x": 0.1, "y": 0.5}));
    let cleared: Value = patch(&app, id, &app.key, json!({"focus": null})).await.json().await.unwrap();
    assert_eq!(cleared["file"]["focus"], Value::Null);
    assert!(deliver(focus).await == attention, "cleared: attention again");

    for body in [
        json!({"focus": {"x": 1.5, "y": 0.5}}),
        json!({"focus": {"x": 0.5, "y": -0.1}}),
        json!({"focus": {"x": 0.5}}),
        json!({"focus": "middle"}),
        json!({"focal": {"x": 0.5, "y": 0.5}}),
    ] {
        let response = patch(&app, id, &app.key, body.clone()).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    let point = json!({"focus": {"x": 0.5, "y": 0.5}});
    for scope in [Scope::Read, Scope::Upload] {
        let key = app.key_for("default", scope).await;
        assert_error(patch(&app, id, &key, point.clone()).await, StatusCode::FORBIDDEN).await;
    }
    let missing = patch(&app, "00000000-0000-0000-0000-000000000000", &app.key, point.clone()).await;
    assert_error(missing, StatusCode::NOT_FOUND).await;
    // Another account's file is not there for this key.
    let stranger = app.key_for("stranger", Scope::Secret).await;
    assert_error(patch(&app, id, &stranger, point).await, StatusCode::NOT_FOUND).await;
}
