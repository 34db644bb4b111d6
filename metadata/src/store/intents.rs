//! Object intents: writes and removals noted before a record refers to their object or after none does, so
//! the sweep can find what a crash between the two left behind.

use async_trait::async_trait;
use shutterbox_model::ObjectKey;

use crate::Result;

#[async_trait]
pub trait IntentStore: Send + Sync {
    /// Notes that the objects `object_keys` are about to be written or removed before any record refers to
    /// them or after one no longer does (crash safety: see `stale_objects`); one statement per few hundred.
    async fn begin_objects(&self, object_keys: &[&ObjectKey], now_ms: i64) -> Result<()>;

    /// The writes or removals of `object_keys` are settled: their records exist, or the objects are gone.
    async fn end_objects(&self, object_keys: &[&ObjectKey]) -> Result<()>;

    /// Objects begun before `before_ms` and never settled: their writer stopped between writing the object
    /// and recording it. Oldest first, at most `limit`.
    async fn stale_objects(&self, before_ms: i64, limit: u64) -> Result<Vec<ObjectKey>>;

    /// Whether a file or variant record refers to `object_key`.
    async fn object_in_use(&self, object_key: &ObjectKey) -> Result<bool>;
}
