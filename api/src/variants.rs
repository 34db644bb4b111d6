//! Transformed images ("variants") as the delivery path sees them: a byte-bounded in-memory LRU keyed by
//! `VariantKey` (file id + the variant's digest, so parameter order never splits the cache) in front of the
//! worker crate's `Renderer`, which finds a stored variant or renders one from the original. Concurrent
//! misses for one key resolve once: the cache's `try_get_with` lets one caller load while the others wait
//! for its result. A fresh render is kept in the store in the background, so the response never waits for
//! that write and the next process to need the variant reads it instead of rendering it again. In
//! distributed mode `RenderLeases` extends "render once" across API nodes.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use moka::future::Cache;
use shutterbox_metadata::FileRecord;
use shutterbox_worker::{Priority, Renderer, Variant, VariantError, VariantSpec};

use shutterbox_model::clock::now_ms;

use crate::{
    admission::{Overloaded, RenderAdmission},
    coordination::{LeaseOutcome, RenderLeases},
    error::ApiError,
};

/// How often a node waiting for another node's render looks for the stored variant.
const LEASE_POLL: Duration = Duration::from_millis(20);
/// Longest wait for another node's render before rendering here.
const LEASE_WAIT: Duration = Duration::from_secs(30);

/// A variant's name in the cache: whose it is and which one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VariantKey {
    pub file_id: String,
    pub digest: String,
}

impl VariantKey {
    pub fn new(file_id: &str, spec: &VariantSpec) -> Self {
        Self { file_id: file_id.to_owned(), digest: spec.digest() }
    }

    /// A strong ETag: the file is immutable and the pipeline deterministic, so the key names the bytes.
    pub fn etag(&self) -> String {
        format!("\"{}-{}\"", self.file_id, self.digest)
    }
}

/// Counters exported on `/metrics`.
#[derive(Debug, Default)]
pub struct VariantStats {
    /// Renders made by this process on the delivery path (jobs are not counted).
    pub renders: AtomicU64,
    /// Variants read back from the object store on a memory miss.
    pub stored_hits: AtomicU64,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

#[derive(Clone)]
pub struct VariantCache {
    cache: Cache<VariantKey, Arc<Variant>>,
    renderer: Renderer,
    leases: Option<RenderLeases>,
    admission: RenderAdmission,
    pub stats: Arc<VariantStats>,
}

impl VariantCache {
    pub fn new(max_bytes: u64, renderer: Renderer, admission: RenderAdmission) -> Self {
        let cache = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_key: &VariantKey, variant: &Arc<Variant>| u32::try_from(variant.bytes.len()).unwrap_or(u32::MAX))
            .support_invalidation_closures()
            .build();
        Self { cache, renderer, leases: None, admission, stats: Arc::default() }
    }

    /// Shares renders with the other API nodes through `leases` (distributed mode).
    pub fn with_leases(mut self, leases: Option<RenderLeases>) -> Self {
        self.leases = leases;
        self
    }

    /// Renders running or waiting, and renders turned away (for `/metrics`).
    pub fn admission(&self) -> &RenderAdmission {
        &self.admission
    }

