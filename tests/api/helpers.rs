//! The test harness: each test spawns the real server on a random port with its own data directory and
//! talks HTTP to it.

use std::{path::PathBuf, time::Duration};

use reqwest::{Client, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use shutterbox_api::{Application, Config, open_metadata};
use shutterbox_model::{AccountName, Scope};
use tempfile::TempDir;
use tokio::sync::oneshot;

pub const PNG: &[u8] = include_bytes!("../fixtures/gradient.png");

pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub root: String,
    /// `http://127.0.0.1:<port>/v1`, the spec's `{base_url}`.
    pub base: String,
    /// The secret key of account `default`, created on first start.
    pub key: String,
    pub client: Client,
    pub config: Config,
    pub data_dir: PathBuf,
    _dir: TempDir,
    _shutdown: oneshot::Sender<()>,
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(|_| {}).await
    }

    /// Spawns with a configuration adjusted by `adjust` (random port and fresh data directory already set).
    pub async fn spawn_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::with_data_dir(dir.path().join("data"));
        config.listen = "127.0.0.1:0".into();
        adjust(&mut config);
        let app = Application::build(config.clone()).await.expect("server starts");
        let key = app.bootstrap_key().expect("first start creates a key").secret.expose().to_owned();
        let root = app.public_url().to_owned();
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(app.run_until(async {
            let _ = rx.await;
        }));
        let client = Client::builder().no_proxy().timeout(Duration::from_secs(30)).build().expect("client");
        Self {
            base: format!("{root}/v1"),
            root,
            key,
            client,
            data_dir: config.backend.data_dir.clone(),
            config,
            _dir: dir,
            _shutdown: tx,
        }
    }

    /// Mints a key for `account` (created if needed) with `scope`, as `shutterbox keys create` does.
    pub async fn key_for(&self, account: &str, scope: Scope) -> String {
        let metadata = open_metadata(&self.config.backend).await.expect("metadata opens");
        let account = AccountName::parse(account).expect("valid account name");
        let minted = shutterbox_api::keys::mint(metadata.as_ref(), &account, scope).await.expect("key minted");
        minted.secret.expose().to_owned()
    }

    /// A request to `{base_url}<path>` carrying `Authorization: ApiKey <key>`.
    pub fn authed(&self, method: reqwest::Method, path: &str, key: &str) -> RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base)).header("Authorization", format!("ApiKey {key}"))
    }

    pub async fn presign(&self, key: &str, body: Value) -> Response {
        self.authed(reqwest::Method::POST, "/upload/presign", key).json(&body).send().await.expect("presign sent")
    }

    pub async fn confirm(&self, key: &str, pending_upload_id: &str) -> Response {
        self.authed(reqwest::Method::POST, "/upload/confirm", key)
            .json(&json!({ "pendingUploadId": pending_upload_id }))
            .send()
            .await
            .expect("confirm sent")
    }

    /// PUTs bytes to a presigned upload URL, without credentials, as a client would.
    pub async fn put_bytes(&self, upload_url: &str, mimetype: &str, bytes: Vec<u8>) -> Response {
        self.client.put(upload_url).header("Content-Type", mimetype).body(bytes).send().await.expect("PUT sent")
    }

    /// The whole presign → PUT → confirm flow with `key`; returns the file object.
    pub async fn upload_as(&self, key: &str, presign_body: Value, bytes: &[u8]) -> Value {
        let pending = self.presign(key, presign_body.clone()).await;
        assert_eq!(pending.status(), StatusCode::OK, "presign");
        let pending: Value = pending.json().await.expect("presign json");
        let mimetype = presign_body["mimetype"].as_str().unwrap_or("application/octet-stream");
        let put = self.put_bytes(pending["uploadUrl"].as_str().expect("uploadUrl"), mimetype, bytes.to_vec()).await;
        assert_eq!(put.status(), StatusCode::OK, "PUT");
        let confirmed = self.confirm(key, pending["pendingUploadId"].as_str().expect("id")).await;
        assert_eq!(confirmed.status(), StatusCode::OK, "confirm");
        let body: Value = confirmed.json().await.expect("confirm json");
        body["file"].clone()
    }

    /// Uploads `bytes` as `filename` with the default key.
    pub async fn upload(&self, filename: &str, mimetype: &str, bytes: &[u8]) -> Value {
        let body = json!({ "filename": filename, "mimetype": mimetype, "size": bytes.len() });
        self.upload_as(&self.key, body, bytes).await
    }
}

impl TestApp {
    /// The value of a counter or gauge on `/metrics` (`name` includes any labels).
    /// A public GET of an absolute URL: status, Content-Type and body.
    pub async fn fetch(&self, url: &str) -> (StatusCode, String, Vec<u8>) {
        let response = self.client.get(url).send().await.unwrap();
        let status = response.status();
        let content_type =
            response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        (status, content_type, response.bytes().await.unwrap().to_vec())
    }

    pub async fn metric(&self, name: &str) -> u64 {
        let text =
            self.client.get(format!("{}/metrics", self.root)).send().await.expect("metrics").text().await.unwrap();
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} missing in {text}"))
    }

    /// Waits until this process has completed `count` jobs in all (10 s at most).
    pub async fn wait_for_jobs(&self, count: u64) {
        for _ in 0..200 {
            if self.metric("shutterbox_jobs_total{outcome=\"done\"}").await >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("fewer than {count} jobs completed within 10 s");
    }
}

/// Asserts the spec's error body: `{message, status, headers}` with `status` equal to the HTTP status.
/// Returns the message.
/// The pixel size of an encoded image.
pub fn dimensions(bytes: &[u8]) -> (u32, u32) {
    let image = image::load_from_memory(bytes).expect("a decodable image");
    (image.width(), image.height())
}

pub async fn assert_error(response: Response, expected: StatusCode) -> String {
    let status = response.status();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let text = response.text().await.expect("body");
    assert_eq!(status, expected, "body: {text}");
    assert!(content_type.starts_with("application/json"), "content-type {content_type:?} for {text}");
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("error body is not JSON ({e}): {text}"));
    assert_eq!(body["status"], expected.as_u16(), "{text}");
    assert!(body["headers"].is_object(), "{text}");
    let message = body["message"].as_str().unwrap_or_else(|| panic!("no message: {text}")).to_owned();
    assert!(!message.is_empty(), "{text}");
    message
}
