//! The attack suite (SECURITY.md, "Bounds"): hostile files and hostile clients against the service run as
//! processes of the binary (`TestApp::spawn_processes`: one embedded process, or the distributed
//! deployment's API nodes), each answered as the bounds say, while a legitimate client keeps asking beside
//! them and each node's peak resident memory is watched.
//!
//! What is held to account, per attack group: every answer is the one the bound names (a 4xx naming it,
//! never a 5xx); each node's peak RSS (`VmHWM`) stays within `RSS_BOUND` of its size before the attacks;
//! the legitimate client sees no 5xx and keeps its p99 latency within 3× its quiet p99 (or `LATENCY_FLOOR`,
//! whichever is more: the rest of the suite runs beside the attacks on two cores, and a quiet loopback p99
//! of a few milliseconds moves with it). Alone on this machine the ratios were 1.1-1.8×.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use reqwest::StatusCode;
use serde_json::{Value, json};
use shutterbox_model::Scope;
use shutterbox_pipeline::samples::animated_gif;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::helpers::{TestApp, assert_error, hostile, noise_jpeg};

/// How much a node's resident memory may grow over its size before the attacks.
const RSS_BOUND: u64 = 1 << 30;
/// The least p99 the legitimate client is allowed, whatever 3× its quiet p99 is.
const LATENCY_FLOOR: Duration = Duration::from_millis(100);

fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} for process {pid}"))
}

/// Each node's resident size now, in bytes.
fn resident(app: &TestApp) -> Vec<u64> {
    app.node_pids().iter().map(|&pid| status_kib(pid, "VmRSS:") * 1024).collect()
}

/// Fails when any node's peak resident size passed its size before the attacks by more than `RSS_BOUND`.
fn assert_memory_bounded(app: &TestApp, before: &[u64], what: &str) {
    for (pid, before) in app.node_pids().iter().zip(before) {
        let peak = status_kib(*pid, "VmHWM:") * 1024;
        println!("{what}: node {pid} peak RSS {} MiB (idle {} MiB)", peak >> 20, before >> 20);
        assert!(
            peak <= before + RSS_BOUND,
            "{what}: node {pid} peaked at {} MiB from {} MiB",
            peak >> 20,
            before >> 20
        );
    }
}

type Shared<T> = Arc<Mutex<Vec<T>>>;

/// A legitimate client: reads a stored variant and lists files, one request after another, until stopped.
/// A client of its own: a thread and a runtime apart from the test's (whose single thread also drives the
/// attacks and, distributed, the round-robin proxy), asking each node directly, so that its latency is the
/// service's and not the test harness's.
struct Bystander {
    latencies: Shared<Duration>,
    failures: Shared<String>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Held while it runs (`ONE_ATTACK_AT_A_TIME`).
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

/// The attack groups a bystander watches run one at a time, so that each one's quiet figure and its figure
/// under attack are measured against the same background (the rest of the suite), not against another
/// group's attacks.
static ONE_ATTACK_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Bystander {
    async fn start(app: &TestApp, variant_url: String, turn: tokio::sync::MutexGuard<'static, ()>) -> Self {
        let (latencies, failures, stop) = (Arc::default(), Arc::default(), Arc::new(AtomicBool::new(false)));
        // (variant, file list) of each node.
        let urls: Vec<(String, String)> = app
            .nodes
            .iter()
            .map(|node| (variant_url.replacen(&app.root, node, 1), format!("{node}/v1/files?pageSize=5")))
            .collect();
        let key = app.key.clone();
        let (latencies_, failures_, stop_): (Shared<Duration>, Shared<String>, Arc<AtomicBool>) =
            (Arc::clone(&latencies), Arc::clone(&failures), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().unwrap();
                let mut n = 0usize;
                while !stop_.load(Ordering::Relaxed) {
                    n += 1;
                    let (variant, list) = &urls[(n / 2) % urls.len()];
                    let started = Instant::now();
                    let request =
                        if n.is_multiple_of(2) { client.get(list).header("ApiKey", &key) } else { client.get(variant) };
                    match request.send().await {
                        Ok(response) if response.status().is_success() => {
                            let _ = response.bytes().await;
                            latencies_.lock().unwrap().push(started.elapsed());
                        }
                        Ok(response) => failures_.lock().unwrap().push(format!("status {}", response.status())),
                        Err(e) => failures_.lock().unwrap().push(e.to_string()),
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            });
        });
        Self { latencies, failures, stop, thread: Some(thread), _turn: turn }
    }

