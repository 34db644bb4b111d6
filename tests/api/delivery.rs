//! Public delivery over real HTTP: `/v1/file/<stored path>` and `/v1/raw/<stored path>` serve the stored
//! bytes without credentials, with caching headers, HEAD, ETag/304 and byte ranges; active content is never
//! rendered inline; traversal and encoding tricks only ever miss (404/400, JSON body); a deleted file's URLs
//! answer 404 at once.

use reqwest::{Method, Response, StatusCode, header};
use serde_json::Value;
use shutterbox_model::Scope;

use crate::helpers::{PNG, RawResponse, TestApp, assert_error, raw_request};

fn header_of<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Sends `GET <target>` exactly as written.
async fn raw_get(app: &TestApp, target: &str) -> RawResponse {
    raw_request(app, "GET", target, &[], b"").await
}

/// Uploads the PNG fixture as `default/cat.png` and returns its file object.
async fn cat(app: &TestApp) -> Value {
    app.upload("cat.png", "image/png", PNG).await
}

fn url_of<'a>(file: &'a Value, field: &str) -> &'a str {
    file[field].as_str().unwrap()
}

#[tokio::test]
async fn file_urls_serve_the_exact_bytes_with_caching_headers() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    assert_eq!(url_of(&file, "secureUrl"), format!("{}/file/default/cat.png", app.base));

    for field in ["secureUrl", "rawUrl"] {
        // Plain client: no Authorization header.
        let response = app.client.get(url_of(&file, field)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{field}");
        assert_eq!(header_of(&response, "content-type"), Some("image/png"), "{field}");
        assert_eq!(header_of(&response, "content-length"), Some(PNG.len().to_string().as_str()), "{field}");
        let etag = header_of(&response, "etag").unwrap().to_owned();
        assert!(etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2, "strong ETag: {etag}");
        let cache = header_of(&response, "cache-control").unwrap();
        let max_age = cache.strip_prefix("public, max-age=").unwrap_or_else(|| panic!("cache-control {cache}"));
        assert!(max_age.parse::<u64>().is_ok(), "{cache}");
        assert_eq!(header_of(&response, "x-content-type-options"), Some("nosniff"));
        assert_eq!(header_of(&response, "accept-ranges"), Some("bytes"));
        assert!(
            !header_of(&response, "content-disposition").unwrap_or("").contains("attachment"),
            "images are served inline"
        );
        assert_eq!(response.bytes().await.unwrap(), PNG, "{field}");
    }
}

#[tokio::test]
async fn the_cache_lifetime_is_configurable() {
    let app = TestApp::spawn_with(|c| c.cache_max_age_secs = 42).await;
    let file = cat(&app).await;
    let response = app.client.get(url_of(&file, "secureUrl")).send().await.unwrap();
    assert_eq!(header_of(&response, "cache-control"), Some("public, max-age=42"));
}

#[tokio::test]
async fn head_gives_the_same_headers_and_no_body() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    for field in ["secureUrl", "rawUrl"] {
        let url = url_of(&file, field);
        let get = app.client.get(url).send().await.unwrap();
        let head = app.client.head(url).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::OK, "{field}");
        for name in ["content-type", "content-length", "etag", "cache-control", "x-content-type-options"] {
            assert!(header_of(&head, name).is_some(), "{field}: HEAD lacks {name}");
            assert_eq!(header_of(&head, name), header_of(&get, name), "{field}: {name}");
        }
        assert!(head.bytes().await.unwrap().is_empty(), "{field}: HEAD has no body");
    }
    let missing = app.client.head(format!("{}/file/default/nope.png", app.base)).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_matching_if_none_match_answers_304() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    for field in ["secureUrl", "rawUrl"] {
        let url = url_of(&file, field);
        let first = app.client.get(url).send().await.unwrap();
        let etag = header_of(&first, "etag").unwrap().to_owned();
        for condition in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}"), "*".to_owned()] {
            let response = app.client.get(url).header("If-None-Match", &condition).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::NOT_MODIFIED, "{field}: {condition}");
            assert_eq!(header_of(&response, "etag"), Some(etag.as_str()));
            assert!(header_of(&response, "cache-control").is_some());
            assert!(response.bytes().await.unwrap().is_empty());
        }
        let head = app.client.head(url).header("If-None-Match", &etag).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::NOT_MODIFIED);
        let stale = app.client.get(url).header("If-None-Match", "\"stale\"").send().await.unwrap();
        assert_eq!(stale.status(), StatusCode::OK);
        assert_eq!(stale.bytes().await.unwrap(), PNG);
    }
    // Another file has another ETag.
    let other = app.upload("dog.png", "image/png", PNG).await;
    let a = app.client.get(url_of(&file, "secureUrl")).send().await.unwrap();
    let b = app.client.get(url_of(&other, "secureUrl")).send().await.unwrap();
    assert_ne!(header_of(&a, "etag"), header_of(&b, "etag"));
}

