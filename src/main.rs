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
use shutterbox_api::{API_PREFIX, CONSOLE, HEALTHZ, METRICS, keys, openapi::DOCS};
use shutterbox_model::{AccountName, KeyId, Scope};

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
    /// (Internal) Decode one upload with a decoder written in C, limited to ADDRESS_SPACE bytes and CPU_SECS
    /// of CPU time: the child process the service runs them in (SECURITY.md). Reads its request on
    /// standard input.
    #[command(name = "decode-isolated", hide = true)]
    DecodeIsolated { address_space: u64, cpu_secs: u64 },
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
        /// Days the key is valid for; without it, until revoked.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=keys::MAX_EXPIRY_DAYS))]
        expires_in_days: Option<u64>,
        #[command(flatten)]
        backend: BackendConfig,
    },
    /// List keys (never their secrets): id, account, scope, prefix, created, expires, state.
    List {
        /// Only this account's keys.
        #[arg(long)]
        account: Option<String>,
        #[command(flatten)]
        backend: BackendConfig,
    },
    /// Revoke a key by its id (from `keys list`): every node refuses it from its next request.
    Revoke {
        id: String,
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
        Command::Keys { command } => keys_command(command).await,
        Command::DecodeIsolated { address_space, cpu_secs } => {
            shutterbox_variants::isolation::serve_child(address_space, cpu_secs).map_err(|e| e.to_string())
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

async fn keys_command(command: KeysCommand) -> Result<(), String> {
    match command {
        KeysCommand::Create { account, scope, expires_in_days, backend } => {
            let account = AccountName::parse(&account).map_err(|e| e.to_string())?;
            let metadata = open_metadata(&backend).await.map_err(|e| e.to_string())?;
            let key =
                keys::mint(metadata.as_ref(), &account, scope, expires_in_days).await.map_err(|e| e.to_string())?;
            let until =
                key.expires_at_ms.map_or_else(|| "until revoked".to_owned(), |at| format!("until {}", iso_date(at)));
            println!(
                "Created {} key {} for account '{}', valid {until}. It is shown only once:",
                key.scope, key.id, key.account
            );
            println!("{}", key.secret.expose());
            Ok(())
        }
        KeysCommand::List { account, backend } => {
            let metadata = open_metadata(&backend).await.map_err(|e| e.to_string())?;
            let account_id = match account {
                Some(name) => {
                    let name = AccountName::parse(&name).map_err(|e| e.to_string())?;
                    let all = metadata.list_keys(None).await.map_err(|e| e.to_string())?;
                    let keys: Vec<_> = all.into_iter().filter(|k| k.account_name == name.as_str()).collect();
                    print_keys(&keys);
                    return Ok(());
                }
                None => None,
            };
            print_keys(&metadata.list_keys(account_id).await.map_err(|e| e.to_string())?);
            Ok(())
        }
        KeysCommand::Revoke { id, backend } => {
            let (id, metadata) = (KeyId::new(id), open_metadata(&backend).await.map_err(|e| e.to_string())?);
            if keys::revoke(metadata.as_ref(), None, &id).await.map_err(|e| e.to_string())? {
                println!("Revoked key {id}.");
                Ok(())
            } else {
                Err(format!("no key {id} to revoke (unknown, or revoked already)"))
            }
        }
    }
}

fn print_keys(list: &[shutterbox_metadata::KeyInfo]) {
    let now = shutterbox_model::clock::now_ms();
    println!(
        "{:<36}  {:<20}  {:<7}  {:<12}  {:<24}  {:<24}  state",
        "id", "account", "scope", "prefix", "created", "expires"
    );
    for key in list {
        let expires = key.expires_at_ms.map_or_else(|| "-".to_owned(), iso_date);
        println!(
            "{:<36}  {:<20}  {:<7}  {:<12}  {:<24}  {:<24}  {}",
            key.id,
            key.account_name,
            key.scope.as_str(),
            key.prefix,
            iso_date(key.created_at_ms),
            expires,
            keys::state(key, now)
        );
    }
}

/// A Unix time in milliseconds as an ISO 8601 instant.
fn iso_date(ms: i64) -> String {
    shutterbox_model::display::iso_millis(ms)
}

async fn serve(config: Config) -> Result<(), String> {
    let data_dir = config.backend.data_dir.clone();
    let app = Application::build(config).await.map_err(|e| e.to_string())?;
    if let Some(key) = app.bootstrap_key() {
        show_bootstrap_key(key, &data_dir)?;
    }
    let url = app.public_url();
    let api = format!("{url}{API_PREFIX}");
    let (docs, console) = (DOCS.url(&api, &[]), CONSOLE.url(url, &[]));
    tracing::info!(url = %url, "shutterbox is serving; API at {api}, docs at {docs}, console at {console}/");
    app.run_until(shutdown_signal()).await.map_err(|e| e.to_string())
}

/// The first start's secret key goes where only the operator reads it: to a terminal, or else (a service
/// manager's log, a container's output, which others may read) into `<data dir>/bootstrap-key`, readable by
/// this user alone, whose path is printed instead.
fn show_bootstrap_key(key: &keys::MintedKey, data_dir: &std::path::Path) -> Result<(), String> {
    use std::io::IsTerminal;
    let what = format!("First start: created account '{}' with a {} API key", key.account, key.scope);
    if std::io::stdout().is_terminal() {
        println!("{what}. It is shown only this once; keep it safe:");
        println!("{}", key.secret.expose());
        return Ok(());
    }
    let path = data_dir.join(BOOTSTRAP_KEY_FILE);
    write_private(&path, format!("{}\n", key.secret.expose()).as_bytes())
        .map_err(|e| format!("could not write the first key to {}: {e}", path.display()))?;
    println!("{what}, written to {} (readable by this user only). Keep it safe, then delete the file.", path.display());
    Ok(())
}

/// Where the first start writes its key when standard output is not a terminal.
const BOOTSTRAP_KEY_FILE: &str = "bootstrap-key";

/// Writes `bytes` to a new file at `path` that only this user may read or write (mode 0600 from its
/// creation, so it is never readable by others, even for a moment). A file left there by an earlier first
/// start (a data directory kept while its database was replaced) is replaced.
fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::{io::Write, os::unix::fs::OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(e);
    }
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

async fn worker(config: WorkerConfig) -> Result<(), String> {
    let concurrency = config.concurrency;
    let process = WorkerProcess::build(config).await.map_err(|e| e.to_string())?;
    let probes = process.probe_addr();
    let (healthz, metrics) = (HEALTHZ.prefix(), METRICS.prefix());
    tracing::info!(concurrency, "shutterbox worker is running jobs; {healthz} and {metrics} at http://{probes}");
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
