//! Probes outside `/v1`: `/healthz` (the process answers), `/readyz` (its backends answer too) and
//! `/metrics` (Prometheus text format).

use std::sync::Arc;

use poem::{EndpointExt, handler, http::StatusCode, web::Data, web::Json};
use serde_json::{Value, json};

use shutterbox_queue::{JobQueue, JobStats};
use shutterbox_variants::StoreStats;

use crate::{
    http::route::{GET_HEAD, MethodCheck, RouteSpec},
    state::AppState,
};

/// `/healthz`: the process answers.
pub static HEALTHZ: RouteSpec = RouteSpec {
    paths: &["/healthz"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "healthz",
    documented: false,
    handler: |_| live.map_to_response().boxed(),
};

/// `/readyz`: the process and its backends answer.
pub static READYZ: RouteSpec = RouteSpec {
    paths: &["/readyz"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "readyz",
    documented: false,
    handler: |_| ready.map_to_response().boxed(),
};

/// `/metrics`.
pub static METRICS: RouteSpec = RouteSpec {
    paths: &["/metrics"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "metrics",
    documented: false,
    handler: |_| metrics.map_to_response().boxed(),
};

#[handler]
pub async fn live() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

#[handler]
pub async fn ready(state: Data<&Arc<AppState>>) -> (StatusCode, Json<Value>) {
    let (database, store, queue) = tokio::join!(state.metadata.ping(), state.store.check(), state.queue.depth());
    let verdict = |r: &Result<(), String>| match r {
        Ok(()) => json!("ok"),
        Err(e) => json!(e),
    };
    let database = database.map_err(|e| e.to_string());
    let store = store.map_err(|e| e.to_string());
    let queue = queue.map(drop).map_err(|e| e.to_string());
    let ready = database.is_ok() && store.is_ok() && queue.is_ok();
    let body = json!({
        "message": if ready { "ready" } else { "a backend is unavailable" },
        "ready": ready,
        "checks": { "database": verdict(&database), "store": verdict(&store), "queue": verdict(&queue) },
    });
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(body))
}

/// Counters in the Prometheus text format.
#[handler]
pub async fn metrics(state: Data<&Arc<AppState>>) -> poem::Response {
    use std::{fmt::Write, sync::atomic::Ordering};
    let stats = state.variants.stats();
    let mut out = String::new();
    for (name, help, value) in [
        ("shutterbox_renders_total", "Variants rendered to answer a request.", stats.renders.load(Ordering::Relaxed)),
        (
            "shutterbox_variant_store_hits_total",
            "Variant requests answered from a stored variant.",
            stats.stored_hits.load(Ordering::Relaxed),
        ),
        (
            "shutterbox_variant_cache_hits_total",
            "Variant requests served from memory.",
            stats.hits.load(Ordering::Relaxed),
        ),
        (
            "shutterbox_variant_cache_misses_total",
            "Variant requests not in memory.",
            stats.misses.load(Ordering::Relaxed),
        ),
    ] {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}");
    }
    let _ = writeln!(
        out,
        "# HELP shutterbox_variants_storing Variants rendered for a request, served, and still being stored.\n\
         # TYPE shutterbox_variants_storing gauge\nshutterbox_variants_storing {}",
        stats.storing.load(Ordering::Relaxed)
    );
    let admission = state.variants.admission();
    let _ = writeln!(
        out,
        "# HELP shutterbox_renders_in_flight Renders a request waits on, running or waiting for a turn.\n\
         # TYPE shutterbox_renders_in_flight gauge\nshutterbox_renders_in_flight {}\n\
         # HELP shutterbox_renders_rejected_total Cold variants answered 503 because the render queue was full.\n\
         # TYPE shutterbox_renders_rejected_total counter\nshutterbox_renders_rejected_total {}",
        admission.in_flight(),
        admission.rejected.load(Ordering::Relaxed)
    );
    if let Some(throttle) = &state.cold_renders {
        let _ = writeln!(
            out,
            "# HELP shutterbox_renders_throttled_total Cold variants answered 429: the client address's render \
             budget was spent.\n# TYPE shutterbox_renders_throttled_total counter\nshutterbox_renders_throttled_total {}",
            throttle.refused.load(Ordering::Relaxed)
        );
    }
    job_metrics(&mut out, &state.jobs, state.queue.as_ref()).await;
    store_metrics(&mut out, state.variants.store_stats());
    state.http_metrics.render(&mut out);
    poem::Response::builder().content_type(prometheus::TEXT_FORMAT).body(out)
}

/// The stored variants (as last counted by this process's sweep) and the evictions it made, in the
/// Prometheus text format (shared with the worker process's `/metrics`).
pub fn store_metrics(out: &mut String, stats: &StoreStats) {
    use std::{fmt::Write, sync::atomic::Ordering};
    let load = |counter: &std::sync::atomic::AtomicU64| counter.load(Ordering::Relaxed);
    let _ = writeln!(
        out,
        "# HELP shutterbox_stored_variants Variants kept in the object store, as last counted by this process's sweep.\n\
         # TYPE shutterbox_stored_variants gauge\nshutterbox_stored_variants {}\n\
         # HELP shutterbox_stored_variant_bytes Bytes of the variants kept in the object store, as last counted.\n\
         # TYPE shutterbox_stored_variant_bytes gauge\nshutterbox_stored_variant_bytes {}\n\
         # HELP shutterbox_variant_evictions_total Stored variants removed by this process, by reason.\n\
         # TYPE shutterbox_variant_evictions_total counter\n\
         shutterbox_variant_evictions_total{{reason=\"file_cap\"}} {}\n\
         shutterbox_variant_evictions_total{{reason=\"budget\"}} {}\n\
         shutterbox_variant_evictions_total{{reason=\"damaged\"}} {}\n\
         # HELP shutterbox_variants_not_stored_total Variants served but not stored: their file's cap was full of pinned ones.\n\
         # TYPE shutterbox_variants_not_stored_total counter\nshutterbox_variants_not_stored_total {}\n\
         # HELP shutterbox_variants_store_backlog_skipped_total Variants served but not stored: the variants waiting to be stored were over their byte bound.\n\
         # TYPE shutterbox_variants_store_backlog_skipped_total counter\nshutterbox_variants_store_backlog_skipped_total {}",
        load(&stats.stored),
        load(&stats.stored_bytes),
        load(&stats.evicted_for_file_cap),
        load(&stats.evicted_for_budget),
        load(&stats.evicted_damaged),
        load(&stats.not_stored),
        load(&stats.not_stored_backlog),
    );
}

/// The job counters of this process and the queue's depth, in the Prometheus text format (shared with the
/// worker process's `/metrics`).
pub async fn job_metrics(out: &mut String, jobs: &JobStats, queue: &dyn JobQueue) {
    use std::{fmt::Write, sync::atomic::Ordering};
    let _ = writeln!(
        out,
        "# HELP shutterbox_jobs_total Jobs run by this process, by outcome.\n# TYPE shutterbox_jobs_total counter"
    );
    for (outcome, value) in [("done", &jobs.done), ("retried", &jobs.retried), ("dropped", &jobs.dropped)] {
        let _ = writeln!(out, "shutterbox_jobs_total{{outcome=\"{outcome}\"}} {}", value.load(Ordering::Relaxed));
    }
    let _ = writeln!(
        out,
        "# HELP shutterbox_job_renders_total Variants rendered by jobs in this process.\n\
         # TYPE shutterbox_job_renders_total counter\nshutterbox_job_renders_total {}",
        jobs.renders.load(Ordering::Relaxed)
    );
    let _ = writeln!(
        out,
        "# HELP shutterbox_uploads_swept_total Expired uploads the cleanup sweep of this process removed, with \
         their bytes (a resumable upload's partial file or multipart upload), by kind.\n\
         # TYPE shutterbox_uploads_swept_total counter"
    );
    for (kind, value) in [("presigned", &jobs.swept_uploads), ("resumable", &jobs.swept_resumable_uploads)] {
        let _ = writeln!(out, "shutterbox_uploads_swept_total{{kind=\"{kind}\"}} {}", value.load(Ordering::Relaxed));
    }
    let _ = writeln!(
        out,
        "# HELP shutterbox_orphaned_objects_swept_total Objects a crash left unrecorded, removed by this process's sweep.\n\
         # TYPE shutterbox_orphaned_objects_swept_total counter\nshutterbox_orphaned_objects_swept_total {}",
        jobs.swept_orphans.load(Ordering::Relaxed)
    );
    let depth = queue.depth().await.unwrap_or(0);
    let _ = writeln!(
        out,
        "# HELP shutterbox_queue_depth Jobs waiting.\n# TYPE shutterbox_queue_depth gauge\nshutterbox_queue_depth {depth}"
    );
}
