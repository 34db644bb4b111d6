//! Faults of the backing services while the distributed deployment serves: PostgreSQL, Redis and the S3
//! server each become unreachable and come back, through a TCP proxy the test cuts (every open connection
//! dropped, new ones closed at once, as a restarting server does); and a PostgreSQL server of the test's
//! own is really restarted under traffic (a fast shutdown tells open connections why, in SQLSTATE 57P01).
//! Shutterbox answers 503 with the JSON error body where it must, keeps serving what does not need the
//! missing service, and recovers without a restart. Always distributed, like `cluster`.

use std::{
    future::Future,
    path::PathBuf,
    process::Command,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::{
    net::{TcpListener, TcpStream},
    task::{AbortHandle, JoinHandle},
};

use crate::helpers::{PNG, TestApp, eventually, free_port};

/// A TCP proxy in front of one backend, which the test can cut and restore.
struct FaultProxy {
    port: u16,
    up: Arc<AtomicBool>,
    connections: Arc<Mutex<Vec<AbortHandle>>>,
    task: JoinHandle<()>,
}

impl FaultProxy {
    async fn start(target: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let connections = Arc::new(Mutex::new(Vec::<AbortHandle>::new()));
        let task = tokio::spawn({
            let (up, connections) = (up.clone(), connections.clone());
            async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    if !up.load(Ordering::SeqCst) {
                        continue; // dropped: the client sees the connection closed
                    }
                    let target = target.clone();
                    let forward = tokio::spawn(async move {
                        if let Ok(mut outbound) = TcpStream::connect(&target).await {
                            let _ = inbound.set_nodelay(true);
                            let _ = outbound.set_nodelay(true);
                            let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    });
                    let mut open = connections.lock().unwrap();
                    open.retain(|c| !c.is_finished());
                    open.push(forward.abort_handle());
                }
            }
        });
        Self { port, up, connections, task }
    }

    /// The backend is gone: open connections are dropped, new ones closed.
    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }

    /// `url` with its `host:port` replaced by this proxy's.
    fn in_front_of(&self, url: &str, host_port: &str) -> String {
        url.replacen(host_port, &format!("127.0.0.1:{}", self.port), 1)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
        self.cut();
    }
}

/// `host:port` of a URL such as `postgres://user@host:port/db` or `http://host:port`.
fn host_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    authority.rsplit_once('@').map_or(authority, |(_, host)| host).to_owned()
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set (scripts/test.sh sets it)"))
}

/// Sends a request every 100 ms until it is answered with `expected` (20 s at most); returns that body.
async fn answered_with<F: Future<Output = reqwest::Response>>(
    expected: StatusCode,
    mut send: impl FnMut() -> F,
) -> Value {
    let mut last = String::new();
    for _ in 0..200 {
        let response = send().await;
        if response.status() == expected {
            return response.json().await.unwrap();
        }
        last = format!("{} {}", response.status(), response.text().await.unwrap_or_default());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no {expected} within 20 s; last answer: {last}");
}

async fn list_status(app: &TestApp) -> (StatusCode, Value) {
    let response = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
    let status = response.status();
    let retry_after = response.headers().get("retry-after").cloned();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        assert!(retry_after.is_some(), "a 503 says when to retry");
        assert_eq!(body["status"], 503, "{body}");
        assert!(body["message"].is_string(), "{body}");
    }
    (status, body)
}

/// A PostgreSQL server of this test's own (initdb into a temporary directory, on a free port), which the
/// test can really stop and start: the machine's shared server serves the other tests meanwhile.
struct OwnPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

