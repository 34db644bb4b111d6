//! Transformation parameters (docs/transformations.md), one row each in `PARAMS`. Parsing validates each
//! against its range and yields a `Transform` whose `canonical()` text fills in defaults and fixes the order,
//! so two URLs asking for the same output share one cache entry. Unknown parameters are ignored (and never
//! reach the cache key); a repeated parameter is an error rather than a guess at which one was meant.

use std::fmt::{self, Write};

pub use crate::geometry::Crop;
use shutterbox_model::MediaFormat;

use crate::{formats::OutputFormat, gravity::Gravity};

/// Largest accepted `w`, `h`.
pub const MAX_DIMENSION: u32 = 5000;
/// Largest accepted border width, in pixels, per side.
pub const MAX_BORDER: u32 = 1000;
/// The latest `t`, in seconds: a day. A video's own duration bounds it further (checked by delivery, which
/// knows the file).
pub const MAX_FRAME_SECONDS: u32 = 86_400;
/// The longest `dur`, in seconds; the service's configuration may allow less (default 10).
pub const MAX_PREVIEW_SECONDS: u32 = 60;
/// `q` when none is given and the output format is lossy.
pub const DEFAULT_QUALITY: u8 = 80;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("{name} is given more than once")]
    Repeated { name: &'static str },
    #[error("{name} must be {expected} (got '{got}')")]
    Invalid { name: &'static str, expected: String, got: String },
    #[error("{name}=auto is not supported; give a number of pixels from 1 to 5000")]
    AutoDimension { name: &'static str },
}

/// Output format (`format`): `Auto` lets the service choose; otherwise a format the request names, one
/// of the table's requestable rows (`parse` gives no other).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Auto,
    Named(MediaFormat),
}

impl Format {
    /// The format a request names (any case; an alias such as `jpg` too), or `auto`.
    pub fn parse(value: &str) -> Option<Self> {
        if value.eq_ignore_ascii_case("auto") {
            return Some(Self::Auto);
        }
        MediaFormat::from_name(value).filter(|format| format.info().requestable).map(Self::Named)
    }

    pub fn as_str(self) -> &'static str {
        self.media_format().map_or("auto", MediaFormat::name)
    }

    /// The output format it names; `None` for `auto` and `bmp`, which are decided elsewhere.
    pub fn output_format(self) -> Option<OutputFormat> {
        self.media_format().and_then(OutputFormat::of)
    }

    /// The format it names; `None` for `auto`.
    pub fn media_format(self) -> Option<MediaFormat> {
        match self {
            Self::Auto => None,
            Self::Named(format) => Some(format),
        }
    }

    /// Whether it asks for the original (`format=bmp`: named, never written).
    pub fn serves_original(self) -> bool {
        self.media_format().is_some_and(MediaFormat::serves_original)
    }

    /// Every value `format` takes, as named in requests: each requestable format, then `auto`.
    pub fn names() -> Vec<&'static str> {
        let named = MediaFormat::all().filter(|format| format.info().requestable).map(MediaFormat::name);
        named.chain(["auto"]).collect()
    }
}

/// How the image fits the `w`×`h` box (sharp's semantics); `cover` by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fit {
    #[default]
    Cover,
    Contain,
    Fill,
    Inside,
    Outside,
}

impl Fit {
    pub const ALL: [Self; 5] = [Self::Cover, Self::Contain, Self::Fill, Self::Inside, Self::Outside];

    fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|fit| fit.as_str() == value)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cover => "cover",
            Self::Contain => "contain",
            Self::Fill => "fill",
            Self::Inside => "inside",
            Self::Outside => "outside",
        }
    }

    /// Every value `fit` takes.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|fit| fit.as_str()).collect()
    }
}

/// Encoding quality (`q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quality {
    Value(u8),
    Auto,
}

impl Default for Quality {
    fn default() -> Self {
        Self::Value(DEFAULT_QUALITY)
    }
}

/// `border=<width>_<hexcolor>`: added outside the image, each side growing by `width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Border {
    pub width: u32,
    /// RGBA.
    pub color: [u8; 4],
}

