//! Every file of the test corpora against what libvips makes of it (issue 40, part 5). The expected
//! outcome of each file is written once, from libvips 8.18 through sharp 0.35 (and, for HEIC and JPEG XL,
//! which sharp's libvips lacks, from libheif's and libjxl's own decoders), into the checked-in table
//! `tests/data/corpora-libvips.tsv` by `scripts/corpus-reference.cjs` (its first line gives the command), so
//! this test needs neither node nor sharp. For each file:
//!
//! - libvips renders it: it renders to every output format at the size libvips' reading gives (its
//!   orientation applied), and shows libvips' picture: libvips' render into the same box and ours, each
//!   reduced to 8×8 grey on mid grey by the same arithmetic (`fingerprint`), differ by at most
//!   `MAX_MEAN_DIFFERENCE` on average (a picture turned or mirrored the wrong way, or a wrong colour
//!   model, differs by tens);
//! - libvips refuses it: the pipeline refuses it with a message (a request's error, never an internal
//!   one) or renders it (BMP, which sharp's libvips has no loader for, is rendered);
//! - nothing panics, and no file takes more than 10 s.
//!
//! Files where the pipeline still differs from libvips are listed in `KNOWN_GAPS` with the reason, and
//! those where it differs on purpose (libvips' reading is not what a user would want) in `DEPARTURES`; an
//! entry that no longer differs fails the test until it is removed, so neither list overstates anything.
//! The corpora are read from `SHUTTERBOX_CORPORA` (default: the repository's `tests/corpora`); a missing
//! folder fails the test.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    path::Path,
    time::{Duration, Instant},
};

use common::corpora;
use shutterbox_pipeline::{OutputFormat, RenderOptions, Size, Target, Transform, output_size, read_facts, render};

/// The box each file is rendered into: small enough to keep the AVIF encodes cheap, large enough that the
/// 8×8 fingerprint averages many pixels.
const QUERY: &str = "w=96&h=96&fit=inside";

/// The most our 8×8 grey fingerprint may differ from libvips' on average (0–255).
const MAX_MEAN_DIFFERENCE: f64 = 10.0;

const MAX_TIME: Duration = Duration::from_secs(10);

/// Files the pipeline does not yet handle as libvips does, grouped by why: work left.
const KNOWN_GAPS: &[(&str, &[&str])] = &[];

/// Files the pipeline handles otherwise than libvips on purpose, grouped by why.
const DEPARTURES: &[(&str, &[&str])] = &[
    (
        "uncompressed YCbCr TIFF: libvips shows the samples as RGB unconverted; here they are converted (TIFF 6.0, section 21)",
        &["image-rs/tiff/testsuite/ycbcr_lzw_broken.tif", "image-rs/tiff/testsuite/ycbcr_lzw_bt709.tif"],
    ),
    (
        "grey TIFF in floats: libvips casts 0-1 to 8 bits (black); here 0-1 is black to white",
        &[
            "image-tiff/gradient-1c-32b-float.tiff",
            "image-tiff/predictor-3-gray-f32.tif",
            "image-tiff/random-fp16-pred2.tiff",
            "image-tiff/random-fp16-pred3.tiff",
            "image-tiff/random-fp16.tiff",
            "image-tiff/single-black-fp16.tiff",
            "image-tiff/white-fp16-pred2.tiff",
            "image-tiff/white-fp16-pred3.tiff",
            "image-tiff/white-fp16.tiff",
        ],
    ),
    (
        "32-bit unsigned TIFF samples: libvips clips them to 255 (white); here they are scaled",
        &[
            "image-tiff/gradient-1c-32b.tiff",
            "image-tiff/gradient-3c-32b.tiff",
            "libtiff-pics/depth_flower-minisblack-32.tif",
            "libtiff-pics/depth_flower-rgb-contig-32.tif",
            "libtiff-pics/depth_flower-rgb-planar-32.tif",
        ],
    ),
    (
        "signed TIFF samples: libvips resizes them before clipping the negative ones, so its small render is darker; at full size the two pictures are the same (checked with sharp)",
        &[
            "image-tiff/int16.tif",
            "image-tiff/int16_rgb.tif",
            "image-tiff/int8.tif",
            "image-tiff/int8_rgb.tif",
            "image-tiff/minisblack-1c-i16b.tiff",
            "image-tiff/minisblack-1c-i8b.tiff",
            "image-tiff/seq_seq-1c-i16-63af2488.tiff",
            "image-tiff/tiled-oversize-gray-i8.tif",
        ],
    ),
    (
        "CMYK TIFF without a profile: libvips converts through its CMYK profile, here as plain ink",
        &["image-tiff/tiled-cmyk-i8.tif"],
    ),
    (
        "CMYK TIFF in floats: libvips takes the 0-1 ink as a fraction of 255 (next to no ink: white); here 0-1 is no ink to full ink",
        &["image-tiff/cmyk-3c-32b-float.tiff"],
    ),
    (
        "GIF canvas that no frame covers: libvips drops the alpha of a GIF none of whose frames has a transparent colour, so it shows black; here it stays transparent, as browsers show it",
        &["image-gif/crashtest_issue-96-small-codesize.gif", "image-rs/gif/anim/border_touching_layers.gif"],
    ),
    (
        "WebP with palette indices past its palette: libvips shrinks it on load through libwebp's scaler, which draws those pixels otherwise than its full-size decode; at full size the two pictures are identical, every pixel (checked with sharp)",
        &["libwebp-test-data/bad_palette_index.webp"],
    ),
];

