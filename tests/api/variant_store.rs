//! Stored variants are a bounded cache: at most `SHUTTERBOX_VARIANTS_PER_FILE` per file (the least
//! recently used ad-hoc one makes room; job-rendered ones are kept in preference) and
//! `SHUTTERBOX_VARIANT_STORE_BYTES` in all (the sweep evicts). Every request is answered either way.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_pipeline::{Target, Transform};
use shutterbox_variants::VariantSpec;

use crate::helpers::{PNG, TestApp, eventually, file_id};

/// Whether the variant `query` of `file` is in the object store.
fn stored(app: &TestApp, file: &Value, query: &str) -> bool {
    let spec = VariantSpec::new(Transform::from_query(query).unwrap(), Target::Source);
    app.objects_dir.join(spec.key(&file_id(file)).object_key().as_str()).exists()
}

/// Stored variant objects of `file` (its original not counted).
fn stored_variants(app: &TestApp, file: &Value) -> usize {
    app.stored_objects(&file_id(file)).iter().filter(|path| path.contains("/v/")).count()
}

async fn ok(app: &TestApp, url: &str) {
    let (status, _, body) = app.fetch(url).await;
    assert_eq!(status, StatusCode::OK, "{url}: {}", String::from_utf8_lossy(&body));
}

#[tokio::test]
async fn a_file_keeps_its_cap_of_stored_variants_and_the_least_recently_used_goes() {
    let app = TestApp::spawn_with(|config| config.backend.variants_per_file = 4).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    assert_eq!(stored_variants(&app, &file), 1, "the thumbnail");
    let url = file["secureUrl"].as_str().unwrap();

    for w in 1..=3 {
        ok(&app, &format!("{url}?w={w}")).await;
    }
    eventually(10, "three stored", || async { stored_variants(&app, &file) == 4 }).await;
    // w=1 is used again (on every API node), so w=2 is now the least recent.
    for _ in 0..app.nodes.len() {
        ok(&app, &format!("{url}?w=1&again")).await;
    }
    for w in 4..=5 {
        ok(&app, &format!("{url}?w={w}")).await;
        eventually(10, "w={w} stored", || async { stored(&app, &file, &format!("w={w}")) }).await;
    }
    assert_eq!(stored_variants(&app, &file), 4, "the cap holds");
    for (query, kept) in [("w=1", true), ("w=2", false), ("w=3", false), ("w=4", true), ("w=5", true)] {
        assert_eq!(stored(&app, &file, query), kept, "{query}");
    }
    assert_eq!(app.metric("shutterbox_variant_evictions_total{reason=\"file_cap\"}").await, 2);
    // Evicted variants are still answered (from memory, or rendered again).
    for w in 1..=5 {
        ok(&app, &format!("{url}?w={w}&later")).await;
    }
}

#[tokio::test]
async fn variants_rendered_by_jobs_are_kept_in_preference_and_a_full_cap_still_serves() {
    let app = TestApp::spawn_with(|config| config.backend.variants_per_file = 2).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    let url = file["secureUrl"].as_str().unwrap();
    ok(&app, &format!("{url}?w=9")).await;
    eventually(10, "w=9 stored", || async { stored(&app, &file, "w=9") }).await;

    // Warming renders two more: pinned, they make room by evicting the ad-hoc w=9, and may exceed the cap.
    let warm = app.authed(Method::POST, "/warm", &app.key).json(&json!({"transformations": ["w=7", "w=6"]}));
    assert_eq!(warm.send().await.unwrap().status(), StatusCode::ACCEPTED);
    app.wait_for_jobs(4).await;
    assert!(stored(&app, &file, "w=7") && stored(&app, &file, "w=6") && !stored(&app, &file, "w=9"));
    assert_eq!(stored_variants(&app, &file), 3, "the thumbnail and the two warmed");

    // The cap is full of pinned variants: an ad-hoc one is rendered and served, not stored.
    ok(&app, &format!("{url}?w=5")).await;
    eventually(10, "counted as not stored", || async { app.metric("shutterbox_variants_not_stored_total").await == 1 })
        .await;
    assert!(!stored(&app, &file, "w=5"));
    assert_eq!(stored_variants(&app, &file), 3);
}

#[tokio::test]
async fn a_cap_of_zero_stores_only_what_jobs_render() {
    let app = TestApp::spawn_with(|config| config.backend.variants_per_file = 0).await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    let url = file["secureUrl"].as_str().unwrap();
    for w in 1..=3 {
        ok(&app, &format!("{url}?w={w}")).await;
    }
    eventually(10, "counted as not stored", || async { app.metric("shutterbox_variants_not_stored_total").await == 3 })
        .await;
    assert_eq!(stored_variants(&app, &file), 1, "the thumbnail alone");
}

#[tokio::test]
async fn the_sweep_keeps_stored_variants_within_the_byte_budget() {
    // A budget of 0: the sweep (every second here) removes every stored variant, pinned ones last.
    let app = TestApp::spawn_with(|config| {
        config.backend.variant_store_bytes = 0;
        config.backend.sweep_interval_secs = 1;
    })
    .await;
    let file = app.upload("cat.png", "image/png", PNG).await;
    app.wait_for_jobs(2).await;
    let url = file["secureUrl"].as_str().unwrap();
    for w in 1..=3 {
        ok(&app, &format!("{url}?w={w}")).await;
    }
    eventually(15, "the sweep emptied the variant store", || async { stored_variants(&app, &file) == 0 }).await;
    eventually(5, "evictions counted", || async {
        app.job_metric("shutterbox_variant_evictions_total{reason=\"budget\"}").await >= 4
    })
    .await;
    // As the sweep last counted them: 0 once a sweep found nothing left to evict.
    eventually(5, "counted as empty", || async { app.job_metric("shutterbox_stored_variant_bytes").await == 0 }).await;
    // Every variant and the thumbnail are still answered.
    for w in 1..=3 {
        ok(&app, &format!("{url}?w={w}&later")).await;
    }
    ok(&app, file["secureThumbnailUrl"].as_str().unwrap()).await;
}
