//! Resize geometry: given a source size, the requested `w`/`h` and the `fit`, where every pixel goes. The
//! contract is compatibility with sharp: the output size equals that of
//! `sharp(input).resize({ width, height, fit, withoutEnlargement: true })` (sharp 0.35 on libvips 8.18) for
//! every fit and every request, which `tests/sharp_geometry.rs` checks against a table measured with sharp
//! itself (`scripts/sharp-geometry.mjs`).
//!
//! The computation mirrors sharp's (`ResolveShrink` in its `common.cc`, then libvips' `vips_resize`, then
//! the crop or embed stage of its pipeline):
//!
//! 1. A shrink factor per axis: `src / requested`. With both sides given, `cover` and `outside` take the
//!    smaller of the two for both axes, `contain` and `inside` the larger, `fill` keeps each. With one side
//!    given its factor is used for both axes, for every fit. (Here, and only here, we part from sharp on
//!    purpose: sharp's `fill` with one side scales only that axis — 640x480 with `w=6` gives 6x480 — while
//!    the API keeps the aspect ratio whenever only one of w or h is given, `fill` included
//!    (docs/transformations.md, "Resizing").) With neither, nothing is resized.
//! 2. `withoutEnlargement`: each factor is raised to at least 1 (independently, after step 1), and each is
//!    capped at the source size on its axis, so no side ever reaches 0.
//! 3. The scaled size on each axis is `round(src * (1 / shrink))`, halves rounded up (libvips'
//!    `VIPS_ROUND_UINT`).
//! 4. `cover` then crops the scaled image to the requested box, each side capped at the scaled size (so a
//!    box larger than the source is cropped, never enlarged), centred with the odd pixel taken from the
//!    left/top (offset `ceil((scaled - box) / 2)`); `contain` pads it to the whole requested box (even when
//!    that box is larger than the source), centred with the odd pixel on the right/bottom (left/top padding
//!    `floor((box - scaled) / 2)`). `fill`, `inside` and `outside` output the scaled image as it is.
//!
//! Pure arithmetic: no I/O, no panics, for any input (a source with a zero side yields a plan that changes nothing; a
//! requested side of 0 counts as not given, as sharp accepts only 1 and up).

use crate::{
    geometry::{Padding, Rect, Size},
    gravity::{Gravity, Interest},
    params::Fit,
};

/// What the renderer does to apply a resize: scale the source to `scaled` (which may change its aspect
/// ratio slightly through rounding, or on purpose for `fill`), then keep `crop` of it (`cover`) or add
/// `padding` around it (`contain`), giving an image of `output` size. At most one of `crop` and `padding`
/// is set, and only when it changes something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResizePlan {
    /// The source size the plan was made for.
    pub source: Size,
    /// The size the source is scaled to, before any crop or padding.
    pub scaled: Size,
    /// `cover`: the part of the scaled image that is kept. Its size is decided; so is its place unless
    /// `interest` is set, when the scaled pixels choose it.
    pub crop: Option<Rect>,
    /// `gravity=attention|entropy`: the crop's place is chosen from the scaled pixels by this measure
    /// (`crate::gravity::choose`).
    pub interest: Option<Interest>,
    /// `contain`: the padding added around the scaled image.
    pub padding: Option<Padding>,
    /// The final size.
    pub output: Size,
}

impl ResizePlan {
    /// Whether the scale step changes the image (the crop or padding may still do so).
    pub fn scales(&self) -> bool {
        self.scaled != self.source
    }

    /// Whether the plan leaves the image as it is.
    pub fn is_identity(&self) -> bool {
        !self.scales() && self.crop.is_none() && self.padding.is_none()
    }

    fn unchanged(source: Size) -> Self {
        Self { source, scaled: source, crop: None, padding: None, interest: None, output: source }
    }

    /// This plan with its crop placed by `gravity` (`crate::gravity`); the size of everything stays.
    pub fn with_gravity(mut self, gravity: Gravity) -> Self {
        let Some(rect) = self.crop else { return self };
        let window = Size::new(rect.width, rect.height);
        match gravity.place(self.scaled, window) {
            Some((x, y)) => self.crop = Some(Rect { x, y, ..rect }),
            None => self.interest = gravity.interest(),
        }
        self
    }

