//! The distributed deployment's own guarantees, always against PostgreSQL + Redis + S3 with two API nodes
//! and a worker process (whatever `SHUTTERBOX_TEST_DEPLOYMENT` says): a worker killed mid-job has its job
//! finished by another, a job that keeps failing is dead-lettered, a duplicate job renders once, the rate
//! limit is counted across nodes, a deletion and a focal point reach every node, and a confirm succeeds
//! while Redis is down.

use std::{
    process::{Command, Stdio},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{PNG, TestApp, assert_error, eventually, noise_jpeg, subject_png};

async fn pending_jobs(app: &TestApp) -> i64 {
    let mut redis = app.redis().await;
    let summary: redis::Value =
        redis::cmd("XPENDING").arg(app.redis_key("jobs")).arg("workers").query_async(&mut redis).await.unwrap();
    match summary {
        redis::Value::Array(fields) => match fields.first() {
            Some(redis::Value::Int(n)) => *n,
            other => panic!("XPENDING summary starts with {other:?}"),
        },
        other => panic!("XPENDING answered {other:?}"),
    }
}

/// Uploads a heavy JPEG, asks for its AVIF variant, and waits until the worker holds that render job;
/// returns the variant's URL.
async fn render_job_in_hand(app: &TestApp) -> String {
    // 2400×2400 noise: encoding it as AVIF takes a worker seconds, long enough to stop it meanwhile.
    let file = app.upload("heavy.jpg", "image/jpeg", &noise_jpeg(2400)).await;
    let id = file["id"].as_str().unwrap().to_owned();
    app.wait_for_jobs(2).await; // the thumbnail and the description
    let response = app
        .authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key)
        .json(&json!({"format": "avif", "q": 90}))
        .send()
        .await
        .unwrap();
    let url = response.json::<Value>().await.unwrap()["url"].as_str().unwrap().to_owned();
    eventually(20, "the worker takes the render job", || async { pending_jobs(app).await == 1 }).await;
    url
}

#[tokio::test]
async fn a_worker_killed_mid_job_has_its_job_finished_by_another() {
    let mut app = TestApp::spawn_cluster(|c| c.backend.job_timeout_secs = 1).await;
    let url = render_job_in_hand(&app).await;
    app.kill_worker();
    assert_eq!(pending_jobs(&app).await, 1, "the job is still held by the dead worker");

    app.start_worker("worker-2").await;
    eventually(120, "the second worker finishes the job", || async {
        app.job_metric("shutterbox_jobs_total{outcome=\"done\"}").await >= 1
    })
    .await;
    // With a 1 s claim timeout, a heartbeat late on a loaded machine lets the worker's other loop claim the
    // job too (it renders once and acknowledges both): wait for that one as well.
    eventually(60, "no job is left pending", || async { pending_jobs(&app).await == 0 }).await;
    let mut redis = app.redis().await;
    let dead: i64 = redis::cmd("XLEN").arg(app.redis_key("jobs:dead")).query_async(&mut redis).await.unwrap();
    assert_eq!(dead, 0, "nothing was dead-lettered");

    // The variant was kept: the request reads it from the store instead of rendering.
    let renders = app.metric("shutterbox_renders_total").await;
    let (status, content_type, _) = app.fetch(&url).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/avif"));
    assert_eq!(app.metric("shutterbox_renders_total").await, renders);
}

