//! Assembling and running the service: open the backends, bootstrap the first account, bind the listener,
//! mount the routes and serve until told to stop.

use std::{io, sync::Arc, time::Duration};

use poem::http::HeaderValue;
use shutterbox_api::{
    API_PREFIX, App, Backends, ClientAddresses, ColdRenderThrottle, DELIVER_RAW, DeletionBroadcast, DeliveryAccess,
    KeysError, RateLimiter, STORAGE_UPLOAD, Settings, UrlSigningKeys,
    keys::{self, MintedKey},
    rate_limit::InProcessLimiter,
    server::{self, ConnectionLimits},
};
use shutterbox_metadata::MetadataStore;
use shutterbox_model::{AccountName, Scope};
use shutterbox_queue::JobQueue;
use shutterbox_storage::ObjectStore;
use shutterbox_variants::{RenderAdmission, RenderPool, Variants, isolation::Isolation};
use shutterbox_worker::{Sweeper, Worker};
use tokio::{net::TcpListener, sync::watch};

use crate::{
    backends::{StartError, open_metadata, open_queue, open_store},
    config::{BackendConfig, Config},
    redis::{Invalidations, RedisBackend, RedisLimiter, RenderLeases},
};

/// How long in-flight requests may take to finish once the shutdown starts.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(25);

/// When the cleanup sweep runs and how long it leaves things alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SweepSchedule {
    pub interval: Duration,
    pub grace: Duration,
}

impl SweepSchedule {
    pub fn of(backend: &BackendConfig) -> Self {
        Self {
            interval: Duration::from_secs(backend.sweep_interval_secs.max(1)),
            grace: Duration::from_secs(backend.sweep_grace_secs),
        }
    }
}

/// What the in-process workers and the sweep run over, beside the API.
struct Services {
    metadata: Arc<dyn MetadataStore>,
    store: Arc<dyn ObjectStore>,
    queue: Arc<dyn JobQueue>,
    variants: Variants,
}

/// A service that is bound and ready to run.
pub struct Application {
    listener: TcpListener,
    port: u16,
    public_url: String,
    app: App,
    services: Services,
    /// Deletions heard from the other API nodes (distributed mode).
    invalidations: Option<Invalidations>,
    workers: usize,
    retry_base: Duration,
    job_drain: Duration,
    sweep: SweepSchedule,
    bootstrap_key: Option<MintedKey>,
    connections: ConnectionLimits,
}

/// Children of this binary for the decoders written in C that parse uploads (libheif: SECURITY.md), when
/// this process is the `shutterbox` binary, which serves them (`shutterbox decode-isolated`). A test binary
/// that serves in its own process decodes in it.
pub fn decoder_isolation() -> Option<Isolation> {
    let exe = std::env::current_exe().ok()?;
    (exe.file_stem()? == "shutterbox").then(|| Isolation::new(exe))
}

/// This machine's name (for the default node id), or `localhost` when it has none.
fn hostname() -> String {
    let mut name = [0u8; 256];
    // SAFETY: gethostname writes at most `name.len()` bytes into the buffer given.
    let ok = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
    let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    match std::str::from_utf8(&name[..len]) {
        Ok(text) if ok && !text.is_empty() => text.to_owned(),
        _ => "localhost".to_owned(),
    }
}

/// Descriptors kept free of the connection cap: the database pool, the store's files, Redis, logs.
const DESCRIPTORS_KEPT: u64 = 256;

/// Raises this process's soft open-files limit to its hard limit (1,024 under most service managers, where
/// running out of descriptors stalls every request, `/healthz` too), and gives the connection cap that fits
/// under it: `wanted`, or less, leaving `DESCRIPTORS_KEPT` for everything else.
fn connection_cap(wanted: usize) -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    let soft = unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return wanted;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = limit.rlim_max;
            }
        }
        limit.rlim_cur
    };
    let room = usize::try_from(soft.saturating_sub(DESCRIPTORS_KEPT).max(16)).unwrap_or(usize::MAX);
    if room < wanted {
        tracing::warn!(
            open_files = soft,
            max_connections = room,
            "the open-files limit leaves room for fewer connections than SHUTTERBOX_MAX_CONNECTIONS"
        );
    }
    wanted.min(room)
}

