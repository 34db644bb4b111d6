//! `RenderSources`: what renders read of each file — its original, or the working copy that stands in for
//! a HEIC or JPEG XL original (`Variants::source`) — kept in memory by file id within a byte bound, so the
//! renders of one hot file (a page's `srcset`, a warming batch, a burst of new sizes) read it from the
//! store once instead of once each: for a 12 MP JPEG a read is 2.5 MB copied into a fresh buffer per render.
//!
//! An original never changes under its file id, nor does its working copy, so an entry is never stale; a
//! deleted file's entry is dropped (`forget`), and could not be used meanwhile, as a render starts from the
//! file's record.

use bytes::Bytes;
use moka::future::Cache;
use shutterbox_metadata::FileRecord;
use shutterbox_model::FileId;
use shutterbox_pipeline::check_source_bytes;
use shutterbox_storage::ObjectStore;

use crate::error::VariantError;

/// What a render reads of a file.
#[derive(Clone)]
pub(crate) enum RenderSource {
    /// The original of a file that may read a working copy, or have one by now (made on another node).
    Original(Bytes),
    /// The original of a file whose renders read it whatever else exists: its format has no working copy,
    /// or its headers rule one out (alpha, too large), which never changes for one original.
    OriginalAlone(Bytes),
    /// The working copy (`VariantSpec::working_copy`).
    WorkingCopy(Bytes),
}

impl RenderSource {
    pub(crate) fn bytes(&self) -> &Bytes {
        match self {
            Self::Original(bytes) | Self::OriginalAlone(bytes) | Self::WorkingCopy(bytes) => bytes,
        }
    }
}

#[derive(Clone)]
pub(crate) struct RenderSources {
    cache: Cache<FileId, RenderSource>,
    /// The largest source kept: an eighth of the bound, so a few large ones cannot push out every other.
    max_entry: u64,
}

impl RenderSources {
    /// Keeps up to `max_bytes` of sources (0 keeps none: every render reads its source from the store).
    pub(crate) fn new(max_bytes: u64) -> Self {
        let cache = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|_id: &FileId, source: &RenderSource| u32::try_from(source.bytes().len()).unwrap_or(u32::MAX))
            .support_invalidation_closures()
            .build();
        Self { cache, max_entry: max_bytes / 8 }
    }

    /// What renders of `file` read, when it is in memory.
    pub(crate) async fn kept(&self, file: &FileId) -> Option<RenderSource> {
        self.cache.get(file).await
    }

    /// Keeps what renders of `file` read, when it is small enough (a working copy replaces the original).
    pub(crate) async fn keep(&self, file: &FileId, source: RenderSource) {
        if (source.bytes().len() as u64) <= self.max_entry {
            self.cache.insert(file.clone(), source).await;
        }
    }

    /// `file`'s original: from memory when that is what is kept, else read from `store` (and kept when
    /// nothing is).
    /// An original larger than `max_bytes` is refused before it is read.
    pub(crate) async fn original(
        &self,
        store: &dyn ObjectStore,
        file: &FileRecord,
        max_bytes: u64,
    ) -> Result<Bytes, VariantError> {
        check_source_bytes(file.size, max_bytes).map_err(VariantError::Rejected)?;
        let kept = self.cache.get(&file.id).await;
        if let Some(RenderSource::Original(bytes) | RenderSource::OriginalAlone(bytes)) = kept {
            return Ok(bytes);
        }
        let bytes = store.get(&file.object_key).await?.ok_or_else(|| VariantError::OriginalMissing(file.id.clone()))?;
        if kept.is_none() {
            self.keep(&file.id, RenderSource::Original(bytes.clone())).await;
        }
        Ok(bytes)
    }

    /// Drops a deleted file's source.
    pub(crate) fn forget(&self, file_id: &FileId) {
        let file_id = file_id.clone();
        if let Err(e) = self.cache.invalidate_entries_if(move |id, _| *id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's source from memory");
        }
    }
}
