//! The embedded object store: one file per object under `<root>/objects/`, written to `<root>/tmp/` first,
//! flushed to disk and renamed into place, so a reader never sees half an object and a crash leaves no
//! partial one. Rendered variants (`ObjectKey::is_variant`) are renamed into place unflushed: they are a
//! cache the service renders again, and a flush per render costs renders at saturation (BENCHMARKS.md,
//! "Variants renamed into place unflushed"); the rename still hides a half-written one from readers while
//! the machine runs, and one cut short by a power loss is caught by its recorded size when read
//! (`Renderer::stored`).
//! It is also the target of its own presigned uploads (`UploadReceiver`).
//!
//! A resumable upload is assembled in a file of its own under `<root>/assembling/`, outside `objects/`:
//! each piece is written after the recorded offset (anything past it, from a piece that was never
//! recorded, is cut off first) and flushed before the piece is acknowledged; the finished file is renamed
//! into place as its object, so the rule below holds for it too.
//!
//! Because an object in place is never written again (a new version is renamed over it, a removal unlinks
//! it), `get` can map large objects instead of reading them: a mapping keeps the bytes it was made with
//! whatever happens to the path afterwards. (Only a process truncating files under `objects/` behind the
//! service's back could pull pages from under a mapping; the data directory is the service's alone.)