impl OwnPostgres {
    fn start() -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL's programs under /usr/lib/postgresql (Debian's postgresql package)")
            .filter_map(|entry| Some(entry.ok()?.path().join("bin")))
            .filter(|bin| bin.join("initdb").exists())
            .max()
            .expect("initdb under /usr/lib/postgresql/<version>/bin");
        let dir = tempfile::Builder::new().prefix("sbx-pg").tempdir_in("/tmp").expect("temp dir");
        let own = Self { dir, bin, port: free_port() };
        if running_as_root() {
            // PostgreSQL refuses to run as root; its programs run as the `postgres` user, in a directory it owns.
            own.run("chown", &["-R", "postgres:postgres", &own.path("")], false);
        }
        own.run("initdb", &["-D", &own.path("data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"], true);
        own.start_server();
        own
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn start_server(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync=off -c max_connections=100",
            self.port,
            self.path("")
        );
        self.run("pg_ctl", &["-D", &self.path("data"), "-l", &self.path("log"), "-o", &options, "-w", "start"], true);
    }

    /// A fast shutdown, as a restart does: open sessions are ended with 57P01, new connections refused.
    fn stop_server(&self) {
        self.run("pg_ctl", &["-D", &self.path("data"), "-m", "fast", "-w", "stop"], true);
    }

    /// Runs one of PostgreSQL's programs (`as_postgres`: as the `postgres` user when we are root) or a
    /// plain command, and insists that it succeeds.
    fn run(&self, program: &str, args: &[&str], as_postgres: bool) {
        let mut command = if as_postgres { self.postgres_program(program) } else { Command::new(program) };
        let output = command.args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            output.status.success(),
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn postgres_program(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if running_as_root() {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let _ = self.postgres_program("pg_ctl").args(["-D", &self.path("data"), "-m", "immediate", "stop"]).output();
    }
}

fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

#[tokio::test]
async fn a_real_postgres_restart_under_traffic_gives_503s_then_recovery() {
    let postgres = OwnPostgres::start();
    let url = postgres.url();
    let app = TestApp::spawn_cluster(|c| c.backend.database_url = Some(url)).await;
    let file = app.upload("before.png", "image/png", PNG).await;
    assert_eq!(list_status(&app).await.0, StatusCode::OK);

    // Listings every 50 ms while the server stops, stays down for 8 s and starts again. A request waits up
    // to 5 s for a connection (metadata/src/sql.rs), which absorbs a quick restart: it answers late, with a
    // 200. A longer outage must become 503s.
    let restart = tokio::task::spawn_blocking(move || {
        postgres.stop_server();
        std::thread::sleep(Duration::from_secs(8));
        postgres.start_server();
        postgres
    });
    let mut statuses = Vec::new();
    while !restart.is_finished() {
        // A 503 carries Retry-After and the JSON body (checked inside).
        statuses.push(list_status(&app).await.0);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _postgres = restart.await.expect("the restart ran");
    assert!(statuses.iter().all(|s| *s == StatusCode::OK || *s == StatusCode::SERVICE_UNAVAILABLE), "{statuses:?}");
    assert!(statuses.contains(&StatusCode::SERVICE_UNAVAILABLE), "the outage was seen: {statuses:?}");

    // Recovery without restarting Shutterbox.
    recovered_from_a_database_outage(&app).await;
    let (status, _, _) = app.fetch(file["secureUrl"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_postgres_restart_gives_503s_then_recovery_without_restarting() {
    let database = env("SHUTTERBOX_TEST_DATABASE_URL");
    let proxy = FaultProxy::start(host_port(&database)).await;
    let app = TestApp::spawn_cluster(|c| {
        let url = c.backend.database_url.clone().unwrap();
        c.backend.database_url = Some(proxy.in_front_of(&url, &host_port(&url)));
    })
    .await;
    let file = app.upload("before.png", "image/png", PNG).await;
    let variant = format!("{}?w=20", file["secureUrl"].as_str().unwrap());
    // Each node answers it once, so each keeps it in memory.
    let on_each_node: Vec<String> = app.nodes.iter().map(|node| variant.replacen(&app.root, node, 1)).collect();
    for url in &on_each_node {
        assert_eq!(app.fetch(url).await.0, StatusCode::OK);
    }

    proxy.cut();
    // Traffic during the outage: management calls answer 503 with the JSON body, never 500.
    for _ in 0..6 {
        let (status, body) = list_status(&app).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    }
    let presign = app.presign(&app.key, json!({"filename": "x.png", "mimetype": "image/png", "size": 3})).await;
    assert_eq!(presign.status(), StatusCode::SERVICE_UNAVAILABLE);
    // A variant already answered is still served from memory, by every node.
    for url in &on_each_node {
        assert_eq!(app.fetch(url).await.0, StatusCode::OK);
    }

    proxy.restore();
    recovered_from_a_database_outage(&app).await;
}

/// After a database outage: listings work again on every node (requests alternate between them), and an
/// upload works end to end.
async fn recovered_from_a_database_outage(app: &TestApp) {
    eventually(20, "listing works again", || async { list_status(app).await.0 == StatusCode::OK }).await;
    for _ in 0..4 {
        assert_eq!(list_status(app).await.0, StatusCode::OK);
    }
    let after = app.upload("after.png", "image/png", PNG).await;
    let (status, _, bytes) = app.fetch(after["rawUrl"].as_str().unwrap()).await;
    assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG));
}

#[tokio::test]
async fn with_redis_unreachable_uploads_and_delivery_continue_and_jobs_resume() {
    let redis = env("SHUTTERBOX_TEST_REDIS_URL");
    let proxy = FaultProxy::start(host_port(&redis)).await;
    let app = TestApp::spawn_cluster(|c| {
        let url = c.backend.redis_url.clone().unwrap();
        c.backend.redis_url = Some(proxy.in_front_of(&url, &host_port(&url)));
    })
    .await;
    let before = app.upload("before.png", "image/png", PNG).await;

    proxy.cut();
    let during = app.upload("during.png", "image/png", PNG).await;
    for file in [&before, &during] {
        let (status, _, bytes) = app.fetch(file["rawUrl"].as_str().unwrap()).await;
        assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG));
        let (status, content_type, _) = app.fetch(&format!("{}?w=12", file["secureUrl"].as_str().unwrap())).await;
        assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/png"));
    }
    assert_eq!(list_status(&app).await.0, StatusCode::OK, "the rate limit falls back to counting per node");

    proxy.restore();
    // Jobs flow again: a warming batch queued after the outage is rendered by the worker.
    let warm = || app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["w=9&format=webp"]}));
    let batch: Value = answered_with(StatusCode::ACCEPTED, || async { warm().send().await.unwrap() }).await;
    let id = batch["batchId"].as_str().unwrap().to_owned();
    eventually(30, "the batch is rendered", || async {
        let progress: Value =
            app.authed(Method::GET, &format!("/warm/{id}"), &app.key).send().await.unwrap().json().await.unwrap();
        progress["done"] == progress["total"] && progress["total"].as_u64() == Some(2)
    })
    .await;
}

