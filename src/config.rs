//! Configuration, from flags or `SHUTTERBOX_*` environment variables (clap). With nothing set, the service
//! runs on the embedded backends under `./data` and listens on 127.0.0.1:8080.

use std::{path::PathBuf, time::Duration};

use poem::http::HeaderName;
use shutterbox_api::{DEFAULT_MAX_JSON_BYTES, Presets, RateLimitSpec, server::ConnectionLimits};
use shutterbox_pipeline::RenderOptions;
use shutterbox_variants::{StoreBounds, VideoDecoder};

/// Where metadata, objects and jobs live. Every backend is embedded unless its setting is given:
/// `SHUTTERBOX_DATABASE_URL=postgres://…` selects PostgreSQL, `SHUTTERBOX_REDIS_URL` the Redis job queue,
/// rate limiter and cache invalidation, `SHUTTERBOX_S3_ENDPOINT` an S3-compatible object store.
#[derive(Debug, Clone, clap::Args)]
pub struct BackendConfig {
    /// Directory of the embedded backends (SQLite database, objects, signing key).
    #[arg(long, env = "SHUTTERBOX_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// Metadata database URL (`sqlite://…` or `postgres://…`); default: SQLite in the data directory.
    #[arg(long, env = "SHUTTERBOX_DATABASE_URL")]
    pub database_url: Option<String>,

    /// Redis URL (`redis://host:port`): jobs go through a Redis Streams queue shared by every process, the
    /// rate limit is counted across API nodes, and deletions reach every node's caches.
    #[arg(long, env = "SHUTTERBOX_REDIS_URL")]
    pub redis_url: Option<String>,

    /// Prefix of every Redis key, so deployments can share one Redis.
    #[arg(long, env = "SHUTTERBOX_REDIS_PREFIX", default_value = "shutterbox")]
    pub redis_prefix: String,

    /// A job unacknowledged for this long is taken over from its worker (which is presumed dead).
    #[arg(long, env = "SHUTTERBOX_JOB_TIMEOUT_SECS", default_value_t = 60)]
    pub job_timeout_secs: u64,

    /// Delay before a failed job's first retry, in milliseconds; it doubles with each attempt (at most
    /// one minute), and the fifth failure dead-letters the job.
    #[arg(long, env = "SHUTTERBOX_JOB_RETRY_BASE_MS", default_value_t = 1000)]
    pub job_retry_base_ms: u64,

    /// How long the jobs in progress may take to finish once the process is told to stop, in seconds;
    /// unfinished ones are then handed back to the queue for another worker. With the HTTP drain beside it,
    /// the process is gone within 30 s of SIGTERM at the default.
    #[arg(long, env = "SHUTTERBOX_JOB_DRAIN_SECS", default_value_t = 20)]
    pub job_drain_secs: u64,

    /// How often the cleanup sweep runs (expired uploads, objects a crash left unrecorded), in seconds.
    /// Processes that run jobs sweep: `serve` with workers, `worker`.
    #[arg(long, env = "SHUTTERBOX_SWEEP_INTERVAL_SECS", default_value_t = 300)]
    pub sweep_interval_secs: u64,

    /// How long past its deadline the sweep leaves a pending upload or an unsettled write alone, in seconds;
    /// it must exceed the longest object copy, so the sweep never removes a write still under way.
    #[arg(long, env = "SHUTTERBOX_SWEEP_GRACE_SECS", default_value_t = 3600)]
    pub sweep_grace_secs: u64,

    /// Stored variants kept per file; beyond it the least recently used ad-hoc one makes room (0: only
    /// variants rendered by jobs and presets are stored).
    #[arg(long, env = "SHUTTERBOX_VARIANTS_PER_FILE", default_value_t = StoreBounds::DEFAULT_PER_FILE)]
    pub variants_per_file: u64,

    /// Bytes of stored variants in all (default 10 GiB); the sweep evicts the least recently used beyond it.
    #[arg(long, env = "SHUTTERBOX_VARIANT_STORE_BYTES", default_value_t = StoreBounds::DEFAULT_TOTAL_BYTES)]
    pub variant_store_bytes: u64,

