//! API keys: minted from the OS random source, shown once, stored only as a SHA-256 hash. Keys carry 256
//! bits of entropy, so a fast hash is enough (no password stretching needed) and lookup is by hash, which
//! never compares a secret byte by byte.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// A freshly minted key in plain text (`sbx_` + 64 hex digits). Only ever printed, never stored.
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Self(format!("sbx_{}", hex::encode(bytes)))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn hash(&self) -> KeyHash {
        KeyHash::of(&self.0)
    }

    /// The first characters, safe to show in listings and logs.
    pub fn prefix(&self) -> &str {
        &self.0[..12]
    }
}

/// The stored form of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHash(pub String);

impl KeyHash {
    pub fn of(presented: &str) -> Self {
        Self(hex::encode(Sha256::digest(presented.as_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_hash_stably() {
        let a = ApiKeySecret::generate();
        let b = ApiKeySecret::generate();
        assert_ne!(a.expose(), b.expose());
        assert_eq!(a.expose().len(), 68);
        assert_eq!(a.hash(), KeyHash::of(a.expose()));
        assert_ne!(a.hash(), b.hash());
        assert!(a.prefix().starts_with("sbx_"));
    }
}
