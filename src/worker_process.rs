//! `shutterbox worker`: a process that only runs jobs, taken from the Redis queue the API nodes fill
//! (distributed mode; the embedded queue lives inside `serve`, so there is nothing to share with a separate
//! process). It serves `/healthz` and `/metrics` (its job counts, the queue's depth) on an address of its
//! own, for probes and Prometheus.

use std::{io, net::SocketAddr, sync::Arc, time::Duration};

use poem::{EndpointExt, Route, handler, web::Data};
use shutterbox_api::{
    HEALTHZ, METRICS, job_metrics, live,
    server::{self, ConnectionLimits},
    store_metrics,
};
use shutterbox_queue::{JobQueue, JobStats};
use shutterbox_variants::{RenderPool, Variants};
use shutterbox_worker::{Sweeper, Worker};
use tokio::{net::TcpListener, sync::watch};

use crate::{
    app::SweepSchedule,
    backends::StartError,
    backends::{open_metadata, open_queue, open_store},
    config::{BackendConfig, RenderLimits, VideoSettings},
    redis::RenderLeases,
};

/// Everything `worker` needs.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerConfig {
    #[command(flatten)]
    pub backend: BackendConfig,

    /// Jobs run at once.
    #[arg(long, env = "SHUTTERBOX_WORKER_CONCURRENCY", default_value_t = 2)]
    pub concurrency: usize,

    /// Address of the worker's `/healthz` and `/metrics`. When another process holds it (a second worker
    /// on the host), a free port of the same interface instead; the address taken is logged at start.
    #[arg(long, env = "SHUTTERBOX_WORKER_LISTEN", default_value = "127.0.0.1:9091")]
    pub listen: String,

    /// Source and output limits of a render (as for `serve`).
    #[command(flatten)]
    pub limits: RenderLimits,

    #[command(flatten)]
    pub video: VideoSettings,
}

#[derive(Clone)]
struct Probe {
    stats: Arc<JobStats>,
    queue: Arc<dyn JobQueue>,
    /// Its render times and stored-variant counts.
    variants: Variants,
}

/// A worker process, connected and bound, ready to run.
pub struct WorkerProcess {
    listener: TcpListener,
    probe_addr: SocketAddr,
    worker: Worker,
    sweeper: Sweeper,
    sweep_interval: Duration,
    concurrency: usize,
    job_drain: Duration,
    probe: Probe,
}

impl WorkerProcess {
    pub async fn build(config: WorkerConfig) -> Result<Self, StartError> {
        if config.backend.redis_url.is_none() {
            return Err(StartError::Config(
                "`shutterbox worker` takes its jobs from Redis: set SHUTTERBOX_REDIS_URL (in the embedded \
                 default, `serve` runs the workers itself)"
                    .into(),
            ));
        }
        let metadata = open_metadata(&config.backend).await?;
        // A worker never hands out upload URLs, so the local store needs no upload address.
        let store = open_store(&config.backend, String::new()).await?;
        let opened = open_queue(&config.backend).await?;
        let queue = opened.queue;
        let schedule = SweepSchedule::of(&config.backend);
        let pool = RenderPool::per_core().map_err(StartError::RenderThreads)?;
        let options = config.limits.render_options();
        let mut variants = Variants::new(metadata.clone(), store.clone(), options, pool)
            .with_store_bounds(config.backend.store_bounds());
        if let Some(isolation) = crate::app::decoder_isolation() {
            variants = variants.with_isolation(isolation);
        }
        if let Some(decoder) = config.video.video_decoder() {
            variants = variants.with_video(decoder);
        }
        // Claimed like the API nodes' renders, so a job and a request for one variant render it once.
        if let Some(redis) = opened.redis {
            variants = variants.with_flight(Arc::new(RenderLeases::new(redis)));
        }
        let stats = Arc::new(JobStats::default());
        let sweeper = Sweeper::new(metadata.clone(), store.clone(), schedule.grace)
            .with_variants(variants.clone())
            .with_stats(stats.clone());
        let probe_variants = variants.clone();
        let worker = Worker::new(queue.clone(), store, metadata, variants)
            .with_stats(stats.clone())
            .with_retry_base(Duration::from_millis(config.backend.job_retry_base_ms.max(1)));
        let listener = bind_probes(&config.listen).await?;
        let probe_addr =
            listener.local_addr().map_err(|source| StartError::Listen { addr: config.listen.clone(), source })?;
        Ok(Self {
            listener,
            probe_addr,
            worker,
            sweeper,
            sweep_interval: schedule.interval,
            concurrency: config.concurrency.max(1),
            job_drain: Duration::from_secs(config.backend.job_drain_secs),
            probe: Probe { stats, queue, variants: probe_variants },
        })
    }

