//! Self-signed upload URLs for the local store: `…/storage/<key>?expires=<unix>&size=<max>&signature=<hex>`,
//! where the signature is an HMAC-SHA256 over method, key, expiry and maximum size. Changing any of them, or
//! using the URL after its expiry, is refused.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// Why a presigned upload was refused.
#[derive(Debug, thiserror::Error)]
pub enum UploadRejection {
    #[error("upload URL is malformed: {0}")]
    Malformed(&'static str),
    #[error("upload URL signature does not match")]
    BadSignature,
    #[error("upload URL has expired")]
    Expired,
    #[error("upload is larger than the {limit} bytes declared at presign")]
    TooLarge { limit: u64 },
    #[error("upload could not be stored: {0}")]
    Storage(#[from] std::io::Error),
}

/// The signed part of an upload URL's query string.
#[derive(Debug, Clone, Default)]
pub struct PresignedQuery {
    pub expires: Option<String>,
    pub size: Option<String>,
    pub signature: Option<String>,
}

impl PresignedQuery {
    pub fn parse(query: &str) -> Self {
        let mut parsed = Self::default();
        for pair in query.split('&') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match name {
                "expires" => &mut parsed.expires,
                "size" => &mut parsed.size,
                "signature" => &mut parsed.signature,
                _ => continue,
            };
            *slot = Some(value.to_owned());
        }
        parsed
    }
}

/// Signs and checks upload URLs with the store's secret.
pub(crate) struct UrlSigner {
    secret: Vec<u8>,
}

/// A verified grant to write up to `max_size` bytes to a key.
pub(crate) struct UploadGrant {
    pub max_size: u64,
}

impl UrlSigner {
    pub fn new(secret: Vec<u8>) -> Self {
        Self { secret }
    }

    fn mac(&self, key: &str, expires: u64, size: u64) -> HmacSha256 {
        // Fixed-size secret: new_from_slice cannot fail for HMAC.
        let mut mac = HmacSha256::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!());
        mac.update(format!("PUT\n{key}\n{expires}\n{size}").as_bytes());
        mac
    }

    pub fn query(&self, key: &str, expires: u64, size: u64) -> String {
        let signature = hex::encode(self.mac(key, expires, size).finalize().into_bytes());
        format!("expires={expires}&size={size}&signature={signature}")
    }

    pub fn verify(&self, key: &str, query: &PresignedQuery, now: u64) -> Result<UploadGrant, UploadRejection> {
        let number = |value: &Option<String>, what| {
            value.as_deref().and_then(|v| v.parse::<u64>().ok()).ok_or(UploadRejection::Malformed(what))
        };
        let expires = number(&query.expires, "expires is missing or not a number")?;
        let max_size = number(&query.size, "size is missing or not a number")?;
        let signature = query
            .signature
            .as_deref()
            .and_then(|s| hex::decode(s).ok())
            .ok_or(UploadRejection::Malformed("signature is missing or not hex"))?;
        let expected = self.mac(key, expires, max_size).finalize().into_bytes();
        if !bool::from(expected[..].ct_eq(&signature)) {
            return Err(UploadRejection::BadSignature);
        }
        // Checked after the signature so an attacker learns nothing from tampering with the expiry.
        if now > expires {
            return Err(UploadRejection::Expired);
        }
        Ok(UploadGrant { max_size })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(signer: &UrlSigner, key: &str, expires: u64, size: u64) -> PresignedQuery {
        PresignedQuery::parse(&signer.query(key, expires, size))
    }

    #[test]
    fn a_signed_query_verifies_until_it_expires() {
        let signer = UrlSigner::new(b"secret".to_vec());
        let q = signed(&signer, "pending/a", 100, 10);
        assert_eq!(signer.verify("pending/a", &q, 100).unwrap().max_size, 10);
        assert!(matches!(signer.verify("pending/a", &q, 101), Err(UploadRejection::Expired)));
    }

    #[test]
    fn any_tampering_breaks_the_signature() {
        let signer = UrlSigner::new(b"secret".to_vec());
        let q = signed(&signer, "pending/a", 100, 10);
        assert!(matches!(signer.verify("pending/b", &q, 0), Err(UploadRejection::BadSignature)));
        let mut bigger = q.clone();
        bigger.size = Some("11".into());
        assert!(matches!(signer.verify("pending/a", &bigger, 0), Err(UploadRejection::BadSignature)));
        let mut later = q.clone();
        later.expires = Some("1000".into());
        assert!(matches!(signer.verify("pending/a", &later, 0), Err(UploadRejection::BadSignature)));
        let other = UrlSigner::new(b"other".to_vec());
        assert!(matches!(other.verify("pending/a", &q, 0), Err(UploadRejection::BadSignature)));
        let mut missing = q;
        missing.signature = None;
        assert!(matches!(signer.verify("pending/a", &missing, 0), Err(UploadRejection::Malformed(_))));
    }
}