    fn p99(&self) -> Duration {
        let mut latencies = self.latencies.lock().unwrap().clone();
        latencies.sort();
        latencies.get(latencies.len().saturating_sub(1) * 99 / 100).copied().unwrap_or_default()
    }

    /// Its p99 over what it has done so far, and starts counting afresh.
    fn take_p99(&self) -> Duration {
        let p99 = self.p99();
        self.latencies.lock().unwrap().clear();
        p99
    }

    async fn finish(mut self, quiet: Duration, what: &str) {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().unwrap();
        tokio::task::spawn_blocking(move || thread.join()).await.unwrap().unwrap();
        let during = self.p99();
        let served = self.latencies.lock().unwrap().len();
        let failures = self.failures.lock().unwrap().clone();
        println!("{what}: the legitimate client's p99 {during:?} over {served} requests (quiet {quiet:?})");
        assert!(failures.is_empty(), "{what}: the legitimate client saw {failures:?}");
        assert!(served > 0, "{what}: the legitimate client was never served");
        let allowed = (quiet * 3).max(LATENCY_FLOOR);
        assert!(during <= allowed, "{what}: p99 {during:?} during the attacks, allowed {allowed:?}");
    }
}

/// The deployment under attack, its idle memory, and the legitimate client beside it (its quiet p99 taken).
async fn under_attack(adjust: impl FnOnce(&mut shutterbox::Config)) -> (TestApp, Vec<u64>, Bystander, Duration) {
    let turn = ONE_ATTACK_AT_A_TIME.lock().await;
    let app = TestApp::spawn_processes(adjust).await;
    let file = app.upload("calm.jpg", "image/jpeg", &noise_jpeg(64)).await;
    let variant = format!("{}?w=32", file["secureUrl"].as_str().unwrap());
    assert_eq!(app.fetch(&variant).await.0, StatusCode::OK);
    let bystander = Bystander::start(&app, variant, turn).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let quiet = bystander.take_p99();
    let idle = resident(&app);
    (app, idle, bystander, quiet)
}

async fn upload_confirmed(app: &TestApp, name: &str, mimetype: &str, bytes: &[u8]) -> Value {
    let started = Instant::now();
    let file = app.upload(name, mimetype, bytes).await;
    println!("{name}: {} bytes uploaded and confirmed in {:?}", bytes.len(), started.elapsed());
    file
}

/// Uploads `head` followed by zeros to `size` bytes, streamed (never held whole by the test).
async fn upload_streamed(app: &TestApp, name: &str, mimetype: &str, head: Vec<u8>, size: u64) -> Value {
    use futures_util::StreamExt;
    let started = Instant::now();
    let api = shutterbox::client::ApiClient::with_http(app.client.clone(), &app.base, &app.key);
    let upload = serde_json::from_value(json!({ "filename": name, "mimetype": mimetype, "size": size })).unwrap();
    let presigned = api.presign(&upload).await.unwrap();
    let zeros = bytes::Bytes::from(vec![0u8; 4 << 20]);
    let rest = size - head.len() as u64;
    let chunks = (0..rest.div_ceil(zeros.len() as u64)).map(move |n| {
        let len = (rest - n * zeros.len() as u64).min(zeros.len() as u64) as usize;
        Ok::<_, std::io::Error>(zeros.slice(..len))
    });
    let body = futures_util::stream::once(async move { Ok(bytes::Bytes::from(head)) })
        .chain(futures_util::stream::iter(chunks));
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let put = client
        .put(&presigned.upload_url)
        .header("Content-Type", mimetype)
        .header("Content-Length", size)
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success(), "{:?}", put.text().await);
    let file = api.confirm(&presigned.pending_upload_id).await.unwrap();
    println!("{name}: {size} bytes streamed up and confirmed in {:?}", started.elapsed());
    file
}

async fn refused(app: &TestApp, url: &str, names: &str) {
    let started = Instant::now();
    let response = app.client.get(url).send().await.unwrap();
    let message = assert_error(response, StatusCode::BAD_REQUEST).await;
    assert!(message.contains(names), "{url}: {message}");
    println!("{url}: 400 in {:?}: {message}", started.elapsed());
}

