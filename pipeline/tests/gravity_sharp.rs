//! `gravity=attention` and `gravity=entropy` against libvips' smartcrop, the reference they follow: on 25
//! photographs of the test corpora (people, animals, landscapes, city views, products, film stills; AVIF,
//! JPEG, TIFF and WebP, some with alpha or a container rotation), each cropped into a square, a wide and a
//! tall window, the window the pipeline keeps is compared with the one sharp 0.35 (libvips 8.18) keeps for
//! `position: attention | entropy`, written once by `scripts/sharp-gravity.cjs` into
//! `tests/data/sharp-gravity.tsv`. The windows have the same size (the geometry is sharp's); their overlap
//! (intersection over union) is averaged per measure and must reach `MIN_MEAN_IOU`.

// A test fails by panicking: unwrap and expect are how it says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use shutterbox_pipeline::{Rect, RenderOptions, Transform, crop_window};

/// The mean overlap each measure must reach (issue 41's target).
const MIN_MEAN_IOU: f64 = 0.8;

fn iou(a: Rect, b: Rect) -> f64 {
    let overlap = |a0: u32, a1: u32, b0: u32, b1: u32| f64::from(a1.min(b1).saturating_sub(a0.max(b0)));
    let inter = overlap(a.x, a.x + a.width, b.x, b.x + b.width) * overlap(a.y, a.y + a.height, b.y, b.y + b.height);
    let area = |r: Rect| f64::from(r.width) * f64::from(r.height);
    inter / (area(a) + area(b) - inter)
}

#[test]
fn attention_and_entropy_windows_overlap_libvips_ones() {
    let _cores = common::shared_cores();
    let corpora = common::corpora();
    let table = include_str!("data/sharp-gravity.tsv");
    let options = RenderOptions::default();
    let mut overlaps: Vec<(String, Vec<f64>)> = Vec::new();
    for line in table.lines() {
        let cells: Vec<&str> = line.split('\t').collect();
        let [path, w, h, position, left, top, width, height] = cells[..] else { panic!("a row of 8 cells: {line}") };
        let number = |cell: &str| cell.parse::<u32>().unwrap();
        let theirs = Rect { x: number(left), y: number(top), width: number(width), height: number(height) };
        let source = std::fs::read(corpora.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let transform = Transform::from_query(&format!("w={w}&h={h}&gravity={position}")).unwrap();
        let ours = crop_window(&source, &transform, &options).unwrap_or_else(|e| panic!("{path}: {e}"));
        let ours = ours.unwrap_or(Rect { x: 0, y: 0, ..theirs });
        assert_eq!((ours.width, ours.height), (theirs.width, theirs.height), "{path} {w}x{h}: the window's size");
        let overlap = iou(ours, theirs);
        println!(
            "{path}\t{w}x{h}\t{position}\tours {},{}\tsharp {},{}\tIoU {overlap:.3}",
            ours.x, ours.y, theirs.x, theirs.y
        );
        match overlaps.iter_mut().find(|(name, _)| name == position) {
            Some((_, values)) => values.push(overlap),
            None => overlaps.push((position.to_owned(), vec![overlap])),
        }
    }
    assert_eq!(overlaps.len(), 2, "attention and entropy rows");
    let mut failures = Vec::new();
    for (position, values) in &overlaps {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let exact = values.iter().filter(|&&v| v > 0.999).count();
        let poor = values.iter().filter(|&&v| v < 0.5).count();
        println!(
            "{position}: mean IoU {mean:.3} over {} windows ({exact} the same as sharp's, {poor} under 0.5)",
            values.len()
        );
        if mean < MIN_MEAN_IOU {
            failures.push(format!("{position}: mean IoU {mean:.3} < {MIN_MEAN_IOU}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
