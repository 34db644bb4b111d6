//! Warming batches (`POST /v1/warm`) and the progress of their items.

use async_trait::async_trait;
use shutterbox_model::{AccountId, BatchId, FileId};

use crate::Result;

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

#[async_trait]
pub trait WarmStore: Send + Sync {
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
}