#[tokio::test]
async fn a_worker_stopped_with_sigterm_finishes_its_job_and_exits() {
    // A drain of 1 s, shorter than that AVIF encode (seconds, in a debug build): the worker hands it back.
    let mut app = TestApp::spawn_cluster(|c| c.backend.job_drain_secs = 1).await;
    let url = render_job_in_hand(&app).await;

    let (status, took) = app.terminate_worker();
    assert!(status.success(), "the worker exits cleanly: {status:?}");
    assert!(took < Duration::from_secs(30), "the worker exits within 30 s of SIGTERM (took {took:?})");

    // Nothing is lost: the next worker takes the job at once and finishes it, without a failed attempt.
    app.start_worker("worker-2").await;
    eventually(120, "the second worker finishes the job", || async {
        app.job_metric("shutterbox_jobs_total{outcome=\"done\"}").await >= 1
    })
    .await;
    assert_eq!(pending_jobs(&app).await, 0);
    assert_eq!(app.job_metric("shutterbox_jobs_total{outcome=\"retried\"}").await, 0);
    let renders = app.metric("shutterbox_renders_total").await;
    let (status, content_type, _) = app.fetch(&url).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/avif"));
    assert_eq!(app.metric("shutterbox_renders_total").await, renders);
}

#[tokio::test]
async fn a_job_failing_every_attempt_is_dead_lettered() {
    let app = TestApp::spawn_cluster(|c| c.backend.job_retry_base_ms = 20).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    app.wait_for_jobs(2).await;
    // The original vanishes behind the service's back: rendering fails each time it is tried.
    std::fs::remove_file(app.objects_dir.join("files").join(id).join("original")).unwrap();
    let response =
        app.authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key).json(&json!({"w": 4})).send().await;
    assert_eq!(response.unwrap().status(), StatusCode::OK);

    let mut redis = app.redis().await;
    let dead_key = app.redis_key("jobs:dead");
    eventually(20, "the job reaches the dead-letter stream", || {
        let (mut redis, dead_key) = (redis.clone(), dead_key.clone());
        async move { redis::cmd("XLEN").arg(&dead_key).query_async::<i64>(&mut redis).await.unwrap() == 1 }
    })
    .await;
    let entries: redis::Value =
        redis::cmd("XRANGE").arg(&dead_key).arg("-").arg("+").query_async(&mut redis).await.unwrap();
    let text = format!("{entries:?}");
    assert!(text.contains(id) && text.contains("w=4"), "{text}");
    assert_eq!(app.job_metric("shutterbox_jobs_total{outcome=\"retried\"}").await, 5, "five attempts failed");
    assert_eq!(pending_jobs(&app).await, 0);
}

#[tokio::test]
async fn a_duplicate_job_renders_once() {
    let app = TestApp::spawn_cluster(|_| {}).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let id = file["id"].as_str().unwrap();
    app.wait_for_jobs(2).await;
    assert_eq!(app.job_metric("shutterbox_job_renders_total").await, 1, "the thumbnail");

    // The same job delivered twice at once, as an at-least-once queue may (bypassing enqueue's dedupe). It
    // is written into the stream as the versions before the typed jobs wrote it (`job` = this JSON beside
    // `attempt`), so this also shows a job queued before an upgrade run by the new worker process.
    let job = json!({"kind": "render_variant", "file_id": id, "query": "w=5", "target": "source"}).to_string();
    let mut redis = app.redis().await;
    for _ in 0..2 {
        let _: String = redis::cmd("XADD")
            .arg(app.redis_key("jobs"))
            .arg("*")
            .arg("job")
            .arg(&job)
            .arg("attempt")
            .arg(1)
            .query_async(&mut redis)
            .await
            .unwrap();
    }
    // And the same variant asked for twice through the API.
    for _ in 0..2 {
        let response =
            app.authed(Method::POST, &format!("/file/{id}/transform-url"), &app.key).json(&json!({"w": 6})).send();
        assert_eq!(response.await.unwrap().status(), StatusCode::OK);
    }
    eventually(20, "the jobs are done", || async { pending_jobs(&app).await == 0 && queue_len(&app).await == 0 }).await;
    assert_eq!(app.job_metric("shutterbox_job_renders_total").await, 3, "thumbnail, w=5 and w=6, each once");
}

async fn queue_len(app: &TestApp) -> i64 {
    let mut redis = app.redis().await;
    redis::cmd("XLEN").arg(app.redis_key("jobs")).query_async(&mut redis).await.unwrap()
}

