//! The distributed object store: one bucket on an S3-compatible server (MinIO, AWS S3, s3s-fs in tests),
//! spoken to through the `minio` crate. Objects are stored under their `ObjectKey` text
//! (`pending/<uuid>`, `files/<uuid>/original`, `files/<uuid>/v/<digest>`); clients upload straight to the
//! server with SigV4 presigned `PUT` URLs, so this service never sees upload bytes.
//!
//! Every server-side failure other than "no such object" becomes `StoreError::Unavailable` with the
//! server's error code, which is what the API logs for a 5xx. Objects are never listed: they are found by
//! key through the metadata database (and the crate's recursive listing misbehaves against s3s-fs).

use std::{error::Error as _, fmt, io, time::Duration};

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http::Method;
use minio::s3::{
    MinioClient, MinioClientBuilder,
    builders::ComposeSource,
    creds::StaticProvider,
    error::{Error as S3Error, S3ServerError},
    http::BaseUrl,
    minio_error_response::MinioErrorCode,
    multimap_ext::{Multimap, MultimapExt},
    response_traits::HasEtagFromHeaders,
    segmented_bytes::SegmentedBytes,
    types::{BucketName, ETag, PartInfo, Region, S3Api},
};
use shutterbox_model::{MediaFormat, Multipart, Part, Tail, TailSlot};

use crate::{
    AppendError, Appended, Assembly, ByteRange, ByteStream, ObjectInfo, ObjectKey, ObjectStore, Piece, StoreError,
    assembly::PieceReader,
};

/// Without a bound, an endpoint that drops packets would hold `connect` for the OS's TCP timeout (minutes).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// `/readyz` must answer promptly even when the store does not.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest validity SigV4 allows for a presigned URL.
const MAX_PRESIGN_SECONDS: u64 = 7 * 24 * 60 * 60;

/// Where the bucket lives and how to sign for it.
#[derive(Clone)]
pub struct S3Config {
    /// Base URL the service reaches the server at: `http(s)://host[:port]`, nothing after it.
    pub endpoint: String,
    pub bucket: String,
    pub access_key: String,
    pub secret_key: String,
    /// The signing region; empty means [`S3Config::DEFAULT_REGION`].
    pub region: String,
    /// Base URL clients reach the server at, when it differs from `endpoint` (docker-compose: the service
    /// talks to `http://minio:9000`, browsers to `http://localhost:9000`). Presigned URLs name this host,
    /// and the host is part of what is signed.
    pub presign_endpoint: Option<String>,
}

impl S3Config {
    pub const DEFAULT_REGION: &'static str = "us-east-1";

    /// A configuration in the default region whose presigned URLs use `endpoint` too.
    pub fn new(endpoint: String, bucket: String, access_key: String, secret_key: String) -> Self {
        Self {
            endpoint,
            bucket,
            access_key,
            secret_key,
            region: Self::DEFAULT_REGION.to_owned(),
            presign_endpoint: None,
        }
    }

    fn region(&self) -> &str {
        if self.region.is_empty() { Self::DEFAULT_REGION } else { &self.region }
    }
}

// By hand, so the secret never reaches a log line.
impl fmt::Debug for S3Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Config")
            .field("endpoint", &self.endpoint)
            .field("bucket", &self.bucket)
            .field("access_key", &self.access_key)
            .field("secret_key", &"<redacted>")
            .field("region", &self.region)
            .field("presign_endpoint", &self.presign_endpoint)
            .finish()
    }
}

pub struct S3Store {
    client: MinioClient,
    /// Signs upload URLs for the host clients see; it never sends a request (the region is known).
    presigner: MinioClient,
    bucket: BucketName,
    /// For error messages.
    endpoint: String,
}

impl S3Store {
    /// Connects to the server and makes sure the bucket exists, creating it when it is missing. An
    /// unreachable server, refused credentials or a malformed endpoint is `StoreError::Unavailable` with
    /// one line naming the endpoint and the bucket.
    pub async fn connect(config: S3Config) -> Result<Self, StoreError> {
        let client = build_client(&config, &config.endpoint)?;
        let presigner = match &config.presign_endpoint {
            Some(endpoint) => build_client(&config, endpoint)?,
            None => client.clone(),
        };
        let bucket = BucketName::new(config.bucket.as_str()).map_err(|e| {
            StoreError::Unavailable(format!("invalid S3 bucket name {:?}: {}", config.bucket, chain(&e)))
        })?;
        let store = Self { client, presigner, bucket, endpoint: config.endpoint };
        match tokio::time::timeout(CONNECT_TIMEOUT, store.ensure_bucket()).await {
            Ok(Ok(())) => Ok(store),
            Ok(Err(e)) => Err(store.unavailable(&e)),
            Err(_) => Err(StoreError::Unavailable(format!(
                "S3 bucket `{}` at {}: no answer within {} s",
                store.bucket.as_str(),
                store.endpoint,
                CONNECT_TIMEOUT.as_secs()
            ))),
        }
    }

