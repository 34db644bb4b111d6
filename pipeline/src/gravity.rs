//! `gravity`: where a `cover` crop takes its window from the scaled image (docs/transformations.md,
//! "Gravity"). The compass gravities and a focal point (`fp:X,Y`) place the window by arithmetic alone, at
//! plan time; `attention` and `entropy` look at the scaled pixels, as libvips' `smartcrop` does (sharp's
//! `position: attention | entropy`), so the window is chosen when the resize runs. `focus` is the file's
//! stored focal point: the service puts `fp` in its place for a file that has one (`Transform::with_focus`),
//! and the pipeline, which knows nothing of files, takes it as `attention`.
//!
//! Pure code: no I/O, no panic for any image or window (an image smaller than the window, which a plan
//! never asks for, keeps the window at the top left).

use image::DynamicImage;

pub use shutterbox_model::{FOCAL_UNITS, FocalPoint};

use crate::geometry::{Rect, Size};

/// What chooses a `cover` crop's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Gravity {
    #[default]
    Center,
    North,
    NorthEast,
    East,
    SouthEast,
    South,
    SouthWest,
    West,
    NorthWest,
    /// The file's stored focal point, else `Attention`.
    Focus,
    /// The most interesting point: edges, skin tones and saturation (libvips' `attention`).
    Attention,
    /// Trims the side of lower entropy until the window is left (libvips' `entropy`).
    Entropy,
    /// `fp:X,Y`: the window centred on this point where it can be.
    Point(FocalPoint),
}

/// The gravities named by a word, in the order the docs list them; `fp:X,Y` besides.
const NAMED: [(Gravity, &str); 12] = [
    (Gravity::Center, "center"),
    (Gravity::North, "north"),
    (Gravity::NorthEast, "northeast"),
    (Gravity::East, "east"),
    (Gravity::SouthEast, "southeast"),
    (Gravity::South, "south"),
    (Gravity::SouthWest, "southwest"),
    (Gravity::West, "west"),
    (Gravity::NorthWest, "northwest"),
    (Gravity::Focus, "focus"),
    (Gravity::Attention, "attention"),
    (Gravity::Entropy, "entropy"),
];

/// Which side a compass gravity holds the window against, per axis: -1 the left/top, 1 the right/bottom,
/// 0 centred.
fn compass(gravity: Gravity) -> Option<(i8, i8)> {
    Some(match gravity {
        Gravity::Center => (0, 0),
        Gravity::North => (0, -1),
        Gravity::NorthEast => (1, -1),
        Gravity::East => (1, 0),
        Gravity::SouthEast => (1, 1),
        Gravity::South => (0, 1),
        Gravity::SouthWest => (-1, 1),
        Gravity::West => (-1, 0),
        Gravity::NorthWest => (-1, -1),
        _ => return None,
    })
}

/// Which of libvips' interest measures chooses a window from the pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interest {
    Attention,
    Entropy,
}

/// `center`'s other spelling, read as it.
const CENTRE: &str = "centre";

impl Gravity {
    /// The gravity a query value names: a word of `names()` (`centre` too), or `fp:X,Y` with X and Y
    /// from 0 to 1.
    pub fn parse(value: &str) -> Option<Self> {
        if let Some(point) = value.strip_prefix("fp:") {
            let (x, y) = point.split_once(',')?;
            // Plain decimals only (`0.25`, `.5`, `1`): no sign, exponent or `inf` for a schema to spell out.
            let fraction = |v: &str| {
                let v = v.trim();
                v.bytes().all(|b| b.is_ascii_digit() || b == b'.').then(|| v.parse::<f64>().ok()).flatten()
            };
            return FocalPoint::from_fractions(fraction(x)?, fraction(y)?).map(Self::Point);
        }
        if value == CENTRE {
            return Some(Self::Center);
        }
        NAMED.iter().find(|(_, name)| *name == value).map(|(gravity, _)| *gravity)
    }

    /// The canonical text: the word, or `fp:X,Y` with at most four decimals.
    pub fn canonical(self) -> String {
        match self {
            Self::Point(point) => format!("fp:{},{}", decimal(point.x), decimal(point.y)),
            named => NAMED.iter().find(|(g, _)| *g == named).map_or("center", |(_, name)| name).to_owned(),
        }
    }

