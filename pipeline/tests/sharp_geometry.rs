//! `plan_resize` against sharp itself: every row of `data/sharp_geometry.tsv` (measured with
//! `scripts/sharp-geometry.mjs`, i.e. `sharp(src).resize({ width, height, fit, withoutEnlargement: true })`)
//! must give the same output size. All mismatches are reported at once.
//!
//! One deliberate exception: `fill` with only one of w/h. sharp then scales only the given axis; the API
//! keeps the aspect ratio (docs/transformations.md, "Resizing"), so those rows must instead equal `inside`'s
//! plan for the request.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use shutterbox_pipeline::{Fit, plan_resize};

const TABLE: &str = include_str!("data/sharp_geometry.tsv");
const COLUMNS: [&str; 7] = ["src_w", "src_h", "w", "h", "fit", "out_w", "out_h"];

struct Row {
    line: usize,
    src: (u32, u32),
    w: Option<u32>,
    h: Option<u32>,
    fit: Fit,
    out: (u32, u32),
}

fn number(field: &str, line: usize) -> u32 {
    field.parse().unwrap_or_else(|e| panic!("line {line}: bad number {field:?}: {e}"))
}

fn optional(field: &str, line: usize) -> Option<u32> {
    (field != "-").then(|| number(field, line))
}

fn fit(field: &str, line: usize) -> Fit {
    match field {
        "cover" => Fit::Cover,
        "contain" => Fit::Contain,
        "fill" => Fit::Fill,
        "inside" => Fit::Inside,
        "outside" => Fit::Outside,
        other => panic!("line {line}: unknown fit {other:?}"),
    }
}

fn rows() -> Vec<Row> {
    let mut lines = TABLE.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.starts_with('#'));
    let (_, header) = lines.next().expect("the table has a header line");
    assert_eq!(header.split('\t').collect::<Vec<_>>(), COLUMNS, "header line");
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(line, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), COLUMNS.len(), "line {line}: {l:?}");
            Row {
                line,
                src: (number(f[0], line), number(f[1], line)),
                w: optional(f[2], line),
                h: optional(f[3], line),
                fit: fit(f[4], line),
                out: (number(f[5], line), number(f[6], line)),
            }
        })
        .collect()
}

fn show(v: Option<u32>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

#[test]
fn output_size_matches_sharp_for_every_row() {
    let rows = rows();
    assert!(rows.len() > 1000, "the table looks truncated: {} rows", rows.len());
    let mismatches: Vec<String> = rows
        .iter()
        .filter(|r| !spec_departs_from_sharp(r))
        .filter_map(|r| {
            let plan = plan_resize(r.src.0, r.src.1, r.w, r.h, r.fit);
            let got = (plan.output.width, plan.output.height);
            (got != r.out).then(|| {
                format!(
                    "line {}: {}x{} w={} h={} {}: sharp {}x{}, plan_resize {}x{} (scaled {}x{})",
                    r.line,
                    r.src.0,
                    r.src.1,
                    show(r.w),
                    show(r.h),
                    r.fit.as_str(),
                    r.out.0,
                    r.out.1,
                    got.0,
                    got.1,
                    plan.scaled.width,
                    plan.scaled.height,
                )
            })
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {} rows differ from sharp; first {}:\n{}",
        mismatches.len(),
        rows.len(),
        mismatches.len().min(20),
        mismatches.iter().take(20).cloned().collect::<Vec<_>>().join("\n"),
    );
}

fn spec_departs_from_sharp(r: &Row) -> bool {
    r.fit == Fit::Fill && r.w.is_some() != r.h.is_some()
}

#[test]
fn one_sided_fill_keeps_the_aspect_ratio_as_the_spec_requires() {
    let rows: Vec<Row> = rows().into_iter().filter(spec_departs_from_sharp).collect();
    assert!(!rows.is_empty());
    for r in rows {
        let fill = plan_resize(r.src.0, r.src.1, r.w, r.h, Fit::Fill).output;
        let inside = plan_resize(r.src.0, r.src.1, r.w, r.h, Fit::Inside).output;
        assert_eq!(fill, inside, "line {}", r.line);
    }
}

#[test]
fn table_covers_every_fit_and_request_shape() {
    let rows = rows();
    for fit in [Fit::Cover, Fit::Contain, Fit::Fill, Fit::Inside, Fit::Outside] {
        for (has_w, has_h) in [(true, false), (false, true), (true, true)] {
            let n = rows.iter().filter(|r| r.fit == fit && r.w.is_some() == has_w && r.h.is_some() == has_h).count();
            assert!(n > 0, "no rows for {} with w given: {has_w}, h given: {has_h}", fit.as_str());
        }
    }
}