#[tokio::test]
async fn the_rate_limit_is_counted_across_nodes() {
    // Far enough from a window's end that all requests fall in one window.
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    if now % 60 > 50 {
        tokio::time::sleep(Duration::from_secs(61 - now % 60)).await;
    }
    let app = TestApp::spawn_cluster(|c| c.rate_limit = "4/60s".parse().unwrap()).await;
    let request = |node: &str| {
        app.client.get(format!("{node}/v1/files")).header("Authorization", format!("ApiKey {}", app.key)).send()
    };
    let (a, b) = (&app.nodes[0], &app.nodes[1]);
    for (node, remaining) in [(a, "3"), (b, "2"), (a, "1"), (b, "0")] {
        let response = request(node).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["x-ratelimit-remaining"], remaining, "one count for both nodes");
    }
    for node in [a, b] {
        let refused = request(node).await.unwrap();
        assert!(refused.headers().contains_key("retry-after"));
        assert_error(refused, StatusCode::TOO_MANY_REQUESTS).await;
    }
}

#[tokio::test]
async fn a_deletion_reaches_every_node() {
    let app = TestApp::spawn_cluster(|_| {}).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    let path = file["secureUrl"].as_str().unwrap().strip_prefix(&app.root).unwrap().to_owned();
    let variant = |node: &str| format!("{node}{path}?w=4");
    for node in &app.nodes {
        // Twice: the second answer comes from the node's memory.
        for _ in 0..2 {
            assert_eq!(app.fetch(&variant(node)).await.0, StatusCode::OK);
        }
    }
    let id = file["id"].as_str().unwrap();
    let deleted = app
        .client
        .delete(format!("{}/v1/files/{id}", app.nodes[0]))
        .header("Authorization", format!("ApiKey {}", app.key))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    // Once the DELETE has answered, no node serves the file: the other node has forgotten it already.
    assert_eq!(app.fetch(&variant(&app.nodes[1])).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.fetch(&variant(&app.nodes[0])).await.0, StatusCode::NOT_FOUND);
}

/// A focal point set through one node steers `gravity=focus` on every node once the PATCH has answered,
/// though each remembered the file and its crop before.
#[tokio::test]
async fn a_focal_point_reaches_every_node() {
    let app = TestApp::spawn_cluster(|_| {}).await;
    let file = app.upload("subject.png", "image/png", &subject_png()).await;
    let path = file["secureUrl"].as_str().unwrap().strip_prefix(&app.root).unwrap().to_owned();
    let url = |node: &str, gravity: &str| format!("{node}{path}?w=120&h=120&gravity={gravity}");
    let (_, _, on_the_left) = app.fetch(&url(&app.nodes[0], "fp:0.1,0.5")).await;
    let mut before = Vec::new();
    for node in &app.nodes {
        for _ in 0..2 {
            let (status, _, body) = app.fetch(&url(node, "focus")).await;
            assert_eq!(status, StatusCode::OK);
            before.push(body);
        }
    }
    assert!(before.iter().all(|body| *body != on_the_left), "attention's crop is not the left one");
    let id = file["id"].as_str().unwrap();
    let patched = app
        .client
        .patch(format!("{}/v1/files/{id}", app.nodes[0]))
        .header("Authorization", format!("ApiKey {}", app.key))
        .json(&json!({"focus": {"x": 0.1, "y": 0.5}}))
        .send()
        .await
        .unwrap();
    assert_eq!(patched.status(), StatusCode::OK);
    for node in app.nodes.iter().rev() {
        let (status, _, body) = app.fetch(&url(node, "focus")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body == on_the_left, "{node} serves the crop on the new point");
    }
}

/// A Redis server of this test alone, so the test can stop it.
struct PrivateRedis {
    child: std::process::Child,
    url: String,
}