    /// The plan with its crop's place fixed at `rect`'s (chosen from one frame's pixels, for every frame).
    pub fn pinned(mut self, rect: Rect) -> Self {
        if self.crop.is_some() {
            self.crop = Some(rect);
            self.interest = None;
        }
        self
    }
}

/// The geometry of `sharp(src).resize({ width: w, height: h, fit, withoutEnlargement: true })` for a
/// `src_w`×`src_h` source; see the module documentation for the rules.
pub fn plan_resize(src_w: u32, src_h: u32, w: Option<u32>, h: Option<u32>, fit: Fit) -> ResizePlan {
    let source = Size::new(src_w, src_h);
    let w = w.filter(|&v| v > 0);
    let h = h.filter(|&v| v > 0);
    if src_w == 0 || src_h == 0 || (w.is_none() && h.is_none()) {
        return ResizePlan::unchanged(source);
    }

    let (hshrink, vshrink) = shrink_factors(src_w, src_h, w, h, fit);
    let scaled = Size::new(scaled_length(src_w, hshrink), scaled_length(src_h, vshrink));
    // sharp's box: a side not given takes the scaled image's.
    let box_size = Size::new(w.unwrap_or(scaled.width), h.unwrap_or(scaled.height));

    match fit {
        Fit::Cover if scaled != box_size => {
            let width = box_size.width.min(scaled.width);
            let height = box_size.height.min(scaled.height);
            let crop = Rect { x: ceil_half(scaled.width - width), y: ceil_half(scaled.height - height), width, height };
            let output = Size::new(width, height);
            let crop = (output != scaled).then_some(crop);
            ResizePlan { source, scaled, crop, padding: None, interest: None, output }
        }
        Fit::Contain if scaled != box_size => {
            let output = Size::new(box_size.width.max(scaled.width), box_size.height.max(scaled.height));
            let (left, right) = split_padding(output.width - scaled.width);
            let (top, bottom) = split_padding(output.height - scaled.height);
            let padding = Padding { left, top, right, bottom };
            let padding = (!padding.is_zero()).then_some(padding);
            ResizePlan { source, scaled, crop: None, padding, interest: None, output }
        }
        _ => ResizePlan { source, scaled, crop: None, padding: None, interest: None, output: scaled },
    }
}

/// Horizontal and vertical shrink factors (source / scaled), as sharp's `ResolveShrink` with
/// `withoutEnlargement`. `src_w`, `src_h` are non-zero and at least one of `w`, `h` is given and non-zero.
fn shrink_factors(src_w: u32, src_h: u32, w: Option<u32>, h: Option<u32>, fit: Fit) -> (f64, f64) {
    let (sw, sh) = (f64::from(src_w), f64::from(src_h));
    let (mut hshrink, mut vshrink) = match (w, h) {
        (Some(w), Some(h)) => {
            let (hs, vs) = (sw / f64::from(w), sh / f64::from(h));
            match fit {
                Fit::Cover | Fit::Outside => {
                    let s = hs.min(vs);
                    (s, s)
                }
                Fit::Contain | Fit::Inside => {
                    let s = hs.max(vs);
                    (s, s)
                }
                Fit::Fill => (hs, vs),
            }
        }
        // One side given: the aspect ratio is kept for every fit, `fill` included (docs/transformations.md,
        // "Resizing").
        (Some(w), None) => {
            let hs = sw / f64::from(w);
            (hs, hs)
        }
        (None, Some(h)) => {
            let vs = sh / f64::from(h);
            (vs, vs)
        }
        (None, None) => (1.0, 1.0),
    };
    // withoutEnlargement (VIPS_SIZE_DOWN), then never shrink an axis below one pixel.
    hshrink = hshrink.max(1.0).min(sw);
    vshrink = vshrink.max(1.0).min(sh);
    (hshrink, vshrink)
}

