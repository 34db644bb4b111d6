//! The test harness: each test spawns the real service on random ports with its own data and talks HTTP
//! to it. Which deployment is chosen by `SHUTTERBOX_TEST_DEPLOYMENT`:
//! - `embedded` (the default): the server runs in this process on SQLite and a local directory, with its
//!   in-process queue and workers.
//! - `distributed`: two API processes (`shutterbox serve --workers 0`) and a worker process
//!   (`shutterbox worker`) of the real binary, on PostgreSQL (a fresh database per test), Redis (a fresh key
//!   prefix) and an S3 server (a fresh bucket), behind a round-robin TCP proxy that is their public address
//!   — each request is a new connection, so consecutive requests alternate between the two nodes. The
//!   services are named by `SHUTTERBOX_TEST_DATABASE_URL`, `SHUTTERBOX_TEST_REDIS_URL`,
//!   `SHUTTERBOX_TEST_S3_ENDPOINT` and `SHUTTERBOX_TEST_S3_DATA_DIR` (scripts/test.sh starts and sets them);
//!   a missing one fails the test.

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use reqwest::{Client, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use shutterbox_api::{Application, Config, open_metadata};
use shutterbox_model::{AccountName, Scope};
use tempfile::TempDir;
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};

pub const PNG: &[u8] = include_bytes!("../fixtures/gradient.png");

pub struct TestApp {
    /// The public address, `http://127.0.0.1:<port>` (the proxy in front of the nodes when distributed).
    pub root: String,
    /// `<root>/v1`, the spec's `{base_url}`.
    pub base: String,
    /// The secret key of account `default`, created on first start.
    pub key: String,
    pub client: Client,
    pub config: Config,
    /// Directory of the embedded backends.
    pub data_dir: PathBuf,
    /// Where the object store keeps objects as files, by key: the local store's `objects/`, or the S3
    /// server's directory of this test's bucket (s3s-fs stores an object as a file under its key).
    pub objects_dir: PathBuf,
    /// Roots of every API node (one when embedded), for per-node figures such as `/metrics`.
    pub nodes: Vec<String>,
    /// Root of the worker process's `/metrics` (distributed only).
    pub worker: Option<String>,
    /// API node processes, then the worker process (distributed only).
    processes: Vec<Child>,
    logs: PathBuf,
    proxy: Option<JoinHandle<()>>,
    _dir: TempDir,
    _shutdown: oneshot::Sender<()>,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        for child in &mut self.processes {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(proxy) = &self.proxy {
            proxy.abort();
        }
    }
}