/// One line of the table.
struct Expected {
    path: String,
    /// libvips' loader (`jpeg`, `heif`, `tiff`, …), or `None` when it refuses the file.
    outcome: Option<String>,
    size: Size,
    fingerprint: Vec<u8>,
}

fn table() -> Vec<Expected> {
    let text = include_str!("data/corpora-libvips.tsv");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 9, "a table line has 9 columns: {line}");
            let refused = cols[1] == "refused";
            let number = |text: &str| if refused { 0 } else { text.parse().unwrap() };
            Expected {
                path: cols[0].to_owned(),
                outcome: (!refused).then(|| cols[1].to_owned()),
                size: Size::new(number(cols[2]), number(cols[3])),
                fingerprint: if refused { Vec::new() } else { hex(cols[5]) },
            }
        })
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// A render reduced as scripts/corpus-reference.cjs reduces libvips' (its `cellGrey`): each pixel
/// flattened onto mid grey by its alpha, each of 8×8 cells the mean of the pixels it covers (at least
/// one), then grey as libvips' `b-w` makes it (luminance of the linear-light colour, encoded with the
/// sRGB curve).
fn fingerprint(png: &[u8]) -> Vec<u8> {
    let image = image::load_from_memory(png).unwrap().to_rgba8();
    let (width, height) = (image.width() as usize, image.height() as usize);
    // The pixels cell `i` of 8 covers along a side of `n`.
    let span = |i: usize, n: usize| {
        let start = i * n / 8;
        start..((i + 1) * n).div_ceil(8).max(start + 1)
    };
    let mut out = Vec::with_capacity(64);
    for cy in 0..8 {
        for cx in 0..8 {
            let mut sum = [0f64; 3];
            let mut count = 0.0;
            for y in span(cy, height) {
                for x in span(cx, width) {
                    let [r, g, b, a] = image.get_pixel(x as u32, y as u32).0.map(f64::from);
                    let alpha = a / 255.0;
                    for (total, value) in sum.iter_mut().zip([r, g, b]) {
                        *total += value * alpha + 128.0 * (1.0 - alpha);
                    }
                    count += 1.0;
                }
            }
            let [r, g, b] = sum.map(|total| linear(total / count));
            out.push((encoded(0.2126 * r + 0.7152 * g + 0.0722 * b) * 255.0).round() as u8);
        }
    }
    out
}

/// An sRGB-encoded value (0–255) in linear light (0–1).
fn linear(value: f64) -> f64 {
    let v = value / 255.0;
    if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

/// Linear light (0–1) encoded with the sRGB curve (0–1).
fn encoded(value: f64) -> f64 {
    if value <= 0.003_130_8 { value * 12.92 } else { 1.055 * value.powf(1.0 / 2.4) - 0.055 }
}

fn mean_difference(a: &[u8], b: &[u8]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x.abs_diff(*y))).sum::<f64>() / a.len().max(1) as f64
}

