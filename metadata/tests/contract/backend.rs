//! The two backends a contract test runs on, each fresh, and the records the tests make.

use shutterbox_metadata::{
    Account, AccountStore, ConfirmOutcome, FileRecord, NewFile, PendingUpload, SqlMetadata, UploadStore,
};
use shutterbox_model::{
    AccountName, FileId, FileKind, FrameRate, ImageFacts, MediaType, ObjectKey, PendingId, VideoFacts,
};
use sqlx::Connection;

/// A time the tests start from, in milliseconds.
pub const T0: i64 = 1_800_000_000_000;

pub struct Backend {
    store: SqlMetadata,
    /// Where the SQLite file is, removed when the test ends.
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqlMetadata::open_sqlite(&dir.path().join("metadata.db")).await.unwrap();
        Self { store, _dir: Some(dir) }
    }

    /// A database of its own on the test server, named after the test (scripts/test.sh drops the run's
    /// databases by their prefix afterwards).
    pub async fn postgres(test: &str) -> Self {
        let admin = std::env::var("SHUTTERBOX_TEST_DATABASE_URL").unwrap_or_else(|_| {
            panic!("SHUTTERBOX_TEST_DATABASE_URL names no PostgreSQL server: the contract's PostgreSQL half needs one (scripts/test.sh sets it)")
        });
        let prefix = std::env::var("SHUTTERBOX_TEST_DB_PREFIX").unwrap_or_else(|_| "sbx_t".into());
        let (server, _) = admin.rsplit_once('/').expect("SHUTTERBOX_TEST_DATABASE_URL ends in /<database>");
        // PostgreSQL names are at most 63 bytes: the test's name is cut to leave room for the rest.
        let test: String = test.chars().take(30).collect();
        let name = format!("{prefix}_meta_{test}_{:08x}", rand::random::<u32>());
        let mut connection = sqlx::PgConnection::connect(&admin)
            .await
            .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at {admin}: {e}"));
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).execute(&mut connection).await.unwrap();
        let store = SqlMetadata::connect(&format!("{server}/{name}")).await.unwrap();
        Self { store, _dir: None }
    }

    pub fn store(&self) -> &SqlMetadata {
        &self.store
    }
}

pub async fn account(store: &SqlMetadata, name: &str) -> Account {
    store.ensure_account(&AccountName::parse(name).unwrap(), T0).await.unwrap()
}

/// A pending upload of `account`, by presigned PUT, expiring at `expires_at_ms`.
pub fn pending(account: &Account, folder: Option<&str>, name: &str, expires_at_ms: i64) -> PendingUpload {
    let id = PendingId::mint();
    PendingUpload {
        object_key: ObjectKey::pending(&id),
        id,
        account_id: account.id.clone(),
        name: name.to_owned(),
        folder: folder.map(str::to_owned),
        declared_type: "image/jpeg".into(),
        size: 1234,
        expires_at_ms,
        created_at_ms: T0,
        file_id: None,
        resumable: None,
    }
}

/// What confirming `pending` creates: a file of `size` bytes of `raw_type`, made at `now_ms`.
pub fn new_file(account: &Account, pending: &PendingUpload, raw_type: &str, size: u64, now_ms: i64) -> NewFile {
    let id = FileId::mint();
    let raw_type = MediaType::new(raw_type);
    let kind = raw_type.kind();
    NewFile {
        object_key: ObjectKey::original(&id),
        id,
        account_id: account.id.clone(),
        path: pending.stored_path(&AccountName::parse(&account.name).unwrap()).unwrap(),
        raw_type,
        kind,
        size,
        now_ms,
        facts: (kind == FileKind::Image).then_some(ImageFacts {
            width: 40,
            height: 30,
            has_alpha: false,
            frame_count: 1,
        }),
        video: (kind == FileKind::Video).then(sample_video_facts),
    }
}

/// The facts every contract video is confirmed with: a phone's portrait clip.
pub fn sample_video_facts() -> VideoFacts {
    VideoFacts {
        size: Some((1080, 1920)),
        rotation: 90,
        duration_ms: Some(5_005),
        frame_rate: FrameRate::new(30_000, 1_001),
        video_codec: Some("hevc".into()),
        audio_codec: Some("aac".into()),
        bitrate: Some(8_000_000),
        frame_count: Some(150),
    }
}

/// A file of `account` at `folder`/`name`, uploaded and confirmed at `now_ms`.
pub async fn file(
    store: &SqlMetadata,
    account: &Account,
    folder: Option<&str>,
    name: &str,
    raw_type: &str,
    size: u64,
    now_ms: i64,
) -> FileRecord {
    let pending = pending(account, folder, name, now_ms + 3_600_000);
    store.create_pending(&pending).await.unwrap();
    match store.confirm_pending(&pending.id, new_file(account, &pending, raw_type, size, now_ms)).await.unwrap() {
        ConfirmOutcome::Created(file) => *file,
        other => panic!("a first confirm creates the file, not {other:?}"),
    }
}
