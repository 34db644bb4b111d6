//! Objects assembled from pieces (resumable uploads), the same contract for both stores: `LocalStore` in a
//! temporary directory and `S3Store` against the S3 server of `SHUTTERBOX_TEST_S3_ENDPOINT` (parts of
//! 5 MiB and a tail object; see tests/s3.rs for starting one). Without that variable the S3 half fails.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io;

use bytes::Bytes;
use futures_util::StreamExt;
use sha2::Digest;
use shutterbox_model::PendingId;
use shutterbox_storage::{
    AppendError, Assembly, ByteStream, Checksum, ChecksumAlgorithm, LocalStore, ObjectKey, ObjectStore, Piece,
    S3Config, S3Store,
};

const MIB: usize = 1 << 20;

fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
}

/// `bytes` in chunks of 256 KiB, then `error` if given (a client that went away).
fn body(bytes: &[u8], error: bool) -> ByteStream {
    let mut chunks: Vec<io::Result<Bytes>> = bytes.chunks(256 << 10).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    if error {
        chunks.push(Err(io::Error::new(io::ErrorKind::ConnectionReset, "the client went away")));
    }
    futures_util::stream::iter(chunks).boxed()
}

fn sha256(bytes: &[u8]) -> Checksum {
    Checksum { algorithm: ChecksumAlgorithm::Sha256, digest: sha2::Sha256::digest(bytes).to_vec() }
}

async fn append(
    store: &dyn ObjectStore,
    key: &ObjectKey,
    at: &Assembly,
    bytes: &[u8],
    total: usize,
    checksum: Option<Checksum>,
    error: bool,
) -> Result<Assembly, AppendError> {
    let piece = Piece {
        body: body(bytes, error),
        limit: (total as u64).saturating_sub(at.offset),
        total: Some(total as u64),
        checksum,
    };
    Ok(store.append(key, at, piece).await?.assembly)
}

/// The whole contract, on one store.
async fn assembles(store: &dyn ObjectStore) {
    let total = 12 * MIB + 3;
    let data = content(total);
    let key = ObjectKey::pending(&PendingId::mint());
    let begun = store.begin_assembly(&key, total as u64).await.unwrap();
    assert_eq!(begun.offset, 0);

    // Whole pieces, one checked by its digest.
    let a = append(store, &key, &begun, &data[..3 * MIB], total, Some(sha256(&data[..3 * MIB])), false).await.unwrap();
    assert_eq!(a.offset, 3 * MIB as u64);
    // A piece that is not recorded is replaced by the next piece from the recorded state.
    let _unrecorded = append(store, &key, &a, &content(4 * MIB), total, None, false).await.unwrap();
    let b = append(store, &key, &a, &data[3 * MIB..7 * MIB], total, None, false).await.unwrap();
    assert_eq!(b.offset, 7 * MIB as u64);
    // A checksum that does not match, a body that breaks off under a checksum, a body past the length:
    // refused, and the recorded state still holds.
    let wrong = append(store, &key, &b, &data[7 * MIB..8 * MIB], total, Some(sha256(b"other")), false).await;
    assert!(matches!(wrong, Err(AppendError::ChecksumMismatch)), "{wrong:?}");
    let broken = append(store, &key, &b, &data[7 * MIB..8 * MIB], total, Some(sha256(&data[7 * MIB..8 * MIB])), true);
    assert!(matches!(broken.await, Err(AppendError::Interrupted(_))));
    let too_large = append(store, &key, &b, &content(total), total, None, false).await;
    assert!(matches!(too_large, Err(AppendError::TooLarge { .. })), "{too_large:?}");
    // A body that breaks off without a checksum keeps what arrived.
    let piece = Piece { body: body(&data[7 * MIB..9 * MIB], true), limit: u64::MAX, total: None, checksum: None };
    let cut = store.append(&key, &b, piece).await.unwrap();
    assert!(cut.cut_short.is_some());
    let c = cut.assembly;
    assert_eq!(c.offset, 9 * MIB as u64);
    assert_eq!(store.stat(&key).await.unwrap(), None, "nothing is at the key before the end");
    // The last piece, then the object.
    let d = append(store, &key, &c, &data[9 * MIB..], total, None, false).await.unwrap();
    assert_eq!(d.offset, total as u64);
    store.finish_assembly(&key, &d).await.unwrap();
    store.finish_assembly(&key, &d).await.unwrap();
    let stored = store.get(&key).await.unwrap().unwrap();
    assert_eq!(stored.len(), total);
    assert!(stored == data, "the object is the pieces in order");

    // An assembly whose last piece left a tail finishes with it; one of nothing is an empty object.
    let key = ObjectKey::pending(&PendingId::mint());
    let begun = store.begin_assembly(&key, u64::MAX / 4).await.unwrap();
    let piece = Piece { body: body(&data[..6 * MIB], false), limit: u64::MAX, total: None, checksum: None };
    let e = store.append(&key, &begun, piece).await.unwrap().assembly;
    store.finish_assembly(&key, &e).await.unwrap();
    assert!(store.get(&key).await.unwrap().unwrap() == data[..6 * MIB]);
    let key = ObjectKey::pending(&PendingId::mint());
    let empty = store.begin_assembly(&key, 0).await.unwrap();
    store.finish_assembly(&key, &empty).await.unwrap();
    assert_eq!(store.get(&key).await.unwrap().unwrap().len(), 0);

    // Aborted: nothing is left, and aborting again is fine.
    let key = ObjectKey::pending(&PendingId::mint());
    let begun = store.begin_assembly(&key, total as u64).await.unwrap();
    let f = append(store, &key, &begun, &data[..6 * MIB], total, None, false).await.unwrap();
    store.abort_assembly(&key, &f).await.unwrap();
    store.abort_assembly(&key, &f).await.unwrap();
    assert_eq!(store.stat(&key).await.unwrap(), None);
}

#[tokio::test]
async fn the_local_store_assembles_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let store = LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap();
    assembles(&store).await;
    let left: Vec<_> = std::fs::read_dir(dir.path().join("assembling/pending")).unwrap().collect();
    assert!(left.is_empty(), "finished and aborted assemblies leave no file: {left:?}");
}

#[tokio::test]
async fn the_s3_store_assembles_pieces_as_a_multipart_upload() {
    let endpoint = std::env::var("SHUTTERBOX_TEST_S3_ENDPOINT")
        .expect("SHUTTERBOX_TEST_S3_ENDPOINT is not set: start an S3 server with `export \"$(scripts/start-s3.sh)\"`");
    let bucket = format!("t-{}", hex::encode(rand::random::<[u8; 12]>()));
    let config = S3Config::new(endpoint, bucket, "minioadmin".into(), "minioadmin".into());
    let store = S3Store::connect(config).await.unwrap();
    assembles(&store).await;
}