/// The length libvips' `vips_resize(scale = 1 / shrink)` gives to a side of `len` pixels: `len * scale`
/// rounded half up (`VIPS_ROUND_UINT`). `shrink` is in `1..=len`, so the result is in `1..=len`.
fn scaled_length(len: u32, shrink: f64) -> u32 {
    if shrink == 1.0 {
        return len;
    }
    let scale = 1.0 / shrink;
    let exact = f64::from(len) * scale + 0.5;
    // `as` saturates (and maps NaN to 0); max/min keep the documented range whatever the float does.
    (exact.floor() as u32).max(1).min(len)
}

/// `ceil(d / 2)`, the left/top offset of sharp's centred crop (`(in - out + 1) / 2`), without overflow.
fn ceil_half(d: u32) -> u32 {
    d - d / 2
}

/// Splits `d` pixels of padding as sharp's centred embed does: `floor(d / 2)` before, the rest after.
fn split_padding(d: u32) -> (u32, u32) {
    let before = d / 2;
    (before, d - before)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FITS: [Fit; 5] = [Fit::Cover, Fit::Contain, Fit::Fill, Fit::Inside, Fit::Outside];

    fn sources() -> Vec<(u32, u32)> {
        vec![
            (1, 1),
            (1, 2),
            (2, 1),
            (7, 3),
            (3, 7),
            (100, 100),
            (640, 480),
            (1199, 801),
            (4000, 3000),
            (500, 5000),
            (333, 777),
            (100_000, 100_000),
            (100_000, 1),
            (1, 100_000),
        ]
    }

    fn requests() -> Vec<(Option<u32>, Option<u32>)> {
        let sizes = [1, 2, 3, 7, 50, 99, 100, 101, 333, 480, 641, 1200, 4999, 5000];
        let mut out = vec![(None, None)];
        for &a in &sizes {
            out.push((Some(a), None));
            out.push((None, Some(a)));
            for &b in &sizes {
                out.push((Some(a), Some(b)));
            }
        }
        out
    }

    fn for_all(mut check: impl FnMut(u32, u32, Option<u32>, Option<u32>, Fit, ResizePlan)) {
        for (sw, sh) in sources() {
            for (w, h) in requests() {
                for fit in FITS {
                    check(sw, sh, w, h, fit, plan_resize(sw, sh, w, h, fit));
                }
            }
        }
    }

    #[test]
    fn scaled_image_is_within_the_source_and_never_empty() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            assert!(p.scaled.width >= 1 && p.scaled.width <= sw, "{ctx}");
            assert!(p.scaled.height >= 1 && p.scaled.height <= sh, "{ctx}");
            assert!(p.output.width >= 1 && p.output.height >= 1, "{ctx}");
            assert_eq!(p.source, Size::new(sw, sh), "{ctx}");
        });
    }

    #[test]
    fn cover_crop_lies_inside_the_scaled_image_and_is_centred() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            if fit != Fit::Cover {
                assert_eq!(p.crop, None, "{ctx}");
                return;
            }
            assert_eq!(p.padding, None, "{ctx}");
            match p.crop {
                Some(c) => {
                    assert!(c.x + c.width <= p.scaled.width, "{ctx}");
                    assert!(c.y + c.height <= p.scaled.height, "{ctx}");
                    assert_eq!(Size::new(c.width, c.height), p.output, "{ctx}");
                    assert_ne!(p.output, p.scaled, "{ctx}");
                    // Centred: the margins differ by at most one, the extra pixel on the left/top.
                    let right = p.scaled.width - c.x - c.width;
                    let bottom = p.scaled.height - c.y - c.height;
                    assert!(c.x == right || c.x == right + 1, "{ctx}");
                    assert!(c.y == bottom || c.y == bottom + 1, "{ctx}");
                }
                None => assert_eq!(p.output, p.scaled, "{ctx}"),
            }
            // The output covers as much of the box as the scaled image allows.
            if let Some(w) = w {
                assert_eq!(p.output.width, w.min(p.scaled.width), "{ctx}");
            }
            if let Some(h) = h {
                assert_eq!(p.output.height, h.min(p.scaled.height), "{ctx}");
            }
        });
    }

    #[test]
    fn contain_padding_fills_the_whole_box_and_is_centred() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            if fit != Fit::Contain {
                assert_eq!(p.padding, None, "{ctx}");
                return;
            }
            assert_eq!(p.crop, None, "{ctx}");
            let pad = p.padding.unwrap_or_default();
            assert_eq!(pad.left + p.scaled.width + pad.right, p.output.width, "{ctx}");
            assert_eq!(pad.top + p.scaled.height + pad.bottom, p.output.height, "{ctx}");
            assert!(pad.right == pad.left || pad.right == pad.left + 1, "{ctx}");
            assert!(pad.bottom == pad.top || pad.bottom == pad.top + 1, "{ctx}");
            if p.padding.is_some() {
                assert!(!pad.is_zero(), "{ctx}");
            }
            // The output is exactly the requested box (a missing side follows the scaled image).
            if let Some(w) = w {
                assert_eq!(p.output.width, w, "{ctx}");
            }
            if let Some(h) = h {
                assert_eq!(p.output.height, h, "{ctx}");
            }
        });
    }

    #[test]
    fn output_never_exceeds_the_requested_box_except_for_outside() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            if fit == Fit::Outside {
                return;
            }
            if let Some(w) = w {
                assert!(p.output.width <= w, "{ctx}");
            }
            if let Some(h) = h {
                assert!(p.output.height <= h, "{ctx}");
            }
        });
    }

    #[test]
    fn output_never_exceeds_the_source_except_for_contain_padding() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            if fit != Fit::Contain {
                assert!(p.output.width <= sw && p.output.height <= sh, "{ctx}");
            }
        });
    }

    #[test]
    fn aspect_preserving_fits_keep_the_aspect_ratio_within_rounding() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            // `fill` with both sides deliberately changes the ratio; the per-axis cap at one pixel
            // (a 100000x1 source) can too.
            if fit == Fit::Fill || p.scaled.width == 1 || p.scaled.height == 1 {
                return;
            }
            // The scaled height is within rounding of the height the scaled width implies.
            let (sw, sh) = (f64::from(sw), f64::from(sh));
            let (pw, ph) = (f64::from(p.scaled.width), f64::from(p.scaled.height));
            let exact_h = pw * sh / sw;
            assert!((exact_h - ph).abs() <= 0.5 + 0.5 * sh / sw + 1e-9, "{ctx}");
        });
    }

    #[test]
    fn inside_output_fits_the_box_and_outside_output_covers_it() {
        for_all(|sw, sh, w, h, fit, p| {
            let ctx = format!("{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
            if let (Fit::Outside, Some(w), Some(h)) = (fit, w, h) {
                // Covers the box unless the source itself is smaller on that side.
                assert!(p.output.width >= w.min(sw) || p.output.height >= h.min(sh), "{ctx}");
            }
            if fit == Fit::Inside {
                assert_eq!(p.output, p.scaled, "{ctx}");
            }
        });
    }

    #[test]
    fn no_request_or_a_degenerate_source_changes_nothing() {
        for fit in FITS {
            assert!(plan_resize(640, 480, None, None, fit).is_identity());
            assert!(plan_resize(640, 480, Some(0), Some(0), fit).is_identity());
            for (w, h) in requests() {
                for (sw, sh) in [(0, 0), (0, 480), (640, 0)] {
                    let p = plan_resize(sw, sh, w, h, fit);
                    assert!(p.is_identity(), "{sw}x{sh} {w:?}x{h:?} {fit:?}: {p:?}");
                    assert_eq!(p.output, Size::new(sw, sh));
                }
            }
        }
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        for fit in FITS {
            for (sw, sh) in [(u32::MAX, u32::MAX), (u32::MAX, 1), (1, u32::MAX), (100_000, 3)] {
                for (w, h) in [(Some(u32::MAX), Some(u32::MAX)), (Some(1), Some(u32::MAX)), (Some(u32::MAX), None)] {
                    let p = plan_resize(sw, sh, w, h, fit);
                    assert!(p.scaled.width <= sw && p.scaled.height <= sh);
                }
            }
        }
    }

    #[test]
    fn worked_examples() {
        // cover: 640x480 into 100x100 scales by the smaller shrink (4.8) to 133x100 and crops 16 px off
        // the left and 17 off the right (sharp puts the odd pixel on the left).
        let p = plan_resize(640, 480, Some(100), Some(100), Fit::Cover);
        assert_eq!(p.scaled, Size::new(133, 100));
        assert_eq!(p.crop, Some(Rect { x: 17, y: 0, width: 100, height: 100 }));
        assert_eq!(p.output, Size::new(100, 100));

        // contain: same box, scaled to 100x75 and padded 12 above, 13 below.
        let p = plan_resize(640, 480, Some(100), Some(100), Fit::Contain);
        assert_eq!(p.scaled, Size::new(100, 75));
        assert_eq!(p.padding, Some(Padding { left: 0, top: 12, right: 0, bottom: 13 }));
        assert_eq!(p.output, Size::new(100, 100));

        // contain with a box larger than the source: not enlarged, but padded to the whole box.
        let p = plan_resize(100, 100, Some(300), Some(200), Fit::Contain);
        assert_eq!(p.scaled, Size::new(100, 100));
        assert_eq!(p.padding, Some(Padding { left: 100, top: 50, right: 100, bottom: 50 }));
        assert_eq!(p.output, Size::new(300, 200));

        // Halves round up (libvips' VIPS_ROUND_UINT), not to even: 480 * 6 / 640 = 4.5 gives 5.
        let p = plan_resize(640, 480, Some(6), None, Fit::Inside);
        assert_eq!(p.output, Size::new(6, 5));
        let p = plan_resize(1200, 800, None, Some(3), Fit::Inside);
        assert_eq!(p.output, Size::new(5, 3));

        // fill with one side given keeps the aspect ratio (docs/transformations.md, "Resizing"; sharp would
        // give 6x480).
        let p = plan_resize(640, 480, Some(6), None, Fit::Fill);
        assert_eq!(p.output, Size::new(6, 5));
        let p = plan_resize(640, 480, None, Some(1000), Fit::Fill);
        assert!(p.is_identity());

        // fill with both sides: each axis on its own, each capped at the source.
        let p = plan_resize(640, 480, Some(1000), Some(100), Fit::Fill);
        assert_eq!(p.output, Size::new(640, 100));

        // outside with both sides: covers the box, capped at the source.
        let p = plan_resize(640, 480, Some(100), Some(100), Fit::Outside);
        assert_eq!(p.output, Size::new(133, 100));

        // cover with a box larger than the source: not enlarged, cropped to the box where it is smaller.
        let p = plan_resize(100, 100, Some(300), Some(50), Fit::Cover);
        assert_eq!(p.scaled, Size::new(100, 100));
        assert_eq!(p.crop, Some(Rect { x: 0, y: 25, width: 100, height: 50 }));
        assert_eq!(p.output, Size::new(100, 50));
    }
}

/// A crop placed by any gravity keeps every size the centred plan decided.
#[cfg(test)]
mod props {
    use proptest::prelude::*;

    use super::*;
    use crate::gravity::props::gravity;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

        #[test]
        fn gravity_never_changes_a_resize_plans_sizes(
            (width, height) in (1u32..6000, 1u32..6000),
            (w, h) in (1u32..=5000, 1u32..=5000),
            fit in prop::sample::select(Fit::ALL.to_vec()),
            gravity in gravity(),
        ) {
            let centred = plan_resize(width, height, Some(w), Some(h), fit);
            let placed = centred.with_gravity(gravity);
            prop_assert_eq!((placed.scaled, placed.output, placed.padding), (centred.scaled, centred.output, centred.padding));
            prop_assert_eq!(placed.crop.map(|r| (r.width, r.height)), centred.crop.map(|r| (r.width, r.height)));
            if let Some(rect) = placed.crop {
                prop_assert!(rect.x + rect.width <= placed.scaled.width && rect.y + rect.height <= placed.scaled.height);
            }
            if gravity == Gravity::Center {
                prop_assert_eq!(placed, centred);
            }
        }
    }
}
