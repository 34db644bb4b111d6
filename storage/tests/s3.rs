//! `S3Store` against a real S3-compatible server. Start one with `scripts/start-s3.sh` (s3s-fs on port 9000,
//! credentials minioadmin/minioadmin) and export the line it prints:
//!
//!     export "$(scripts/start-s3.sh)"
//!     cargo test -p shutterbox-storage --test s3
//!
//! Without `SHUTTERBOX_TEST_S3_ENDPOINT` the tests fail rather than skip. Each test uses a bucket of its
//! own, so they run in parallel and leave nothing that another run could trip over. Uploads and presigned
//! URLs are exercised with a minimal HTTP/1.1 client over a TCP stream: what a browser does, with no
//! credentials of its own.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use shutterbox_model::{FileId, PendingId, VariantDigest};
use shutterbox_storage::{ByteRange, ObjectInfo, ObjectKey, ObjectStore, S3Config, S3Store, StoreError};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

const ACCESS_KEY: &str = "minioadmin";
const SECRET_KEY: &str = "minioadmin";

fn endpoint() -> String {
    match std::env::var("SHUTTERBOX_TEST_S3_ENDPOINT") {
        Ok(endpoint) if !endpoint.is_empty() => endpoint,
        _ => panic!(
            "SHUTTERBOX_TEST_S3_ENDPOINT is not set: these tests need an S3-compatible server. Start one with \
             `export \"$(scripts/start-s3.sh)\"` (s3s-fs on 127.0.0.1:9000, minioadmin/minioadmin), then rerun."
        ),
    }
}

/// A bucket name no other test uses: `t-` and 24 hex digits, within S3's 3–63 lower-case characters.
fn fresh_bucket() -> String {
    format!("t-{}", hex::encode(rand::random::<[u8; 12]>()))
}

fn config(bucket: &str) -> S3Config {
    S3Config::new(endpoint(), bucket.to_owned(), ACCESS_KEY.into(), SECRET_KEY.into())
}

async fn store() -> S3Store {
    S3Store::connect(config(&fresh_bucket())).await.expect("connect to the test S3 server")
}

fn key(name: &str) -> ObjectKey {
    ObjectKey::pending(&PendingId::new(name))
}

async fn read_all(store: &S3Store, key: &ObjectKey, range: Option<ByteRange>) -> Option<Vec<u8>> {
    let stream = store.read(key, range).await.expect("read")?;
    let chunks: Vec<Bytes> = stream.try_collect().await.expect("read the body");
    Some(chunks.concat())
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request to an `http://` URL, sent as is (query included), with `Host` from the URL unless
/// `host` overrides it. `localhost` is dialled as 127.0.0.1.
async fn http(method: &str, url: &str, host: Option<&str>, body: &[u8]) -> Response {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (authority, target) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority.replace("localhost", "127.0.0.1")).await.expect("connect");
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        host.unwrap_or(authority),
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();

    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete response head");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked")) {
        body = dechunk(&body);
    }
    Response { status, headers, body }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size_text = std::str::from_utf8(&data[..line_end]).unwrap();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[line_end + 2..line_end + 2 + size]);
        data = &data[line_end + 2 + size + 2..];
    }
}

/// A presigned GET for `bucket/key` from the crate itself (the store only presigns uploads).
async fn presigned_get(bucket: &str, key: &ObjectKey) -> String {
    use minio::s3::{MinioClientBuilder, creds::StaticProvider, http::BaseUrl};
    let base_url: BaseUrl = endpoint().parse().unwrap();
    let client = MinioClientBuilder::new(base_url)
        .provider(Some(StaticProvider::new(ACCESS_KEY, SECRET_KEY, None)))
        .skip_region_lookup(true)
        .build()
        .unwrap();
    client.get_presigned_object_url(bucket, key.as_str(), http::Method::GET).unwrap().build().send().await.unwrap().url
}

#[tokio::test]
async fn connect_creates_a_missing_bucket_and_reuses_an_existing_one() {
    let bucket = fresh_bucket();
    let first = S3Store::connect(config(&bucket)).await.unwrap();
    first.check().await.unwrap();
    first.put(&key("a"), Bytes::from_static(b"kept"), "text/plain").await.unwrap();

    let second = S3Store::connect(config(&bucket)).await.unwrap();
    second.check().await.unwrap();
    assert_eq!(second.get(&key("a")).await.unwrap().as_deref(), Some(&b"kept"[..]));
}

#[tokio::test]
async fn a_presigned_put_needs_no_credentials() {
    let store = store().await;
    let key = key("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f");
    let url = store.presign_put(&key, 1024, Duration::from_secs(60)).await.unwrap();
    assert!(url.starts_with(&format!("{}/", endpoint())), "{url}");
    assert!(url.contains("X-Amz-Signature="), "{url}");

    let put = http("PUT", &url, None, b"hello, bucket").await;
    assert_eq!(put.status, 200, "{}", String::from_utf8_lossy(&put.body));
    assert_eq!(store.stat(&key).await.unwrap(), Some(ObjectInfo { size: 13 }));
    assert_eq!(read_all(&store, &key, None).await.as_deref(), Some(&b"hello, bucket"[..]));
    assert_eq!(store.get(&key).await.unwrap().as_deref(), Some(&b"hello, bucket"[..]));
}

