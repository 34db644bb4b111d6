//! Object keys. They are minted by the service from ids (`pending/<uuid>`, `files/<uuid>/original`), never
//! from user-supplied names, and a key arriving in a URL is parsed strictly before it touches a path.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{FileId, PendingId, VariantDigest};

/// On the wire (a job) a key is its text, parsed strictly when read back.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct ObjectKey(String);

#[derive(Debug, thiserror::Error)]
#[error("malformed object key")]
pub struct KeyError;

impl ObjectKey {
    /// The key under which a pending upload's bytes arrive.
    pub fn pending(id: &PendingId) -> Self {
        Self(format!("pending/{id}"))
    }

    /// The key of a confirmed file's original bytes.
    pub fn original(file_id: &FileId) -> Self {
        Self(format!("files/{file_id}/original"))
    }

    /// The key of a rendered variant of a file, named by its digest.
    pub fn variant(file_id: &FileId, digest: &VariantDigest) -> Self {
        Self(format!("files/{file_id}/v/{digest}"))
    }

    /// Accepts only what this service mints: lower-case ASCII letters, digits, `-` and `_` in non-empty
    /// `/`-separated segments.
    pub fn parse(key: &str) -> Result<Self, KeyError> {
        let segment_ok = |s: &str| {
            !s.is_empty()
                && s.len() <= 128
                && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        };
        if key.len() <= 512 && key.split('/').all(segment_ok) { Ok(Self(key.to_owned())) } else { Err(KeyError) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is a rendered variant's key (`files/<id>/v/<digest>`): a cache entry, which the service
    /// can render again from the original, where every other key holds data.
    pub fn is_variant(&self) -> bool {
        let mut segments = self.0.split('/');
        matches!(
            (segments.next(), segments.next(), segments.next(), segments.next(), segments.next()),
            (Some("files"), Some(_), Some("v"), Some(_), None)
        )
    }
}

impl From<ObjectKey> for String {
    fn from(key: ObjectKey) -> Self {
        key.0
    }
}

impl TryFrom<String> for ObjectKey {
    type Error = KeyError;

    fn try_from(text: String) -> Result<Self, KeyError> {
        Self::parse(&text)
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_strict() {
        assert!(ObjectKey::parse("pending/0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f").is_ok());
        let key = ObjectKey::original(&FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"));
        let wire = serde_json::to_string(&key).unwrap();
        assert_eq!(wire, "\"files/0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f/original\"");
        assert_eq!(serde_json::from_str::<ObjectKey>(&wire).unwrap(), key);
        assert!(serde_json::from_str::<ObjectKey>("\"../etc\"").is_err());
        for bad in ["", "a//b", "../x", "a/../b", "/a", "a/", "A", "a b", "a\\b", "a/.", "%2e"] {
            assert!(ObjectKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_variant_keys_are_variants() {
        let id = "0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f";
        assert!(ObjectKey::variant(&FileId::new(id), &VariantDigest::new("ab12")).is_variant());
        assert!(ObjectKey::parse(&format!("files/{id}/v/ab12")).unwrap().is_variant());
        for data in [ObjectKey::original(&FileId::new(id)), ObjectKey::pending(&PendingId::new(id))] {
            assert!(!data.is_variant(), "{data}");
        }
        for other in ["files/x/v", "files/x/v/d/e", "files/x/w/d", "pending/x/v/d"] {
            assert!(!ObjectKey::parse(other).unwrap().is_variant(), "{other}");
        }
    }
}
