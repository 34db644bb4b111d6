//! Files and the folders they are in: lookups by id, path and stem, listings, focus and description, and
//! deletion with their variants.

use async_trait::async_trait;
use shutterbox_model::{
    AccountId, FileId, FileKind, FocalPoint, FolderId, ImageFacts, MediaType, ObjectKey, PixelSummary, StoredPath,
    VideoFacts,
};

use crate::{Result, VariantRecord};

/// A stored file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub id: FileId,
    pub account_id: AccountId,
    pub folder_id: Option<FolderId>,
    /// Full public path, account segment first.
    pub path: StoredPath,
    pub name: String,
    pub object_key: ObjectKey,
    pub raw_type: MediaType,
    pub kind: FileKind,
    pub size: u64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// Where `gravity=focus` centres a crop (`PATCH /v1/files/{id}`); none by default.
    pub focus: Option<FocalPoint>,
    /// An image's size, alpha and frames (from its headers at confirm, or by the description job); none for
    /// a file that is no image, or until the job read headers confirm could not.
    pub facts: Option<ImageFacts>,
    /// A video's facts from its container's headers (at confirm, or by the description job); none for a file
    /// that is no video, or whose headers could not be read.
    pub video: Option<VideoFacts>,
    /// An image's colour, hashes, placeholder and attention point, from the description job; none until it
    /// ran, or when its pixels could not be read.
    pub summary: Option<PixelSummary>,
}

/// What deleting a file removed from the metadata: the objects of all of it are the caller's to remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedFile {
    pub file: FileRecord,
    pub variants: Vec<VariantRecord>,
}

/// Which of an account's files a listing holds and in what order (`GET /v1/files`'s filters and sort).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileListing {
    /// Files whose name contains this text, ignoring case.
    pub name_contains: Option<String>,
    pub kind: Option<FileKind>,
    pub folder: Option<FolderScope>,
    pub sort: FileSort,
}

/// The folder a listing is limited to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderScope {
    /// Files in no folder.
    Root,
    /// Files directly in the folder with this id.
    Folder(FolderId),
}

/// A listing's order; ties go by id, so pages never overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSort {
    pub key: FileSortKey,
    pub descending: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FileSortKey {
    /// Time of the last update: the default, newest first.
    #[default]
    Updated,
    /// Name, ignoring case.
    Name,
    Size,
    /// MIME type, then name.
    Type,
}

impl Default for FileSort {
    fn default() -> Self {
        Self { key: FileSortKey::Updated, descending: true }
    }
}

/// A folder of an account, with how much it directly holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderRecord {
    pub id: FolderId,
    pub parent_id: Option<FolderId>,
    /// Its path from the account's top level, e.g. `photos/2026`.
    pub path: String,
    pub file_count: u64,
    pub folder_count: u64,
}

#[async_trait]
pub trait FileStore: Send + Sync {
    /// A file of the account; `None` for a missing file and for another account's file alike.
    async fn file(&self, account_id: &AccountId, id: &FileId) -> Result<Option<FileRecord>>;

    /// A file by id alone (public thumbnail; no account check).
    async fn file_by_id(&self, id: &FileId) -> Result<Option<FileRecord>>;

    /// A file by its full stored path (public delivery; no account check).
    async fn file_by_path(&self, path: &str) -> Result<Option<FileRecord>>;

    /// A file by its stored path without the extension (stems are unique), for `cat.webp` → `cat.jpg`.
    async fn file_by_stem(&self, stem: &str) -> Result<Option<FileRecord>>;

    /// One page of the account's files that `listing` selects, in its order, and how many it selects in all.
    async fn list_files(
        &self,
        account_id: &AccountId,
        listing: &FileListing,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<FileRecord>, u64)>;

    /// One page of the account's folders directly under `parent_id` (`None`: the top level), by path, and
    /// how many there are in all.
    async fn list_folders(
        &self,
        account_id: &AccountId,
        parent_id: Option<&FolderId>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<FolderRecord>, u64)>;

    /// The account's folder `id` and the folders above it, top level first; `None` when it has no such folder.
    async fn folder_lineage(&self, account_id: &AccountId, id: &FolderId) -> Result<Option<Vec<FolderRecord>>>;

    /// Deletes the file's record and its variant records, and returns both; `None` when the account has no
    /// such file.
    async fn delete_file(&self, account_id: &AccountId, id: &FileId) -> Result<Option<DeletedFile>>;

    /// Sets (or, with `None`, clears) the focal point of the account's file `id`, and returns the file as it
    /// is now; `None` when the account has no such file.
    async fn set_focus(
        &self,
        account_id: &AccountId,
        id: &FileId,
        focus: Option<FocalPoint>,
        now_ms: i64,
    ) -> Result<Option<FileRecord>>;

    /// Records what the description job found of image `id` at `now_ms`: its facts and pixel summary, each
    /// `None` when they could not be read (facts already recorded are kept then). `false` when the file no
    /// longer exists.
    async fn describe_file(
        &self,
        id: &FileId,
        facts: Option<ImageFacts>,
        summary: Option<&PixelSummary>,
        now_ms: i64,
    ) -> Result<bool>;

    /// Records a video's facts, read from its headers by the description job (`false` when the file no
    /// longer exists).
    async fn set_video_facts(&self, id: &FileId, facts: &VideoFacts) -> Result<bool>;

    /// Images and videos the description job has not run for (of every account), in id order after
    /// `after`, at most `limit`; and how many there are in all (`shutterbox backfill`).
    async fn undescribed_files(&self, after: Option<&FileId>, limit: u64) -> Result<(Vec<FileRecord>, u64)>;

    /// The account's image files, in id order (batch warming of a whole account).
    async fn image_files(&self, account_id: &AccountId) -> Result<Vec<FileRecord>>;
}
