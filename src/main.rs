//! The `shutterbox` binary: `serve` runs the service, `worker` runs jobs alone (distributed mode), `upload`
//! uploads files and `warm` warms variants in a batch through the API, `sign` signs delivery URLs, `keys create`
//! mints API keys, `openapi` prints the API document, `migrate` brings the metadata schema up to date,
//! `backfill` describes images stored before image facts existed, `migrate-store` copies an embedded
//! deployment into PostgreSQL and S3.

mod backfill;
mod migrate_store;
mod sign;
mod upload;
mod warm;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use shutterbox::{
    Application, BackendConfig, Config, open_metadata,
    worker_process::{WorkerConfig, WorkerProcess},
};
use shutterbox_api::keys;
use shutterbox_model::{AccountName, Scope};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "shutterbox", version, about = "Self-hostable file storage and image delivery")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API server (embedded backends under ./data unless configured otherwise).
    Serve(Box<Config>),
    /// Run background jobs only, from the Redis queue (distributed mode).
    Worker(WorkerConfig),
    /// Upload files through the API (presign, PUT, confirm); prints each file object as a line of JSON.
    Upload(upload::UploadArgs),
    /// Render variants ahead of their first request: a batch of files × transformations, with a progress bar.
    Warm(warm::WarmArgs),
    /// Sign delivery URLs with SHUTTERBOX_URL_SIGNING_KEYS (docs/internet.md); prints each signed URL.
    Sign(sign::SignArgs),
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Print the OpenAPI document.
    Openapi,
    /// Apply metadata migrations and exit (serve also applies them on start).
    Migrate(BackendConfig),
    /// Read the image facts and placeholders of images uploaded before they existed, with a progress bar;
    /// resumable (a run takes only what is left). `serve` may run meanwhile.
    Backfill(backfill::BackfillArgs),
    /// Copy an embedded deployment (its data directory, only read) into PostgreSQL and S3: accounts, keys,
    /// folders, files, originals, pinned variants, uploads in progress. Resumable: a run takes only what
    /// is missing. Stop `serve` first.
    MigrateStore(migrate_store::MigrateStoreArgs),
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Create a key (and the account, if it does not exist); prints the key once, alone on the last line.
    Create {
        /// Account name: lowercase letters, digits, '-' and '_'.
        #[arg(long)]
        account: String,
        /// secret (everything), upload (presign, confirm, list, get) or read (list, get).
        #[arg(long, default_value = "secret")]
        scope: Scope,
        #[command(flatten)]
        backend: BackendConfig,
    },
}

fn main() -> ExitCode {
    configure_allocator();
    shutterbox_pipeline::codec_memory::keep_codec_buffers();
    shutterbox_api::setup_failpoints();
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => {
            let code = runtime.block_on(async_main());
            // A render abandoned at shutdown (its job handed back) may still hold a blocking thread, which
            // nothing can interrupt: do not wait for it.
            runtime.shutdown_timeout(std::time::Duration::from_secs(1));
            code
        }
        Err(e) => {
            eprintln!("shutterbox: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

/// mimalloc's options, by their `mi_option_t` values in mimalloc 3 (the version Cargo.lock pins).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// Two of mimalloc's defaults changed, each unless the operator's `MIMALLOC_*` variable says otherwise:
///
/// - By default mimalloc hands memory back to the OS 10 ms after it is freed, so every render that follows
///   a pause faults its buffers in again: 9 ms of a 30 ms cold JPEG render, 10–20 ms of an AVIF one
///   (BENCHMARKS.md, "Freed memory kept ten seconds"). Freed memory stays mapped for ten seconds instead,
///   so renders arriving within that time reuse it; idle memory still goes back after that.
/// - mimalloc asks for transparent huge pages, so a 2 MiB page is resident once any byte of it is touched
///   and goes back only whole: at saturation most of the process's memory was huge pages held for a few
///   small buffers. Without them peak RSS is about a third lower at the same throughput (BENCHMARKS.md,
///   "Peak RSS at saturation").
fn configure_allocator() {
    // SAFETY: each sets one integer option; called first thing in main, before any other thread exists.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10_000) };
    }
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0) };
        // mimalloc read the option before main and advised its first arena already; the process-wide
        // switch (what mimalloc itself does when the variable is set) covers that arena's pages too.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

async fn async_main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SHUTTERBOX_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    // One JSON object per line (with the request span's id) for log shippers; text for people.
    if std::env::var("SHUTTERBOX_LOG_FORMAT").is_ok_and(|format| format.eq_ignore_ascii_case("json")) {
        logs.json().with_current_span(true).init();
    } else {
        logs.init();
    }
    match run(Cli::parse().command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("shutterbox: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Serve(config) => serve(*config).await,
        Command::Worker(config) => worker(config).await,
        Command::Upload(args) => upload::run(args).await,
        Command::Warm(args) => warm::run(args).await,
        Command::Sign(args) => sign::run(args),
        Command::Keys { command: KeysCommand::Create { account, scope, backend } } => {
            let account = AccountName::parse(&account).map_err(|e| e.to_string())?;
            let metadata = open_metadata(&backend).await.map_err(|e| e.to_string())?;
            let key = keys::mint(metadata.as_ref(), &account, scope).await.map_err(|e| e.to_string())?;
            println!("Created a {} key for account '{}'. It is shown only once:", key.scope, key.account);
            println!("{}", key.secret.expose());
            Ok(())
        }
        Command::Openapi => {
            println!("{}", shutterbox_api::openapi::spec_json());
            Ok(())
        }
        Command::Backfill(args) => backfill::run(args).await,
        Command::MigrateStore(args) => migrate_store::run(args).await,
        Command::Migrate(backend) => {
            open_metadata(&backend).await.map_err(|e| e.to_string())?;
            println!("metadata schema is up to date");
            Ok(())
        }
    }
}

async fn serve(config: Config) -> Result<(), String> {
    let app = Application::build(config).await.map_err(|e| e.to_string())?;
    if let Some(key) = app.bootstrap_key() {
        println!(
            "First start: created account '{}' with a {} API key. It is shown only this once; keep it safe:",
            key.account, key.scope
        );
        println!("{}", key.secret.expose());
    }
    let url = app.public_url();
    tracing::info!(url = %url, "shutterbox is serving; API at {url}/v1, docs at {url}/v1/docs, console at {url}/console/");
    app.run_until(shutdown_signal()).await.map_err(|e| e.to_string())
}

async fn worker(config: WorkerConfig) -> Result<(), String> {
    let concurrency = config.concurrency;
    let process = WorkerProcess::build(config).await.map_err(|e| e.to_string())?;
    let probes = process.probe_addr();
    tracing::info!(concurrency, "shutterbox worker is running jobs; /healthz and /metrics at http://{probes}");
    process.run_until(shutdown_signal()).await.map_err(|e| e.to_string())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