/// Whether the suite runs against the distributed deployment.
pub fn distributed() -> bool {
    match std::env::var("SHUTTERBOX_TEST_DEPLOYMENT").as_deref() {
        Ok("distributed") => true,
        Ok("embedded") | Err(_) => false,
        Ok(other) => panic!("SHUTTERBOX_TEST_DEPLOYMENT={other}: expected embedded or distributed"),
    }
}

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: the distributed suite needs it (scripts/test.sh starts the services and sets it)")
    })
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
        if distributed() {
            return Self::spawn_distributed(dir, config, adjust).await;
        }
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
            nodes: vec![root.clone()],
            root,
            key,
            client,
            objects_dir: config.backend.data_dir.join("objects"),
            data_dir: config.backend.data_dir.clone(),
            config,
            worker: None,
            processes: Vec::new(),
            logs: dir.path().join("logs"),
            proxy: None,
            _dir: dir,
            _shutdown: tx,
        }
    }

    /// Spawns the distributed deployment whatever `SHUTTERBOX_TEST_DEPLOYMENT` says (the cluster tests).
    pub async fn spawn_cluster(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::with_data_dir(dir.path().join("data"));
        config.listen = "127.0.0.1:0".into();
        Self::spawn_distributed(dir, config, adjust).await
    }

    async fn spawn_distributed(dir: TempDir, mut config: Config, adjust: impl FnOnce(&mut Config)) -> Self {
        let test_id = uuid::Uuid::new_v4().simple().to_string();
        // Names under the run's prefix, so scripts/test.sh can remove what a run leaves behind.
        let run_prefix = std::env::var("SHUTTERBOX_TEST_DB_PREFIX").unwrap_or_else(|_| "sbx_t".into());
        let database = format!("{run_prefix}_{}", &test_id[..16]);
        let admin_url = required_env("SHUTTERBOX_TEST_DATABASE_URL");
        create_database(&admin_url, &database).await;
        let (server, _) = admin_url.rsplit_once('/').expect("SHUTTERBOX_TEST_DATABASE_URL ends in /<database>");
        config.backend.database_url = Some(format!("{server}/{database}"));
        config.backend.redis_url = Some(required_env("SHUTTERBOX_TEST_REDIS_URL"));
        config.backend.redis_prefix = format!("{run_prefix}_{test_id}");
        config.backend.s3.endpoint = Some(required_env("SHUTTERBOX_TEST_S3_ENDPOINT"));
        config.backend.s3.bucket = format!("t-{test_id}");
        config.backend.s3.access_key = Some("minioadmin".into());
        config.backend.s3.secret_key = Some("minioadmin".into());
        config.workers = 0;
        adjust(&mut config);
        let objects_dir = PathBuf::from(required_env("SHUTTERBOX_TEST_S3_DATA_DIR")).join(&config.backend.s3.bucket);

        let proxy_listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy binds");
        let root = format!("http://{}", proxy_listener.local_addr().expect("proxy address"));
        config.public_url = Some(root.clone());
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(&logs).expect("log dir");

        let mut processes = Vec::new();
        let mut nodes = Vec::new();
        let mut key = None;
        for node in ["api-a", "api-b"] {
            let port = free_port();
            let mut command = Command::new(env!("CARGO_BIN_EXE_shutterbox"));
            command.arg("serve").envs(service_env(&config)).env("SHUTTERBOX_LISTEN", format!("127.0.0.1:{port}"));
            let child = start(&mut command, &logs, node);
            let node_root = format!("http://127.0.0.1:{port}");
            wait_healthy(&node_root, &logs, node).await;
            if key.is_none() {
                let stdout = std::fs::read_to_string(logs.join(format!("{node}.stdout"))).unwrap_or_default();
                key = stdout.lines().find(|l| l.starts_with("sbx_")).map(str::to_owned);
            }
            processes.push(child);
            nodes.push(node_root);
        }
        let (worker_child, worker) = start_worker(&config, &logs, "worker").await;
        processes.push(worker_child);

        let proxy =
            tokio::spawn(round_robin(proxy_listener, nodes.iter().map(|n| n["http://".len()..].to_owned()).collect()));
        // No idle connections kept: every request opens a new one, so the proxy alternates the nodes.
        let client = Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client");
        let (tx, _rx) = oneshot::channel::<()>();
        Self {
            base: format!("{root}/v1"),
            root,
            key: key.expect("the first API node printed the bootstrap key"),
            client,
            data_dir: config.backend.data_dir.clone(),
            objects_dir,
            config,
            nodes,
            worker: Some(worker),
            processes,
            logs,
            proxy: Some(proxy),
            _dir: dir,
            _shutdown: tx,
        }
    }

    /// Kills the worker process with SIGKILL, as a crash would (distributed only).
    pub fn kill_worker(&mut self) {
        assert!(!self.is_embedded(), "only the distributed deployment has a worker process");
        if let Some(worker) = self.processes.last_mut() {
            worker.kill().expect("SIGKILL the worker");
            worker.wait().expect("the worker exits");
        }
    }

    /// Sends SIGTERM to the worker process and waits for it to exit (at most 60 s; distributed only).
    /// Returns its exit status and how long it took.
    pub fn terminate_worker(&mut self) -> (std::process::ExitStatus, Duration) {
        assert!(!self.is_embedded(), "only the distributed deployment has a worker process");
        let worker = self.processes.last_mut().expect("a worker process");
        terminate(worker, Duration::from_secs(60))
    }

    /// Starts another worker process and makes it the one `job_metric` reads (distributed only).
    pub async fn start_worker(&mut self, name: &str) {
        self.start_worker_listening(name, None).await;
    }

    /// As `start_worker`, with SHUTTERBOX_WORKER_LISTEN set to `listen` if given; returns the root of its
    /// `/healthz` and `/metrics` as its log names it.
    pub async fn start_worker_listening(&mut self, name: &str, listen: Option<&str>) -> String {
        let (child, root) = start_worker_at(&self.config, &self.logs, name, listen).await;
        self.processes.push(child);
        self.worker = Some(root.clone());
        root
    }

    /// What the process `name` of this test wrote to stderr.
    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.logs.join(format!("{name}.stderr"))).unwrap_or_default()
    }

    /// A connection to this test's Redis (distributed only).
    pub async fn redis(&self) -> redis::aio::MultiplexedConnection {
        let url = self.config.backend.redis_url.as_deref().expect("distributed deployment");
        let client = redis::Client::open(url).expect("Redis URL");
        client.get_multiplexed_async_connection().await.expect("Redis answers")
    }

    /// A key of this test's Redis namespace.
    pub fn redis_key(&self, suffix: &str) -> String {
        format!("{}:{suffix}", self.config.backend.redis_prefix)
    }

    /// Whether this test runs against the embedded deployment (some tests look at the local store's files).
    pub fn is_embedded(&self) -> bool {
        self.worker.is_none()
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

    /// The value of a counter on `/metrics`, summed over every API node (`name` includes any labels).
    pub async fn metric(&self, name: &str) -> u64 {
        let mut sum = 0;
        for node in &self.nodes {
            sum += self.metric_of(node, name).await;
        }
        sum
    }

    /// The value of a counter on `<root>/metrics` of one process.
    pub async fn metric_of(&self, root: &str, name: &str) -> u64 {
        let text = self.client.get(format!("{root}/metrics")).send().await.expect("metrics").text().await.unwrap();
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} missing in {text}"))
    }

    /// A counter of the processes that run jobs: the worker process, or the node itself when embedded.
    pub async fn job_metric(&self, name: &str) -> u64 {
        match &self.worker {
            Some(worker) => self.metric_of(worker, name).await,
            None => self.metric(name).await,
        }
    }

    /// Waits until the job runners have completed `count` jobs in all (10 s at most).
    pub async fn wait_for_jobs(&self, count: u64) {
        for _ in 0..200 {
            if self.job_metric("shutterbox_jobs_total{outcome=\"done\"}").await >= count {
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

/// Starts `shutterbox worker` as an operator would, with no address of its own (`listen`, when given, is
/// its SHUTTERBOX_WORKER_LISTEN), reads from its log where it serves `/healthz` and `/metrics`, and waits
/// until that answers; returns it and that root.
async fn start_worker_at(config: &Config, logs: &std::path::Path, name: &str, listen: Option<&str>) -> (Child, String) {
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

async fn start_worker(config: &Config, logs: &std::path::Path, name: &str) -> (Child, String) {
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
fn service_env(config: &Config) -> Vec<(&'static str, String)> {
    let b = &config.backend;
    let mut env = vec![
        ("SHUTTERBOX_DATA_DIR", b.data_dir.display().to_string()),
        ("SHUTTERBOX_RATE_LIMIT", config.rate_limit.to_string()),
        ("SHUTTERBOX_MAX_UPLOAD_BYTES", config.max_upload_bytes.to_string()),
        ("SHUTTERBOX_UPLOAD_EXPIRY_SECS", config.upload_expiry_secs.to_string()),
        ("SHUTTERBOX_CACHE_MAX_AGE", config.cache_max_age_secs.to_string()),
        ("SHUTTERBOX_CACHE_BYTES", config.cache_bytes.to_string()),
        ("SHUTTERBOX_MAX_SOURCE_PIXELS", config.max_source_pixels.to_string()),
        ("SHUTTERBOX_WORKERS", config.workers.to_string()),
        ("SHUTTERBOX_REDIS_PREFIX", b.redis_prefix.clone()),
        ("SHUTTERBOX_JOB_TIMEOUT_SECS", b.job_timeout_secs.to_string()),
        ("SHUTTERBOX_JOB_RETRY_BASE_MS", b.job_retry_base_ms.to_string()),
        ("SHUTTERBOX_JOB_DRAIN_SECS", b.job_drain_secs.to_string()),
        ("SHUTTERBOX_SWEEP_INTERVAL_SECS", b.sweep_interval_secs.to_string()),
        ("SHUTTERBOX_SWEEP_GRACE_SECS", b.sweep_grace_secs.to_string()),
        ("SHUTTERBOX_RENDER_CONCURRENCY", config.render_concurrency.to_string()),
        ("SHUTTERBOX_RENDER_QUEUE", config.render_queue.to_string()),
        ("SHUTTERBOX_S3_BUCKET", b.s3.bucket.clone()),
        ("SHUTTERBOX_S3_REGION", b.s3.region.clone()),
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
        let stdout = std::fs::read_to_string(logs.join(format!("{name}.stdout"))).unwrap_or_default();
        let key = stdout.lines().find(|l| l.starts_with("sbx_")).map(str::to_owned);
        Self { child, root, key, logs, name: name.to_owned() }
    }

    /// Asks for an upload URL with the bootstrap key and PUTs `bytes` there; returns the presign answer.
    pub async fn presign_and_put(&self, client: &Client, filename: &str, mimetype: &str, bytes: &[u8]) -> Value {
        let key = self.key.as_deref().expect("the bootstrap key (a first start)");
        let pending: Value = client
            .post(format!("{}/v1/upload/presign", self.root))
            .header("ApiKey", key)
            .json(&json!({"filename": filename, "mimetype": mimetype, "size": bytes.len()}))
            .send()
            .await
            .expect("presign")
            .json()
            .await
            .expect("presign json");
        let put = client.put(pending["uploadUrl"].as_str().expect("uploadUrl")).body(bytes.to_vec()).send().await;
        assert_eq!(put.expect("PUT").status(), StatusCode::OK);
        pending
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

/// A fresh database on the server of `admin_url`.
async fn create_database(admin_url: &str, name: &str) {
    use sqlx::{Connection, Executor};
    let mut conn = sqlx::PgConnection::connect(admin_url)
        .await
        .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at SHUTTERBOX_TEST_DATABASE_URL={admin_url}: {e}"));
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).await.expect("CREATE DATABASE");
}

/// Forwards each accepted connection to the next of `backends` in turn.
async fn round_robin(listener: TcpListener, backends: Vec<String>) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    while let Ok((mut inbound, _)) = listener.accept().await {
        let backend = backends[NEXT.fetch_add(1, Ordering::Relaxed) % backends.len()].clone();
        tokio::spawn(async move {
            let _ = inbound.set_nodelay(true);
            if let Ok(mut outbound) = tokio::net::TcpStream::connect(&backend).await {
                let _ = outbound.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            }
        });
    }
}

/// A `side`×`side` noise JPEG (q 90): slow to encode as AVIF, so a render of it is still running while a
/// test kills or stops the process doing it.
pub fn noise_jpeg(side: u32) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    let image = image::RgbImage::from_fn(side, side, |_, _| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [r, g, b, _] = state.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90).encode_image(&image).expect("encode");
    bytes
}

/// Polls `check` every 50 ms until it holds, for at most `secs` seconds.
pub async fn eventually<F: Future<Output = bool>>(secs: u64, what: &str, mut check: impl FnMut() -> F) {
    for _ in 0..secs * 20 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: not within {secs} s");
}

/// A response read off a raw socket.
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends `<method> <target>` exactly as written — no client-side normalization of `..`, `%2e` or `//` —
/// with `headers` and `body`, and reads the whole response.
pub async fn raw_request(
    app: &TestApp,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = app.root.strip_prefix("http://").expect("an http root");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut request = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).await.expect("send");
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.unwrap();
    let split = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("{target}: no header end"));
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{status_line}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    RawResponse { status, headers, body: bytes[split + 4..].to_vec() }
}
