//! Shutterbox's HTTP API: the management endpoints of SPEC.md, public delivery, the local store's upload
//! target, authentication, rate limits, the JSON error envelope and the OpenAPI document. It talks to its
//! backends only through the `MetadataStore` and `ObjectStore` traits.

pub mod allow;
pub mod app;
pub mod auth;
pub mod backends;
pub mod body;
pub mod config;
pub mod coordination;
pub mod error;
mod examples;
pub mod file_object;
pub mod keys;
pub mod lookup;
pub mod openapi;
pub mod rate_limit;
pub mod responses;
pub mod routes;
pub mod server;
pub mod state;
pub mod telemetry;
pub mod worker_process;

pub use app::{Application, StartError};
pub use backends::open_metadata;
pub use config::{BackendConfig, Config};
pub use rate_limit::RateLimitSpec;

/// Reads fail points from `FAILPOINTS` in builds with the `failpoints` feature (the test suite's); does
/// nothing otherwise. Called once, at the start of the process.
pub fn setup_failpoints() {
    #[cfg(feature = "failpoints")]
    std::mem::forget(fail::FailScenario::setup());
}
