//! Transformation parameters (docs/transformations.md): `format`, `w`, `h`, `fit`, `q`, `blur`, `sharp`, `gray`,
//! `rot`, `border`, `crop`, `anim`, `gravity`. Parsing validates each against its range and yields a `Transform` whose
//! `canonical()` text fills in defaults and fixes the order, so two URLs asking for the same output share one
//! cache entry. Unknown parameters are ignored (and never reach the cache key); a repeated parameter is an
//! error rather than a guess at which one was meant.

use std::fmt::{self, Write};

pub use crate::geometry::Crop;
use shutterbox_model::MediaFormat;

use crate::{formats::OutputFormat, gravity::Gravity};

/// Largest accepted `w`, `h`.
pub const MAX_DIMENSION: u32 = 5000;
/// Largest accepted border width, in pixels, per side.
pub const MAX_BORDER: u32 = 1000;
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

/// A validated set of transformations. `Default` is "no transformation".
#[derive(Debug, Clone, Copy, PartialEq, Default)]
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
}

/// What a parameter's value is: what the parser accepts, and what the API documents (the OpenAPI document,
/// the transform-url body, docs/transformations.md are checked against it).
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

/// A delivery parameter: its name in a query and what its value is.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
}

/// Every delivery parameter, in canonical order; anything else in a query string is ignored. Adding one is
/// a row here and its arm in `Transform::apply` (plus its step in the pipeline); the tests that hold the
/// parser, the transform-url body, the OpenAPI document and docs/transformations.md to this table fail
/// until every place knows it.
pub const PARAMS: [ParamSpec; 13] = [
    ParamSpec { name: "format", kind: ParamKind::OneOf { values: Format::names } },
    ParamSpec { name: "w", kind: ParamKind::Integer { min: 1, max: MAX_DIMENSION as i64 } },
    ParamSpec { name: "h", kind: ParamKind::Integer { min: 1, max: MAX_DIMENSION as i64 } },
    ParamSpec { name: "fit", kind: ParamKind::OneOf { values: Fit::names } },
    ParamSpec { name: "q", kind: ParamKind::Quality },
    ParamSpec { name: "blur", kind: ParamKind::Number { min: 0.3, max: 1000.0 } },
    ParamSpec { name: "sharp", kind: ParamKind::Boolean },
    ParamSpec { name: "gray", kind: ParamKind::Boolean },
    ParamSpec { name: "rot", kind: ParamKind::Integer { min: -360, max: 360 } },
    ParamSpec { name: "border", kind: ParamKind::Border },
    ParamSpec { name: "crop", kind: ParamKind::Crop },
    ParamSpec { name: "anim", kind: ParamKind::Boolean },
    ParamSpec { name: "gravity", kind: ParamKind::Gravity },
];