    /// Every word `gravity` takes (`fp:X,Y` aside).
    pub fn names() -> Vec<&'static str> {
        NAMED.iter().map(|(_, name)| *name).collect()
    }

    /// Every word `gravity` takes, `center`'s other spelling after it.
    pub fn spellings() -> Vec<&'static str> {
        let mut words = Self::names();
        words.insert(1, CENTRE);
        words
    }

    /// Whether the window is chosen from the pixels, and by which measure.
    pub fn interest(self) -> Option<Interest> {
        match self {
            Self::Attention | Self::Focus => Some(Interest::Attention),
            Self::Entropy => Some(Interest::Entropy),
            _ => None,
        }
    }

    /// The top-left corner of a `window`-sized window of an `image`-sized picture, for a gravity that needs
    /// no pixels (compass, point); `None` for one that does. The window is clamped inside the picture.
    pub fn place(self, image: Size, window: Size) -> Option<(u32, u32)> {
        let free = (image.width.saturating_sub(window.width), image.height.saturating_sub(window.height));
        if let Some((h, v)) = compass(self) {
            // Centred as sharp's crop: the odd pixel taken from the left/top (`(in - out + 1) / 2`).
            let along = |side: i8, free: u32| match side {
                -1 => 0,
                1 => free,
                _ => free - free / 2,
            };
            return Some((along(h, free.0), along(v, free.1)));
        }
        let Self::Point(point) = self else { return None };
        // libvips' `interesting: specific`: the window's centre on the point, clamped.
        let at = |fraction: f64, side: u32, window: u32, free: u32| {
            let centre = (fraction * f64::from(side)).floor() as i64;
            (centre - i64::from(window / 2)).clamp(0, i64::from(free)) as u32
        };
        Some((
            at(point.x_fraction(), image.width, window.width, free.0),
            at(point.y_fraction(), image.height, window.height, free.1),
        ))
    }
}

