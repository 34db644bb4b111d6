//! Processes of the real binary: `shutterbox worker` and `shutterbox serve` started with a test's
//! configuration as their environment, their logs in files, health waits, SIGTERM with a deadline.

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::Duration,
};

use bytes::Bytes;
use reqwest::{Client, Response};
use serde_json::{Value, json};
use shutterbox::{
    Config,
    client::{ApiClient, Upload},
};

/// Starts `shutterbox worker` as an operator would, with no address of its own (`listen`, when given, is
/// its SHUTTERBOX_WORKER_LISTEN), reads from its log where it serves `/healthz` and `/metrics`, and waits
/// until that answers; returns it and that root.
pub(super) async fn start_worker_at(
    config: &Config,
    logs: &std::path::Path,
    name: &str,
    listen: Option<&str>,
) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    command.args(["worker", "--concurrency", "2"]).envs(service_env(config));
    if let Some(listen) = listen {
        command.env("SHUTTERBOX_WORKER_LISTEN", listen);
    }
    let child = start(&mut command, logs, name);
    let root = logged_probe_root(logs, name).await;
    wait_healthy(&root, logs, name).await;
    (child, root)
}

pub(super) async fn start_worker(config: &Config, logs: &std::path::Path, name: &str) -> (Child, String) {
    start_worker_at(config, logs, name, None).await
}

