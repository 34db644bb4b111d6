//! Renders one file with one query, the way the server does, and writes the result: a harness for
//! measuring one render from outside (peak memory with `/usr/bin/time -v`, profilers).
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example render_file -- SOURCE QUERY TARGET OUTPUT
//! # e.g. target/corpus/photo-8640x5760.jpg 'w=800&q=80' jpeg /tmp/out.jpg
//! ```
//!
//! TARGET is `source`, `auto` or a format name (`jpeg`, `webp`, `avif`, …), as in `Target::parse`.

use std::{env, fs, process::ExitCode, time::Instant};

use shutterbox_pipeline::{RenderOptions, Target, Transform, render};

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let [source, query, target, output] = args.as_slice() else {
        eprintln!("usage: render_file SOURCE QUERY TARGET OUTPUT");
        return ExitCode::from(2);
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
    let start = Instant::now();
    match render(&bytes, &transform, target, RenderOptions::default()) {
        Ok(rendered) => {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            println!(
                "{}x{} {:?}, {} bytes in {ms:.1} ms",
                rendered.width,
                rendered.height,
                rendered.format,
                rendered.bytes.len()
            );
            if let Err(e) = fs::write(output, &rendered.bytes) {
                eprintln!("{output}: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("render failed: {e}");
            ExitCode::FAILURE
        }
    }
}
