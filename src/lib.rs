//! The composition root: configuration (`config`), the backends it names (`backends`), everything asked
//! of Redis in distributed mode (`redis`: the pool, the job queue, leases, the limiter, invalidations), and the two processes assembled from them: the API
//! server with its in-process workers (`app`) and the worker process (`worker_process`). Only this crate
//! knows which backends run; `shutterbox-api` serves the traits and `shutterbox-worker` runs jobs over them.
//! `client` is the other side: a client of the HTTP API, which the CLI, the tests and the tools share.

pub mod app;
pub mod backends;
pub mod client;
pub mod config;
pub mod redis;
pub mod worker_process;

pub use app::Application;
pub use backends::StartError;
pub use backends::open_metadata;
pub use config::{BackendConfig, Config};
