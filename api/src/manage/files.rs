//! Listing, reading and deleting an account's files.

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::types::MaybeUndefined;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use shutterbox_model::{FileId, FocalPoint, Operation, clock::now_ms};

use super::{
    delete::delete,
    file_object::{FileObject, Focus},
};
use crate::{auth::Caller, error::ApiError, http::body::JsonBody, http::table::ApiTags, state::AppState};

/// What `PATCH /files/{id}` changes; a field left out stays as it is.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(example)]
#[serde(deny_unknown_fields)]
pub struct FilePatch {
    /// The focal point `gravity=focus` centres a crop on; `null` clears it.
    #[serde(default)]
    pub focus: MaybeUndefined<Focus>,
}

#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct Pagination {
    pub page: u64,
    pub page_size: u64,
    pub total_count: u64,
    pub total_pages: u64,
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct FileList {
    pub files: Vec<FileObject>,
    pub pagination: Pagination,
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct FileEnvelope {
    pub file: FileObject,
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct Message {
    pub message: String,
}

pub struct FilesApi;

#[OpenApi(tag = "ApiTags::Files")]
impl FilesApi {
    /// List files
    ///
    /// The account's files, newest first. A page past the end returns no files with the true totals.
    #[oai(path = "/files", method = "get", operation_id = "listFiles")]
    async fn list(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// Page number, from 1.
        #[oai(validator(minimum(value = "1"), maximum(value = "1000000000")))]
        page: Query<Option<u64>>,
        /// Files per page, 1 to 100.
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))]
        page_size: Query<Option<u64>>,
    ) -> Result<Json<FileList>, ApiError> {
        caller.require(Operation::List)?;
        let page = page.0.unwrap_or(1);
        let page_size = page_size.0.unwrap_or(20);
        let (records, total_count) =
            state.metadata.list_files(&caller.account_id, (page - 1) * page_size, page_size).await?;
        let now = now_ms();
        Ok(Json(FileList {
            files: records.into_iter().map(|record| FileObject::new(record, &state.settings, now)).collect(),
            pagination: Pagination { page, page_size, total_count, total_pages: total_count.div_ceil(page_size) },
        }))
    }

    /// Get a file
    ///
    /// One file of the account, by id. A file of another account, or one deleted, is a 404.
    #[oai(path = "/files/:id", method = "get", operation_id = "getFile")]
    async fn get(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The file's id.
        id: Path<String>,
    ) -> Result<Json<FileEnvelope>, ApiError> {
        caller.require(Operation::Get)?;
        let file = state
            .metadata
            .file(&caller.account_id, &FileId::new(id.0))
            .await?
            .ok_or_else(|| ApiError::not_found("no file with this id"))?;
        Ok(Json(FileEnvelope { file: FileObject::new(file, &state.settings, now_ms()) }))
    }

    /// Update a file
    ///
    /// Sets or clears (`null`) the file's focal point, where `gravity=focus` centres a `cover` crop, and
    /// returns the file. Renders for the old point are no longer served, on any node, once this answers.
    /// Needs a secret key.
    #[oai(path = "/files/:id", method = "patch", operation_id = "updateFile")]
    async fn update(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The file's id.
        id: Path<String>,
        body: JsonBody<FilePatch>,
    ) -> Result<Json<FileEnvelope>, ApiError> {
        caller.require(Operation::Update)?;
        let id = FileId::new(id.0);
        let file = match body.0.focus {
            MaybeUndefined::Undefined => state.metadata.file(&caller.account_id, &id).await?,
            MaybeUndefined::Null => state.metadata.set_focus(&caller.account_id, &id, None, now_ms()).await?,
            MaybeUndefined::Value(Focus { x, y }) => {
                let point = FocalPoint::from_fractions(x, y)
                    .ok_or_else(|| ApiError::bad_request("focus.x and focus.y must be numbers from 0 to 1"))?;
                state.metadata.set_focus(&caller.account_id, &id, Some(point), now_ms()).await?
            }
        };
        let file = file.ok_or_else(|| ApiError::not_found("no file with this id"))?;
        // Every node drops what it remembers of the file (its record, with the old point, and responses).
        state.file_changed(&file.id).await;
        Ok(Json(FileEnvelope { file: FileObject::new(file, &state.settings, now_ms()) }))
    }

    /// Delete a file
    ///
    /// Permanently deletes the file: its record and its stored bytes. Its URLs answer 404 from then on.
    #[oai(path = "/files/:id", method = "delete", operation_id = "deleteFile")]
    async fn delete(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The file's id.
        id: Path<String>,
    ) -> Result<Json<Message>, ApiError> {
        caller.require(Operation::Delete)?;
        delete(&state, &caller.account_id, &FileId::new(id.0))
            .await?
            .ok_or_else(|| ApiError::not_found("no file with this id"))?;
        Ok(Json(Message { message: "File deleted".into() }))
    }
}