    async fn ensure_bucket(&self) -> Result<(), S3Error> {
        if self.client.bucket_exists(&self.bucket)?.build().send().await?.exists() {
            return Ok(());
        }
        match self.client.create_bucket(&self.bucket)?.build().send().await {
            Ok(_) => {
                tracing::info!(bucket = self.bucket.as_str(), endpoint = %self.endpoint, "created the S3 bucket");
                Ok(())
            }
            // Another node may have created it between the two calls; that is as good.
            Err(e) => match self.client.bucket_exists(&self.bucket)?.build().send().await {
                Ok(resp) if resp.exists() => Ok(()),
                _ => Err(e),
            },
        }
    }

    fn unavailable(&self, e: &S3Error) -> StoreError {
        StoreError::Unavailable(format!("S3 bucket `{}` at {}: {}", self.bucket.as_str(), self.endpoint, describe(e)))
    }
}

impl S3Store {
    fn multipart_of<'a>(&self, key: &ObjectKey, assembly: &'a Assembly) -> Result<&'a Multipart, StoreError> {
        assembly.multipart.as_ref().ok_or_else(|| {
            StoreError::Unavailable(format!(
                "the assembly of {key} was not begun by this S3 store (no multipart upload)"
            ))
        })
    }

    async fn upload_part(
        &self,
        key: &ObjectKey,
        upload_id: &str,
        number: u16,
        bytes: Bytes,
    ) -> Result<Part, StoreError> {
        let size = bytes.len() as u64;
        let upload = async {
            self.client
                .upload_part(&self.bucket, key.as_str(), upload_id, number, SegmentedBytes::from(bytes))?
                .build()
                .send()
                .await
        };
        let uploaded = upload.await.map_err(|e| self.unavailable(&e))?;
        let etag = uploaded.etag().map_err(|e| self.unavailable(&e.into()))?;
        Ok(Part { number, etag: etag.into_inner(), size })
    }

    /// The recorded tail's bytes, which must be its recorded size.
    async fn tail_bytes(&self, key: &ObjectKey, tail: Tail) -> Result<Bytes, StoreError> {
        let tail_key = tail_key(key, tail.slot)?;
        match self.get(&tail_key).await? {
            Some(bytes) if bytes.len() as u64 == tail.size => Ok(bytes),
            found => Err(StoreError::Unavailable(format!(
                "{tail_key} holds {:?} bytes, {} were recorded",
                found.map(|b| b.len()),
                tail.size
            ))),
        }
    }

    /// Removes both tail slots; one left behind is harmless (a fresh upload id never reads it).
    async fn delete_tails(&self, key: &ObjectKey) {
        for slot in TailSlot::BOTH {
            if let Ok(tail) = tail_key(key, slot)
                && let Err(e) = self.delete(&tail).await
            {
                tracing::warn!(error = %e, key = %tail, "could not remove a resumable upload's tail object");
            }
        }
    }
}

/// The tail object of the assembly at `key` (a pending upload's key) in `slot`: a sibling of the key, not
/// under it, since MinIO and file-backed servers keep no object beneath another (`a` and `a/b`).
fn tail_key(key: &ObjectKey, slot: TailSlot) -> Result<ObjectKey, StoreError> {
    ObjectKey::parse(&format!("{key}-{}", slot.name()))
        .map_err(|_| StoreError::Unavailable(format!("no tail object can be named after {key}")))
}

/// The number of the part after the recorded ones and `new` ones.
fn next_part_number(multipart: &Multipart, new: &[Part]) -> Result<u16, StoreError> {
    u16::try_from(multipart.parts.len() + new.len() + 1)
        .ok()
        .filter(|n| u64::from(*n) <= Multipart::MAX_PARTS)
        .ok_or_else(|| StoreError::Unavailable("a multipart upload would pass 10,000 parts".into()))
}

