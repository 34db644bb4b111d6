//! The job queue behind one trait, `JobQueue`. Jobs are derived work (losing one loses no data), delivered
//! at least once: a worker takes a `Delivery`, then acks it or hands it back for a later attempt; after
//! `MAX_ATTEMPTS` a job is dead-lettered. A job whose identical twin (same `Job::dedupe_key`) is still
//! waiting or running is dropped at enqueue, and jobs are idempotent, so a job done twice is harmless.
//!
//! Two backends: `InProcessQueue`, the embedded one, run by workers inside `serve` (nothing survives a
//! restart); `RedisQueue`, the distributed one over Redis Streams, shared by API nodes and worker
//! processes, which also reclaims the jobs of a worker that died (`redis` module docs). The API shares
//! the queue's pool of ordinary connections (`RedisQueue::pool`) for its rate limiter, render leases and
//! invalidations; `connect_pool` opens such a pool without a queue.

mod in_process;
mod redis;

use std::{sync::atomic::AtomicU64, time::Duration};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shutterbox_variants::VariantSpec;

pub use self::redis::{RedisQueue, RedisQueueOptions, connect_pool};
pub use in_process::InProcessQueue;

/// Attempts before a job is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 5;

/// A unit of background work. Serialized as JSON when the queue is out of process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    /// Remove a stored object whose inline removal failed (a deleted file's bytes, a confirm's leftovers),
    /// so a failed step leaves no orphan behind.
    DeleteObject { key: String },
    /// Render a variant of a file and keep it in the object store (thumbnails on confirm, transform-url
    /// variants, batch warming), so its first request is already a hit. On the wire the spec is two fields,
    /// `query` (delivery syntax) and `target` (`source`, `auto`, `webp`, …). `warm` names the batch item
    /// this job completes, when it is part of a warming batch.
    RenderVariant {
        file_id: String,
        #[serde(flatten)]
        spec: VariantSpec,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warm: Option<WarmItem>,
    },
}

/// One (file, transformation) pair of a warming batch, whose outcome the batch's progress counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmItem {
    pub batch_id: String,
    pub item: u32,
}

impl Job {
    /// The job rendering variant `spec` of file `file_id`, for warming item `warm` if any.
    pub fn render_variant(file_id: &str, spec: VariantSpec, warm: Option<WarmItem>) -> Self {
        Self::RenderVariant { file_id: file_id.to_owned(), spec, warm }
    }

    /// Identical jobs share this key: a queue may drop a job whose twin is still waiting, so enqueuing the
    /// same work twice does it once.
    pub fn dedupe_key(&self) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        hex::encode(&Sha256::digest(text.as_bytes())[..12])
    }

    /// JSON text of the job (the out-of-process queues' wire form).
    pub fn to_json(&self) -> String {
        // A Job holds only strings and integers (a spec is written as two strings): serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// Job outcomes of one process's workers, counted for `/metrics`.
#[derive(Debug, Default)]
pub struct JobStats {
    /// Jobs that succeeded.
    pub done: AtomicU64,
    /// Failed attempts handed back for a retry.
    pub retried: AtomicU64,
    /// Jobs dropped because they cannot succeed.
    pub dropped: AtomicU64,
    /// Variants rendered by jobs (a job finding its variant kept already renders nothing).
    pub renders: AtomicU64,
}

/// A job handed to a worker, with how many times it has been tried before.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The queue's own handle on this delivery (ack and retry use it); opaque to workers.
    pub receipt: String,
    pub job: Job,
    /// 1 on the first attempt.
    pub attempt: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("job queue is unavailable: {0}")]
    Unavailable(String),
}

/// What became of a job handed back after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryOutcome {
    Scheduled,
    DeadLettered,
}

#[async_trait]
pub trait JobQueue: Send + Sync + 'static {
    /// Adds a job. A job identical to one still waiting (same `Job::dedupe_key`) may be dropped instead.
    async fn enqueue(&self, job: Job) -> Result<(), QueueError>;

    /// Waits for the next job; `None` once the queue is closed.
    async fn next(&self) -> Result<Option<Delivery>, QueueError>;

    /// The job is done.
    async fn ack(&self, delivery: &Delivery) -> Result<(), QueueError>;

    /// The job failed: try again after `delay`, or dead-letter it once it has had `MAX_ATTEMPTS`.
    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError>;

    /// The worker stops before finishing the job (shutdown): hand it back at once, for another worker to
    /// take, without counting an attempt.
    async fn release(&self, delivery: Delivery) -> Result<(), QueueError>;

    /// Jobs waiting or scheduled for retry.
    async fn depth(&self) -> Result<usize, QueueError>;

    /// Jobs given up on, oldest first.
    async fn dead_letters(&self) -> Result<Vec<Job>, QueueError>;
}
