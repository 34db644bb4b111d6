//! `render()` end to end (decode + operations + encode) on the benchmark corpus, the same six operations
//! that `scripts/bench-sharp.mjs` times with sharp; `scripts/bench-compare.sh` puts both side by side. And
//! what an upload's image facts cost (`read_facts`, `summarize`).
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example make_corpus     # once: writes target/corpus
//! cargo bench -p shutterbox-pipeline --bench render
//! ```
//!
//! The corpus is read from `target/corpus` at the workspace root, or from `SHUTTERBOX_CORPUS`; without it
//! the bench says so and measures nothing. Each operation first renders once and prints a line
//! `shutterbox-output <id> <bytes> <width>x<height>` (the driver reads the sizes from there); criterion
//! writes its estimates to `target/criterion/render/<id>/new/estimates.json`.

// A tool run by hand: a failure may stop it (the workspace denies unwrap and expect in the service).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    time::Duration,
};

use criterion::{Criterion, SamplingMode};
use shutterbox_pipeline::{OutputFormat, RenderOptions, Target, Transform, read_facts, render, summarize};

struct Case {
    /// The benchmark id, shared with `scripts/bench-sharp.mjs`.
    id: &'static str,
    source: &'static str,
    /// The delivery query, as a client would send it.
    query: &'static str,
    format: OutputFormat,
    /// The expected output size, checked once so a bench never measures the wrong thing.
    size: (u32, u32),
    /// AVIF takes about a second per render: fewer samples.
    slow: bool,
}

const PHOTO: &str = "photo-4000x3000.jpg";
const SMALL_PHOTO: &str = "photo-1200x800.jpg";
/// 49.8 MP; optional (older corpora lack it): its case is skipped when the file is missing.
const HUGE_PHOTO: &str = "photo-8640x5760.jpg";

const CASES: [Case; 6] = [
    Case {
        id: "jpeg4000_w800_jpeg_q80",
        source: PHOTO,
        query: "w=800&q=80",
        format: OutputFormat::Jpeg,
        size: (800, 600),
        slow: false,
    },
    Case {
        id: "jpeg4000_w800_webp_q80",
        source: PHOTO,
        query: "w=800&q=80",
        format: OutputFormat::Webp,
        size: (800, 600),
        slow: false,
    },
    // No `q`: what `?w=800&format=avif` gets, i.e. the service's default quality (80).
    Case {
        id: "jpeg4000_w800_avif",
        source: PHOTO,
        query: "w=800",
        format: OutputFormat::Avif,
        size: (800, 600),
        slow: true,
    },
    Case {
        id: "jpeg4000_cover200_jpeg",
        source: PHOTO,
        query: "w=200&h=200&fit=cover",
        format: OutputFormat::Jpeg,
        size: (200, 200),
        slow: false,
    },
    Case {
        id: "jpeg1200_blur5_gray_jpeg",
        source: SMALL_PHOTO,
        query: "blur=5&gray=true&q=80",
        format: OutputFormat::Jpeg,
        size: (1200, 800),
        slow: false,
    },
    Case {
        id: "jpeg50mp_w800_jpeg_q80",
        source: HUGE_PHOTO,
        query: "w=800&q=80",
        format: OutputFormat::Jpeg,
        size: (800, 533),
        slow: false,
    },
];

fn corpus_dir() -> PathBuf {
    match std::env::var_os("SHUTTERBOX_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/corpus"),
    }
}

fn bench_render(c: &mut Criterion, corpus: &Path) {
    let mut group = c.benchmark_group("render");
    group.sampling_mode(SamplingMode::Flat);
    for case in &CASES {
        let Ok(source) = std::fs::read(corpus.join(case.source)) else {
            eprintln!("render/{} SKIPPED: {} is not in {}", case.id, case.source, corpus.display());
            continue;
        };
        let transform = Transform::from_query(case.query).expect("a valid query");
        let target = Target::Format(case.format);
        let options = RenderOptions::default();

        let once = render(&source, &transform, target, options).expect("render");
        assert_eq!((once.width, once.height), case.size, "{}", case.id);
        println!("shutterbox-output {} {} {}x{}", case.id, once.bytes.len(), once.width, once.height);

        if case.slow {
            group.sample_size(10).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(12));
        } else {
            group.sample_size(20).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(6));
        }
        group.bench_function(case.id, |b| {
            b.iter(|| render(black_box(&source), black_box(&transform), target, options).expect("render"))
        });
    }
    group.finish();
}

/// What an upload's facts cost on the 12 MP JPEG (BENCHMARKS.md, "Image facts"): `read_facts` on the 256 KB
/// confirm reads first (its request path), and `summarize`, the description job's decode and summary.
fn bench_facts(c: &mut Criterion, corpus: &Path) {
    let source = std::fs::read(corpus.join(PHOTO)).expect("the corpus photo");
    let head = &source[..source.len().min(256 << 10)];
    let options = RenderOptions { parallel: false, ..RenderOptions::default() };
    let mut group = c.benchmark_group("facts");
    group.sampling_mode(SamplingMode::Flat).sample_size(20).measurement_time(Duration::from_secs(4));
    let facts = read_facts(head, false).expect("facts").expect("a JPEG's facts are in its head");
    assert_eq!((facts.width, facts.height), (4000, 3000));
    group.bench_function("read_facts_jpeg4000_head", |b| b.iter(|| read_facts(black_box(head), false)));
    group
        .bench_function("summarize_jpeg4000", |b| b.iter(|| summarize(black_box(&source), &options).expect("summary")));
    group.finish();
}

fn main() {
    // As the service runs (its main does the same).
    shutterbox_pipeline::codec_memory::keep_codec_buffers();
    let corpus = corpus_dir();
    let missing: Vec<&str> = [PHOTO, SMALL_PHOTO].into_iter().filter(|name| !corpus.join(name).is_file()).collect();
    if !missing.is_empty() {
        eprintln!(
            "render bench SKIPPED: {} not found in {} (create the corpus with `cargo run --release -p \
             shutterbox-pipeline --example make_corpus`, or point SHUTTERBOX_CORPUS at one)",
            missing.join(", "),
            corpus.display()
        );
        return;
    }
    let mut criterion = Criterion::default().without_plots().configure_from_args();
    bench_render(&mut criterion, &corpus);
    bench_facts(&mut criterion, &corpus);
    criterion.final_summary();
}