#[tokio::test]
async fn hostile_files_are_refused_by_their_bounds_within_the_memory_bound() {
    let (app, idle, bystander, quiet) = under_attack(|_| {}).await;

    // A 1×1 PNG whose ICC profile inflates to 2 GiB, and one to 8 GiB: confirmed (its facts are left
    // unread), and never inflated beyond the profile cap.
    for (name, inflated) in [("bomb-2g.png", 2u64 << 30), ("bomb-8g.png", 8 << 30)] {
        let file = upload_confirmed(&app, name, "image/png", &hostile::iccp_bomb_png(inflated)).await;
        refused(&app, &format!("{}?w=10", file["secureUrl"].as_str().unwrap()), "ICC profile").await;
    }

    // A 64×64 AVIF whose alpha item is 8192×8192: the alpha item is held to the pixel budget too.
    let avif =
        upload_confirmed(&app, "alpha.avif", "image/avif", &hostile::avif_with_alpha((64, 64), (8192, 8192))).await;
    refused(&app, &format!("{}?w=10", avif["secureUrl"].as_str().unwrap()), "8192x8192 pixels").await;
    // And a HEIC built the same way: its items' sizes are checked before libheif reads it.
    let heic =
        upload_confirmed(&app, "alpha.heic", "image/heic", &hostile::heic_with_alpha((64, 64), (8192, 8192))).await;
    assert_eq!(heic["rawType"], "image/heic", "{heic}");
    refused(&app, &format!("{}?w=10", heic["secureUrl"].as_str().unwrap()), "8192x8192 pixels").await;

    // A progressive JPEG whose last scan repeats 20,000 times.
    let jpeg = upload_confirmed(&app, "scans.jpg", "image/jpeg", &hostile::repeated_scan_jpeg(20_000)).await;
    refused(&app, &format!("{}?w=100", jpeg["secureUrl"].as_str().unwrap()), "more than 500 scans").await;

    // 10,000 frames asked at 5000×5000: the output's pixels × frames are the render's work.
    let gif = upload_confirmed(&app, "frames.gif", "image/gif", &animated_gif(10_000)).await;
    let url = gif["secureUrl"].as_str().unwrap();
    refused(&app, &format!("{url}?w=5000&h=5000&fit=contain&format=gif"), "10000 frames of 5000x5000").await;
    // And the 15 KB GIF of 300 tiny frames asked at 2000×2000 (11 s of a render thread before).
    let small = upload_confirmed(&app, "small-frames.gif", "image/gif", &animated_gif(300)).await;
    let small = format!("{}?w=2000&h=2000&fit=contain&format=gif", small["secureUrl"].as_str().unwrap());
    refused(&app, &small, "300 frames of 2000x2000").await;
    refused(&app, &format!("{url}?w=300&h=300&fit=contain&format=gif"), "frames one render may decode and encode")
        .await;

    // A file of 4 GiB that begins as a 1×1 PNG, streamed up: confirmed from its head, and refused before
    // its bytes are read.
    let big = upload_streamed(&app, "padded.png", "image/png", hostile::iccp_bomb_png(10), 4 << 30).await;
    refused(&app, &format!("{}?w=10", big["secureUrl"].as_str().unwrap()), "more than the 268435456 bytes").await;

    // A large PNG damaged at its very end: decoded once per node, then remembered as refused, for its
    // URL and its thumbnail alike.
    let picture = shutterbox_pipeline::samples::picture(1200, 1200, 7);
    let mut png = Vec::new();
    image::DynamicImage::ImageRgba8(picture)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let damaged = upload_confirmed(&app, "damaged.png", "image/png", &hostile::with_corrupt_last_idat(&png)).await;
    let (url, thumbnail) = (damaged["secureUrl"].as_str().unwrap(), damaged["secureThumbnailUrl"].as_str().unwrap());
    let failed_before = failed_renders(&app).await;
    for _ in 0..20 {
        let response = app.client.get(format!("{url}?w=100")).send().await.unwrap();
        assert_error(response, StatusCode::BAD_REQUEST).await;
        assert_eq!(app.fetch(thumbnail).await.0, StatusCode::OK, "a placeholder thumbnail");
    }
    let failed = failed_renders(&app).await - failed_before;
    // Each node renders the URL and the thumbnail at most once each (the thumbnail job may have too).
    assert!(failed <= 3 * app.nodes.len() as u64, "{failed} failed renders for 20 requests of each");

    assert_memory_bounded(&app, &idle, "hostile files");
    bystander.finish(quiet, "hostile files").await;
    assert_store_accounted(&app).await;
}