/// `shutterbox_http_requests_total` of delivered variants (GET, 200), summed over the nodes.
async fn delivered_variants(app: &TestApp) -> f64 {
    let labels = ["route=\"deliverFile\"", "method=\"GET\"", "status=\"200\""];
    app.metric_sample("shutterbox_http_requests_total", &labels).await
}

/// A variant URL asked again is answered from the kept response (`answer_kept`, ahead of the routing): the
/// same status, headers and bytes as its first answer, a request id of its own (or the caller's), HEAD and
/// `If-None-Match` as on the first, counted in the metrics; another method still meets the route's 405.
#[tokio::test]
async fn a_repeated_variant_url_is_answered_as_the_first_time() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    let url = format!("{}?w=7&fit=cover&format=webp", url_of(&file, "secureUrl"));
    let before = delivered_variants(&app).await;
    let first = app.client.get(&url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let first_headers = first.headers().clone();
    let timing = first_headers["server-timing"].to_str().unwrap().to_owned();
    assert!(timing.starts_with("variant;dur=") && timing[12..].parse::<f64>().is_ok(), "{timing}");
    let first_bytes = first.bytes().await.unwrap();
    let renders = app.metric("shutterbox_renders_total").await;
    let mut ids = std::collections::HashSet::new();
    for _ in 0..3 {
        let again = app.client.get(&url).send().await.unwrap();
        assert_eq!(again.status(), StatusCode::OK);
        let headers = again.headers().clone();
        let names = |h: &header::HeaderMap| {
            let mut names: Vec<String> = h
                .keys()
                .map(|n| n.as_str().to_owned())
                // How long this request's variant took: only the request that produced it has one.
                .filter(|n| !matches!(n.as_str(), "date" | "x-request-id" | "server-timing"))
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(&headers), names(&first_headers));
        for name in names(&first_headers) {
            assert_eq!(headers.get(&name), first_headers.get(&name), "{name}");
        }
        let id = headers.get("x-request-id").expect("a request id").to_str().unwrap().to_owned();
        assert!(id.len() == 32 && ids.insert(id), "a fresh id per request");
        assert_eq!(again.bytes().await.unwrap(), first_bytes);
    }
    assert_eq!(app.metric("shutterbox_renders_total").await, renders, "served without rendering again");
    assert_eq!(delivered_variants(&app).await, before + 4.0, "every answer counted");

    let echoed = app.client.get(&url).header("x-request-id", "caller-id-1").send().await.unwrap();
    assert_eq!(header_of(&echoed, "x-request-id"), Some("caller-id-1"));
    let head = app.client.head(&url).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    for name in ["content-type", "content-length", "etag", "cache-control", "x-content-type-options"] {
        assert_eq!(head.headers().get(name), first_headers.get(name), "HEAD {name}");
    }
    assert!(head.bytes().await.unwrap().is_empty());
    let etag = first_headers.get("etag").unwrap().to_str().unwrap();
    let cached = app.client.get(&url).header("If-None-Match", etag).send().await.unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(header_of(&cached, "etag"), Some(etag));
    assert!(header_of(&cached, "x-request-id").is_some());
    let posted = app.client.post(&url).body("x").send().await.unwrap();
    assert_error(posted, StatusCode::METHOD_NOT_ALLOWED).await;
}

