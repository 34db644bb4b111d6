//! The job queue behind one trait, `JobQueue`. Jobs are derived work (losing one loses no data), delivered
//! at least once: a worker takes a `Delivery`, then acks it or hands it back for a later attempt; after
//! `MAX_ATTEMPTS` a job is dead-lettered. `InProcessQueue` is the embedded backend, run by workers inside
//! `serve`; the distributed backend (Redis Streams) implements the same trait.

mod in_process;

use std::time::Duration;

use async_trait::async_trait;

pub use in_process::InProcessQueue;

/// Attempts before a job is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 5;

/// A unit of background work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// Remove a stored object whose inline removal failed (a deleted file's bytes, a confirm's leftovers),
    /// so a failed step leaves no orphan behind.
    DeleteObject { key: String },
    /// Render a variant of a file and keep it in the object store (thumbnails on confirm, transform-url
    /// variants), so its first request is already a hit. `query` is in delivery syntax; `target` is a
    /// `Target` name (`source`, `auto`, `webp`, …).
    RenderVariant { file_id: String, query: String, target: String },
}

/// A job handed to a worker, with how many times it has been tried before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: u64,
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
    async fn enqueue(&self, job: Job) -> Result<(), QueueError>;

    /// Waits for the next job; `None` once the queue is closed.
    async fn next(&self) -> Result<Option<Delivery>, QueueError>;

    /// The job is done.
    async fn ack(&self, delivery: &Delivery) -> Result<(), QueueError>;

    /// The job failed: try again after `delay`, or dead-letter it once it has had `MAX_ATTEMPTS`.
    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError>;

    /// Jobs waiting or scheduled for retry.
    async fn depth(&self) -> Result<usize, QueueError>;

    /// Jobs given up on, oldest first.
    async fn dead_letters(&self) -> Result<Vec<Job>, QueueError>;
}
