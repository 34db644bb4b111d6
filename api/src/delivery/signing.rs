//! Signed delivery URLs (`SHUTTERBOX_URL_SIGNING_KEYS`): with keys set, a delivery URL renders a
//! transformation only when its `sig` parameter is the HMAC-SHA256 of the URL's path and parameters under
//! one of the keys. The first key signs, every key verifies, so keys rotate without breaking URLs.
//!
//! The signed message, for `/v1/file/<path>?<query>` (docs/internet.md shows it in several languages):
//!
//! ```text
//! <path, percent-decoded>?<name>=<value>&…
//! ```
//! with the query's parameters that the service reads (`SIGNED_PARAMS`: the transformations, `preset` and
//! `exp`), percent-decoded (`+` as a space), sorted by name, joined with `&`; every other parameter, and
//! `sig` itself, left out. `sig` is the digest in unpadded base64url (43 characters). `exp`, when present,
//! is a Unix time in seconds after which the URL is refused.

use std::str::FromStr;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use shutterbox_pipeline::params::param;
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// Shortest key accepted: 32 characters, e.g. `openssl rand -hex 32` (64).
pub const MIN_KEY_LEN: usize = 32;

/// The parameters a signature covers besides the transformations.
pub const PRESET: &str = "preset";
pub const EXPIRES: &str = "exp";
pub const SIGNATURE: &str = "sig";

/// Whether a signature covers the parameter `name`.
pub fn is_signed_param(name: &str) -> bool {
    param(name).is_some() || name == PRESET || name == EXPIRES
}

/// Why a URL's signature was refused (every one is a 403).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("this URL asks for a transformation and carries no signature (sig); sign it with a current key")]
    Missing,
    #[error("the URL's signature (sig) is malformed: {0}")]
    Malformed(&'static str),
    #[error("the URL's signature (sig) does not match its path and parameters under any current key")]
    Mismatch,
    #[error("this URL expired at {expired_at} (exp, Unix seconds)")]
    Expired { expired_at: u64 },
}

/// Why `SHUTTERBOX_URL_SIGNING_KEYS` was refused at start-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    #[error("SHUTTERBOX_URL_SIGNING_KEYS names no key")]
    Empty,
    #[error(
        "signing key {position} of SHUTTERBOX_URL_SIGNING_KEYS is {len} characters; each needs at least \
         {MIN_KEY_LEN} (e.g. `openssl rand -hex 32`)"
    )]
    TooShort { position: usize, len: usize },
}

/// The keys delivery URLs are signed with: the first signs, all verify.
#[derive(Clone)]
pub struct UrlSigningKeys {
    keys: Vec<Vec<u8>>,
}

impl std::fmt::Debug for UrlSigningKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UrlSigningKeys({} keys)", self.keys.len())
    }
}

impl FromStr for UrlSigningKeys {
    type Err = KeysError;

    /// Comma-separated keys, spaces around each ignored.
    fn from_str(list: &str) -> Result<Self, KeysError> {
        let keys: Vec<Vec<u8>> = list.split(',').map(str::trim).map(|k| k.as_bytes().to_vec()).collect();
        if keys.iter().all(Vec::is_empty) {
            return Err(KeysError::Empty);
        }
        if let Some((i, key)) = keys.iter().enumerate().find(|(_, key)| key.len() < MIN_KEY_LEN) {
            return Err(KeysError::TooShort { position: i + 1, len: key.len() });
        }
        Ok(Self { keys })
    }
}

/// The message a signature covers: `path` (decoded) and the signed parameters of `pairs` (decoded).
pub fn signed_message<'a>(path: &str, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut signed: Vec<(&str, &str)> = pairs.into_iter().filter(|(name, _)| is_signed_param(name)).collect();
    signed.sort_unstable();
    let mut message = String::with_capacity(path.len() + 64);
    message.push_str(path);
    message.push('?');
    for (i, (name, value)) in signed.into_iter().enumerate() {
        if i > 0 {
            message.push('&');
        }
        message.push_str(name);
        message.push('=');
        message.push_str(value);
    }
    message
}

fn digest(key: &[u8], message: &str) -> [u8; 32] {
    // HMAC accepts keys of any length.
    let mut mac = HmacSha256::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(message.as_bytes());
    mac.finalize().into_bytes().into()
}

/// Why `sign_url` could not sign a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignUrlError {
    #[error("'{0}' is not a delivery URL (…/v1/file/<stored path>?<query>)")]
    NotDelivery(String),
    #[error("the path of '{0}' is not valid percent-encoded UTF-8, or has a '/' encoded as %2F")]
    BadPath(String),
}

