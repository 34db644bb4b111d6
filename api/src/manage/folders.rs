//! `GET /v1/folders`: an account's folders, a level at a time, for browsing (the console's folder view).
//! Folders are made by uploads (`folderName`), never on their own, and vanish with nothing: a folder
//! stays while its record does.

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Query, payload::Json};
use shutterbox_metadata::FolderRecord;
use shutterbox_model::{FolderId, Operation};

use super::files::{Pagination, ROOT_FOLDER};
use crate::{auth::Caller, error::ApiError, http::route::ApiTags, state::AppState};

/// A folder of the account.
#[derive(Debug, Clone, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct Folder {
    /// Its id: the `folderId` of the files in it.
    pub id: String,
    /// Its last path segment.
    pub name: String,
    /// Its path from the top level, e.g. `pets/cats`.
    pub path: String,
    /// The folder holding it; null at the top level.
    #[oai(nullable)]
    pub parent_id: Option<String>,
    /// Files directly in it.
    pub file_count: u64,
    /// Folders directly in it.
    pub folder_count: u64,
}

impl From<FolderRecord> for Folder {
    fn from(record: FolderRecord) -> Self {
        let name = record.path.rsplit('/').next().unwrap_or_default().to_owned();
        Self {
            id: record.id.into_string(),
            name,
            path: record.path,
            parent_id: record.parent_id.map(FolderId::into_string),
            file_count: record.file_count,
            folder_count: record.folder_count,
        }
    }
}

#[derive(Debug, Object)]
#[oai(example)]
pub struct FolderList {
    /// The folders directly in the parent, by path.
    pub folders: Vec<Folder>,
    /// The parent and the folders above it, top level first (a breadcrumb); empty at the top level.
    pub parents: Vec<Folder>,
    pub pagination: Pagination,
}

pub struct FoldersApi;

#[OpenApi(tag = "ApiTags::Files")]
impl FoldersApi {
    /// List folders
    ///
    /// The folders directly in `parentId` (omitted or `root`: the top level), with how many files and
    /// folders each holds. List the files of one with `GET /files?folderId=<id>`.
    #[oai(path = "/folders", method = "get", operation_id = "listFolders")]
    async fn list(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The folder whose folders to list; omitted or `root`: the top level.
        #[oai(name = "parentId", validator(min_length = 1, max_length = 64))]
        parent_id: Query<Option<String>>,
        /// Page number, from 1.
        #[oai(validator(minimum(value = "1"), maximum(value = "1000000000")))]
        page: Query<Option<u64>>,
        /// Folders per page, 1 to 100.
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))]
        page_size: Query<Option<u64>>,
    ) -> Result<Json<FolderList>, ApiError> {
        caller.require(Operation::List)?;
        let page = page.0.unwrap_or(1);
        let page_size = page_size.0.unwrap_or(100);
        let parent = parent_id.0.filter(|id| id != ROOT_FOLDER).map(FolderId::new);
        let parents = match &parent {
            Some(id) => state
                .metadata
                .folder_lineage(&caller.account_id, id)
                .await?
                .ok_or_else(|| ApiError::not_found("no folder with this id"))?,
            None => Vec::new(),
        };
        let (folders, total_count) =
            state.metadata.list_folders(&caller.account_id, parent.as_ref(), (page - 1) * page_size, page_size).await?;
        Ok(Json(FolderList {
            folders: folders.into_iter().map(Folder::from).collect(),
            parents: parents.into_iter().map(Folder::from).collect(),
            pagination: Pagination::new(page, page_size, total_count),
        }))
    }
}
