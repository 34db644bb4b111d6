//! The upload phase of scripts/bench-distributed.sh: every file of a directory through presign → PUT →
//! confirm with the shared `ApiClient`, on a number of concurrent clients, timed per step. With several API
//! nodes, file i is presigned on node i mod n and confirmed on node (i + 1) mod n, so a pending upload made on
//! one node must be confirmable on another. Fails on the first refused or failed step.
//!
//! ```text
//! cargo run --release --example upload_rate -- KEY NODE_URL[,NODE_URL…] DIR CLIENTS OUT.json
//! ```
//! OUT.json holds files, bytes, clients, nodes, wall_s, uploads_per_s, the first file's object (`first`),
//! and p50/p99/max in ms of one whole upload (`total`) and of each step (`presign`, `put`, `confirm`).

use std::{
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use reqwest::Client;
use serde_json::{Value, json};
use shutterbox::client::{ApiClient, ClientError, Upload};

/// One upload's answer and how long each step took.
struct Timed {
    name: String,
    file: Value,
    presign: Duration,
    put: Duration,
    confirm: Duration,
}

async fn upload(nodes: &[ApiClient], i: usize, path: &std::path::Path) -> Result<Timed, String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let bytes = Bytes::from(std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?);
    let (presign_node, confirm_node) = (&nodes[i % nodes.len()], &nodes[(i + 1) % nodes.len()]);
    let upload = Upload { folder_name: Some("bench".into()), ..Upload::of(&name, &bytes) };
    let failed = |e: ClientError| format!("{name}: {e}");
    let started = Instant::now();
    let presigned = presign_node.presign(&upload).await.map_err(failed)?;
    let presigned_at = Instant::now();
    presign_node.put(&presigned, &upload.mimetype, bytes).await.map_err(failed)?;
    let put_at = Instant::now();
    let file = confirm_node.confirm(&presigned.pending_upload_id).await.map_err(failed)?;
    Ok(Timed { name, file, presign: presigned_at - started, put: put_at - presigned_at, confirm: put_at.elapsed() })
}

/// p50/p99/max in milliseconds (nearest rank).
fn spread(mut values: Vec<Duration>) -> Value {
    values.sort();
    let rank = |p: usize| values[(values.len() * p).div_ceil(100).saturating_sub(1)].as_secs_f64() * 1e3;
    json!({ "p50_ms": rank(50), "p99_ms": rank(99), "max_ms": rank(100) })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [key, nodes, dir, clients, out] = args.as_slice() else {
        eprintln!("usage: upload_rate KEY NODE_URL[,NODE_URL…] DIR CLIENTS OUT.json");
        return ExitCode::from(2);
    };
    let Ok(clients) = clients.parse::<usize>() else {
        eprintln!("upload_rate: CLIENTS must be a number, not {clients}");
        return ExitCode::from(2);
    };
    let mut paths: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            eprintln!("upload_rate: {dir}: {e}");
            return ExitCode::FAILURE;
        }
    };
    paths.sort();
    if paths.is_empty() {
        eprintln!("upload_rate: no files in {dir}");
        return ExitCode::FAILURE;
    }
    let http = match Client::builder().timeout(Duration::from_secs(300)).build() {
        Ok(http) => http,
        Err(e) => {
            eprintln!("upload_rate: {e}");
            return ExitCode::FAILURE;
        }
    };
    let node_urls: Vec<&str> = nodes.split(',').collect();
    let nodes: Arc<Vec<ApiClient>> =
        Arc::new(node_urls.iter().map(|url| ApiClient::with_http(http.clone(), url, key)).collect());
    let paths = Arc::new(paths);
    let next = Arc::new(AtomicUsize::new(0));

    let started = Instant::now();
    let workers: Vec<_> = (0..clients.max(1))
        .map(|_| {
            let (nodes, paths, next) = (nodes.clone(), paths.clone(), next.clone());
            tokio::spawn(async move {
                let mut done = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { return Ok(done) };
                    match upload(&nodes, i, path).await {
                        Ok(timed) => done.push(timed),
                        Err(e) => {
                            // The others stop at their next file.
                            next.store(paths.len(), Ordering::Relaxed);
                            return Err(e);
                        }
                    }
                }
            })
        })
        .collect();
    let mut results = Vec::new();
    let mut first_error = None;
    for worker in workers {
        match worker.await {
            Ok(Ok(done)) => results.extend(done),
            Ok(Err(e)) => first_error = first_error.or(Some(e)),
            Err(e) => first_error = first_error.or(Some(e.to_string())),
        }
    }
    let wall = started.elapsed().as_secs_f64();
    if let Some(e) = first_error {
        eprintln!("upload_rate: an upload failed: {e}");
        return ExitCode::FAILURE;
    }
    results.sort_by(|a, b| a.name.cmp(&b.name));

    let bytes: u64 = paths.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    let steps = |f: fn(&Timed) -> Duration| spread(results.iter().map(f).collect());
    let summary = json!({
        "files": results.len(),
        "bytes": bytes,
        "clients": clients,
        "nodes": node_urls,
        "wall_s": wall,
        "uploads_per_s": results.len() as f64 / wall,
        "first": results[0].file,
        "total": steps(|t| t.presign + t.put + t.confirm),
        "presign": steps(|t| t.presign),
        "put": steps(|t| t.put),
        "confirm": steps(|t| t.confirm),
    });
    if let Err(e) = std::fs::write(out, summary.to_string()) {
        eprintln!("upload_rate: {out}: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!(
        "   {} uploads in {wall:.2} s: {:.1}/s; one upload p50 {:.1} ms, p99 {:.1} ms (confirm p99 {:.1} ms)",
        results.len(),
        summary["uploads_per_s"].as_f64().unwrap_or_default(),
        summary["total"]["p50_ms"].as_f64().unwrap_or_default(),
        summary["total"]["p99_ms"].as_f64().unwrap_or_default(),
        summary["confirm"]["p99_ms"].as_f64().unwrap_or_default(),
    );
    ExitCode::SUCCESS
}
