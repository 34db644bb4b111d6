//! Encodes one image as AVIF with libaom at several speed/cq-level pairs and writes each file, printing its
//! size and encode time: the raw material for calibrating `avif::AvifSettings::for_quality` against sharp
//! (score each file against the same reference with scripts/quality-compare.py's SSIM; see BENCHMARKS.md,
//! "AVIF: libaom instead of rav1e").
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example avif_sweep -- SOURCE.png OUT_DIR SPEED:CQ[:THREADS]...
//! # e.g. /tmp/ref-800.png /tmp/sweep 6:24 6:28 7:26 9:24:1
//! ```
//!
//! Each encode is the best of three runs (the first warms libaom's tables and the allocator).

use std::{env, fs, path::PathBuf, process::ExitCode, time::Instant};

use shutterbox_pipeline::avif::{AvifSettings, encode_with};

fn main() -> ExitCode {
    // As the service runs (its main does the same).
    shutterbox_pipeline::codec_memory::keep_codec_buffers();
    let args: Vec<String> = env::args().skip(1).collect();
    let [source, out_dir, settings @ ..] = args.as_slice() else {
        eprintln!("usage: avif_sweep SOURCE OUT_DIR SPEED:CQ[:THREADS]...");
        return ExitCode::from(2);
    };
    let image = match image::open(source) {
        Ok(image) => image::DynamicImage::ImageRgb8(image.to_rgb8()),
        Err(e) => {
            eprintln!("{source}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out_dir = PathBuf::from(out_dir);
    if let Err(e) = fs::create_dir_all(&out_dir) {
        eprintln!("{}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    println!("file\tspeed\tcq\tthreads\tbytes\tms");
    for text in settings {
        let numbers: Result<Vec<u8>, _> = text.split(':').map(str::parse::<u8>).collect();
        let (speed, cq_level, threads) = match numbers.as_deref() {
            Ok([speed, cq]) => (*speed, *cq, 2),
            Ok([speed, cq, threads]) => (*speed, *cq, *threads),
            _ => {
                eprintln!("bad SPEED:CQ[:THREADS] {text:?}");
                return ExitCode::from(2);
            }
        };
        let settings = AvifSettings { cq_level, speed, threads };
        let mut best = f64::INFINITY;
        let mut encoded = Vec::new();
        for _ in 0..3 {
            let start = Instant::now();
            match encode_with(&image, settings) {
                Ok(bytes) => encoded = bytes,
                Err(e) => {
                    eprintln!("{text}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
        }
        let path = out_dir.join(format!("s{speed}-cq{cq_level}-t{threads}.avif"));
        if let Err(e) = fs::write(&path, &encoded) {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}\t{speed}\t{cq_level}\t{threads}\t{}\t{best:.0}", path.display(), encoded.len());
    }
    ExitCode::SUCCESS
}
