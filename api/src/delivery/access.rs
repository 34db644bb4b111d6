//! What public delivery may render: the operator's rules (signed URLs, named presets, presets only) applied
//! to a delivery query, in one place for delivery, transform-url and warming.
//!
//! Delivery is open by default (docs/api.md, "Authentication": delivery needs no key, so hand-written
//! queries render). With signing keys, a render needs a valid `sig` (`signing`); a named preset
//! (`?preset=<name>`, `presets`) always renders; with presets only, nothing else does. Originals without
//! parameters and thumbnails are never gated. The checks cost no I/O and run before any render or store
//! write.

use shutterbox_pipeline::{ParamError, Transform, params::param};

use super::query::query_pairs;
use super::{
    presets::{MAX_NAME_LEN, Presets},
    signing::{PRESET, SIGNATURE, SignatureError, UrlSigningKeys},
};
use crate::error::ApiError;

/// The operator's delivery rules.
#[derive(Debug, Clone, Default)]
pub struct DeliveryAccess {
    /// `SHUTTERBOX_URL_SIGNING_KEYS`: renders need a signature.
    pub signing: Option<UrlSigningKeys>,
    /// `SHUTTERBOX_PRESETS`.
    pub presets: Presets,
    /// `SHUTTERBOX_PRESETS_ONLY`: only presets render.
    pub presets_only: bool,
}

/// What entitles a delivery query to render a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// Delivery is open (no signing, not presets-only).
    Open,
    /// A named preset.
    Preset,
    /// A valid signature.
    Signed,
    /// Nothing: the query may serve an original, not render.
    None,
}

/// A delivery query, read: the transformation it asks for and what entitles it to render.
#[derive(Debug, Clone)]
pub struct DeliveryQuery {
    pub transform: Transform,
    pub grant: Grant,
    /// A signed URL's expiry (Unix seconds): its answers are not kept in the response cache, so that it
    /// is refused once expired.
    pub expires: Option<u64>,
}

/// Why a delivery query was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// 400.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// 400.
    #[error("unknown preset '{0}'")]
    UnknownPreset(String),
    /// 400.
    #[error("preset is given more than once")]
    RepeatedPreset,
    /// 400.
    #[error(
        "a preset cannot be combined with other transformation parameters (got '{0}'); name the format with the URL's extension"
    )]
    PresetWithParameters(&'static str),
    /// 403.
    #[error(transparent)]
    Signature(#[from] SignatureError),
    /// 403.
    #[error("this service renders named presets only (?preset=<name>)")]
    PresetsOnly,
}

impl AccessError {
    /// Whether the refusal is a 403 (the request is well formed but not allowed), rather than a 400.
    pub fn is_forbidden(&self) -> bool {
        matches!(self, Self::Signature(_) | Self::PresetsOnly)
    }
}

impl DeliveryAccess {
    /// The transformation `pairs` ask for: the named preset's, or the parameters'. Applies presets-only,
    /// not signing (for callers holding a key: transform-url, warming). Returns the preset's name, if any.
    pub fn transformation<'p>(
        &self,
        pairs: &'p [(String, String)],
    ) -> Result<(Transform, Option<&'p str>), AccessError> {
        let (transform, preset) = self.resolve(pairs)?;
        if self.presets_only && preset.is_none() && !transform.is_identity() {
            return Err(AccessError::PresetsOnly);
        }
        Ok((transform, preset))
    }

    /// The named preset's transformation, or the parameters', with no rule applied.
    fn resolve<'p>(&self, pairs: &'p [(String, String)]) -> Result<(Transform, Option<&'p str>), AccessError> {
        let mut presets = pairs.iter().filter(|(name, _)| name == PRESET);
        let preset = presets.next().map(|(_, value)| value.as_str());
        if presets.next().is_some() {
            return Err(AccessError::RepeatedPreset);
        }
        let Some(name) = preset else {
            return Ok((Transform::from_pairs(pairs.iter().cloned())?, None));
        };
        if let Some(parameter) = pairs.iter().find_map(|(n, _)| param(n).map(|spec| &spec.name)) {
            return Err(AccessError::PresetWithParameters(parameter));
        }
        let transform = self.presets.get(name).copied().ok_or_else(|| {
            // Echo a bounded, printable name: the value is the caller's.
            let shown: String = name.chars().take(MAX_NAME_LEN).map(|c| if c.is_control() { '?' } else { c }).collect();
            AccessError::UnknownPreset(shown)
        })?;
        Ok((transform, Some(name)))
    }

    /// Reads a public delivery query for `path` (the stored path the URL names, decoded). A signature, when
    /// one is given and signing is on, is checked here: a wrong one is refused even where none is needed.
    pub fn read(&self, path: &str, query: &str, now_secs: u64) -> Result<DeliveryQuery, AccessError> {
        let pairs = query_pairs(query);
        // Presets-only refuses at the render (`may_render`), so that originals stay reachable with any query.
        let (transform, preset) = self.resolve(&pairs)?;
        let mut expires = None;
        let signed = match &self.signing {
            Some(keys) if pairs.iter().any(|(name, _)| name == SIGNATURE) => {
                expires = keys.verify(path, &pairs, now_secs)?;
                true
            }
            _ => false,
        };
        let grant = match (preset, signed) {
            (Some(_), _) => Grant::Preset,
            (None, true) => Grant::Signed,
            (None, false) if self.signing.is_none() && !self.presets_only => Grant::Open,
            (None, false) => Grant::None,
        };
        Ok(DeliveryQuery { transform, grant, expires })
    }

    /// Whether `query` may render a variant; called once a render is what the request needs.
    pub fn may_render(&self, query: &DeliveryQuery) -> Result<(), AccessError> {
        match query.grant {
            Grant::Preset => Ok(()),
            _ if self.presets_only => Err(AccessError::PresetsOnly),
            Grant::Open | Grant::Signed => Ok(()),
            Grant::None => Err(AccessError::Signature(SignatureError::Missing)),
        }
    }
}

