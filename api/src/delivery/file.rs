//! Public delivery of stored files, no credentials needed: `/v1/file/<stored path>?<transformations>` (image
//! delivery) and `/v1/raw/<stored path>` (the bytes as stored). Both answer GET and HEAD and carry a strong
//! ETag answered with 304; originals support `Range`.
//!
//! `/v1/file/` looks a path up exactly, then by its stem, in which case the URL's extension names the
//! output format (`cat.webp` serves `cat.jpg` as WebP); `format` overrides both. Without transformations
//! and with the original's own path, the original bytes are served. `format=bmp`, SVG and BMP originals
//! are passed through unconverted; transformations on a non-image are a 400.
//!
//! Paths are decoded segment by segment and looked up in the metadata by their exact text, never mapped onto
//! the file system, so `..` can only ever fail to match; a segment that decodes to a `/` (`%2F`) is refused,
//! so no file has a second address.

use std::{sync::Arc, time::Instant};

use poem::{
    Body, Endpoint, IntoResponse, Request, Response, handler,
    http::{HeaderValue, Method, StatusCode, header},
    web::Data,
};
use shutterbox_metadata::FileRecord;
use shutterbox_model::clock::now_ms;
use shutterbox_storage::ByteRange;

use shutterbox_variants::Keep;

use super::{
    DELIVER_FILE, DELIVER_RAW, access::Grant, query::decode_path, responses::CachedResponse, rules::Rendition,
};
use crate::{
    error::ApiError,
    http::{
        envelope::add_common_headers,
        route::RouteSpec,
        telemetry::{access_logged, observe_untraced},
    },
    state::AppState,
    throttle::AddressBudget,
};

/// The outermost layer: a GET or HEAD whose exact target is a variant response `deliver_file` kept is
/// answered here, before the request's span, the error envelope and the routing, with the same response
/// `deliver_file` would give it (`variant_response`, plus what `envelope` and `observe` add to every
/// response). Only a target `deliver_file` answered is ever kept, so the route is known; such an answer
/// cannot fail nor be rate-limited. While the access log is on, every request takes the full path, which
/// logs it.
pub async fn answer_kept<E: Endpoint>(
    endpoint: Arc<E>,
    state: Arc<AppState>,
    request: Request,
) -> poem::Result<Response> {
    let started = Instant::now();
    if matches!(*request.method(), Method::GET | Method::HEAD)
        && request.uri().path().starts_with(DELIVER_FILE.prefix())
        && let Some(hit) = state.responses.get(request.uri().path_and_query().map_or("", |target| target.as_str()))
        && !access_logged()
    {
        let mut response = variant_response(&request, &state, &hit);
        add_common_headers(&mut response);
        observe_untraced(&state.http_metrics, DELIVER_FILE.operation_id, &request, &mut response, started);
        return Ok(response);
    }
    // Boxed, so that this future stays small: hyper moves each request's future into place, and the whole
    // application's inline would be a copy of kilobytes per request.
    Ok(Box::pin(endpoint.get_response(request)).await)
}

/// `Server-Timing` (no constant in `http`'s list).
const SERVER_TIMING: &str = "server-timing";

/// `GET|HEAD /v1/file/<path>`.
#[handler]
pub async fn deliver_file(req: &Request, state: Data<&Arc<AppState>>) -> Result<Response, ApiError> {
    // The exact request target answered before: its bytes and headers, with no parsing or lookups.
    // As sent: `uri()` has lost the prefix of the route this one is nested in.
    let request_target = req.original_uri().path_and_query().map_or("", |target| target.as_str());
    if let Some(hit) = state.responses.get(request_target) {
        return Ok(variant_response(req, &state, &hit));
    }
    let generation = state.responses.generation();
    let path = request_path(req, &DELIVER_FILE)?;
    let query = state.settings.access.read(&path, req.uri().query().unwrap_or(""), now_secs())?;
    let transform = query.transform;
    let located = state.paths.locate(state.metadata.as_ref(), &path).await?.ok_or_else(not_found)?;
    let (file, extension_format) = (&located.file, located.extension_format);

    let spec = match Rendition::of(file, &transform, extension_format) {
        Ok(Rendition::Original) => return original(req, &state, file).await,
        Ok(Rendition::Variant(spec)) => spec,
        Err(e) => return Err(ApiError::bad_request(e.to_string())),
    };
    // A variant is what the request needs: the operator's rules (signing, presets only) decide here, before
    // any render or store write.
    state.settings.access.may_render(&query)?;
    let etag = HeaderValue::try_from(spec.key(&file.id).etag()).map_err(ApiError::internal)?;
    if etag_matches(req, etag.to_str().unwrap_or_default()) {
        return Ok(not_modified(&state, &etag));
    }
    // Presets are the operator's own variants: kept in preference to ad-hoc ones.
    let keep = if query.grant == Grant::Preset { Keep::Pinned } else { Keep::Cached };
    let budget = AddressBudget::of(state.cold_renders.as_deref(), req);
    let started = Instant::now();
    let variant = state.variants.get(file, &spec, keep, &budget).await.map_err(|e| ApiError::from(&*e))?;
    // How long the variant took (a render, or a read of the stored one), for a browser's developer tools
    // and the console's builder; an answer repeated from memory skips this path and has no such header.
    let server_timing = format!("variant;dur={:.1}", started.elapsed().as_secs_f64() * 1000.0);
    let response = CachedResponse {
        file_id: file.id.clone(),
        etag,
        content_type: HeaderValue::try_from(variant.content_type.as_str()).map_err(ApiError::internal)?,
        bytes: variant.bytes.clone(),
    };
    let mut answer = variant_response(req, &state, &response);
    if let Ok(value) = HeaderValue::try_from(server_timing) {
        answer.headers_mut().insert(SERVER_TIMING, value);
    }
    // An expiring URL is checked on every request, so it is refused once it expires.
    if query.expires.is_none() {
        state.responses.insert(request_target, generation, response);
    }
    Ok(answer)
}

