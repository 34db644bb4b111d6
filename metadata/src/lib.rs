//! Shutterbox's metadata behind one trait, `MetadataStore`: accounts, API keys, pending uploads, folders and
//! files. `SqlMetadata` implements it once, over sqlx's Any driver, for both SQLite (the embedded default)
//! and PostgreSQL (distributed mode); see ARCHITECTURE.md for why one portable implementation was chosen.
//! `SqlMetadata` also copies a database's records into another (`Table`, `Row`: `shutterbox migrate-store`).

mod records;
mod sql;

use async_trait::async_trait;
use shutterbox_model::{
    AccountId, AccountName, BatchId, FileId, FocalPoint, ImageFacts, KeyHash, PendingId, PixelSummary, VariantDigest,
};

/// Which lock holders are known to be gone: those whose names start with `node` but not with `alive`
/// (this node's writers from before its last start: a process killed mid-request leaves its lock behind).
#[derive(Debug, Clone, Default)]
pub struct DeadWriters {
    /// `<node>/`, the prefix of every holder this node has named.
    pub node: String,
    /// `<node>/<boot>/`, the prefix of this process's holders.
    pub alive: String,
}

pub use records::{
    Account, ConfirmOutcome, DeletedFile, FileListing, FileRecord, FileSort, FileSortKey, FolderRecord, FolderScope,
    KeyInfo, KeyRecord, NewFile, NewKey, PendingUpload, PieceRecord, Resumable, VariantRecord, VariantRoom, WarmBatch,
    WarmFailure, WarmItemState, WarmProgress,
};
pub use sql::{
    SqlMetadata,
    transfer::{Row, Selection, Table, Value},
};

#[derive(Debug, thiserror::Error)]
pub enum MetadataError {
    #[error("metadata database is unavailable: {0}")]
    Unavailable(String),
    #[error("metadata query failed: {0}")]
    Query(#[source] sqlx::Error),
    #[error("metadata migration failed: {0}")]
    Migration(String),
    #[error("stored metadata is inconsistent: {0}")]
    Corrupt(String),
    #[error("could not find a free name for {0} after several tries")]
    NameExhausted(String),
    /// Text the database cannot store (PostgreSQL refuses NUL characters); the caller's input is at fault.
    #[error("text contains a character that cannot be stored")]
    InvalidText,
}

impl From<sqlx::Error> for MetadataError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed => Self::Unavailable(e.to_string()),
            // The server going away or not there yet, said in SQLSTATE: class 08 (connection exception) and
            // class 57 (operator intervention: 57P01 admin shutdown on a restart, 57P03 starting up).
            sqlx::Error::Database(ref db)
                if db.code().is_some_and(|code| code.starts_with("08") || code.starts_with("57")) =>
            {
                Self::Unavailable(e.to_string())
            }
            // 22021: character_not_in_repertoire (a NUL byte in text, on PostgreSQL).
            sqlx::Error::Database(ref db) if db.code().as_deref() == Some("22021") => Self::InvalidText,
            other => Self::Query(other),
        }
    }
}

pub type Result<T> = std::result::Result<T, MetadataError>;

