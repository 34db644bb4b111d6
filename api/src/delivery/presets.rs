//! Named transformations (`SHUTTERBOX_PRESETS`): an operator names the variants the site uses, and
//! `?preset=<name>` renders one. Presets stay public when URLs must be signed, and with
//! `SHUTTERBOX_PRESETS_ONLY` they are the only transformations that render.
//!
//! Syntax: `<name>:<delivery query>` entries separated by `;`, e.g.
//! `thumb: w=200&h=200&fit=cover; hero: w=1600&format=webp`. Names are 1–64 of `a-z 0-9 _ -`, starting
//! with a letter or digit; queries use delivery's parameters and values. Every entry is checked at
//! start-up: an unknown parameter name (a typo would otherwise be ignored), an invalid value, a repeated
//! name or a query that changes nothing stops the service with a message naming the entry.

use std::{collections::BTreeMap, str::FromStr};

use shutterbox_pipeline::{
    PARAMS, Transform,
    params::{ParamSpec, param},
};

use super::query::query_pairs;

/// Longest preset name.
pub const MAX_NAME_LEN: usize = 64;

/// The operator's named transformations.
#[derive(Debug, Clone, Default)]
pub struct Presets {
    by_name: BTreeMap<String, Transform>,
}

/// Why `SHUTTERBOX_PRESETS` was refused at start-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PresetsError {
    #[error("preset entry '{0}' is not <name>:<query>")]
    NotAnEntry(String),
    #[error("preset name '{0}' must be 1-64 of a-z, 0-9, _ and -, starting with a letter or digit")]
    BadName(String),
    #[error("preset '{0}' is defined twice")]
    Repeated(String),
    #[error("preset '{name}' names the unknown parameter '{parameter}' (known: {known})", known = PARAMS.map(|p: ParamSpec| p.name).join(", "))]
    UnknownParameter { name: String, parameter: String },
    #[error("preset '{name}': {reason}")]
    Invalid { name: String, reason: String },
    #[error("preset '{0}' changes nothing")]
    Identity(String),
}

/// Whether `name` could name a preset (what `SHUTTERBOX_PRESETS` accepts).
pub fn is_valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_NAME_LEN
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

impl FromStr for Presets {
    type Err = PresetsError;

    fn from_str(list: &str) -> Result<Self, PresetsError> {
        let mut by_name = BTreeMap::new();
        for entry in list.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, query) = entry.split_once(':').ok_or_else(|| PresetsError::NotAnEntry(entry.to_owned()))?;
            let (name, query) = (name.trim(), query.trim());
            if !is_valid_name(name) {
                return Err(PresetsError::BadName(name.to_owned()));
            }
            let pairs = query_pairs(query);
            if let Some((parameter, _)) = pairs.iter().find(|(k, _)| param(k).is_none()) {
                return Err(PresetsError::UnknownParameter { name: name.to_owned(), parameter: parameter.clone() });
            }
            let transform = Transform::from_pairs(pairs)
                .map_err(|e| PresetsError::Invalid { name: name.to_owned(), reason: e.to_string() })?;
            if transform.is_identity() {
                return Err(PresetsError::Identity(name.to_owned()));
            }
            if by_name.insert(name.to_owned(), transform).is_some() {
                return Err(PresetsError::Repeated(name.to_owned()));
            }
        }
        Ok(Self { by_name })
    }
}

/// The `SHUTTERBOX_PRESETS` text that parses back to these presets.
impl std::fmt::Display for Presets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (name, transform)) in self.by_name.iter().enumerate() {
            let separator = if i == 0 { "" } else { "; " };
            write!(f, "{separator}{name}: {}", transform.to_query())?;
        }
        Ok(())
    }
}

impl Presets {
    /// The transformation named `name`.
    pub fn get(&self, name: &str) -> Option<&Transform> {
        self.by_name.get(name)
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_into_transformations() {
        let presets: Presets = " thumb: w=200&h=200&fit=cover ; hero:w=1600&format=webp;".parse().unwrap();
        assert_eq!(presets.names().collect::<Vec<_>>(), ["hero", "thumb"]);
        assert_eq!(presets.get("thumb"), Transform::from_query("w=200&h=200&fit=cover").ok().as_ref());
        assert_eq!(presets.get("nope"), None);
        assert!("".parse::<Presets>().unwrap().is_empty());
        let again: Presets = presets.to_string().parse().unwrap();
        assert_eq!(again.to_string(), presets.to_string());
        assert_eq!(again.get("hero"), presets.get("hero"));
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        let err = |s: &str| s.parse::<Presets>().unwrap_err();
        assert_eq!(err("thumb w=200"), PresetsError::NotAnEntry("thumb w=200".into()));
        assert_eq!(err("Thumb:w=200"), PresetsError::BadName("Thumb".into()));
        assert_eq!(err("_x:w=200"), PresetsError::BadName("_x".into()));
        assert_eq!(err(":w=200"), PresetsError::BadName(String::new()));
        assert_eq!(err(&format!("{}:w=1", "a".repeat(65))), PresetsError::BadName("a".repeat(65)));
        assert_eq!(err("a:w=1;a:w=2"), PresetsError::Repeated("a".into()));
        assert_eq!(err("a:wdith=300"), PresetsError::UnknownParameter { name: "a".into(), parameter: "wdith".into() });
        assert!(matches!(err("a:w=0"), PresetsError::Invalid { .. }));
        assert_eq!(err("a:sharp=false"), PresetsError::Identity("a".into()));
    }

    #[test]
    fn names() {
        for good in ["a", "thumb", "hero-2x", "og_image", "1x", &"a".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "A", "-a", "a b", "a/b", "a.b", "é", "a%20", &"a".repeat(65), "../x"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }
}
