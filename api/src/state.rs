//! What every handler shares: the backends (as traits), the limiter and the resolved settings.

use std::sync::Arc;

use async_trait::async_trait;
use poem::http::HeaderValue;

use shutterbox_jobs::Job;
use shutterbox_metadata::MetadataStore;
use shutterbox_model::FileId;
use shutterbox_queue::{JobQueue, JobStats};
use shutterbox_storage::{ObjectKey, ObjectStore};
use shutterbox_variants::Variants;

use crate::{
    delivery::{DeliveryAccess, PathLookup, ResponseCache},
    http::telemetry::HttpMetrics,
    rate_limit::RateLimiter,
    throttle::ColdRenderThrottle,
};

/// Tells the other API nodes that a file was deleted or changed, so that none serves what it remembers of
/// it afterwards (distributed mode: Redis pub/sub, in the binary's `redis`).
#[async_trait]
pub trait DeletionBroadcast: Send + Sync {
    /// Returns once every node reached has forgotten the file, or a bound has passed; never fails the
    /// delete (the nodes' caches expire by themselves).
    async fn file_changed(&self, file_id: &FileId);
}

/// Settings resolved at start-up (addresses are final once the listener is bound).
#[derive(Debug, Clone)]
pub struct Settings {
    /// `<public url>/v1`, the `{base_url}` of docs/api.md.
    pub base_url: String,
    /// Prefix of `rawUrl`.
    pub raw_base_url: String,
    pub max_upload_bytes: u64,
    pub upload_expiry_secs: u64,
    /// `/v1/raw/` answers with a redirect to the store's own presigned GET where it has one (S3).
    pub raw_redirect: bool,
    /// Origins whose pages may call the resumable-upload endpoints (CORS); empty: none.
    pub cors_origins: Vec<String>,
    pub cache_max_age_secs: u64,
    /// `public, max-age=<cache_max_age_secs>`, the Cache-Control of public deliveries, made once.
    pub cache_control: HeaderValue,
    /// What public delivery may render: signing keys, presets, presets only.
    pub access: DeliveryAccess,
    /// `SHUTTERBOX_CACHE_BYTES`, the variant memory: the hot responses take a quarter of it.
    pub cache_bytes: u64,
    /// `SHUTTERBOX_MAX_JSON_BYTES`: the largest JSON request body read.
    pub max_json_bytes: u64,
    /// `SHUTTERBOX_MAX_WARM_ITEMS`: warming items one account may have queued at once.
    pub max_warm_items: u64,
    /// This node's name among the deployment's (`SHUTTERBOX_NODE_ID`), in the names of the upload locks it
    /// takes: after a restart it knows its earlier life's locks for dead.
    pub node_id: String,
}

/// The default of `SHUTTERBOX_MAX_JSON_BYTES`: a warming batch of 10,000 file ids is ~400 KB.
pub const DEFAULT_MAX_JSON_BYTES: u64 = 1024 * 1024;

/// The default of `SHUTTERBOX_MAX_WARM_ITEMS`: a batch's own maximum, so a second full batch waits for the
/// first.
pub const DEFAULT_MAX_WARM_ITEMS: u64 = 100_000;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub metadata: Arc<dyn MetadataStore>,
    pub store: Arc<dyn ObjectStore>,
    pub limiter: Arc<dyn RateLimiter>,
    pub queue: Arc<dyn JobQueue>,
    /// The other API nodes, told of deletions (distributed mode).
    pub peers: Option<Arc<dyn DeletionBroadcast>>,
    pub variants: Variants,
    /// Public paths already resolved to files.
    pub paths: PathLookup,
    /// Variant responses by exact request target.
    pub responses: ResponseCache,
    /// Outcomes of the jobs this process runs.
    pub jobs: Arc<JobStats>,
    /// Requests by route and status, render times: the registry behind `/metrics`.
    pub http_metrics: HttpMetrics,
    /// Cold renders per client address, when the operator set a budget (`SHUTTERBOX_COLD_RENDER_LIMIT`).
    pub cold_renders: Option<Arc<ColdRenderThrottle>>,
}

impl AppState {
    /// Forgets everything this process remembers of a deleted or changed file: its paths (and record),
    /// responses and variants.
    pub fn forget_file(&self, file_id: &FileId) {
        self.paths.forget(file_id);
        self.responses.forget(file_id);
        self.variants.forget(file_id);
    }

    /// A file was deleted or changed: this node forgets it, and so does every other node (distributed
    /// mode).
    pub async fn file_changed(&self, file_id: &FileId) {
        self.forget_file(file_id);
        if let Some(peers) = &self.peers {
            peers.file_changed(file_id).await;
        }
    }

    /// Removes an object that is no longer referenced. When the store refuses now, the removal becomes a
    /// queued job retried with backoff, so a failed step leaves no orphan and the request still succeeds.
    pub async fn discard(&self, key: &ObjectKey) {
        let Err(e) = self.store.delete(key).await else { return };
        tracing::warn!(error = %e, %key, "could not remove an object; queueing its removal");
        let job = Job::DeleteObject { key: key.clone() };
        if let Err(e) = job.enqueue(self.queue.as_ref()).await {
            tracing::error!(error = %e, %key, "could not queue an object's removal; it is left behind");
        }
    }
}
