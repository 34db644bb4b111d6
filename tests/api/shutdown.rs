//! SIGTERM while requests are in flight: the real binary (embedded) stops accepting, lets the requests it
//! holds finish with their full answers, and exits cleanly well within 30 s.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{self, ServeProcess};

#[tokio::test]
async fn sigterm_lets_in_flight_requests_finish_then_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServeProcess::start(
        &dir.path().join("data"),
        helpers::free_port(),
        "serve",
        &[("SHUTTERBOX_RENDER_QUEUE", "16")],
    )
    .await;
    let root = server.root.clone();
    let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(60)).build().unwrap();
    // A noise JPEG large enough that an AVIF render of it is still running when the signal arrives.
    let pending = server.presign_and_put(&client, "heavy.jpg", "image/jpeg", &helpers::noise_jpeg(1600)).await;
    let confirmed: Value = server.confirm(&client, &pending).await.unwrap().json().await.unwrap();
    let url = confirmed["file"]["secureUrl"].as_str().unwrap().to_owned();

    // Four cold renders at once; the signal arrives while they run.
    let requests: Vec<_> = (0..4)
        .map(|i| {
            let (client, url) = (client.clone(), format!("{url}?w={}&format=avif&q=90", 700 + i));
            tokio::spawn(async move { client.get(url).send().await })
        })
        .collect();
    for _ in 0..200 {
        let metrics = client.get(format!("{root}/metrics")).send().await.unwrap().text().await.unwrap();
        if metrics.lines().any(|l| l.starts_with("shutterbox_renders_in_flight ") && !l.ends_with(" 0")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let signalled = std::time::Instant::now();
    let waiter = std::thread::spawn(move || helpers::terminate(&mut server.child, Duration::from_secs(60)));

    for response in join_all(requests).await {
        let response = response.unwrap().expect("an in-flight request is answered, not cut off");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "image/avif");
        let body = response.bytes().await.expect("the whole body arrives");
        assert_eq!(&body[4..8], b"ftyp");
    }
    let (status, took) = waiter.join().unwrap();
    assert!(status.success(), "a clean exit: {status:?}");
    assert!(took < Duration::from_secs(30), "exit within 30 s of SIGTERM (took {took:?})");
    assert!(signalled.elapsed() < Duration::from_secs(30));
    assert!(client.get(format!("{root}/healthz")).send().await.is_err(), "nothing listens any more");
}
