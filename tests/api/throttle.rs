//! The opt-in cold-render throttle (`SHUTTERBOX_COLD_RENDER_LIMIT`): a client address may cause so many
//! renders per window, then a delivery that would render is 429 with `Retry-After`; cached and stored
//! variants, originals and thumbnails are always served. In the distributed deployment the two API nodes
//! draw on one budget per address (Redis): requests alternate between them, so a per-node count would let
//! the refused request through. Behind a proxy the operator names the header to read, and only then.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_api::RateLimitSpec;

use crate::helpers::{PNG, TestApp, assert_error, eventually, file_id, shutterbox};

/// A window far longer than the test, so it never resets midway.
const DAY: u64 = 86_400;

async fn spawn(renders: u64, header: Option<&'static str>) -> (TestApp, Value) {
    let app = TestApp::spawn_with(|config| {
        config.cold_render_limit = Some(RateLimitSpec { requests: renders, window_secs: DAY });
        config.client_address_header = header.map(|name| name.parse().unwrap());
    })
    .await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    (app, file)
}

/// GET `url` as the client `forwarded_for` says (the header sent only when given).
async fn get_as(app: &TestApp, url: &str, forwarded_for: Option<&str>) -> reqwest::Response {
    let mut request = app.client.get(url);
    if let Some(address) = forwarded_for {
        request = request.header("x-forwarded-for", address);
    }
    request.send().await.unwrap()
}

async fn assert_throttled(response: reqwest::Response) {
    let retry_after: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=DAY).contains(&retry_after), "Retry-After {retry_after}");
    let message = assert_error(response, StatusCode::TOO_MANY_REQUESTS).await;
    assert!(message.contains("too many new variants"), "{message}");
}

#[tokio::test]
async fn renders_beyond_an_addresss_budget_are_429_and_what_exists_is_always_served() {
    let (app, file) = spawn(3, None).await;
    let url = file["secureUrl"].as_str().unwrap();
    for w in 1..=3 {
        assert_eq!(get_as(&app, &format!("{url}?w={w}"), None).await.status(), StatusCode::OK, "w={w}");
    }
    assert_throttled(get_as(&app, &format!("{url}?w=4"), None).await).await;
    // Without a header named, what a client says of its address changes nothing.
    assert_throttled(get_as(&app, &format!("{url}?w=4"), Some("203.0.113.9")).await).await;

    // What needs no render of this client's: variants in memory or stored (on either node), the
    // original, the thumbnail, and a variant a job rendered.
    let stored = || app.stored_objects(&file_id(&file)).iter().filter(|path| path.contains("/v/")).count();
    // Stored means recorded too: the object is written before its record.
    eventually(10, "the thumbnail and three variants stored", || async {
        stored() == 4 && app.metric("shutterbox_variants_storing").await == 0
    })
    .await;
    for w in 1..=3 {
        let again = format!("{url}?w={w}&utm={w}");
        for _ in 0..app.nodes.len() {
            assert_eq!(get_as(&app, &again, None).await.status(), StatusCode::OK, "{again}");
        }
    }
    assert_eq!(get_as(&app, url, None).await.status(), StatusCode::OK);
    assert_eq!(get_as(&app, file["secureThumbnailUrl"].as_str().unwrap(), None).await.status(), StatusCode::OK);
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["w=5"]}));
    assert_eq!(warm.send().await.unwrap().status(), StatusCode::ACCEPTED);
    app.wait_for_jobs(3).await;
    for _ in 0..app.nodes.len() {
        assert_eq!(get_as(&app, &format!("{url}?w=5"), None).await.status(), StatusCode::OK);
    }
    assert_eq!(app.metric("shutterbox_renders_throttled_total").await, 2);
    assert_eq!(app.metric("shutterbox_renders_total").await, 3, "the refused requests rendered nothing");
}

#[tokio::test]
async fn behind_a_named_proxy_header_each_client_address_has_its_own_budget() {
    let (app, file) = spawn(1, Some("x-forwarded-for")).await;
    let url = file["secureUrl"].as_str().unwrap();
    let variant = |w: u32| format!("{url}?w={w}");

    assert_eq!(get_as(&app, &variant(1), Some("203.0.113.1")).await.status(), StatusCode::OK);
    assert_throttled(get_as(&app, &variant(2), Some("203.0.113.1")).await).await;
    assert_eq!(get_as(&app, &variant(2), Some("203.0.113.2")).await.status(), StatusCode::OK);
    // The proxy appends what it saw: entries a client wrote before it are not its address.
    assert_throttled(get_as(&app, &variant(3), Some("198.51.100.7, 203.0.113.2")).await).await;
    // An IPv6 client counts by its /64: a second address inside it shares the budget.
    assert_eq!(get_as(&app, &variant(3), Some("2001:db8:1:2::1")).await.status(), StatusCode::OK);
    assert_throttled(get_as(&app, &variant(4), Some("[2001:db8:1:2:ffff::9]:4711")).await).await;
    // A request that did not come through the proxy counts by its peer; an entry that is no address too.
    assert_eq!(get_as(&app, &variant(4), None).await.status(), StatusCode::OK);
    assert_throttled(get_as(&app, &variant(5), Some("unknown")).await).await;
}

#[tokio::test]
async fn bad_throttle_settings_stop_the_start_naming_them() {
    for (name, value, named) in [
        ("SHUTTERBOX_COLD_RENDER_LIMIT", "0/60s", "--cold-render-limit"),
        ("SHUTTERBOX_COLD_RENDER_LIMIT", "60 per minute", "--cold-render-limit"),
        ("SHUTTERBOX_CLIENT_ADDRESS_HEADER", "x forwarded for", "--client-address-header"),
        ("SHUTTERBOX_PROXY_HOPS", "0", "--proxy-hops"),
    ] {
        let (started, _, stderr) = shutterbox(&["serve"], &[(name, value)]).await;
        assert!(!started, "{name}={value} started");
        assert!(stderr.contains(named) && !stderr.contains("panicked"), "{name}={value}: {stderr}");
    }
}
