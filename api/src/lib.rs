//! Shutterbox's HTTP API: the management endpoints (docs/api.md), public delivery, the local store's upload
//! target, authentication, rate limits, the JSON error envelope and the OpenAPI document. It talks to its
//! backends only through traits (`MetadataStore`, `ObjectStore`, `JobQueue`, `RateLimiter`,
//! `DeletionBroadcast`), which the binary constructs and hands to `App::new`.
//!
//! Layers, each importing only those below it: `http` (server, route table and router, envelope,
//! telemetry) over `delivery` (public delivery and its rules) and `manage` (the OpenAPI operations), over
//! what every handler shares (`state`, `error`, `auth`, `rate_limit`, `throttle`).

mod auth;
mod console;
mod delivery;
mod error;
mod health;
mod http;
pub mod keys;
mod manage;
pub mod openapi;
pub mod rate_limit;
mod router;
mod state;
mod storage;
mod throttle;

use std::sync::Arc;

use shutterbox_metadata::MetadataStore;
use shutterbox_model::FileId;
use shutterbox_queue::{JobQueue, JobStats};
use shutterbox_storage::ObjectStore;
use shutterbox_variants::Variants;

pub use console::CONSOLE;
pub use delivery::{DELIVER_RAW, DeliveryAccess, KeysError, Presets, UrlSigningKeys};
pub use health::{HEALTHZ, METRICS, job_metrics, live, store_metrics};
pub use http::route::{API_PREFIX, RouteSpec};
pub use http::server;
pub use rate_limit::{RateLimitSpec, RateLimiter};
pub use router::ROUTES;
pub use state::{DEFAULT_MAX_JSON_BYTES, DEFAULT_MAX_WARM_ITEMS, DeletionBroadcast, Settings};
pub use storage::STORAGE_UPLOAD;
pub use throttle::{ClientAddresses, ColdRenderThrottle};

use crate::{
    delivery::{PathLookup, ResponseCache},
    http::telemetry::HttpMetrics,
    state::AppState,
};

/// What the API serves over: the backends as traits, the variants, and what the deployment adds.
pub struct Backends {
    pub metadata: Arc<dyn MetadataStore>,
    pub store: Arc<dyn ObjectStore>,
    pub queue: Arc<dyn JobQueue>,
    pub variants: Variants,
    /// Counts requests per key or client address (one count across nodes in distributed mode).
    pub limiter: Arc<dyn RateLimiter>,
    /// The other API nodes, told of deletions (distributed mode).
    pub peers: Option<Arc<dyn DeletionBroadcast>>,
    /// Cold renders per client address, when the operator set a budget (`SHUTTERBOX_COLD_RENDER_LIMIT`).
    pub cold_renders: Option<Arc<ColdRenderThrottle>>,
}

/// The API over its backends: what the binary builds once and serves (`router`).
#[derive(Clone)]
pub struct App {
    state: Arc<AppState>,
}

impl App {
    pub fn new(backends: Backends, settings: Settings) -> Self {
        let http_metrics = HttpMetrics::new();
        http_metrics.register(backends.variants.times().collector());
        let state = AppState {
            // A quarter of the variant memory for the hot responses, which share the variant cache's bytes.
            responses: ResponseCache::new(settings.cache_bytes / 4),
            settings: Arc::new(settings),
            metadata: backends.metadata,
            store: backends.store,
            limiter: backends.limiter,
            queue: backends.queue,
            peers: backends.peers,
            variants: backends.variants,
            paths: PathLookup::default(),
            jobs: Arc::default(),
            http_metrics,
            cold_renders: backends.cold_renders,
        };
        Self { state: Arc::new(state) }
    }

    /// Every route, inside the error envelope and the request telemetry.
    pub fn router(&self) -> impl poem::Endpoint + use<> {
        router::router(self.state.clone())
    }

    /// The job counters `/metrics` shows: the process's in-process workers count into them.
    pub fn jobs(&self) -> Arc<JobStats> {
        self.state.jobs.clone()
    }

    /// Forgets what this process remembers of a deleted file (a deletion heard from another node).
    pub fn forget_file(&self, file_id: &FileId) {
        self.state.forget_file(file_id);
    }
}

/// Reads fail points from `FAILPOINTS` in builds with the `failpoints` feature (the test suite's); does
/// nothing otherwise. Called once, at the start of the process.
pub fn setup_failpoints() {
    #[cfg(feature = "failpoints")]
    std::mem::forget(fail::FailScenario::setup());
}
