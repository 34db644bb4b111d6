//! The animated files of the test corpora (image-gif's and image-png's test images, libwebp's test data)
//! against libvips: every file sharp reads as an animation (`sharp(file, { animated: true })`, more than one
//! page) renders as an animated WebP and an animated GIF with libvips' frame count, delays (a GIF's rounded to
//! the hundredths it stores) and loop count; and every GIF of the corpora that libvips reads renders at
//! libvips' size (`corpus_gifs_libvips_reads_render_at_its_size`). The corpora are read from
//! `SHUTTERBOX_CORPORA` (default: the repository's `tests/corpora`); sharp from
//! `SHUTTERBOX_SHARP_NODE_MODULES` (a node_modules holding sharp; scripts/test.sh installs it). Either
//! missing fails the test, naming it.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::{io::Cursor, path::PathBuf};

use common::{corpora, sharp_lines};

use image::{AnimationDecoder, codecs::gif::GifDecoder};
use shutterbox_pipeline::{OutputFormat, RenderOptions, Target, Transform, render};

const FOLDERS: [&str; 3] = ["image-gif", "image-png", "libwebp-test-data"];

/// sharp's reading of each file it reads: its JSON line.
fn sharp_read(files: &[PathBuf]) -> Vec<serde_json::Value> {
    sharp_lines("sharp-animation.cjs", files).into_iter().filter(|value| value["error"].is_null()).collect()
}

/// sharp's reading of each file: (file, pages, delays in ms, loop count), for the files it animates.
fn sharp_animations(files: &[PathBuf]) -> Vec<(PathBuf, usize, Vec<u32>, u64)> {
    let mut animations = Vec::new();
    for value in sharp_read(files) {
        let pages = value["pages"].as_u64().unwrap_or(1) as usize;
        if pages > 1 {
            let delays = value["delay"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as u32).collect();
            let loops = value["loop"].as_u64().unwrap_or(0);
            animations.push((PathBuf::from(value["file"].as_str().unwrap()), pages, delays, loops));
        }
    }
    animations
}

/// Frame count and delays (ms) of an animated WebP (libwebp's decoder) or GIF.
fn frames_of(bytes: &[u8]) -> Vec<u32> {
    if bytes.starts_with(b"GIF") {
        return GifDecoder::new(Cursor::new(bytes))
            .unwrap()
            .into_frames()
            .map(|frame| {
                let (n, d) = frame.unwrap().delay().numer_denom_ms();
                n / d.max(1)
            })
            .collect();
    }
    let animation = webp::AnimDecoder::new(bytes).decode().unwrap();
    let mut previous = 0;
    (&animation)
        .into_iter()
        .map(|frame| {
            let delay = (frame.get_time_ms() - previous) as u32;
            previous = frame.get_time_ms();
            delay
        })
        .collect()
}

/// How many times an animated GIF or WebP plays, as libvips reads it (0 for ever; a GIF repeats its
/// NETSCAPE count after the first play, and plays once without one).
fn loops_of(bytes: &[u8]) -> u64 {
    if bytes.starts_with(b"GIF") {
        return match gif::DecodeOptions::new().read_info(Cursor::new(bytes)).unwrap().repeat() {
            gif::Repeat::Infinite => 0,
            gif::Repeat::Finite(0) => 1,
            gif::Repeat::Finite(n) => u64::from(n) + 1,
        };
    }
    // `ANIM`: background colour (4 bytes), then the loop count, little-endian.
    let anim = bytes.windows(4).position(|w| w == b"ANIM").unwrap();
    u64::from(u16::from_le_bytes([bytes[anim + 12], bytes[anim + 13]]))
}

#[test]
fn corpus_animations_keep_libvips_frames_and_delays() {
    let _cores = common::shared_cores();
    let root = corpora();
    let mut files = Vec::new();
    for folder in FOLDERS {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if matches!(path.extension().and_then(|e| e.to_str()), Some("gif" | "png" | "webp")) {
                files.push(path);
            }
        }
    }
    files.sort();
    let animations = sharp_animations(&files);
    assert!(animations.len() >= 5, "only {} animated files found among {}", animations.len(), files.len());
    let mut failures = Vec::new();
    for (file, pages, delays, loops) in &animations {
        let bytes = std::fs::read(file).unwrap();
        for format in [OutputFormat::Webp, OutputFormat::Gif] {
            let transform = Transform::from_query("w=64").unwrap();
            let rendered = match render(&bytes, &transform, Target::Format(format), RenderOptions::default()) {
                Ok(rendered) => rendered,
                Err(e) => {
                    failures.push(format!("{} as {format:?}: {e}", file.display()));
                    continue;
                }
            };
            let expected: Vec<u32> = match format {
                OutputFormat::Gif => delays.iter().map(|ms| (ms + 5) / 10 * 10).collect(),
                _ => delays.clone(),
            };
            let (got, got_loops) = (frames_of(&rendered.bytes), loops_of(&rendered.bytes));
            if got.len() != *pages || got != expected || got_loops != *loops {
                failures.push(format!(
                    "{} as {format:?}: {} frames {got:?} looping {got_loops}, libvips {pages} {expected:?} looping {loops}",
                    file.display(),
                    got.len()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} animated files differ from libvips:\n{}",
        failures.len(),
        animations.len(),
        failures.join("\n")
    );
}

/// Files libvips reads that the pipeline refuses, and why.
const GIFS_REFUSED: [(&str, &str); 1] = [(
    "crashtest_issue-96-small-codesize.gif",
    "a 185×0 screen and one 0×0 image at x = 12,337, which libvips shows as a 12,337×1 black line",
)];

/// Every GIF of the corpora that libvips reads renders, at libvips' size: unknown extensions skipped, a frame
/// without a colour table drawn through a grey ramp, a byte that starts no block ending the file.
#[test]
fn corpus_gifs_libvips_reads_render_at_its_size() {
    let _cores = common::shared_cores();
    let root = corpora();
    let mut files = Vec::new();
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) == Some("gif") {
                files.push(path);
            }
        }
    }
    files.sort();
    let read = sharp_read(&files);
    assert!(read.len() >= 40, "libvips read only {} of {} GIFs", read.len(), files.len());
    let mut failures = Vec::new();
    for value in &read {
        let file = PathBuf::from(value["file"].as_str().unwrap());
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if GIFS_REFUSED.iter().any(|(refused, _)| *refused == name) {
            continue;
        }
        let bytes = std::fs::read(&file).unwrap();
        let size = (value["width"].as_u64().unwrap() as u32, value["height"].as_u64().unwrap() as u32);
        let still = Transform::from_query("anim=false").unwrap();
        match render(&bytes, &still, Target::Format(OutputFormat::Png), RenderOptions::default()) {
            Ok(rendered) if (rendered.width, rendered.height) == size => {}
            Ok(rendered) => failures.push(format!("{name}: {}x{}, libvips {size:?}", rendered.width, rendered.height)),
            Err(e) if e.to_string().contains("pixels allowed") => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} GIFs:\n{}", failures.len(), read.len(), failures.join("\n"));
}