/// A validated set of transformations. `Default` is "no transformation" (`Transform::NONE`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub format: Option<Format>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub fit: Fit,
    pub quality: Quality,
    /// Whether `q` was given (automatic quality is opt-in, and so is an explicit one).
    pub quality_given: bool,
    /// Gaussian blur radius (sigma).
    pub blur: Option<f32>,
    pub sharp: bool,
    pub gray: bool,
    /// Rotation in degrees, normalized to 0..360.
    pub rotation: u16,
    pub border: Option<Border>,
    pub crop: Option<Crop>,
    /// `anim=false`: the first frame of an animation, as a still, whatever the output format.
    pub still: bool,
    /// Where a `cover` crop takes its window (`crate::gravity`).
    pub gravity: Gravity,
    /// `t`: which frame of a video is rendered, in milliseconds from its start; none: its poster. Read where
    /// the frame is decoded; an image's renders ignore it.
    pub frame_at_ms: Option<u32>,
    /// `dur`: a video's animated preview of this many milliseconds from `frame_at_ms` (or its start); none: a
    /// still frame.
    pub preview_ms: Option<u32>,
}

/// What a parameter's value is: what the parser accepts, and what the API documents (the OpenAPI document,
/// the transform-url body and docs/transformations.md are made from it).
#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// A whole number from `min` to `max`.
    Integer { min: i64, max: i64 },
    /// A number from `min` to `max`.
    Number { min: f64, max: f64 },
    /// `true` or `false` (`1` and `0` too).
    Boolean,
    /// One of the names `values` gives.
    OneOf { values: fn() -> Vec<&'static str> },
    /// A whole number from 1 to 100, or `auto`.
    Quality,
    /// `<width>_<hexcolor>`, the width from 1 to `MAX_BORDER`.
    Border,
    /// `x,y,width,height`, whole numbers, width and height above 0.
    Crop,
    /// One of the names `Gravity::names` gives, or `fp:X,Y` with X and Y from 0 to 1.
    Gravity,
}

/// A delivery parameter: its name in a query, what its value is, what it does, and how it reads into and
/// prints out of a `Transform`. Everything the service says or does with a parameter comes from its row.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    /// What an absent parameter means, in words (the docs and the API document).
    pub default: &'static str,
    /// What it does, in words (the docs and the API document).
    pub about: &'static str,
    /// Sets its field of a transformation from a value (trimmed).
    set: fn(&mut Transform, &ParamSpec, &str) -> Result<(), ParamError>,
    /// Its value in the canonical text; `None` where that text leaves it out.
    key: fn(&Transform) -> Option<String>,
    /// Its value in `to_query`; `None` when the transformation leaves it at its default.
    query: fn(&Transform) -> Option<String>,
}

