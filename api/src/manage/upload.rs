//! The three-step upload: presign (a pending upload and a URL the bytes go to), the PUT itself (to the
//! store, not here), and confirm (verify the stored object, create the file record).

use std::{sync::Arc, time::Duration};

use poem::web::Data;
use poem_openapi::{Object, OpenApi, payload::Json};
use serde::Deserialize;
use shutterbox_model::{Operation, PendingId, clock::now_ms};
use shutterbox_storage::ObjectKey;

use super::{
    confirm::{Confirmed, confirm},
    file_object::FileObject,
    resumable,
    upload_request::UploadRequest,
};
use crate::{
    auth::Caller,
    error::ApiError,
    http::{body::JsonBody, route::ApiTags},
    state::AppState,
};

/// What is about to be uploaded.
#[derive(Debug, Object, Deserialize)]
#[oai(example, skip_serializing_if_is_none, rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct PresignRequest {
    /// Original filename, e.g. `cat.jpg`: at most 255 bytes, without `/`, `\`, control or bidi-override
    /// characters, and not `.` or `..`.
    #[oai(validator(min_length = 1))]
    pub filename: String,
    /// Declared MIME type, e.g. `image/jpeg`. The stored type is sniffed from the bytes at confirm.
    #[oai(validator(pattern = r"^\s*[A-Za-z0-9!#$&^_.+-]{1,127}/[A-Za-z0-9!#$&^_.+-]{1,127}\s*(;.*)?$"))]
    pub mimetype: String,
    /// Exact size in bytes; confirm fails unless the stored object has exactly this size.
    #[oai(validator(minimum(value = "0")))]
    pub size: u64,
    /// Name to store the file under instead of `filename` (takes `filename`'s extension if it has none).
    #[oai(nullable, validator(min_length = 1))]
    pub custom_filename: Option<String>,
    /// Folder to upload into, `/`-separated for nesting (e.g. `pets/cats`); created on demand.
    #[oai(nullable)]
    pub folder_name: Option<String>,
    /// `true` for a resumable upload: `uploadUrl` is then a TUS 1.0 upload URL (send the bytes with
    /// `PATCH`, in as many pieces as you like, resuming after a failure; tus-js-client's `uploadUrl`
    /// option), which its own token authorises, and the file is created when the last byte arrives.
    #[oai(nullable)]
    pub resumable: Option<bool>,
}

/// A pending upload: send the bytes with `PUT` to `uploadUrl`, then confirm with `pendingUploadId`.
#[derive(Debug, Object)]
#[oai(example, rename = "PendingUpload", rename_all = "camelCase")]
pub struct PendingUploadObject {
    /// Presigned storage address; `PUT` the raw bytes there, without an Authorization header.
    pub upload_url: String,
    /// Identifier of the pending upload, for `/upload/confirm`.
    pub pending_upload_id: String,
    /// Seconds for which `uploadUrl` stays valid.
    pub expires_in: u64,
}

#[derive(Debug, Object, Deserialize)]
#[oai(example, rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    /// The `pendingUploadId` returned by presign.
    pub pending_upload_id: String,
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct ConfirmResponse {
    pub message: String,
    pub file: FileObject,
}

pub struct UploadApi;

#[OpenApi(tag = "ApiTags::Upload")]
impl UploadApi {
    /// Request a presigned upload address
    ///
    /// Validates the file's name, folder, type and size, and returns a presigned URL to `PUT` the bytes to
    /// and the id to confirm the upload with. No file exists until the upload is confirmed.
    #[oai(path = "/upload/presign", method = "post", operation_id = "presignUpload")]
    async fn presign(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        body: JsonBody<PresignRequest>,
    ) -> Result<Json<PendingUploadObject>, ApiError> {
        caller.require(Operation::Presign)?;
        let body = body.read().await?;
        let settings = &state.settings;
        let upload = UploadRequest::check(
            &body.filename,
            body.custom_filename.as_deref(),
            body.folder_name.as_deref(),
            &body.mimetype,
        )?;
        if body.size > settings.max_upload_bytes {
            return Err(ApiError::bad_request(format!(
                "size {} exceeds the maximum upload size of {} bytes",
                body.size, settings.max_upload_bytes
            )));
        }
        let expires_in = settings.upload_expiry_secs;
        if body.resumable == Some(true) {
            // The last byte creates the file, as a confirm would.
            caller.require(Operation::Confirm)?;
            let (pending, upload_url) =
                resumable::presign(&state, &caller.account_id, upload, body.size, now_ms()).await?;
            return Ok(Json(PendingUploadObject { upload_url, pending_upload_id: pending.into_string(), expires_in }));
        }
        let id = PendingId::mint();
        let key = ObjectKey::pending(&id);
        let upload_url = state.store.presign_put(&key, body.size, Duration::from_secs(expires_in)).await?;
        let pending = upload.pending(id.clone(), caller.account_id, body.size, settings, now_ms(), None);
        state.metadata.create_pending(&pending).await?;
        Ok(Json(PendingUploadObject { upload_url, pending_upload_id: id.into_string(), expires_in }))
    }

    /// Confirm an upload
    ///
    /// Verifies the object sent to `uploadUrl` (it must exist and have exactly the declared size; its type
    /// is sniffed from its bytes) and creates the file. Confirming the same upload again returns the same
    /// file.
    #[oai(path = "/upload/confirm", method = "post", operation_id = "confirmUpload")]
    async fn confirm(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        body: JsonBody<ConfirmRequest>,
    ) -> Result<Json<ConfirmResponse>, ApiError> {
        caller.require(Operation::Confirm)?;
        let request = body.read().await?;
        let now = now_ms();
        let confirmed = confirm(
            &state,
            &caller.account_id,
            &caller.account_name,
            &PendingId::new(request.pending_upload_id.as_str()),
            now,
        )
        .await?;
        let (message, file) = match confirmed {
            Confirmed::Created(file) => ("Upload confirmed", file),
            Confirmed::Already(file) => ("Upload already confirmed", file),
        };
        Ok(Json(ConfirmResponse { message: message.into(), file: FileObject::new(file, &state.settings, now) }))
    }
}