#[tokio::test]
async fn tampered_presigned_urls_are_refused() {
    let store = store().await;
    let key = key("signed");
    let url = store.presign_put(&key, 1024, Duration::from_secs(60)).await.unwrap();

    // One hex digit of the signature changed.
    let at = url.find("X-Amz-Signature=").unwrap() + "X-Amz-Signature=".len();
    let digit = &url[at..at + 1];
    let forged = format!("{}{}{}", &url[..at], if digit == "0" { "1" } else { "0" }, &url[at + 1..]);
    assert_eq!(http("PUT", &forged, None, b"x").await.status, 403);

    // The same signature for another key.
    let other = url.replacen("/pending/signed?", "/pending/signee?", 1);
    assert_ne!(other, url);
    assert_eq!(http("PUT", &other, None, b"x").await.status, 403);

    // The host is signed too.
    let wrong_host = http("PUT", &url, Some("example.com"), b"x").await;
    assert_eq!(wrong_host.status, 403);

    assert_eq!(store.stat(&key).await.unwrap(), None);
    assert_eq!(store.stat(&ObjectKey::pending(&PendingId::new("signee"))).await.unwrap(), None);
}

#[tokio::test]
async fn an_expired_presigned_url_is_refused() {
    let store = store().await;
    let key = key("late");
    let url = store.presign_put(&key, 1024, Duration::from_secs(1)).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(http("PUT", &url, None, b"too late").await.status, 403);
    assert_eq!(store.stat(&key).await.unwrap(), None);
}

#[tokio::test]
async fn presigned_urls_name_the_presign_endpoint() {
    // Here "localhost" and 127.0.0.1 reach the same server, standing in for docker-compose's two names.
    let endpoint = endpoint();
    let public = endpoint.replace("127.0.0.1", "localhost");
    assert_ne!(public, endpoint, "the test endpoint should use 127.0.0.1");
    let mut config = config(&fresh_bucket());
    config.presign_endpoint = Some(public.clone());
    let store = S3Store::connect(config).await.unwrap();

    let key = key("public");
    let url = store.presign_put(&key, 1024, Duration::from_secs(60)).await.unwrap();
    assert!(url.starts_with(&format!("{public}/")), "{url}");
    let internal_host = endpoint.trim_start_matches("http://");
    assert_eq!(http("PUT", &url, Some(internal_host), b"x").await.status, 403, "signed for the public host");
    assert_eq!(http("PUT", &url, None, b"public bytes").await.status, 200);
    assert_eq!(store.get(&key).await.unwrap().as_deref(), Some(&b"public bytes"[..]));
}

#[tokio::test]
async fn a_configured_region_is_used_for_signing() {
    let mut config = config(&fresh_bucket());
    config.region = "eu-west-1".into();
    let store = S3Store::connect(config).await.unwrap();
    let key = key("regional");
    let url = store.presign_put(&key, 1024, Duration::from_secs(60)).await.unwrap();
    assert!(url.contains("%2Feu-west-1%2Fs3%2F"), "{url}");
    assert_eq!(http("PUT", &url, None, b"abc").await.status, 200);
    assert_eq!(store.stat(&key).await.unwrap(), Some(ObjectInfo { size: 3 }));
}

#[tokio::test]
async fn ranged_reads() {
    let store = store().await;
    let key = key("bytes");
    let data: Vec<u8> = (0..=255).collect();
    store.put(&key, Bytes::from(data.clone()), "application/octet-stream").await.unwrap();

    let range = |start, len| Some(ByteRange { start, len });
    assert_eq!(read_all(&store, &key, range(10, Some(5))).await.unwrap(), &data[10..15]);
    assert_eq!(read_all(&store, &key, range(250, None)).await.unwrap(), &data[250..]);
    assert_eq!(read_all(&store, &key, range(0, None)).await.unwrap(), data);
    assert_eq!(read_all(&store, &key, range(0, Some(1))).await.unwrap(), &data[..1]);
    // Past the end: what there is, then nothing.
    assert_eq!(read_all(&store, &key, range(200, Some(1000))).await.unwrap(), &data[200..]);
    assert_eq!(read_all(&store, &key, range(250, Some(u64::MAX))).await.unwrap(), &data[250..]);
    assert_eq!(read_all(&store, &key, range(256, None)).await.unwrap(), b"");
    assert_eq!(read_all(&store, &key, range(5, Some(0))).await.unwrap(), b"");

    let head = shutterbox_storage::read_head(&store, &key, 16).await.unwrap().unwrap();
    assert_eq!(head, &data[..16]);
}

