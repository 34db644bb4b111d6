//! Transformation parameters (docs/transformations.md): `format`, `w`, `h`, `fit`, `q`, `blur`, `sharp`, `gray`,
//! `rot`, `border`, `crop`. Parsing validates each against its range and yields a `Transform` whose
//! `canonical()` text fills in defaults and fixes the order, so two URLs asking for the same output share one
//! cache entry. Unknown parameters are ignored (and never reach the cache key); a repeated parameter is an
//! error rather than a guess at which one was meant.

use std::fmt::{self, Write};

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
    Invalid { name: &'static str, expected: &'static str, got: String },
    #[error("{name}=auto is not supported; give a number of pixels from 1 to 5000")]
    AutoDimension { name: &'static str },
}

/// Output format (`format`); `Auto` lets the service choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Jpeg,
    Png,
    Webp,
    Avif,
    Gif,
    Tiff,
    Bmp,
    Auto,
}

impl Format {
    pub fn parse(value: &str) -> Option<Self> {
        Some(match value.to_ascii_lowercase().as_str() {
            "jpeg" | "jpg" => Self::Jpeg,
            "png" => Self::Png,
            "webp" => Self::Webp,
            "avif" => Self::Avif,
            "gif" => Self::Gif,
            "tiff" | "tif" => Self::Tiff,
            "bmp" => Self::Bmp,
            "auto" => Self::Auto,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Jpeg => "jpeg",
            Self::Png => "png",
            Self::Webp => "webp",
            Self::Avif => "avif",
            Self::Gif => "gif",
            Self::Tiff => "tiff",
            Self::Bmp => "bmp",
            Self::Auto => "auto",
        }
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
    fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "cover" => Self::Cover,
            "contain" => Self::Contain,
            "fill" => Self::Fill,
            "inside" => Self::Inside,
            "outside" => Self::Outside,
            _ => return None,
        })
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

/// `crop=x,y,width,height` in oriented source pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Crop {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Crop {
    /// Whether the rectangle lies inside a `width`×`height` image (no overflow for any values).
    pub fn lies_inside(&self, width: u32, height: u32) -> bool {
        u64::from(self.x) + u64::from(self.width) <= u64::from(width)
            && u64::from(self.y) + u64::from(self.height) <= u64::from(height)
    }
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
}

/// The names this module understands; anything else in a query string is ignored.
pub const PARAM_NAMES: [&str; 11] = ["format", "w", "h", "fit", "q", "blur", "sharp", "gray", "rot", "border", "crop"];

fn invalid(name: &'static str, expected: &'static str, got: &str) -> ParamError {
    // Cap the echoed value so an error message stays readable whatever was sent.
    let got: String = got.chars().take(64).collect();
    ParamError::Invalid { name, expected, got }
}

fn integer_in(name: &'static str, value: &str, min: i64, max: i64, expected: &'static str) -> Result<i64, ParamError> {
    match value.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(invalid(name, expected, value)),
    }
}

fn boolean(name: &'static str, value: &str) -> Result<bool, ParamError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(invalid(name, "true or false", value)),
    }
}

fn dimension(name: &'static str, value: &str) -> Result<u32, ParamError> {
    if value.eq_ignore_ascii_case("auto") {
        return Err(ParamError::AutoDimension { name });
    }
    let n = integer_in(name, value, 1, MAX_DIMENSION.into(), "an integer from 1 to 5000")?;
    Ok(n as u32)
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

fn border(value: &str) -> Result<Border, ParamError> {
    const EXPECTED: &str = "<width>_<hexcolor>, e.g. 10_ff0000 (width 1 to 1000; colour as RGB, RRGGBB or RRGGBBAA)";
    let (width, color) = value.split_once('_').ok_or_else(|| invalid("border", EXPECTED, value))?;
    let width = match width.parse::<u32>() {
        Ok(w) if (1..=MAX_BORDER).contains(&w) => w,
        _ => return Err(invalid("border", EXPECTED, value)),
    };
    let color = hex_color(color).ok_or_else(|| invalid("border", EXPECTED, value))?;
    Ok(Border { width, color })
}

fn crop(value: &str) -> Result<Crop, ParamError> {
    const EXPECTED: &str = "x,y,width,height with whole non-negative numbers and a non-zero width and height";
    let parts: Vec<&str> = value.split(',').map(str::trim).collect();
    let numbers: Option<Vec<u32>> = parts.iter().map(|p| p.parse::<u32>().ok()).collect();
    match numbers.as_deref() {
        Some(&[x, y, width, height]) if width > 0 && height > 0 => Ok(Crop { x, y, width, height }),
        _ => Err(invalid("crop", EXPECTED, value)),
    }
}

fn blur(value: &str) -> Result<f32, ParamError> {
    const EXPECTED: &str = "a number from 0.3 to 1000";
    match value.parse::<f32>() {
        Ok(sigma) if sigma.is_finite() && (0.3..=1000.0).contains(&sigma) => Ok(sigma),
        _ => Err(invalid("blur", EXPECTED, value)),
    }
}

impl Transform {
    /// Parses a URL query string (`w=300&fit=contain…`), percent-decoding names and values.
    pub fn from_query(query: &str) -> Result<Self, ParamError> {
        Self::from_pairs(form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())))
    }

    /// Parses name/value pairs; names outside `PARAM_NAMES` are ignored.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Result<Self, ParamError> {
        let mut transform = Self::default();
        let mut seen = [false; PARAM_NAMES.len()];
        for (name, value) in pairs {
            let Some(index) = PARAM_NAMES.iter().position(|known| *known == name) else {
                continue;
            };
            let name = PARAM_NAMES[index];
            if std::mem::replace(&mut seen[index], true) {
                return Err(ParamError::Repeated { name });
            }
            let value = value.trim();
            transform.apply(name, value)?;
        }
        Ok(transform)
    }

    fn apply(&mut self, name: &'static str, value: &str) -> Result<(), ParamError> {
        match name {
            "format" => {
                let expected = "one of jpeg, png, webp, avif, gif, tiff, bmp, auto";
                self.format = Some(Format::parse(value).ok_or_else(|| invalid(name, expected, value))?);
            }
            "w" => self.width = Some(dimension(name, value)?),
            "h" => self.height = Some(dimension(name, value)?),
            "fit" => {
                let expected = "one of cover, contain, fill, inside, outside";
                self.fit = Fit::parse(value).ok_or_else(|| invalid(name, expected, value))?;
            }
            "q" => {
                self.quality_given = true;
                self.quality = if value.eq_ignore_ascii_case("auto") {
                    Quality::Auto
                } else {
                    Quality::Value(integer_in(name, value, 1, 100, "an integer from 1 to 100, or auto")? as u8)
                };
            }
            "blur" => self.blur = Some(blur(value)?),
            "sharp" => self.sharp = boolean(name, value)?,
            "gray" => self.gray = boolean(name, value)?,
            "rot" => {
                let degrees = integer_in(name, value, -360, 360, "an integer from -360 to 360")?;
                self.rotation = degrees.rem_euclid(360) as u16;
            }
            "border" => self.border = Some(border(value)?),
            "crop" => self.crop = Some(crop(value)?),
            _ => {}
        }
        Ok(())
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
        assert_eq!(t.format, Some(Format::Webp));
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
}
