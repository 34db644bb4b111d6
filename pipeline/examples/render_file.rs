//! Renders one file with one query, the way the server does, and writes the result: a harness for
//! measuring one render from outside (peak memory with `/usr/bin/time -v`, profilers), and, given RUNS,
//! for timing it the way scripts/bench-sharp.mjs times sharp (scripts/bench-pairs.sh).
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example render_file -- SOURCE QUERY TARGET OUTPUT [RUNS]
//! # e.g. target/corpus/photo-8640x5760.jpg 'w=800&q=80' jpeg /tmp/out.jpg
//! ```
//!
//! TARGET is `source`, `auto` or a format name (`jpeg`, `webp`, `avif`, …), as in `Target::parse`.
//! With `RENDER_ONE_CORE=1` in the environment a render keeps to one core, as the server's renders do at
//! saturation (`RenderOptions::parallel`): the CPU cost of a render rather than its latency.
//!
//! Without RUNS: one render, then a line with its size, format, bytes and time. With RUNS: the source stays
//! in memory, 2 untimed renders, then RUNS timed ones (buffer → buffer), and one JSON line
//! `{median_ms, min_ms, bytes, width, height}`.

use std::{env, fs, process::ExitCode, time::Instant};

use shutterbox_pipeline::{RenderOptions, Rendered, Target, Transform, render};

fn main() -> ExitCode {
    // As the service runs (its main does the same).
    shutterbox_pipeline::codec_memory::keep_codec_buffers();
    let args: Vec<String> = env::args().skip(1).collect();
    let (source, query, target, output, runs) = match args.as_slice() {
        [source, query, target, output] => (source, query, target, output, None),
        [source, query, target, output, runs] => (source, query, target, output, Some(runs)),
        _ => {
            eprintln!("usage: render_file SOURCE QUERY TARGET OUTPUT [RUNS]");
            return ExitCode::from(2);
        }
    };
    let bytes = match fs::read(source) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{source}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (Ok(transform), Some(target)) = (Transform::from_query(query), Target::parse(target)) else {
        eprintln!("bad query {query:?} or target {target:?}");
        return ExitCode::from(2);
    };
    let runs = match runs.map(|runs| runs.parse::<usize>()) {
        None => None,
        Some(Ok(runs)) if runs > 0 => Some(runs),
        Some(_) => {
            eprintln!("RUNS must be a positive whole number");
            return ExitCode::from(2);
        }
    };
    let options =
        RenderOptions { parallel: env::var("RENDER_ONE_CORE").as_deref() != Ok("1"), ..RenderOptions::default() };
    let render_once = || render(&bytes, &transform, target, options);

    let mut times = Vec::new();
    let mut rendered = Err(None);
    for run in 0..runs.map_or(1, |runs| runs + 2) {
        let start = Instant::now();
        rendered = render_once().map_err(Some);
        // With RUNS, the first two renders warm up and are not timed.
        if runs.is_none() || run >= 2 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        if rendered.is_err() {
            break;
        }
    }
    let rendered: Rendered = match rendered {
        Ok(rendered) => rendered,
        Err(e) => {
            eprintln!("render failed: {}", e.map_or_else(|| "nothing rendered".to_owned(), |e| e.to_string()));
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = fs::write(output, &rendered.bytes) {
        eprintln!("{output}: {e}");
        return ExitCode::FAILURE;
    }
    times.sort_by(f64::total_cmp);
    let middle = times.len() / 2;
    let median = if times.len() % 2 == 1 { times[middle] } else { (times[middle - 1] + times[middle]) / 2.0 };
    if runs.is_some() {
        println!(
            "{{\"median_ms\": {median:.3}, \"min_ms\": {:.3}, \"bytes\": {}, \"width\": {}, \"height\": {}}}",
            times[0],
            rendered.bytes.len(),
            rendered.width,
            rendered.height
        );
    } else {
        println!(
            "{}x{} {:?}, {} bytes in {median:.1} ms",
            rendered.width,
            rendered.height,
            rendered.format,
            rendered.bytes.len()
        );
    }
    ExitCode::SUCCESS
}