/// A refused delivery query: a malformed one is a 400, one the operator's rules do not allow a 403.
impl From<AccessError> for ApiError {
    fn from(e: AccessError) -> Self {
        if e.is_forbidden() { Self::forbidden(e.to_string()) } else { Self::bad_request(e.to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";

    fn access(signing: bool, presets_only: bool) -> DeliveryAccess {
        DeliveryAccess {
            signing: signing.then(|| KEY.parse().unwrap()),
            presets: "thumb: w=200&h=200".parse().unwrap(),
            presets_only,
        }
    }

    fn grant(a: &DeliveryAccess, query: &str) -> Result<Grant, AccessError> {
        let q = a.read("default/cat.jpg", query, 0)?;
        a.may_render(&q).map(|()| q.grant)
    }

    fn sign(query: &str) -> String {
        let keys: UrlSigningKeys = KEY.parse().unwrap();
        let pairs = query_pairs(query);
        let sig = keys.sign("default/cat.jpg", pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        format!("{query}&sig={sig}")
    }

    #[test]
    fn open_by_default() {
        assert_eq!(grant(&access(false, false), "w=300"), Ok(Grant::Open));
        assert_eq!(grant(&access(false, false), "preset=thumb"), Ok(Grant::Preset));
        assert_eq!(grant(&access(false, false), "w=300&sig=whatever"), Ok(Grant::Open));
    }

    #[test]
    fn signing_gates_renders_but_not_presets() {
        let a = access(true, false);
        assert_eq!(grant(&a, "w=300"), Err(AccessError::Signature(SignatureError::Missing)));
        assert_eq!(grant(&a, &sign("w=300")), Ok(Grant::Signed));
        assert_eq!(grant(&a, "preset=thumb"), Ok(Grant::Preset));
        assert!(matches!(grant(&a, "preset=thumb&sig=x"), Err(AccessError::Signature(SignatureError::Malformed(_)))));
        // No parameters at all: reading succeeds (an original may be served); a render would not.
        assert_eq!(a.read("default/cat.jpg", "", 0).unwrap().grant, Grant::None);
    }

    #[test]
    fn presets_only_refuses_everything_else() {
        let a = access(true, true);
        assert_eq!(grant(&a, "preset=thumb"), Ok(Grant::Preset));
        assert_eq!(grant(&a, &sign("w=300")), Err(AccessError::PresetsOnly));
        assert_eq!(grant(&access(false, true), "w=300"), Err(AccessError::PresetsOnly));
        assert_eq!(access(false, true).transformation(&query_pairs("w=1")).unwrap_err(), AccessError::PresetsOnly);
    }

    #[test]
    fn presets_are_named_exactly_and_alone() {
        let a = access(false, false);
        assert_eq!(grant(&a, "preset=nope"), Err(AccessError::UnknownPreset("nope".into())));
        assert_eq!(grant(&a, "preset=thumb&w=3"), Err(AccessError::PresetWithParameters("w")));
        assert_eq!(grant(&a, "preset=thumb&preset=thumb"), Err(AccessError::RepeatedPreset));
        assert_eq!(grant(&a, "preset=thumb&utm=1"), Ok(Grant::Preset));
        let long = "x".repeat(10_000);
        assert_eq!(grant(&a, &format!("preset={long}")), Err(AccessError::UnknownPreset("x".repeat(64))));
        assert_eq!(grant(&a, "preset=%0A"), Err(AccessError::UnknownPreset("?".into())));
        let pairs = query_pairs("preset=thumb");
        let (transform, name) = a.transformation(&pairs).unwrap();
        assert_eq!((transform, name), (Transform::from_query("w=200&h=200").unwrap(), Some("thumb")));
    }
}
