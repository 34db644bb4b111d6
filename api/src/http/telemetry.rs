//! What the service tells its operator about each request: an `X-Request-Id` on every response (the
//! caller's own when it sent a sane one), a tracing span carrying that id around everything the request
//! logs, and the request's count and latency by route, method and status for `/metrics`.
//!
//! Requests are logged at `debug` under the target `shutterbox::access` (500 at `error`, other 5xx at
//! `warn`): a cached variant is answered in microseconds, and a line per request at the default level would
//! cost more than the answer. `SHUTTERBOX_LOG=info,shutterbox::access=debug` turns the access log on. Only a
//! failure's line carries the query, with credential-like values (presigned-URL signatures) redacted; keys
//! travel in headers, which are never logged.

use std::{sync::Arc, time::Instant};

use poem::{
    Endpoint, Request, Response,
    http::{HeaderValue, StatusCode},
};
use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry};
use tracing::Instrument;

pub const REQUEST_ID: &str = "x-request-id";

/// Latency buckets in seconds: from a memory hit (sub-millisecond) to a large cold render.
const LATENCY_BUCKETS: &[f64] = &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The per-request series, in a registry of their own per server (tests run several servers in one process).
#[derive(Clone)]
pub struct HttpMetrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
}

impl HttpMetrics {
    pub fn new() -> Self {
        let labels = &["route", "method", "status"];
        let requests = IntCounterVec::new(
            Opts::new("shutterbox_http_requests_total", "HTTP requests answered, by route, method and status."),
            labels,
        )
        .unwrap_or_else(|e| unreachable!("static metric definition: {e}"));
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "shutterbox_http_request_duration_seconds",
                "Time from the request's arrival to its response headers, by route, method and status.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            labels,
        )
        .unwrap_or_else(|e| unreachable!("static metric definition: {e}"));
        let registry = Registry::new();
        for collector in [Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>, Box::new(latency.clone())]
        {
            registry.register(collector).unwrap_or_else(|e| unreachable!("distinct metric names: {e}"));
        }
        Self { registry, requests, latency }
    }

    /// Adds another collector (render times, say) to the same exposition.
    pub fn register(&self, collector: Box<dyn prometheus::core::Collector>) {
        if let Err(e) = self.registry.register(collector) {
            tracing::warn!(error = %e, "a metric could not be registered");
        }
    }

    /// The registry's series in the Prometheus text format (0.0.4).
    pub fn render(&self, out: &mut String) {
        match prometheus::TextEncoder::new().encode_to_string(&self.registry.gather()) {
            Ok(text) => out.push_str(&text),
            Err(e) => tracing::warn!(error = %e, "metrics could not be encoded"),
        }
    }

    fn observe(&self, route: &str, method: &str, status: StatusCode, seconds: f64) {
        let labels = [route, method, status.as_str()];
        self.requests.with_label_values(&labels).inc();
        self.latency.with_label_values(&labels).observe(seconds);
    }
}

impl Default for HttpMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// The metric label of a request no route answered.
const OTHER_ROUTE: &str = "other";

/// The outermost middleware: request id, span, access log line and metrics.
pub async fn observe<E: Endpoint>(endpoint: Arc<E>, metrics: HttpMetrics, request: Request) -> poem::Result<Response> {
    let started = Instant::now();
    let id = request_id(&request);
    let method = method_label(request.method());
    let span = tracing::info_span!("request", id = %id, method, path = %request.uri().path());
    // Kept for the failure line (a 500 is reproduced from its path and query); a `Uri` clone shares its
    // bytes, and the query is only rendered for a failure.
    let uri = request.uri().clone();
    let mut response = endpoint.get_response(request).instrument(span.clone()).await;

    // Every route names its responses with its operation id (the OpenAPI service's operations, and the
    // router's table for the routes beside them); what no route answered (scanners, 404s) is `other`, so
    // arbitrary paths never create new series.
    let route = response.data::<poem_openapi::OperationId>().map_or(OTHER_ROUTE, |op| op.0);
    let seconds = started.elapsed().as_secs_f64();
    metrics.observe(route, method, response.status(), seconds);
    let status = response.status().as_u16();
    set_request_id(&mut response, &id);
    span.in_scope(|| {
        let query = || uri.query().map(loggable_query).unwrap_or_default();
        if status == 500 {
            tracing::error!(target: "shutterbox::access", status, route, query = query(), ms = seconds * 1e3, "request failed");
        } else if status > 500 {
            tracing::warn!(target: "shutterbox::access", status, route, query = query(), ms = seconds * 1e3, "request failed");
        } else {
            tracing::debug!(target: "shutterbox::access", status, route, ms = seconds * 1e3, "request");
        }
    });
    Ok(response)
}

