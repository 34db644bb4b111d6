//! Public delivery of stored files, no credentials needed: `/v1/file/<stored path>` (image delivery; the
//! transformation parameters arrive with the image pipeline) and `/v1/raw/<stored path>` (the bytes as
//! stored). Both answer GET and HEAD, support `Range`, and carry a strong ETag answered with 304.
//!
//! Paths are decoded segment by segment and looked up in the metadata by their exact text, never mapped onto
//! the file system, so `..` can only ever fail to match; a segment that decodes to a `/` (`%2F`) is refused,
//! so no file has a second address.

use percent_encoding::percent_decode_str;
use poem::{
    Body, IntoResponse, Request, Response, handler,
    http::{HeaderValue, Method, StatusCode, header},
    web::Data,
};
use shutterbox_metadata::FileRecord;
use shutterbox_pipeline::Transform;
use shutterbox_storage::{ByteRange, ObjectKey};

use crate::{error::ApiError, state::AppState};

/// `GET|HEAD /v1/file/<path>`.
#[handler]
pub async fn deliver_file(req: &Request, state: Data<&AppState>) -> Result<Response, ApiError> {
    // Parameters are validated now so a bad one gets its precise 400; rendering arrives with the image
    // pipeline, until then a valid transformation is refused rather than ignored.
    let transform =
        Transform::from_query(req.uri().query().unwrap_or("")).map_err(|e| ApiError::bad_request(e.to_string()))?;
    if !transform.is_identity() {
        return Err(ApiError::bad_request("image transformations are not available on this server yet"));
    }
    serve(req, &state, "/v1/file/").await
}

/// `GET|HEAD /v1/raw/<path>`.
#[handler]
pub async fn deliver_raw(req: &Request, state: Data<&AppState>) -> Result<Response, ApiError> {
    serve(req, &state, "/v1/raw/").await
}

async fn serve(req: &Request, state: &AppState, prefix: &str) -> Result<Response, ApiError> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Err(method_not_allowed());
    }
    let not_found = || ApiError::not_found("no file at this path");
    let raw_path = req.original_uri().path().strip_prefix(prefix).ok_or_else(not_found)?;
    let path = decode_path(raw_path).ok_or_else(not_found)?;
    let file = state.metadata.file_by_path(&path).await?.ok_or_else(not_found)?;
    original(req, state, file).await
}

/// Percent-decodes a request path one segment at a time; `None` when a segment is not UTF-8 or decodes to
/// a `/` (stored names never contain one).
fn decode_path(raw: &str) -> Option<String> {
    let segments = raw
        .split('/')
        .map(|segment| percent_decode_str(segment).decode_utf8().ok().filter(|s| !s.contains('/')))
        .collect::<Option<Vec<_>>>()?;
    Some(segments.join("/"))
}

fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD are allowed here")
}

/// Files are immutable once confirmed, so the id is a strong validator of their bytes.
fn etag_of(file: &FileRecord) -> String {
    format!("\"{}\"", file.id)
}

fn etag_matches(req: &Request, etag: &str) -> bool {
    req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',').any(|tag| matches!(tag.trim(), "*") || tag.trim().trim_start_matches("W/") == etag)
    })
}

/// Types a browser may render inline from our origin; everything else is served as an attachment.
fn inline_safe(mime: &str) -> bool {
    (mime.starts_with("image/") && mime != "image/svg+xml")
        || mime.starts_with("video/")
        || mime.starts_with("audio/")
        || matches!(mime, "text/plain" | "application/json" | "application/pdf")
}

