//! The mixed load of scripts/load-test.sh: for a fixed time, concurrent clients upload files (presign →
//! PUT → confirm, remembering each confirmed file's SHA-256), list pages, and ask for cold variants (a
//! width no one asked for before), while the script's oha hammers one cached variant. Afterwards every
//! confirmed file must be listed and its bytes downloaded byte-identical. Prints one JSON report and exits
//! non-zero on any 5xx other than an admission 503 with Retry-After, on a 503 without Retry-After, or on a
//! lost or altered upload.
//!
//! ```text
//! cargo run --example load -- ROOT KEY SECONDS
//! ```
//! ROOT is `http://host:port`. It first uploads a 1600×1200 JPEG to render cold variants of (with the shared
//! `ApiClient`), and answers one variant of it (the cached one the hammering clients ask for again and
//! again). The measured uploads make their three requests by hand, since every answer's status and headers
//! are checked.

use std::{
    collections::BTreeMap,
    process::ExitCode,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use shutterbox::client::{ApiClient, Upload};

/// Client tasks per kind of work.
const UPLOADERS: usize = 8;
const LISTERS: usize = 2;
const RENDERERS: usize = 6;
const CACHED: usize = 16;

#[derive(Default)]
struct Tally {
    /// "<kind> <status>" → count.
    statuses: BTreeMap<String, u64>,
    /// Confirmed uploads: file id → (rawUrl, SHA-256 of the bytes sent).
    confirmed: Vec<(String, String, String)>,
    /// 5xx answers that are not admission control's 503 + Retry-After, and transport errors.
    failures: Vec<String>,
    admission_503: u64,
}

impl Tally {
    fn count(&mut self, kind: &str, status: StatusCode) {
        *self.statuses.entry(format!("{kind} {}", status.as_u16())).or_default() += 1;
    }
}

type Shared = Arc<Mutex<Tally>>;

fn lock(tally: &Shared) -> std::sync::MutexGuard<'_, Tally> {
    tally.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records `response`'s status under `kind`; a 5xx is a failure unless it is a 503 with Retry-After.
fn record(tally: &Shared, kind: &str, response: &reqwest::Response) -> bool {
    let status = response.status();
    let mut tally = lock(tally);
    tally.count(kind, status);
    if status == StatusCode::SERVICE_UNAVAILABLE && response.headers().contains_key("retry-after") {
        tally.admission_503 += 1;
    } else if status.is_server_error() {
        tally.failures.push(format!("{kind}: {status}"));
    }
    status.is_success()
}

fn transport_error(tally: &Shared, kind: &str, e: &reqwest::Error) {
    lock(tally).failures.push(format!("{kind}: {e}"));
}

async fn upload(client: &Client, root: &str, key: &str, n: u64, tally: &Shared) {
    // Sizes from 1 KiB to ~200 KiB of bytes unique to this upload.
    let size = 1024 + (n * 7919 % 200) as usize * 1024;
    let mut bytes = vec![0u8; size];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = (i as u64).wrapping_mul(n | 1).wrapping_add(n >> 3) as u8;
    }
    let body = json!({"filename": format!("load-{n}.bin"), "mimetype": "application/octet-stream", "size": size});
    let presign = match client.post(format!("{root}/v1/upload/presign")).header("ApiKey", key).json(&body).send().await
    {
        Ok(r) => r,
        Err(e) => return transport_error(tally, "presign", &e),
    };
    if !record(tally, "presign", &presign) {
        return;
    }
    let Ok(pending) = presign.json::<Value>().await else { return };
    let Some(url) = pending["uploadUrl"].as_str() else { return };
    match client.put(url).body(bytes.clone()).send().await {
        Ok(r) if record(tally, "put", &r) => {}
        Ok(_) => return,
        Err(e) => return transport_error(tally, "put", &e),
    }
    let confirm = json!({"pendingUploadId": pending["pendingUploadId"]});
    // A 503 (a busy database) is retried as a client would, so a confirmed upload is never unknown to us.
    for _ in 0..5 {
        let response =
            match client.post(format!("{root}/v1/upload/confirm")).header("ApiKey", key).json(&confirm).send().await {
                Ok(r) => r,
                Err(e) => return transport_error(tally, "confirm", &e),
            };
        let retry = response.status() == StatusCode::SERVICE_UNAVAILABLE;
        if record(tally, "confirm", &response) {
            if let Ok(file) = response.json::<Value>().await {
                let file = &file["file"];
                let (Some(id), Some(raw)) = (file["id"].as_str(), file["rawUrl"].as_str()) else { return };
                let digest = hex::encode(Sha256::digest(&bytes));
                lock(tally).confirmed.push((id.to_owned(), raw.to_owned(), digest));
            }
            return;
        }
        if !retry {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn list(client: &Client, root: &str, key: &str, page: u64, tally: &Shared) {
    match client.get(format!("{root}/v1/files?page={page}&pageSize=50")).header("ApiKey", key).send().await {
        Ok(r) => {
            record(tally, "list", &r);
        }
        Err(e) => transport_error(tally, "list", &e),
    }
}

async fn cached(client: &Client, url: &str, tally: &Shared) {
    match client.get(url).send().await {
        Ok(r) => {
            record(tally, "cached", &r);
            let _ = r.bytes().await;
        }
        Err(e) => transport_error(tally, "cached", &e),
    }
}

/// Uploads the source of the variants and returns its `secureUrl`.
async fn prepare(client: &Client, root: &str, key: &str) -> Result<String, String> {
    let image =
        image::RgbImage::from_fn(1600, 1200, |x, y| image::Rgb([(x / 7) as u8, (y / 5) as u8, ((x * y) >> 9) as u8]));
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 85)
        .encode_image(&image)
        .map_err(|e| e.to_string())?;
    let api = ApiClient::with_http(client.clone(), root, key);
    let file = api.upload(&Upload::of("load-source.jpg", &jpeg), jpeg.into()).await.map_err(|e| e.to_string())?;
    Ok(file["secureUrl"].as_str().ok_or("confirm gave no secureUrl")?.to_owned())
}

async fn cold_render(client: &Client, source: &str, n: u64, tally: &Shared) {
    // Every request a width never asked for before: a render (or admission control's 503).
    let url = format!("{source}?w={}&format=webp", 100 + n % 4000);
    match client.get(url).send().await {
        Ok(r) => {
            record(tally, "cold", &r);
            let _ = r.bytes().await;
        }
        Err(e) => transport_error(tally, "cold", &e),
    }
}

/// Every confirmed upload is in the listing and its bytes are the ones sent.
async fn verify(client: &Client, root: &str, key: &str, tally: &Shared) -> Vec<String> {
    let confirmed = lock(tally).confirmed.clone();
    let mut problems = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for page in 1.. {
        let response = client.get(format!("{root}/v1/files?page={page}&pageSize=100")).header("ApiKey", key).send();
        let body = match response.await {
            Ok(r) => r.json::<Value>().await,
            Err(e) => Err(e),
        };
        let Ok(body) = body else {
            problems.push(format!("listing page {page} failed"));
            break;
        };
        let files = body["files"].as_array().cloned().unwrap_or_default();
        listed.extend(files.iter().filter_map(|f| f["id"].as_str().map(str::to_owned)));
        if files.is_empty() {
            break;
        }
    }
    for (id, raw, digest) in &confirmed {
        if !listed.contains(id) {
            problems.push(format!("{id} is confirmed but not listed"));
        }
        match client.get(raw).send().await {
            Ok(r) if r.status() == StatusCode::OK => match r.bytes().await {
                Ok(bytes) if hex::encode(Sha256::digest(&bytes)) == *digest => {}
                _ => problems.push(format!("{id}: bytes differ from the upload")),
            },
            Ok(r) => problems.push(format!("{id}: raw download answered {}", r.status())),
            Err(e) => problems.push(format!("{id}: raw download failed: {e}")),
        }
    }
    problems
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, key, seconds] = args.as_slice() else {
        eprintln!("usage: load ROOT KEY SECONDS");
        return ExitCode::from(2);
    };
    let Ok(seconds) = seconds.parse::<u64>() else {
        eprintln!("SECONDS must be a whole number");
        return ExitCode::from(2);
    };
    let client = match Client::builder().no_proxy().timeout(Duration::from_secs(60)).build() {
        Ok(client) => client,
        Err(e) => {
            eprintln!("load: {e}");
            return ExitCode::FAILURE;
        }
    };
    let source = match prepare(&client, root, key).await {
        Ok(source) => source,
        Err(e) => {
            eprintln!("load: could not upload the source image: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cached_url = format!("{source}?w=640&format=webp");
    if !matches!(client.get(&cached_url).send().await, Ok(r) if r.status().is_success()) {
        eprintln!("load: the cached variant could not be rendered");
        return ExitCode::FAILURE;
    }
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let tally: Shared = Arc::default();
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(1));
    let mut tasks = tokio::task::JoinSet::new();
    let kinds = [(0, UPLOADERS), (1, LISTERS), (2, RENDERERS), (3, CACHED)];
    for kind in kinds.into_iter().flat_map(|(kind, tasks)| std::iter::repeat_n(kind, tasks)) {
        let (client, root, key, source, cached_url, tally, counter) = (
            client.clone(),
            root.clone(),
            key.clone(),
            source.clone(),
            cached_url.clone(),
            tally.clone(),
            counter.clone(),
        );
        tasks.spawn(async move {
            while Instant::now() < deadline {
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match kind {
                    0 => upload(&client, &root, &key, n, &tally).await,
                    1 => list(&client, &root, &key, 1 + n % 5, &tally).await,
                    2 => cold_render(&client, &source, n, &tally).await,
                    _ => cached(&client, &cached_url, &tally).await,
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    let elapsed = started.elapsed().as_secs_f64();
    let problems = verify(&client, root, key, &tally).await;
    let tally = lock(&tally);
    let per_second = |kind: &str| {
        let answered: u64 = tally.statuses.iter().filter(|(k, _)| k.starts_with(kind)).map(|(_, n)| n).sum();
        (answered as f64 / elapsed).round()
    };
    let report = json!({
        "seconds": elapsed,
        "requests_per_second": {
            "cached": per_second("cached "),
            "cold": per_second("cold "),
            "list": per_second("list "),
            "uploads_confirmed": (tally.confirmed.len() as f64 / elapsed * 10.0).round() / 10.0,
        },
        "statuses": tally.statuses,
        "confirmed_uploads": tally.confirmed.len(),
        "admission_503": tally.admission_503,
        "failures": tally.failures.iter().take(20).collect::<Vec<_>>(),
        "failure_count": tally.failures.len(),
        "lost_or_altered": problems.iter().take(20).collect::<Vec<_>>(),
        "lost_or_altered_count": problems.len(),
    });
    println!("{report}");
    if tally.failures.is_empty() && problems.is_empty() && !tally.confirmed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
