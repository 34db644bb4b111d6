//! What a store is given and answers when an object is assembled from pieces (a resumable upload's
//! PATCHes): the piece's bytes and bounds, the digest it must have, and the state after it.

use std::io;

use bytes::Bytes;
use futures_util::TryStreamExt;
use sha1::Digest as _;
use shutterbox_model::Assembly;

use crate::{ByteStream, StoreError};

/// A digest algorithm a piece may be checked with (TUS `Upload-Checksum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChecksumAlgorithm {
    Sha1,
    Sha256,
}

impl ChecksumAlgorithm {
    /// Every algorithm, by the name TUS gives it.
    pub const ALL: [(&'static str, ChecksumAlgorithm); 2] = [("sha1", Self::Sha1), ("sha256", Self::Sha256)];

    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
    }
}

/// The digest a piece must have, or it is not kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checksum {
    pub algorithm: ChecksumAlgorithm,
    pub digest: Vec<u8>,
}

/// One piece of an assembly.
pub struct Piece {
    pub body: ByteStream,
    /// The most bytes the piece may hold (the declared length less what has arrived).
    pub limit: u64,
    /// The object's final size when known: a piece that reaches it ends the object.
    pub total: Option<u64>,
    pub checksum: Option<Checksum>,
}

/// The assembly after a piece.
#[derive(Debug)]
pub struct Appended {
    pub assembly: Assembly,
    /// The body broke off before its end (the client went away); what arrived before is kept, since no
    /// checksum asked for all of it.
    pub cut_short: Option<io::Error>,
}

#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    #[error("the body is larger than the {limit} bytes the upload has left")]
    TooLarge { limit: u64 },
    #[error("the body does not match its Upload-Checksum; nothing of it was kept")]
    ChecksumMismatch,
    /// The body broke off and a checksum could not be checked: nothing of it was kept.
    #[error("the body broke off before its end: {0}")]
    Interrupted(io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<io::Error> for AppendError {
    fn from(e: io::Error) -> Self {
        Self::Store(StoreError::Io(e))
    }
}

/// A piece's body as a store reads it: chunk by chunk, counted against its limit and digested; a body
/// that breaks off ends early (cut short) unless a checksum asked for all of it.
pub(crate) struct PieceReader {
    body: ByteStream,
    limit: u64,
    checksum: Option<Checksum>,
    digester: Digester,
    received: u64,
    cut_short: Option<io::Error>,
}

impl PieceReader {
    /// The reader of `piece`'s body, and the object's final size if known.
    pub(crate) fn new(piece: Piece) -> (Self, Option<u64>) {
        let Piece { body, limit, total, checksum } = piece;
        let digester = Digester::for_checksum(checksum.as_ref());
        (Self { body, limit, checksum, digester, received: 0, cut_short: None }, total)
    }

    /// The next chunk; `None` at the end of the body, or where it broke off.
    pub(crate) async fn next(&mut self) -> Result<Option<Bytes>, AppendError> {
        match self.body.try_next().await {
            Ok(Some(chunk)) => {
                self.received += chunk.len() as u64;
                if self.received > self.limit {
                    return Err(AppendError::TooLarge { limit: self.limit });
                }
                self.digester.update(&chunk);
                Ok(Some(chunk))
            }
            Ok(None) => Ok(None),
            Err(e) if self.checksum.is_none() => {
                self.cut_short = Some(e);
                Ok(None)
            }
            Err(e) => Err(AppendError::Interrupted(e)),
        }
    }

    /// After the last chunk: the bytes received and why the body ended early, if it did; an error if the
    /// checksum does not match.
    pub(crate) fn finish(self) -> Result<(u64, Option<io::Error>), AppendError> {
        if !self.digester.matches(self.checksum.as_ref()) {
            return Err(AppendError::ChecksumMismatch);
        }
        Ok((self.received, self.cut_short))
    }
}

/// A piece's digest as its bytes go by.
pub(crate) enum Digester {
    None,
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl Digester {
    pub(crate) fn for_checksum(checksum: Option<&Checksum>) -> Self {
        match checksum.map(|c| c.algorithm) {
            None => Self::None,
            Some(ChecksumAlgorithm::Sha1) => Self::Sha1(sha1::Sha1::new()),
            Some(ChecksumAlgorithm::Sha256) => Self::Sha256(sha2::Sha256::new()),
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            Self::None => {}
            Self::Sha1(d) => d.update(bytes),
            Self::Sha256(d) => d.update(bytes),
        }
    }

    /// Whether the bytes seen have `checksum`'s digest (always, without one).
    pub(crate) fn matches(self, checksum: Option<&Checksum>) -> bool {
        let digest = match self {
            Self::None => return true,
            Self::Sha1(d) => d.finalize().to_vec(),
            Self::Sha256(d) => d.finalize().to_vec(),
        };
        checksum.is_some_and(|c| c.digest == digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_the_published_ones() {
        // FIPS 180 test vectors for "abc".
        let sha1 = hex::decode("a9993e364706816aba3e25717850c26c9cd0d89d").unwrap();
        let sha256 = hex::decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad").unwrap();
        for (algorithm, digest) in [(ChecksumAlgorithm::Sha1, sha1), (ChecksumAlgorithm::Sha256, sha256)] {
            let checksum = Checksum { algorithm, digest };
            let mut digester = Digester::for_checksum(Some(&checksum));
            digester.update(b"ab");
            digester.update(b"c");
            assert!(digester.matches(Some(&checksum)));
            let mut digester = Digester::for_checksum(Some(&checksum));
            digester.update(b"abd");
            assert!(!digester.matches(Some(&checksum)));
        }
        assert_eq!(ChecksumAlgorithm::named("sha256"), Some(ChecksumAlgorithm::Sha256));
        assert_eq!(ChecksumAlgorithm::named("md5"), None);
    }
}