async fn original(req: &Request, state: &AppState, file: FileRecord) -> Result<Response, ApiError> {
    let etag = etag_of(&file);
    let headers = |builder: poem::ResponseBuilder| {
        let mut builder = builder
            .header(header::ETAG, etag.as_str())
            .header(header::CACHE_CONTROL, format!("public, max-age={}", state.settings.cache_max_age_secs))
            .header(header::ACCEPT_RANGES, "bytes")
            // Nothing served from our origin may run script, whatever it is.
            .header(header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        if !inline_safe(&file.raw_type) {
            builder = builder.header(header::CONTENT_DISPOSITION, "attachment");
        }
        builder
    };
    if etag_matches(req, &etag) {
        return Ok(headers(Response::builder()).status(StatusCode::NOT_MODIFIED).finish());
    }

    let range = match req.headers().get(header::RANGE).and_then(|v| v.to_str().ok()) {
        Some(value) => match parse_range(value, file.size) {
            RangeRequest::Satisfiable(range) => Some(range),
            RangeRequest::Ignored => None,
            RangeRequest::Unsatisfiable => {
                let mut response =
                    ApiError::new(StatusCode::RANGE_NOT_SATISFIABLE, "requested range is outside the file")
                        .into_response();
                if let Ok(value) = HeaderValue::from_str(&format!("bytes */{}", file.size)) {
                    response.headers_mut().insert(header::CONTENT_RANGE, value);
                }
                return Ok(response);
            }
        },
        None => None,
    };

    let (status, length) = match range {
        Some(r) => (StatusCode::PARTIAL_CONTENT, r.len.unwrap_or(file.size - r.start)),
        None => (StatusCode::OK, file.size),
    };
    let mut builder = headers(Response::builder())
        .status(status)
        .content_type(file.raw_type.as_str())
        .header(header::CONTENT_LENGTH, length);
    if let Some(r) = range {
        builder =
            builder.header(header::CONTENT_RANGE, format!("bytes {}-{}/{}", r.start, r.start + length - 1, file.size));
    }
    if req.method() == Method::HEAD {
        return Ok(builder.finish());
    }
    let key = ObjectKey::parse(&file.object_key).map_err(ApiError::internal)?;
    let stream = state
        .store
        .read(&key, range)
        .await?
        .ok_or_else(|| ApiError::internal(format!("object {key} of file {} is missing", file.id)))?;
    Ok(builder.body(Body::from_bytes_stream(stream)))
}

#[derive(Debug, PartialEq, Eq)]
enum RangeRequest {
    Satisfiable(ByteRange),
    /// Not a single byte range we serve (malformed or multi-range): the whole file is sent (RFC 9110 allows it).
    Ignored,
    Unsatisfiable,
}

fn parse_range(value: &str, size: u64) -> RangeRequest {
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return RangeRequest::Ignored;
    };
    if spec.contains(',') {
        return RangeRequest::Ignored;
    }
    let Some((start, end)) = spec.trim().split_once('-') else {
        return RangeRequest::Ignored;
    };
    let (start, end) = (start.trim(), end.trim());
    let parse = |s: &str| s.parse::<u64>().ok();
    let (first, last) = match (start.is_empty(), end.is_empty()) {
        // bytes=-N: the last N bytes.
        (true, false) => match parse(end) {
            Some(0) => return RangeRequest::Unsatisfiable,
            Some(n) => (size.saturating_sub(n), size.saturating_sub(1)),
            None => return RangeRequest::Ignored,
        },
        // bytes=N-: from N to the end.
        (false, true) => match parse(start) {
            Some(n) => (n, size.saturating_sub(1)),
            None => return RangeRequest::Ignored,
        },
        (false, false) => match (parse(start), parse(end)) {
            (Some(a), Some(b)) if a <= b => (a, b.min(size.saturating_sub(1))),
            _ => return RangeRequest::Ignored,
        },
        (true, true) => return RangeRequest::Ignored,
    };
    if size == 0 || first >= size {
        return RangeRequest::Unsatisfiable;
    }
    RangeRequest::Satisfiable(ByteRange { start: first, len: Some(last - first + 1) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u64, len: u64) -> RangeRequest {
        RangeRequest::Satisfiable(ByteRange { start, len: Some(len) })
    }

    #[test]
    fn paths_decode_per_segment() {
        assert_eq!(decode_path("default/my%20cat%20%C3%A9.png").as_deref(), Some("default/my cat é.png"));
        assert_eq!(decode_path("default/%2e%2e/x.png").as_deref(), Some("default/../x.png"));
        assert_eq!(decode_path("default%2Fcat.png"), None);
        assert_eq!(decode_path("default/a%2fb.png"), None);
        assert_eq!(decode_path("default/%c0%ae.png"), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-9", 100), range(0, 10));
        assert_eq!(parse_range("bytes=90-200", 100), range(90, 10));
        assert_eq!(parse_range("bytes=95-", 100), range(95, 5));
        assert_eq!(parse_range("bytes=-5", 100), range(95, 5));
        assert_eq!(parse_range("bytes=-500", 100), range(0, 100));
        assert_eq!(parse_range("bytes=100-", 100), RangeRequest::Unsatisfiable);
        assert_eq!(parse_range("bytes=-0", 100), RangeRequest::Unsatisfiable);
        assert_eq!(parse_range("bytes=0-", 0), RangeRequest::Unsatisfiable);
        assert_eq!(parse_range("bytes=5-1", 100), RangeRequest::Ignored);
        assert_eq!(parse_range("bytes=0-1,5-6", 100), RangeRequest::Ignored);
        assert_eq!(parse_range("items=0-1", 100), RangeRequest::Ignored);
        assert_eq!(parse_range("bytes=x-1", 100), RangeRequest::Ignored);
    }
}
