//! Image facts and placeholders against their references. Facts (`read_facts`): over every file of the
//! shared corpora that libvips reads, the size as delivered, alpha and frame count are libvips' (sharp
//! 0.35's `metadata()`, through `scripts/sharp-facts.cjs`), but for the departures listed with their
//! reasons. Pixels (`summarize`), on the 25 photographs of the gravity test: the dominant colour is
//! libvips' (`stats().dominant`) for most of them, and the ThumbHash and BlurHash the pipeline writes,
//! decoded by their formats' reference decoders (npm `thumbhash` and `blurhash`, through
//! `scripts/placeholder-decode.cjs`), give the picture's aspect ratio and its average colour within the
//! stated distances. The corpora are read from `SHUTTERBOX_CORPORA`; node's modules from
//! `SHUTTERBOX_SHARP_NODE_MODULES` (scripts/test.sh installs them). Either missing fails the test, naming it.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use shutterbox_pipeline::{OutputFormat, RenderOptions, Target, Transform, read_facts, render, summarize};

/// Files whose facts are not libvips', and why (beside the two kinds `departure` names).
const DEPARTURES: &[(&str, &str)] = &[
    (
        "pngsuite/xhdn0g08.png",
        "its IHDR's checksum is wrong (PngSuite's x-files are broken on purpose): delivery refuses it too",
    ),
    ("libtiff-pics/dscf0013.tif", "YCbCr, which libvips reads through libtiff's RGBA interface and so with alpha"),
    ("libtiff-pics/ycbcr-cat.tif", "YCbCr, which libvips reads through libtiff's RGBA interface and so with alpha"),
];

/// Why facts that differ from libvips' only in their frame count are right: an APNG animates (in browsers
/// and in delivery) where libvips reads its first frame alone; a TIFF's further pages and a HEIF file's
/// further images are not frames, where libvips counts them as pages (delivery renders the first, or the
/// primary image).
fn departure(file: &str, ours: (u32, u32, bool, u32), theirs: (u32, u32, bool, u32)) -> Option<&'static str> {
    let (same_but_frames, ours_frames, their_frames) =
        ((ours.0, ours.1, ours.2) == (theirs.0, theirs.1, theirs.2), ours.3, theirs.3);
    let png = file.ends_with(".png") || file.ends_with(".apng");
    let tiff = file.ends_with(".tif") || file.ends_with(".tiff");
    if same_but_frames && png && ours_frames > 1 && their_frames == 1 {
        return Some("APNG");
    }
    if same_but_frames && tiff && ours_frames == 1 && their_frames > 1 {
        return Some("TIFF pages");
    }
    let heif = file.ends_with(".heic") || file.ends_with(".avif");
    if same_but_frames && heif && ours_frames == 1 && their_frames > 1 {
        return Some(
            "HEIF images: libvips counts the file's top-level images as pages; delivery renders the primary one",
        );
    }
    DEPARTURES.iter().find(|(known, _)| *known == file).map(|(_, why)| *why)
}

