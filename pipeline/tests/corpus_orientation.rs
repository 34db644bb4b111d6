//! Orientation against libvips, on the test corpora's oriented pictures: AVIFs turned, mirrored and
//! cropped by their container (`irot`, `imir`, `clap`: link-u's kimono set, AOM's cropped Chimera), WebPs
//! and JPEGs turned by EXIF (Pillow's hopper_orientation set, the EXIF orientation examples). Each renders at
//! libvips' size (sharp's `.rotate()`, which applies all of these) and shows libvips' picture: both squeezed
//! to 32×32, no channel differs by more than a resampler's difference on average (a picture turned or
//! mirrored the wrong way differs by tens). The corpora are read from `SHUTTERBOX_CORPORA` (default: the
//! repository's `tests/corpora`); sharp from `SHUTTERBOX_SHARP_NODE_MODULES` (a node_modules
//! holding sharp; scripts/test.sh installs it). Either missing fails the test, naming it.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use common::{corpora, sharp_lines};

use shutterbox_pipeline::{OutputFormat, RenderOptions, Rendered, Target, Transform, render};

/// (folder, file name prefix, suffix) of the oriented pictures.
const FILES: [(&str, &str, &str); 5] = [
    ("link-u-avif", "kimono", ".avif"),
    ("av1-avif", "Chimera_8bit_cropped", ".avif"),
    ("pillow", "hopper_orientation_", ".webp"),
    ("exif-orientation-examples", "Landscape_", ".jpg"),
    ("exif-orientation-examples", "Portrait_", ".jpg"),
];

/// The most the two 32×32 pictures may differ on average per channel (0–255).
const MAX_MEAN_DIFFERENCE: f64 = 8.0;

/// sharp's reading of each file: (file, width, height, 32×32 RGB).
fn sharp_oriented(files: &[PathBuf]) -> Vec<(PathBuf, u32, u32, Vec<u8>)> {
    sharp_lines("sharp-oriented.cjs", files)
        .into_iter()
        .map(|value| {
            let file = PathBuf::from(value["file"].as_str().unwrap());
            assert!(value["error"].is_null(), "sharp cannot read {}: {}", file.display(), value["error"]);
            let thumb = value["thumb"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap() as u8).collect();
            (file, value["width"].as_u64().unwrap() as u32, value["height"].as_u64().unwrap() as u32, thumb)
        })
        .collect()
}

fn rendered(bytes: &[u8], query: &str, format: OutputFormat) -> Rendered {
    render(bytes, &Transform::from_query(query).unwrap(), Target::Format(format), RenderOptions::default()).unwrap()
}

#[test]
fn oriented_pictures_show_as_libvips_shows_them() {
    let _cores = common::shared_cores();
    let root = corpora();
    let mut files = Vec::new();
    for (folder, prefix, suffix) in FILES {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with(prefix) && name.ends_with(suffix) {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 30, "only {} oriented pictures found", files.len());
    let mut failures = Vec::new();
    for (file, width, height, thumb) in sharp_oriented(&files) {
        let bytes = std::fs::read(&file).unwrap();
        let whole = rendered(&bytes, "q=50", OutputFormat::Jpeg);
        if (whole.width, whole.height) != (width, height) {
            failures.push(format!("{}: {}x{}, libvips {width}x{height}", file.display(), whole.width, whole.height));
            continue;
        }
        let small = rendered(&bytes, "w=32&h=32&fit=fill", OutputFormat::Png);
        let ours = image::load_from_memory(&small.bytes).unwrap().to_rgb8();
        let difference =
            ours.as_raw().iter().zip(&thumb).map(|(a, b)| f64::from(a.abs_diff(*b))).sum::<f64>() / thumb.len() as f64;
        if difference > MAX_MEAN_DIFFERENCE {
            failures.push(format!("{}: differs from libvips' picture by {difference:.1} on average", file.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} files:\n{}", failures.len(), files.len(), failures.join("\n"));
}
