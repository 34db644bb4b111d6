//! The render property, over the input space rather than at chosen points: a valid request on any image
//! people upload renders, the output decodes, and its size is `output_size`'s (crop → rot → sharp's resize
//! plan → border); an invalid one is the request's error (`PipelineError::is_client_error`), never the
//! pipeline's own fault (`Internal`) and never a panic.
//!
//! - `every_width_and_height_renders_for_every_jpeg_subsampling`: exhaustive `w` and `h` sweeps (every
//!   value from 1 to a band past each side), and a `w`×`h` box of every fit at each width, for each JPEG
//!   subsampling on three source shapes, into JPEG (the planar path for 4:2:0, the general one otherwise).
//! - `every_width_and_height_of_a_420_jpeg_renders_into_webp`: the same sweeps of a 4:2:0 JPEG into WebP
//!   (the planar path's other encoder).
//! - `every_width_and_height_renders_in_every_output_format`: the same sweeps, smaller, into PNG, WebP,
//!   TIFF, GIF and AVIF, from a JPEG and from a PNG with alpha.
//! - `seeded_random_requests_on_every_kind_of_upload`: every `SampleKind` (41: JPEG subsamplings, codings and
//!   orientations, PNG, WebP, GIF, TIFF, BMP, AVIF layouts) at odd and extreme sizes, with random values of
//!   every parameter into every output format.
//!
//! Deterministic (fixed seeds); parallel over rayon's pool. Each test prints how many renders it checked.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use shutterbox_pipeline::{
    OutputFormat, Size, Target,
    samples::{Choices, FITS, SampleKind, Seeded, Source, check_render, random_request},
};

use crate::common;

fn source(kind: SampleKind, width: u32, height: u32, seed: u64) -> Source {
    Source::generate(kind, width, height, seed).unwrap_or_else(|e| panic!("generating the source: {e}"))
}

/// Runs every case, in parallel, and fails with the first violations (all of them counted).
fn run_all(cases: Vec<(&Source, String, Target)>, what: &str) {
    let failures = AtomicUsize::new(0);
    let started = std::time::Instant::now();
    let mut messages: Vec<String> = cases
        .par_iter()
        .filter_map(|(source, query, target)| {
            check_render(source, query, *target).err().inspect(|_| {
                failures.fetch_add(1, Ordering::Relaxed);
            })
        })
        .collect();
    messages.sort();
    messages.truncate(40);
    let failed = failures.into_inner();
    println!("{what}: {} renders checked in {:.1} s, {failed} failed", cases.len(), started.elapsed().as_secs_f64());
    assert!(failed == 0, "{failed} of {} renders broke the property; the first:\n{}", cases.len(), messages.join("\n"));
}

const JPEG: Target = Target::Format(OutputFormat::Jpeg);
/// The output formats besides JPEG.
const OTHER_FORMATS: [OutputFormat; 5] =
    [OutputFormat::Png, OutputFormat::Webp, OutputFormat::Tiff, OutputFormat::Gif, OutputFormat::Avif];

/// How far past each side the sweeps go (no enlargement there: the plan caps at the source).
const BAND: u32 = 40;

/// Every `w` and every `h` from 1 to `BAND` past each side of `source` into `target`, and a `w`×`h` box of
/// every fit at each width, its height drawn from `random`; at explicit qualities and the default one.
fn width_and_height_sweeps<'a>(
    source: &'a Source,
    target: Target,
    random: &mut Seeded,
) -> Vec<(&'a Source, String, Target)> {
    let Size { width, height } = source.upright;
    let mut cases = Vec::new();
    for w in 1..=width + BAND {
        cases.push((source, format!("w={w}&q=80"), target));
        let h = random.between(1, height + BAND);
        let fit = FITS[w as usize % FITS.len()];
        cases.push((source, format!("w={w}&h={h}&fit={fit}&q=75"), target));
    }
    for h in 1..=height + BAND {
        cases.push((source, format!("h={h}"), target));
    }
    cases
}

#[test]
fn every_width_and_height_renders_for_every_jpeg_subsampling() {
    let _cores = common::shared_cores();
    /// Landscape, portrait and a thin panorama, odd sides. (The 1200×800 photo whose widths failed is
    /// swept over HTTP, `tests/api/transform.rs`, and its windows in `planar`'s unit tests.)
    const SHAPES: [(u32, u32); 3] = [(641, 427), (301, 1001), (1001, 67)];
    let mut sources = Vec::new();
    for kind in SampleKind::JPEG_SUBSAMPLINGS {
        for (i, &(w, h)) in SHAPES.iter().enumerate() {
            sources.push(source(kind, w, h, i as u64));
        }
    }
    let mut random = Seeded(0x5eed_0001);
    let cases = sources.iter().flat_map(|source| width_and_height_sweeps(source, JPEG, &mut random)).collect();
    run_all(cases, "w/h sweeps over JPEG subsamplings");
}

#[test]
fn every_width_and_height_of_a_420_jpeg_renders_into_webp() {
    let _cores = common::shared_cores();
    // The planar path encodes these from YCbCr planes (odd sides leave a half chroma sample at the edge):
    // the sweeps above on smaller odd shapes (the windows' arithmetic is swept on every shape by
    // `planar`'s unit tests), into WebP.
    const SHAPES: [(u32, u32); 2] = [(301, 201), (67, 501)];
    let sources: Vec<Source> =
        SHAPES.iter().enumerate().map(|(i, &(w, h))| source(SampleKind::Jpeg420, w, h, 10 + i as u64)).collect();
    let webp = Target::Format(OutputFormat::Webp);
    let mut random = Seeded(0x5eed_0003);
    let cases = sources.iter().flat_map(|source| width_and_height_sweeps(source, webp, &mut random)).collect();
    run_all(cases, "w/h sweeps of a 4:2:0 JPEG into WebP");
}