/// Ten-thousandths as the shortest decimal text (`5000` → `0.5`, `10000` → `1`).
fn decimal(units: u16) -> String {
    let text = format!("{}.{:04}", units / FOCAL_UNITS, units % FOCAL_UNITS);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The window of `window`'s size that `interest` chooses in `image` (the scaled picture).
pub fn choose(image: &DynamicImage, window: Size, interest: Interest) -> Rect {
    let size = Size::new(image.width(), image.height());
    let rect = |(x, y): (u32, u32)| Rect { x, y, width: window.width, height: window.height };
    if window.width >= size.width && window.height >= size.height || window.width == 0 || window.height == 0 {
        return rect((0, 0));
    }
    let pixels = premultiplied_rgba(image);
    rect(match interest {
        Interest::Attention => attention(&pixels, window),
        Interest::Entropy => entropy(&pixels, window),
    })
}

/// RGBA with the colour premultiplied by alpha: what is transparent does not draw attention (libvips
/// premultiplies before it searches).
fn premultiplied_rgba(image: &DynamicImage) -> image::RgbaImage {
    let mut rgba = image.to_rgba8();
    if image.color().has_alpha() {
        for pixel in rgba.pixels_mut() {
            let alpha = u16::from(pixel.0[3]);
            for channel in &mut pixel.0[..3] {
                *channel = ((u16::from(*channel) * alpha + 127) / 255) as u8;
            }
        }
    }
    rgba
}

/// The side of the square the attention map is computed on: the precision with which the window is placed.
const ATTENTION_SIDE: u32 = 32;

/// libvips' attention: the picture reduced to 32×32; per pixel, the Laplacian of its luminance (edges) ×5,
/// its closeness to a skin tone (smartcrop.js' skin vector, 100 at the tone) and its CIELAB a* (redness,
/// saturation), the last two only where the luminance is above 5 of 100; their sum blurred over a tenth of
/// the window's diagonal (at least 1), and the window centred on its maximum, clamped inside.
fn attention(image: &image::RgbaImage, window: Size) -> (u32, u32) {
    let (width, height) = image.dimensions();
    let (x, y) = attention_cell(image, window);
    // libvips' arithmetic, to the last rounding.
    let centre_x = (f64::from(x) / (f64::from(ATTENTION_SIDE) / f64::from(width))) as i64;
    let centre_y = (f64::from(y) / (f64::from(ATTENTION_SIDE) / f64::from(height))) as i64;
    let left = (centre_x - i64::from(window.width / 2)).clamp(0, i64::from(width.saturating_sub(window.width)));
    let top = (centre_y - i64::from(window.height / 2)).clamp(0, i64::from(height.saturating_sub(window.height)));
    (left as u32, top as u32)
}

/// The point of a whole picture where `attention` centres a window: its map computed for the largest
/// square window (what a square thumbnail crops), as fractions of the sides. Stored per file, so that
/// `gravity=focus` needs no look at the pixels.
pub fn attention_point(image: &DynamicImage) -> FocalPoint {
    let side = image.width().min(image.height());
    let (x, y) = attention_cell(&premultiplied_rgba(image), Size::new(side, side));
    let fraction = |cell: u32| f64::from(cell) / f64::from(ATTENTION_SIDE);
    FocalPoint::from_fractions(fraction(x), fraction(y))
        .unwrap_or(FocalPoint { x: FOCAL_UNITS / 2, y: FOCAL_UNITS / 2 })
}

/// The cell of the 32×32 attention map (`attention`) with the highest score: where the window is centred,
/// its left and top edges in cells.
fn attention_cell(image: &image::RgbaImage, window: Size) -> (u32, u32) {
    let (width, height) = image.dimensions();
    let side = ATTENTION_SIDE as usize;
    let small = crate::resample::scale_rgba(image, Size::new(ATTENTION_SIDE, ATTENTION_SIDE));
    let hscale = f64::from(ATTENTION_SIDE) / f64::from(width);
    let vscale = f64::from(ATTENTION_SIDE) / f64::from(height);
    let sigma = ((f64::from(window.width) * hscale).hypot(f64::from(window.height) * vscale) / 10.0).max(1.0);

    let xyz: Vec<[f64; 3]> = small.pixels().map(|p| srgb_to_xyz([p.0[0], p.0[1], p.0[2]])).collect();
    let luminance = |x: isize, y: isize| {
        // The convolution's edges repeat the border pixels.
        let x = x.clamp(0, side as isize - 1) as usize;
        let y = y.clamp(0, side as isize - 1) as usize;
        xyz[y * side + x][1]
    };
    let mut score = vec![0f64; side * side];
    for y in 0..side {
        for x in 0..side {
            let (xi, yi) = (x as isize, y as isize);
            let laplacian = 4.0 * luminance(xi, yi)
                - luminance(xi - 1, yi)
                - luminance(xi + 1, yi)
                - luminance(xi, yi - 1)
                - luminance(xi, yi + 1);
            let [cx, cy, cz] = xyz[y * side + x];
            let mut total = (5.0 * laplacian).abs();
            if cy > 5.0 {
                let magnitude = (cx * cx + cy * cy + cz * cz).sqrt();
                let (nx, ny, nz) = (cx / magnitude, cy / magnitude, cz / magnitude);
                let distance = ((nx - 0.78).powi(2) + (ny - 0.57).powi(2) + (nz - 0.44).powi(2)).sqrt();
                total += 100.0 - 100.0 * distance;
                total += xyz_to_lab_a([cx, cy, cz]);
            }
            score[y * side + x] = total;
        }
    }
    let blurred = gaussian_blur(&score, side, side, sigma);
    let mut best = (0usize, f64::NEG_INFINITY);
    for (i, &value) in blurred.iter().enumerate() {
        if value > best.1 {
            best = (i, value);
        }
    }
    ((best.0 % side) as u32, (best.0 / side) as u32)
}

/// sRGB (8-bit) to CIE XYZ under D65, Y = 100 for white (libvips' XYZ scale).
fn srgb_to_xyz(rgb: [u8; 3]) -> [f64; 3] {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let [r, g, b] = rgb.map(linear);
    [
        100.0 * (0.4124 * r + 0.3576 * g + 0.1805 * b),
        100.0 * (0.2126 * r + 0.7152 * g + 0.0722 * b),
        100.0 * (0.0193 * r + 0.1192 * g + 0.9505 * b),
    ]
}

/// CIELAB's a* of an XYZ colour (D65 white, Y = 100).
fn xyz_to_lab_a([x, y, _]: [f64; 3]) -> f64 {
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    500.0 * (f(x / 95.047) - f(y / 100.0))
}

/// A separable Gaussian blur of a `width`×`height` map, its edges extended.
fn gaussian_blur(map: &[f64], width: usize, height: usize, sigma: f64) -> Vec<f64> {
    let radius = (3.0 * sigma).ceil() as isize;
    let kernel: Vec<f64> = (-radius..=radius).map(|i| (-((i * i) as f64) / (2.0 * sigma * sigma)).exp()).collect();
    let sum: f64 = kernel.iter().sum();
    let kernel: Vec<f64> = kernel.into_iter().map(|k| k / sum).collect();
    let pass = |input: &[f64], horizontal: bool| {
        let mut output = vec![0f64; input.len()];
        for y in 0..height {
            for x in 0..width {
                let mut acc = 0.0;
                for (k, weight) in kernel.iter().enumerate() {
                    let offset = k as isize - radius;
                    let (sx, sy) = if horizontal {
                        ((x as isize + offset).clamp(0, width as isize - 1) as usize, y)
                    } else {
                        (x, (y as isize + offset).clamp(0, height as isize - 1) as usize)
                    };
                    acc += weight * input[sy * width + sx];
                }
                output[y * width + x] = acc;
            }
        }
        output
    };
    pass(&pass(map, true), false)
}

/// libvips' entropy: until the window is left, take a slice off the left or right (whichever has the lower
/// entropy of its 8-bit histogram, all channels pooled) and one off the top or bottom, each slice at most
/// an eighth of the larger excess.
fn entropy(image: &image::RgbaImage, window: Size) -> (u32, u32) {
    let (mut left, mut top) = (0u32, 0u32);
    let (mut width, mut height) = image.dimensions();
    let (target_w, target_h) = (window.width.min(width), window.height.min(height));
    let max_slice = (width - target_w).div_ceil(8).max((height - target_h).div_ceil(8)).max(1);
    while width > target_w || height > target_h {
        let slice_w = (width - target_w).min(max_slice);
        let slice_h = (height - target_h).min(max_slice);
        if slice_w > 0 {
            let left_score = region_entropy(image, Rect { x: left, y: top, width: slice_w, height });
            let right_score = region_entropy(image, Rect { x: left + width - slice_w, y: top, width: slice_w, height });
            width -= slice_w;
            if left_score < right_score {
                left += slice_w;
            }
        }
        if slice_h > 0 {
            let top_score = region_entropy(image, Rect { x: left, y: top, width, height: slice_h });
            let bottom_score =
                region_entropy(image, Rect { x: left, y: top + height - slice_h, width, height: slice_h });
            height -= slice_h;
            if top_score < bottom_score {
                top += slice_h;
            }
        }
    }
    (left, top)
}

/// The Shannon entropy (bits) of the region's histogram: 256 bins per channel, counted together. An
/// opaque image's alpha is one full bin and weighs as libvips' does (which sees no alpha band there), so
/// only RGB is counted unless some pixel is not opaque.
fn region_entropy(image: &image::RgbaImage, region: Rect) -> f64 {
    let mut histogram = [[0u64; 256]; 4];
    for y in region.y..region.y + region.height {
        for x in region.x..region.x + region.width {
            let pixel = image.get_pixel(x, y).0;
            for (channel, &value) in pixel.iter().enumerate() {
                histogram[channel][usize::from(value)] += 1;
            }
        }
    }
    let pixels = u64::from(region.width) * u64::from(region.height);
    let channels = if histogram[3][255] == pixels { 3 } else { 4 };
    let total = (pixels * channels as u64) as f64;
    if total == 0.0 {
        return 0.0;
    }
    histogram[..channels]
        .iter()
        .flatten()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = count as f64 / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use image::{Rgb, RgbImage};

    use super::*;

    #[test]
    fn every_named_gravity_parses_back_from_its_canonical_text() {
        for name in Gravity::names() {
            let gravity = Gravity::parse(name).unwrap();
            assert_eq!(gravity.canonical(), name);
        }
        assert_eq!(Gravity::parse("centre"), Some(Gravity::Center));
        let point = Gravity::parse("fp:0.5,0.25").unwrap();
        assert_eq!(point, Gravity::Point(FocalPoint { x: 5000, y: 2500 }));
        assert_eq!(point.canonical(), "fp:0.5,0.25");
        assert_eq!(Gravity::parse("fp:0,1").unwrap().canonical(), "fp:0,1");
        assert_eq!(Gravity::parse("fp:0.33333,1").unwrap().canonical(), "fp:0.3333,1");
        for bad in [
            "",
            "up",
            "fp:",
            "fp:0.5",
            "fp:1.01,0",
            "fp:-0.1,0",
            "fp:nan,0",
            "fp:0,inf",
            "Center",
            "fp:0.5,0.5,1",
            "fp:1e-1,0",
            "fp:+0.5,0",
            "fp:.,0",
        ] {
            assert_eq!(Gravity::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn compass_windows_touch_their_edges() {
        let image = Size::new(100, 60);
        let window = Size::new(40, 50);
        assert_eq!(Gravity::Center.place(image, window), Some((30, 5)));
        assert_eq!(Gravity::NorthWest.place(image, window), Some((0, 0)));
        assert_eq!(Gravity::SouthEast.place(image, window), Some((60, 10)));
        assert_eq!(Gravity::North.place(image, window), Some((30, 0)));
        assert_eq!(Gravity::West.place(image, window), Some((0, 5)));
        assert_eq!(Gravity::Attention.place(image, window), None);
        // A point near a corner is clamped; one in the middle is centred.
        assert_eq!(Gravity::parse("fp:0,1").unwrap().place(image, window), Some((0, 10)));
        assert_eq!(Gravity::parse("fp:0.5,0.5").unwrap().place(image, window), Some((30, 5)));
    }

    /// A red disc on grey at the right: attention and entropy both move the window onto it.
    #[test]
    fn attention_and_entropy_find_the_subject() {
        let mut image = RgbImage::from_pixel(300, 100, Rgb([128, 128, 128]));
        for (x, y, pixel) in image.enumerate_pixels_mut() {
            let (dx, dy) = (f64::from(x) - 250.0, f64::from(y) - 50.0);
            if dx.hypot(dy) < 30.0 {
                *pixel = Rgb([220, 40, 30]);
            }
        }
        let image = DynamicImage::ImageRgb8(image);
        let window = Size::new(100, 100);
        for interest in [Interest::Attention, Interest::Entropy] {
            let rect = choose(&image, window, interest);
            assert!(rect.x >= 180 && rect.x + rect.width <= 300, "{interest:?}: {rect:?}");
            assert_eq!((rect.width, rect.height), (100, 100));
        }
    }

    #[test]
    fn windows_lie_inside_any_image() {
        for (w, h) in [(1, 1), (2, 7), (33, 5), (640, 1), (1, 640), (97, 64)] {
            let image =
                DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, y| Rgb([(x * 7) as u8, (y * 13) as u8, 9])));
            for (ww, wh) in [(1, 1), (w, 1), (1, h), (w.div_ceil(2), h.div_ceil(3))] {
                for interest in [Interest::Attention, Interest::Entropy] {
                    let rect = choose(&image, Size::new(ww, wh), interest);
                    assert!(rect.x + rect.width <= w && rect.y + rect.height <= h, "{w}x{h} {ww}x{wh}: {rect:?}");
                }
            }
        }
    }
}

/// Over random pictures, windows and gravities: the window keeps its size and lies inside the picture, a
/// compass gravity touches the edges it names (and centres on the others as sharp does), and a focal point
/// is the window's centre wherever the window can be centred there.
#[cfg(test)]
pub(crate) mod props {
    use proptest::prelude::*;

    use super::*;

    /// Any gravity: a compass point, a smart one or a focal point.
    pub(crate) fn gravity() -> impl Strategy<Value = Gravity> {
        prop_oneof![
            prop::sample::select(NAMED.map(|(gravity, _)| gravity).to_vec()),
            (0..=FOCAL_UNITS, 0..=FOCAL_UNITS).prop_map(|(x, y)| Gravity::Point(FocalPoint { x, y })),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

        #[test]
        fn placed_windows_keep_their_size_and_lie_inside(
            (width, height) in (1u32..6000, 1u32..6000),
            (fw, fh) in (0.0f64..=1.0, 0.0f64..=1.0),
            gravity in gravity(),
        ) {
            let image = Size::new(width, height);
            let window = Size::new(((f64::from(width) * fw) as u32).max(1), ((f64::from(height) * fh) as u32).max(1));
            let Some((x, y)) = gravity.place(image, window) else {
                prop_assert!(gravity.interest().is_some());
                return Ok(());
            };
            prop_assert!(x + window.width <= width && y + window.height <= height);
            let (free_x, free_y) = (width - window.width, height - window.height);
            if let Some((h, v)) = compass(gravity) {
                let expected = |side: i8, free: u32| match side { -1 => 0, 1 => free, _ => free.div_ceil(2) };
                prop_assert_eq!((x, y), (expected(h, free_x), expected(v, free_y)));
            }
            if let Gravity::Point(point) = gravity {
                let centre = |fraction: f64, side: u32| (fraction * f64::from(side)).floor() as i64;
                let (cx, cy) = (centre(point.x_fraction(), width), centre(point.y_fraction(), height));
                let left = cx - i64::from(window.width / 2);
                let top = cy - i64::from(window.height / 2);
                if (0..=i64::from(free_x)).contains(&left) {
                    prop_assert_eq!(i64::from(x), left);
                } else {
                    prop_assert!(x == 0 || x == free_x);
                }
                if (0..=i64::from(free_y)).contains(&top) {
                    prop_assert_eq!(i64::from(y), top);
                } else {
                    prop_assert!(y == 0 || y == free_y);
                }
            }
        }
    }
}
