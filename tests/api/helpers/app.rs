//! `TestApp`: one test's deployment — embedded in this process, or distributed as two API processes and a
//! worker process behind a round-robin proxy on a fresh PostgreSQL database, Redis prefix and S3 bucket —
//! and the requests tests make of it.

use std::{
    path::PathBuf,
    process::{Child, Command},
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use bytes::Bytes;
use reqwest::{Client, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use shutterbox::{
    Application, Config,
    client::{ApiClient, Upload},
    open_metadata,
};
use shutterbox_model::{AccountName, FileId, Scope};
use tempfile::TempDir;
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};

use super::processes::{free_port, service_env, start, start_worker, start_worker_at, terminate, wait_healthy};

pub struct TestApp {
    /// The public address, `http://127.0.0.1:<port>` (the proxy in front of the nodes when distributed).
    pub root: String,
    /// `<root>/v1`, the `{base_url}` of docs/api.md.
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

/// The id of a file object the API answered with.
pub fn file_id(file: &Value) -> FileId {
    FileId::new(file["id"].as_str().unwrap_or_else(|| panic!("no id in {file}")))
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
        let logs = dir.path().join("logs");
        Self::embedded(root, key, config, Vec::new(), logs, dir, tx)
    }

    /// An embedded deployment at `root`: served in this process (`processes` empty) or by one process.
    fn embedded(
        root: String,
        key: String,
        config: Config,
        processes: Vec<Child>,
        logs: PathBuf,
        dir: TempDir,
        shutdown: oneshot::Sender<()>,
    ) -> Self {
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
            processes,
            logs,
            proxy: None,
            _dir: dir,
            _shutdown: shutdown,
        }
    }

    /// Spawns the deployment as processes of the binary, for tests that watch a node's memory or its
    /// connections: embedded, one `shutterbox serve` process on the local backends (its workers in it);
    /// distributed, as `spawn_with` (its API nodes are processes already).
    pub async fn spawn_processes(adjust: impl FnOnce(&mut Config)) -> Self {
        if distributed() {
            return Self::spawn_with(adjust).await;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = Config::with_data_dir(dir.path().join("data"));
        adjust(&mut config);
        let port = free_port();
        let root = format!("http://127.0.0.1:{port}");
        config.listen = format!("127.0.0.1:{port}");
        config.public_url = Some(root.clone());
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(&logs).expect("log dir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_shutterbox"));
        command.arg("serve").envs(service_env(&config)).env("SHUTTERBOX_LISTEN", &config.listen);
        let child = start(&mut command, &logs, "node");
        wait_healthy(&root, &logs, "node").await;
        let key = super::processes::bootstrap_key(&config.backend.data_dir).expect("the bootstrap key");
        let (tx, _rx) = oneshot::channel::<()>();
        Self::embedded(root, key, config, vec![child], logs, dir, tx)
    }

    /// The process ids of the API nodes, when they are processes (`spawn_processes`, or distributed).
    pub fn node_pids(&self) -> Vec<u32> {
        self.processes.iter().take(self.nodes.len()).map(Child::id).collect()
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
                key = super::processes::bootstrap_key(&config.backend.data_dir);
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

    /// Kills API node `index` (of `nodes`) with SIGKILL, as a crash would (distributed only); the proxy
    /// keeps sending it requests, so address the other node directly.
    pub fn kill_node(&mut self, index: usize) {
        assert!(!self.is_embedded(), "only the distributed deployment runs nodes as processes");
        let node = &mut self.processes[index];
        node.kill().expect("SIGKILL the node");
        node.wait().expect("the node exits");
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

    /// The environment a `shutterbox` command needs to work on this deployment's backends, as its nodes do.
    pub fn command_env(&self) -> Vec<(&'static str, String)> {
        service_env(&self.config)
    }

    /// Mints a key for `account` (created if needed) with `scope`, as `shutterbox keys create` does.
    pub async fn key_for(&self, account: &str, scope: Scope) -> String {
        let metadata = open_metadata(&self.config.backend).await.expect("metadata opens");
        let account = AccountName::parse(account).expect("valid account name");
        let minted = shutterbox_api::keys::mint(metadata.as_ref(), &account, scope, None).await.expect("key minted");
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

    /// The whole presign → PUT → confirm flow with `key`, through the shared `ApiClient`; returns the file
    /// object. `presign_body` is the presign request.
    pub async fn upload_as(&self, key: &str, presign_body: Value, bytes: &[u8]) -> Value {
        let upload: Upload = serde_json::from_value(presign_body).expect("a presign request");
        let api = ApiClient::with_http(self.client.clone(), &self.base, key);
        api.upload(&upload, Bytes::copy_from_slice(bytes)).await.expect("upload")
    }

    /// Uploads `bytes` as `filename` with the default key.
    pub async fn upload(&self, filename: &str, mimetype: &str, bytes: &[u8]) -> Value {
        let body = json!({ "filename": filename, "mimetype": mimetype, "size": bytes.len() });
        self.upload_as(&self.key, body, bytes).await
    }
}

impl TestApp {
    /// A public GET of an absolute URL: status, Content-Type and body.
    pub async fn fetch(&self, url: &str) -> (StatusCode, String, Vec<u8>) {
        let response = self.client.get(url).send().await.unwrap();
        let status = response.status();
        let content_type =
            response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        (status, content_type, response.bytes().await.unwrap().to_vec())
    }

    /// Every object under `files/<id>/` in the store.
    pub fn stored_objects(&self, id: &FileId) -> Vec<String> {
        let dir = self.objects_dir.join("files").join(id.as_str());
        let mut found = Vec::new();
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if entry.path().is_dir() {
                    stack.push(entry.path());
                } else {
                    found.push(entry.path().display().to_string());
                }
            }
        }
        found
    }

    /// The value of a counter on `/metrics`, summed over every API node (`name` includes any labels).
    pub async fn metric(&self, name: &str) -> u64 {
        let mut sum = 0;
        for node in &self.nodes {
            sum += self.metric_of(node, name).await;
        }
        sum
    }

    /// Sum over every API node of the samples of `name` whose labels include each of `labels` (`key="value"`).
    pub async fn metric_sample(&self, name: &str, labels: &[&str]) -> f64 {
        let mut sum = 0.0;
        for node in &self.nodes {
            let text = self.client.get(format!("{node}/metrics")).send().await.unwrap().text().await.unwrap();
            for line in text.lines().filter(|l| !l.starts_with('#')) {
                let Some((series, value)) = line.rsplit_once(' ') else { continue };
                let metric = series.split('{').next().unwrap_or_default();
                if metric == name && labels.iter().all(|l| series.contains(l)) {
                    sum += value.parse::<f64>().unwrap();
                }
            }
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

    /// Waits until the job runners have completed `count` jobs in all (10 s at most). An image's upload
    /// queues two: its thumbnail and its description.
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
