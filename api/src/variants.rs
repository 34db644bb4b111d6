//! Transformed images ("variants") as the delivery path sees them: a byte-bounded in-memory LRU keyed by
//! `VariantKey` (file id + the variant's digest, so parameter order never splits the cache) in front of the
//! worker crate's `Renderer`, which finds a stored variant or renders one from the original. Concurrent
//! misses for one key resolve once: the cache's `try_get_with` lets one caller load while the others wait
//! for its result. A fresh render is kept in the store in the background, so the response never waits for
//! that write and the next process to need the variant reads it instead of rendering it again.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use moka::future::Cache;
use shutterbox_metadata::FileRecord;
use shutterbox_worker::{Renderer, Variant, VariantError, VariantSpec};

use shutterbox_model::clock::now_ms;

use crate::error::ApiError;

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
    pub stats: Arc<VariantStats>,
}

impl VariantCache {
    pub fn new(max_bytes: u64, renderer: Renderer) -> Self {
        let cache = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_key: &VariantKey, variant: &Arc<Variant>| u32::try_from(variant.bytes.len()).unwrap_or(u32::MAX))
            .support_invalidation_closures()
            .build();
        Self { cache, renderer, stats: Arc::default() }
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
        let result = self.cache.try_get_with(key, self.load(file, spec)).await;
        result.map_err(|shared: Arc<ApiError>| (*shared).clone())
    }

    async fn load(&self, file: &FileRecord, spec: VariantSpec) -> Result<Arc<Variant>, ApiError> {
        if let Some(stored) = self.renderer.stored(file, &spec).await.map_err(variant_error)? {
            self.stats.stored_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Arc::new(stored));
        }
        self.stats.renders.fetch_add(1, Ordering::Relaxed);
        let variant = self.renderer.render(file, &spec).await.map_err(variant_error)?;
        let (renderer, file, kept) = (self.renderer.clone(), file.clone(), variant.clone());
        tokio::spawn(async move {
            if let Err(e) = renderer.persist(&file, &spec, &kept, now_ms()).await {
                // The variant is still served from memory and rendered again when needed; nothing is lost.
                tracing::warn!(error = %e, file = %file.id, "could not keep a rendered variant");
            }
        });
        Ok(Arc::new(variant))
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