/// Every delivery parameter, in canonical order; anything else in a query string is ignored. Adding one is
/// a row here (plus its step in the pipeline): the parser, the canonical text, `to_query`, the transform-url
/// body, the OpenAPI document (and so the console's controls) and docs/transformations.md's list follow
/// from it, and the tests holding each of them to this table fail until the row is whole.
pub const PARAMS: [ParamSpec; 15] = [
    ParamSpec {
        name: "format",
        kind: ParamKind::OneOf { values: Format::names },
        default: "the URL's extension",
        about: "output format; `auto` lets the service choose an efficient one, `bmp` serves the original as \
                it is",
        set: |t, spec, v| {
            t.format = Some(Format::parse(v).ok_or_else(|| invalid(spec, v))?);
            Ok(())
        },
        key: |t| Some(t.format.map_or("original", Format::as_str).to_owned()),
        query: |t| t.format.map(|format| format.as_str().to_owned()),
    },
    ParamSpec {
        name: "w",
        kind: ParamKind::Integer { min: 1, max: MAX_DIMENSION as i64 },
        default: "source width",
        about: "output width in pixels; never enlarges beyond the source",
        set: |t, spec, v| {
            t.width = Some(dimension(spec, v)?);
            Ok(())
        },
        key: |t| Some(t.width.map_or_else(|| "-".to_owned(), |w| w.to_string())),
        query: |t| t.width.map(|w| w.to_string()),
    },
    ParamSpec {
        name: "h",
        kind: ParamKind::Integer { min: 1, max: MAX_DIMENSION as i64 },
        default: "source height",
        about: "output height in pixels; with only one of `w` and `h` the aspect ratio is kept",
        set: |t, spec, v| {
            t.height = Some(dimension(spec, v)?);
            Ok(())
        },
        key: |t| Some(t.height.map_or_else(|| "-".to_owned(), |h| h.to_string())),
        query: |t| t.height.map(|h| h.to_string()),
    },
    ParamSpec {
        name: "fit",
        kind: ParamKind::OneOf { values: Fit::names },
        default: "`cover`",
        about: "how the image meets a `w`×`h` box; dimensions equal sharp's `resize({fit, withoutEnlargement: \
                true})`",
        set: |t, spec, v| {
            t.fit = Fit::parse(v).ok_or_else(|| invalid(spec, v))?;
            Ok(())
        },
        key: |t| Some(t.fit.as_str().to_owned()),
        query: |t| (t.fit != Fit::default()).then(|| t.fit.as_str().to_owned()),
    },
    ParamSpec {
        name: "q",
        kind: ParamKind::Quality,
        default: "80",
        about: "encoder quality (JPEG, WebP, AVIF); `auto` picks a per-format starting quality and adjusts it \
                for simple graphics and transparency",
        set: |t, spec, v| {
            t.quality_given = true;
            t.quality = quality(spec, v)?;
            Ok(())
        },
        key: |t| Some(t.quality.as_text()),
        query: |t| (t.quality_given || t.quality != Quality::default()).then(|| t.quality.as_text()),
    },
    ParamSpec {
        name: "blur",
        kind: ParamKind::Number { min: 0.3, max: 1000.0 },
        default: "none",
        about: "Gaussian blur, sigma in pixels of the output",
        set: |t, spec, v| {
            t.blur = Some(number(spec, v)?);
            Ok(())
        },
        // Rounded to thousandths so 2.0 and 2.0001 share a variant.
        key: |t| Some(t.blur.map_or_else(|| "0".to_owned(), trim_decimal)),
        // `Display` of an f32 is the shortest text that parses back to the same value.
        query: |t| t.blur.map(|sigma| sigma.to_string()),
    },
    ParamSpec {
        name: "sharp",
        kind: ParamKind::Boolean,
        default: "`false`",
        about: "a mild unsharp mask (sigma 1), like sharp's `sharpen()`",
        set: |t, spec, v| {
            t.sharp = boolean(spec, v)?;
            Ok(())
        },
        key: |t| Some(u8::from(t.sharp).to_string()),
        query: |t| t.sharp.then(|| "true".to_owned()),
    },
    ParamSpec {
        name: "gray",
        kind: ParamKind::Boolean,
        default: "`false`",
        about: "grayscale",
        set: |t, spec, v| {
            t.gray = boolean(spec, v)?;
            Ok(())
        },
        key: |t| Some(u8::from(t.gray).to_string()),
        query: |t| t.gray.then(|| "true".to_owned()),
    },
    ParamSpec {
        name: "rot",
        kind: ParamKind::Integer { min: -360, max: 360 },
        default: "0",
        about: "rotation in degrees, clockwise; other than a right angle the canvas grows and the corners are \
                black (transparent when the output has alpha)",
        set: |t, spec, v| {
            // In range, so the remainder fits.
            t.rotation = integer(spec, v)?.rem_euclid(360) as u16;
            Ok(())
        },
        key: |t| Some(t.rotation.to_string()),
        query: |t| (t.rotation != 0).then(|| t.rotation.to_string()),
    },
    ParamSpec {
        name: "border",
        kind: ParamKind::Border,
        default: "none",
        about: "a border of that many pixels (1–1000) around the result, e.g. `10_ff6600`; the colour is \
                `rgb`, `rrggbb` or `rrggbbaa`, with or without a leading `#` (sent as `%23`)",
        set: |t, spec, v| {
            t.border = Some(border(spec, v)?);
            Ok(())
        },
        key: |t| Some(t.border.map_or_else(|| "0".to_owned(), Border::as_text)),
        query: |t| t.border.map(Border::as_text),
    },
    ParamSpec {
        name: "crop",
        kind: ParamKind::Crop,
        default: "none",
        about: "a rectangle of the source, in source pixels (after EXIF orientation), taken first; outside the \
                image is a 400",
        set: |t, spec, v| {
            t.crop = Some(crop(spec, v)?);
            Ok(())
        },
        key: |t| Some(t.crop.map_or_else(|| "-".to_owned(), crop_text)),
        query: |t| t.crop.map(crop_text),
    },
    ParamSpec {
        name: "anim",
        kind: ParamKind::Boolean,
        default: "`true`",
        about: "`false` renders the first frame of an animated source as a still image, in any format",
        set: |t, spec, v| {
            t.still = !boolean(spec, v)?;
            Ok(())
        },
        // Only when asked for, so the keys of every variant made before `anim` existed stay what they were.
        key: |t| t.still.then(|| "0".to_owned()),
        query: |t| t.still.then(|| "false".to_owned()),
    },
    ParamSpec {
        name: "gravity",
        kind: ParamKind::Gravity,
        default: "`center`",
        about: "where a `cover` crop (both `w` and `h`) takes its window: an edge or corner, the most \
                interesting part (`attention`), the busiest (`entropy`), the file's focal point (`focus`) or a \
                point `fp:X,Y`",
        set: |t, spec, v| {
            t.gravity = Gravity::parse(v).ok_or_else(|| invalid(spec, v))?;
            Ok(())
        },
        // Only where it places a window (a `cover` crop needs both sides), and only when not the default,
        // so every key made before `gravity` existed stays what it was.
        key: |t| (t.gravity != Gravity::Center && t.places_window()).then(|| t.gravity.canonical()),
        query: |t| (t.gravity != Gravity::Center).then(|| t.gravity.canonical()),
    },
    ParamSpec {
        name: "t",
        kind: ParamKind::Number { min: 0.0, max: MAX_FRAME_SECONDS as f64 },
        default: "the video's poster",
        about: "for a video: the frame at this time, in seconds from its start (fractions to the millisecond), \
                up to its duration; every other parameter applies to that frame. Ignored for images",
        set: |t, spec, v| {
            t.frame_at_ms = Some(seconds(spec, v)?);
            Ok(())
        },
        // Only when asked for, so the keys of every variant made before `t` existed stay what they were.
        key: |t| t.frame_at_ms.map(millis_text),
        query: |t| t.frame_at_ms.map(millis_text),
    },
    ParamSpec {
        name: "dur",
        kind: ParamKind::Number { min: 0.1, max: MAX_PREVIEW_SECONDS as f64 },
        default: "a still frame",
        about: "for a video asked as GIF or WebP (or `auto`): an animated preview of this many seconds from `t` \
                (or the start), at 10 frames a second (fewer where the video has fewer), every other parameter \
                applied to each frame; at most the service's limit (default 10 s). Ignored for images",
        set: |t, spec, v| {
            t.preview_ms = Some(seconds(spec, v)?);
            Ok(())
        },
        key: |t| t.preview_ms.map(millis_text),
        query: |t| t.preview_ms.map(millis_text),
    },
];

