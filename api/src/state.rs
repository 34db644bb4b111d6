//! What every handler shares: the backends (as traits), the limiter and the resolved settings.

use std::sync::Arc;

use shutterbox_metadata::MetadataStore;
use shutterbox_storage::ObjectStore;

use crate::rate_limit::RateLimiter;

/// Settings resolved at start-up (addresses are final once the listener is bound).
#[derive(Debug, Clone)]
pub struct Settings {
    /// `<public url>/v1`, the spec's `{base_url}`.
    pub base_url: String,
    /// Prefix of `rawUrl`.
    pub raw_base_url: String,
    pub max_upload_bytes: u64,
    pub upload_expiry_secs: u64,
    pub cache_max_age_secs: u64,
}

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub metadata: Arc<dyn MetadataStore>,
    pub store: Arc<dyn ObjectStore>,
    pub limiter: Arc<dyn RateLimiter>,
}

/// The current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