/// A client for `endpoint` signing with the configured credentials and region.
fn build_client(config: &S3Config, endpoint: &str) -> Result<MinioClient, StoreError> {
    let invalid = |why: String| StoreError::Unavailable(format!("invalid S3 endpoint {endpoint:?}: {why}"));
    // `BaseUrl` takes a bare host as HTTPS; demand the scheme so a typo does not silently change protocol.
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return Err(invalid("expected http(s)://host[:port]".into()));
    }
    let mut base_url: BaseUrl = endpoint.parse().map_err(|e| invalid(chain(&e)))?;
    let region = config.region();
    // `skip_region_lookup` signs every request for us-east-1 whatever region is asked for; a region on the
    // base URL is used as is, also without a GetBucketLocation round trip. So: skip for the default region,
    // name any other.
    base_url.region = Region::new(region).map_err(|e| invalid(chain(&e)))?;
    MinioClientBuilder::new(base_url)
        .provider(Some(StaticProvider::new(&config.access_key, &config.secret_key, None)))
        .skip_region_lookup(region == S3Config::DEFAULT_REGION)
        .build()
        .map_err(|e| invalid(describe(&e)))
}

/// One line for an error from the crate. Its top-level messages are generic ("Validation error occurred",
/// and a connection failure is one of those), the cause is further down the chain; a server error is
/// shown by its S3 code and message rather than the crate's multi-line rendering.
fn describe(e: &S3Error) -> String {
    match e {
        S3Error::S3Server(S3ServerError::S3Error(resp)) => match resp.message() {
            Some(message) => format!("{}: {message}", resp.code()),
            None => resp.code().to_string(),
        },
        S3Error::S3Server(other) => other.to_string(),
        _ => match e.source() {
            Some(source) => chain(source),
            None => e.to_string(),
        },
    }
}

/// An error and its causes, `: `-separated, skipping a cause its parent already quotes.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

fn code(e: &S3Error) -> Option<MinioErrorCode> {
    match e {
        S3Error::S3Server(S3ServerError::S3Error(resp)) => Some(resp.code()),
        _ => None,
    }
}

/// NoSuchKey comes from an XML error body (GET) or, for HEAD, which has no body, from the crate mapping a
/// bare 404 on an object request to NoSuchKey. So a vanished bucket also reads as missing objects (s3s-fs
/// even says NoSuchKey for it on GET); `check` is what notices it.
fn is_missing(e: &S3Error) -> bool {
    matches!(code(e), Some(MinioErrorCode::NoSuchKey))
}

fn empty_stream() -> ByteStream {
    futures_util::stream::empty().boxed()
}

#[async_trait]
impl ObjectStore for S3Store {
    /// A SigV4 query-signed `PUT` URL. The crate signs only the `host` header, so the server enforces
    /// neither `max_size` nor a content type here: the API checks the stored object's size and sniffs its
    /// bytes at confirm, and discards one that does not match.
    async fn presign_put(&self, key: &ObjectKey, _max_size: u64, expires_in: Duration) -> Result<String, StoreError> {
        let seconds = expires_in.as_secs().clamp(1, MAX_PRESIGN_SECONDS) as u32;
        let presigned = async {
            self.presigner
                .get_presigned_object_url(&self.bucket, key.as_str(), Method::PUT)?
                .expiry_seconds(seconds)
                .build()
                .send()
                .await
        };
        Ok(presigned.await.map_err(|e| self.unavailable(&e))?.url)
    }

    /// A SigV4 query-signed `GET` URL, with the type and disposition S3 is to answer with (the ones this
    /// service would send: the sniffed type, not whatever the uploader's PUT declared).
    async fn presign_get(
        &self,
        key: &ObjectKey,
        expires_in: Duration,
        content_type: &str,
        attachment: bool,
    ) -> Result<Option<String>, StoreError> {
        let seconds = expires_in.as_secs().clamp(1, MAX_PRESIGN_SECONDS) as u32;
        let mut query = Multimap::new();
        query.add("response-content-type", content_type);
        if attachment {
            query.add("response-content-disposition", "attachment");
        }
        let presigned = async {
            self.presigner
                .get_presigned_object_url(&self.bucket, key.as_str(), Method::GET)?
                .extra_query_params(query)
                .expiry_seconds(seconds)
                .build()
                .send()
                .await
        };
        Ok(Some(presigned.await.map_err(|e| self.unavailable(&e))?.url))
    }

