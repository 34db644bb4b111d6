//! The API layer's one error type, `ApiError`, declared in the OpenAPI document for every operation, and
//! how it is answered: the JSON body `{message, status, headers}` (docs/api.md). The lower layers' errors
//! become statuses here (metadata, store, variants) or beside the error they map (`AccessError` in
//! `delivery::access`, `ConfirmError` in `manage::confirm`); `http::envelope` gives the framework's own
//! errors the same body. It depends on no route.

use std::collections::BTreeMap;

use poem::{
    IntoResponse, Response,
    http::{HeaderValue, StatusCode, header},
};
use poem_openapi::{
    ApiResponse, Object,
    registry::{MetaMediaType, MetaResponse, MetaResponses, Registry},
    types::ToJSON,
};
use shutterbox_metadata::MetadataError;
use shutterbox_storage::StoreError;
use shutterbox_variants::VariantError;

/// The error body of every failed request.
#[derive(Debug, Clone, Object)]
#[oai(example, rename = "Error")]
pub struct ErrorBody {
    /// What went wrong, in words meant for the person calling the API.
    pub message: String,
    /// The HTTP status, repeated.
    pub status: u16,
    /// The response's rate-limit headers (and `retry-after` when present); empty otherwise.
    pub headers: BTreeMap<String, String>,
}

/// An API error: a status and a message safe to show to the caller.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Seconds after which a retry may succeed (429, 503).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), retry_after: None }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    pub fn too_many_requests(retry_after: u64) -> Self {
        Self {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, "rate limit exceeded; retry after the reset time")
        }
    }

    /// A fault on our side: the detail goes to the log, the caller gets a generic message.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal server error")
    }

    /// Too many renders running and waiting: the caller should retry in a second.
    pub fn overloaded() -> Self {
        Self {
            retry_after: Some(1),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, "too many images are being rendered right now; retry shortly")
        }
    }

    pub fn unavailable(what: &str, detail: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %detail, "{what} unavailable");
        Self {
            retry_after: Some(5),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, format!("{what} is temporarily unavailable; retry shortly"))
        }
    }
}

impl From<MetadataError> for ApiError {
    fn from(e: MetadataError) -> Self {
        Self::from(&e)
    }
}

impl From<&MetadataError> for ApiError {
    fn from(e: &MetadataError) -> Self {
        match e {
            MetadataError::Unavailable(_) => Self::unavailable("the metadata database", e),
            MetadataError::InvalidText => Self::bad_request(e.to_string()),
            other => Self::internal(other),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        Self::from(&e)
    }
}

impl From<&StoreError> for ApiError {
    fn from(e: &StoreError) -> Self {
        match e {
            StoreError::Unavailable(_) => Self::unavailable("the object store", e),
            other => Self::internal(other),
        }
    }
}

/// The one place a variant failure becomes an HTTP status: what the upload's bytes or the request's
/// parameters caused is a 400 naming it, a spent cold-render budget a 429, a full render queue or a render
/// past its deadline a 503, our own fault a 500.
impl From<&VariantError> for ApiError {
    fn from(e: &VariantError) -> Self {
        match e {
            VariantError::Rejected(e) => Self::bad_request(e.to_string()),
            VariantError::Overloaded => Self::overloaded(),
            VariantError::Unfinished(e) => {
                Self { retry_after: Some(1), ..Self::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()) }
            }
            VariantError::Throttled { retry_after_secs } => {
                Self { retry_after: Some(*retry_after_secs), ..Self::new(StatusCode::TOO_MANY_REQUESTS, e.to_string()) }
            }
            VariantError::NoVideoDecoder => Self::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
            VariantError::Store(e) => e.into(),
            VariantError::Metadata(e) => e.into(),
            other => Self::internal(other),
        }
    }
}

impl poem::error::ResponseError for ApiError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn as_response(&self) -> Response {
        error_response(self.status, &self.message, self.retry_after)
    }
}

