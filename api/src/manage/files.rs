//! Listing, reading and deleting an account's files.

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::types::MaybeUndefined;
use poem_openapi::{
    Enum, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use shutterbox_metadata::{FileListing, FileSort, FileSortKey, FolderScope};
use shutterbox_model::{FileId, FileKind, FocalPoint, FolderId, Operation, clock::now_ms};

use super::{
    delete::delete,
    file_object::{FileObject, Focus},
};
use crate::{auth::Caller, error::ApiError, http::body::JsonBody, http::route::ApiTags, state::AppState};

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

impl Pagination {
    pub fn new(page: u64, page_size: u64, total_count: u64) -> Self {
        Self { page, page_size, total_count, total_pages: total_count.div_ceil(page_size) }
    }
}

/// What `folderId` takes for the files in no folder.
pub const ROOT_FOLDER: &str = "root";

/// A file's `type`, as a listing filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum FileType {
    Image,
    Video,
    Json,
    File,
}

impl From<FileType> for FileKind {
    fn from(kind: FileType) -> Self {
        match kind {
            FileType::Image => FileKind::Image,
            FileType::Video => FileKind::Video,
            FileType::Json => FileKind::Json,
            FileType::File => FileKind::File,
        }
    }
}

/// A listing's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum FileOrder {
    #[oai(rename = "updated")]
    Updated,
    #[oai(rename = "-updated")]
    UpdatedDescending,
    #[oai(rename = "name")]
    Name,
    #[oai(rename = "-name")]
    NameDescending,
    #[oai(rename = "size")]
    Size,
    #[oai(rename = "-size")]
    SizeDescending,
    #[oai(rename = "type")]
    Type,
    #[oai(rename = "-type")]
    TypeDescending,
}

impl From<FileOrder> for FileSort {
    fn from(order: FileOrder) -> Self {
        use FileOrder::*;
        let (key, descending) = match order {
            Updated => (FileSortKey::Updated, false),
            UpdatedDescending => (FileSortKey::Updated, true),
            Name => (FileSortKey::Name, false),
            NameDescending => (FileSortKey::Name, true),
            Size => (FileSortKey::Size, false),
            SizeDescending => (FileSortKey::Size, true),
            Type => (FileSortKey::Type, false),
            TypeDescending => (FileSortKey::Type, true),
        };
        Self { key, descending }
    }
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
    /// The account's files, newest first unless `sort` says otherwise; `name`, `type` and `folderId`
    /// narrow the listing, and `pagination` counts what they select. A page past the end returns no files
    /// with the true totals.
    #[oai(path = "/files", method = "get", operation_id = "listFiles")]
    #[allow(clippy::too_many_arguments)]
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
        /// Only files whose name contains this text, ignoring case (`%` and `_` are plain characters).
        #[oai(validator(min_length = 1, max_length = 255))]
        name: Query<Option<String>>,
        /// Only files of this `type`.
        #[oai(name = "type")]
        kind: Query<Option<FileType>>,
        /// Only the files directly in this folder (an id from `GET /folders`), or `root` for the files in
        /// no folder. Omitted: every folder.
        #[oai(name = "folderId", validator(min_length = 1, max_length = 64))]
        folder_id: Query<Option<String>>,
        /// The order: `updated` (time of the last update), `name` (ignoring case), `size` or `type` (MIME
        /// type, then name), ascending; a leading `-` makes it descending. Default `-updated`.
        sort: Query<Option<FileOrder>>,
    ) -> Result<Json<FileList>, ApiError> {
        caller.require(Operation::List)?;
        let page = page.0.unwrap_or(1);
        let page_size = page_size.0.unwrap_or(20);
        let listing = FileListing {
            name_contains: name.0,
            kind: kind.0.map(FileKind::from),
            folder: folder_id
                .0
                .map(|id| if id == ROOT_FOLDER { FolderScope::Root } else { FolderScope::Folder(FolderId::new(id)) }),
            sort: sort.0.map(FileSort::from).unwrap_or_default(),
        };
        let (records, total_count) =
            state.metadata.list_files(&caller.account_id, &listing, (page - 1) * page_size, page_size).await?;
        let now = now_ms();
        Ok(Json(FileList {
            files: records.into_iter().map(|record| FileObject::new(record, &state.settings, now)).collect(),
            pagination: Pagination::new(page, page_size, total_count),
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
        let file = match body.read().await?.focus {
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

#[cfg(test)]
mod tests {
    use poem_openapi::types::ToJSON;

    use super::*;

    #[test]
    fn the_type_filter_names_each_kind_as_the_file_object_does() {
        for kind in [FileType::Image, FileType::Video, FileType::Json, FileType::File] {
            assert_eq!(kind.to_json(), Some(serde_json::json!(FileKind::from(kind).as_str())));
        }
    }

    #[test]
    fn each_order_is_a_key_and_a_direction() {
        assert_eq!(FileSort::from(FileOrder::UpdatedDescending), FileSort::default());
        assert_eq!(FileSort::from(FileOrder::Name), FileSort { key: FileSortKey::Name, descending: false });
        assert_eq!(FileOrder::SizeDescending.to_json(), Some(serde_json::json!("-size")));
    }
}