#[tokio::test]
async fn with_the_object_store_down_confirm_is_503_and_cached_variants_are_served() {
    let s3 = env("SHUTTERBOX_TEST_S3_ENDPOINT");
    let proxy = FaultProxy::start(host_port(&s3)).await;
    let app = TestApp::spawn_cluster(|c| {
        let url = c.backend.s3.endpoint.clone().unwrap();
        c.backend.s3.endpoint = Some(proxy.in_front_of(&url, &host_port(&url)));
    })
    .await;
    let file = app.upload("cached.png", "image/png", PNG).await;
    let variant = format!("{}?w=16", file["secureUrl"].as_str().unwrap());
    // Each node answers it once, so each keeps it in memory.
    for node in &app.nodes {
        let url = variant.replacen(&app.root, node, 1);
        assert_eq!(app.fetch(&url).await.0, StatusCode::OK);
    }
    let presign: Value = app
        .presign(&app.key, json!({"filename": "late.png", "mimetype": "image/png", "size": PNG.len()}))
        .await
        .json()
        .await
        .unwrap();
    let put = app.put_bytes(presign["uploadUrl"].as_str().unwrap(), "image/png", PNG.to_vec()).await;
    assert_eq!(put.status(), StatusCode::OK);

    proxy.cut();
    let confirm = app.confirm(&app.key, presign["pendingUploadId"].as_str().unwrap()).await;
    assert_eq!(confirm.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(confirm.headers().contains_key("retry-after"));
    let body: Value = confirm.json().await.unwrap();
    assert_eq!(body["status"], 503, "{body}");
    for _ in 0..4 {
        assert_eq!(app.fetch(&variant).await.0, StatusCode::OK, "memory-cached variants need no store");
    }
    let (status, _, _) = app.fetch(file["rawUrl"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "the original needs the store");

    proxy.restore();
    let pending = presign["pendingUploadId"].as_str().unwrap().to_owned();
    let confirmed: Value = answered_with(StatusCode::OK, || app.confirm(&app.key, &pending)).await;
    let (status, _, bytes) = app.fetch(confirmed["file"]["rawUrl"].as_str().unwrap()).await;
    assert_eq!((status, bytes.as_slice()), (StatusCode::OK, PNG));
}