fn error_response(status: StatusCode, message: &str, retry_after: Option<u64>) -> Response {
    let body = ErrorBody { message: message.to_owned(), status: status.as_u16(), headers: BTreeMap::new() };
    let mut response =
        Response::builder().status(status).content_type(shutterbox_model::JSON_UTF8).body(body.to_json_string());
    if let Some(seconds) = retry_after {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        poem::error::ResponseError::as_response(&self)
    }
}

/// The statuses every management operation may answer with besides its success.
const ERROR_STATUSES: &[(u16, &str)] = &[
    (400, "Invalid parameters or body."),
    (401, "Missing or invalid API key."),
    (403, "The key's scope does not allow this operation."),
    (404, "No such resource in this account."),
    (408, "The request body arrived too slowly (SHUTTERBOX_BODY_TIMEOUT_SECS)."),
    (413, "The request body is larger than the service reads (SHUTTERBOX_MAX_JSON_BYTES)."),
    (429, "Rate limit exceeded; see Retry-After."),
    (500, "Internal server error."),
    (503, "A backing service is temporarily unavailable; see Retry-After."),
];

impl ApiResponse for ApiError {
    fn meta() -> MetaResponses {
        MetaResponses {
            responses: ERROR_STATUSES
                .iter()
                .map(|&(status, description)| MetaResponse {
                    description,
                    status: Some(status),
                    status_range: None,
                    content: vec![MetaMediaType {
                        content_type: shutterbox_model::JSON_UTF8,
                        schema: <ErrorBody as poem_openapi::types::Type>::schema_ref(),
                    }],
                    headers: vec![],
                })
                .collect(),
        }
    }

    fn register(registry: &mut Registry) {
        <ErrorBody as poem_openapi::types::Type>::register(registry);
    }
}

#[cfg(test)]
mod tests {
    use shutterbox_pipeline::{Crop, OutputFormat, PipelineError};

    use super::*;

    /// Every pipeline error an upload's bytes or a request's parameters can cause is a 400 that says what
    /// was wrong; only the pipeline's own fault is a 500.
    #[test]
    fn only_the_pipelines_own_fault_is_a_500() {
        let crop = Crop { x: 5, y: 0, width: 10, height: 10 };
        let by_the_request = [
            PipelineError::UnsupportedFormat,
            PipelineError::TooManyPixels { width: 9000, height: 9000, max_pixels: 50_000_000 },
            PipelineError::Decode("truncated".into()),
            PipelineError::TooManyFrames { max_frames: 1000 },
            PipelineError::CropOutside { crop, width: 8, height: 8 },
            PipelineError::OutputTooLarge { format: OutputFormat::Webp, width: 20_000, height: 10, max_side: 16_383 },
            PipelineError::SourceTooLarge { bytes: 1 << 30, max_bytes: 256 << 20 },
            PipelineError::TooManyScans { max_scans: 500 },
            PipelineError::CpuBudgetExceeded { secs: 20 },
            PipelineError::OutputTooLargeBytes { max_bytes: 64 << 20 },
            PipelineError::MetadataTooLarge { what: "ICC profile", limit: 4 << 20 },
        ];
        for error in by_the_request {
            let message = error.to_string();
            assert!(error.is_client_error(), "{message}");
            let status = ApiError::from(&VariantError::of_render(error)).status;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
        }
        let ours = PipelineError::Internal("resize failed".into());
        assert!(!ours.is_client_error());
        assert_eq!(ApiError::from(&VariantError::Render(ours)).status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(ApiError::from(&VariantError::Overloaded).status, StatusCode::SERVICE_UNAVAILABLE);
        // A render that ran out of time for the service's load, or whose caller left, may succeed later.
        for unfinished in [PipelineError::DeadlineExceeded { secs: 30 }, PipelineError::Cancelled] {
            let answer = ApiError::from(&VariantError::of_render(unfinished));
            assert_eq!((answer.status, answer.retry_after), (StatusCode::SERVICE_UNAVAILABLE, Some(1)));
        }
    }
}
