//! `PUT /storage/<object key>?expires=…&size=…&signature=…`: the target of presigned uploads when the
//! embedded local store is in use. It takes no API key: the signed URL is the credential. With an external
//! store (S3) clients upload there and this route answers 404.

use futures_util::{StreamExt, TryStreamExt};
use poem::{
    Body, Request, Response, handler,
    http::{Method, StatusCode, header},
    web::Data,
};
use shutterbox_storage::{PresignedQuery, UploadRejection};

use crate::{error::ApiError, state::AppState};

#[handler]
pub async fn put(req: &Request, body: Body, state: Data<&AppState>) -> Result<Response, ApiError> {
    if req.method() != Method::PUT {
        return Err(ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "upload URLs accept PUT only"));
    }
    let receiver = state
        .store
        .upload_receiver()
        .ok_or_else(|| ApiError::not_found("this server does not receive uploads; use the uploadUrl from presign"))?;
    let key = req.uri().path().strip_prefix("/storage/").unwrap_or_default();
    let query = PresignedQuery::parse(req.uri().query().unwrap_or(""));
    let content_length = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let stream = body.into_bytes_stream().map_err(std::io::Error::other).boxed();
    match receiver.receive(key, &query, content_length, stream).await {
        Ok(_) => Ok(Response::builder().status(StatusCode::OK).finish()),
        Err(rejection) => Err(match rejection {
            UploadRejection::Malformed(_) => ApiError::bad_request(rejection.to_string()),
            UploadRejection::BadSignature | UploadRejection::Expired => ApiError::forbidden(rejection.to_string()),
            UploadRejection::TooLarge { .. } => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, rejection.to_string()),
            UploadRejection::Storage(e) => ApiError::internal(e),
        }),
    }
}
