//! Liveness and readiness probes, outside `/v1` and without credentials.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::TestApp;

#[tokio::test]
async fn healthz_and_readyz_answer() {
    let app = TestApp::spawn().await;
    let live = app.client.get(format!("{}/healthz", app.root)).send().await.unwrap();
    assert_eq!(live.status(), StatusCode::OK);
    let ready = app.client.get(format!("{}/readyz", app.root)).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    let body: Value = ready.json().await.unwrap();
    assert_eq!(body["ready"], true);
    assert_eq!(body["checks"]["database"], "ok");
    assert_eq!(body["checks"]["store"], "ok");
    assert_eq!(body["checks"]["queue"], "ok");
}

#[tokio::test]
async fn readyz_reports_a_broken_store() {
    let app = TestApp::spawn().await;
    if !app.is_embedded() {
        // Breaks the local store; the distributed readiness check is cluster::a_confirm_succeeds_while_redis_is_down's.
        return;
    }
    // The store writes a probe into tmp/; without it the store cannot accept uploads.
    std::fs::remove_dir_all(app.data_dir.join("tmp")).unwrap();
    let ready = app.client.get(format!("{}/readyz", app.root)).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = ready.json().await.unwrap();
    assert_eq!(body["ready"], false);
    assert_eq!(body["status"], 503);
    assert_eq!(body["checks"]["database"], "ok");
    assert_ne!(body["checks"]["store"], "ok");
}
