//! Times one render the way scripts/bench-sharp.mjs times sharp: the source read into memory once, 2 untimed
//! runs, then RUNS timed runs buffer → buffer; prints one JSON line {median_ms, min_ms, bytes, width, height}.
//! scripts/bench-pairs.sh alternates it with sharp per operation, so both sides of a ratio are measured
//! seconds apart.
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example time_render -- SOURCE QUERY TARGET RUNS
//! # e.g. target/corpus/photo-4000x3000.jpg 'w=800&q=80' jpeg 15
//! ```

use std::{env, fs, process::ExitCode, time::Instant};

use shutterbox_pipeline::{RenderOptions, Target, Transform, render};

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let [source, query, target, runs] = args.as_slice() else {
        eprintln!("usage: time_render SOURCE QUERY TARGET RUNS");
        return ExitCode::from(2);
    };
    let bytes = match fs::read(source) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{source}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (Ok(transform), Some(target), Ok(runs)) =
        (Transform::from_query(query), Target::parse(target), runs.parse::<usize>())
    else {
        eprintln!("bad query {query:?}, target {target:?} or run count {runs:?}");
        return ExitCode::from(2);
    };
    let render_once = || render(&bytes, &transform, target, RenderOptions::default());
    let mut last = None;
    for _ in 0..2 {
        last = Some(render_once());
    }
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        last = Some(render_once());
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let rendered = match last {
        Some(Ok(rendered)) => rendered,
        Some(Err(e)) => {
            eprintln!("render failed: {e}");
            return ExitCode::FAILURE;
        }
        None => return ExitCode::FAILURE,
    };
    times.sort_by(f64::total_cmp);
    let median = if times.len() % 2 == 1 {
        times[times.len() / 2]
    } else {
        (times[times.len() / 2 - 1] + times[times.len() / 2]) / 2.0
    };
    println!(
        "{{\"median_ms\": {median:.3}, \"min_ms\": {:.3}, \"bytes\": {}, \"width\": {}, \"height\": {}}}",
        times[0],
        rendered.bytes.len(),
        rendered.width,
        rendered.height
    );
    ExitCode::SUCCESS
}