/// Every object in the store belongs to a record (a file's original, a stored variant) once the service is
/// at rest: the attacks left nothing behind that nothing refers to.
async fn assert_store_accounted(app: &TestApp) {
    let metadata = shutterbox::open_metadata(&app.config.backend).await.unwrap();
    let mut unaccounted = Vec::new();
    for _ in 0..40 {
        unaccounted.clear();
        let mut stack = vec![app.objects_dir.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                // The S3 server's own bookkeeping sits beside the objects, in hidden files.
                if entry.file_name().to_string_lossy().starts_with('.') {
                    continue;
                }
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let key = path.strip_prefix(&app.objects_dir).unwrap().to_string_lossy().into_owned();
                // A file that is no key the service mints is accounted for by nothing.
                let in_use = match shutterbox_model::ObjectKey::parse(&key) {
                    Ok(object_key) => metadata.object_in_use(&object_key).await.unwrap(),
                    Err(_) => false,
                };
                if !in_use {
                    unaccounted.push(key);
                }
            }
        }
        if unaccounted.is_empty() {
            return;
        }
        // Variants rendered for requests are stored in the background.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("objects no record refers to: {unaccounted:?}");
}

async fn failed_renders(app: &TestApp) -> u64 {
    app.metric_sample("shutterbox_render_duration_seconds_count", &["outcome=\"failed\""]).await as u64
}

/// A node's address, to attack its sockets directly (not through the test's proxy).
fn node_addr(app: &TestApp) -> String {
    app.nodes[0].strip_prefix("http://").unwrap().to_owned()
}

/// Whether the server closed `stream` within `within`: its read ends (or fails) rather than waits.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 512];
    let deadline = Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline.into(), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
            Err(_) => return false,
        }
    }
}

