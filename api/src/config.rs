//! Configuration, from flags or `SHUTTERBOX_*` environment variables (clap). With nothing set, the service
//! runs on the embedded backends under `./data` and listens on 127.0.0.1:8080.

use std::path::PathBuf;

use crate::rate_limit::RateLimitSpec;

/// Where metadata and objects live.
#[derive(Debug, Clone, clap::Args)]
pub struct BackendConfig {
    /// Directory of the embedded backends (SQLite database, objects, signing key).
    #[arg(long, env = "SHUTTERBOX_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// Metadata database URL (`sqlite://…` or `postgres://…`); default: SQLite in the data directory.
    #[arg(long, env = "SHUTTERBOX_DATABASE_URL")]
    pub database_url: Option<String>,
}

impl BackendConfig {
    pub fn database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}?mode=rwc", self.data_dir.join("shutterbox.db").display()))
    }
}

/// Everything `serve` needs.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "SHUTTERBOX_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Public address of the service as clients reach it (in production the https address of the proxy
    /// or CDN in front); default: http://<listen address>.
    #[arg(long, env = "SHUTTERBOX_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Base URL of `rawUrl` (a CDN or public bucket); default: `<public url>/v1/raw`.
    #[arg(long, env = "SHUTTERBOX_RAW_BASE_URL")]
    pub raw_base_url: Option<String>,

    #[command(flatten)]
    pub backend: BackendConfig,

    /// Requests allowed per key and window, as `<requests>/<seconds>s`.
    #[arg(long, env = "SHUTTERBOX_RATE_LIMIT", default_value = "1200/60s")]
    pub rate_limit: RateLimitSpec,

    /// Largest upload accepted at presign, in bytes (default 5 GiB).
    #[arg(long, env = "SHUTTERBOX_MAX_UPLOAD_BYTES", default_value_t = 5 * 1024 * 1024 * 1024)]
    pub max_upload_bytes: u64,

    /// Validity of presigned upload URLs, in seconds.
    #[arg(long, env = "SHUTTERBOX_UPLOAD_EXPIRY_SECS", default_value_t = 3600)]
    pub upload_expiry_secs: u64,

    /// `Cache-Control: max-age` of public deliveries, in seconds.
    #[arg(long, env = "SHUTTERBOX_CACHE_MAX_AGE", default_value_t = 86400)]
    pub cache_max_age_secs: u64,

    /// Memory for rendered variants, in bytes (an LRU; default 256 MiB).
    #[arg(long, env = "SHUTTERBOX_CACHE_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub cache_bytes: u64,

    /// Largest source image transformed, in pixels, checked against its header before decoding.
    #[arg(long, env = "SHUTTERBOX_MAX_SOURCE_PIXELS", default_value_t = 50_000_000)]
    pub max_source_pixels: u64,

    /// Background job workers run inside this process (0 for an API-only node).
    #[arg(long, env = "SHUTTERBOX_WORKERS", default_value_t = 2)]
    pub workers: usize,
}

impl Config {
    /// The defaults, as `shutterbox serve` with no flags and no environment would use them.
    pub fn with_data_dir(data_dir: PathBuf) -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            public_url: None,
            raw_base_url: None,
            backend: BackendConfig { data_dir, database_url: None },
            rate_limit: RateLimitSpec::default(),
            max_upload_bytes: 5 * 1024 * 1024 * 1024,
            upload_expiry_secs: 3600,
            cache_max_age_secs: 86400,
            cache_bytes: 256 * 1024 * 1024,
            max_source_pixels: 50_000_000,
            workers: 2,
        }
    }
}
