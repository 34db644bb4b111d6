//! `Originals`: the originals renders read, kept in memory by file id within a byte bound, so the renders
//! of one hot original (a page's `srcset`, a warming batch, a burst of new sizes) read it from the store
//! once instead of once each: for a 12 MP JPEG a read is 2.5 MB copied into a fresh buffer per render.
//!
//! An original never changes under its file id, so an entry is never stale; a deleted file's entry is
//! dropped (`forget`), and could not be used meanwhile, as a render starts from the file's record.

use bytes::Bytes;
use moka::future::Cache;
use shutterbox_metadata::FileRecord;
use shutterbox_model::FileId;
use shutterbox_storage::ObjectStore;

use crate::error::VariantError;

#[derive(Clone)]
pub(crate) struct Originals {
    cache: Cache<FileId, Bytes>,
    /// The largest original kept: an eighth of the bound, so a few large ones cannot push out every other.
    max_entry: u64,
}

impl Originals {
    /// Keeps up to `max_bytes` of originals (0 keeps none: every render reads its original).
    pub(crate) fn new(max_bytes: u64) -> Self {
        let cache = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_id: &FileId, bytes: &Bytes| u32::try_from(bytes.len()).unwrap_or(u32::MAX))
            .support_invalidation_closures()
            .build();
        Self { cache, max_entry: max_bytes / 8 }
    }

    /// `file`'s original: from memory, else read from `store` (and kept when it is small enough).
    pub(crate) async fn get(&self, store: &dyn ObjectStore, file: &FileRecord) -> Result<Bytes, VariantError> {
        if let Some(kept) = self.cache.get(&file.id).await {
            return Ok(kept);
        }
        let bytes = store.get(&file.object_key).await?.ok_or_else(|| VariantError::OriginalMissing(file.id.clone()))?;
        if (bytes.len() as u64) <= self.max_entry {
            self.cache.insert(file.id.clone(), bytes.clone()).await;
        }
        Ok(bytes)
    }

    /// Drops a deleted file's original.
    pub(crate) fn forget(&self, file_id: &FileId) {
        let file_id = file_id.clone();
        if let Err(e) = self.cache.invalidate_entries_if(move |id, _| *id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's original from memory");
        }
    }
}