/// The parameter named `name`, if it is one.
pub fn param(name: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|spec| spec.name == name)
}

impl ParamKind {
    /// The grammar of a value given as text, as a regular expression (the API document's `pattern`); `None`
    /// for kinds a schema states by type, range or value set. Tests hold each to the parser.
    pub fn pattern(&self) -> Option<String> {
        // A fraction from 0 to 1, as `f64` parses it and `Gravity::parse` keeps it.
        const UNIT: &str = r"(0+(\.[0-9]*)?|0*\.[0-9]+|0*1(\.0*)?)";
        match self {
            Self::Border => Some(format!(
                r"^\+?0*({})_#?([0-9a-fA-F]{{3}}|[0-9a-fA-F]{{6}}|[0-9a-fA-F]{{8}})$",
                up_to_pattern(MAX_BORDER)
            )),
            Self::Crop => Some(
                r"^\s*\+?[0-9]{1,9}\s*,\s*\+?[0-9]{1,9}\s*,\s*\+?0*[1-9][0-9]{0,8}\s*,\s*\+?0*[1-9][0-9]{0,8}\s*$"
                    .into(),
            ),
            Self::Gravity => Some(format!(r"^({}|fp:\s*{UNIT}\s*,\s*{UNIT}\s*)$", Gravity::spellings().join("|"))),
            _ => None,
        }
    }
}

/// The whole numbers from 1 to `max` (a power of ten), as a regular expression without leading zeros.
fn up_to_pattern(max: u32) -> String {
    let digits = max.to_string().len();
    format!("[1-9][0-9]{{0,{}}}|{max}", digits - 2)
}

