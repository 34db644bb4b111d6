//! Transformed images ("variants"): rendered on demand through the pure pipeline on the blocking pool,
//! kept in a byte-bounded in-memory LRU keyed by `VariantKey` (file id + canonical parameters + target
//! format, so parameter order never splits the cache). Concurrent misses for one key render once: the
//! cache's `try_get_with` lets one caller render while the others wait for its result.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use bytes::Bytes;
use futures_util::TryStreamExt;
use moka::future::Cache;
use sha2::{Digest, Sha256};
use shutterbox_metadata::FileRecord;
use shutterbox_pipeline::{PipelineError, RenderOptions, Target, Transform, render};
use shutterbox_storage::ObjectKey;

use crate::{error::ApiError, state::AppState};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VariantKey {
    pub file_id: String,
    pub canonical: String,
    pub target: Target,
}

impl VariantKey {
    pub fn new(file_id: &str, transform: &Transform, target: Target) -> Self {
        Self { file_id: file_id.to_owned(), canonical: transform.canonical(), target }
    }

    /// A strong ETag: the file is immutable and the pipeline deterministic, so the key names the bytes.
    pub fn etag(&self) -> String {
        let digest = Sha256::digest(format!("{}|{:?}", self.canonical, self.target));
        format!("\"{}-{}\"", self.file_id, &hex::encode(digest)[..16])
    }
}

/// A rendered variant.
#[derive(Debug)]
pub struct Variant {
    pub bytes: Bytes,
    pub mime: &'static str,
}

/// Counters exported on `/metrics`.
#[derive(Debug, Default)]
pub struct VariantStats {
    pub renders: AtomicU64,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

#[derive(Clone)]
pub struct VariantCache {
    cache: Cache<VariantKey, Arc<Variant>>,
    pub stats: Arc<VariantStats>,
    options: RenderOptions,
}

impl VariantCache {
    pub fn new(max_bytes: u64, max_source_pixels: u64) -> Self {
        let cache = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_key: &VariantKey, variant: &Arc<Variant>| u32::try_from(variant.bytes.len()).unwrap_or(u32::MAX))
            .support_invalidation_closures()
            .build();
        Self { cache, stats: Arc::default(), options: RenderOptions { max_pixels: max_source_pixels } }
    }

    /// The variant for `key`, rendered from `file`'s original on a miss.
    pub async fn get(
        &self,
        state: &AppState,
        file: &FileRecord,
        key: VariantKey,
        transform: Transform,
    ) -> Result<Arc<Variant>, ApiError> {
        if let Some(hit) = self.cache.get(&key).await {
            self.stats.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit);
        }
        self.stats.misses.fetch_add(1, Ordering::Relaxed);
        let target = key.target;
        let result = self
            .cache
            .try_get_with(key, async {
                let source = read_original(state, file).await?;
                self.stats.renders.fetch_add(1, Ordering::Relaxed);
                let options = self.options;
                let rendered = tokio::task::spawn_blocking(move || render(&source, &transform, target, options))
                    .await
                    .map_err(ApiError::internal)?
                    .map_err(pipeline_error)?;
                Ok::<_, ApiError>(Arc::new(Variant {
                    bytes: Bytes::from(rendered.bytes),
                    mime: rendered.format.mime(),
                }))
            })
            .await;
        result.map_err(|shared: Arc<ApiError>| (*shared).clone())
    }

    /// Forgets every variant of a file (on delete).
    pub fn forget(&self, file_id: &str) {
        let file_id = file_id.to_owned();
        if let Err(e) = self.cache.invalidate_entries_if(move |key, _| key.file_id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's cached variants");
        }
    }
}

async fn read_original(state: &AppState, file: &FileRecord) -> Result<Vec<u8>, ApiError> {
    let key = ObjectKey::parse(&file.object_key).map_err(ApiError::internal)?;
    let stream = state
        .store
        .read(&key, None)
        .await?
        .ok_or_else(|| ApiError::internal(format!("object {key} of file {} is missing", file.id)))?;
    let mut bytes = Vec::with_capacity(usize::try_from(file.size).unwrap_or(0));
    let mut stream = stream;
    while let Some(chunk) = stream.try_next().await.map_err(ApiError::internal)? {
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn pipeline_error(e: PipelineError) -> ApiError {
    if e.is_client_error() { ApiError::bad_request(e.to_string()) } else { ApiError::internal(e) }
}