    #[command(flatten)]
    pub s3: S3Settings,
}

/// An S3-compatible object store (MinIO, AWS S3, …), used when an endpoint is given.
#[derive(Clone, Default, clap::Args)]
pub struct S3Settings {
    /// S3 endpoint the service talks to, e.g. `http://minio:9000`.
    #[arg(long = "s3-endpoint", env = "SHUTTERBOX_S3_ENDPOINT")]
    pub endpoint: Option<String>,

    /// Bucket of every object (created if missing).
    #[arg(long = "s3-bucket", env = "SHUTTERBOX_S3_BUCKET", default_value = "shutterbox")]
    pub bucket: String,

    #[arg(long = "s3-access-key", env = "SHUTTERBOX_S3_ACCESS_KEY")]
    pub access_key: Option<String>,

    #[arg(long = "s3-secret-key", env = "SHUTTERBOX_S3_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,

    #[arg(long = "s3-region", env = "SHUTTERBOX_S3_REGION", default_value = "us-east-1")]
    pub region: String,

    /// The endpoint as clients reach it, when it differs (upload URLs are signed for this host), e.g.
    /// `http://localhost:9000` while the service talks to `http://minio:9000`.
    #[arg(long = "s3-public-endpoint", env = "SHUTTERBOX_S3_PUBLIC_ENDPOINT")]
    pub public_endpoint: Option<String>,
}

impl std::fmt::Debug for S3Settings {
    // The secret key stays out of logs and panics.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("endpoint", &self.endpoint)
            .field("bucket", &self.bucket)
            .field("access_key", &self.access_key)
            .field("region", &self.region)
            .field("public_endpoint", &self.public_endpoint)
            .finish_non_exhaustive()
    }
}

impl BackendConfig {
    /// The embedded backends under `data_dir`.
    pub fn embedded(data_dir: PathBuf) -> Self {
        Self {
            data_dir,
            database_url: None,
            redis_url: None,
            redis_prefix: "shutterbox".into(),
            job_timeout_secs: 60,
            job_retry_base_ms: 1000,
            job_drain_secs: 20,
            sweep_interval_secs: 300,
            sweep_grace_secs: 3600,
            variants_per_file: StoreBounds::DEFAULT_PER_FILE,
            variant_store_bytes: StoreBounds::DEFAULT_TOTAL_BYTES,
            s3: S3Settings { bucket: "shutterbox".into(), region: "us-east-1".into(), ..S3Settings::default() },
        }
    }

    /// How many stored variants to keep.
    pub fn store_bounds(&self) -> StoreBounds {
        StoreBounds { per_file: self.variants_per_file, total_bytes: self.variant_store_bytes }
    }

    pub fn database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}?mode=rwc", self.data_dir.join("shutterbox.db").display()))
    }
}

/// What one render may read and make, for `serve` and `worker` alike. Each is refused with a 400 naming it.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct RenderLimits {
    /// Largest source image transformed, in pixels, checked against its header before decoding.
    #[arg(long, env = "SHUTTERBOX_MAX_SOURCE_PIXELS", default_value_t = 50_000_000)]
    pub max_source_pixels: u64,

    /// Largest output rendered, in pixels (after `rot` and `border` grow the canvas), checked before any
    /// pixel is touched.
    #[arg(long, env = "SHUTTERBOX_MAX_OUTPUT_PIXELS", default_value_t = 50_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_output_pixels: u64,

    /// Most frames an animated source (GIF, WebP, APNG, AVIF sequence) may have, counted before decoding.
    #[arg(long, env = "SHUTTERBOX_MAX_SOURCE_FRAMES", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_source_frames: u32,

    /// Most source pixels one animated render decodes, summed over its frames (width × height × frames),
    /// checked against the headers before the first frame is decoded (more → 400 naming it).
    #[arg(long, env = "SHUTTERBOX_MAX_ANIMATION_PIXELS", default_value_t = shutterbox_pipeline::DEFAULT_MAX_ANIMATION_PIXELS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_animation_pixels: u64,

    /// Largest original rendered, in bytes, checked against its record before it is read (more → 400
    /// naming it; the original is still served as stored).
    #[arg(long, env = "SHUTTERBOX_MAX_SOURCE_BYTES", default_value_t = shutterbox_pipeline::DEFAULT_MAX_SOURCE_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_source_bytes: u64,

    /// Seconds one render may take from its start; a render past them stops at its next step or frame and
    /// is answered 503 naming it (the service too busy to finish it; never remembered as a refusal).
    #[arg(long, env = "SHUTTERBOX_RENDER_TIMEOUT_SECS", default_value_t = shutterbox_pipeline::DEFAULT_RENDER_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub render_timeout_secs: u64,

    /// Seconds of CPU time one render may use; a render past them stops at its next step or frame and is
    /// answered 400 naming it (the input asked for more work than one render may do).
    #[arg(long, env = "SHUTTERBOX_RENDER_CPU_SECS", default_value_t = shutterbox_pipeline::DEFAULT_RENDER_CPU_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub render_cpu_secs: u64,
}