use std::{
    io::{self, SeekFrom},
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use rand::RngCore;
use tokio::{
    fs,
    io::{AsyncSeekExt, AsyncWriteExt},
};

use crate::{
    AppendError, Appended, Assembly, ByteRange, ByteStream, ObjectInfo, ObjectKey, ObjectStore, Piece, StoreError,
    UploadReceiver,
    assembly::PieceReader,
    presign::{PresignedQuery, UploadRejection, UrlSigner},
};

pub struct LocalStore {
    objects: PathBuf,
    tmp: PathBuf,
    /// Resumable uploads being assembled, one file each, named by object key.
    assembling: PathBuf,
    /// Where this service receives presigned uploads, e.g. `http://127.0.0.1:8080/storage`.
    upload_base: String,
    signer: UrlSigner,
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl LocalStore {
    /// Opens (creating if needed) a store under `root`. The signing secret lives in `root/signing.key`,
    /// made on first use, so upload URLs survive a restart.
    pub async fn open(root: &Path, upload_base: String) -> Result<Self, StoreError> {
        let objects = root.join("objects");
        let tmp = root.join("tmp");
        let assembling = root.join("assembling");
        fs::create_dir_all(&objects).await?;
        fs::create_dir_all(&assembling).await?;
        fs::create_dir_all(&tmp).await?;
        let secret = Self::signing_secret(&root.join("signing.key")).await?;
        Ok(Self {
            objects,
            tmp,
            assembling,
            upload_base: upload_base.trim_end_matches('/').to_owned(),
            signer: UrlSigner::new(secret),
        })
    }

    async fn signing_secret(path: &Path) -> io::Result<Vec<u8>> {
        match fs::read(path).await {
            Ok(secret) if secret.len() >= 32 => return Ok(secret),
            Ok(_) => return Err(io::Error::other(format!("{} is too short", path.display()))),
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            Err(_) => {}
        }
        let mut secret = vec![0u8; 32];
        rand::rng().fill_bytes(&mut secret);
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        match options.open(path).await {
            Ok(mut file) => {
                file.write_all(&secret).await?;
                file.sync_all().await?;
                Ok(secret)
            }
            // Another process created it first: use theirs.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => fs::read(path).await,
            Err(e) => Err(e),
        }
    }

    fn path_of(&self, key: &ObjectKey) -> PathBuf {
        self.objects.join(key.as_str())
    }

    fn assembling_path(&self, key: &ObjectKey) -> PathBuf {
        self.assembling.join(key.as_str())
    }

    fn temp_path(&self) -> PathBuf {
        let mut name = [0u8; 16];
        rand::rng().fill_bytes(&mut name);
        self.tmp.join(hex::encode(name))
    }

    /// Streams `body` into a temporary file, refusing to go past `limit` bytes, then moves it into place.
    async fn write_stream(&self, key: &ObjectKey, mut body: ByteStream, limit: u64) -> Result<u64, UploadRejection> {
        let temp = self.temp_path();
        let result = async {
            let mut file = fs::File::create(&temp).await?;
            let mut written = 0u64;
            while let Some(chunk) = body.try_next().await? {
                written += chunk.len() as u64;
                if written > limit {
                    return Err(UploadRejection::TooLarge { limit });
                }
                file.write_all(&chunk).await?;
            }
            file.sync_all().await?;
            drop(file);
            self.place(&temp, key).await?;
            Ok(written)
        }
        .await;
        if result.is_err() {
            let _ = fs::remove_file(&temp).await;
        }
        result
    }

    /// Moves the finished temporary file `temp` into place as `key` (one trip to the blocking pool).
    async fn place(&self, temp: &Path, key: &ObjectKey) -> io::Result<()> {
        let (temp, target) = (temp.to_owned(), self.path_of(key));
        tokio::task::spawn_blocking(move || place_file(&temp, &target)).await.map_err(io::Error::other)?
    }
}

#[async_trait]
impl ObjectStore for LocalStore {
    async fn presign_put(&self, key: &ObjectKey, max_size: u64, expires_in: Duration) -> Result<String, StoreError> {
        let expires = unix_now() + expires_in.as_secs();
        let query = self.signer.query(key.as_str(), expires, max_size);
        Ok(format!("{}/{key}?{query}", self.upload_base))
    }

    fn local_path(&self, key: &ObjectKey) -> Option<PathBuf> {
        Some(self.path_of(key))
    }

    async fn stat(&self, key: &ObjectKey) -> Result<Option<ObjectInfo>, StoreError> {
        match fs::metadata(self.path_of(key)).await {
            Ok(meta) if meta.is_file() => Ok(Some(ObjectInfo { size: meta.len() })),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    async fn get(&self, key: &ObjectKey) -> Result<Option<Bytes>, StoreError> {
        // One trip to the blocking pool instead of a stream of 64 KiB chunks, each a trip of its own.
        let path = self.path_of(key);
        match tokio::task::spawn_blocking(move || whole_object(&path)).await.map_err(io::Error::other)? {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Large objects are streamed from a mapping of the file, in slices the server writes to the socket as
    /// they are, so no byte passes through a buffer of ours: the copy from the page cache into the socket
    /// is the only one, as with sendfile (BENCHMARKS.md, "Raw downloads"). Small ones are read.
    async fn read(&self, key: &ObjectKey, range: Option<ByteRange>) -> Result<Option<ByteStream>, StoreError> {
        let path = self.path_of(key);
        let bytes = match tokio::task::spawn_blocking(move || streamed_object(&path)).await.map_err(io::Error::other)? {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let len = bytes.len() as u64;
        let (start, end) = match range {
            None => (0, len),
            Some(ByteRange { start, len: part }) => {
                let start = start.min(len);
                (start, part.map_or(len, |part| start.saturating_add(part).min(len)))
            }
        };
        // usize::try_from cannot fail for offsets within a mapping.
        let (start, end) = (usize::try_from(start).unwrap_or(0), usize::try_from(end).unwrap_or(0));
        let chunks =
            (start..end).step_by(STREAM_CHUNK).map(move |at| Ok(bytes.slice(at..(at + STREAM_CHUNK).min(end))));
        Ok(Some(futures_util::stream::iter(chunks).boxed()))
    }

    async fn put(&self, key: &ObjectKey, bytes: Bytes, _content_type: &str) -> Result<(), StoreError> {
        // One trip to the blocking pool for the whole write (create, write, flush, place), where tokio's
        // file calls take a trip each: a stored variant is one put per render.
        let (temp, target, flush) = (self.temp_path(), self.path_of(key), !key.is_variant());
        let written = tokio::task::spawn_blocking(move || {
            let written = write_whole(&temp, &target, &bytes, flush);
            if written.is_err() {
                let _ = std::fs::remove_file(&temp);
            }
            written
        });
        Ok(written.await.map_err(io::Error::other)??)
    }

    async fn copy(&self, from: &ObjectKey, to: &ObjectKey) -> Result<(), StoreError> {
        // Objects are never modified in place, so a hard link is a free and safe copy; fall back to a real
        // copy where links are not supported.
        let temp = self.temp_path();
        if fs::hard_link(self.path_of(from), &temp).await.is_err() {
            fs::copy(self.path_of(from), &temp).await?;
        }
        if let Err(e) = self.place(&temp, to).await {
            let _ = fs::remove_file(&temp).await;
            return Err(e.into());
        }
        Ok(())
    }

    async fn delete(&self, key: &ObjectKey) -> Result<(), StoreError> {
        let (path, objects) = (self.path_of(key), self.objects.clone());
        // One trip to the blocking pool for the unlink and the directories after it.
        tokio::task::spawn_blocking(move || remove_object(&path, &objects)).await.map_err(io::Error::other)??;
        Ok(())
    }

    async fn begin_assembly(&self, key: &ObjectKey, _largest: u64) -> Result<Assembly, StoreError> {
        let path = self.assembling_path(key);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).await?;
        }
        fs::File::create(&path).await?.sync_all().await?;
        Ok(Assembly::default())
    }

    async fn append(&self, key: &ObjectKey, assembly: &Assembly, piece: Piece) -> Result<Appended, AppendError> {
        let (mut reader, _total) = PieceReader::new(piece);
        let offset = assembly.offset;
        let file = fs::OpenOptions::new().write(true).open(self.assembling_path(key)).await?;
        // Bytes past the recorded offset belong to a piece that was never acknowledged.
        file.set_len(offset).await?;
        let mut file = tokio::io::BufWriter::with_capacity(1 << 20, file);
        file.seek(SeekFrom::Start(offset)).await?;
        let outcome = async {
            while let Some(chunk) = reader.next().await? {
                file.write_all(&chunk).await?;
            }
            let received = reader.finish()?;
            file.flush().await?;
            file.get_ref().sync_data().await?;
            Ok::<_, AppendError>(received)
        }
        .await;
        let file = file.into_inner();
        match outcome {
            Ok((received, cut_short)) => {
                Ok(Appended { assembly: Assembly { offset: offset + received, multipart: None }, cut_short })
            }
            Err(e) => {
                // Back to what is recorded; should this fail too, the next piece cuts the file there anyway.
                let _ = file.set_len(offset).await;
                Err(e)
            }
        }
    }

    async fn finish_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<(), StoreError> {
        let path = self.assembling_path(key);
        match fs::OpenOptions::new().write(true).open(&path).await {
            Ok(file) => {
                file.set_len(assembly.offset).await?;
                file.sync_all().await?;
            }
            // Finished before (the record was not updated after it): the object is in place.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return match self.stat(key).await? {
                    Some(info) if info.size == assembly.offset => Ok(()),
                    _ => Err(StoreError::Io(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("the assembly of {key} is gone"),
                    ))),
                };
            }
            Err(e) => return Err(e.into()),
        }
        self.place(&path, key).await?;
        Ok(())
    }

    async fn abort_assembly(&self, key: &ObjectKey, _assembly: &Assembly) -> Result<(), StoreError> {
        match fs::remove_file(self.assembling_path(key)).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    async fn read_assembly(&self, key: &ObjectKey, assembly: &Assembly) -> Result<Option<ByteStream>, StoreError> {
        let file = match fs::File::open(self.assembling_path(key)).await {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        // Bytes past the recorded offset (an unrecorded piece) are not the upload's.
        if file.metadata().await?.len() < assembly.offset {
            return Ok(None);
        }
        let reader = tokio::io::AsyncReadExt::take(file, assembly.offset);
        let chunks = futures_util::stream::try_unfold(reader, |mut reader| async move {
            let mut chunk = vec![0u8; STREAM_CHUNK];
            let n = tokio::io::AsyncReadExt::read(&mut reader, &mut chunk).await?;
            chunk.truncate(n);
            Ok((n > 0).then(|| (Bytes::from(chunk), reader)))
        });
        Ok(Some(chunks.boxed()))
    }

    async fn check(&self) -> Result<(), StoreError> {
        let probe = self.temp_path();
        fs::write(&probe, b"ok").await?;
        fs::remove_file(&probe).await?;
        Ok(())
    }

    fn upload_receiver(&self) -> Option<&dyn UploadReceiver> {
        Some(self)
    }
}

#[async_trait]
impl UploadReceiver for LocalStore {
    fn verify(&self, key: &str, query: &PresignedQuery) -> Result<u64, UploadRejection> {
        Ok(self.signer.verify(key, query, unix_now())?.max_size)
    }

    async fn receive(
        &self,
        key: &str,
        query: &PresignedQuery,
        content_length: Option<u64>,
        body: ByteStream,
    ) -> Result<u64, UploadRejection> {
        let grant = self.signer.verify(key, query, unix_now())?;
        let key = ObjectKey::parse(key).map_err(|_| UploadRejection::Malformed("object key"))?;
        // Refuse up front when the client announces too many bytes; otherwise count as they arrive.
        if content_length.is_some_and(|len| len > grant.max_size) {
            return Err(UploadRejection::TooLarge { limit: grant.max_size });
        }
        self.write_stream(&key, body, grant.max_size).await
    }
}

/// Writes `bytes` to `temp`, flushes it to disk when `flush`, and renames it to `target` (creating its
/// directory).
fn write_whole(temp: &Path, target: &Path, bytes: &[u8], flush: bool) -> io::Result<()> {
    let mut file = std::fs::File::create(temp)?;
    io::Write::write_all(&mut file, bytes)?;
    if flush {
        file.sync_all()?;
    }
    drop(file);
    place_file(temp, target)
}

/// Renames the finished `temp` to `target`, creating `target`'s directory first.
fn place_file(temp: &Path, target: &Path) -> io::Result<()> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::rename(temp, target)
}

/// Unlinks the object at `path` (gone already is fine), then its now-empty per-object directories
/// (`files/<id>/v/`, `files/<id>/`): the first non-empty one stops the walk (removing a non-empty directory
/// fails, which is the point). The top-level directories under `objects` (`files/`, `pending/`) stay, so a
/// concurrent put never finds its parent gone.
fn remove_object(path: &Path, objects: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    }
    let mut dir = path.parent();
    while let Some(parent) = dir
        && parent.parent().is_some_and(|grandparent| grandparent.starts_with(objects))
        && parent.parent() != Some(objects)
    {
        if std::fs::remove_dir(parent).is_err() {
            break;
        }
        dir = parent.parent();
    }
    Ok(())
}

/// Objects of this size and more are mapped rather than copied into the heap by `get`: a render's source
/// (2.5 MB for a 12 MP JPEG) is then decoded straight from the page cache. Reading it took 0.57–0.76 ms of
/// that JPEG's cold render, a third of what serving adds to the render; mapped, serving added ~0.4 ms less
/// (BENCHMARKS.md, "Serving a cold render"). Smaller objects (stored variants, mostly) are read: for them a
/// mapping's set-up and tear-down cost more than the copy.
const MAP_AT_LEAST: u64 = 1 << 20;

/// The slices a streamed object is written in: large enough that the server writes few of them, each one
/// vectored write of pages straight from the mapping.
const STREAM_CHUNK: usize = 4 << 20;

/// An object's bytes for streaming: mapped without reading it all first (the kernel reads ahead, told the
/// mapping is read in order), or read when small.
fn streamed_object(path: &Path) -> io::Result<Bytes> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len >= MAP_AT_LEAST {
        // SAFETY: the file is an object in place, never written or truncated again (module documentation).
        let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
        let _ = map.advise(memmap2::Advice::Sequential);
        return Ok(Bytes::from_owner(map));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(Bytes::from(bytes))
}

/// The largest mapping populated when it is made: past it only the pages a decoder touches are read, so an
/// original of a few pixels padded with a gigabyte costs its few pixels' pages.
const POPULATE_AT_MOST: u64 = 64 << 20;

/// An object's bytes, mapped or read (`MAP_AT_LEAST`). A mapping up to `POPULATE_AT_MOST` is populated
/// here, on the blocking pool, so a decoder never stalls a render thread on the disk.
fn whole_object(path: &Path) -> io::Result<Bytes> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len >= MAP_AT_LEAST {
        let mut options = memmap2::MmapOptions::new();
        if len <= POPULATE_AT_MOST {
            options.populate();
        }
        // SAFETY: the file is an object in place, never written or truncated again (module documentation).
        let map = unsafe { options.map(&file)? };
        return Ok(Bytes::from_owner(map));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(Bytes::from(bytes))
}

#[cfg(test)]
mod tests {
    use shutterbox_model::{FileId, PendingId};

    use super::*;

    async fn store() -> (tempfile::TempDir, LocalStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap();
        (dir, store)
    }

    fn body(parts: &[&'static [u8]]) -> ByteStream {
        let parts: Vec<io::Result<Bytes>> = parts.iter().map(|p| Ok(Bytes::from_static(p))).collect();
        futures_util::stream::iter(parts).boxed()
    }

    async fn collect(stream: ByteStream) -> Vec<u8> {
        stream.map_ok(|chunk| chunk.to_vec()).try_concat().await.unwrap()
    }

    #[tokio::test]
    async fn presigned_upload_round_trip() {
        let (_dir, store) = store().await;
        let key = ObjectKey::pending(&PendingId::new("abc"));
        let url = store.presign_put(&key, 5, Duration::from_secs(60)).await.unwrap();
        let (path, query) = url.split_once('?').unwrap();
        assert_eq!(path, "http://x/storage/pending/abc");
        let query = PresignedQuery::parse(query);
        let n = store.receive("pending/abc", &query, None, body(&[b"he", b"llo"])).await.unwrap();
        assert_eq!(n, 5);
        assert_eq!(store.stat(&key).await.unwrap(), Some(ObjectInfo { size: 5 }));
        let part = store.read(&key, Some(ByteRange { start: 1, len: Some(3) })).await.unwrap().unwrap();
        assert_eq!(collect(part).await, b"ell");
        assert_eq!(store.get(&key).await.unwrap().as_deref(), Some(&b"hello"[..]));
        assert_eq!(store.get(&ObjectKey::pending(&PendingId::new("none"))).await.unwrap(), None);
    }

    #[tokio::test]
    async fn oversize_uploads_leave_nothing_behind() {
        let (dir, store) = store().await;
        let key = ObjectKey::pending(&PendingId::new("big"));
        let url = store.presign_put(&key, 4, Duration::from_secs(60)).await.unwrap();
        let query = PresignedQuery::parse(url.split_once('?').unwrap().1);
        let err = store.receive("pending/big", &query, None, body(&[b"he", b"llo"])).await;
        assert!(matches!(err, Err(UploadRejection::TooLarge { limit: 4 })));
        let err = store.receive("pending/big", &query, Some(9), body(&[b"x"])).await;
        assert!(matches!(err, Err(UploadRejection::TooLarge { limit: 4 })));
        assert_eq!(store.stat(&key).await.unwrap(), None);
        assert_eq!(std::fs::read_dir(dir.path().join("tmp")).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn copy_and_delete() {
        let (_dir, store) = store().await;
        let from = ObjectKey::pending(&PendingId::new("a"));
        let to = ObjectKey::original(&FileId::new("a"));
        store.put(&from, Bytes::from_static(b"data"), "text/plain").await.unwrap();
        store.copy(&from, &to).await.unwrap();
        store.delete(&from).await.unwrap();
        assert_eq!(store.stat(&from).await.unwrap(), None);
        assert!(store.copy(&from, &to).await.is_err());
        assert_eq!(collect(store.read(&to, None).await.unwrap().unwrap()).await, b"data");
        store.delete(&to).await.unwrap();
        store.delete(&to).await.unwrap();
        assert!(store.read(&to, None).await.unwrap().is_none());
        store.check().await.unwrap();
    }

    #[tokio::test]
    async fn small_and_mapped_objects_read_whole() {
        let (_dir, store) = store().await;
        for (name, len) in [("small", 10), ("edge", MAP_AT_LEAST as usize - 1), ("mapped", MAP_AT_LEAST as usize)] {
            let key = ObjectKey::original(&FileId::new(name));
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            store.put(&key, Bytes::from(data.clone()), "application/octet-stream").await.unwrap();
            assert!(store.get(&key).await.unwrap().unwrap() == data, "{name}");
        }
        assert_eq!(store.get(&ObjectKey::original(&FileId::new("missing"))).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_mapped_object_keeps_its_bytes_when_the_object_is_replaced_or_removed() {
        let (_dir, store) = store().await;
        let key = ObjectKey::original(&FileId::new("big"));
        let first = vec![1u8; MAP_AT_LEAST as usize * 2];
        store.put(&key, Bytes::from(first.clone()), "application/octet-stream").await.unwrap();
        let held = store.get(&key).await.unwrap().unwrap();
        // Replaced by a shorter object (a truncation in place would cut the mapping short), then removed.
        store.put(&key, Bytes::from_static(b"short"), "application/octet-stream").await.unwrap();
        assert_eq!(store.get(&key).await.unwrap().unwrap(), Bytes::from_static(b"short"));
        store.delete(&key).await.unwrap();
        assert!(held == first);
    }

    #[tokio::test]
    async fn the_signing_secret_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let a = LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap();
        let url = a.presign_put(&ObjectKey::pending(&PendingId::new("k")), 1, Duration::from_secs(60)).await.unwrap();
        let b = LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap();
        let query = PresignedQuery::parse(url.split_once('?').unwrap().1);
        assert!(b.receive("pending/k", &query, None, body(&[b"x"])).await.is_ok());
    }
}
