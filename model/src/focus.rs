//! `FocalPoint`: the point of a picture that matters most, where `gravity=focus` centres a crop. Stored with
//! a file (`PATCH /v1/files/{id}`) and named in delivery URLs (`gravity=fp:X,Y`).

/// A focal point's coordinate in ten-thousandths of the side (0–10,000): exact, so equal points are equal
/// keys, and as fine as any picture the service renders needs.
pub const FOCAL_UNITS: u16 = 10_000;

/// A point of the picture, each coordinate a fraction of its side in `FOCAL_UNITS` (0 = left / top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FocalPoint {
    pub x: u16,
    pub y: u16,
}

impl FocalPoint {
    /// The point at fractions `x`, `y` (0–1, rounded to the nearest ten-thousandth); `None` outside 0–1.
    pub fn from_fractions(x: f64, y: f64) -> Option<Self> {
        let units =
            |v: f64| (v.is_finite() && (0.0..=1.0).contains(&v)).then(|| (v * f64::from(FOCAL_UNITS)).round() as u16);
        Some(Self { x: units(x)?, y: units(y)? })
    }

    /// The point from stored units; `None` when either is beyond `FOCAL_UNITS`.
    pub fn from_units(x: i64, y: i64) -> Option<Self> {
        let unit = |v: i64| u16::try_from(v).ok().filter(|&v| v <= FOCAL_UNITS);
        Some(Self { x: unit(x)?, y: unit(y)? })
    }

    pub fn x_fraction(self) -> f64 {
        f64::from(self.x) / f64::from(FOCAL_UNITS)
    }

    pub fn y_fraction(self) -> f64 {
        f64::from(self.y) / f64::from(FOCAL_UNITS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_outside_zero_to_one_are_refused() {
        assert_eq!(FocalPoint::from_fractions(0.5, 0.25), Some(FocalPoint { x: 5000, y: 2500 }));
        assert_eq!(FocalPoint::from_fractions(1.0, 0.0), Some(FocalPoint { x: 10_000, y: 0 }));
        for (x, y) in [(-0.01, 0.0), (0.0, 1.0001), (f64::NAN, 0.5), (0.5, f64::INFINITY)] {
            assert_eq!(FocalPoint::from_fractions(x, y), None, "{x},{y}");
        }
        assert_eq!(FocalPoint::from_units(10_000, 3), Some(FocalPoint { x: 10_000, y: 3 }));
        assert_eq!(FocalPoint::from_units(10_001, 3), None);
        assert_eq!(FocalPoint::from_units(-1, 3), None);
    }
}
