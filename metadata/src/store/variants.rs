//! Rendered variants kept in the object store, by file and digest, and what their bounds weigh (per-file
//! count, total bytes, last access, pinned).

use async_trait::async_trait;
use shutterbox_model::{FileId, ObjectKey, VariantDigest};

use crate::Result;

/// A rendered variant kept in the object store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantRecord {
    pub file_id: FileId,
    /// Names the variant: a digest of its canonical parameters and target format.
    pub digest: VariantDigest,
    pub object_key: ObjectKey,
    pub content_type: String,
    pub size: u64,
    /// Rendered ahead of requests (a job) or a preset: evicted only after every other variant.
    pub pinned: bool,
    /// When it was last asked for (coalesced, to about a minute); its creation until then.
    pub last_access_ms: i64,
}

/// What a file's per-file variant cap weighs before one more variant is kept (`VariantStore::variant_room`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantRoom {
    /// The file's stored variants.
    pub stored: u64,
    /// `Some(pinned)` when the variant asked about is one of them.
    pub this: Option<bool>,
    /// The least recently used unpinned variants, oldest first, that one more would evict: as many as the
    /// cap is short of room for it, fewer when the file has not that many unpinned ones.
    pub evictable: Vec<VariantRecord>,
}

#[async_trait]
pub trait VariantStore: Send + Sync {
    /// A stored variant of a file.
    async fn variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<Option<VariantRecord>>;

    /// Records a stored variant, last asked for at `now_ms`; `false` when it was already recorded or the file
    /// no longer exists (the caller then owns the object and removes it).
    async fn put_variant(&self, variant: &VariantRecord, now_ms: i64) -> Result<bool>;

    /// How many variants the file has stored, whether `digest` is one of them, and which unpinned ones would
    /// go to keep one more within `per_file`, in one query: what its per-file cap weighs each time a
    /// variant is kept, without reading every record.
    async fn variant_room(&self, file_id: &FileId, digest: &VariantDigest, per_file: u64) -> Result<VariantRoom>;

    /// Marks a stored variant as kept in preference (a job or a preset asked for it).
    async fn pin_variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<()>;

    /// Notes that the variants `(file id, digest)` were asked for at `now_ms` (one statement per batch;
    /// callers coalesce, so this is not a write per request). A variant asked for later already keeps its
    /// later time.
    async fn touch_variants(&self, keys: &[(FileId, VariantDigest)], now_ms: i64) -> Result<()>;

    /// The stored variants to evict first: unpinned before pinned, least recently asked for first; at
    /// most `limit`.
    async fn least_recent_variants(&self, limit: u64) -> Result<Vec<VariantRecord>>;

    /// Forgets stored variants' records (one statement per few hundred); returns how many there were.
    async fn delete_variants(&self, file_id: &FileId, digests: &[&VariantDigest]) -> Result<u64>;

    /// How many variants are stored, and their bytes.
    async fn variant_totals(&self) -> Result<(u64, u64)>;
}