    /// Where `/healthz` and `/metrics` are served.
    pub fn probe_addr(&self) -> SocketAddr {
        self.probe_addr
    }

    /// Runs jobs until `shutdown` resolves; the jobs in hand then have `SHUTTERBOX_JOB_DRAIN_SECS` to finish before they are
    /// handed back to the queue.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send) -> io::Result<()> {
        let (stop, stopped) = watch::channel(false);
        let sweeper = tokio::spawn(self.sweeper.run(self.sweep_interval, stopped.clone()));
        let jobs = tokio::spawn(self.worker.run(self.concurrency, stopped, self.job_drain));
        // The API's probe paths, answered with the worker's own state.
        let probes = Route::new().at(HEALTHZ.prefix(), live).at(METRICS.prefix(), metrics).data(self.probe);
        let shutdown = async move {
            shutdown.await;
            let _ = stop.send(true);
        };
        let served =
            server::serve(self.listener, probes, ConnectionLimits::default(), shutdown, Duration::from_secs(5)).await;
        let _ = jobs.await;
        let _ = sweeper.await;
        served
    }
}

/// Binds the probe address `listen`. Running several workers on one host is the normal way to scale
/// renders, and they all start with the same default: when the address is taken, a free port of the same
/// interface is bound instead (with a warning naming both), so a busy address never stops a worker. Any
/// other failure (an address of no interface here, a privileged port) is the configuration's, and ends
/// the start-up.
async fn bind_probes(listen: &str) -> Result<TcpListener, StartError> {
    let listen_error = |source| StartError::Listen { addr: listen.to_owned(), source };
    let busy = match TcpListener::bind(listen).await {
        Ok(listener) => return Ok(listener),
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => e,
        Err(e) => return Err(listen_error(e)),
    };
    let mut interface =
        tokio::net::lookup_host(listen).await.map_err(listen_error)?.next().ok_or_else(|| listen_error(busy))?;
    interface.set_port(0);
    let listener = TcpListener::bind(interface).await.map_err(listen_error)?;
    if let Ok(taken) = listener.local_addr() {
        let (health_path, metrics_path) = (HEALTHZ.prefix(), METRICS.prefix());
        tracing::warn!(
            "{listen} (SHUTTERBOX_WORKER_LISTEN) is in use, by another worker on this host perhaps: {health_path} \
             and {metrics_path} are on {taken} instead"
        );
    }
    Ok(listener)
}

#[handler]
async fn metrics(probe: Data<&Probe>) -> poem::Response {
    let mut out = String::new();
    job_metrics(&mut out, &probe.stats, probe.queue.as_ref()).await;
    store_metrics(&mut out, probe.variants.store_stats());
    let registry = prometheus::Registry::new();
    if registry.register(probe.variants.times().collector()).is_ok()
        && let Ok(text) = prometheus::TextEncoder::new().encode_to_string(&registry.gather())
    {
        out.push_str(&text);
    }
    poem::Response::builder().content_type(prometheus::TEXT_FORMAT).body(out)
}
