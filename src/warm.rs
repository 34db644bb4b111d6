//! `shutterbox warm`: drives batch warming over the HTTP API, as any client would. It creates a batch
//! (`POST /v1/warm`), then follows its progress (`GET /v1/warm/{batchId}`) with a progress bar until every
//! item has finished, and fails when any item failed. The requests are `ApiClient`'s (rate limits waited out).

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use reqwest::Method;
use serde::Deserialize;
use serde_json::json;
use shutterbox::client::ApiClient;

/// Batch warming from the command line.
#[derive(Debug, clap::Args)]
pub struct WarmArgs {
    /// The service's public URL, e.g. `http://127.0.0.1:8080` (a trailing `/v1` is accepted).
    #[arg(long, env = "SHUTTERBOX_URL")]
    url: String,
    /// A secret API key.
    #[arg(long, env = "SHUTTERBOX_API_KEY", hide_env_values = true)]
    key: String,
    /// A transformation as a delivery query string, e.g. `w=320` or `w=640&format=webp`; repeatable.
    #[arg(short = 't', long = "transformation", required = true)]
    transformations: Vec<String>,
    /// An image file's id; repeatable. None: every image file of the key's account.
    #[arg(long = "file")]
    files: Vec<String>,
    /// How often to read the batch's progress, in milliseconds.
    #[arg(long, default_value_t = 250)]
    poll_ms: u64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BatchStatus {
    batch_id: String,
    total: u64,
    done: u64,
    failed: u64,
    complete: bool,
    /// The first page of the failed items.
    #[serde(default)]
    failures: Vec<Failure>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Failure {
    file_id: String,
    transformation: String,
    reason: String,
}

/// Failed items printed at the end; the rest are a page of the batch away.
const FAILURES_SHOWN: u64 = 20;

/// Runs a batch to its end. `Ok` only when every item was warmed.
pub async fn run(args: WarmArgs) -> Result<(), String> {
    let client = ApiClient::new(&args.url, &args.key).map_err(|e| e.to_string())?;
    let mut body = json!({ "transformations": args.transformations });
    if !args.files.is_empty() {
        body["fileIds"] = json!(args.files);
    }
    let started = Instant::now();
    let mut status: BatchStatus =
        client.call("warm", Method::POST, "/warm", Some(&body)).await.map_err(|e| e.to_string())?;

    let bar = ProgressBar::new(status.total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}")
            .map_err(|e| e.to_string())?,
    );
    let progress_path = format!("/warm/{}", status.batch_id);
    loop {
        bar.set_position(status.done + status.failed);
        bar.set_message(if status.failed > 0 { format!("{} failed", status.failed) } else { String::new() });
        if status.complete {
            break;
        }
        tokio::time::sleep(Duration::from_millis(args.poll_ms.max(10))).await;
        status = client.call("progress", Method::GET, &progress_path, None).await.map_err(|e| e.to_string())?;
    }
    bar.finish();

    let summary = format!(
        "batch {}: {} of {} variants warmed, {} failed, in {:.1} s",
        status.batch_id,
        status.done,
        status.total,
        status.failed,
        started.elapsed().as_secs_f64()
    );
    if status.failed > 0 {
        // The progress reads asked for the first page of failures, 20 of them (the API's default).
        for failure in &status.failures {
            eprintln!("failed: file {} with {}: {}", failure.file_id, failure.transformation, failure.reason);
        }
        if status.failed > FAILURES_SHOWN {
            eprintln!(
                "… and {} more: GET {}/warm/{}?page=2&pageSize={FAILURES_SHOWN} (and on) lists them",
                status.failed - FAILURES_SHOWN,
                client.base(),
                status.batch_id
            );
        }
        Err(summary)
    } else {
        println!("{summary}");
        Ok(())
    }
}
