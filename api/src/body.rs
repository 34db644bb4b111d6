//! `JsonBody<T>`: a JSON request body documented with `T`'s OpenAPI schema but parsed with serde, whose
//! errors name the field and the problem (`missing field `size``, `invalid type: string "5", expected u64`)
//! where poem-openapi's own parser only names the type.

use poem::{FromRequest, Request, RequestBody};
use poem_openapi::{
    payload::{ParsePayload, Payload},
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: Type> Payload for JsonBody<T> {
    const CONTENT_TYPE: &'static str = "application/json; charset=utf-8";

    fn check_content_type(content_type: &str) -> bool {
        let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
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
        let data = Vec::<u8>::from_request(request, body).await?;
        if data.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request("request body is empty; send a JSON object").into());
        }
        serde_json::from_slice(&data)
            .map(Self)
            .map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")).into())
    }
}

poem_openapi::impl_apirequest_for_payload!(JsonBody<T>, T: Type + DeserializeOwned);