impl UrlSigningKeys {
    /// A delivery URL (`<anything>/v1/file/<path>?<query>`) with its `sig`, and `exp` = `expires` if
    /// given; a `sig` or `exp` it already carries is replaced. Other parameters keep their spelling.
    pub fn sign_url(&self, url: &str, expires: Option<u64>) -> Result<String, SignUrlError> {
        let prefix = super::DELIVER_FILE.prefix();
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let at = base.find(prefix).ok_or_else(|| SignUrlError::NotDelivery(url.to_owned()))?;
        let path = super::query::decode_path(&base[at + prefix.len()..])
            .filter(|path| !path.is_empty())
            .ok_or_else(|| SignUrlError::BadPath(url.to_owned()))?;
        let kept: Vec<&str> = query
            .split('&')
            .filter(|raw| !raw.is_empty())
            .filter(|raw| {
                let name = form_urlencoded::parse(raw.as_bytes()).next().map(|(name, _)| name.into_owned());
                let replaced = match name.as_deref() {
                    Some(SIGNATURE) => true,
                    Some(EXPIRES) => expires.is_some(),
                    _ => false,
                };
                !replaced
            })
            .collect();
        let mut query = kept.join("&");
        if let Some(expires) = expires {
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(&format!("{EXPIRES}={expires}"));
        }
        let pairs = super::query::query_pairs(&query);
        let sig = self.sign(&path, pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        let separator = if query.is_empty() { "" } else { "&" };
        Ok(format!("{base}?{query}{separator}{SIGNATURE}={sig}"))
    }

    /// `sig` for `path` with `pairs`, under the first key.
    pub fn sign<'a>(&self, path: &str, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
        let key = self.keys.first().map_or(&[][..], Vec::as_slice);
        URL_SAFE_NO_PAD.encode(digest(key, &signed_message(path, pairs)))
    }