#[async_trait]
pub trait MetadataStore: Send + Sync + 'static {
    /// Succeeds when the database answers (for `/readyz`).
    async fn ping(&self) -> Result<()>;

    async fn account_count(&self) -> Result<u64>;

    /// The account with this name, created if it does not exist.
    async fn ensure_account(&self, name: &AccountName, now_ms: i64) -> Result<Account>;

    /// The account with this id.
    async fn account(&self, id: &AccountId) -> Result<Option<Account>>;

    /// Records a new key of `account`; returns its id.
    async fn create_key(&self, account: &Account, key: &NewKey<'_>, now_ms: i64) -> Result<String>;

    /// The key with this hash, with its account, unless it is revoked or expired as of `now_ms`.
    async fn find_key(&self, hash: &KeyHash, now_ms: i64) -> Result<Option<KeyRecord>>;

    /// The keys of an account (of every account with `None`), newest first, revoked and expired ones too.
    async fn list_keys(&self, account_id: Option<&AccountId>) -> Result<Vec<KeyInfo>>;

    /// Revokes key `key_id` (of `account_id` only, when given); `false` when there is no such key or it was
    /// revoked already.
    async fn revoke_key(&self, account_id: Option<&AccountId>, key_id: &str, now_ms: i64) -> Result<bool>;

    async fn create_pending(&self, pending: &PendingUpload) -> Result<()>;

    async fn pending(&self, id: &PendingId) -> Result<Option<PendingUpload>>;

    /// Turns a pending upload into a file, atomically and once: creates the folders on the way, gives the
    /// file a free stem (suffixing the name on a clash) and marks the pending upload as confirmed. A second
    /// call for the same pending upload creates nothing and reports the file the first one made.
    async fn confirm_pending(&self, pending_id: &PendingId, file: NewFile) -> Result<ConfirmOutcome>;

    /// A file of the account; `None` for a missing file and for another account's file alike.
    async fn file(&self, account_id: &AccountId, id: &FileId) -> Result<Option<FileRecord>>;

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
        parent_id: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<FolderRecord>, u64)>;

    /// The account's folder `id` and the folders above it, top level first; `None` when it has no such folder.
    async fn folder_lineage(&self, account_id: &AccountId, id: &str) -> Result<Option<Vec<FolderRecord>>>;

    /// A file by id alone (public thumbnail; no account check).
    async fn file_by_id(&self, id: &FileId) -> Result<Option<FileRecord>>;

    /// A stored variant of a file.
    async fn variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<Option<VariantRecord>>;

    /// Records a stored variant, last asked for at `now_ms`; `false` when it was already recorded or the file
    /// no longer exists (the caller then owns the object and removes it).
    async fn put_variant(&self, variant: &VariantRecord, now_ms: i64) -> Result<bool>;

    /// How many variants the file has stored, whether `digest` is one of them, and which unpinned ones would
    /// go to keep one more within `per_file`, in one query: what its per-file cap weighs each time a
    /// variant is kept, without reading every record.
    async fn variant_room(&self, file_id: &FileId, digest: &VariantDigest, per_file: u64) -> Result<VariantRoom>;

    /// Marks a stored variant as kept in preference (a job or a preset asked for it).
    async fn pin_variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<()>;

    /// Notes that the variants `(file id, digest)` were asked for at `now_ms` (one statement per batch;
    /// callers coalesce, so this is not a write per request).
    async fn touch_variants(&self, keys: &[(FileId, VariantDigest)], now_ms: i64) -> Result<()>;

    /// The stored variants to evict first: unpinned before pinned, least recently asked for first; at
    /// most `limit`.
    async fn least_recent_variants(&self, limit: u64) -> Result<Vec<VariantRecord>>;

    /// Forgets stored variants' records (one statement per few hundred); returns how many there were.
    async fn delete_variants(&self, file_id: &FileId, digests: &[&VariantDigest]) -> Result<u64>;

    /// How many variants are stored, and their bytes.
    async fn variant_totals(&self) -> Result<(u64, u64)>;

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

    /// Images the description job has not run for (of every account), in id order after `after`, at most
    /// `limit`; and how many there are in all (`shutterbox backfill`).
    async fn undescribed_images(&self, after: Option<&FileId>, limit: u64) -> Result<(Vec<FileRecord>, u64)>;

    /// The account's image files (batch warming of a whole account).
    async fn image_files(&self, account_id: &AccountId) -> Result<Vec<FileRecord>>;

    /// Records a warming batch and its items, all queued.
    async fn create_warm_batch(&self, batch: &WarmBatch) -> Result<()>;

    /// Marks a queued item done or failed; `false` when it had finished already (a repeated delivery).
    async fn finish_warm_item(&self, batch_id: &BatchId, item: u32, state: &WarmItemState, now_ms: i64)
    -> Result<bool>;

    /// The failed items of the account's batch, in item order from `offset`, at most `limit`, with their
    /// reasons; and how many failed in all (none for another account's batch).
    async fn warm_failures(
        &self,
        account_id: &AccountId,
        batch_id: &BatchId,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<WarmFailure>, u64)>;

    /// The items of the account's batches still queued (what a new batch is weighed against).
    async fn outstanding_warm_items(&self, account_id: &AccountId) -> Result<u64>;

    /// Removes the batches created before `created_before_ms`, finished or not, with their items; returns
    /// how many.
    async fn expire_warm_batches(&self, created_before_ms: i64) -> Result<u64>;

    /// A batch of the account and its progress; `None` for an unknown batch or another account's.
    async fn warm_progress(&self, account_id: &AccountId, batch_id: &BatchId) -> Result<Option<WarmProgress>>;

    /// Notes that the objects `object_keys` are about to be written or removed before any record refers to
    /// them or after one no longer does (crash safety: see `stale_objects`); one statement per few hundred.
    async fn begin_objects(&self, object_keys: &[&str], now_ms: i64) -> Result<()>;

    /// The writes or removals of `object_keys` are settled: their records exist, or the objects are gone.
    async fn end_objects(&self, object_keys: &[&str]) -> Result<()>;

    /// Objects begun before `before_ms` and never settled: their writer stopped between writing the object
    /// and recording it. Oldest first, at most `limit`.
    async fn stale_objects(&self, before_ms: i64, limit: u64) -> Result<Vec<String>>;

    /// Whether a file or variant record refers to `object_key`.
    async fn object_in_use(&self, object_key: &str) -> Result<bool>;

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