/// Reads what the server answers on `stream` until it closes it or `within` passes.
async fn answer(stream: &mut TcpStream, within: Duration) -> String {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = Instant::now() + within;
    while let Ok(Ok(n)) = tokio::time::timeout_at(deadline.into(), stream.read(&mut buffer)).await {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..n]);
        if bytes.windows(4).any(|w| w == b"\r\n\r\n") && !bytes.starts_with(b"HTTP/1.1 100") {
            break;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[tokio::test]
async fn hostile_clients_hold_nothing_for_long() {
    const IDLE: u64 = 2;
    let (app, idle, bystander, quiet) = under_attack(|config| {
        config.connections.idle_timeout_secs = IDLE;
        config.connections.body_timeout_secs = IDLE;
        config.rate_limit = "100000/60s".parse().unwrap();
    })
    .await;
    let addr = node_addr(&app);

    // 2,000 sockets that send nothing, and one that sends a prefix of HTTP/2's preface: all closed once the
    // idle timeout passes, while the legitimate client is served beside them.
    let mut silent = Vec::new();
    for _ in 0..2_000 {
        silent.push(TcpStream::connect(&addr).await.unwrap());
    }
    let mut preface = TcpStream::connect(&addr).await.unwrap();
    preface.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut preface, Duration::from_secs(IDLE + 3)).await, "an h2 preface prefix was held");
    for (n, socket) in silent.iter_mut().enumerate() {
        let left = Duration::from_secs(IDLE + 5).saturating_sub(started.elapsed());
        assert!(closed_within(socket, left).await, "silent socket {n} still open after {:?}", started.elapsed());
    }
    println!("2,000 silent sockets and an h2 preface prefix closed within {:?}", started.elapsed());
    drop(silent);

    // A 3 GB JSON body: 413 at once from its Content-Length; sent without one by a read key, refused for its
    // scope before a byte of it is read; by a secret key, 413 once the limit has arrived.
    let read_key = app.key_for("default", Scope::Read).await;
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /v1/warm HTTP/1.1\r\nHost: {addr}\r\nApiKey: {read_key}\r\nContent-Type: application/json\r\n\
         Content-Length: 3000000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(b"{\"transformations\":[\"w=1\"],\"fileIds\":[").await.unwrap();
    let started = Instant::now();
    let answered = answer(&mut stream, Duration::from_secs(5)).await;
    assert!(answered.starts_with("HTTP/1.1 413"), "{answered}");
    assert!(started.elapsed() < Duration::from_secs(2), "413 after {:?}", started.elapsed());
    for (key, expected) in [(&read_key, "HTTP/1.1 403"), (&app.key, "HTTP/1.1 413")] {
        let mut stream = TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /v1/warm HTTP/1.1\r\nHost: {addr}\r\nApiKey: {key}\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: chunked\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, " ".repeat(64 * 1024));
        let mut sent = 0usize;
        let mut answered = String::new();
        // Up to 3 GB, a chunk at a time, until the server answers.
        while sent < 3_000_000_000 {
            let mut ready = [0u8; 1];
            if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_millis(1), stream.peek(&mut ready)).await
                && n > 0
            {
                answered = answer(&mut stream, Duration::from_secs(5)).await;
                break;
            }
            if stream.write_all(chunk.as_bytes()).await.is_err() {
                answered = answer(&mut stream, Duration::from_secs(5)).await;
                break;
            }
            sent += chunk.len();
        }
        println!("a chunked JSON body: answered after {sent} bytes: {}", answered.lines().next().unwrap_or(""));
        assert!(answered.starts_with(expected), "{answered}");
        assert!(sent < 16 << 20, "the server read {sent} bytes before answering");
    }

    // 500 resumable uploads whose PATCH sends a little and then nothing: each ends within a few windows,
    // keeping what arrived.
    let mut stalled = Vec::new();
    for n in 0..500 {
        let created = app
            .authed(reqwest::Method::POST, "/uploads/tus", &app.key)
            .header("Tus-Resumable", "1.0.0")
            .header("Upload-Length", "1048576")
            .header("Upload-Metadata", format!("filename {}", base64(&format!("stall-{n}.bin"))))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), StatusCode::CREATED, "{:?}", created.text().await);
        let location = created.headers()["location"].to_str().unwrap().to_owned();
        let path = location.split_once("/v1/").map(|(_, path)| format!("/v1/{path}")).unwrap();
        let mut stream = TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "PATCH {path} HTTP/1.1\r\nHost: {addr}\r\nApiKey: {}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n\
             Content-Type: application/offset+octet-stream\r\nContent-Length: 1048576\r\n\r\n",
            app.key
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&[7u8; 100]).await.unwrap();
        stalled.push((location, stream));
    }
    let started = Instant::now();
    for (location, stream) in &mut stalled {
        let left = Duration::from_secs(3 * IDLE + 5).saturating_sub(started.elapsed());
        let answered = answer(stream, left).await;
        assert!(!answered.is_empty() || closed_within(stream, Duration::ZERO).await, "{location} still held");
    }
    println!("500 stalled PATCHes ended within {:?}", started.elapsed());
    let (location, _) = &stalled[0];
    let head = app.client.head(location).header("ApiKey", &app.key).header("Tus-Resumable", "1.0.0").send().await;
    assert_eq!(head.unwrap().headers()["upload-offset"], "100", "what arrived is kept");

    assert_memory_bounded(&app, &idle, "hostile clients");
    bystander.finish(quiet, "hostile clients").await;
}

fn base64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[tokio::test]
async fn a_connection_past_the_cap_is_answered_503_and_closed() {
    const CAP: usize = 32;
    // The held connections must outlast the test: with an idle timeout as short as the wait below, a busy
    // machine that accepted the last connection 2 s after the first had already closed one, served the
    // last as a normal connection, and the test read nothing.
    let app = TestApp::spawn_processes(|config| {
        config.connections.max_connections = CAP;
        config.connections.idle_timeout_secs = 60;
    })
    .await;
    let addr = node_addr(&app);
    let mut held = Vec::new();
    for _ in 0..CAP {
        held.push(TcpStream::connect(&addr).await.unwrap());
    }
    // Accepted in order (one listen queue), so the next is accepted after the first CAP. But a slot may
    // still be held by the readiness probe's connection, which the server sees closed only later: then one
    // held connection was refused and the next is served as a normal one (it answers nothing, waiting for
    // a request). So connections are added until one is answered; a served one keeps the slot it took.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut answered = String::new();
    for _ in 0..4 {
        let mut past = TcpStream::connect(&addr).await.unwrap();
        answered = answer(&mut past, Duration::from_secs(5)).await;
        if !answered.is_empty() {
            break;
        }
        held.push(past);
    }
    assert!(answered.starts_with("HTTP/1.1 503"), "{answered:?}");
    assert!(answered.contains("Retry-After: 1") && answered.contains("too many open connections"), "{answered}");
    // Once the held connections go, connections are served again.
    drop(held);
    crate::helpers::eventually(10, "a new connection is served", || async {
        app.client.get(format!("{}/healthz", app.nodes[0])).send().await.is_ok_and(|r| r.status().is_success())
    })
    .await;
}

