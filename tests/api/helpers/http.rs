//! Checking responses: the API's error body, and requests sent byte for byte over a raw socket.

use reqwest::{Response, StatusCode};
use serde_json::Value;

use super::TestApp;

pub async fn assert_error(response: Response, expected: StatusCode) -> String {
    let status = response.status();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let text = response.text().await.expect("body");
    assert_eq!(status, expected, "body: {text}");
    assert!(content_type.starts_with("application/json"), "content-type {content_type:?} for {text}");
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("error body is not JSON ({e}): {text}"));
    assert_eq!(body["status"], expected.as_u16(), "{text}");
    assert!(body["headers"].is_object(), "{text}");
    let message = body["message"].as_str().unwrap_or_else(|| panic!("no message: {text}")).to_owned();
    assert!(!message.is_empty(), "{text}");
    message
}

/// A response read off a raw socket.
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends `<method> <target>` exactly as written — no client-side normalization of `..`, `%2e` or `//` —
/// with `headers` and `body`, and reads the whole response.
pub async fn raw_request(
    app: &TestApp,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> RawResponse {
    send(app, method, target, headers, body.len() as u64, body).await
}

/// Sends `<method> <target>` with `headers` and a `Content-Length` of `length`, but none of the body:
/// what a server that refuses a body by its declared length answers, without the race of a client still
/// sending when the server (or a proxy before it) closes the connection, which resets it.
pub async fn raw_request_unsent_body(
    app: &TestApp,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    length: u64,
) -> RawResponse {
    send(app, method, target, headers, length, b"").await
}

/// The request head with `Content-Length: length`, then `body`, then the whole response.
async fn send(
    app: &TestApp,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    length: u64,
    body: &[u8],
) -> RawResponse {
    use tokio::io::AsyncWriteExt;
    let addr = app.root.strip_prefix("http://").expect("an http root");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut request = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {length}\r\n\r\n"));
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).await.expect("send");
    read_response(stream, target).await
}

/// The whole response on `stream`, up to the server's close.
async fn read_response(mut stream: tokio::net::TcpStream, target: &str) -> RawResponse {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).await.unwrap();
    let split = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("{target}: no header end"));
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{status_line}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    RawResponse { status, headers, body: bytes[split + 4..].to_vec() }
}
