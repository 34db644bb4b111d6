//! The test harness: each test spawns the real service on random ports with its own data and talks HTTP
//! to it. Which deployment is chosen by `SHUTTERBOX_TEST_DEPLOYMENT`:
//! - `embedded` (the default): the server runs in this process on SQLite and a local directory, with its
//!   in-process queue and workers.
//! - `distributed`: two API processes (`shutterbox serve --workers 0`) and a worker process
//!   (`shutterbox worker`) of the real binary, on PostgreSQL (a fresh database per test), Redis (a fresh key
//!   prefix) and an S3 server (a fresh bucket), behind a round-robin TCP proxy that is their public address
//!   — each request is a new connection, so consecutive requests alternate between the two nodes. The
//!   services are named by `SHUTTERBOX_TEST_DATABASE_URL`, `SHUTTERBOX_TEST_REDIS_URL`,
//!   `SHUTTERBOX_TEST_S3_ENDPOINT` and `SHUTTERBOX_TEST_S3_DATA_DIR` (scripts/test.sh starts and sets them);
//!   a missing one fails the test.
//!
//! `app` is the deployment and its requests, `processes` the binary's processes, `http` response checks
//! and raw requests, `images` the uploads' pictures.

mod app;
pub mod hostile;
mod http;
mod images;
mod processes;

use std::time::Duration;

pub use app::{TestApp, distributed, file_id};
pub use http::{RawResponse, assert_error, raw_request, raw_request_unsent_body};
pub use images::{PNG, dimensions, noise_jpeg, subject_png};
pub use processes::{ServeProcess, free_port, shutterbox, terminate};

/// Polls `check` every 50 ms until it holds, for at most `secs` seconds.
pub async fn eventually<F: Future<Output = bool>>(secs: u64, what: &str, mut check: impl FnMut() -> F) {
    for _ in 0..secs * 20 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: not within {secs} s");
}
