//! Per-key rate limits: the `X-RateLimit-*` headers on every management response, 429 with `Retry-After`
//! once the window's budget is spent, and separate budgets per key.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use shutterbox_model::Scope;

use crate::helpers::{TestApp, assert_error};

fn header(response: &reqwest::Response, name: &str) -> u64 {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("{name} missing"))
        .to_str()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a number"))
}

#[tokio::test]
async fn every_management_response_reports_the_limit() {
    let app = TestApp::spawn().await;
    let response = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
    assert_eq!(header(&response, "x-ratelimit-limit"), 1200);
    assert_eq!(header(&response, "x-ratelimit-remaining"), 1199);
    let reset = header(&response, "x-ratelimit-reset");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(reset > now && reset <= now + 60, "reset {reset} is epoch seconds within the window (now {now})");

    // Errors carry them too, in the headers and in the body's `headers`.
    let response = app.authed(Method::GET, "/files?pageSize=0", &app.key).send().await.unwrap();
    assert_eq!(header(&response, "x-ratelimit-remaining"), 1198);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["headers"]["x-ratelimit-limit"], "1200");
    assert_eq!(body["headers"]["x-ratelimit-remaining"], "1198");
}

#[tokio::test]
async fn spending_the_budget_gives_429_with_retry_after() {
    let app = TestApp::spawn_with(|c| c.rate_limit = "3/60s".parse().unwrap()).await;
    for remaining in [2, 1, 0] {
        let response = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "x-ratelimit-remaining"), remaining);
    }
    let limited = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
    let retry_after = header(&limited, "retry-after");
    assert!((1..=60).contains(&retry_after), "retry-after {retry_after}");
    assert_eq!(header(&limited, "x-ratelimit-remaining"), 0);
    let reset = header(&limited, "x-ratelimit-reset").to_string();
    let message = assert_error(limited, StatusCode::TOO_MANY_REQUESTS).await;
    assert!(message.contains("rate limit"), "{message}");

    let limited = app.authed(Method::GET, "/files", &app.key).send().await.unwrap();
    let body: Value = limited.json().await.unwrap();
    assert_eq!(body["headers"]["retry-after"].as_str().unwrap().parse::<u64>().unwrap(), retry_after);
    assert_eq!(body["headers"]["x-ratelimit-reset"], reset.as_str());

    // Another key has its own budget; public delivery is not limited by it.
    let other = app.key_for("default", Scope::Read).await;
    assert_eq!(app.authed(Method::GET, "/files", &other).send().await.unwrap().status(), StatusCode::OK);
    let health = app.client.get(format!("{}/healthz", app.root)).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    assert!(health.headers().get("x-ratelimit-limit").is_none());
}

#[tokio::test]
async fn guessing_keys_is_rate_limited_too() {
    let app = TestApp::spawn_with(|c| c.rate_limit = "2/60s".parse().unwrap()).await;
    for _ in 0..2 {
        let response = app.authed(Method::GET, "/files", "sbx_guess").send().await.unwrap();
        assert!(response.headers().contains_key("x-ratelimit-limit"));
        assert_error(response, StatusCode::UNAUTHORIZED).await;
    }
    let response = app.authed(Method::GET, "/files", "sbx_guess").send().await.unwrap();
    assert_error(response, StatusCode::TOO_MANY_REQUESTS).await;
    // A valid key is counted on its own budget, not the address's.
    assert_eq!(app.authed(Method::GET, "/files", &app.key).send().await.unwrap().status(), StatusCode::OK);
}
