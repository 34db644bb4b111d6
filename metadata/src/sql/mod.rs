//! `MetadataStore` over sqlx's Any driver: one SQL dialect that SQLite and PostgreSQL both accept
//! (`$n` placeholders, `ON CONFLICT … DO NOTHING`, TEXT ids, BIGINT millisecond times). Each aggregate's
//! trait is implemented in its own module; this one holds the connection, the migrations and the readers
//! of rows more than one aggregate returns.

mod accounts;
mod files;
mod intents;
pub(crate) mod transfer;
mod uploads;
mod variants;
mod warming;

use std::{borrow::Cow, path::Path, time::Duration};

use async_trait::async_trait;
use rand::Rng;
use shutterbox_model::{
    AccountId, FileId, FileKind, FocalPoint, FolderId, FrameRate, ImageFacts, MediaType, ObjectKey, PendingId,
    PixelSummary, Rgb, StoredPath, VariantDigest, VideoFacts,
};
use sqlx::{
    AnyPool, Row,
    any::{AnyPoolOptions, AnyRow},
    migrate::{Migration, MigrationType, Migrator},
};

use crate::{FileRecord, MetadataError, MetadataStore, PendingUpload, Result, Resumable, VariantRecord};

/// Migrations are compiled in, so the binary needs no files beside it.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "initial", include_str!("../../../migrations/0001_initial.sql")),
    (2, "variants", include_str!("../../../migrations/0002_variants.sql")),
    (3, "warm_batches", include_str!("../../../migrations/0003_warm_batches.sql")),
    (4, "sweeping", include_str!("../../../migrations/0004_sweeping.sql")),
    (5, "variant_cache", include_str!("../../../migrations/0005_variant_cache.sql")),
    (6, "focus", include_str!("../../../migrations/0006_focus.sql")),
    (7, "image_facts", include_str!("../../../migrations/0007_image_facts.sql")),
    (8, "resumable_uploads", include_str!("../../../migrations/0008_resumable_uploads.sql")),
    (9, "warm_failures", include_str!("../../../migrations/0009_warm_failures.sql")),
    (10, "browsing", include_str!("../../../migrations/0010_browsing.sql")),
    (11, "warm_bounds", include_str!("../../../migrations/0011_warm_bounds.sql")),
    (12, "key_lifecycle", include_str!("../../../migrations/0012_key_lifecycle.sql")),
    (13, "video_facts", include_str!("../../../migrations/0013_video_facts.sql")),
];

/// Warming items inserted per statement (3 parameters each, well under SQLite's 32,766).
const WARM_ROWS_PER_INSERT: usize = 500;

/// How many differently-suffixed names confirm tries before giving up on a clash.
const NAME_ATTEMPTS: usize = 8;

pub struct SqlMetadata {
    pool: AnyPool,
    /// What makes a text comparison compare code points: PostgreSQL's databases compare by their locale
    /// (which skips punctuation), SQLite's by bytes already. Listings sort alike on both.
    code_point_order: &'static str,
    /// Whether a transaction must lock a row it is about to delete before reading what hangs off it:
    /// PostgreSQL's transactions run beside each other, SQLite's take the whole database at their first
    /// write (so their first write is the lock, and a read before it would only invite a busy snapshot).
    locks_rows: bool,
}

const FILE_COLUMNS: &str = "id, account_id, folder_id, path, name, object_key, raw_type, kind, size, created_at, updated_at, focus_x, focus_y, \
     width, height, has_alpha, frame_count, dominant_color, thumbhash, blurhash, placeholder, attention_x, attention_y, \
     rotation, duration_ms, frame_rate_num, frame_rate_den, video_codec, audio_codec, bitrate";
const PENDING_COLUMNS: &str = "id, account_id, object_key, name, folder_path, declared_type, size, expires_at, \
     created_at, file_id, assembly, length_deferred, upload_metadata, token_hash";