    /// Checks the `sig` among `pairs` (the URL's decoded parameters, all of them) for `path`, and `exp`
    /// against `now_secs`. Returns the expiry, if the URL has one.
    pub fn verify(&self, path: &str, pairs: &[(String, String)], now_secs: u64) -> Result<Option<u64>, SignatureError> {
        let mut signature = None;
        let mut expires = None;
        for (name, value) in pairs {
            let slot = match name.as_str() {
                SIGNATURE => &mut signature,
                EXPIRES => &mut expires,
                _ => continue,
            };
            if slot.replace(value.as_str()).is_some() {
                return Err(SignatureError::Malformed("sig or exp is given more than once"));
            }
        }
        let signature = signature.ok_or(SignatureError::Missing)?;
        let mut given = [0u8; 32];
        match URL_SAFE_NO_PAD.decode_slice(signature.trim_end_matches('='), &mut given) {
            Ok(32) => {}
            _ => return Err(SignatureError::Malformed("not 43 characters of unpadded base64url")),
        }
        let message = signed_message(path, pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        if !self.keys.iter().any(|key| bool::from(digest(key, &message).ct_eq(&given))) {
            return Err(SignatureError::Mismatch);
        }
        let Some(expires) = expires else { return Ok(None) };
        let expires: u64 =
            expires.parse().map_err(|_| SignatureError::Malformed("exp is not a Unix time in seconds"))?;
        if now_secs > expires {
            return Err(SignatureError::Expired { expired_at: expires });
        }
        Ok(Some(expires))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    use crate::delivery::query::query_pairs as pairs;

    fn signed(keys: &UrlSigningKeys, path: &str, query: &str) -> Vec<(String, String)> {
        let mut all = pairs(query);
        let sig = keys.sign(path, all.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        all.push(("sig".into(), sig));
        all
    }

    #[test]
    fn the_message_is_the_path_and_the_sorted_read_parameters() {
        let message = signed_message("default/my cat.webp", [("w", "300"), ("utm", "x"), ("exp", "9"), ("fit", "a b")]);
        assert_eq!(message, "default/my cat.webp?exp=9&fit=a b&w=300");
        assert_eq!(signed_message("default/cat.webp", []), "default/cat.webp?");
    }

    #[test]
    fn a_known_answer_that_the_docs_examples_reproduce() {
        // docs/internet.md signs this URL in Python, TypeScript and shell and prints this signature.
        let keys: UrlSigningKeys = A.parse().unwrap();
        assert_eq!(keys.sign("default/cat.webp", [("w", "400"), ("format", "webp")]), KNOWN_SIGNATURE);
    }

    /// HMAC-SHA256 under `A` of `default/cat.webp?format=webp&w=400`, base64url.
    const KNOWN_SIGNATURE: &str = "2QpYDi-gYIkdGiJb1c7KtufHk2gedn36lfNSCEzFOnk";

    #[test]
    fn every_key_verifies_and_the_first_signs() {
        let old: UrlSigningKeys = A.parse().unwrap();
        let rotated: UrlSigningKeys = format!("{B}, {A}").parse().unwrap();
        let url = signed(&old, "default/cat.jpg", "w=300&q=80");
        assert_eq!(rotated.verify("default/cat.jpg", &url, 0), Ok(None));
        let removed: UrlSigningKeys = B.parse().unwrap();
        assert_eq!(removed.verify("default/cat.jpg", &url, 0), Err(SignatureError::Mismatch));
    }

    #[test]
    fn tampering_is_refused_and_unread_parameters_are_not_signed() {
        let keys: UrlSigningKeys = A.parse().unwrap();
        let mut url = signed(&keys, "default/cat.jpg", "w=300");
        assert_eq!(keys.verify("default/dog.jpg", &url, 0), Err(SignatureError::Mismatch));
        url.push(("utm_source".into(), "mail".into()));
        assert_eq!(keys.verify("default/cat.jpg", &url, 0), Ok(None));
        url[0].1 = "301".into();
        assert_eq!(keys.verify("default/cat.jpg", &url, 0), Err(SignatureError::Mismatch));
        let mut unsigned = pairs("w=300");
        assert_eq!(keys.verify("default/cat.jpg", &unsigned, 0), Err(SignatureError::Missing));
        unsigned.push(("sig".into(), "abc".into()));
        assert!(matches!(keys.verify("default/cat.jpg", &unsigned, 0), Err(SignatureError::Malformed(_))));
    }

    #[test]
    fn expiry_is_signed_and_enforced() {
        let keys: UrlSigningKeys = A.parse().unwrap();
        let url = signed(&keys, "default/cat.jpg", "w=300&exp=1000");
        assert_eq!(keys.verify("default/cat.jpg", &url, 1000), Ok(Some(1000)));
        assert_eq!(keys.verify("default/cat.jpg", &url, 1001), Err(SignatureError::Expired { expired_at: 1000 }));
        let mut extended = url.clone();
        extended[1].1 = "99999".into();
        assert_eq!(keys.verify("default/cat.jpg", &extended, 1001), Err(SignatureError::Mismatch));
    }

    #[test]
    fn urls_are_signed_whole() {
        let keys: UrlSigningKeys = A.parse().unwrap();
        let signed =
            keys.sign_url("https://img.example/v1/file/default/my%20cat.webp?w=300&utm=a+b&sig=old", None).unwrap();
        let (_, query) = signed.split_once('?').unwrap();
        assert!(query.starts_with("w=300&utm=a+b&sig="), "{signed}");
        assert_eq!(keys.verify("default/my cat.webp", &pairs(query), 0), Ok(None));
        let expiring = keys.sign_url(&signed, Some(77)).unwrap();
        let (_, query) = expiring.split_once('?').unwrap();
        assert_eq!(keys.verify("default/my cat.webp", &pairs(query), 77), Ok(Some(77)));
        assert!(
            keys.sign_url("/v1/file/default/cat.webp", None).unwrap().starts_with("/v1/file/default/cat.webp?sig=")
        );
        assert!(matches!(keys.sign_url("https://img.example/v1/raw/a.jpg", None), Err(SignUrlError::NotDelivery(_))));
        assert!(matches!(keys.sign_url("/v1/file/a%2Fb.jpg?w=1", None), Err(SignUrlError::BadPath(_))));
    }

    #[test]
    fn keys_are_checked_at_start_up() {
        assert_eq!("".parse::<UrlSigningKeys>().unwrap_err(), KeysError::Empty);
        assert_eq!(" , ".parse::<UrlSigningKeys>().unwrap_err(), KeysError::Empty);
        assert_eq!(
            format!("{A},short").parse::<UrlSigningKeys>().unwrap_err(),
            KeysError::TooShort { position: 2, len: 5 }
        );
        assert_eq!(format!("{A},").parse::<UrlSigningKeys>().unwrap_err(), KeysError::TooShort { position: 2, len: 0 });
    }
}