#[tokio::test]
async fn raw_urls_serve_byte_ranges() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    let url = url_of(&file, "rawUrl");
    let size = PNG.len();
    let cases = [
        ("bytes=0-3", 0, 3),
        ("bytes=-4", size - 4, size - 1),
        ("bytes=5-", 5, size - 1),
        ("bytes=10-10", 10, 10),
        ("bytes=100-100000", 100, size - 1),
        ("bytes=-100000", 0, size - 1),
    ];
    for (range, first, last) in cases {
        let response = app.client.get(url).header("Range", range).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT, "{range}");
        let expected_range = format!("bytes {first}-{last}/{size}");
        assert_eq!(header_of(&response, "content-range"), Some(expected_range.as_str()), "{range}");
        let expected_length = (last - first + 1).to_string();
        assert_eq!(header_of(&response, "content-length"), Some(expected_length.as_str()), "{range}");
        assert_eq!(header_of(&response, "content-type"), Some("image/png"));
        assert_eq!(response.bytes().await.unwrap(), &PNG[first..=last], "{range}");
    }
    // A range we do not serve (malformed, multi-range, other unit) gets the whole file.
    for range in ["bytes=5-1", "bytes=0-1,4-5", "items=0-3", "bytes=x-3"] {
        let response = app.client.get(url).header("Range", range).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{range}");
        assert_eq!(response.bytes().await.unwrap(), PNG, "{range}");
    }
}

/// A large original (streamed from a mapping in 4 MiB slices when local): whole, and ranges on, across and
/// at the ends of the slices, byte for byte.
#[tokio::test]
async fn large_raw_files_stream_whole_and_in_ranges() {
    let app = TestApp::spawn().await;
    let size = (9 << 20) + 123;
    let bytes: Vec<u8> = (0..size).map(|i: usize| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let file = app.upload("large.bin", "application/octet-stream", &bytes).await;
    let url = url_of(&file, "rawUrl");
    let whole = app.client.get(url).send().await.unwrap();
    assert_eq!(header_of(&whole, "content-length"), Some(size.to_string().as_str()));
    assert!(whole.bytes().await.unwrap() == bytes, "the whole file");
    let slice = 4 << 20;
    for (first, last) in [(0, 0), (slice - 10, slice + 10), (slice, 2 * slice), (1, size - 2), (size - 1, size - 1)] {
        let range = format!("bytes={first}-{last}");
        let response = app.client.get(url).header("Range", &range).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::PARTIAL_CONTENT, "{range}");
        assert!(response.bytes().await.unwrap() == bytes[first..=last], "{range}");
    }
}