#[tokio::test]
async fn missing_objects_are_none() {
    let store = store().await;
    let missing = ObjectKey::original(&FileId::new("0193a6c4-0000-7000-8000-000000000000"));
    assert_eq!(store.stat(&missing).await.unwrap(), None);
    assert!(store.read(&missing, None).await.unwrap().is_none());
    assert!(store.read(&missing, Some(ByteRange { start: 3, len: Some(4) })).await.unwrap().is_none());
    assert!(store.read(&missing, Some(ByteRange { start: 3, len: Some(0) })).await.unwrap().is_none());
    assert_eq!(store.get(&missing).await.unwrap(), None);
}

#[tokio::test]
async fn put_stores_the_content_type_and_copy_keeps_it() {
    let bucket = fresh_bucket();
    let store = S3Store::connect(config(&bucket)).await.unwrap();
    let variant =
        ObjectKey::variant(&FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"), &VariantDigest::new("ab12cd34"));
    store.put(&variant, Bytes::from_static(b"RIFF....WEBP"), "image/webp").await.unwrap();

    let got = http("GET", &presigned_get(&bucket, &variant).await, None, b"").await;
    assert_eq!(got.status, 200);
    assert_eq!(got.header("content-type"), Some("image/webp"));
    assert_eq!(got.body, b"RIFF....WEBP");

    let copy = ObjectKey::original(&FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"));
    store.copy(&variant, &copy).await.unwrap();
    let got = http("GET", &presigned_get(&bucket, &copy).await, None, b"").await;
    assert_eq!(got.status, 200);
    assert_eq!(got.header("content-type"), Some("image/webp"));
}

#[tokio::test]
async fn copy_leaves_both_and_needs_a_source() {
    let store = store().await;
    let from = ObjectKey::pending(&PendingId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"));
    let to = ObjectKey::original(&FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"));
    store.put(&from, Bytes::from_static(b"data"), "text/plain").await.unwrap();
    store.put(&to, Bytes::from_static(b"to be replaced"), "text/plain").await.unwrap();

    store.copy(&from, &to).await.unwrap();
    assert_eq!(store.get(&from).await.unwrap().as_deref(), Some(&b"data"[..]));
    assert_eq!(store.get(&to).await.unwrap().as_deref(), Some(&b"data"[..]));

    let nowhere = ObjectKey::pending(&PendingId::new("nowhere"));
    assert!(store.copy(&nowhere, &ObjectKey::original(&FileId::new("nowhere"))).await.is_err());
    assert_eq!(store.stat(&ObjectKey::original(&FileId::new("nowhere"))).await.unwrap(), None);
}

#[tokio::test]
async fn delete_removes_and_tolerates_missing() {
    let store = store().await;
    let key = ObjectKey::variant(&FileId::new("f"), &VariantDigest::new("d1"));
    store.put(&key, Bytes::from_static(b"v"), "image/png").await.unwrap();
    store.delete(&key).await.unwrap();
    assert_eq!(store.stat(&key).await.unwrap(), None);
    store.delete(&key).await.unwrap();
    store.delete(&ObjectKey::pending(&PendingId::new("never-there"))).await.unwrap();
    store.check().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_endpoint_is_unavailable_quickly() {
    let config = S3Config::new("http://127.0.0.1:1".into(), "shutterbox".into(), "a".into(), "b".into());
    let result = tokio::time::timeout(Duration::from_secs(15), S3Store::connect(config)).await.expect("no hang");
    let Err(StoreError::Unavailable(message)) = result else { panic!("expected Unavailable") };
    assert!(message.contains("http://127.0.0.1:1") && message.contains("shutterbox"), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test]
async fn bad_credentials_are_unavailable() {
    let mut config = config(&fresh_bucket());
    config.secret_key = "not-the-secret".into();
    let Err(StoreError::Unavailable(message)) = S3Store::connect(config.clone()).await else {
        panic!("expected Unavailable")
    };
    assert!(message.contains(&config.endpoint) && message.contains(&config.bucket), "{message}");
    assert!(!message.contains("not-the-secret"), "{message}");
}

#[tokio::test]
async fn malformed_endpoints_are_refused() {
    for endpoint in ["127.0.0.1:9000", "ftp://127.0.0.1:9000", "http://127.0.0.1:9000/prefix", "http://", ""] {
        let config = S3Config::new(endpoint.into(), "shutterbox".into(), "a".into(), "b".into());
        assert!(
            matches!(S3Store::connect(config).await, Err(StoreError::Unavailable(_))),
            "{endpoint:?} should be refused"
        );
    }
    let mut config = config("shutterbox");
    config.presign_endpoint = Some("localhost:9000".into());
    assert!(S3Store::connect(config).await.is_err());
    let config = S3Config::new(endpoint(), "Not A Bucket!".into(), "a".into(), "b".into());
    assert!(S3Store::connect(config).await.is_err());
}

#[test]
fn debug_hides_the_secret() {
    let config = S3Config::new("http://x:9000".into(), "b".into(), "AKIA".into(), "very-secret".into());
    let shown = format!("{config:?}");
    assert!(shown.contains("AKIA") && !shown.contains("very-secret"), "{shown}");
}