/// How videos' frames are decoded (`serve`, `worker` and `backfill` alike).
#[derive(Debug, Clone, clap::Args)]
pub struct VideoSettings {
    /// The `ffmpeg` program videos' frames are decoded with, in child processes held to the render limits
    /// (docs/formats.md, "Videos"). Without it a video's thumbnail is a placeholder and its frames a 503.
    #[arg(long, env = "SHUTTERBOX_FFMPEG", default_value = "ffmpeg")]
    pub ffmpeg: PathBuf,

    /// Longest video whose frames are decoded, in seconds, checked against its headers first (longer → 400
    /// naming it; the video is still stored and served).
    #[arg(long, env = "SHUTTERBOX_VIDEO_MAX_SECONDS", default_value_t = 4 * 3600,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub video_max_seconds: u64,

    /// Longest animated preview of a video (`dur`), in seconds; longer → 400 naming it.
    #[arg(long, env = "SHUTTERBOX_VIDEO_MAX_PREVIEW_SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=shutterbox_pipeline::params::MAX_PREVIEW_SECONDS as i64))]
    pub video_max_preview_seconds: u32,
}

impl Default for VideoSettings {
    fn default() -> Self {
        Self { ffmpeg: PathBuf::from("ffmpeg"), video_max_seconds: 4 * 3600, video_max_preview_seconds: 10 }
    }
}

impl VideoSettings {
    /// What decodes videos' frames: `ffmpeg`, when it runs here (said once at start-up either way).
    pub fn video_decoder(&self) -> Option<VideoDecoder> {
        let decoder = VideoDecoder::new(self.ffmpeg.clone(), self.video_max_seconds, self.video_max_preview_seconds);
        match decoder.check() {
            Ok(version) => {
                tracing::info!(%version, "video frames are decoded with FFmpeg");
                Some(decoder)
            }
            Err(e) => {
                tracing::warn!(error = %e, "no FFmpeg: videos get placeholder thumbnails and no frames");
                None
            }
        }
    }
}

impl Default for RenderLimits {
    fn default() -> Self {
        let options = RenderOptions::default();
        Self {
            max_source_pixels: options.max_pixels,
            max_output_pixels: options.max_output_pixels,
            max_source_frames: options.max_frames,
            max_animation_pixels: options.max_animation_pixels,
            max_source_bytes: options.max_source_bytes,
            render_timeout_secs: options.render_timeout_secs,
            render_cpu_secs: options.render_cpu_secs,
        }
    }
}

impl RenderLimits {
    pub fn render_options(&self) -> RenderOptions {
        RenderOptions {
            max_pixels: self.max_source_pixels,
            max_output_pixels: self.max_output_pixels,
            max_frames: self.max_source_frames,
            max_animation_pixels: self.max_animation_pixels,
            max_source_bytes: self.max_source_bytes,
            render_timeout_secs: self.render_timeout_secs,
            render_cpu_secs: self.render_cpu_secs,
            ..RenderOptions::default()
        }
    }
}