#[tokio::test]
async fn warming_is_bounded_per_account() {
    const OUTSTANDING: u64 = 5_000;
    let app = TestApp::spawn_processes(|config| {
        config.rate_limit = "100000/60s".parse().unwrap();
        config.max_warm_items = OUTSTANDING;
    })
    .await;
    let mut ids = Vec::new();
    for n in 0..10 {
        let file = app.upload(&format!("w{n}.jpg"), "image/jpeg", &noise_jpeg(16)).await;
        ids.push(file["id"].as_str().unwrap().to_owned());
    }
    let transformations: Vec<String> = (1..=50).map(|w| format!("w={w}")).collect();
    // 10 files × 50 transformations: 500 items a batch, so ten fill the account's allowance.
    let (mut accepted, mut refused) = (0, 0);
    let body = json!({"fileIds": ids, "transformations": transformations});
    for _ in 0..30 {
        let response = app.authed(reqwest::Method::POST, "/warm", &app.key).json(&body).send().await.unwrap();
        match response.status() {
            StatusCode::ACCEPTED => accepted += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(response.headers().contains_key("retry-after"));
                let message = assert_error(response, StatusCode::TOO_MANY_REQUESTS).await;
                assert!(message.contains("warming items still queued"), "{message}");
                refused += 1;
            }
            other => panic!("warming answered {other}: {:?}", response.text().await),
        }
    }
    println!("warming flood: {accepted} batches of 500 items accepted, {refused} refused");
    assert!(refused > 0 && accepted < 30, "{accepted} accepted, {refused} refused");
}

/// HEIC is decoded by libheif and libde265, C that parses the upload: in a child process of the service's
/// binary, whose crash refuses the render (400) and leaves the node serving.
#[tokio::test]
async fn a_crash_of_the_heic_decoder_ends_its_child_not_the_node() {
    use shutterbox_pipeline::samples::{SampleKind, sample};
    let heic = sample(SampleKind::HeicAlpha, 64, 48, 3).unwrap();
    // Decoded in a child: the file renders through it as it would in the process.
    let app = TestApp::spawn_processes(|_| {}).await;
    let file = app.upload("photo.heic", "image/heic", &heic).await;
    assert_eq!((file["width"].as_u64(), file["hasAlpha"].as_bool()), (Some(64), Some(true)), "facts from a child");
    let (status, content_type, body) =
        app.fetch(&format!("{}?w=32&format=png", file["secureUrl"].as_str().unwrap())).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/png"));
    assert_eq!(crate::helpers::dimensions(&body), (32, 24));
    drop(app);

    // A child that crashes mid-decode: the render is refused, saying so, and the node keeps serving.
    if crate::helpers::distributed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let node = crate::helpers::ServeProcess::start(
        &dir.path().join("data"),
        crate::helpers::free_port(),
        "crashing",
        &[("FAILPOINTS", "decode-isolated-crash=return")],
    )
    .await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let pending = node.presign_and_put(&client, "photo.heic", "image/heic", &heic).await;
    let confirmed: Value = node.confirm(&client, &pending).await.unwrap().json().await.unwrap();
    let url = confirmed["file"]["secureUrl"].as_str().unwrap().to_owned();
    let message =
        assert_error(client.get(format!("{url}?w=32&format=png")).send().await.unwrap(), StatusCode::BAD_REQUEST).await;
    assert!(message.contains("decoder (libheif) failed on it"), "{message}");
    let healthy = client.get(format!("{}/healthz", node.root)).send().await.unwrap();
    assert!(healthy.status().is_success(), "the node serves on");
    let jpeg = node.presign_and_put(&client, "calm.jpg", "image/jpeg", &noise_jpeg(32)).await;
    assert!(node.confirm(&client, &jpeg).await.unwrap().status().is_success());
}

