//! `JsonBody<T>`: a JSON request body documented with `T`'s OpenAPI schema but parsed with serde, so every
//! 400 names the field and the problem (`size: invalid type: string "5", expected u64`, `missing field
//! `filename``), where poem-openapi's own parser names only the type. A missing Content-Type is read as
//! JSON; another one is a 400 (declared), not the framework's undeclared 415.

use poem::{FromRequest, Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
    payload::{ParsePayload, Payload},
    registry::{MetaMediaType, MetaRequest, MetaSchemaRef, Registry},
    types::Type,
};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

#[derive(Debug)]
pub struct JsonBody<T>(pub T);

fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl<T: Type> Payload for JsonBody<T> {
    const CONTENT_TYPE: &'static str = "application/json; charset=utf-8";

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
        let data = <Vec<u8> as FromRequest>::from_request(request, body).await?;
        if data.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request("request body is empty; send a JSON object").into());
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&data);
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
        Ok(Self(value))
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