    async fn stat(&self, key: &ObjectKey) -> Result<Option<ObjectInfo>, StoreError> {
        let stat = async { self.client.stat_object(&self.bucket, key.as_str())?.build().send().await };
        match stat.await {
            Ok(resp) => {
                let size = resp.size().map_err(|e| self.unavailable(&e.into()))?;
                Ok(Some(ObjectInfo { size }))
            }
            Err(e) if is_missing(&e) => Ok(None),
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    async fn read(&self, key: &ObjectKey, range: Option<ByteRange>) -> Result<Option<ByteStream>, StoreError> {
        let (offset, length) = match range {
            None | Some(ByteRange { start: 0, len: None }) => (None, None),
            Some(ByteRange { start, len: None }) => (Some(start), None),
            // The crate writes `bytes=<start>-<start + len - 1>`, which underflows for 0: an empty read needs
            // no request beyond knowing the object exists.
            Some(ByteRange { start: _, len: Some(0) }) => return Ok(self.stat(key).await?.map(|_| empty_stream())),
            // A range reaching past u64::MAX means "to the end" (and would overflow the crate's arithmetic).
            Some(ByteRange { start, len: Some(len) }) => match start.checked_add(len) {
                Some(_) => (Some(start), Some(len)),
                None => (Some(start), None),
            },
        };
        let get = async {
            self.client.get_object(&self.bucket, key.as_str())?.offset(offset).length(length).build().send().await
        };
        match get.await {
            // The body is streamed as it arrives. `into_boxed_stream` skips the crate's checksum verification,
            // which would compare a part of the object against the whole object's checksum.
            Ok(resp) => Ok(Some(resp.into_boxed_stream().map_err(|e| self.unavailable(&e))?.0)),
            Err(e) if is_missing(&e) => Ok(None),
            // A start at or past the end (416): nothing to read, as for the local store.
            Err(e) if matches!(code(&e), Some(MinioErrorCode::OtherError(c)) if c.eq_ignore_ascii_case("InvalidRange")) => {
                Ok(Some(empty_stream()))
            }
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    async fn put(&self, key: &ObjectKey, bytes: Bytes, content_type: &str) -> Result<(), StoreError> {
        // `put_object_content`, not `put_object`: only it can set the Content-Type stored with the object.
        let put = async {
            self.client
                .put_object_content(&self.bucket, key.as_str(), bytes)?
                .content_type(content_type.to_owned())
                .build()
                .send()
                .await
        };
        put.await.map(drop).map_err(|e| self.unavailable(&e))
    }

    async fn copy(&self, from: &ObjectKey, to: &ObjectKey) -> Result<(), StoreError> {
        // Server-side copy through `compose_object` rather than `copy_object` directly: for a source over
        // 5 GiB, 0.4's `copy_object` composes onto the *source* key. `compose_object` issues a plain
        // CopyObject (keeping the Content-Type) below that size and a multipart copy above it.
        let copy = async {
            let source = ComposeSource::new(&self.bucket, from.as_str())?;
            self.client.compose_object(&self.bucket, to.as_str(), vec![source])?.build().send().await
        };
        match copy.await {
            Ok(_) => Ok(()),
            Err(e) if is_missing(&e) => Err(StoreError::Io(io::Error::new(
                io::ErrorKind::NotFound,
                format!("cannot copy {from} to {to}: {from} does not exist"),
            ))),
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    async fn delete(&self, key: &ObjectKey) -> Result<(), StoreError> {
        let delete = async { self.client.delete_object(&self.bucket, key.as_str())?.build().send().await };
        match delete.await {
            Ok(_) => Ok(()),
            // S3 answers 204 for a missing key anyway; accept a server that says NoSuchKey.
            Err(e) if is_missing(&e) => Ok(()),
            Err(e) => Err(self.unavailable(&e)),
        }
    }

    async fn begin_assembly(&self, key: &ObjectKey, largest: u64) -> Result<Assembly, StoreError> {
        let create = async { self.client.create_multipart_upload(&self.bucket, key.as_str())?.build().send().await };
        let created = create.await.map_err(|e| self.unavailable(&e))?;
        let upload_id = created.upload_id().await.map_err(|e| self.unavailable(&e.into()))?;
        Ok(Assembly {
            offset: 0,
            multipart: Some(Multipart {
                upload_id: upload_id.as_str().to_owned(),
                part_size: Multipart::part_size_for(largest),
                parts: Vec::new(),
                tail: None,
            }),
        })
    }

    /// The recorded tail and the piece are cut into whole parts, uploaded as they fill (numbered after the
    /// recorded ones: a part uploaded but never recorded is replaced by the next piece's); what is left is
    /// the last part when the piece ends the object, else the new tail, written to the free slot.
    async fn append(&self, key: &ObjectKey, assembly: &Assembly, piece: Piece) -> Result<Appended, AppendError> {
        let (mut reader, total) = PieceReader::new(piece);
        let mut multipart = self.multipart_of(key, assembly)?.clone();
        let mut pending = BytesMut::new();
        if let Some(tail) = multipart.tail {
            let bytes = self.tail_bytes(key, tail).await?;
            pending.extend_from_slice(&bytes);
        }
        let part_size = usize::try_from(multipart.part_size).unwrap_or(usize::MAX);
        let mut new_parts = Vec::new();
        while let Some(chunk) = reader.next().await? {
            pending.extend_from_slice(&chunk);
            while pending.len() >= part_size {
                let part = pending.split_to(part_size).freeze();
                let number = next_part_number(&multipart, &new_parts)?;
                new_parts.push(self.upload_part(key, &multipart.upload_id, number, part).await?);
            }
        }
        let (received, cut_short) = reader.finish()?;
        let offset = assembly.offset + received;
        let rest = pending.freeze();
        let tail = if rest.is_empty() {
            None
        } else if total == Some(offset) {
            let number = next_part_number(&multipart, &new_parts)?;
            new_parts.push(self.upload_part(key, &multipart.upload_id, number, rest).await?);
            None
        } else {
            let slot = multipart.free_slot();
            let size = rest.len() as u64;
            self.put(&tail_key(key, slot)?, rest, MediaFormat::Binary.mime()).await?;
            Some(Tail { slot, size })
        };
        multipart.parts.extend(new_parts);
        multipart.tail = tail;
        Ok(Appended { assembly: Assembly { offset, multipart: Some(multipart) }, cut_short })
    }

    async fn finish_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<(), StoreError> {
        let mut multipart = self.multipart_of(key, assembly)?.clone();
        if let Some(tail) = multipart.tail.take() {
            let bytes = self.tail_bytes(key, tail).await?;
            let number = next_part_number(&multipart, &[])?;
            multipart.parts.push(self.upload_part(key, &multipart.upload_id, number, bytes).await?);
        }
        let completed = if multipart.parts.is_empty() {
            // S3 completes no upload without parts: an empty object is put instead.
            self.abort_assembly(key, assembly).await?;
            self.put(key, Bytes::new(), MediaFormat::Binary.mime()).await
        } else {
            let parts = multipart
                .parts
                .iter()
                .map(|part| Ok(PartInfo::new(part.number, ETag::new(part.etag.as_str())?, part.size, None)))
                .collect::<Result<Vec<_>, minio::s3::error::ValidationErr>>()
                .map_err(|e| self.unavailable(&e.into()))?;
            let complete = async {
                self.client
                    .complete_multipart_upload(&self.bucket, key.as_str(), multipart.upload_id.as_str(), parts)?
                    .build()
                    .send()
                    .await
            };
            match complete.await {
                Ok(_) => Ok(()),
                // Completed before, and the record not updated after: the object is in place.
                Err(e) if matches!(self.stat(key).await, Ok(Some(info)) if info.size == assembly.offset) => {
                    tracing::debug!(error = %describe(&e), %key, "a multipart upload was completed before");
                    Ok(())
                }
                Err(e) => Err(self.unavailable(&e)),
            }
        };
        completed?;
        self.delete_tails(key).await;
        Ok(())
    }

    async fn abort_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<(), StoreError> {
        let multipart = self.multipart_of(key, assembly)?;
        let abort = async {
            self.client
                .abort_multipart_upload(&self.bucket, key.as_str(), multipart.upload_id.as_str())?
                .build()
                .send()
                .await
        };
        match abort.await {
            Ok(_) => {}
            // Gone already (aborted or completed). S3 says NoSuchUpload; s3s-fs says AccessDenied for an upload
            // id it no longer knows. A key that really lost its rights fails every other request too.
            Err(e)
                if matches!(code(&e), Some(MinioErrorCode::AccessDenied))
                    || matches!(code(&e), Some(MinioErrorCode::OtherError(c)) if c == "NoSuchUpload") => {}
            Err(e) => return Err(self.unavailable(&e)),
        }
        self.delete_tails(key).await;
        Ok(())
    }

    async fn check(&self) -> Result<(), StoreError> {
        let exists = async { self.client.bucket_exists(&self.bucket)?.build().send().await };
        match tokio::time::timeout(CHECK_TIMEOUT, exists).await {
            Ok(Ok(resp)) if resp.exists() => Ok(()),
            Ok(Ok(_)) => Err(StoreError::Unavailable(format!(
                "S3 bucket `{}` at {} does not exist",
                self.bucket.as_str(),
                self.endpoint
            ))),
            Ok(Err(e)) => Err(self.unavailable(&e)),
            Err(_) => Err(StoreError::Unavailable(format!(
                "S3 bucket `{}` at {}: no answer within {} s",
                self.bucket.as_str(),
                self.endpoint,
                CHECK_TIMEOUT.as_secs()
            ))),
        }
    }
}