/// `SHUTTERBOX_RAW_REDIRECT`: in the distributed deployment a raw URL answers 307 to a presigned GET of the
/// object in S3, which answers with the sniffed type (and as a download where ours would); a client that
/// has the file (its ETag) still gets a 304. Embedded, the setting changes nothing.
#[tokio::test]
async fn raw_urls_redirect_to_the_bucket_when_asked() {
    let app = TestApp::spawn_with(|c| c.raw_redirect = true).await;
    let file = cat(&app).await;
    let html = app.upload("page.png", "image/png", b"<html><script>alert(1)</script></html>").await;
    let client = reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for (file, bytes, content_type, attachment) in
        [(&file, PNG, "image/png", false), (&html, &b"<html><script>alert(1)</script></html>"[..], "text/html", true)]
    {
        let response = client.get(url_of(file, "rawUrl")).send().await.unwrap();
        let followed = if app.is_embedded() {
            assert_eq!(response.status(), StatusCode::OK);
            response
        } else {
            assert_eq!(response.status(), StatusCode::TEMPORARY_REDIRECT);
            let location = header_of(&response, "location").unwrap().to_owned();
            assert!(location.contains("X-Amz-Signature="), "{location}");
            client.get(&location).send().await.unwrap()
        };
        assert_eq!(followed.status(), StatusCode::OK);
        assert!(header_of(&followed, "content-type").unwrap().starts_with(content_type));
        assert_eq!(
            header_of(&followed, "content-disposition").is_some_and(|d| d.starts_with("attachment")),
            attachment
        );
        assert_eq!(followed.bytes().await.unwrap(), bytes);
    }
    let etag = format!("\"{}\"", file["id"].as_str().unwrap());
    let cached = client.get(url_of(&file, "rawUrl")).header("If-None-Match", etag).send().await.unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn unsatisfiable_ranges_are_416() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    let size = PNG.len();
    for field in ["rawUrl", "secureUrl"] {
        for range in [format!("bytes={size}-"), format!("bytes={}-{}", size + 10, size + 20), "bytes=-0".to_owned()] {
            let response = app.client.get(url_of(&file, field)).header("Range", &range).send().await.unwrap();
            let content_range = header_of(&response, "content-range").map(str::to_owned);
            assert_error(response, StatusCode::RANGE_NOT_SATISFIABLE).await;
            assert_eq!(content_range, Some(format!("bytes */{size}")), "{field}: {range}");
        }
    }
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let app = TestApp::spawn().await;
    cat(&app).await;
    let other_key = app.key_for("other", Scope::Secret).await;
    let body = serde_json::json!({"filename": "only-other.png", "mimetype": "image/png", "size": PNG.len()});
    let theirs = app.upload_as(&other_key, body, PNG).await;
    assert_eq!(url_of(&theirs, "secureUrl"), format!("{}/file/other/only-other.png", app.base));

    // Delivery is public: a file is reachable by its own path, whoever asks.
    let response = app.client.get(url_of(&theirs, "secureUrl")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    for path in [
        "default/nope.png",
        "default/only-other.png",
        "other/cat.png",
        "nobody/cat.png",
        "default/cat",
        "default/CAT.PNG",
        "default",
        "cat.png",
    ] {
        for route in ["file", "raw"] {
            let response = app.client.get(format!("{}/{route}/{path}", app.base)).send().await.unwrap();
            let message = assert_error(response, StatusCode::NOT_FOUND).await;
            assert!(message.contains("no file"), "{route}/{path}: {message}");
        }
    }
    let response = app.client.get(format!("{}/file/", app.base)).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn traversal_and_encoding_tricks_only_ever_miss() {
    let app = TestApp::spawn().await;
    cat(&app).await;
    let mut body = serde_json::json!({"filename": "x.png", "mimetype": "image/png", "size": PNG.len()});
    body["folderName"] = "sub".into();
    app.upload_as(&app.key, body, PNG).await;

    let tricks = [
        "default/../default/cat.png",
        "default/sub/../cat.png",
        "default/./cat.png",
        "../v1/file/default/cat.png",
        "../../../../etc/passwd",
        "default/%2e%2e/default/cat.png",
        "default/sub/%2e%2e/cat.png",
        "%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "default%2fcat.png",
        "default%2Fsub%2Fx.png",
        "default/sub%2fx.png",
        "default%5ccat.png",
        "default/sub%5cx.png",
        "..%5c..%5cetc%5cpasswd",
        "default/cat.png%00",
        "default/cat.png%00.txt",
        "default%00/cat.png",
        "default/%252e%252e/default/cat.png",
        "default%252fcat.png",
        "default/%c0%ae%c0%ae/default/cat.png",
        "default%c0%afcat.png",
        "%c0%ae%c0%ae/etc/passwd",
        "default/%ff.png",
        "/default/cat.png",
        "default//cat.png",
        "objects/files",
        "signing.key",
        "../signing.key",
        "%2e%2e/signing.key",
    ];
    for route in ["file", "raw"] {
        for trick in tricks {
            let target = format!("/v1/{route}/{trick}");
            let response = raw_get(&app, &target).await;
            assert!(matches!(response.status, 400 | 404), "{target}: status {}", response.status);
            let content_type = response.header("content-type").unwrap_or("");
            assert!(content_type.starts_with("application/json"), "{target}: content-type {content_type:?}");
            let body: Value = serde_json::from_slice(&response.body)
                .unwrap_or_else(|e| panic!("{target}: body is not JSON ({e}): {:?}", response.body));
            assert_eq!(body["status"], response.status, "{target}");
            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{target}");
            assert!(!response.body.windows(4).any(|w| w == b"\x89PNG"), "{target}: served image bytes");
        }
    }
    // The plain paths work over the same raw socket, so the misses above are the tricks' doing.
    for target in ["/v1/file/default/cat.png", "/v1/raw/default/sub/x.png"] {
        let response = raw_get(&app, target).await;
        assert_eq!(response.status, 200, "{target}");
        assert_eq!(response.body, PNG, "{target}");
    }
}

#[tokio::test]
async fn unknown_parameters_are_ignored() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    let url = url_of(&file, "secureUrl");
    for query in ["foo=bar", "v=3&utm_source=mail", ""] {
        let response = app.client.get(format!("{url}?{query}")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{query}");
        assert_eq!(header_of(&response, "content-type"), Some("image/png"));
        assert_eq!(response.bytes().await.unwrap(), PNG, "{query}");
    }
}

#[tokio::test]
async fn other_methods_are_405() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    for field in ["secureUrl", "rawUrl"] {
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
            let response = app.client.request(method.clone(), url_of(&file, field)).body("x").send().await.unwrap();
            assert_error(response, StatusCode::METHOD_NOT_ALLOWED).await;
        }
    }
    // The file is untouched.
    let response = app.client.get(url_of(&file, "secureUrl")).send().await.unwrap();
    assert_eq!(response.bytes().await.unwrap(), PNG);
}