/// What a request answered without `observe` (a kept variant response, `delivery::answer_kept`)
/// still gets from it: its request id, and its count and latency under `route`. Nothing else is owed: no
/// line is logged for it, as answering it never fails, and a request is only answered that way while the
/// access log is off (`access_logged`).
pub fn observe_untraced(
    metrics: &HttpMetrics,
    route: &str,
    request: &Request,
    response: &mut Response,
    started: Instant,
) {
    let id = request_id(request);
    metrics.observe(route, method_label(request.method()), response.status(), started.elapsed().as_secs_f64());
    set_request_id(response, &id);
}

/// Whether requests that end well are logged (`shutterbox::access` at `debug`), so must go through `observe`.
pub fn access_logged() -> bool {
    tracing::enabled!(target: "shutterbox::access", tracing::Level::DEBUG)
}

/// The request's id: the caller's own when it sent a sane one, else a fresh one.
fn request_id(request: &Request) -> String {
    request
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable_id(v))
        .map_or_else(fresh_request_id, str::to_owned)
}

fn set_request_id(response: &mut Response, id: &str) {
    if let Ok(value) = HeaderValue::from_str(id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
}

/// A UUIDv7 (time-ordered to the millisecond) in simple form, its random bits from the thread's generator:
/// `Uuid::now_v7` takes a process-wide lock for ordering within a millisecond, which request ids do not
/// need, and a `getrandom` system call per id, a measurable part of a cached variant's answer.
fn fresh_request_id() -> String {
    let millis = u64::try_from(shutterbox_model::clock::now_ms()).unwrap_or(0);
    uuid::Builder::from_unix_timestamp_millis(millis, &rand::random()).into_uuid().simple().to_string()
}

/// The query as a log may keep it: at most 512 characters, with the value of every credential-like
/// parameter (an upload URL's `signature`, S3's `X-Amz-*`, any `token`, `key` or `sig`) replaced.
fn loggable_query(query: &str) -> String {
    let secret = |name: &str| {
        let name = name.to_ascii_lowercase();
        matches!(name.as_str(), "signature" | "sig" | "token" | "key" | "apikey" | "api_key")
            || name.starts_with("x-amz-")
    };
    let mut out = String::new();
    for (i, pair) in query.split('&').enumerate() {
        if i > 0 {
            out.push('&');
        }
        match pair.split_once('=') {
            Some((name, _)) if secret(name) => {
                out.push_str(name);
                out.push_str("=[redacted]");
            }
            _ => out.push_str(pair),
        }
    }
    if out.len() > 512 {
        let cut = (0..=512).rev().find(|&i| out.is_char_boundary(i)).unwrap_or(0);
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// A caller's request id is echoed only when it is short and plain, so it cannot forge log lines or headers.
fn acceptable_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn method_label(method: &poem::http::Method) -> &'static str {
    use poem::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "OTHER",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fresh ids are UUIDv7s of the current millisecond, in simple form (what a caller's own id must be to
    /// be echoed back), and distinct across threads: 4 threads × 25,000 ids.
    #[test]
    fn fresh_request_ids_are_distinct_current_uuid_v7s() {
        let before = u64::try_from(shutterbox_model::clock::now_ms()).unwrap();
        let ids: Vec<String> = std::thread::scope(|scope| {
            let threads: Vec<_> =
                (0..4).map(|_| scope.spawn(|| (0..25_000).map(|_| fresh_request_id()).collect::<Vec<_>>())).collect();
            threads.into_iter().flat_map(|thread| thread.join().unwrap()).collect()
        });
        let after = u64::try_from(shutterbox_model::clock::now_ms()).unwrap();
        for id in &ids {
            assert!(id.len() == 32 && acceptable_id(id), "{id}");
            let uuid = uuid::Uuid::parse_str(id).unwrap();
            assert_eq!(uuid.get_version_num(), 7, "{id}");
            assert_eq!(uuid.get_variant(), uuid::Variant::RFC4122, "{id}");
            let (seconds, nanos) = uuid.get_timestamp().unwrap().to_unix();
            let millis = seconds * 1000 + u64::from(nanos) / 1_000_000;
            assert!((before..=after).contains(&millis), "{id}: {millis} outside {before}..={after}");
        }
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len(), "every id distinct");
    }

    #[test]
    fn request_ids_from_callers_are_plain_and_short() {
        assert!(acceptable_id("abc-123_X.y"));
        assert!(!acceptable_id(""));
        assert!(!acceptable_id("a\r\nSet-Cookie: x"));
        assert!(!acceptable_id("spaced id"));
        assert!(!acceptable_id(&"a".repeat(129)));
    }

    #[test]
    fn a_logged_query_keeps_the_request_but_not_its_credentials() {
        assert_eq!(loggable_query("w=226&fit=cover"), "w=226&fit=cover");
        assert_eq!(
            loggable_query("expires=17&size=9&signature=abcdef&X-Amz-Signature=00&x-amz-credential=k"),
            "expires=17&size=9&signature=[redacted]&X-Amz-Signature=[redacted]&x-amz-credential=[redacted]"
        );
        assert_eq!(loggable_query("token"), "token");
        let long = loggable_query(&"é".repeat(400));
        assert!(long.len() <= 515 && long.ends_with('…'), "{long}");
    }
}
