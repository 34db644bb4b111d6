//! Pending uploads: created at presign (or a resumable upload's creation), confirmed into a file once, locked
//! by the writer of a resumable upload's pieces, and swept when expired.

use async_trait::async_trait;
use shutterbox_model::{
    AccountId, AccountName, Assembly, FileId, FileKind, FileName, FolderPath, ImageFacts, MediaType, ObjectKey,
    PendingId, StoredPath, VideoFacts,
};

use crate::{FileRecord, Result};

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

impl PendingUpload {
    /// The stored path this upload asks for (before any clash suffix).
    pub fn stored_path(&self, account: &AccountName) -> std::result::Result<StoredPath, String> {
        let name = FileName::from_upload(&self.name, None).map_err(|e| e.to_string())?;
        let folder = match &self.folder {
            Some(folder) => FolderPath::parse(folder).map_err(|e| e.to_string())?,
            None => None,
        };
        Ok(StoredPath::new(account.clone(), folder, name))
    }
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

/// Which lock holders are known to be gone: those whose names start with `node` but not with `alive`
/// (this node's writers from before its last start: a process killed mid-request leaves its lock behind).
#[derive(Debug, Clone, Default)]
pub struct DeadWriters {
    /// `<node>/`, the prefix of every holder this node has named.
    pub node: String,
    /// `<node>/<boot>/`, the prefix of this process's holders.
    pub alive: String,
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
    /// A video's facts, from its container's headers.
    pub video: Option<VideoFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmOutcome {
    Created(Box<FileRecord>),
    /// The pending upload had been confirmed before; this is the id of the file it created.
    AlreadyConfirmed {
        file_id: FileId,
    },
}

#[async_trait]
pub trait UploadStore: Send + Sync {
    async fn create_pending(&self, pending: &PendingUpload) -> Result<()>;

    async fn pending(&self, id: &PendingId) -> Result<Option<PendingUpload>>;

    /// Turns a pending upload into a file, atomically and once: creates the folders on the way, gives the
    /// file a free stem (suffixing the name on a clash) and marks the pending upload as confirmed. A second
    /// call for the same pending upload creates nothing and reports the file the first one made.
    async fn confirm_pending(&self, pending_id: &PendingId, file: NewFile) -> Result<ConfirmOutcome>;

    /// Pending uploads (confirmed or not) that expired before `before_ms`, oldest first, at most `limit`.
    async fn expired_pending(&self, before_ms: i64, limit: u64) -> Result<Vec<PendingUpload>>;

    /// Forgets a pending upload.
    async fn delete_pending(&self, id: &PendingId) -> Result<()>;

    /// Takes the write lock of resumable upload `id` for `holder` until `until_ms`, if nobody holds it, its
    /// holder's lock ran out before `now_ms`, or its holder's name begins with one of `dead` (writers known
    /// to be gone: this node's earlier lives); `false` when another holds it (or there is no such upload).
    /// Taking it again as its holder extends it.
    async fn lock_upload(
        &self,
        id: &PendingId,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
        dead: &DeadWriters,
    ) -> Result<bool>;

    /// Records what a piece added to resumable upload `id`, if `holder` still holds its lock (`false`
    /// otherwise: nothing is recorded).
    async fn record_piece(&self, id: &PendingId, holder: &str, piece: &PieceRecord<'_>) -> Result<bool>;

    /// Lets go of the lock `holder` took, if it still holds it.
    async fn unlock_upload(&self, id: &PendingId, holder: &str) -> Result<()>;
}
