//! Job execution. A `Worker` pulls payloads from the queue, decodes each into a `Job`
//! (`shutterbox-jobs`), runs it against the backends, acks it on success and hands it back with
//! exponential backoff on failure. The same code runs inside `serve` (embedded,
//! in-process queue) and in separate worker processes (distributed mode). A render job is
//! `Variants::ensure`, the same path a request's render takes. `sweeper` holds the cleanup sweep.

pub mod sweeper;

use std::{
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use shutterbox_jobs::{Job, UnknownJob};
use shutterbox_metadata::{FileRecord, MetadataError, MetadataStore, WarmItemState};
use shutterbox_model::clock::now_ms;
use shutterbox_queue::{Delivery, JobQueue, JobStats, RetryOutcome};
use shutterbox_storage::{ObjectStore, StoreError};
use shutterbox_variants::{VariantError, Variants};
pub use sweeper::{SweepReport, Sweeper};
use tokio::{sync::watch, task::JoinSet};

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A payload this version cannot run (another version's job, or a damaged one).
    #[error(transparent)]
    Unknown(#[from] UnknownJob),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    #[error(transparent)]
    Variant(#[from] VariantError),
}

impl JobError {
    /// Whether trying again could succeed.
    fn is_transient(&self) -> bool {
        match self {
            Self::Store(_) | Self::Metadata(_) => true,
            Self::Variant(e) => !matches!(e, VariantError::Rejected(_)),
            Self::Unknown(_) => false,
        }
    }
}

/// Backoff before attempt `attempt + 1`: 1 s, 2 s, 4 s … capped at one minute.
pub fn backoff(attempt: u32, base: Duration) -> Duration {
    base.saturating_mul(1 << attempt.saturating_sub(1).min(16)).min(Duration::from_secs(60))
}

/// Reads `file`'s facts and pixel summary and records them (`Job::DescribeImage`, and `shutterbox backfill`
/// for files older than the job): an image's from its pixels, a video's facts from its headers (when it has
/// none yet) and its summary from its poster. A picture that cannot be read is recorded as described all
/// the same, with nothing found, so neither a retry nor a backfill reads it again (its facts from confirm
/// are kept); the reason is returned. Store and database failures are errors, to retry.
pub async fn describe(
    variants: &Variants,
    metadata: &dyn MetadataStore,
    file: &FileRecord,
) -> Result<Option<String>, JobError> {
    let (facts, summary, refused) = match variants.describe(file).await {
        Ok(found) => {
            if let Some(video) = &found.video {
                metadata.set_video_facts(&file.id, video).await?;
            }
            (found.facts, found.summary, None)
        }
        Err(VariantError::Rejected(e)) => {
            tracing::info!(file = %file.id, reason = %e, "an image's pixels cannot be read; it has no summary");
            (None, None, Some(e.to_string()))
        }
        Err(e) => return Err(e.into()),
    };
    metadata.describe_file(&file.id, facts, summary.as_ref(), now_ms()).await?;
    Ok(refused)
}

#[derive(Clone)]
pub struct Worker {
    queue: Arc<dyn JobQueue>,
    store: Arc<dyn ObjectStore>,
    metadata: Arc<dyn MetadataStore>,
    variants: Variants,
    retry_base: Duration,
    stats: Arc<JobStats>,
}

impl Worker {
    pub fn new(
        queue: Arc<dyn JobQueue>,
        store: Arc<dyn ObjectStore>,
        metadata: Arc<dyn MetadataStore>,
        variants: Variants,
    ) -> Self {
        Self { queue, store, metadata, variants, retry_base: Duration::from_secs(1), stats: Arc::default() }
    }

    /// Counts outcomes into `stats` (shared with whoever reports them).
    pub fn with_stats(mut self, stats: Arc<JobStats>) -> Self {
        self.stats = stats;
        self
    }

    /// The first retry's delay (tests shorten it).
    pub fn with_retry_base(mut self, base: Duration) -> Self {
        self.retry_base = base;
        self
    }

    /// Runs one job.
    pub async fn execute(&self, job: &Job) -> Result<(), JobError> {
        match job {
            Job::DeleteObject { key } => {
                self.store.delete(key).await?;
                Ok(())
            }
            Job::RenderVariant { file_id, spec, .. } => {
                // A file deleted since the job was queued needs nothing.
                let Some(file) = self.metadata.file_by_id(file_id).await? else { return Ok(()) };
                // Claimed like a request's render, so a job delivered twice, or racing a request, renders once.
                if self.variants.ensure(&file, spec).await? {
                    self.stats.renders.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            }
            Job::DescribeImage { file_id } => {
                let Some(file) = self.metadata.file_by_id(file_id).await? else { return Ok(()) };
                describe(&self.variants, self.metadata.as_ref(), &file).await.map(|_| ())
            }
        }
    }

    async fn handle(&self, delivery: Delivery) {
        let (warm, outcome) = match Job::from_payload(&delivery.payload) {
            Ok(job) => (job.warm_item().cloned(), self.execute(&job).await),
            Err(unknown) => (None, Err(JobError::Unknown(unknown))),
        };
        let (result, finished) = match outcome {
            Ok(()) => {
                self.stats.done.fetch_add(1, Ordering::Relaxed);
                (self.queue.ack(&delivery).await, Some(WarmItemState::Done))
            }
            Err(e) if e.is_transient() => {
                self.stats.retried.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, job = ?delivery.payload, attempt = delivery.attempt, "job failed; will retry");
                let delay = backoff(delivery.attempt, self.retry_base);
                let attempts = delivery.attempt;
                match self.queue.retry(delivery, delay).await {
                    Ok(RetryOutcome::DeadLettered) => (
                        Ok(()),
                        Some(WarmItemState::Failed { reason: format!("{e} (gave up after {attempts} attempts)") }),
                    ),
                    Ok(RetryOutcome::Scheduled) => (Ok(()), None),
                    Err(e) => (Err(e), None),
                }
            }
            Err(e) => {
                self.stats.dropped.fetch_add(1, Ordering::Relaxed);
                tracing::error!(error = %e, job = ?delivery.payload, "job cannot succeed; dropping it");
                (self.queue.ack(&delivery).await, Some(WarmItemState::Failed { reason: e.to_string() }))
            }
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "could not report a job's outcome to the queue");
        }
        if let (Some(item), Some(state)) = (warm, finished)
            && let Err(e) = self.metadata.finish_warm_item(&item.batch_id, item.item, &state, now_ms()).await
        {
            tracing::warn!(error = %e, batch = %item.batch_id, item = item.item, "could not record a warming item's outcome");
        }
    }

    /// Runs a job; once `shutdown` has been true for `drain`, stops it and hands it back to the queue
    /// instead. Returns whether the job ran to its end.
    async fn handle_or_release(
        &self,
        delivery: Delivery,
        shutdown: &mut watch::Receiver<bool>,
        drain: Duration,
    ) -> bool {
        let copy = delivery.clone();
        let drained = async {
            let _ = shutdown.wait_for(|stop| *stop).await;
            tokio::time::sleep(drain).await;
        };
        tokio::select! {
            () = self.handle(delivery) => true,
            () = drained => {
                // At-least-once: had it finished meanwhile, its next worker finds the work done.
                match self.queue.release(copy).await {
                    Ok(()) => tracing::info!("shutting down: handed an unfinished job back to the queue"),
                    Err(e) => tracing::warn!(error = %e, "could not hand a job back; it is reclaimed after its timeout"),
                }
                false
            }
        }
    }

    /// Runs `concurrency` job loops until `shutdown` turns true. A job in progress then has `drain` to
    /// finish; one still running after that is handed back to the queue, so stopping takes at most `drain`
    /// (plus a round trip) and loses no job.
    pub async fn run(self, concurrency: usize, shutdown: watch::Receiver<bool>, drain: Duration) {
        let mut loops = JoinSet::new();
        for _ in 0..concurrency.max(1) {
            let worker = self.clone();
            let mut shutdown = shutdown.clone();
            loops.spawn(async move {
                loop {
                    let next = tokio::select! {
                        biased;
                        _ = shutdown.wait_for(|stop| *stop) => break,
                        next = worker.queue.next() => next,
                    };
                    match next {
                        Ok(Some(delivery)) => {
                            if !worker.handle_or_release(delivery, &mut shutdown, drain).await {
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            tracing::warn!(error = %e, "job queue unavailable; pausing");
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                }
            });
        }
        while loops.join_next().await.is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use async_trait::async_trait;
    use bytes::Bytes;
    use shutterbox_metadata::SqlMetadata;
    use shutterbox_model::FileId;
    use shutterbox_pipeline::{RenderOptions, Target, Transform};
    use shutterbox_queue::InProcessQueue;
    use shutterbox_storage::{
        AppendError, Appended, Assembly, ByteRange, ByteStream, LocalStore, ObjectInfo, ObjectKey, Piece,
    };
    use shutterbox_variants::{RenderPool, VariantSpec};

    use super::*;

    /// A local store whose deletes fail a set number of times.
    struct FlakyStore {
        inner: LocalStore,
        failures_left: AtomicU32,
    }

    #[async_trait]
    impl ObjectStore for FlakyStore {
        async fn presign_put(&self, key: &ObjectKey, max: u64, ttl: Duration) -> Result<String, StoreError> {
            self.inner.presign_put(key, max, ttl).await
        }
        async fn stat(&self, key: &ObjectKey) -> Result<Option<ObjectInfo>, StoreError> {
            self.inner.stat(key).await
        }
        async fn read(&self, key: &ObjectKey, range: Option<ByteRange>) -> Result<Option<ByteStream>, StoreError> {
            self.inner.read(key, range).await
        }
        async fn put(&self, key: &ObjectKey, bytes: Bytes, content_type: &str) -> Result<(), StoreError> {
            self.inner.put(key, bytes, content_type).await
        }
        async fn copy(&self, from: &ObjectKey, to: &ObjectKey) -> Result<(), StoreError> {
            self.inner.copy(from, to).await
        }
        async fn delete(&self, key: &ObjectKey) -> Result<(), StoreError> {
            let left = self.failures_left.load(Ordering::SeqCst);
            if left > 0 {
                self.failures_left.store(left - 1, Ordering::SeqCst);
                return Err(StoreError::Unavailable("injected failure".into()));
            }
            self.inner.delete(key).await
        }
        async fn check(&self) -> Result<(), StoreError> {
            self.inner.check().await
        }
        async fn begin_assembly(&self, key: &ObjectKey, largest: u64) -> Result<Assembly, StoreError> {
            self.inner.begin_assembly(key, largest).await
        }
        async fn append(&self, key: &ObjectKey, at: &Assembly, piece: Piece) -> Result<Appended, AppendError> {
            self.inner.append(key, at, piece).await
        }
        async fn finish_assembly(&self, key: &ObjectKey, at: &Assembly) -> Result<(), StoreError> {
            self.inner.finish_assembly(key, at).await
        }
        async fn abort_assembly(&self, key: &ObjectKey, at: &Assembly) -> Result<(), StoreError> {
            self.inner.abort_assembly(key, at).await
        }
    }

    async fn worker(dir: &tempfile::TempDir, queue: Arc<InProcessQueue>, store: Arc<FlakyStore>) -> Worker {
        let metadata = Arc::new(SqlMetadata::open_sqlite(&dir.path().join("meta.db")).await.unwrap());
        let pool = RenderPool::new(1).unwrap();
        let variants = Variants::new(metadata.clone(), store.clone(), RenderOptions::default(), pool);
        Worker::new(queue, store, metadata, variants).with_retry_base(Duration::from_millis(1))
    }

    async fn setup(failures: u32) -> (tempfile::TempDir, Arc<InProcessQueue>, Arc<FlakyStore>, ObjectKey) {
        let dir = tempfile::tempdir().unwrap();
        let inner = LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap();
        let key = ObjectKey::original(&FileId::new("f"));
        inner.put(&key, Bytes::from_static(b"bytes"), "text/plain").await.unwrap();
        let store = Arc::new(FlakyStore { inner, failures_left: AtomicU32::new(failures) });
        (dir, Arc::new(InProcessQueue::new()), store, key)
    }

    async fn run_until_drained(worker: Worker, queue: &InProcessQueue) {
        let (stop, shutdown) = watch::channel(false);
        let running = tokio::spawn(worker.run(2, shutdown, Duration::from_secs(5)));
        for _ in 0..500 {
            if queue.depth().await.unwrap() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        stop.send(true).unwrap();
        running.await.unwrap();
    }

    #[tokio::test]
    async fn a_failed_delete_is_retried_until_it_succeeds() {
        let (_dir, queue, store, key) = setup(2).await;
        Job::DeleteObject { key: key.clone() }.enqueue(queue.as_ref()).await.unwrap();
        let worker = worker(&_dir, queue.clone(), store.clone()).await;
        run_until_drained(worker, &queue).await;
        assert_eq!(store.stat(&key).await.unwrap(), None);
        assert!(queue.dead_letters().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_job_that_keeps_failing_is_dead_lettered() {
        let (_dir, queue, store, key) = setup(u32::MAX).await;
        let job = Job::DeleteObject { key: key.clone() };
        job.enqueue(queue.as_ref()).await.unwrap();
        let worker = worker(&_dir, queue.clone(), store.clone()).await;
        run_until_drained(worker, &queue).await;
        assert_eq!(queue.dead_letters().await.unwrap(), vec![job.to_payload()]);
        assert!(store.stat(&key).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_render_job_for_a_deleted_file_is_done_at_once() {
        let (dir, queue, store, _key) = setup(0).await;
        let worker = worker(&dir, queue.clone(), store).await;
        let spec = VariantSpec::new(Transform::from_query("w=10").unwrap(), Target::Auto);
        worker.execute(&Job::render_variant(&FileId::new("gone"), spec, None)).await.unwrap();
    }

    #[tokio::test]
    async fn a_payload_no_job_of_this_version_is_dropped_not_retried() {
        let (dir, queue, store, key) = setup(0).await;
        let stats = Arc::new(JobStats::default());
        let worker = worker(&dir, queue.clone(), store.clone()).await.with_stats(stats.clone());
        let unknown = shutterbox_queue::Payload::from_json(r#"{"kind":"transcode_video","file_id":"f"}"#).unwrap();
        queue.enqueue(unknown).await.unwrap();
        run_until_drained(worker, &queue).await;
        assert_eq!(stats.dropped.load(Ordering::Relaxed), 1);
        assert_eq!(stats.retried.load(Ordering::Relaxed), 0);
        assert!(store.stat(&key).await.unwrap().is_some(), "nothing else was touched");
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let base = Duration::from_secs(1);
        assert_eq!(backoff(1, base), Duration::from_secs(1));
        assert_eq!(backoff(2, base), Duration::from_secs(2));
        assert_eq!(backoff(4, base), Duration::from_secs(8));
        assert_eq!(backoff(30, base), Duration::from_secs(60));
    }
}
