//! Shutterbox's metadata, one trait per aggregate (store/): accounts and keys, uploads, files and folders,
//! variants, warming batches, object intents; `MetadataStore` is all of them. `SqlMetadata` implements each
//! once, in its own module of sql/, over sqlx's Any driver, for both SQLite (the embedded default) and
//! PostgreSQL (distributed mode); see ARCHITECTURE.md for why one portable implementation was chosen, and
//! tests/contract/ for the contract both are held to.
//! `SqlMetadata` also copies a database's records into another (`Table`, `Row`: `shutterbox migrate-store`).

mod sql;
mod store;

use async_trait::async_trait;

pub use sql::{
    SqlMetadata,
    transfer::{Row, Selection, Table, Value},
};
pub use store::{
    accounts::{Account, AccountStore, KeyInfo, KeyRecord, NewKey},
    files::{DeletedFile, FileListing, FileRecord, FileSort, FileSortKey, FileStore, FolderRecord, FolderScope},
    intents::IntentStore,
    uploads::{ConfirmOutcome, DeadWriters, NewFile, PendingUpload, PieceRecord, Resumable, UploadStore},
    variants::{VariantRecord, VariantRoom, VariantStore},
    warming::{WarmBatch, WarmFailure, WarmItemState, WarmProgress, WarmStore},
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

/// The whole metadata: one trait per aggregate, each implemented by its own module of `sql/`, and the
/// database's health. Handlers hold an `Arc<dyn MetadataStore>` and import the aggregates they use.
#[async_trait]
pub trait MetadataStore:
    AccountStore + UploadStore + FileStore + VariantStore + WarmStore + IntentStore + Send + Sync + 'static
{
    /// Succeeds when the database answers (for `/readyz`).
    async fn ping(&self) -> Result<()>;
}
