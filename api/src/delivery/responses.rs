//! Variant responses by request target (path and query exactly as sent): the fast path of delivery. A hit
//! skips everything a variant request otherwise does before its bytes are known — parsing and
//! canonicalising the query, the path lookup, the variant digest and the variant cache — which is most of
//! the cost of serving a cached variant.
//!
//! An entry holds the same `Bytes` as the variant cache (no copy), and is bounded in bytes of its own, so
//! keeping a response alive here after the variant cache dropped it stays within that bound. Deleting a
//! file drops its entries; an answer computed while a delete was under way is not kept (the generation
//! check, as in `lookup.rs`), and entries expire after a minute, the bound on a delete made by another API
//! node until invalidations travel between nodes.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use bytes::Bytes;
use moka::sync::Cache;
use poem::http::HeaderValue;
use shutterbox_model::FileId;

/// A variant response as it is sent again.
#[derive(Debug)]
pub struct CachedResponse {
    pub file_id: FileId,
    pub etag: HeaderValue,
    pub content_type: HeaderValue,
    pub bytes: Bytes,
}

#[derive(Clone)]
pub struct ResponseCache {
    responses: Cache<String, Arc<CachedResponse>>,
    generation: Arc<AtomicU64>,
}

impl ResponseCache {
    /// A cache of at most `max_bytes` of response bodies (0 keeps nothing).
    pub fn new(max_bytes: u64) -> Self {
        let responses = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|target: &String, response: &Arc<CachedResponse>| {
                u32::try_from(target.len() + response.bytes.len()).unwrap_or(u32::MAX)
            })
            .time_to_live(Duration::from_secs(60))
            .support_invalidation_closures()
            .build();
        Self { responses, generation: Arc::default() }
    }

    pub fn get(&self, target: &str) -> Option<Arc<CachedResponse>> {
        self.responses.get(target)
    }

    /// The generation to hand back to `insert` for an answer about to be computed.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Keeps `response` for `target` unless a file was deleted since `generation` was read.
    pub fn insert(&self, target: &str, generation: u64, response: CachedResponse) {
        if self.generation.load(Ordering::Acquire) == generation {
            self.responses.insert(target.to_owned(), Arc::new(response));
        }
    }

    /// Drops every response of a deleted file.
    pub fn forget(&self, file_id: &FileId) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        let file_id = file_id.clone();
        if let Err(e) = self.responses.invalidate_entries_if(move |_, response| response.file_id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's cached responses");
        }
    }
}
