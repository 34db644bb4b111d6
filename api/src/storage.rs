//! `PUT /storage/<object key>?expires=…&size=…&signature=…`: the target of presigned uploads when the
//! embedded local store is in use. It takes no API key: the signed URL is the credential. With an external
//! store (S3) clients upload there and this route answers 404. Once its upload is confirmed a URL accepts
//! nothing more (409), so a late PUT cannot leave an unreferenced object behind.

use std::sync::Arc;

use futures_util::{StreamExt, TryStreamExt};
use poem::{
    Body, EndpointExt, Request, Response, handler,
    http::{StatusCode, header},
    web::Data,
};
use shutterbox_model::PendingId;
use shutterbox_storage::{PresignedQuery, UploadRejection};

use crate::{
    error::ApiError,
    http::{
        route::{MethodCheck, RouteSpec},
        server::body_stalled,
    },
    state::AppState,
};

/// `PUT /storage/<object key>`.
pub static STORAGE_UPLOAD: RouteSpec = RouteSpec {
    paths: &["/storage/*key"],
    methods: &["PUT"],
    method_check: MethodCheck::Router,
    operation_id: "storageUpload",
    documented: false,
    handler: |_| put.map_to_response().boxed(),
};

#[handler]
async fn put(req: &Request, body: Body, state: Data<&Arc<AppState>>) -> Result<Response, ApiError> {
    let receiver = state
        .store
        .upload_receiver()
        .ok_or_else(|| ApiError::not_found("this server does not receive uploads; use the uploadUrl from presign"))?;
    let key = req.uri().path().strip_prefix(STORAGE_UPLOAD.prefix()).unwrap_or_default();
    let query = PresignedQuery::parse(req.uri().query().unwrap_or(""));
    receiver.verify(key, &query).map_err(rejection_error)?;
    // A URL stays valid after its upload is confirmed; writing again would only leave an orphan behind.
    if let Some(pending_id) = key.strip_prefix("pending/") {
        match state.metadata.pending(&PendingId::new(pending_id)).await? {
            Some(pending) if pending.file_id.is_none() => {}
            Some(_) => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "this upload has already been confirmed; request a new upload URL to upload again",
                ));
            }
            None => return Err(ApiError::not_found("no pending upload for this upload URL")),
        }
    }
    let content_length = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let stream = body.into_bytes_stream().map_err(std::io::Error::other).boxed();
    receiver.receive(key, &query, content_length, stream).await.map_err(rejection_error)?;
    Ok(Response::builder().status(StatusCode::OK).finish())
}

fn rejection_error(rejection: UploadRejection) -> ApiError {
    match rejection {
        UploadRejection::Malformed(_) => ApiError::bad_request(rejection.to_string()),
        UploadRejection::BadSignature | UploadRejection::Expired => ApiError::forbidden(rejection.to_string()),
        UploadRejection::TooLarge { .. } => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, rejection.to_string()),
        UploadRejection::Storage(e) if body_stalled(&e).is_some() => {
            ApiError::new(StatusCode::REQUEST_TIMEOUT, e.to_string())
        }
        UploadRejection::Storage(e) => ApiError::internal(e),
    }
}