    /// The renderer behind the cache (the in-process workers share it).
    pub fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    /// The variant `spec` of `file`, named `key` (`VariantKey::new(&file.id, &spec)`, which the caller has
    /// already made for the ETag): from memory, else the store, else rendered now.
    pub async fn get(&self, key: VariantKey, file: &FileRecord, spec: VariantSpec) -> Result<Arc<Variant>, ApiError> {
        debug_assert_eq!(key, VariantKey::new(&file.id, &spec));
        if let Some(hit) = self.cache.get(&key).await {
            self.stats.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit);
        }
        self.stats.misses.fetch_add(1, Ordering::Relaxed);
        let result = self.cache.try_get_with(key.clone(), self.load(&key, file, spec)).await;
        result.map_err(|shared: Arc<ApiError>| (*shared).clone())
    }

    async fn load(&self, key: &VariantKey, file: &FileRecord, spec: VariantSpec) -> Result<Arc<Variant>, ApiError> {
        if let Some(stored) = self.stored(file, &spec).await? {
            return Ok(stored);
        }
        // A turn to render before anything else, so a refused request holds no lease.
        let _slot = self.admission.admit().await.map_err(|Overloaded| ApiError::overloaded())?;
        let lease = match &self.leases {
            None => None,
            Some(leases) => match leases.take(key).await {
                Ok(LeaseOutcome::Taken(lease)) => Some(lease),
                Ok(LeaseOutcome::HeldElsewhere) => {
                    if let Some(stored) = self.rendered_elsewhere(leases, key, file, &spec).await? {
                        return Ok(stored);
                    }
                    None
                }
                Err(e) => {
                    tracing::warn!(error = %e, "render leases unavailable; rendering without one");
                    None
                }
            },
        };
        self.stats.renders.fetch_add(1, Ordering::Relaxed);
        let rendered = self.renderer.render(file, &spec, Priority::Request).await.map_err(variant_error);
        let (renderer, leases, file) = (self.renderer.clone(), self.leases.clone(), file.clone());
        let kept = rendered.as_ref().ok().cloned();
        tokio::spawn(async move {
            if let Some(kept) = kept
                && let Err(e) = renderer.persist(&file, &spec, &kept, now_ms()).await
            {
                // The variant is still served from memory and rendered again when needed; nothing is lost.
                tracing::warn!(error = %e, file = %file.id, "could not keep a rendered variant");
            }
            // Released once the variant is stored (or the render failed), so waiting nodes find it.
            if let (Some(leases), Some(lease)) = (leases, lease) {
                leases.release(lease).await;
            }
        });
        Ok(Arc::new(rendered?))
    }

    async fn stored(&self, file: &FileRecord, spec: &VariantSpec) -> Result<Option<Arc<Variant>>, ApiError> {
        let stored = self.renderer.stored(file, spec).await.map_err(variant_error)?;
        if stored.is_some() {
            self.stats.stored_hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok(stored.map(Arc::new))
    }

    /// Waits for the node holding the variant's lease to store it; `None` when the lease ends (or the
    /// wait is too long) without a stored variant.
    async fn rendered_elsewhere(
        &self,
        leases: &RenderLeases,
        key: &VariantKey,
        file: &FileRecord,
        spec: &VariantSpec,
    ) -> Result<Option<Arc<Variant>>, ApiError> {
        let deadline = Instant::now() + LEASE_WAIT;
        loop {
            tokio::time::sleep(LEASE_POLL).await;
            if let Some(stored) = self.stored(file, spec).await? {
                return Ok(Some(stored));
            }
            if !matches!(leases.held(key).await, Ok(true)) || Instant::now() > deadline {
                // The holder may have stored it and released the lease between the two looks.
                return self.stored(file, spec).await;
            }
        }
    }

    /// Forgets every variant of a file (on delete).
    pub fn forget(&self, file_id: &str) {
        let file_id = file_id.to_owned();
        if let Err(e) = self.cache.invalidate_entries_if(move |key, _| key.file_id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's cached variants");
        }
    }
}

/// The one place a variant failure becomes an HTTP status.
fn variant_error(e: VariantError) -> ApiError {
    match e {
        VariantError::Rejected(e) => ApiError::bad_request(e.to_string()),
        VariantError::Store(e) => e.into(),
        VariantError::Metadata(e) => e.into(),
        other => ApiError::internal(other),
    }
}

#[cfg(test)]
mod tests {
    use poem::http::StatusCode;
    use shutterbox_pipeline::{Crop, OutputFormat, PipelineError};

    use super::*;

    /// Every pipeline error an upload's bytes or a request's parameters can cause is a 400 that says what
    /// was wrong; only the pipeline's own fault is a 500.
    #[test]
    fn only_the_pipelines_own_fault_is_a_500() {
        let crop = Crop { x: 5, y: 0, width: 10, height: 10 };
        let by_the_request = [
            PipelineError::UnsupportedFormat,
            PipelineError::TooManyPixels { width: 9000, height: 9000, max_pixels: 50_000_000 },
            PipelineError::Decode("truncated".into()),
            PipelineError::TooManyFrames { max_frames: 1000 },
            PipelineError::CropOutside { crop, width: 8, height: 8 },
            PipelineError::OutputTooLarge { format: OutputFormat::Webp, width: 20_000, height: 10, max_side: 16_383 },
        ];
        for error in by_the_request {
            let message = error.to_string();
            assert!(error.is_client_error(), "{message}");
            let status = variant_error(VariantError::Rejected(error)).status;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{message}");
        }
        let ours = PipelineError::Internal("resize failed".into());
        assert!(!ours.is_client_error());
        let status = variant_error(VariantError::Render(ours)).status;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    }
}
