//! Batch warming: `POST /v1/warm`, `GET /v1/warm/{batchId}` and the `shutterbox warm` command.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_model::Scope;

use crate::helpers::{PNG, TestApp, assert_error};

async fn create(app: &TestApp, key: &str, body: Value) -> reqwest::Response {
    app.authed(Method::POST, "/warm", key).json(&body).send().await.unwrap()
}

/// Reads the batch until it is complete (20 s at most).
async fn wait_complete(app: &TestApp, batch_id: &str) -> Value {
    for _ in 0..400 {
        let status: Value =
            app.authed(Method::GET, &format!("/warm/{batch_id}"), &app.key).send().await.unwrap().json().await.unwrap();
        if status["complete"] == true {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("batch {batch_id} did not complete within 20 s");
}

#[tokio::test]
async fn a_batch_renders_every_image_of_the_account_ahead_of_requests() {
    let app = TestApp::spawn().await;
    let first = app.upload("a.png", "image/png", PNG).await;
    let second = app.upload("b.png", "image/png", PNG).await;
    app.upload("notes.txt", "text/plain", b"not an image").await;

    let response = create(&app, &app.key, json!({"transformations": ["w=8", "?w=6&format=webp"]})).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let created: Value = response.json().await.unwrap();
    assert_eq!(created["total"], 4, "2 images × 2 transformations: {created}");
    let batch_id = created["batchId"].as_str().unwrap();
    let done = wait_complete(&app, batch_id).await;
    let no_failures = json!({"page": 1, "pageSize": 20, "totalCount": 0, "totalPages": 0});
    assert_eq!(
        done,
        json!({"batchId": batch_id, "total": 4, "done": 4, "failed": 0, "pending": 0, "complete": true,
               "failures": [], "failuresPagination": no_failures})
    );

    // Every warmed variant is served from the store: no request renders.
    let renders = app.metric("shutterbox_renders_total").await;
    for file in [&first, &second] {
        let url = file["secureUrl"].as_str().unwrap();
        for (query, size) in [("w=8", (8, 4)), ("w=6&format=webp", (6, 3))] {
            let (status, _, body) = app.fetch(&format!("{url}?{query}")).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(crate::helpers::dimensions(&body), size);
        }
    }
    assert_eq!(app.metric("shutterbox_renders_total").await, renders, "every variant was warmed");
}

#[tokio::test]
async fn chosen_files_and_failures_are_counted() {
    let app = TestApp::spawn().await;
    let file = app.upload("a.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    // A crop outside the picture passes validation (the parser cannot know the size) but cannot render.
    let response =
        create(&app, &app.key, json!({"fileIds": [id, id], "transformations": ["w=4", "crop=0,0,900,900"]})).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let created: Value = response.json().await.unwrap();
    assert_eq!(created["total"], 2, "a file named twice is warmed once");
    let batch_id = created["batchId"].as_str().unwrap();
    let done = wait_complete(&app, batch_id).await;
    assert_eq!((done["done"].as_u64(), done["failed"].as_u64()), (Some(1), Some(1)), "{done}");
    let failure = &done["failures"][0];
    assert_eq!((&failure["fileId"], &failure["transformation"]), (&json!(id), &json!("crop=0,0,900,900")), "{done}");
    let reason = failure["reason"].as_str().unwrap();
    assert!(reason.contains("crop"), "the reason is the render's error: {reason}");
    assert_eq!(done["failuresPagination"], json!({"page": 1, "pageSize": 20, "totalCount": 1, "totalPages": 1}));

    // Failures a page at a time, in the batch's order.
    let crops: Vec<String> = (0..5).map(|i| format!("crop=0,0,{},900", 900 + i)).collect();
    let created: Value =
        create(&app, &app.key, json!({"fileIds": [id], "transformations": crops})).await.json().await.unwrap();
    let batch = format!("/warm/{}", created["batchId"].as_str().unwrap());
    wait_complete(&app, created["batchId"].as_str().unwrap()).await;
    let page = |query: &'static str| {
        let (app, batch) = (&app, &batch);
        async move { app.authed(Method::GET, &format!("{batch}{query}"), &app.key).send().await.unwrap() }
    };
    let second: Value = page("?page=2&pageSize=2").await.json().await.unwrap();
    let named: Vec<&str> =
        second["failures"].as_array().unwrap().iter().map(|f| f["transformation"].as_str().unwrap()).collect();
    assert_eq!(named, [crops[2].as_str(), crops[3].as_str()], "{second}");
    assert_eq!(second["failuresPagination"], json!({"page": 2, "pageSize": 2, "totalCount": 5, "totalPages": 3}));
    let past: Value = page("?page=9").await.json().await.unwrap();
    assert_eq!((past["failures"].as_array().map(Vec::len), &past["failed"]), (Some(0), &json!(5)));
    for bad in ["?pageSize=0", "?pageSize=101", "?page=0", "?page=x"] {
        assert_error(page(bad).await, StatusCode::BAD_REQUEST).await;
    }
}

#[tokio::test]
async fn requests_are_validated_and_batches_are_private() {
    let app = TestApp::spawn().await;
    let image = app.upload("a.png", "image/png", PNG).await;
    let text = app.upload("a.txt", "text/plain", b"hello").await;
    let (image_id, text_id) = (image["id"].as_str().unwrap(), text["id"].as_str().unwrap());
    for (body, status) in [
        (json!({"transformations": []}), StatusCode::BAD_REQUEST),
        (json!({"transformations": ["w=0"]}), StatusCode::BAD_REQUEST),
        (json!({"transformations": ["w=auto"]}), StatusCode::BAD_REQUEST),
        (json!({"transformations": ["fit=stretch&w=3"]}), StatusCode::BAD_REQUEST),
        (json!({"transformations": [""]}), StatusCode::BAD_REQUEST),
        (json!({"transformations": ["w=3"], "fileIds": [text_id]}), StatusCode::BAD_REQUEST),
        (json!({"transformations": ["w=3"], "fileIds": ["no-such-file"]}), StatusCode::NOT_FOUND),
        (json!({"transformations": ["w=3"], "other": 1}), StatusCode::BAD_REQUEST),
        (json!({"fileIds": [image_id]}), StatusCode::BAD_REQUEST),
    ] {
        assert_error(create(&app, &app.key, body.clone()).await, status).await;
    }

    let created: Value = create(&app, &app.key, json!({"transformations": ["w=3"]})).await.json().await.unwrap();
    let batch = format!("/warm/{}", created["batchId"].as_str().unwrap());
    let upload_key = app.key_for("default", Scope::Upload).await;
    assert_error(create(&app, &upload_key, json!({"transformations": ["w=3"]})).await, StatusCode::FORBIDDEN).await;
    assert_error(app.authed(Method::GET, &batch, &upload_key).send().await.unwrap(), StatusCode::FORBIDDEN).await;
    let other = app.key_for("other", Scope::Secret).await;
    assert_error(app.authed(Method::GET, &batch, &other).send().await.unwrap(), StatusCode::NOT_FOUND).await;
    // Another account's file is not found either.
    let theirs = create(&app, &other, json!({"transformations": ["w=3"], "fileIds": [image_id]})).await;
    assert_error(theirs, StatusCode::NOT_FOUND).await;
    let anonymous = app.client.get(format!("{}{batch}", app.base)).send().await.unwrap();
    assert_error(anonymous, StatusCode::UNAUTHORIZED).await;
    let unknown = app.authed(Method::GET, "/warm/0190-none", &app.key).send().await.unwrap();
    assert_error(unknown, StatusCode::NOT_FOUND).await;
}

/// Runs `shutterbox warm` against the app; returns its exit status and outputs.
async fn warm_command(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    command.args(["warm", "--url", &app.root, "--key", &app.key, "--poll-ms", "50"]).args(args);
    let output = tokio::time::timeout(Duration::from_secs(60), command.output()).await.unwrap().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_warm_command_follows_a_batch_and_fails_when_an_item_fails() {
    let app = TestApp::spawn().await;
    let file = app.upload("a.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();

    let (ok, stdout, stderr) = warm_command(&app, &["-t", "w=5", "-t", "w=7&format=webp", "--file", id]).await;
    assert!(ok, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("2 of 2 variants warmed, 0 failed"), "{stdout}");

    let (ok, stdout, stderr) = warm_command(&app, &["-t", "crop=0,0,900,900"]).await;
    assert!(!ok, "a failed item fails the command: {stdout}");
    assert!(stderr.contains("1 failed"), "{stderr}");
    assert!(stderr.contains(&format!("failed: file {id} with crop=0,0,900,900: ")), "each failure is named: {stderr}");

    // The first 20 failures are printed, and where to read the rest.
    let crops: Vec<String> = (0..22).map(|i| format!("crop=0,0,{},900", 900 + i)).collect();
    let args: Vec<&str> = crops.iter().flat_map(|crop| ["-t", crop.as_str()]).collect();
    let (ok, _, stderr) = warm_command(&app, &args).await;
    assert!(!ok);
    assert_eq!(stderr.matches("failed: file ").count(), 20, "{stderr}");
    assert!(stderr.contains(&format!("failed: file {id} with crop=0,0,919,900: ")), "{stderr}");
    assert!(!stderr.contains("crop=0,0,920,900:"), "{stderr}");
    assert!(stderr.contains("… and 2 more: GET ") && stderr.contains("?page=2&pageSize=20"), "{stderr}");

    let (ok, _, stderr) = warm_command(&app, &["-t", "w=0"]).await;
    assert!(!ok);
    assert!(stderr.contains("400"), "the API's answer is shown: {stderr}");
}