/// What is wrong with the pipeline's handling of one file, if anything.
fn check(root: &Path, expected: &Expected) -> Option<String> {
    let bytes = std::fs::read(root.join(&expected.path)).unwrap();
    let transform = Transform::from_query(QUERY).unwrap();
    let started = Instant::now();
    let mut problems = Vec::new();
    for format in OutputFormat::ALL {
        let result = catch_unwind(AssertUnwindSafe(|| {
            render(&bytes, &transform, Target::Format(format), RenderOptions::default())
        }));
        let result = match result {
            Ok(result) => result,
            Err(_) => return Some(format!("panicked rendering to {}", format.display_name())),
        };
        if let Ok(rendered) = &result {
            // What confirm tells of the file (its facts) is what delivery renders: the same size.
            match read_facts(&bytes, true) {
                Ok(Some(facts)) => {
                    let size = output_size(&transform, Size::new(facts.width, facts.height)).unwrap();
                    if (rendered.width, rendered.height) != (size.width, size.height) {
                        problems
                            .push(format!("its facts say {}x{}, which renders at {size:?}", facts.width, facts.height));
                    }
                }
                other => problems.push(format!("it renders, but its facts are {other:?}")),
            }
        }
        match (&expected.outcome, result) {
            (_, Err(error)) if !error.is_client_error() => {
                return Some(format!("an internal error rendering to {}: {error}", format.display_name()));
            }
            (None, _) => {}
            (Some(_), Err(error)) => return Some(format!("refused ({error})")),
            (Some(_), Ok(rendered)) => {
                let size = output_size(&transform, expected.size).unwrap();
                if (rendered.width, rendered.height) != (size.width, size.height) {
                    problems.push(format!(
                        "{}: {}x{} where libvips' {}x{} gives {}x{}",
                        format.display_name(),
                        rendered.width,
                        rendered.height,
                        expected.size.width,
                        expected.size.height,
                        size.width,
                        size.height
                    ));
                } else if format == OutputFormat::Png {
                    let difference = mean_difference(&fingerprint(&rendered.bytes), &expected.fingerprint);
                    if difference > MAX_MEAN_DIFFERENCE {
                        problems.push(format!("the picture differs from libvips' by {difference:.1} on average"));
                    }
                }
            }
        }
    }
    if started.elapsed() > MAX_TIME {
        problems.push(format!("took {:.1} s", started.elapsed().as_secs_f64()));
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn every_corpus_file_renders_as_libvips_reads_it() {
    let _cores = common::all_cores();
    let root = corpora();
    let table = table();
    assert!(table.len() > 800, "the table covers the corpora");
    // Every file of the corpora has its line (a file added to the corpora without one fails here).
    for expected in &table {
        assert!(root.join(&expected.path).is_file(), "{} is in the table but not in the corpora", expected.path);
    }
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let chunks: Vec<&[Expected]> = table.chunks(table.len().div_ceil(threads)).collect();
    let outcomes: Vec<(String, Option<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let root = &root;
                scope.spawn(move || chunk.iter().map(|e| (e.path.clone(), check(root, e))).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
    });

    let mut failures = Vec::new();
    let mut closed_gaps = Vec::new();
    for (path, problem) in &outcomes {
        let gap = KNOWN_GAPS.iter().chain(DEPARTURES).find(|(_, paths)| paths.contains(&path.as_str()));
        match (problem, gap) {
            (Some(problem), None) => failures.push(format!("{path}: {problem}")),
            (None, Some(_)) => closed_gaps.push(path.clone()),
            _ => {}
        }
    }
    let rendered = table.iter().filter(|e| e.outcome.is_some()).count();
    let count = |list: &[(&str, &[&str])]| list.iter().map(|(_, paths)| paths.len()).sum::<usize>();
    println!(
        "{} files: libvips renders {rendered}, refuses {}; {} differ, {} known gaps, {} departures",
        table.len(),
        table.len() - rendered,
        failures.len(),
        count(KNOWN_GAPS),
        count(DEPARTURES)
    );
    assert!(failures.is_empty(), "{} files differ from libvips:\n{}", failures.len(), failures.join("\n"));
    assert!(closed_gaps.is_empty(), "these known gaps render as libvips now; remove them: {closed_gaps:?}");
}
