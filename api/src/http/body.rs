//! `JsonBody<T>`: a JSON request body documented with `T`'s OpenAPI schema but parsed with serde, so every
//! 400 names the field and the problem (`size: invalid type: string "5", expected u64`, `missing field
//! `filename``), where poem-openapi's own parser names only the type. A missing Content-Type is read as
//! JSON; another one is a 400 (declared), not the framework's undeclared 415.
//!
//! The body is read only when the handler asks (`JsonBody::read`), after it has checked the caller's
//! scope: a key that may not do the operation never has its body read. A body larger than
//! `SHUTTERBOX_MAX_JSON_BYTES` is a 413: at once when its `Content-Length` says so, else as soon as that
//! many bytes have arrived.

use std::{marker::PhantomData, sync::Arc};

use poem::{Body, Request, RequestBody, error::ReadBodyError, http::StatusCode};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
    payload::{ParsePayload, Payload},
    registry::{MetaMediaType, MetaRequest, MetaSchemaRef, Registry},
    types::Type,
};
use serde::de::DeserializeOwned;

use crate::{error::ApiError, http::server::body_stalled, state::AppState};

/// A JSON body not yet read: `read` reads and parses it.
pub struct JsonBody<T> {
    body: Body,
    limit: u64,
    parsed: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for JsonBody<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonBody").field("limit", &self.limit).finish_non_exhaustive()
    }
}

fn too_large(limit: u64) -> ApiError {
    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("the request body is larger than {limit} bytes"))
}

impl<T: DeserializeOwned> JsonBody<T> {
    /// Reads the body, at most its limit, and parses it into `T`.
    pub async fn read(self) -> Result<T, ApiError> {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let data = self.body.into_bytes_limit(limit).await.map_err(|e| match e {
            ReadBodyError::PayloadTooLarge => too_large(self.limit),
            ReadBodyError::Io(io) if body_stalled(&io).is_some() => {
                ApiError::new(StatusCode::REQUEST_TIMEOUT, io.to_string())
            }
            other => ApiError::bad_request(format!("the request body could not be read: {other}")),
        })?;
        parse(&data)
    }
}

fn parse<T: DeserializeOwned>(data: &[u8]) -> Result<T, ApiError> {
    if data.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("request body is empty; send a JSON object"));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(data);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let message = if path == "." {
            format!("invalid request body: {}", e.inner())
        } else {
            format!("invalid request body: {path}: {}", e.inner())
        };
        ApiError::bad_request(message)
    })?;
    deserializer.end().map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?;
    Ok(value)
}

fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == shutterbox_model::MediaFormat::Json.mime()
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl<T: Type> Payload for JsonBody<T> {
    const CONTENT_TYPE: &'static str = shutterbox_model::JSON_UTF8;

    fn check_content_type(content_type: &str) -> bool {
        is_json(content_type)
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: Type + DeserializeOwned> ParsePayload for JsonBody<T> {
    const IS_REQUIRED: bool = true;

    async fn from_request(request: &Request, body: &mut RequestBody) -> poem::Result<Self> {
        let state =
            request.data::<Arc<AppState>>().ok_or_else(|| ApiError::internal("application state is not installed"))?;
        let limit = state.settings.max_json_bytes;
        let declared = request.header(poem::http::header::CONTENT_LENGTH).and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit) {
            return Err(too_large(limit).into());
        }
        Ok(Self { body: body.take()?, limit, parsed: PhantomData })
    }
}

impl<'a, T: Type + DeserializeOwned> ApiExtractor<'a> for JsonBody<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];

    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        <Self as Payload>::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: <Self as Payload>::CONTENT_TYPE,
                schema: <Self as Payload>::schema_ref(),
            }],
            required: true,
        })
    }

    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        match request.content_type() {
            Some(content_type) if !is_json(content_type) => {
                Err(ApiError::bad_request(format!("Content-Type must be application/json, not '{content_type}'"))
                    .into())
            }
            _ => <Self as ParsePayload>::from_request(request, body).await,
        }
    }
}
