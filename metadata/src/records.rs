//! The records the metadata store reads and writes.

use shutterbox_model::{
    AccountId, AccountName, Assembly, BatchId, FileId, FileKind, FileName, FocalPoint, FolderPath, ImageFacts, KeyHash,
    MediaType, ObjectKey, PendingId, PixelSummary, Scope, StoredPath, VariantDigest,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
}

/// An API key as the authenticator sees it: which account it acts for and with what scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub key_id: String,
    pub account_id: AccountId,
    pub account_name: String,
    pub scope: Scope,
}

/// A key to record: its hash (never the secret), its shown prefix, scope and expiry.
#[derive(Debug, Clone, Copy)]
pub struct NewKey<'a> {
    pub hash: &'a KeyHash,
    pub prefix: &'a str,
    pub scope: Scope,
    pub expires_at_ms: Option<i64>,
}

/// What is known of a key, for listing it: never its secret or its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    pub id: String,
    pub account_name: String,
    pub prefix: String,
    pub scope: Scope,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
}

/// A presigned upload awaiting its bytes and confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingUpload {
    pub id: PendingId,
    pub account_id: AccountId,
    pub object_key: ObjectKey,
    /// The name the file will have (customFilename or filename, already validated).
    pub name: String,
    /// The folder path (already validated), if any.
    pub folder: Option<String>,
    pub declared_type: String,
    pub size: u64,
    pub expires_at_ms: i64,
    pub created_at_ms: i64,
    /// Set by the confirm that created the file.
    pub file_id: Option<FileId>,
    /// How far a resumable upload has got; `None` for an upload by presigned PUT.
    pub resumable: Option<Resumable>,
}

/// A resumable (TUS) upload's state beside its pending upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumable {
    /// The bytes received so far, as the object store keeps them.
    pub assembly: Assembly,
    /// The length was not declared at creation and has not been since (`size` is 0 until it is).
    pub length_deferred: bool,
    /// `Upload-Metadata` as the client sent it.
    pub metadata: Option<String>,
    /// SHA-256 (hex) of the token that authorises this upload alone, when presign made it.
    pub token_hash: Option<String>,
}

impl Resumable {
    /// A resumable upload's state before its first byte.
    pub fn new(
        assembly: Assembly,
        length_deferred: bool,
        metadata: Option<String>,
        token_hash: Option<String>,
    ) -> Self {
        Self { assembly, length_deferred, metadata, token_hash }
    }
}

/// What a piece changed of a resumable upload.
#[derive(Debug, Clone, Copy)]
pub struct PieceRecord<'a> {
    pub assembly: &'a Assembly,
    /// The length, when this request declared it (a deferred length).
    pub declared_length: Option<u64>,
    /// The upload's new expiry: activity keeps an upload alive.
    pub expires_at_ms: i64,
}

impl PendingUpload {
    /// The stored path this upload asks for (before any clash suffix).
    pub fn stored_path(&self, account: &AccountName) -> Result<StoredPath, String> {
        let name = FileName::from_upload(&self.name, None).map_err(|e| e.to_string())?;
        let folder = match &self.folder {
            Some(folder) => FolderPath::parse(folder).map_err(|e| e.to_string())?,
            None => None,
        };
        Ok(StoredPath::new(account.clone(), folder, name))
    }
}

/// What confirm asks the store to create.
#[derive(Debug, Clone)]
pub struct NewFile {
    pub id: FileId,
    pub account_id: AccountId,
    pub path: StoredPath,
    pub object_key: ObjectKey,
    pub raw_type: MediaType,
    pub kind: FileKind,
    pub size: u64,
    pub now_ms: i64,
    /// An image's facts, as far as confirm read them from its headers.
    pub facts: Option<ImageFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmOutcome {
    Created(Box<FileRecord>),
    /// The pending upload had been confirmed before; this is the id of the file it created.
    AlreadyConfirmed {
        file_id: FileId,
    },
}

/// A stored file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub id: FileId,
    pub account_id: AccountId,
    pub folder_id: Option<String>,
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
    /// An image's colour, hashes, placeholder and attention point, from the description job; none until it
    /// ran, or when its pixels could not be read.
    pub summary: Option<PixelSummary>,
}

/// A rendered variant kept in the object store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantRecord {
    pub file_id: FileId,
    /// Names the variant: a digest of its canonical parameters and target format.
    pub digest: VariantDigest,
    pub object_key: ObjectKey,
    pub content_type: String,
    pub size: u64,
    /// Rendered ahead of requests (a job) or a preset: evicted only after every other variant.
    pub pinned: bool,
    /// When it was last asked for (coalesced, to about a minute); its creation until then.
    pub last_access_ms: i64,
}

/// What a file's per-file variant cap weighs before one more variant is kept (`MetadataStore::variant_room`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantRoom {
    /// The file's stored variants.
    pub stored: u64,
    /// `Some(pinned)` when the variant asked about is one of them.
    pub this: Option<bool>,
    /// The least recently used unpinned variants, oldest first, that one more would evict: as many as the
    /// cap is short of room for it, fewer when the file has not that many unpinned ones.
    pub evictable: Vec<VariantRecord>,
}

/// What deleting a file removed from the metadata: the objects of all of it are the caller's to remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedFile {
    pub file: FileRecord,
    pub variants: Vec<VariantRecord>,
}

/// A new warming batch: its items are (file id, transformation query) pairs, numbered by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmBatch {
    pub id: BatchId,
    pub account_id: AccountId,
    pub items: Vec<(FileId, String)>,
    pub created_at_ms: i64,
}

/// How a warming item ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarmItemState {
    Done,
    /// Why, in words for the batch's reader.
    Failed {
        reason: String,
    },
}

impl WarmItemState {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed { .. } => "failed",
        }
    }

    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Done => None,
            Self::Failed { reason } => Some(reason),
        }
    }
}

/// A warming item that failed: which file, which transformation (its query as given), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmFailure {
    pub item: u32,
    pub file_id: FileId,
    pub query: String,
    pub reason: String,
}

/// A batch's progress: items finished well, items failed, out of the total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmProgress {
    pub id: BatchId,
    pub total: u64,
    pub done: u64,
    pub failed: u64,
    pub created_at_ms: i64,
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
    Folder(String),
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
    pub id: String,
    pub parent_id: Option<String>,
    /// Its path from the account's top level, e.g. `photos/2026`.
    pub path: String,
    pub file_count: u64,
    pub folder_count: u64,
}