/// Every image file of the corpora, in every folder (not their SOURCE.md and other notes), sorted.
fn corpus_files() -> Vec<PathBuf> {
    let (mut files, mut folders) = (Vec::new(), vec![common::corpora()]);
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let note = path.extension().is_some_and(|e| e == "md" || e == "txt");
            if path.is_dir() {
                folders.push(path);
            } else if !note {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A file's name within the corpora, `folder/…/name`.
fn name(path: &std::path::Path) -> String {
    path.strip_prefix(common::corpora()).unwrap_or(path).display().to_string()
}

#[test]
fn facts_are_libvips_facts_over_the_corpora() {
    let _cores = common::shared_cores();
    let files = corpus_files();
    assert!(files.len() >= 800, "only {} corpus files", files.len());
    // The files libvips reads the headers of but refuses to decode (tests/data/corpora-libvips.tsv, the
    // corpus test's reference): what it says of them describes no picture it delivers.
    let refused: Vec<&str> = include_str!("data/corpora-libvips.tsv")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_once('\t').filter(|(_, rest)| rest.starts_with("refused")).map(|(path, _)| path))
        .collect();
    let (mut compared, mut unread_by_libvips, mut explained) = (0, 0, 0);
    let mut unexpected = Vec::new();
    for line in common::sharp_lines("sharp-facts.cjs", &files) {
        let path = PathBuf::from(line["file"].as_str().unwrap());
        let file = name(&path);
        if !line["error"].is_null() || refused.contains(&file.as_str()) {
            unread_by_libvips += 1;
            continue;
        }
        let theirs = (
            line["width"].as_u64().unwrap() as u32,
            line["height"].as_u64().unwrap() as u32,
            line["hasAlpha"].as_bool().unwrap(),
            line["pages"].as_u64().unwrap() as u32,
        );
        compared += 1;
        let ours = match read_facts(&std::fs::read(&path).unwrap(), true) {
            Ok(Some(facts)) => (facts.width, facts.height, facts.has_alpha, facts.frame_count),
            Ok(None) => unreachable!("a whole file's facts are read or refused"),
            Err(e) if departure(&file, (0, 0, false, 0), theirs).is_some() => {
                println!("departure: {file}: no facts ({e})");
                explained += 1;
                continue;
            }
            Err(e) => {
                unexpected.push(format!("{file}: no facts: {e}"));
                continue;
            }
        };
        if ours == theirs {
            continue;
        }
        match departure(&file, ours, theirs) {
            Some(why) => {
                println!("departure: {file}: ours {ours:?}, libvips {theirs:?}: {why}");
                explained += 1;
            }
            None => unexpected.push(format!("{file}: ours {ours:?}, libvips {theirs:?}")),
        }
    }
    println!(
        "{compared} files libvips reads compared ({unread_by_libvips} it does not decode): {} the same, {explained} \
         departures explained, {} not",
        compared - explained - unexpected.len(),
        unexpected.len()
    );
    assert!(unexpected.is_empty(), "facts unlike libvips' (width, height, alpha, frames):\n{}", unexpected.join("\n"));
    assert!(compared >= 700, "only {compared} files compared");
}

#[test]
fn placeholders_decode_to_the_pictures_aspect_and_colour() {
    let _cores = common::shared_cores();
    let corpora = common::corpora();
    let mut photos: Vec<&str> =
        include_str!("data/sharp-gravity.tsv").lines().map(|line| line.split('\t').next().unwrap()).collect();
    photos.dedup();
    assert!(photos.len() >= 20, "{} photos", photos.len());
    let options = RenderOptions::default();
    let paths: Vec<PathBuf> = photos.iter().map(|photo| corpora.join(photo)).collect();
    let libvips = common::sharp_lines("sharp-facts.cjs", &[&[PathBuf::from("--dominant")], &paths[..]].concat());
    let mut ours = Vec::new();
    let mut same_colour = Vec::new();
    for (photo, libvips) in photos.iter().zip(&libvips) {
        let bytes = std::fs::read(corpora.join(photo)).unwrap();
        let (facts, summary) = summarize(&bytes, &options).unwrap_or_else(|e| panic!("{photo}: {e}"));
        let dominant: Vec<u8> =
            libvips["dominant"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u8).collect();
        println!("{photo}: dominant colour {}, libvips' {dominant:?}", summary.dominant_color.hex());
        same_colour.push(summary.dominant_color.0[..] == dominant[..]);
        // The picture's own average colour, as each format averages: ThumbHash in sRGB weighted by alpha,
        // BlurHash in linear light over white where it is transparent (as the pipeline hands it over).
        let small = render(
            &bytes,
            &Transform::from_query("w=64&h=64&fit=fill&format=png").unwrap(),
            Target::Format(OutputFormat::Png),
            options,
        )
        .unwrap();
        let pixels = image::load_from_memory(&small.bytes).unwrap().to_rgba8();
        let (mut weighted, mut opacity, mut light) = ([0f64; 3], 0f64, [0f64; 3]);
        for pixel in pixels.pixels() {
            let alpha = f64::from(pixel.0[3]) / 255.0;
            opacity += alpha;
            for (c, &channel) in pixel.0[..3].iter().enumerate() {
                weighted[c] += f64::from(channel) * alpha;
                light[c] += linear(f64::from(channel) * alpha + 255.0 * (1.0 - alpha));
            }
        }
        let count = f64::from(pixels.width() * pixels.height());
        let averages = (weighted.map(|sum| sum / opacity.max(1e-9)), light.map(|sum| srgb(sum / count)));
        ours.push((photo, facts, summary, averages));
    }
    let input: Vec<_> = ours
        .iter()
        .map(|(_, _, summary, _)| serde_json::json!({"thumbhash": summary.thumbhash, "blurhash": summary.blurhash}))
        .collect();
    let decoded = common::node_lines("placeholder-decode.cjs", &[], &input);
    assert_eq!(decoded.len(), ours.len());
    let distance = |a: &[f64; 3], b: &serde_json::Value| {
        let b: Vec<f64> = b.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        a.iter().zip(&b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt()
    };
    let (mut aspect_errors, mut thumb_distances, mut blur_distances) = (Vec::new(), Vec::new(), Vec::new());
    for ((photo, facts, _, (thumb_average, blur_average)), reference) in ours.iter().zip(&decoded) {
        let aspect = f64::from(facts.width) / f64::from(facts.height);
        let aspect_error = (reference["aspect"].as_f64().unwrap() / aspect - 1.0).abs();
        let thumb = distance(thumb_average, &reference["thumbAverage"]);
        let blur = distance(blur_average, &reference["blurAverage"]);
        println!(
            "{photo}: aspect off by {:.1}%, ThumbHash colour {thumb:.1}, BlurHash colour {blur:.1}",
            aspect_error * 100.0
        );
        aspect_errors.push(aspect_error);
        thumb_distances.push(thumb);
        blur_distances.push(blur);
    }
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let max = |values: &[f64]| values.iter().copied().fold(0.0, f64::max);
    println!(
        "{} photos: aspect ratio off by {:.1}% on average (at most {:.1}%); average colour off by {:.1} (ThumbHash, \
         at most {:.1}) and {:.1} (BlurHash, at most {:.1}), RGB distance 0-441",
        ours.len(),
        mean(&aspect_errors) * 100.0,
        max(&aspect_errors) * 100.0,
        mean(&thumb_distances),
        max(&thumb_distances),
        mean(&blur_distances),
        max(&blur_distances)
    );
    let same = same_colour.iter().filter(|&&same| same).count();
    println!("dominant colour: {same} of {} the same as libvips' stats().dominant", same_colour.len());
    assert!(same >= MIN_SAME_DOMINANT, "the dominant colour");
    assert!(max(&aspect_errors) < MAX_ASPECT_ERROR, "ThumbHash's aspect ratio");
    assert!(max(&thumb_distances) < MAX_COLOUR_DISTANCE, "ThumbHash's average colour");
    assert!(max(&blur_distances) < MAX_COLOUR_DISTANCE, "BlurHash's average colour");
}

/// Of the 25 photos, how many dominant colours must be libvips'. It counts every pixel of the picture where
/// the pipeline counts one decoded at most 480 pixels a side, so close calls can go either way; and for
/// pictures deeper than 8 bits libvips' 16-bin histogram of 16-bit samples puts 10-bit values all in its
/// first bin, (8, 8, 8).
const MIN_SAME_DOMINANT: usize = 17;

/// ThumbHash keeps the aspect ratio as the ratio of its component counts (at most 7 a side, 5 with alpha):
/// the reference decoder's ratio is within this of the picture's (5:3 for 2:1 is 17% off).
const MAX_ASPECT_ERROR: f64 = 0.2;

/// The most a decoded placeholder's average colour may be from the picture's (RGB distance, 0–441).
const MAX_COLOUR_DISTANCE: f64 = 8.0;

/// An sRGB value (0–255) in linear light (0–1).
fn linear(value: f64) -> f64 {
    let v = value / 255.0;
    if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

/// Linear light (0–1) as an sRGB value (0–255).
fn srgb(value: f64) -> f64 {
    255.0 * if value <= 0.003_130_8 { 12.92 * value } else { 1.055 * value.powf(1.0 / 2.4) - 0.055 }
}
