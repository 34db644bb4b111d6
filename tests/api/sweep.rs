//! The cleanup sweep: expired pending uploads and their objects go, and a crash between writing a file's
//! object and recording it leaves no orphan once the sweep has run.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{self, PNG, ServeProcess, TestApp};

/// Every object file under `dir` (the store keeps an object as a file named by its key).
fn objects_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() { stack.push(path) } else { found.push(path) }
        }
    }
    found
}

/// Polls `condition` every 100 ms for at most `seconds`.
async fn eventually(seconds: u64, mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..seconds * 10 {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    condition()
}

#[tokio::test]
async fn expired_uploads_and_their_bytes_are_swept() {
    // Long enough for the PUT below to land before the presigned URL expires on a loaded machine (at 1 s the
    // distributed deployment's PUT was sometimes already refused, 403).
    let app = TestApp::spawn_with(|c| {
        c.upload_expiry_secs = 4;
        c.backend.sweep_interval_secs = 1;
        c.backend.sweep_grace_secs = 1;
    })
    .await;
    let pending: Value = app
        .presign(&app.key, json!({"filename": "late.png", "mimetype": "image/png", "size": PNG.len()}))
        .await
        .json()
        .await
        .unwrap();
    let id = pending["pendingUploadId"].as_str().unwrap().to_owned();
    let put = app.put_bytes(pending["uploadUrl"].as_str().unwrap(), "image/png", PNG.to_vec()).await;
    assert_eq!(put.status(), StatusCode::OK);
    let object = app.objects_dir.join("pending").join(&id);
    assert!(object.exists(), "the PUT stored the bytes");

    assert!(eventually(20, || !object.exists()).await, "the expired upload's bytes were swept");
    let confirm = app.confirm(&app.key, &id).await;
    helpers::assert_error(confirm, StatusCode::NOT_FOUND).await;
    // A confirmed upload is untouched by the sweep.
    let file = app.upload("kept.png", "image/png", PNG).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (status, _, bytes) = app.fetch(file["rawUrl"].as_str().unwrap()).await;
    assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG));
}

/// The real binary on its own data directory, stopped at the fail point right after a confirm's copy and
/// killed there (SIGKILL: nothing after the copy runs), then started again: the sweep removes the copy, and
/// the client's retry of the same confirm still creates the file.
#[tokio::test]
async fn a_crash_between_the_copy_and_the_record_leaves_no_orphan() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let port = helpers::free_port();
    let sweep = [("SHUTTERBOX_SWEEP_INTERVAL_SECS", "1"), ("SHUTTERBOX_SWEEP_GRACE_SECS", "2")];
    let mut env = sweep.to_vec();
    env.push(("FAILPOINTS", "confirm-after-copy=sleep(60000)"));
    let mut first = ServeProcess::start(&data, port, "first", &env).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let pending = first.presign_and_put(&client, "crash.png", "image/png", PNG).await;
    let hanging = tokio::spawn(first.confirm(&client, &pending));
    let files = data.join("objects").join("files");
    assert!(eventually(10, || !objects_under(&files).is_empty()).await, "the confirm copied the upload");
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    assert!(hanging.await.unwrap().is_err(), "the confirm never answered: the process died");
    let orphan = objects_under(&files);
    assert_eq!(orphan.len(), 1, "{orphan:?}");

    let mut second = ServeProcess::start(&data, port, "second", &sweep).await;
    second.key = first.key.clone(); // the account made by the first start
    assert!(eventually(15, || !orphan[0].exists()).await, "the sweep removed the unrecorded copy");
    // Nothing was lost: the retried confirm creates the file from the upload, which is still pending.
    let confirmed = second.confirm(&client, &pending).await.unwrap();
    assert_eq!(confirmed.status(), StatusCode::OK);
    let file: Value = confirmed.json().await.unwrap();
    let raw = client.get(file["file"]["rawUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(raw.bytes().await.unwrap().as_ref(), PNG);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let originals: Vec<_> =
        objects_under(&files).into_iter().filter(|p| p.file_name().is_some_and(|n| n == "original")).collect();
    let id = file["file"]["id"].as_str().unwrap();
    assert_eq!(originals, vec![files.join(id).join("original")], "one original, the confirmed file's");
}
