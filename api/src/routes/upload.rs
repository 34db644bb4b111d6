//! The three-step upload: presign (a pending upload and a URL the bytes go to), the PUT itself (to the
//! store, not here), and confirm (verify the stored object, create the file record).

use std::time::Duration;

use poem::web::Data;
use poem_openapi::{Object, OpenApi, payload::Json};
use serde::Deserialize;
use shutterbox_metadata::{ConfirmOutcome, NewFile, PendingUpload};
use shutterbox_model::{AccountName, FileName, FolderPath, Operation, clock::now_ms, sniff};
use shutterbox_storage::{ObjectKey, read_head};
use uuid::Uuid;

use super::{ApiTags, thumbnail};
use crate::{auth::Caller, body::JsonBody, error::ApiError, file_object::FileObject, state::AppState};

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
        state: Data<&AppState>,
        body: JsonBody<PresignRequest>,
    ) -> Result<Json<PendingUploadObject>, ApiError> {
        caller.require(Operation::Presign)?;
        let body = body.0;
        let name = FileName::from_upload(&body.filename, body.custom_filename.as_deref())
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let folder = match body.folder_name.as_deref() {
            Some(folder) => FolderPath::parse(folder).map_err(|e| ApiError::bad_request(e.to_string()))?,
            None => None,
        };
        let mimetype = sniff::normalize_mime(&body.mimetype)
            .ok_or_else(|| ApiError::bad_request("mimetype must be a MIME type such as 'image/png'"))?;
        let settings = &state.settings;
        if body.size > settings.max_upload_bytes {
            return Err(ApiError::bad_request(format!(
                "size {} exceeds the maximum upload size of {} bytes",
                body.size, settings.max_upload_bytes
            )));
        }

        let id = Uuid::new_v4().to_string();
        let key = ObjectKey::pending(&id);
        let expires_in = settings.upload_expiry_secs;
        let upload_url = state.store.presign_put(&key, body.size, Duration::from_secs(expires_in)).await?;
        let now = now_ms();
        let pending = PendingUpload {
            id: id.clone(),
            account_id: caller.account_id,
            object_key: key.clone(),
            name: name.as_str().to_owned(),
            folder: folder.map(|f| f.to_string()),
            declared_type: mimetype,
            size: body.size,
            expires_at_ms: now + i64::try_from(expires_in.saturating_mul(1000)).unwrap_or(i64::MAX),
            created_at_ms: now,
            file_id: None,
        };
        state.metadata.create_pending(&pending).await?;
        Ok(Json(PendingUploadObject { upload_url, pending_upload_id: id, expires_in }))
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
        state: Data<&AppState>,
        body: JsonBody<ConfirmRequest>,
    ) -> Result<Json<ConfirmResponse>, ApiError> {
        caller.require(Operation::Confirm)?;
        let not_found = || ApiError::not_found("no pending upload with this pendingUploadId");
        let pending = state
            .metadata
            .pending(&body.0.pending_upload_id)
            .await?
            .filter(|p| p.account_id == caller.account_id)
            .ok_or_else(not_found)?;
        let now = now_ms();
        if let Some(file_id) = &pending.file_id {
            return already_confirmed(&state, &caller, file_id, now).await;
        }
        let pending_key = pending.object_key.clone();
        if now > pending.expires_at_ms {
            state.discard(&pending_key).await;
            return Err(ApiError::bad_request(
                "this upload expired before it was confirmed; request a new upload URL with /upload/presign",
            ));
        }
        // The size and the leading bytes in one round trip's time (two requests at once to an S3 store).
        let (info, head) = tokio::join!(
            state.store.stat(&pending_key),
            read_head(state.store.as_ref(), &pending_key, sniff::SNIFF_BYTES)
        );
        let (info, head) = match (info, head) {
            (Ok(Some(info)), Ok(head)) => (info, head),
            (info, head) => {
                // A racing confirm of this upload may have just created the file and removed the object,
                // before or between these two reads (a read cut short by the removal is a store error).
                if let Some(file_id) = confirmed_meanwhile(&state, &pending.id).await? {
                    return already_confirmed(&state, &caller, &file_id, now).await;
                }
                let Some(info) = info? else {
                    return Err(ApiError::bad_request(
                        "no bytes have arrived at the uploadUrl yet; PUT the file there before confirming",
                    ));
                };
                (info, head?)
            }
        };
        if info.size != pending.size {
            state.discard(&pending_key).await;
            return Err(ApiError::bad_request(format!(
                "the uploaded object has {} bytes but {} were declared at presign; the object was discarded, \
                 upload it again",
                info.size, pending.size
            )));
        }
        let head = head.unwrap_or_default();
        let sniffed = sniff::sniff(&pending.declared_type, &head);
        let account = AccountName::parse(&caller.account_name).map_err(ApiError::internal)?;
        let path = pending.stored_path(&account).map_err(ApiError::internal)?;

        // Each attempt copies to a key of its own; the database decides which attempt created the file, so
        // racing confirms never share or lose an object.
        let file_id = Uuid::now_v7().to_string();
        let file_key = ObjectKey::original(&file_id);
        // Noted before the copy: should this process die before the record exists, the sweep removes the
        // copy (worker/src/sweeper.rs). Racing attempts that lose leave theirs to the sweep as well.
        state.metadata.begin_object(file_key.as_str(), now).await?;
        if let Err(e) = state.store.copy(&pending_key, &file_key).await {
            // The object vanishes when a racing confirm of this upload wins: answer with its file.
            if let Some(file_id) = confirmed_meanwhile(&state, &pending.id).await? {
                return already_confirmed(&state, &caller, &file_id, now).await;
            }
            return Err(e.into());
        }
        // Tests stop the process here to leave exactly what a crash would (tests/api/sweep.rs).
        fail::fail_point!("confirm-after-copy");
        let new_file = NewFile {
            id: file_id,
            account_id: caller.account_id.clone(),
            path,
            object_key: file_key.clone(),
            raw_type: sniffed.mime,
            kind: sniffed.kind,
            size: info.size,
            now_ms: now,
        };
        let outcome = state.metadata.confirm_pending(&pending.id, new_file).await;
        match outcome {
            Ok(ConfirmOutcome::Created(file)) => {
                if let Err(e) = state.metadata.end_object(file.object_key.as_str()).await {
                    // The sweep finds the record and only drops the note.
                    tracing::warn!(error = %e, "could not settle a confirmed upload's object note");
                }
                tokio::join!(state.discard(&pending_key), thumbnail::enqueue(&state, &file));
                Ok(Json(ConfirmResponse {
                    message: "Upload confirmed".into(),
                    file: FileObject::new(file, &state.settings, now),
                }))
            }
            Ok(ConfirmOutcome::AlreadyConfirmed { file_id }) => {
                state.discard(&file_key).await;
                already_confirmed(&state, &caller, &file_id, now).await
            }
            Err(e) => {
                state.discard(&file_key).await;
                Err(e.into())
            }
        }
    }
}

/// The file created by a pending upload, if it has been confirmed since it was first read.
async fn confirmed_meanwhile(state: &AppState, pending_id: &str) -> Result<Option<String>, ApiError> {
    Ok(state.metadata.pending(pending_id).await?.and_then(|p| p.file_id))
}

async fn already_confirmed(
    state: &AppState,
    caller: &Caller,
    file_id: &str,
    now: i64,
) -> Result<Json<ConfirmResponse>, ApiError> {
    let file = state
        .metadata
        .file(&caller.account_id, file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("the file created by this upload has since been deleted"))?;
    Ok(Json(ConfirmResponse {
        message: "Upload already confirmed".into(),
        file: FileObject::new(file, &state.settings, now),
    }))
}