#[tokio::test]
async fn active_content_is_never_rendered_inline() {
    let app = TestApp::spawn().await;
    let html: &[u8] = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>";
    let svg: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    let page = app.upload("page.html", "text/html", html).await;
    let disguised = app.upload("disguised.png", "image/png", html).await;
    let drawing = app.upload("drawing.svg", "image/svg+xml", svg).await;
    let image = cat(&app).await;

    for (file, bytes, content_type) in
        [(&page, html, "text/html"), (&disguised, html, "text/html"), (&drawing, svg, "image/svg+xml")]
    {
        for field in ["secureUrl", "rawUrl"] {
            let url = url_of(file, field);
            let response = app.client.get(url).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{url}");
            assert_eq!(header_of(&response, "content-type"), Some(content_type), "{url}");
            let disposition = header_of(&response, "content-disposition").unwrap_or("");
            assert!(disposition.starts_with("attachment"), "{url}: content-disposition {disposition:?}");
            let csp = header_of(&response, "content-security-policy").unwrap_or("");
            assert!(csp.contains("sandbox"), "{url}: CSP {csp:?}");
            assert_eq!(header_of(&response, "x-content-type-options"), Some("nosniff"));
            assert_eq!(response.bytes().await.unwrap(), bytes);
        }
    }
    let response = app.client.get(url_of(&image, "secureUrl")).send().await.unwrap();
    assert!(header_of(&response, "content-disposition").is_none_or(|d| !d.contains("attachment")));
}

#[tokio::test]
async fn a_deleted_files_urls_answer_404_at_once() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    let kept = app.upload("kept.png", "image/png", PNG).await;
    // Every address is resolved once first, so a remembered lookup would show here.
    let by_stem = url_of(&file, "secureUrl").replace("cat.png", "cat.webp");
    for url in [url_of(&file, "secureUrl"), url_of(&file, "rawUrl"), &by_stem] {
        let response = app.client.get(url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{url}");
    }
    let id = url_of(&file, "id");
    let response = app.authed(Method::DELETE, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_error(app.client.get(&by_stem).send().await.unwrap(), StatusCode::NOT_FOUND).await;

    for field in ["secureUrl", "rawUrl"] {
        let url = url_of(&file, field);
        assert_error(app.client.get(url).send().await.unwrap(), StatusCode::NOT_FOUND).await;
        let ranged = app.client.get(url).header("Range", "bytes=0-3").send().await.unwrap();
        assert_error(ranged, StatusCode::NOT_FOUND).await;
        let head = app.client.head(url).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::NOT_FOUND, "{url}");
        let kept_response = app.client.get(url_of(&kept, field)).send().await.unwrap();
        assert_eq!(kept_response.status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn delivery_ignores_credentials() {
    let app = TestApp::spawn().await;
    let file = cat(&app).await;
    // A bad key does not stand in the way of a public URL.
    let response =
        app.client.get(url_of(&file, "secureUrl")).header(header::AUTHORIZATION, "ApiKey wrong").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.bytes().await.unwrap(), PNG);
}