/// The idle rule closes connections that ask nothing, never one in the middle of a slow download.
/// A render whose request went away stops at its next frame (counted as cancelled, long before it would
/// have finished), and one that needs more CPU time than a render may use is a 400 naming the budget.
#[tokio::test]
async fn an_abandoned_render_stops_and_a_costly_one_meets_its_cpu_budget() {
    let app = TestApp::spawn_processes(|config| config.limits.render_cpu_secs = 2).await;
    // 300 frames of 16×16; at 1100×1100 about 3 s of one core here, at 1200×1200 about 4 s.
    let gif = app.upload("frames.gif", "image/gif", &animated_gif(300)).await;
    let path = gif["secureUrl"].as_str().unwrap().strip_prefix(app.root.as_str()).unwrap().to_owned();
    let cancelled = || app.metric_sample("shutterbox_render_duration_seconds_count", &["outcome=\"cancelled\""]);
    assert_eq!(cancelled().await, 0.0);

    // Asked of a node directly (no proxy between), and given up on after 300 ms.
    let impatient = reqwest::Client::builder().no_proxy().timeout(Duration::from_millis(300)).build().unwrap();
    let url = format!("{}{path}?w=1100&h=1100&fit=contain&format=gif", app.nodes[0]);
    assert!(impatient.get(&url).send().await.unwrap_err().is_timeout());
    let given_up = Instant::now();
    while cancelled().await == 0.0 {
        assert!(given_up.elapsed() < Duration::from_millis(1500), "the abandoned render ran on");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("an abandoned render stopped {:?} after its request went away", given_up.elapsed());

    let costly = format!("{}?w=1200&h=1200&fit=contain&format=gif", gif["secureUrl"].as_str().unwrap());
    refused(&app, &costly, "2 s of CPU time").await;
}

/// Cold renders asked from 500 addresses of one IPv6 /64 (as a forwarding proxy names them) draw on one
/// budget: past it they are 429s, while an address of another /64 is still served.
#[tokio::test]
async fn an_ipv6_spray_within_one_64_shares_one_cold_render_budget() {
    const BUDGET: u32 = 20;
    let app = TestApp::spawn_processes(|config| {
        config.cold_render_limit = Some(format!("{BUDGET}/600s").parse().unwrap());
        config.client_address_header = Some(reqwest::header::HeaderName::from_static("x-forwarded-for"));
    })
    .await;
    let file = app.upload("spray.jpg", "image/jpeg", &noise_jpeg(64)).await;
    let path = file["secureUrl"].as_str().unwrap().strip_prefix(app.root.as_str()).unwrap().to_owned();
    let (mut served, mut throttled) = (0u32, 0u32);
    for n in 1..=500u32 {
        let from = format!("2001:db8:7:9:{:x}:{:x}::{:x}", n * 7919 % 65536, n, n * 31 % 65536);
        // A new variant each: w and q together are distinct for every n.
        let url = format!("{}{path}?w={}&q={}", app.nodes[0], n % 64 + 1, n / 64 + 1);
        let response = app.client.get(&url).header("x-forwarded-for", &from).send().await.unwrap();
        match response.status() {
            StatusCode::OK => served += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(response.headers().contains_key("retry-after"));
                throttled += 1;
            }
            other => panic!("{from}: {other}"),
        }
    }
    println!("an IPv6 /64 spray of 500 addresses: {served} cold renders served, {throttled} refused");
    assert!(served <= BUDGET, "{served} cold renders served to one /64");
    assert_eq!(served + throttled, 500);
    let elsewhere = format!("{}{path}?w=33&q=90", app.nodes[0]);
    let response = app.client.get(&elsewhere).header("x-forwarded-for", "2001:db8:7:a::1").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "another /64 has a budget of its own");
}

#[tokio::test]
async fn a_slow_download_outlasts_the_idle_timeout() {
    let app = TestApp::spawn_processes(|config| config.connections.idle_timeout_secs = 1).await;
    let bytes: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    let file = app.upload("big.bin", "application/octet-stream", &bytes).await;
    let raw = file["rawUrl"].as_str().unwrap().split_once("/v1/").unwrap().1.to_owned();
    let mut stream = TcpStream::connect(node_addr(&app)).await.unwrap();
    let request = format!("GET /v1/{raw} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    // Read 256 KiB every 100 ms: the body takes over 3 s, three idle timeouts.
    let (mut got, mut buffer, started) = (Vec::new(), vec![0u8; 256 << 10], Instant::now());
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let n = stream.read(&mut buffer).await.unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buffer[..n]);
    }
    let body = got.windows(4).position(|w| w == b"\r\n\r\n").map(|at| &got[at + 4..]).unwrap();
    assert!(started.elapsed() > Duration::from_secs(2), "{:?}", started.elapsed());
    assert!(body == bytes.as_slice(), "{} of {} bytes", body.len(), bytes.len());
}