impl Application {
    pub async fn build(config: Config) -> Result<Self, StartError> {
        // First: a bad key should not wait for the backends to fail the start.
        let signing = signing_keys(config.url_signing_keys.as_deref())?;
        let listen_error = |source| StartError::Listen { addr: config.listen.clone(), source };
        let listener = TcpListener::bind(&config.listen).await.map_err(listen_error)?;
        let local = listener.local_addr().map_err(listen_error)?;
        let public_url =
            config.public_url.clone().unwrap_or_else(|| format!("http://{local}")).trim_end_matches('/').to_owned();
        let base_url = format!("{public_url}{API_PREFIX}");

        let metadata = open_metadata(&config.backend).await?;
        let store = open_store(&config.backend, STORAGE_UPLOAD.url(&public_url, &[])).await?;
        let queue = open_queue(&config.backend).await?;
        let limiter: Arc<dyn RateLimiter> = match &queue.redis {
            Some(redis) => Arc::new(RedisLimiter::new(config.rate_limit, redis.clone())),
            None => Arc::new(InProcessLimiter::new(config.rate_limit)),
        };
        let cold_renders = cold_render_throttle(&config, queue.redis.as_ref());
        let bootstrap_key = bootstrap(metadata.as_ref()).await?;
        note_undescribed_files(metadata.as_ref()).await;

        let settings = Settings {
            raw_base_url: config
                .raw_base_url
                .clone()
                .map(|url| url.trim_end_matches('/').to_owned())
                .unwrap_or_else(|| DELIVER_RAW.url(&base_url, &[]).trim_end_matches('/').to_owned()),
            base_url,
            max_upload_bytes: config.max_upload_bytes,
            upload_expiry_secs: config.upload_expiry_secs,
            raw_redirect: config.raw_redirect,
            cors_origins: config.cors_origins.iter().map(|o| o.trim().to_owned()).filter(|o| !o.is_empty()).collect(),
            cache_max_age_secs: config.cache_max_age_secs,
            cache_control: HeaderValue::try_from(format!("public, max-age={}", config.cache_max_age_secs))
                .unwrap_or_else(|_| HeaderValue::from_static("public, max-age=0")),
            access: DeliveryAccess { signing, presets: config.presets.clone(), presets_only: config.presets_only },
            cache_bytes: config.cache_bytes,
            max_json_bytes: config.connections.max_json_bytes,
            max_warm_items: config.max_warm_items,
            node_id: config.node_id.clone().unwrap_or_else(|| match config.backend.database_url {
                None => "embedded".to_owned(),
                Some(_) => format!("{}:{}", hostname(), local.port()),
            }),
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let concurrency = if config.render_concurrency == 0 { cores } else { config.render_concurrency };
        // The jobs of the in-process workers render on the same threads, after the requests' renders and
        // leaving one thread to requests.
        let pool = RenderPool::serving(concurrency).map_err(StartError::RenderThreads)?;
        let options = config.limits.render_options();
        let mut variants = Variants::new(metadata.clone(), store.clone(), options, pool)
            .with_memory(config.cache_bytes)
            // An eighth of it for originals: a hot original's renders read it from the store once.
            .with_original_memory(config.cache_bytes / 8)
            .with_store_bounds(config.backend.store_bounds())
            .with_admission(RenderAdmission::new(concurrency, config.render_queue));
        if let Some(isolation) = decoder_isolation() {
            variants = variants.with_isolation(isolation);
        }
        if let Some(decoder) = config.video.video_decoder() {
            variants = variants.with_video(decoder);
        }
        if let Some(redis) = &queue.redis {
            variants = variants.with_flight(Arc::new(RenderLeases::new(redis.clone())));
        }
        let invalidations = queue.redis.clone().map(Invalidations::new);
        let backends = Backends {
            metadata,
            store,
            queue: queue.queue,
            variants,
            limiter,
            peers: invalidations.clone().map(|i| Arc::new(i) as Arc<dyn DeletionBroadcast>),
            cold_renders,
        };
        let services = Services {
            metadata: backends.metadata.clone(),
            store: backends.store.clone(),
            queue: backends.queue.clone(),
            variants: backends.variants.clone(),
        };
        let app = App::new(backends, settings);
        Ok(Self {
            listener,
            port: local.port(),
            public_url,
            app,
            services,
            invalidations,
            workers: config.workers,
            retry_base: Duration::from_millis(config.backend.job_retry_base_ms.max(1)),
            job_drain: Duration::from_secs(config.backend.job_drain_secs),
            sweep: SweepSchedule::of(&config.backend),
            bootstrap_key,
            connections: ConnectionLimits {
                max_connections: connection_cap(config.connections.max_connections),
                ..config.connections.limits()
            },
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The secret key of the `default` account, when this start created it (the first start).
    pub fn bootstrap_key(&self) -> Option<&MintedKey> {
        self.bootstrap_key.as_ref()
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests finish (up to `SHUTDOWN_GRACE`) while
    /// the workers finish their jobs (up to `SHUTTERBOX_JOB_DRAIN_SECS`, then hand them back), so the process is gone within
    /// 30 s of its signal.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send) -> io::Result<()> {
        // Job loops and the sweep stop as soon as the shutdown starts, beside the HTTP drain.
        let (stop_jobs, jobs_stopping) = watch::channel(false);
        let workers = (self.workers > 0).then(|| {
            let services = &self.services;
            let worker = Worker::new(
                services.queue.clone(),
                services.store.clone(),
                services.metadata.clone(),
                services.variants.clone(),
            )
            .with_stats(self.app.jobs())
            .with_retry_base(self.retry_base);
            tokio::spawn(worker.run(self.workers, jobs_stopping.clone(), self.job_drain))
        });
        // The processes that run jobs also sweep (an API-only node leaves it to them).
        let sweeper = (self.workers > 0).then(|| {
            let services = &self.services;
            let sweeper = Sweeper::new(services.metadata.clone(), services.store.clone(), self.sweep.grace)
                .with_variants(services.variants.clone())
                .with_stats(self.app.jobs());
            tokio::spawn(sweeper.run(self.sweep.interval, jobs_stopping))
        });
        // The invalidation listener stops once no request is served any more.
        let (stop, stopping) = watch::channel(false);
        let listener =
            self.invalidations.map(|invalidations| tokio::spawn(invalidations.listen(self.app.clone(), stopping)));
        let app = self.app.router();
        let shutdown = async move {
            shutdown.await;
            let _ = stop_jobs.send(true);
        };
        let served = server::serve(self.listener, app, self.connections, shutdown, SHUTDOWN_GRACE).await;
        let _ = stop.send(true);
        if let Some(workers) = workers {
            let _ = workers.await;
        }
        if let Some(sweeper) = sweeper {
            let _ = sweeper.await;
        }
        if let Some(listener) = listener {
            let _ = listener.await;
        }
        served
    }
}

/// The cold-render budget per client address, when `SHUTTERBOX_COLD_RENDER_LIMIT` sets one: counted in
/// Redis when there is one (one budget per address across the nodes), else in this process.
fn cold_render_throttle(config: &Config, redis: Option<&RedisBackend>) -> Option<Arc<ColdRenderThrottle>> {
    let spec = config.cold_render_limit?;
    let limiter: Arc<dyn RateLimiter> = match redis {
        Some(redis) => Arc::new(RedisLimiter::new(spec, redis.clone())),
        None => Arc::new(InProcessLimiter::new(spec)),
    };
    let addresses = match &config.client_address_header {
        Some(header) => ClientAddresses::from_header(header.clone(), usize::from(config.proxy_hops)),
        None => ClientAddresses::peer(),
    };
    Some(Arc::new(ColdRenderThrottle::new(limiter, addresses)))
}

/// On the first start (no account at all) creates account `default` with a secret key.
/// `SHUTTERBOX_URL_SIGNING_KEYS`, parsed; the error names the bad entry, never a key.
pub fn signing_keys(list: Option<&str>) -> Result<Option<UrlSigningKeys>, StartError> {
    list.map(str::parse).transpose().map_err(|e: KeysError| StartError::Config(e.to_string()))
}

/// Says at start-up how many images have no facts or placeholders yet (uploaded before they existed, or
/// whose description job was lost), and how to make them: the description is a job per image, which an
/// upgrade does not queue for every stored file on every node's start.
async fn note_undescribed_files(metadata: &dyn MetadataStore) {
    match metadata.undescribed_files(None, 0).await {
        Ok((_, 0)) => {}
        Ok((_, count)) => tracing::warn!(
            count,
            "{count} images have no width, height or placeholders yet; run `shutterbox backfill` to describe them"
        ),
        Err(e) => tracing::warn!(error = %e, "could not count the images left to describe"),
    }
}

async fn bootstrap(metadata: &dyn MetadataStore) -> Result<Option<MintedKey>, StartError> {
    if metadata.account_count().await? > 0 {
        return Ok(None);
    }
    let account = AccountName::parse("default")
        .map_err(|e| StartError::Metadata(shutterbox_metadata::MetadataError::Corrupt(e.to_string())))?;
    Ok(Some(keys::mint(metadata, &account, Scope::Secret, None).await?))
}
