//! Encodes one image as AVIF with ravif at several speed/quality pairs and writes each file, printing its
//! size and encode time: the raw material for calibrating `encode::avif_quality` against sharp (compare
//! each file's DSSIM against the source with the `dssim` CLI; see BENCHMARKS.md, "AVIF quality").
//!
//! ```text
//! cargo run --release -p shutterbox-pipeline --example avif_sweep -- SOURCE.png OUT_DIR SPEED:QUALITY...
//! # e.g. /tmp/ref-800.png /tmp/sweep 9:50 9:60 8:55 6:55
//! ```
//!
//! The pixels go to ravif the way `encode` sends an opaque image (8-bit RGB, ravif's defaults otherwise).

use std::{env, fs, path::PathBuf, process::ExitCode, time::Instant};

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let [source, out_dir, pairs @ ..] = args.as_slice() else {
        eprintln!("usage: avif_sweep SOURCE OUT_DIR SPEED:QUALITY...");
        return ExitCode::from(2);
    };
    let image = match image::open(source) {
        Ok(image) => image.to_rgb8(),
        Err(e) => {
            eprintln!("{source}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (w, h) = (image.width() as usize, image.height() as usize);
    let pixels: Vec<ravif::RGB8> = image.pixels().map(|p| ravif::RGB8 { r: p.0[0], g: p.0[1], b: p.0[2] }).collect();
    let out_dir = PathBuf::from(out_dir);
    if let Err(e) = fs::create_dir_all(&out_dir) {
        eprintln!("{}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    for pair in pairs {
        let Some((Ok(speed), Ok(quality))) = pair.split_once(':').map(|(s, q)| (s.parse::<u8>(), q.parse::<f32>()))
        else {
            eprintln!("bad SPEED:QUALITY {pair:?}");
            return ExitCode::from(2);
        };
        let start = Instant::now();
        let encoded = ravif::Encoder::new().with_quality(quality).with_speed(speed).encode_rgb(ravif::Img::new(
            &pixels[..],
            w,
            h,
        ));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match encoded {
            Ok(encoded) => {
                let path = out_dir.join(format!("s{speed}-q{quality}.avif"));
                if let Err(e) = fs::write(&path, &encoded.avif_file) {
                    eprintln!("{}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("{}\t{speed}\t{quality}\t{}\t{ms:.0}", path.display(), encoded.avif_file.len());
            }
            Err(e) => {
                eprintln!("{pair}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