/// The `http://host:port` a worker's start-up line names for its probes (10 s at most).
async fn logged_probe_root(logs: &std::path::Path, name: &str) -> String {
    const MARK: &str = "/healthz and /metrics at ";
    for _ in 0..200 {
        let log = std::fs::read_to_string(logs.join(format!("{name}.stderr"))).unwrap_or_default();
        if let Some(at) = log.find(MARK) {
            let rest = &log[at + MARK.len()..];
            return rest.split_whitespace().next().unwrap_or_default().to_owned();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(logs.join(format!("{name}.stderr"))).unwrap_or_default();
    panic!("{name} logged no probe address within 10 s:\n{log}");
}

/// A port free a moment ago (the child process binds it).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("address").port()
}

/// The configuration as the environment of a child process.
pub(super) fn service_env(config: &Config) -> Vec<(&'static str, String)> {
    let b = &config.backend;
    let mut env = vec![
        ("SHUTTERBOX_DATA_DIR", b.data_dir.display().to_string()),
        ("SHUTTERBOX_RATE_LIMIT", config.rate_limit.to_string()),
        ("SHUTTERBOX_MAX_UPLOAD_BYTES", config.max_upload_bytes.to_string()),
        ("SHUTTERBOX_UPLOAD_EXPIRY_SECS", config.upload_expiry_secs.to_string()),
        ("SHUTTERBOX_CORS_ORIGINS", config.cors_origins.join(",")),
        ("SHUTTERBOX_RAW_REDIRECT", config.raw_redirect.to_string()),
        ("SHUTTERBOX_CACHE_MAX_AGE", config.cache_max_age_secs.to_string()),
        ("SHUTTERBOX_CACHE_BYTES", config.cache_bytes.to_string()),
        ("SHUTTERBOX_MAX_SOURCE_PIXELS", config.limits.max_source_pixels.to_string()),
        ("SHUTTERBOX_MAX_OUTPUT_PIXELS", config.limits.max_output_pixels.to_string()),
        ("SHUTTERBOX_MAX_SOURCE_FRAMES", config.limits.max_source_frames.to_string()),
        ("SHUTTERBOX_MAX_ANIMATION_PIXELS", config.limits.max_animation_pixels.to_string()),
        ("SHUTTERBOX_MAX_SOURCE_BYTES", config.limits.max_source_bytes.to_string()),
        ("SHUTTERBOX_RENDER_TIMEOUT_SECS", config.limits.render_timeout_secs.to_string()),
        ("SHUTTERBOX_RENDER_CPU_SECS", config.limits.render_cpu_secs.to_string()),
        ("SHUTTERBOX_MAX_CONNECTIONS", config.connections.max_connections.to_string()),
        ("SHUTTERBOX_IDLE_TIMEOUT_SECS", config.connections.idle_timeout_secs.to_string()),
        ("SHUTTERBOX_BODY_TIMEOUT_SECS", config.connections.body_timeout_secs.to_string()),
        ("SHUTTERBOX_MAX_JSON_BYTES", config.connections.max_json_bytes.to_string()),
        ("SHUTTERBOX_MAX_WARM_ITEMS", config.max_warm_items.to_string()),
        ("SHUTTERBOX_PROXY_HOPS", config.proxy_hops.to_string()),
        ("SHUTTERBOX_WORKERS", config.workers.to_string()),
        ("SHUTTERBOX_REDIS_PREFIX", b.redis_prefix.clone()),
        ("SHUTTERBOX_JOB_TIMEOUT_SECS", b.job_timeout_secs.to_string()),
        ("SHUTTERBOX_JOB_RETRY_BASE_MS", b.job_retry_base_ms.to_string()),
        ("SHUTTERBOX_JOB_DRAIN_SECS", b.job_drain_secs.to_string()),
        ("SHUTTERBOX_SWEEP_INTERVAL_SECS", b.sweep_interval_secs.to_string()),
        ("SHUTTERBOX_SWEEP_GRACE_SECS", b.sweep_grace_secs.to_string()),
        ("SHUTTERBOX_VARIANTS_PER_FILE", b.variants_per_file.to_string()),
        ("SHUTTERBOX_VARIANT_STORE_BYTES", b.variant_store_bytes.to_string()),
        ("SHUTTERBOX_RENDER_CONCURRENCY", config.render_concurrency.to_string()),
        ("SHUTTERBOX_RENDER_QUEUE", config.render_queue.to_string()),
        ("SHUTTERBOX_S3_BUCKET", b.s3.bucket.clone()),
        ("SHUTTERBOX_S3_REGION", b.s3.region.clone()),
        ("SHUTTERBOX_PRESETS", config.presets.to_string()),
        ("SHUTTERBOX_PRESETS_ONLY", config.presets_only.to_string()),
        ("SHUTTERBOX_LOG", "info".into()),
        ("NO_COLOR", "1".into()),
    ];
    let optional = [
        ("SHUTTERBOX_PUBLIC_URL", &config.public_url),
        ("SHUTTERBOX_RAW_BASE_URL", &config.raw_base_url),
        ("SHUTTERBOX_DATABASE_URL", &b.database_url),
        ("SHUTTERBOX_REDIS_URL", &b.redis_url),
        ("SHUTTERBOX_S3_ENDPOINT", &b.s3.endpoint),
        ("SHUTTERBOX_S3_ACCESS_KEY", &b.s3.access_key),
        ("SHUTTERBOX_S3_SECRET_KEY", &b.s3.secret_key),
        ("SHUTTERBOX_S3_PUBLIC_ENDPOINT", &b.s3.public_endpoint),
        ("SHUTTERBOX_URL_SIGNING_KEYS", &config.url_signing_keys),
        ("SHUTTERBOX_COLD_RENDER_LIMIT", &config.cold_render_limit.map(|spec| spec.to_string())),
        ("SHUTTERBOX_CLIENT_ADDRESS_HEADER", &config.client_address_header.as_ref().map(|h| h.to_string())),
    ];
    env.extend(optional.into_iter().filter_map(|(name, value)| Some((name, value.clone()?))));
    env
}

/// `shutterbox serve` as a process of its own (embedded, on `data`), for tests of the process itself: its
/// logs, signals, crashes and restarts.
pub struct ServeProcess {
    pub child: Child,
    pub root: String,
    /// The bootstrap key, when this start created the account (the first start on `data`).
    pub key: Option<String>,
    pub logs: PathBuf,
    name: String,
}

impl ServeProcess {
    /// Starts it on `port` with `env` on top of the defaults, and waits until it is healthy.
    pub async fn start(data: &std::path::Path, port: u16, name: &str, env: &[(&str, &str)]) -> Self {
        let logs = data.with_file_name(format!("{}-logs", data.file_name().and_then(|n| n.to_str()).unwrap_or("data")));
        std::fs::create_dir_all(&logs).expect("log dir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_shutterbox"));
        command
            .arg("serve")
            .env("SHUTTERBOX_DATA_DIR", data)
            .env("SHUTTERBOX_LISTEN", format!("127.0.0.1:{port}"))
            .env_remove("FAILPOINTS");
        let child = start(command.envs(env.iter().copied()), &logs, name);
        let root = format!("http://127.0.0.1:{port}");
        wait_healthy(&root, &logs, name).await;
        let key = bootstrap_key(data);
        Self { child, root, key, logs, name: name.to_owned() }
    }

    /// Asks for an upload URL with the bootstrap key and PUTs `bytes` there; returns the presign answer.
    pub async fn presign_and_put(&self, client: &Client, filename: &str, mimetype: &str, bytes: &[u8]) -> Value {
        let key = self.key.as_deref().expect("the bootstrap key (a first start)");
        let api = ApiClient::with_http(client.clone(), &self.root, key);
        let upload = Upload { mimetype: mimetype.to_owned(), ..Upload::of(filename, bytes) };
        let presigned = api.presign(&upload).await.expect("presign");
        api.put(&presigned, mimetype, Bytes::copy_from_slice(bytes)).await.expect("PUT");
        json!({"uploadUrl": presigned.upload_url, "pendingUploadId": presigned.pending_upload_id})
    }

    /// Confirms `pending` (a `presign_and_put` answer) with the bootstrap key.
    pub fn confirm(&self, client: &Client, pending: &Value) -> impl Future<Output = reqwest::Result<Response>> + use<> {
        let key = self.key.clone().expect("the bootstrap key (a first start)");
        client
            .post(format!("{}/v1/upload/confirm", self.root))
            .header("ApiKey", key)
            .json(&json!({"pendingUploadId": pending["pendingUploadId"]}))
            .send()
    }

    /// What it has written to standard error so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.logs.join(format!("{}.stderr", self.name))).unwrap_or_default()
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first start's secret key, which `serve` writes to `<data>/bootstrap-key` when its output is not a
/// terminal (as here).
pub fn bootstrap_key(data: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(data.join("bootstrap-key")).ok()?;
    text.lines().find(|l| l.starts_with("sbx_")).map(str::to_owned)
}

/// Sends SIGTERM to `child` and waits for it to exit, for at most `limit` (then kills it and fails).
pub fn terminate(child: &mut Child, limit: Duration) -> (std::process::ExitStatus, Duration) {
    let started = std::time::Instant::now();
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(sent.success(), "SIGTERM was delivered");
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("wait on the child") {
            return (status, started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("the process did not exit within {limit:?} of SIGTERM");
}

/// Starts a child process with its output in `<logs>/<name>.stdout|stderr`.
pub fn start(command: &mut Command, logs: &std::path::Path, name: &str) -> Child {
    let file = |ext: &str| std::fs::File::create(logs.join(format!("{name}.{ext}"))).expect("log file");
    // The variables of the developer's shell must not leak into the child's configuration.
    for (var, _) in
        std::env::vars().filter(|(var, _)| var.starts_with("SHUTTERBOX_") && !var.starts_with("SHUTTERBOX_TEST"))
    {
        command.env_remove(var);
    }
    command.stdin(Stdio::null()).stdout(file("stdout")).stderr(file("stderr"));
    command.spawn().unwrap_or_else(|e| panic!("cannot start {name}: {e}"))
}

/// Waits (10 s at most) until `<root>/healthz` answers; fails with the process's log.
pub async fn wait_healthy(root: &str, logs: &std::path::Path, name: &str) {
    let client = Client::builder().no_proxy().timeout(Duration::from_secs(1)).build().expect("client");
    for _ in 0..200 {
        if let Ok(response) = client.get(format!("{root}/healthz")).send().await
            && response.status().is_success()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(logs.join(format!("{name}.stderr"))).unwrap_or_default();
    panic!("{name} did not become healthy at {root} within 10 s:\n{log}");
}

/// Runs the binary with `args` and `env` (and no other SHUTTERBOX_ variable): success, stdout, stderr.
pub async fn shutterbox(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    command.args(args).env("SHUTTERBOX_DATA_DIR", dir.path()).env("SHUTTERBOX_LISTEN", "127.0.0.1:0");
    for (var, _) in std::env::vars().filter(|(var, _)| var.starts_with("SHUTTERBOX_")) {
        command.env_remove(var);
    }
    let output = tokio::time::timeout(Duration::from_secs(30), command.envs(env.iter().copied()).output())
        .await
        .expect("the command ends")
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}