impl PrivateRedis {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (installed with Redis) starts");
        // Owned from here on, so a failed start is still killed and reaped (Drop).
        let redis = Self { child, url: format!("redis://127.0.0.1:{port}") };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return redis;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the private redis-server did not start");
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[tokio::test]
async fn a_confirm_succeeds_while_redis_is_down() {
    let mut redis = PrivateRedis::start();
    let url = redis.url.clone();
    let app = TestApp::spawn_cluster(move |c| c.backend.redis_url = Some(url)).await;
    let presign = app
        .presign(&app.key, json!({"filename": "cat.png", "mimetype": "image/png", "size": PNG.len()}))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let put = app.put_bytes(presign["uploadUrl"].as_str().unwrap(), "image/png", PNG.to_vec()).await;
    assert_eq!(put.status(), StatusCode::OK);

    redis.stop();
    let confirmed = app.confirm(&app.key, presign["pendingUploadId"].as_str().unwrap()).await;
    assert_eq!(confirmed.status(), StatusCode::OK, "the thumbnail job could not be queued, the file is kept");
    let file = confirmed.json::<Value>().await.unwrap()["file"].clone();
    // The thumbnail is rendered on its first request instead.
    let (status, content_type, _) = app.fetch(file["secureThumbnailUrl"].as_str().unwrap()).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "image/webp"));
    // Warming needs the queue: with nothing queued it answers 503, and the batch counts its items failed.
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["w=4"]})).send();
    assert_error(warm.await.unwrap(), StatusCode::SERVICE_UNAVAILABLE).await;
    let ready = app.client.get(format!("{}/readyz", app.nodes[0])).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = ready.json().await.unwrap();
    assert_ne!(body["checks"]["queue"], "ok", "{body}");
}

/// Several workers per host is how renders scale: started alike, with no address of their own, every one
/// comes up with its probes on an address of its own, and together they run the jobs.
#[tokio::test]
async fn workers_started_alike_run_side_by_side_on_one_host() {
    let mut app = TestApp::spawn_cluster(|_| {}).await;
    let mut roots = vec![app.worker.clone().expect("the cluster's worker")];
    for name in ["worker-2", "worker-3"] {
        roots.push(app.start_worker_listening(name, None).await);
    }
    let distinct: std::collections::HashSet<_> = roots.iter().collect();
    assert_eq!(distinct.len(), roots.len(), "each worker serves its probes on its own address: {roots:?}");

    for i in 0..6 {
        app.upload(&format!("side-{i}.png"), "image/png", PNG).await;
    }
    eventually(60, "the three workers finish the twelve jobs (a thumbnail and a description each)", || async {
        let mut done = 0;
        for root in &roots {
            done += app.metric_of(root, "shutterbox_jobs_total{outcome=\"done\"}").await;
        }
        done >= 12
    })
    .await;
}

/// SHUTTERBOX_WORKER_LISTEN fixes the probe address; when another process holds it, the worker still starts
/// and works, with its probes on a free port of the same interface, and its log says where.
#[tokio::test]
async fn a_worker_whose_probe_address_is_taken_serves_them_on_a_free_port() {
    let mut app = TestApp::spawn_cluster(|_| {}).await;
    app.kill_worker();
    let holder = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let taken = holder.local_addr().expect("its address").to_string();

    let moved = app.start_worker_listening("worker-moved", Some(&taken)).await;
    assert_ne!(moved, format!("http://{taken}"));
    assert!(moved.starts_with("http://127.0.0.1:"), "the same interface: {moved}");
    let log = app.log("worker-moved");
    assert!(log.contains(&format!("{taken} (SHUTTERBOX_WORKER_LISTEN) is in use")), "{log}");
    app.upload("moved.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;

    // Once the address is free, the configured address is the one used.
    app.kill_worker();
    drop(holder);
    let fixed = app.start_worker_listening("worker-fixed", Some(&taken)).await;
    assert_eq!(fixed, format!("http://{taken}"));
}
