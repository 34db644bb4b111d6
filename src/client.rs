//! A client of the HTTP API, as any program would use it: authenticated JSON calls that wait out rate
//! limits (429 with `Retry-After`), and the upload flow (presign → PUT the bytes → confirm). The CLI's
//! `upload` and `warm` commands are built on it, and so are the end-to-end tests' uploads, the load
//! generator (`examples/load.rs`), the upload phase of scripts/bench-distributed.sh (`examples/upload_rate.rs`)
//! and, through `shutterbox upload`, the other benchmark and docs scripts.

use std::time::Duration;

use bytes::Bytes;
use reqwest::{Client, Method, StatusCode};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Value, json};
use shutterbox_api::API_PREFIX;
use shutterbox_model::MediaFormat;

/// Why a call did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{step}: cannot reach the service: {source}")]
    Transport { step: &'static str, source: reqwest::Error },
    #[error("{step}: the service answered {status}: {message}")]
    Refused { step: &'static str, status: StatusCode, message: String },
    #[error("{step}: unexpected answer ({detail})")]
    Unexpected { step: &'static str, detail: String },
}

/// What to upload: the presign request's fields (docs/api.md, "The presign request").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Upload {
    pub filename: String,
    pub mimetype: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_name: Option<String>,
}

impl Upload {
    /// `bytes` named `filename`, with the type its extension suggests (the service sniffs the real one).
    pub fn of(filename: &str, bytes: &[u8]) -> Self {
        Self {
            filename: filename.to_owned(),
            mimetype: mimetype_of(filename).to_owned(),
            size: bytes.len() as u64,
            custom_filename: None,
            folder_name: None,
        }
    }
}

/// A presign's answer: where to PUT the bytes and what to confirm.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PresignedUpload {
    pub upload_url: String,
    pub pending_upload_id: String,
}

#[derive(Deserialize)]
struct ErrorBody {
    message: String,
}

/// The API of one service, called with one key.
#[derive(Clone)]
pub struct ApiClient {
    http: Client,
    /// `<public url>/v1`.
    base: String,
    key: String,
}

impl ApiClient {
    /// A client of the service at `url` (its public URL; a trailing `/v1` is accepted) using `key`.
    pub fn new(url: &str, key: &str) -> Result<Self, ClientError> {
        let http = Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|source| ClientError::Transport { step: "client", source })?;
        Ok(Self::with_http(http, url, key))
    }

    /// The same over an HTTP client of the caller's (its pool, timeouts, proxies).
    pub fn with_http(http: Client, url: &str, key: &str) -> Self {
        let base = format!("{}{API_PREFIX}", url.trim_end_matches('/').trim_end_matches(API_PREFIX));
        Self { http, base, key: key.to_owned() }
    }

    /// `<public url>/v1`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Calls `method <base><path>` with the key and an optional JSON body, waiting out rate limits, and
    /// reads the JSON answer. `step` names the call in errors.
    pub async fn call<T: DeserializeOwned>(
        &self,
        step: &'static str,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<T, ClientError> {
        loop {
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", self.base))
                .header("Authorization", format!("ApiKey {}", self.key))
                .header("Accept", MediaFormat::Json.mime());
            if let Some(body) = body {
                request = request.json(body);
            }
            let response = request.send().await.map_err(|source| ClientError::Transport { step, source })?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS {
                let wait = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(1);
                tokio::time::sleep(Duration::from_secs(wait.clamp(1, 60))).await;
                continue;
            }
            let text = response.text().await.map_err(|source| ClientError::Transport { step, source })?;
            if !status.is_success() {
                let message = serde_json::from_str::<ErrorBody>(&text).map_or(text, |body| body.message);
                return Err(ClientError::Refused { step, status, message });
            }
            return serde_json::from_str(&text)
                .map_err(|e| ClientError::Unexpected { step, detail: format!("{e}: {text}") });
        }
    }

    pub async fn presign(&self, upload: &Upload) -> Result<PresignedUpload, ClientError> {
        let body = serde_json::to_value(upload)
            .map_err(|e| ClientError::Unexpected { step: "presign", detail: e.to_string() })?;
        self.call("presign", Method::POST, "/upload/presign", Some(&body)).await
    }

    /// PUTs the bytes to a presigned upload URL (no key: the URL is the credential).
    pub async fn put(&self, presigned: &PresignedUpload, mimetype: &str, bytes: Bytes) -> Result<(), ClientError> {
        let step = "PUT";
        let response = self
            .http
            .put(&presigned.upload_url)
            .header("Content-Type", mimetype)
            .body(bytes)
            .send()
            .await
            .map_err(|source| ClientError::Transport { step, source })?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let message = response.text().await.unwrap_or_default();
        Err(ClientError::Refused { step, status, message })
    }

    /// Confirms a pending upload; returns the file object.
    pub async fn confirm(&self, pending_upload_id: &str) -> Result<Value, ClientError> {
        let body = json!({ "pendingUploadId": pending_upload_id });
        let mut answer: Value = self.call("confirm", Method::POST, "/upload/confirm", Some(&body)).await?;
        Ok(answer["file"].take())
    }

    /// The whole flow: presign `upload`, PUT `bytes`, confirm; returns the file object.
    pub async fn upload(&self, upload: &Upload, bytes: Bytes) -> Result<Value, ClientError> {
        let presigned = self.presign(upload).await?;
        self.put(&presigned, &upload.mimetype, bytes).await?;
        self.confirm(&presigned.pending_upload_id).await
    }
}

/// The media type a file name's extension suggests, from the table of formats; binary data
/// (`application/octet-stream`) when it suggests none.
pub fn mimetype_of(filename: &str) -> &'static str {
    let extension = filename.rsplit_once('.').map_or("", |(_, extension)| extension);
    MediaFormat::from_extension(extension).unwrap_or(MediaFormat::Binary).mime()
}