pub(crate) fn not_modified(state: &AppState, etag: &HeaderValue) -> Response {
    Response::builder()
        .status(StatusCode::NOT_MODIFIED)
        .header(header::ETAG, etag.clone())
        .header(header::CACHE_CONTROL, state.settings.cache_control.clone())
        .finish()
}

/// A variant's response (thumbnails' too): 304 when the client has it, headers alone for HEAD, else the bytes.
pub(crate) fn variant_response(req: &Request, state: &AppState, response: &CachedResponse) -> Response {
    if etag_matches(req, response.etag.to_str().unwrap_or_default()) {
        return not_modified(state, &response.etag);
    }
    let builder = Response::builder()
        .header(header::ETAG, response.etag.clone())
        .header(header::CACHE_CONTROL, state.settings.cache_control.clone())
        .header(header::CONTENT_TYPE, response.content_type.clone())
        .header(header::CONTENT_LENGTH, response.bytes.len());
    if req.method() == Method::HEAD {
        return builder.finish();
    }
    builder.body(response.bytes.clone())
}

fn now_secs() -> u64 {
    u64::try_from(now_ms() / 1000).unwrap_or(0)
}

fn not_found() -> ApiError {
    ApiError::not_found("no file at this path")
}

/// `GET|HEAD /v1/raw/<path>`.
#[handler]
pub async fn deliver_raw(req: &Request, state: Data<&Arc<AppState>>) -> Result<Response, ApiError> {
    let path = request_path(req, &DELIVER_RAW)?;
    let located = state.paths.locate(state.metadata.as_ref(), &path).await?.ok_or_else(not_found)?;
    // Raw URLs name stored paths exactly; the stem match is `/v1/file/`'s alone.
    if located.extension_format.is_some() {
        return Err(not_found());
    }
    let file = &located.file;
    if state.settings.raw_redirect
        && !etag_matches(req, &etag_of(file))
        && let Some(url) = state
            .store
            .presign_get(
                &file.object_key,
                RAW_REDIRECT_VALIDITY,
                file.raw_type.as_str(),
                !file.raw_type.displays_inline(),
            )
            .await?
    {
        // The redirect may be kept a while, well within the presigned URL's validity.
        return Ok(Response::builder()
            .status(StatusCode::TEMPORARY_REDIRECT)
            .header(header::LOCATION, url)
            .header(header::CACHE_CONTROL, "private, max-age=300")
            .finish());
    }
    original(req, &state, file).await
}

/// How long the presigned GET a raw URL redirects to stays valid (`SHUTTERBOX_RAW_REDIRECT`).
const RAW_REDIRECT_VALIDITY: std::time::Duration = std::time::Duration::from_secs(3600);

/// The stored path a request names, decoded.
fn request_path(req: &Request, route: &RouteSpec) -> Result<String, ApiError> {
    let not_found = || ApiError::not_found("no file at this path");
    let raw_path = req.original_uri().path().strip_prefix(route.prefix()).ok_or_else(not_found)?;
    decode_path(raw_path).ok_or_else(not_found)
}

/// Files are immutable once confirmed, so the id is a strong validator of their bytes.
fn etag_of(file: &FileRecord) -> String {
    format!("\"{}\"", file.id)
}

pub(crate) fn etag_matches(req: &Request, etag: &str) -> bool {
    req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.split(',').any(|tag| matches!(tag.trim(), "*") || tag.trim().trim_start_matches("W/") == etag)
    })
}

async fn original(req: &Request, state: &AppState, file: &FileRecord) -> Result<Response, ApiError> {
    let etag = etag_of(file);
    let headers = |builder: poem::ResponseBuilder| {
        let mut builder = builder
            .header(header::ETAG, etag.as_str())
            .header(header::CACHE_CONTROL, state.settings.cache_control.clone())
            .header(header::ACCEPT_RANGES, "bytes")
            // Nothing served from our origin may run script, whatever it is.
            .header(header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        // Types a browser may render inline from our origin; everything else is an attachment.
        if !file.raw_type.displays_inline() {
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
    let stream = state
        .store
        .read(&file.object_key, range)
        .await?
        .ok_or_else(|| ApiError::internal(format!("object {} of file {} is missing", file.object_key, file.id)))?;
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