/// What one client can hold of a server: connections, their idle time, a stalled body, a JSON body's size
/// (SECURITY.md, "Bounds").
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ConnectionConfig {
    /// Connections open at once; past it a connection is answered 503 and closed. Lowered at start to what
    /// the process's open-files limit leaves room for.
    #[arg(long, env = "SHUTTERBOX_MAX_CONNECTIONS", default_value_t = ConnectionLimits::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_connections: usize,

    /// Seconds a connection may go without a request: from its accept to its first request's headers, and
    /// between requests; then it is closed.
    #[arg(long, env = "SHUTTERBOX_IDLE_TIMEOUT_SECS", default_value_t = ConnectionLimits::DEFAULT_IDLE_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout_secs: u64,

    /// Seconds in which a request body must end or send at least 16 KiB (again in every such window), else
    /// the request fails with 408: a body sent a byte now and then holds nothing for long.
    #[arg(long, env = "SHUTTERBOX_BODY_TIMEOUT_SECS", default_value_t = ConnectionLimits::DEFAULT_BODY_STALL_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_secs: u64,

    /// Largest JSON request body, in bytes; a larger one is answered 413 before it is read.
    #[arg(long, env = "SHUTTERBOX_MAX_JSON_BYTES", default_value_t = DEFAULT_MAX_JSON_BYTES,
          value_parser = clap::value_parser!(u64).range(2..))]
    pub max_json_bytes: u64,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        Self {
            max_connections: ConnectionLimits::DEFAULT_MAX_CONNECTIONS,
            idle_timeout_secs: ConnectionLimits::DEFAULT_IDLE_SECS,
            body_timeout_secs: ConnectionLimits::DEFAULT_BODY_STALL_SECS,
            max_json_bytes: DEFAULT_MAX_JSON_BYTES,
        }
    }
}

