//! What an operator sees: request ids on every response, `/metrics` by route and status with latencies,
//! render times by format, and admission control on synchronous renders (503 + Retry-After when full).

use std::io::Cursor;

use futures_util::future::join_all;
use reqwest::StatusCode;

use crate::helpers::{self, PNG, ServeProcess, TestApp};

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let app = TestApp::spawn().await;
    let mut seen = Vec::new();
    for path in ["/healthz", "/v1/files", "/v1/nowhere", "/v1/file/none/such.jpg"] {
        let response = app.client.get(format!("{}{path}", app.root)).send().await.unwrap();
        let id = response.headers().get("x-request-id").unwrap_or_else(|| panic!("{path}: no X-Request-Id"));
        let id = id.to_str().unwrap().to_owned();
        assert!(id.len() >= 16 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{path}: {id}");
        seen.push(id);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4, "ids are unique");

    // A caller's own id is echoed when it is plain; anything else is replaced, never reflected.
    let echoed = app.client.get(format!("{}/healthz", app.root)).header("X-Request-Id", "trace-42.a_b").send().await;
    assert_eq!(echoed.unwrap().headers()["x-request-id"], "trace-42.a_b");
    let forged = app
        .client
        .get(format!("{}/healthz", app.root))
        .header("X-Request-Id", "x\" injected=\"1")
        .send()
        .await
        .unwrap();
    let id = forged.headers()["x-request-id"].to_str().unwrap();
    assert!(!id.contains('"') && !id.contains(' '), "{id}");
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_status_and_renders_by_format() {
    let app = TestApp::spawn().await;
    let file = app.upload("metered.png", "image/png", PNG).await;
    let listed = app.authed(reqwest::Method::GET, "/files", &app.key).send().await.unwrap();
    assert_eq!(listed.status(), StatusCode::OK);
    let unauthorized = app.client.get(format!("{}/files", app.base)).send().await.unwrap();
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let (status, _, _) = app.fetch(&format!("{}?w=31&format=webp", file["secureUrl"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
    for _ in 0..3 {
        app.client.get(format!("{}/wp-admin/{}", app.root, uuid::Uuid::new_v4())).send().await.unwrap();
    }
    // The routes beside the OpenAPI operations, each labelled with its operation id from the route table.
    for url in [file["secureThumbnailUrl"].as_str().unwrap(), file["rawUrl"].as_str().unwrap()] {
        assert_eq!(app.fetch(url).await.0, StatusCode::OK, "{url}");
    }
    app.client.get(format!("{}/healthz", app.root)).send().await.unwrap();
    let refused = app.client.post(file["rawUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);

    let count = "shutterbox_http_requests_total";
    assert!(app.metric_sample(count, &["route=\"listFiles\"", "method=\"GET\"", "status=\"200\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"listFiles\"", "status=\"401\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"confirmUpload\"", "method=\"POST\"", "status=\"200\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"deliverFile\"", "status=\"200\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"getThumbnail\"", "method=\"GET\"", "status=\"200\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"deliverRaw\"", "method=\"GET\"", "status=\"200\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"deliverRaw\"", "method=\"POST\"", "status=\"405\""]).await >= 1.0);
    assert!(app.metric_sample(count, &["route=\"healthz\"", "status=\"200\""]).await >= 1.0);
    // Unknown paths share one label, so scanners cannot grow the series without bound.
    assert!(app.metric_sample(count, &["route=\"other\"", "status=\"404\""]).await >= 3.0);
    let latency = "shutterbox_http_request_duration_seconds_count";
    assert!(app.metric_sample(latency, &["route=\"deliverFile\"", "status=\"200\""]).await >= 1.0);
    let renders = "shutterbox_render_duration_seconds_count";
    assert!(app.metric_sample(renders, &["format=\"webp\"", "outcome=\"ok\""]).await >= 1.0);
    for gauge in ["shutterbox_queue_depth", "shutterbox_renders_in_flight", "shutterbox_variant_cache_hits_total"] {
        let text = app.client.get(format!("{}/metrics", app.nodes[0])).send().await.unwrap().text().await.unwrap();
        assert!(text.contains(&format!("# TYPE {gauge} ")), "{gauge} missing");
    }
}

/// A JPEG big enough that rendering it takes a while.
fn large_jpeg() -> Vec<u8> {
    let image = image::RgbImage::from_fn(2400, 1800, |x, y| {
        image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x ^ y) % 239) as u8])
    });
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_full_render_queue_answers_503_with_retry_after() {
    let app = TestApp::spawn_with(|c| {
        c.render_concurrency = 1;
        c.render_queue = 0;
    })
    .await;
    let file = app.upload("busy.jpg", "image/jpeg", &large_jpeg()).await;
    let url = file["secureUrl"].as_str().unwrap().to_owned();
    // Distinct cold variants at once: one renders per node, the others find no room.
    let requests = (0..8).map(|i| app.client.get(format!("{url}?w={}&format=avif", 600 + i)).send());
    let responses = join_all(requests).await;
    let mut refused = 0;
    for response in responses {
        let response = response.unwrap();
        match response.status() {
            StatusCode::OK => {}
            StatusCode::SERVICE_UNAVAILABLE => {
                refused += 1;
                assert_eq!(response.headers()["retry-after"], "1");
                let body: serde_json::Value = response.json().await.unwrap();
                assert_eq!(body["status"], 503);
                assert_eq!(body["headers"]["retry-after"], "1");
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert!(refused >= 1, "eight renders at once with room for one per node");
    assert!(app.metric_sample("shutterbox_renders_rejected_total", &[]).await >= refused as f64);
    // Once the burst is over the same variants render.
    let (status, _, _) = app.fetch(&format!("{url}?w=601&format=avif")).await;
    assert_eq!(status, StatusCode::OK);
}

/// The real binary at its most verbose: API keys (valid, invalid, in either header) and upload signatures
/// never reach its log.
#[tokio::test]
async fn keys_and_signatures_never_reach_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("SHUTTERBOX_LOG", "trace,hyper=info,h2=info,sqlx=info")];
    let server = ServeProcess::start(&dir.path().join("data"), helpers::free_port(), "serve", &env).await;
    let key = server.key.clone().expect("bootstrap key");
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let forged = format!("sbx_{}", "f".repeat(64));
    for (header, value) in [
        ("Authorization", format!("ApiKey {key}")),
        ("ApiKey", key.clone()),
        ("Authorization", format!("ApiKey {forged}")),
        ("ApiKey", forged.clone()),
    ] {
        client.get(format!("{}/v1/files", server.root)).header(header, value).send().await.unwrap();
    }
    let presign = server.presign_and_put(&client, "a.png", "image/png", PNG).await;
    let upload_url = presign["uploadUrl"].as_str().unwrap();
    let signature = upload_url.rsplit_once("signature=").map(|(_, s)| s).unwrap();

    let log = server.stderr();
    assert!(log.contains("request"), "the access log is on at this level: {log}");
    for secret in [&key[..], &key[4..], &forged[..], signature] {
        assert!(!log.contains(secret), "a secret reached the log");
    }
}

/// With `SHUTTERBOX_LOG_FORMAT=json` each log line is a JSON object, and a request's line carries its id.
#[tokio::test]
async fn json_logs_carry_the_request_id() {
    let dir = tempfile::tempdir().unwrap();
    let env = [("SHUTTERBOX_LOG_FORMAT", "json"), ("SHUTTERBOX_LOG", "info,shutterbox::access=debug")];
    let server = ServeProcess::start(&dir.path().join("data"), helpers::free_port(), "serve", &env).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let response =
        client.get(format!("{}/v1/files", server.root)).header("X-Request-Id", "trace-7f3a").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let mut found = None;
    for _ in 0..50 {
        let log = server.stderr();
        found = log.lines().find(|l| l.contains("trace-7f3a")).map(str::to_owned);
        if found.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let line = found.expect("a log line with the request id");
    let entry: serde_json::Value = serde_json::from_str(&line).expect("a JSON log line");
    assert_eq!(entry["span"]["id"], "trace-7f3a", "{entry}");
    assert_eq!(entry["fields"]["status"], 401, "{entry}");
    assert_eq!(entry["fields"]["route"], "listFiles", "{entry}");
    for line in server.stderr().lines().filter(|l| !l.is_empty()) {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    }
}
