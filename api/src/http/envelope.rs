//! The error envelope, the outermost middleware but telemetry: every response ≥ 400, ours or the
//! framework's (parse errors, unknown routes, 405s), becomes the JSON body `{message, status, headers}`
//! (docs/api.md), with the rate-limit headers copied in and the `Allow` header of a 405 added.

use std::sync::Arc;

use poem::{
    Endpoint, Request, Response,
    http::{HeaderName, HeaderValue, StatusCode, header},
};

use super::allow::AllowTable;
use crate::rate_limit::RateLimitSlot;

/// Largest error body the envelope reads back to recover a message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Wraps the whole application: gives each request a rate-limit slot, turns every error response into the
/// JSON error body with the response's rate-limit headers copied in, and adds the headers every response
/// carries.
pub async fn envelope<E: Endpoint>(
    endpoint: Arc<E>,
    allow: Arc<AllowTable>,
    mut request: Request,
) -> poem::Result<Response> {
    let slot = RateLimitSlot::default();
    request.extensions_mut().insert(slot.clone());
    // Cheap: a Uri clone shares its bytes.
    let uri = request.uri().clone();
    let mut response = endpoint.get_response(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && !response.headers().contains_key(header::ALLOW)
        && let Some(methods) = allow.allowed(uri.path())
        && let Ok(value) = HeaderValue::from_str(methods)
    {
        response.headers_mut().insert(header::ALLOW, value);
    }
    if let Some(decision) = slot.get() {
        decision.apply(response.headers_mut());
    }
    if response.status().is_client_error() || response.status().is_server_error() {
        // The operation's name outlives the rewrite, for the metrics (telemetry.rs).
        let operation = response.data::<poem_openapi::OperationId>().copied();
        response = rewrite_error(response).await;
        if let Some(operation) = operation {
            response.set_data(operation);
        }
    }
    add_common_headers(&mut response);
    Ok(response)
}

/// The headers every response carries, whichever way it was answered.
pub fn add_common_headers(response: &mut Response) {
    response
        .headers_mut()
        .insert(HeaderName::from_static("x-content-type-options"), HeaderValue::from_static("nosniff"));
}

async fn rewrite_error(mut response: Response) -> Response {
    let status = response.status();
    let small = response
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        .is_none_or(|len| len <= MAX_ERROR_BODY);
    let body = if small { response.take_body().into_bytes().await.unwrap_or_default() } else { Default::default() };
    // A JSON object body keeps its extra fields (e.g. `/readyz`'s checks); any other body becomes the message.
    let mut object = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => serde_json::Map::new(),
    };
    let message = object
        .get("message")
        .and_then(|m| m.as_str().map(str::to_owned))
        .or_else(|| {
            let text = String::from_utf8_lossy(&body).trim().to_owned();
            (!text.is_empty() && !text.starts_with('{')).then_some(text)
        })
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_lowercase());
    let headers: serde_json::Map<String, serde_json::Value> = response
        .headers()
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("x-ratelimit-") || *name == header::RETRY_AFTER)
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.into())))
        .collect();
    object.insert("message".into(), message.into());
    object.insert("status".into(), status.as_u16().into());
    object.insert("headers".into(), headers.into());
    let mut rebuilt = Response::builder()
        .status(status)
        .content_type(shutterbox_model::JSON_UTF8)
        .body(serde_json::Value::Object(object).to_string());
    // Keep the headers that matter to the client (rate limits, Retry-After, Allow, Content-Range…).
    for (name, value) in response.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rebuilt.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rebuilt
}