#[test]
fn every_width_and_height_renders_in_every_output_format() {
    let _cores = common::shared_cores();
    // A 4:2:0 JPEG (shrunk on load into the general path) and an RGBA PNG (alpha into every encoder).
    let sources = [source(SampleKind::Jpeg420, 160, 97, 3), source(SampleKind::PngRgba, 97, 160, 4)];
    let mut cases = Vec::new();
    for source in &sources {
        let Size { width, height } = source.upright;
        for format in OTHER_FORMATS {
            let target = Target::Format(format);
            let ext = format.extension();
            for w in 1..=width + 20 {
                cases.push((source, format!("w={w}&format={ext}"), target));
            }
            for h in 1..=height + 20 {
                cases.push((source, format!("h={h}&format={ext}&gray=true"), target));
            }
        }
    }
    run_all(cases, "w/h sweeps into every output format");
}

#[test]
fn seeded_random_requests_on_every_kind_of_upload() {
    let _cores = common::shared_cores();
    // (width, height, requests per source): the odd and extreme sides, then small random ones. The large
    // sources get few requests each (their decode dominates); the small ones many.
    let sizes: [(u32, u32, usize); 6] =
        [(1, 1, 24), (3, 1, 24), (1, 3, 16), (17, 4999, 4), (4999, 9, 4), (1201, 799, 3)];
    let mut random = Seeded(0x5eed_0002);
    let mut specs = Vec::new();
    // The 12-megapixel photo in the layouts cameras write (sampled: a render of it takes up to seconds).
    for kind in [SampleKind::Jpeg420, SampleKind::Jpeg422, SampleKind::JpegProgressive, SampleKind::JpegOriented(6)] {
        specs.push((kind, 4001, 2999, 2));
    }
    for &kind in SampleKind::ALL {
        let least = kind.min_side();
        for &(w, h, n) in &sizes {
            let (w, h) = (w.max(least), h.max(least));
            // Every shape the kind's encoder writes (x265 refuses HEIC's long thin ones).
            if kind.encodes(w, h) {
                specs.push((kind, w, h, n));
            }
        }
        for _ in 0..4 {
            let (w, h) = (random.between(least, 320), random.between(least, 320));
            specs.push((kind, w, h, 30));
        }
    }
    let sources: Vec<(Source, usize)> =
        specs.par_iter().enumerate().map(|(i, &(kind, w, h, n))| (source(kind, w, h, i as u64), n)).collect();
    let mut cases = Vec::new();
    for (source, n) in &sources {
        for _ in 0..*n {
            let (query, target) = random_request(&mut random, source.upright, 5000);
            cases.push((source, query, target));
        }
    }
    run_all(cases, "random requests over every kind of upload");
}

#[test]
fn the_output_pixel_limit_refuses_exactly_the_outputs_beyond_it() {
    let _cores = common::shared_cores();
    use shutterbox_pipeline::{PipelineError, RenderOptions, Transform, output_size, render};
    // A 4:2:0 JPEG (planar path for JPEG output), a progressive one and an RGBA PNG (general path).
    let sources = [
        source(SampleKind::Jpeg420, 203, 151, 5),
        source(SampleKind::JpegProgressive, 64, 90, 6),
        source(SampleKind::PngRgba, 120, 47, 7),
    ];
    let mut random = Seeded(0x5eed_0003);
    let mut cases = Vec::new();
    for source in &sources {
        for _ in 0..300 {
            let (query, target) = random_request(&mut random, source.upright, 400);
            // Limits around the source's own area, where outputs fall on both sides of them.
            let area = source.upright.width * source.upright.height;
            cases.push((source, query, target, u64::from(random.between(1, area * 3))));
        }
    }
    let failures: Vec<String> = cases
        .par_iter()
        .filter_map(|(source, query, target, limit)| {
            let transform = Transform::from_query(query).unwrap();
            let options = RenderOptions { max_output_pixels: *limit, ..RenderOptions::default() };
            let outcome = render(&source.bytes, &transform, *target, options);
            let case = format!("{} ?{query} limit {limit}", source.name);
            let Ok(expected) = output_size(&transform, source.upright) else {
                return outcome.is_ok().then(|| format!("{case}: rendered a crop outside the image"));
            };
            let over = u64::from(expected.width) * u64::from(expected.height) > *limit;
            match (over, outcome) {
                (true, Err(PipelineError::OutputTooManyPixels { width, height, .. })) => ((width, height)
                    != (expected.width, expected.height))
                    .then(|| format!("{case}: named {width}x{height}")),
                (true, other) => Some(format!("{case}: over the limit but {:?}", other.map(|r| (r.width, r.height)))),
                (false, Err(PipelineError::OutputTooManyPixels { .. })) => {
                    Some(format!("{case}: refused within the limit"))
                }
                (false, Err(e)) if e.is_client_error() => None,
                (false, Err(e)) => Some(format!("{case}: {e}")),
                (false, Ok(r)) => ((r.width, r.height) != (expected.width, expected.height))
                    .then(|| format!("{case}: {}x{}", r.width, r.height)),
            }
        })
        .collect();
    println!("output pixel limit: {} renders checked, {} failed", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(20)].join("\n"));
}