impl ParamSpec {
    /// What a value must be, in words, for error messages.
    pub fn expected(&self) -> String {
        match self.kind {
            ParamKind::Integer { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::Number { min, max } => format!("a number from {min} to {max}"),
            ParamKind::Boolean => "true or false".into(),
            ParamKind::OneOf { values } => format!("one of {}", values().join(", ")),
            ParamKind::Quality => "an integer from 1 to 100, or auto".into(),
            ParamKind::Border => format!(
                "<width>_<hexcolor>, e.g. 10_ff0000 (width 1 to {MAX_BORDER}; colour as RGB, RRGGBB or RRGGBBAA)"
            ),
            ParamKind::Crop => {
                "x,y,width,height with whole non-negative numbers and a non-zero width and height".into()
            }
            ParamKind::Gravity => format!("one of {}, or fp:X,Y with X and Y from 0 to 1", Gravity::names().join(", ")),
        }
    }
}

fn invalid(spec: &ParamSpec, got: &str) -> ParamError {
    // Cap the echoed value so an error message stays readable whatever was sent.
    let got: String = got.chars().take(64).collect();
    ParamError::Invalid { name: spec.name, expected: spec.expected(), got }
}

/// A whole number within the parameter's range.
fn integer(spec: &ParamSpec, value: &str) -> Result<i64, ParamError> {
    match (spec.kind, value.parse::<i64>()) {
        (ParamKind::Integer { min, max }, Ok(n)) if (min..=max).contains(&n) => Ok(n),
        _ => Err(invalid(spec, value)),
    }
}

fn boolean(spec: &ParamSpec, value: &str) -> Result<bool, ParamError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(invalid(spec, value)),
    }
}

fn dimension(spec: &ParamSpec, value: &str) -> Result<u32, ParamError> {
    if value.eq_ignore_ascii_case("auto") {
        return Err(ParamError::AutoDimension { name: spec.name });
    }
    u32::try_from(integer(spec, value)?).map_err(|_| invalid(spec, value))
}

fn quality(spec: &ParamSpec, value: &str) -> Result<Quality, ParamError> {
    if value.eq_ignore_ascii_case("auto") {
        return Ok(Quality::Auto);
    }
    match value.parse::<u8>() {
        Ok(q) if (1..=100).contains(&q) => Ok(Quality::Value(q)),
        _ => Err(invalid(spec, value)),
    }
}

fn hex_color(value: &str) -> Option<[u8; 4]> {
    let hex = value.strip_prefix('#').unwrap_or(value);
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
    let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    match hex.len() {
        3 => Some([digit(0)? * 17, digit(1)? * 17, digit(2)? * 17, 255]),
        6 => Some([pair(0)?, pair(2)?, pair(4)?, 255]),
        8 => Some([pair(0)?, pair(2)?, pair(4)?, pair(6)?]),
        _ => None,
    }
}

fn border(spec: &ParamSpec, value: &str) -> Result<Border, ParamError> {
    let (width, color) = value.split_once('_').ok_or_else(|| invalid(spec, value))?;
    let width = match width.parse::<u32>() {
        Ok(w) if (1..=MAX_BORDER).contains(&w) => w,
        _ => return Err(invalid(spec, value)),
    };
    let color = hex_color(color).ok_or_else(|| invalid(spec, value))?;
    Ok(Border { width, color })
}

fn crop(spec: &ParamSpec, value: &str) -> Result<Crop, ParamError> {
    let parts: Vec<&str> = value.split(',').map(str::trim).collect();
    let numbers: Option<Vec<u32>> = parts.iter().map(|p| p.parse::<u32>().ok()).collect();
    match numbers.as_deref() {
        Some(&[x, y, width, height]) if width > 0 && height > 0 => Ok(Crop { x, y, width, height }),
        _ => Err(invalid(spec, value)),
    }
}

/// A number within the parameter's range, as the pipeline uses it (`f32`).
/// Seconds within the parameter's range, as whole milliseconds.
fn seconds(spec: &ParamSpec, value: &str) -> Result<u32, ParamError> {
    match (spec.kind, value.parse::<f64>()) {
        (ParamKind::Number { min, max }, Ok(n)) if n.is_finite() && (min..=max).contains(&n) => {
            // In range, so the milliseconds fit.
            Ok((n * 1000.0).round() as u32)
        }
        _ => Err(invalid(spec, value)),
    }
}

