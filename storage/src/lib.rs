//! Object storage behind one trait. The API and the workers hold an `Arc<dyn ObjectStore>` and never know
//! which backend is behind it: the embedded local directory (`LocalStore`, which signs its own upload URLs
//! and receives the uploads) or, in distributed mode, one bucket on an S3-compatible server (`S3Store`,
//! whose presigned URLs send uploads straight to that server).

mod assembly;
mod local;
mod presign;
mod s3;
mod spool;

use std::{io, time::Duration};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;

pub use assembly::{AppendError, Appended, Checksum, ChecksumAlgorithm, Piece};
pub use local::LocalStore;
pub use presign::{PresignedQuery, UploadRejection};
pub use s3::{S3Config, S3Store};
pub use shutterbox_model::{Assembly, KeyError, ObjectKey};

/// A stream of object bytes.
pub type ByteStream = BoxStream<'static, io::Result<Bytes>>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("object store I/O failed: {0}")]
    Io(#[from] io::Error),
    #[error("object store is unavailable: {0}")]
    Unavailable(String),
}

/// What the store knows of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectInfo {
    pub size: u64,
}

/// Part of an object: `len` bytes from `start`, or to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub len: Option<u64>,
}

#[async_trait]
pub trait ObjectStore: Send + Sync + 'static {
    /// An address that accepts the object's bytes with `PUT` without further credentials until
    /// `expires_in` has passed, refusing more than `max_size` bytes where the backend can enforce it.
    async fn presign_put(&self, key: &ObjectKey, max_size: u64, expires_in: Duration) -> Result<String, StoreError>;

    /// An address where a client reads the object itself until `expires_in` has passed, answered with
    /// `content_type` and, when `attachment`, as a download (S3: a presigned GET); `None` for a store
    /// clients cannot reach (the local store, whose objects this service serves).
    async fn presign_get(
        &self,
        _key: &ObjectKey,
        _expires_in: Duration,
        _content_type: &str,
        _attachment: bool,
    ) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// Where the object is as a file of this machine, for a program that reads it by path with seeks of
    /// its own (FFmpeg decoding a video's frames); `None` for a store of another machine (S3, whose
    /// presigned GET a program reads over HTTP instead).
    fn local_path(&self, _key: &ObjectKey) -> Option<std::path::PathBuf> {
        None
    }

    /// The object's size, or `None` when it does not exist.
    async fn stat(&self, key: &ObjectKey) -> Result<Option<ObjectInfo>, StoreError>;

    /// The object's bytes (a range of them when `range` is given); `None` when it does not exist.
    async fn read(&self, key: &ObjectKey, range: Option<ByteRange>) -> Result<Option<ByteStream>, StoreError>;

    /// The whole object, for a decoder to read; `None` when it does not exist. A large object is not held
    /// in the heap: the default spools `read`'s stream to a mapped temporary file (`spool`); the local store
    /// maps the object's own file.
    async fn get(&self, key: &ObjectKey) -> Result<Option<Bytes>, StoreError> {
        let Some(stream) = self.read(key, None).await? else { return Ok(None) };
        Ok(Some(spool::spooled(stream).await?))
    }

    /// Stores a whole object, replacing any other under the same key.
    async fn put(&self, key: &ObjectKey, bytes: Bytes, content_type: &str) -> Result<(), StoreError>;

    /// Copies an object to another key (the destination is replaced). Fails if the source is missing.
    async fn copy(&self, from: &ObjectKey, to: &ObjectKey) -> Result<(), StoreError>;

    /// Deletes an object; deleting a missing object succeeds.
    async fn delete(&self, key: &ObjectKey) -> Result<(), StoreError>;

    /// Starts assembling object `key` from pieces (a resumable upload) that will total at most `largest`
    /// bytes. Nothing is at `key` until `finish_assembly`.
    async fn begin_assembly(&self, key: &ObjectKey, largest: u64) -> Result<Assembly, StoreError>;

    /// Adds `piece` after the `assembly.offset` bytes kept so far, which is all that counts of what came
    /// before (bytes of an earlier piece that were not recorded are overwritten). Everything in the
    /// returned assembly is durable when this returns; on an error the recorded `assembly` still holds.
    async fn append(&self, key: &ObjectKey, assembly: &Assembly, piece: Piece) -> Result<Appended, AppendError>;

    /// Makes the assembled bytes the object `key`. Finishing an assembly already finished succeeds.
    async fn finish_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<(), StoreError>;

    /// Removes everything an unfinished assembly holds; removing one already gone succeeds.
    async fn abort_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<(), StoreError>;

    /// The `assembly.offset` bytes an unfinished assembly holds, where the store can read them back (the
    /// local store, whose assembly is one file); `None` where it cannot, or when they are gone. Moving a
    /// deployment's resumable uploads to another store reads them.
    async fn read_assembly(&self, _key: &ObjectKey, _assembly: &Assembly) -> Result<Option<ByteStream>, StoreError> {
        Ok(None)
    }

    /// Succeeds when the store can serve requests (for `/readyz`).
    async fn check(&self) -> Result<(), StoreError>;

    /// The receiver of presigned uploads when this service itself is the upload target (the local store);
    /// `None` when clients upload straight to an external store.
    fn upload_receiver(&self) -> Option<&dyn UploadReceiver> {
        None
    }
}

/// Accepts the bytes of a presigned `PUT` addressed to this service.
#[async_trait]
pub trait UploadReceiver: Send + Sync {
    /// Checks the signed query for `key` (signature, expiry) without reading a body; returns the signed
    /// maximum size.
    fn verify(&self, key: &str, query: &PresignedQuery) -> Result<u64, UploadRejection>;

    /// Verifies the signed query for `key` and stores the body, refusing to read past the signed size.
    /// Returns the number of bytes stored.
    async fn receive(
        &self,
        key: &str,
        query: &PresignedQuery,
        content_length: Option<u64>,
        body: ByteStream,
    ) -> Result<u64, UploadRejection>;
}

/// Reads at most `limit` leading bytes of an object (for type sniffing).
pub async fn read_head(store: &dyn ObjectStore, key: &ObjectKey, limit: usize) -> Result<Option<Vec<u8>>, StoreError> {
    read_at(store, key, 0, limit).await
}

/// Reads at most `limit` bytes of an object from `start` (fewer at its end).
pub async fn read_at(
    store: &dyn ObjectStore,
    key: &ObjectKey,
    start: u64,
    limit: usize,
) -> Result<Option<Vec<u8>>, StoreError> {
    use futures_util::TryStreamExt;
    let range = ByteRange { start, len: Some(limit as u64) };
    let Some(mut stream) = store.read(key, Some(range)).await? else {
        return Ok(None);
    };
    let mut head = Vec::with_capacity(limit.min(64 * 1024));
    while let Some(chunk) = stream.try_next().await? {
        let room = limit - head.len();
        head.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if head.len() >= limit {
            break;
        }
    }
    Ok(Some(head))
}
