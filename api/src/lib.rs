//! Shutterbox's HTTP API: the management endpoints (docs/api.md), public delivery, the local store's upload
//! target, authentication, rate limits, the JSON error envelope and the OpenAPI document. It talks to its
//! backends only through the `MetadataStore` and `ObjectStore` traits.

pub mod access;
pub mod allow;
pub mod auth;
pub mod body;
pub mod error;
mod examples;
pub mod file_object;
pub mod keys;
pub mod lookup;
pub mod openapi;
pub mod operations;
pub mod presets;
pub mod rate_limit;
pub mod responses;
pub mod routes;
pub mod server;
pub mod signing;
pub mod state;
pub mod telemetry;
pub mod throttle;

pub use rate_limit::RateLimitSpec;
pub use routes::router;

/// Reads fail points from `FAILPOINTS` in builds with the `failpoints` feature (the test suite's); does
/// nothing otherwise. Called once, at the start of the process.
pub fn setup_failpoints() {
    #[cfg(feature = "failpoints")]
    std::mem::forget(fail::FailScenario::setup());
}
