//! The cleanup sweep: what a crash or an abandoned upload leaves in the object store goes away.
//!
//! - Expired pending uploads: their object under `pending/` (bytes PUT but never confirmed), a resumable
//!   upload's assembly (its partial file, or its S3 multipart upload and tail object), and their row. A
//!   resumable upload expires `SHUTTERBOX_UPLOAD_EXPIRY_SECS` after its last piece.
//!   Rows of confirmed uploads go too, so a repeated confirm answers 404 once its upload has expired.
//! - Stale intents: every write of an object that a record will refer to (a confirm's copy, a stored
//!   variant) is noted first (`MetadataStore::begin_objects`) and settled after. An intent older than the
//!   grace period means the writer stopped in between; the object is deleted unless a record refers to it.
//!
//! - Stored variants over the byte budget: the least recently used go, unpinned first (`Variants::trim`).
//!
//! Everything waits `grace` past its deadline, which must exceed the longest write (a 5 GiB copy), so the
//! sweep never races a writer that is still alive. Several sweepers (API nodes, worker processes) may run at
//! once: each step is idempotent.

use std::{
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use shutterbox_metadata::{MetadataError, MetadataStore};
use shutterbox_queue::JobStats;
use shutterbox_storage::{ObjectStore, StoreError};
use shutterbox_variants::{VariantError, Variants};
use tokio::sync::watch;

/// Rows handled per query; the sweep repeats until a pass finds fewer.
const BATCH: u64 = 200;

/// How long a warming batch's progress stays readable (`GET /v1/warm/{batchId}`) after it was created: its
/// items' rows are then removed, so they cannot pile up.
pub const WARM_BATCH_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    #[error(transparent)]
    Variants(#[from] VariantError),
}

/// What one sweep removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SweepReport {
    pub expired_uploads: u64,
    pub orphaned_objects: u64,
    pub evicted_variants: u64,
    pub expired_warm_batches: u64,
}

#[derive(Clone)]
pub struct Sweeper {
    metadata: Arc<dyn MetadataStore>,
    store: Arc<dyn ObjectStore>,
    grace: Duration,
    variants: Option<Variants>,
    stats: Arc<JobStats>,
}

impl Sweeper {
    pub fn new(metadata: Arc<dyn MetadataStore>, store: Arc<dyn ObjectStore>, grace: Duration) -> Self {
        Self { metadata, store, grace, variants: None, stats: Arc::default() }
    }

    /// Counts what it removes into `stats` (the process's `/metrics`).
    pub fn with_stats(mut self, stats: Arc<JobStats>) -> Self {
        self.stats = stats;
        self
    }

    /// Also keeps the stored variants within their byte budget.
    pub fn with_variants(mut self, variants: Variants) -> Self {
        self.variants = Some(variants);
        self
    }

    /// One sweep as of `now_ms`.
    pub async fn sweep(&self, now_ms: i64) -> Result<SweepReport, SweepError> {
        let cutoff = now_ms.saturating_sub(i64::try_from(self.grace.as_millis()).unwrap_or(i64::MAX));
        let mut report = SweepReport::default();
        if let Some(variants) = &self.variants {
            report.evicted_variants = variants.trim().await?;
        }
        let warm_cutoff = now_ms.saturating_sub(i64::try_from(WARM_BATCH_TTL.as_millis()).unwrap_or(i64::MAX));
        report.expired_warm_batches = self.metadata.expire_warm_batches(warm_cutoff).await?;
        loop {
            let expired = self.metadata.expired_pending(cutoff, BATCH).await?;
            for pending in &expired {
                // An unconfirmed upload's object may be there, and a resumable one's assembly (a partial
                // file, or a multipart upload and its tail). A confirmed one's was removed by its confirm,
                // unless a PUT racing the confirm wrote it again after: removed too (the file has its own
                // copy under a key of its own).
                if pending.file_id.is_none()
                    && let Some(resumable) = &pending.resumable
                {
                    self.store.abort_assembly(&pending.object_key, &resumable.assembly).await?;
                }
                self.store.delete(&pending.object_key).await?;
                self.metadata.delete_pending(&pending.id).await?;
                report.expired_uploads += 1;
                let counter = match pending.resumable {
                    Some(_) => &self.stats.swept_resumable_uploads,
                    None => &self.stats.swept_uploads,
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            if (expired.len() as u64) < BATCH {
                break;
            }
        }
        loop {
            let stale = self.metadata.stale_objects(cutoff, BATCH).await?;
            for object_key in &stale {
                if !self.metadata.object_in_use(object_key).await? {
                    self.store.delete(object_key).await?;
                    report.orphaned_objects += 1;
                    self.stats.swept_orphans.fetch_add(1, Ordering::Relaxed);
                }
                self.metadata.end_objects(&[object_key]).await?;
            }
            if (stale.len() as u64) < BATCH {
                break;
            }
        }
        Ok(report)
    }

    /// Sweeps now and every `interval` until `shutdown`; a failed sweep is logged and tried next time.
    pub async fn run(self, interval: Duration, mut shutdown: watch::Receiver<bool>) {
        loop {
            match self.sweep(shutterbox_model::clock::now_ms()).await {
                Ok(report) if report != SweepReport::default() => tracing::info!(
                    expired_uploads = report.expired_uploads,
                    orphaned_objects = report.orphaned_objects,
                    evicted_variants = report.evicted_variants,
                    "swept"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "cleanup sweep failed; trying again later"),
            }
            tokio::select! {
                _ = shutdown.wait_for(|stop| *stop) => return,
                () = tokio::time::sleep(interval) => {}
            }
        }
    }
}