impl SqlMetadata {
    /// Connects to `url` (`sqlite://…` or `postgres://…`) and applies pending migrations.
    pub async fn connect(url: &str) -> Result<Self> {
        sqlx::any::install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 8 } else { 16 })
            .acquire_timeout(Duration::from_secs(5))
            .after_connect(|conn, _| {
                Box::pin(async move {
                    if conn.backend_name() == "SQLite" {
                        // WAL lets readers run beside the writer; busy_timeout makes writers queue instead of failing.
                        sqlx::query(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                             PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON;",
                        )
                        .execute(conn)
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .map_err(|e| MetadataError::Unavailable(e.to_string()))?;
        let store = Self { pool, code_point_order: if sqlite { "" } else { " COLLATE \"C\"" }, locks_rows: !sqlite };
        store.migrate().await?;
        Ok(store)
    }

    /// The embedded default: a SQLite file, created if missing.
    pub async fn open_sqlite(path: &Path) -> Result<Self> {
        Self::connect(&format!("sqlite://{}?mode=rwc", path.display())).await
    }

    async fn migrate(&self) -> Result<()> {
        let migrations = MIGRATIONS
            .iter()
            .map(|(version, description, sql)| {
                Migration::new(
                    *version,
                    Cow::Borrowed(*description),
                    MigrationType::Simple,
                    sqlx::SqlSafeStr::into_sql_str(*sql),
                    false,
                )
            })
            .collect();
        Migrator::with_migrations(migrations).run(&self.pool).await.map_err(|e| MetadataError::Migration(e.to_string()))
    }
}

fn text(row: &AnyRow, column: &str) -> Result<String> {
    Ok(row.try_get::<String, _>(column)?)
}

/// The row's `object_key`, parsed as the service minted it.
fn object_key(row: &AnyRow) -> Result<ObjectKey> {
    let key = text(row, "object_key")?;
    ObjectKey::parse(&key).map_err(|_| MetadataError::Corrupt(format!("malformed object key {key:?}")))
}

fn count(row: &AnyRow, column: &str) -> Result<u64> {
    let n: i64 = row.try_get(column)?;
    u64::try_from(n).map_err(|_| MetadataError::Corrupt(format!("negative {column}")))
}

fn file_of(row: &AnyRow) -> Result<FileRecord> {
    Ok(FileRecord {
        id: FileId::new(text(row, "id")?),
        account_id: AccountId::new(text(row, "account_id")?),
        folder_id: row.try_get::<Option<String>, _>("folder_id")?.map(FolderId::new),
        path: {
            let path = text(row, "path")?;
            StoredPath::from_stored(&path).ok_or_else(|| MetadataError::Corrupt(format!("malformed path {path:?}")))?
        },
        name: text(row, "name")?,
        object_key: object_key(row)?,
        raw_type: MediaType::new(text(row, "raw_type")?),
        kind: {
            let kind = text(row, "kind")?;
            FileKind::parse(&kind).ok_or_else(|| MetadataError::Corrupt(format!("unknown file kind {kind:?}")))?
        },
        size: count(row, "size")?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
        focus: match (row.try_get::<Option<i64>, _>("focus_x")?, row.try_get::<Option<i64>, _>("focus_y")?) {
            (Some(x), Some(y)) => Some(
                FocalPoint::from_units(x, y)
                    .ok_or_else(|| MetadataError::Corrupt(format!("focal point {x},{y} beyond the picture")))?,
            ),
            _ => None,
        },
        facts: facts_of(row)?,
        video: video_of(row)?,
        summary: summary_of(row)?,
    })
}

/// A number of the file row that a `u32` holds.
fn small(row: &AnyRow, column: &str) -> Result<Option<u32>> {
    row.try_get::<Option<i64>, _>(column)?
        .map(|n| u32::try_from(n).map_err(|_| MetadataError::Corrupt(format!("{column} {n} out of range"))))
        .transpose()
}

fn facts_of(row: &AnyRow) -> Result<Option<ImageFacts>> {
    let (width, height, alpha, frames) =
        (small(row, "width")?, small(row, "height")?, small(row, "has_alpha")?, small(row, "frame_count")?);
    Ok(match (width, height, alpha, frames) {
        (Some(width), Some(height), Some(alpha), Some(frame_count)) => {
            Some(ImageFacts { width, height, has_alpha: alpha != 0, frame_count })
        }
        _ => None,
    })
}

/// A video's facts as the file row's columns hold them, each NULL for a file that is no video.
pub(super) struct VideoColumns {
    pub size: Option<(u32, u32)>,
    pub frame_count: Option<u64>,
    pub rotation: Option<i64>,
    pub duration_ms: Option<i64>,
    pub frame_rate_num: Option<i64>,
    pub frame_rate_den: Option<i64>,
    pub video_codec: Option<String>,
    pub audio_codec: Option<String>,
    pub bitrate: Option<i64>,
}

impl VideoColumns {
    pub(super) fn of(video: Option<&VideoFacts>) -> Self {
        let rate = video.and_then(|v| v.frame_rate);
        Self {
            size: video.and_then(|v| v.size),
            frame_count: video.and_then(|v| v.frame_count),
            rotation: video.map(|v| i64::from(v.rotation)),
            duration_ms: video.and_then(|v| v.duration_ms).map(as_i64),
            frame_rate_num: rate.map(|r| i64::from(r.numerator)),
            frame_rate_den: rate.map(|r| i64::from(r.denominator)),
            video_codec: video.and_then(|v| v.video_codec.clone()),
            audio_codec: video.and_then(|v| v.audio_codec.clone()),
            bitrate: video.and_then(|v| v.bitrate).map(as_i64),
        }
    }
}

/// A video's facts: read when its `rotation` is set (docs in migrations/0013_video_facts.sql).
fn video_of(row: &AnyRow) -> Result<Option<VideoFacts>> {
    let Some(rotation) = small(row, "rotation")? else { return Ok(None) };
    let wide = |column: &str| -> Result<Option<u64>> {
        row.try_get::<Option<i64>, _>(column)?
            .map(|n| u64::try_from(n).map_err(|_| MetadataError::Corrupt(format!("{column} {n} out of range"))))
            .transpose()
    };
    let text = |column: &str| row.try_get::<Option<String>, _>(column);
    Ok(Some(VideoFacts {
        size: small(row, "width")?.zip(small(row, "height")?),
        rotation: u16::try_from(rotation)
            .ok()
            .filter(|r| r % 90 == 0 && *r < 360)
            .ok_or_else(|| MetadataError::Corrupt(format!("rotation {rotation} is no quarter turn")))?,
        duration_ms: wide("duration_ms")?,
        frame_rate: match (wide("frame_rate_num")?, wide("frame_rate_den")?) {
            (Some(n), Some(d)) => FrameRate::new(n, d),
            _ => None,
        },
        video_codec: text("video_codec")?,
        audio_codec: text("audio_codec")?,
        bitrate: wide("bitrate")?,
        frame_count: wide("frame_count")?,
    }))
}

fn summary_of(row: &AnyRow) -> Result<Option<PixelSummary>> {
    let text = |column: &str| row.try_get::<Option<String>, _>(column);
    let (Some(colour), Some(thumbhash), Some(blurhash), Some(placeholder), Some(x), Some(y)) = (
        small(row, "dominant_color")?,
        text("thumbhash")?,
        text("blurhash")?,
        text("placeholder")?,
        row.try_get::<Option<i64>, _>("attention_x")?,
        row.try_get::<Option<i64>, _>("attention_y")?,
    ) else {
        return Ok(None);
    };
    Ok(Some(PixelSummary {
        dominant_color: Rgb::from_u32(colour)
            .ok_or_else(|| MetadataError::Corrupt(format!("dominant colour {colour:#x} out of range")))?,
        thumbhash,
        blurhash,
        placeholder,
        attention: FocalPoint::from_units(x, y)
            .ok_or_else(|| MetadataError::Corrupt(format!("attention point {x},{y} beyond the picture")))?,
    }))
}

/// The columns `variant_of` reads.
const VARIANT_COLUMNS: &str = "file_id, digest, object_key, content_type, size, pinned, last_access_at";

fn variant_of(row: &AnyRow) -> Result<VariantRecord> {
    Ok(VariantRecord {
        file_id: FileId::new(text(row, "file_id")?),
        digest: VariantDigest::new(text(row, "digest")?),
        object_key: object_key(row)?,
        content_type: text(row, "content_type")?,
        size: count(row, "size")?,
        pinned: row.try_get::<i64, _>("pinned")? != 0,
        last_access_ms: row.try_get("last_access_at")?,
    })
}

fn pending_of(row: &AnyRow) -> Result<PendingUpload> {
    Ok(PendingUpload {
        id: PendingId::new(text(row, "id")?),
        account_id: AccountId::new(text(row, "account_id")?),
        object_key: object_key(row)?,
        name: text(row, "name")?,
        folder: row.try_get("folder_path")?,
        declared_type: text(row, "declared_type")?,
        size: count(row, "size")?,
        expires_at_ms: row.try_get("expires_at")?,
        created_at_ms: row.try_get("created_at")?,
        file_id: row.try_get::<Option<String>, _>("file_id")?.map(FileId::new),
        resumable: resumable_of(row)?,
    })
}

/// A pending upload's resumable state, if it is a resumable upload.
fn resumable_of(row: &AnyRow) -> Result<Option<Resumable>> {
    let Some(assembly) = row.try_get::<Option<String>, _>("assembly")? else { return Ok(None) };
    let assembly = serde_json::from_str(&assembly)
        .map_err(|e| MetadataError::Corrupt(format!("a resumable upload's assembly does not read: {e}")))?;
    Ok(Some(Resumable {
        assembly,
        length_deferred: row.try_get::<i64, _>("length_deferred")? != 0,
        metadata: row.try_get("upload_metadata")?,
        token_hash: row.try_get("token_hash")?,
    }))
}

/// Whether `text` can name a row at all. PostgreSQL refuses text with a NUL character (SQLite stores it), so
/// a lookup by such text is answered "not found" before it reaches the database, the same on both.
fn findable(text: &str) -> bool {
    !text.contains('\0')
}

/// Rows or keys per statement of the statements that take a list (at most 2 parameters each, well under
/// SQLite's 32,766).
const LIST_CHUNK: usize = 500;

/// `$first, $first+1, …` for `n` parameters: an `IN (…)` list both SQLite and PostgreSQL accept.
fn placeholders(first: usize, n: usize) -> String {
    (first..first + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A short random suffix for a clashing name: six lower-case letters and digits.
fn name_suffix() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..6).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

#[async_trait]
impl MetadataStore for SqlMetadata {
    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}