/// Milliseconds as seconds with no trailing zeros: `1500` is `1.5`.
fn millis_text(ms: u32) -> String {
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn number(spec: &ParamSpec, value: &str) -> Result<f32, ParamError> {
    match (spec.kind, value.parse::<f32>()) {
        (ParamKind::Number { min, max }, Ok(n)) if n.is_finite() && (min as f32..=max as f32).contains(&n) => Ok(n),
        _ => Err(invalid(spec, value)),
    }
}

impl Transform {
    /// No transformation: every parameter at its default.
    pub const NONE: Self = Self {
        format: None,
        width: None,
        height: None,
        fit: Fit::Cover,
        quality: Quality::Value(DEFAULT_QUALITY),
        quality_given: false,
        blur: None,
        sharp: false,
        gray: false,
        rotation: 0,
        border: None,
        crop: None,
        still: false,
        gravity: Gravity::Center,
        frame_at_ms: None,
        preview_ms: None,
    };
}

impl Default for Transform {
    fn default() -> Self {
        Self::NONE
    }
}

impl Quality {
    fn as_text(self) -> String {
        match self {
            Self::Value(q) => q.to_string(),
            Self::Auto => "auto".to_owned(),
        }
    }
}

impl Border {
    /// `<width>_<rrggbbaa>`: one spelling for every way of writing the same border.
    fn as_text(self) -> String {
        let Self { width, color: [r, g, b, a] } = self;
        format!("{width}_{r:02x}{g:02x}{b:02x}{a:02x}")
    }
}

fn crop_text(Crop { x, y, width, height }: Crop) -> String {
    format!("{x},{y},{width},{height}")
}

impl Transform {
    /// Parses a URL query string (`w=300&fit=contain…`), percent-decoding names and values.
    pub fn from_query(query: &str) -> Result<Self, ParamError> {
        Self::from_pairs(form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())))
    }

    /// Parses name/value pairs; names outside `PARAMS` are ignored.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Result<Self, ParamError> {
        let mut transform = Self::default();
        let mut seen = [false; PARAMS.len()];
        for (name, value) in pairs {
            let Some(index) = PARAMS.iter().position(|spec| spec.name == name) else {
                continue;
            };
            let spec = &PARAMS[index];
            if std::mem::replace(&mut seen[index], true) {
                return Err(ParamError::Repeated { name: spec.name });
            }
            (spec.set)(&mut transform, spec, value.trim())?;
        }
        // A gravity that places no window changes nothing: kept, it would make two transformations that
        // render the same picture (and share a variant key) unequal.
        if !transform.places_window() {
            transform.gravity = Gravity::Center;
        }
        Ok(transform)
    }

    /// Whether `gravity` has a window to place: a `cover` crop needs both sides.
    fn places_window(&self) -> bool {
        self.fit == Fit::Cover && self.width.is_some() && self.height.is_some()
    }

    /// This transformation for a file whose focal point is `focus`: `gravity=focus` becomes that point
    /// (`fp:X,Y`, so it shares that request's variant), and stays `focus` (read as `attention`) without one.
    pub fn with_focus(mut self, focus: Option<crate::gravity::FocalPoint>) -> Self {
        if let (Gravity::Focus, Some(point)) = (self.gravity, focus) {
            self.gravity = Gravity::Point(point);
        }
        self
    }

    /// True when the request asks for nothing but the original.
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }

    /// The canonical text of this transformation: every parameter, defaults filled in, in a fixed order.
    /// Equal transformations have equal text whatever order or spelling the request used.
    pub fn canonical(&self) -> String {
        Self::joined(PARAMS.iter().filter_map(|spec| Some((spec.name, (spec.key)(self)?))))
    }

    /// A query string that parses back to this very transformation (`from_query(t.to_query()) == t`):
    /// only what differs from the defaults, in canonical order. Jobs carry a variant in this form.
    pub fn to_query(&self) -> String {
        Self::joined(PARAMS.iter().filter_map(|spec| Some((spec.name, (spec.query)(self)?))))
    }

    fn joined(pairs: impl Iterator<Item = (&'static str, String)>) -> String {
        let mut out = String::new();
        for (name, value) in pairs {
            if !out.is_empty() {
                out.push('&');
            }
            let _ = write!(out, "{name}={value}");
        }
        out
    }
}