/// The parameter named `name`, if it is one.
pub fn param(name: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|spec| spec.name == name)
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
fn number(spec: &ParamSpec, value: &str) -> Result<f32, ParamError> {
    match (spec.kind, value.parse::<f32>()) {
        (ParamKind::Number { min, max }, Ok(n)) if n.is_finite() && (min as f32..=max as f32).contains(&n) => Ok(n),
        _ => Err(invalid(spec, value)),
    }
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
            transform.apply(spec, value.trim())?;
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

    fn apply(&mut self, spec: &ParamSpec, value: &str) -> Result<(), ParamError> {
        match spec.name {
            "format" => self.format = Some(Format::parse(value).ok_or_else(|| invalid(spec, value))?),
            "w" => self.width = Some(dimension(spec, value)?),
            "h" => self.height = Some(dimension(spec, value)?),
            "fit" => self.fit = Fit::parse(value).ok_or_else(|| invalid(spec, value))?,
            "q" => {
                self.quality_given = true;
                self.quality = quality(spec, value)?;
            }
            "blur" => self.blur = Some(number(spec, value)?),
            "sharp" => self.sharp = boolean(spec, value)?,
            "gray" => self.gray = boolean(spec, value)?,
            "rot" => self.rotation = integer(spec, value)?.rem_euclid(360) as u16,
            "border" => self.border = Some(border(spec, value)?),
            "crop" => self.crop = Some(crop(spec, value)?),
            "anim" => self.still = !boolean(spec, value)?,
            "gravity" => self.gravity = Gravity::parse(value).ok_or_else(|| invalid(spec, value))?,
            // Every row has its arm (`every_parameter_is_parsed`).
            _ => {}
        }
        Ok(())
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
        let mut out = String::new();
        let _ = write!(out, "format={}", self.format.map_or("original", Format::as_str));
        let dim = |d: Option<u32>| d.map_or_else(|| "-".to_owned(), |d| d.to_string());
        let _ = write!(out, "&w={}&h={}&fit={}", dim(self.width), dim(self.height), self.fit.as_str());
        match self.quality {
            Quality::Value(q) => {
                let _ = write!(out, "&q={q}");
            }
            Quality::Auto => out.push_str("&q=auto"),
        }
        match self.blur {
            // Rounded to thousandths so 2.0 and 2.0001 share a variant.
            Some(sigma) => {
                let _ = write!(out, "&blur={}", trim_decimal(sigma));
            }
            None => out.push_str("&blur=0"),
        }
        let _ = write!(out, "&sharp={}&gray={}&rot={}", self.sharp as u8, self.gray as u8, self.rotation);
        match self.border {
            Some(Border { width, color: [r, g, b, a] }) => {
                let _ = write!(out, "&border={width}_{r:02x}{g:02x}{b:02x}{a:02x}");
            }
            None => out.push_str("&border=0"),
        }
        match self.crop {
            Some(Crop { x, y, width, height }) => {
                let _ = write!(out, "&crop={x},{y},{width},{height}");
            }
            None => out.push_str("&crop=-"),
        }
        // Only when asked for, so the keys of every variant made before `anim` existed stay what they were.
        if self.still {
            out.push_str("&anim=0");
        }
        // Only where it places a window (a `cover` crop needs both sides), and only when not the default,
        // so every key made before `gravity` existed stays what it was.
        if self.gravity != Gravity::Center && self.places_window() {
            let _ = write!(out, "&gravity={}", self.gravity.canonical());
        }
        out
    }
}

impl Transform {
    /// A query string that parses back to this very transformation (`from_query(t.to_query()) == t`):
    /// only what differs from the defaults, in canonical order. Jobs carry a variant in this form.
    pub fn to_query(&self) -> String {
        let mut pairs: Vec<String> = Vec::new();
        if let Some(format) = self.format {
            pairs.push(format!("format={}", format.as_str()));
        }
        if let Some(width) = self.width {
            pairs.push(format!("w={width}"));
        }
        if let Some(height) = self.height {
            pairs.push(format!("h={height}"));
        }
        if self.fit != Fit::default() {
            pairs.push(format!("fit={}", self.fit.as_str()));
        }
        if self.quality_given || self.quality != Quality::default() {
            match self.quality {
                Quality::Value(q) => pairs.push(format!("q={q}")),
                Quality::Auto => pairs.push("q=auto".to_owned()),
            }
        }
        if let Some(sigma) = self.blur {
            // `Display` of an f32 is the shortest text that parses back to the same value.
            pairs.push(format!("blur={sigma}"));
        }
        if self.sharp {
            pairs.push("sharp=true".to_owned());
        }
        if self.gray {
            pairs.push("gray=true".to_owned());
        }
        if self.rotation != 0 {
            pairs.push(format!("rot={}", self.rotation));
        }
        if let Some(Border { width, color: [r, g, b, a] }) = self.border {
            pairs.push(format!("border={width}_{r:02x}{g:02x}{b:02x}{a:02x}"));
        }
        if let Some(Crop { x, y, width, height }) = self.crop {
            pairs.push(format!("crop={x},{y},{width},{height}"));
        }
        if self.still {
            pairs.push("anim=false".to_owned());
        }
        if self.gravity != Gravity::Center {
            pairs.push(format!("gravity={}", self.gravity.canonical()));
        }
        pairs.join("&")
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