impl ConnectionConfig {
    pub fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections,
            idle: Duration::from_secs(self.idle_timeout_secs),
            body_stall: Duration::from_secs(self.body_timeout_secs),
        }
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

    /// Validity of presigned upload URLs, in seconds; a resumable upload expires this long after its last
    /// piece arrived.
    #[arg(long, env = "SHUTTERBOX_UPLOAD_EXPIRY_SECS", default_value_t = 3600)]
    pub upload_expiry_secs: u64,

    /// Answer `/v1/raw/` with a redirect (307) to a presigned GET of the object in S3, so the bytes flow from
    /// S3 to the client without passing through this service: for a bucket clients can reach. No effect in
    /// the embedded deployment.
    #[arg(long, env = "SHUTTERBOX_RAW_REDIRECT")]
    pub raw_redirect: bool,

    /// Origins (`https://app.example.com`, comma-separated) whose pages may use the resumable-upload
    /// endpoints from a browser (CORS). Unset: none.
    #[arg(long, env = "SHUTTERBOX_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,

    /// `Cache-Control: max-age` of public deliveries, in seconds.
    #[arg(long, env = "SHUTTERBOX_CACHE_MAX_AGE", default_value_t = 86400)]
    pub cache_max_age_secs: u64,

    /// Memory for rendered variants, in bytes (an LRU; default 256 MiB). An eighth more holds the
    /// originals being rendered.
    #[arg(long, env = "SHUTTERBOX_CACHE_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub cache_bytes: u64,

    #[command(flatten)]
    pub limits: RenderLimits,

    #[command(flatten)]
    pub video: VideoSettings,

    #[command(flatten)]
    pub connections: ConnectionConfig,

    /// Warming items one account may have queued at once, over all its batches; a batch that would pass it
    /// is answered 429 with Retry-After.
    #[arg(long, env = "SHUTTERBOX_MAX_WARM_ITEMS", default_value_t = shutterbox_api::DEFAULT_MAX_WARM_ITEMS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_warm_items: u64,

    /// This node's name among the deployment's, unique and stable across its restarts: after one, the
    /// resumable uploads its killed process was writing are free to resume at once. Default: `embedded` (one
    /// process per data directory), or `<hostname>:<port>` when distributed.
    #[arg(long, env = "SHUTTERBOX_NODE_ID")]
    pub node_id: Option<String>,

    /// Background job workers run inside this process (0 for an API-only node).
    #[arg(long, env = "SHUTTERBOX_WORKERS", default_value_t = 2)]
    pub workers: usize,

    /// Render threads, and renders a request waits on that run at once (0: one per CPU core). The in-process
    /// workers' jobs render on the same threads, after the requests' renders and on all but one of them.
    #[arg(long, env = "SHUTTERBOX_RENDER_CONCURRENCY", default_value_t = 0)]
    pub render_concurrency: usize,

    /// Such renders that may wait for a turn; beyond that a cold variant is answered 503 with Retry-After.
    #[arg(long, env = "SHUTTERBOX_RENDER_QUEUE", default_value_t = 32)]
    pub render_queue: usize,

    /// Keys that sign delivery URLs, comma-separated, at least 32 characters each (the first signs, every
    /// one verifies). Set, a transformation renders only with a valid `sig`; see docs/internet.md.
    /// (Parsed at start-up rather than by clap, whose errors would echo the keys.)
    #[arg(long, env = "SHUTTERBOX_URL_SIGNING_KEYS", hide_env_values = true)]
    pub url_signing_keys: Option<String>,

    /// Named transformations, `<name>:<query>` separated by `;` (e.g. `thumb: w=200&h=200&fit=cover`),
    /// rendered by `?preset=<name>`; checked at start-up.
    #[arg(long, env = "SHUTTERBOX_PRESETS", default_value = "")]
    pub presets: Presets,

    /// Render named presets only: any other transformation is refused with 403.
    #[arg(long, env = "SHUTTERBOX_PRESETS_ONLY")]
    pub presets_only: bool,

    /// Renders one client address may cause, as `<renders>/<seconds>s` (e.g. `60/60s`); beyond that a
    /// delivery that would render is answered 429 with Retry-After. Cached and stored variants are always
    /// served. Unset: no such budget.
    #[arg(long, env = "SHUTTERBOX_COLD_RENDER_LIMIT")]
    pub cold_render_limit: Option<RateLimitSpec>,

    /// The header your proxy or CDN sets to the client's address (`X-Forwarded-For`, `Forwarded`,
    /// `X-Real-IP`, `CF-Connecting-IP`); unset, the connection's peer is the client. Set it only when every
    /// request comes through that proxy: anyone reaching the service directly could name any address.
    #[arg(long, env = "SHUTTERBOX_CLIENT_ADDRESS_HEADER")]
    pub client_address_header: Option<HeaderName>,

    /// Proxies of yours that append to that header: the client is this many entries from its end.
    #[arg(long, env = "SHUTTERBOX_PROXY_HOPS", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..))]
    pub proxy_hops: u8,
}

impl Config {
    /// The defaults, as `shutterbox serve` with no flags and no environment would use them.
    pub fn with_data_dir(data_dir: PathBuf) -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            public_url: None,
            raw_base_url: None,
            backend: BackendConfig::embedded(data_dir),
            rate_limit: RateLimitSpec::default(),
            max_upload_bytes: 5 * 1024 * 1024 * 1024,
            upload_expiry_secs: 3600,
            cors_origins: Vec::new(),
            raw_redirect: false,
            cache_max_age_secs: 86400,
            cache_bytes: 256 * 1024 * 1024,
            limits: RenderLimits::default(),
            video: VideoSettings::default(),
            connections: ConnectionConfig::default(),
            max_warm_items: shutterbox_api::DEFAULT_MAX_WARM_ITEMS,
            node_id: None,
            workers: 2,
            render_concurrency: 0,
            render_queue: 32,
            url_signing_keys: None,
            presets: Presets::default(),
            presets_only: false,
            cold_render_limit: None,
            client_address_header: None,
            proxy_hops: 1,
        }
    }
}