fn trim_decimal(value: f32) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &str) -> Result<Transform, ParamError> {
        Transform::from_query(query)
    }

    #[test]
    fn every_parameter_parses_at_its_edges() {
        let t = parse(
            "w=1&h=5000&fit=contain&q=1&blur=0.3&sharp=true&gray=false&rot=-360&border=1_fff&crop=0,0,1,1&format=webp",
        )
        .unwrap();
        assert_eq!(t.width, Some(1));
        assert_eq!(t.height, Some(5000));
        assert_eq!(t.fit, Fit::Contain);
        assert_eq!(t.quality, Quality::Value(1));
        assert_eq!(t.blur, Some(0.3));
        assert!(t.sharp && !t.gray);
        assert_eq!(t.rotation, 0);
        assert_eq!(t.border, Some(Border { width: 1, color: [255, 255, 255, 255] }));
        assert_eq!(t.crop, Some(Crop { x: 0, y: 0, width: 1, height: 1 }));
        assert_eq!(t.format, Some(Format::Named(MediaFormat::Webp)));
        let t = parse("q=100&blur=1000&rot=360&border=1000_%2300ff0080&q2=x").unwrap();
        assert_eq!(t.quality, Quality::Value(100));
        assert_eq!(t.rotation, 0);
        assert_eq!(t.border.unwrap().color, [0, 255, 0, 128]);
        assert_eq!(parse("q=auto&format=auto").unwrap().quality, Quality::Auto);
        assert_eq!(parse("rot=-90").unwrap().rotation, 270);
    }

    #[test]
    fn values_just_outside_their_range_are_refused() {
        for query in [
            "w=0",
            "w=5001",
            "h=0",
            "h=5001",
            "w=-1",
            "w=1.5",
            "w=",
            "q=0",
            "q=101",
            "q=best",
            "blur=0.29",
            "blur=1000.1",
            "blur=nan",
            "blur=inf",
            "rot=361",
            "rot=-361",
            "rot=45.5",
            "sharp=yes",
            "gray=2",
            "fit=stretch",
            "format=heic",
            "border=0_fff",
            "border=1001_fff",
            "border=5",
            "border=5_ggg",
            "border=5_ffff",
            "crop=0,0,0,1",
            "crop=1,2,3",
            "crop=-1,0,1,1",
            "crop=a,b,c,d",
        ] {
            let err = parse(query).unwrap_err();
            let name = query.split('=').next().unwrap();
            assert!(err.to_string().starts_with(name), "{query}: {err}");
        }
        assert_eq!(parse("w=auto"), Err(ParamError::AutoDimension { name: "w" }));
        assert_eq!(parse("h=AUTO"), Err(ParamError::AutoDimension { name: "h" }));
        assert_eq!(parse("w=1&w=2"), Err(ParamError::Repeated { name: "w" }));
    }

    /// Every row of the table is parsed (an invalid value is an error naming it, not ignored) and holds
    /// its values to the row's kind: the ends of each range are accepted, the values just beyond refused.
    #[test]
    fn every_parameter_is_parsed_as_its_row_says() {
        for spec in PARAMS {
            let name = spec.name;
            let err = parse(&format!("{name}=not-a-value")).unwrap_err();
            assert!(err.to_string().starts_with(name), "{name}: {err}");
            let (accepted, refused): (Vec<String>, Vec<String>) = match spec.kind {
                ParamKind::Integer { min, max } => {
                    (vec![min.to_string(), max.to_string()], vec![(min - 1).to_string(), (max + 1).to_string()])
                }
                ParamKind::Number { min, max } => {
                    (vec![min.to_string(), max.to_string()], vec![(min - 0.01).to_string(), (max + 0.1).to_string()])
                }
                ParamKind::Boolean => (vec!["true".into(), "false".into()], vec!["yes".into()]),
                ParamKind::OneOf { values } => (values().into_iter().map(str::to_owned).collect(), vec!["nope".into()]),
                ParamKind::Quality => (vec!["1".into(), "100".into(), "auto".into()], vec!["0".into(), "101".into()]),
                ParamKind::Border => (
                    vec!["1_fff".into(), format!("{MAX_BORDER}_00000000")],
                    vec!["0_fff".into(), format!("{}_fff", MAX_BORDER + 1)],
                ),
                ParamKind::Crop => (vec!["0,0,1,1".into()], vec!["0,0,0,1".into()]),
                ParamKind::Gravity => (
                    Gravity::names().into_iter().map(str::to_owned).chain(["fp:0,0".into(), "fp:1,1".into()]).collect(),
                    vec!["fp:1.0001,0".into(), "fp:0,-0.0001".into(), "up".into()],
                ),
            };
            for value in accepted {
                assert!(parse(&format!("{name}={value}")).is_ok(), "{name}={value} refused");
            }
            for value in refused {
                let err = parse(&format!("{name}={value}")).unwrap_err();
                assert!(err.to_string().contains(&spec.expected()), "{name}={value}: {err}");
            }
        }
    }

    /// A row's values as the docs write them (negative numbers with a minus sign).
    fn documented_values(kind: ParamKind) -> String {
        let number = |n: String| n.replace('-', "−");
        let names = |values: Vec<&str>| values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
        match kind {
            ParamKind::Integer { min, max } => {
                format!("integer {}–{}", number(min.to_string()), number(max.to_string()))
            }
            ParamKind::Number { min, max } => format!("number {min}–{max}"),
            ParamKind::Boolean => "`true`, `false`".into(),
            ParamKind::OneOf { values } => names(values()),
            ParamKind::Quality => "integer 1–100, or `auto`".into(),
            ParamKind::Border => "`<width>_<hex colour>`".into(),
            ParamKind::Crop => "`x,y,width,height`".into(),
            ParamKind::Gravity => format!("{}, or `fp:X,Y` (X, Y 0–1)", names(Gravity::names())),
        }
    }

    /// docs/transformations.md's list of parameters is the table's rows, in order: name, values, default
    /// and what each does. A row added or changed without the docs fails here, printing the list to paste.
    #[test]
    fn the_docs_list_the_parameter_table() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/transformations.md")).unwrap();
        let mut table = String::from("| parameter | values | default | what it does |\n|---|---|---|---|\n");
        for spec in PARAMS {
            let values = documented_values(spec.kind);
            table.push_str(&format!("| `{}` | {values} | {} | {} |\n", spec.name, spec.default, spec.about));
        }
        assert!(
            docs.contains(&table),
            "docs/transformations.md's parameter list is not PARAMS; it should read:\n\n{table}"
        );
    }

    #[test]
    fn unknown_parameters_are_ignored() {
        assert!(parse("utm_source=x&v=3&").unwrap().is_identity());
        assert!(parse("").unwrap().is_identity());
        assert!(!parse("sharp=false&w=10").unwrap().is_identity());
    }

    #[test]
    fn canonical_text_is_order_free_and_fills_defaults() {
        let a = parse("w=300&format=webp&fit=cover&unknown=1").unwrap();
        let b = parse("format=webp&w=300&q=80").unwrap();
        assert_eq!(a.canonical(), b.canonical());
        assert_eq!(a.canonical(), "format=webp&w=300&h=-&fit=cover&q=80&blur=0&sharp=0&gray=0&rot=0&border=0&crop=-");
        assert_eq!(parse("rot=-90").unwrap().canonical(), parse("rot=270").unwrap().canonical());
        assert_eq!(parse("border=2_F00").unwrap().canonical(), parse("border=2_ff0000ff").unwrap().canonical());
        assert_ne!(parse("w=300").unwrap().canonical(), parse("h=300").unwrap().canonical());
    }

    /// `gravity` is in the key only where it places a window, so `center` and a gravity that cannot
    /// matter share the default's variant.
    #[test]
    fn gravity_is_keyed_only_where_it_places_a_window() {
        let key = |query: &str| parse(query).unwrap().canonical();
        assert_eq!(key("w=10&h=10&gravity=center"), key("w=10&h=10"));
        assert_eq!(key("w=10&h=10&gravity=centre"), key("w=10&h=10"));
        assert_eq!(key("w=10&gravity=north"), key("w=10"));
        // And the transformation is the same one: parsing drops a gravity that places no window.
        for query in ["w=10", "h=10", "w=10&h=10&fit=contain", "fit=cover", ""] {
            for gravity in ["north", "fp:0,0.3", "attention", "focus"] {
                let with = parse(&format!("{query}&gravity={gravity}")).unwrap();
                assert_eq!(with, parse(query).unwrap(), "{query}&gravity={gravity}");
            }
        }
        assert_eq!(key("w=10&h=10&fit=contain&gravity=north"), key("w=10&h=10&fit=contain"));
        assert!(key("w=10&h=10&gravity=north").ends_with("&gravity=north"));
        assert_eq!(key("w=10&h=10&gravity=fp:0.50,0.2"), key("w=10&h=10&gravity=fp:0.5,0.20001"));
        assert_ne!(key("w=10&h=10&gravity=fp:0.5,0.2"), key("w=10&h=10&gravity=fp:0.5,0.3"));
        let t = parse("w=10&h=10&gravity=fp:0.25,1").unwrap();
        assert_eq!(Transform::from_query(&t.to_query()).unwrap(), t);
    }

    /// A file's focal point makes `gravity=focus` that point's request, and nothing else.
    #[test]
    fn a_focal_point_turns_focus_into_that_point() {
        let point = crate::gravity::FocalPoint { x: 2500, y: 10_000 };
        let focus = parse("w=10&h=10&gravity=focus").unwrap();
        assert_eq!(focus.with_focus(Some(point)), parse("w=10&h=10&gravity=fp:0.25,1").unwrap());
        assert_eq!(focus.with_focus(None), focus);
        let north = parse("w=10&h=10&gravity=north").unwrap();
        assert_eq!(north.with_focus(Some(point)), north);
    }
}
