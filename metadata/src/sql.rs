//! `MetadataStore` over sqlx's Any driver: one SQL dialect that SQLite and PostgreSQL both accept
//! (`$n` placeholders, `ON CONFLICT … DO NOTHING`, TEXT ids, BIGINT millisecond times).

use std::{borrow::Cow, path::Path, str::FromStr, time::Duration};

use async_trait::async_trait;
use rand::Rng;
use shutterbox_model::{AccountName, FileKind, KeyHash, ObjectKey, Scope};
use sqlx::{
    AnyPool, Row,
    any::{AnyPoolOptions, AnyRow},
    migrate::{Migration, MigrationType, Migrator},
};
use uuid::Uuid;

use crate::{
    Account, ConfirmOutcome, DeletedFile, FileRecord, KeyRecord, MetadataError, MetadataStore, NewFile, PendingUpload,
    Result, VariantRecord, WarmBatch, WarmItemState, WarmProgress,
};

/// Migrations are compiled in, so the binary needs no files beside it.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "initial", include_str!("../../migrations/0001_initial.sql")),
    (2, "variants", include_str!("../../migrations/0002_variants.sql")),
    (3, "warm_batches", include_str!("../../migrations/0003_warm_batches.sql")),
    (4, "sweeping", include_str!("../../migrations/0004_sweeping.sql")),
];

/// Warming items inserted per statement (3 parameters each, well under SQLite's 32,766).
const WARM_ROWS_PER_INSERT: usize = 500;

/// How many differently-suffixed names confirm tries before giving up on a clash.
const NAME_ATTEMPTS: usize = 8;

pub struct SqlMetadata {
    pool: AnyPool,
}

const FILE_COLUMNS: &str =
    "id, account_id, folder_id, path, name, object_key, raw_type, kind, size, created_at, updated_at";
const PENDING_COLUMNS: &str =
    "id, account_id, object_key, name, folder_path, declared_type, size, expires_at, created_at, file_id";

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
        let store = Self { pool };
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
        id: text(row, "id")?,
        account_id: text(row, "account_id")?,
        folder_id: row.try_get("folder_id")?,
        path: text(row, "path")?,
        name: text(row, "name")?,
        object_key: object_key(row)?,
        raw_type: text(row, "raw_type")?,
        kind: {
            let kind = text(row, "kind")?;
            FileKind::parse(&kind).ok_or_else(|| MetadataError::Corrupt(format!("unknown file kind {kind:?}")))?
        },
        size: count(row, "size")?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
    })
}

fn variant_of(row: &AnyRow) -> Result<VariantRecord> {
    Ok(VariantRecord {
        file_id: text(row, "file_id")?,
        digest: text(row, "digest")?,
        object_key: object_key(row)?,
        content_type: text(row, "content_type")?,
        size: count(row, "size")?,
    })
}

fn pending_of(row: &AnyRow) -> Result<PendingUpload> {
    Ok(PendingUpload {
        id: text(row, "id")?,
        account_id: text(row, "account_id")?,
        object_key: object_key(row)?,
        name: text(row, "name")?,
        folder: row.try_get("folder_path")?,
        declared_type: text(row, "declared_type")?,
        size: count(row, "size")?,
        expires_at_ms: row.try_get("expires_at")?,
        created_at_ms: row.try_get("created_at")?,
        file_id: row.try_get("file_id")?,
    })
}

/// Whether `text` can name a row at all. PostgreSQL refuses text with a NUL character (SQLite stores it), so
/// a lookup by such text is answered "not found" before it reaches the database, the same on both.
fn findable(text: &str) -> bool {
    !text.contains('\0')
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

    async fn account_count(&self) -> Result<u64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM accounts").fetch_one(&self.pool).await?;
        count(&row, "n")
    }

    async fn ensure_account(&self, name: &AccountName, now_ms: i64) -> Result<Account> {
        sqlx::query("INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
            .bind(Uuid::now_v7().to_string())
            .bind(name.as_str())
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        let row = sqlx::query("SELECT id, name FROM accounts WHERE name = $1")
            .bind(name.as_str())
            .fetch_one(&self.pool)
            .await?;
        Ok(Account { id: text(&row, "id")?, name: text(&row, "name")? })
    }

    async fn create_key(
        &self,
        account: &Account,
        hash: &KeyHash,
        prefix: &str,
        scope: Scope,
        now_ms: i64,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO api_keys (id, account_id, key_hash, prefix, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(Uuid::now_v7().to_string())
        .bind(&account.id)
        .bind(&hash.0)
        .bind(prefix)
        .bind(scope.as_str())
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn find_key(&self, hash: &KeyHash) -> Result<Option<KeyRecord>> {
        let row = sqlx::query(
            "SELECT k.id, k.account_id, k.scope, a.name FROM api_keys k JOIN accounts a ON a.id = k.account_id \
             WHERE k.key_hash = $1",
        )
        .bind(&hash.0)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let scope = text(&row, "scope")?;
        Ok(Some(KeyRecord {
            key_id: text(&row, "id")?,
            account_id: text(&row, "account_id")?,
            account_name: text(&row, "name")?,
            scope: Scope::from_str(&scope).map_err(|e| MetadataError::Corrupt(e.to_string()))?,
        }))
    }

    async fn create_pending(&self, p: &PendingUpload) -> Result<()> {
        sqlx::query(
            "INSERT INTO pending_uploads (id, account_id, object_key, name, folder_path, declared_type, size, \
             expires_at, created_at, file_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL)",
        )
        .bind(&p.id)
        .bind(&p.account_id)
        .bind(p.object_key.as_str())
        .bind(&p.name)
        .bind(p.folder.as_deref())
        .bind(&p.declared_type)
        .bind(as_i64(p.size))
        .bind(p.expires_at_ms)
        .bind(p.created_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn pending(&self, id: &str) -> Result<Option<PendingUpload>> {
        if !findable(id) {
            return Ok(None);
        }
        let sql = format!("SELECT {PENDING_COLUMNS} FROM pending_uploads WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(pending_of).transpose()
    }

    async fn confirm_pending(&self, pending_id: &str, file: NewFile) -> Result<ConfirmOutcome> {
        let mut tx = self.pool.begin().await?;
        // The write comes first so SQLite takes its write lock at once (a read-then-write transaction could
        // fail to upgrade under contention), and so two racing confirms serialize here.
        let claimed = sqlx::query("UPDATE pending_uploads SET file_id = $1 WHERE id = $2 AND file_id IS NULL")
            .bind(&file.id)
            .bind(pending_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if claimed == 0 {
            tx.rollback().await?;
            let existing = self.pending(pending_id).await?.and_then(|p| p.file_id);
            return match existing {
                Some(file_id) => Ok(ConfirmOutcome::AlreadyConfirmed { file_id }),
                None => Err(MetadataError::Corrupt(format!("pending upload {pending_id} vanished during confirm"))),
            };
        }

        let mut folder_id: Option<String> = None;
        if let Some(folder) = file.path.folder() {
            for path in folder.lineage() {
                sqlx::query(
                    "INSERT INTO folders (id, account_id, parent_id, path, created_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (account_id, path) DO NOTHING",
                )
                .bind(Uuid::now_v7().to_string())
                .bind(&file.account_id)
                .bind(folder_id.as_deref())
                .bind(&path)
                .bind(file.now_ms)
                .execute(&mut *tx)
                .await?;
                let row = sqlx::query("SELECT id FROM folders WHERE account_id = $1 AND path = $2")
                    .bind(&file.account_id)
                    .bind(&path)
                    .fetch_one(&mut *tx)
                    .await?;
                folder_id = Some(text(&row, "id")?);
            }
        }

        let mut path = file.path.clone();
        for attempt in 0..NAME_ATTEMPTS {
            if attempt > 0 {
                path = file.path.with_suffix(&name_suffix());
            }
            let inserted = sqlx::query(
                "INSERT INTO files (id, account_id, folder_id, path, stem, name, object_key, raw_type, kind, size, \
                 created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(&file.id)
            .bind(&file.account_id)
            .bind(folder_id.as_deref())
            .bind(path.to_string())
            .bind(path.stem())
            .bind(path.name().as_str())
            .bind(file.object_key.as_str())
            .bind(&file.raw_type)
            .bind(file.kind.as_str())
            .bind(as_i64(file.size))
            .bind(file.now_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 1 {
                tx.commit().await?;
                return Ok(ConfirmOutcome::Created(FileRecord {
                    id: file.id,
                    account_id: file.account_id,
                    folder_id,
                    path: path.to_string(),
                    name: path.name().as_str().to_owned(),
                    object_key: file.object_key,
                    raw_type: file.raw_type,
                    kind: file.kind,
                    size: file.size,
                    created_at_ms: file.now_ms,
                    updated_at_ms: file.now_ms,
                }));
            }
        }
        tx.rollback().await?;
        Err(MetadataError::NameExhausted(file.path.to_string()))
    }

    async fn file(&self, account_id: &str, id: &str) -> Result<Option<FileRecord>> {
        if !findable(id) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1 AND account_id = $2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(&self.pool).await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn file_by_path(&self, path: &str) -> Result<Option<FileRecord>> {
        if !findable(path) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE path = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(path).fetch_optional(&self.pool).await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn file_by_stem(&self, stem: &str) -> Result<Option<FileRecord>> {
        if !findable(stem) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE stem = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(stem).fetch_optional(&self.pool).await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn list_files(&self, account_id: &str, offset: u64, limit: u64) -> Result<(Vec<FileRecord>, u64)> {
        let total = sqlx::query("SELECT COUNT(*) AS n FROM files WHERE account_id = $1")
            .bind(account_id)
            .fetch_one(&self.pool)
            .await?;
        let total = count(&total, "n")?;
        let sql = format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account_id)
            .bind(as_i64(limit))
            .bind(as_i64(offset))
            .fetch_all(&self.pool)
            .await?;
        let files = rows.iter().map(file_of).collect::<Result<Vec<_>>>()?;
        Ok((files, total))
    }

    async fn file_by_id(&self, id: &str) -> Result<Option<FileRecord>> {
        if !findable(id) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn variant(&self, file_id: &str, digest: &str) -> Result<Option<VariantRecord>> {
        if !findable(file_id) {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT file_id, digest, object_key, content_type, size FROM variants WHERE file_id = $1 AND digest = $2",
        )
        .bind(file_id)
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(variant_of).transpose()
    }

    async fn put_variant(&self, variant: &VariantRecord, now_ms: i64) -> Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO variants (file_id, digest, object_key, content_type, size, created_at) \
             SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM files WHERE id = $1) \
             ON CONFLICT (file_id, digest) DO NOTHING",
        )
        .bind(&variant.file_id)
        .bind(&variant.digest)
        .bind(variant.object_key.as_str())
        .bind(&variant.content_type)
        .bind(as_i64(variant.size))
        .bind(now_ms)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(inserted == 1)
    }

    async fn delete_file(&self, account_id: &str, id: &str) -> Result<Option<DeletedFile>> {
        if !findable(id) {
            return Ok(None);
        }
        let mut tx = self.pool.begin().await?;
        // Writes first (see confirm_pending). The variant rows go before the file row: the foreign key
        // cascades, so deleting the file first would drop them unseen and leave their objects behind. The
        // `EXISTS` keeps another account's variants out of reach.
        let rows = sqlx::query(
            "DELETE FROM variants WHERE file_id = $1 \
             AND EXISTS (SELECT 1 FROM files WHERE files.id = $1 AND files.account_id = $2) \
             RETURNING file_id, digest, object_key, content_type, size",
        )
        .bind(id)
        .bind(account_id)
        .fetch_all(&mut *tx)
        .await?;
        let variants = rows.iter().map(variant_of).collect::<Result<Vec<_>>>()?;
        let sql = format!("DELETE FROM files WHERE id = $1 AND account_id = $2 RETURNING {FILE_COLUMNS}");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(&mut *tx).await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let file = file_of(&row)?;
        tx.commit().await?;
        Ok(Some(DeletedFile { file, variants }))
    }

    async fn image_files(&self, account_id: &str) -> Result<Vec<FileRecord>> {
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 AND kind = 'image' ORDER BY id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id).fetch_all(&self.pool).await?;
        rows.iter().map(file_of).collect()
    }

    async fn create_warm_batch(&self, batch: &WarmBatch) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO warm_batches (id, account_id, total, created_at) VALUES ($1, $2, $3, $4)")
            .bind(&batch.id)
            .bind(&batch.account_id)
            .bind(as_i64(batch.items.len() as u64))
            .bind(batch.created_at_ms)
            .execute(&mut *tx)
            .await?;
        // Many rows per statement: a batch of thousands of items is a few round trips, not thousands.
        let items: Vec<(usize, &(String, String))> = batch.items.iter().enumerate().collect();
        for chunk in items.chunks(WARM_ROWS_PER_INSERT) {
            let rows: Vec<String> = (0..chunk.len())
                .map(|i| format!("($1, ${}, ${}, ${}, 'queued')", 2 + 3 * i, 3 + 3 * i, 4 + 3 * i))
                .collect();
            let sql =
                format!("INSERT INTO warm_items (batch_id, item, file_id, query, state) VALUES {}", rows.join(", "));
            let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(&batch.id);
            for (item, (file_id, query)) in chunk {
                insert = insert.bind(as_i64(*item as u64)).bind(file_id).bind(query);
            }
            insert.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn finish_warm_item(&self, batch_id: &str, item: u32, state: WarmItemState, now_ms: i64) -> Result<bool> {
        let changed = sqlx::query(
            "UPDATE warm_items SET state = $1, finished_at = $2 WHERE batch_id = $3 AND item = $4 AND state = 'queued'",
        )
        .bind(state.as_str())
        .bind(now_ms)
        .bind(batch_id)
        .bind(i64::from(item))
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(changed == 1)
    }

    async fn warm_progress(&self, account_id: &str, batch_id: &str) -> Result<Option<WarmProgress>> {
        if !findable(batch_id) {
            return Ok(None);
        }
        let batch = sqlx::query("SELECT total, created_at FROM warm_batches WHERE id = $1 AND account_id = $2")
            .bind(batch_id)
            .bind(account_id)
            .fetch_optional(&self.pool)
            .await?;
        let Some(batch) = batch else { return Ok(None) };
        let rows = sqlx::query("SELECT state, COUNT(*) AS n FROM warm_items WHERE batch_id = $1 GROUP BY state")
            .bind(batch_id)
            .fetch_all(&self.pool)
            .await?;
        let mut progress = WarmProgress {
            id: batch_id.to_owned(),
            total: count(&batch, "total")?,
            done: 0,
            failed: 0,
            created_at_ms: batch.try_get("created_at")?,
        };
        for row in &rows {
            let n = count(row, "n")?;
            match text(row, "state")?.as_str() {
                "done" => progress.done = n,
                "failed" => progress.failed = n,
                _ => {}
            }
        }
        Ok(Some(progress))
    }

    async fn begin_object(&self, object_key: &str, now_ms: i64) -> Result<()> {
        sqlx::query("INSERT INTO object_intents (object_key, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(object_key)
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn end_object(&self, object_key: &str) -> Result<()> {
        sqlx::query("DELETE FROM object_intents WHERE object_key = $1").bind(object_key).execute(&self.pool).await?;
        Ok(())
    }

    async fn stale_objects(&self, before_ms: i64, limit: u64) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT object_key FROM object_intents WHERE created_at < $1 ORDER BY created_at, object_key LIMIT $2",
        )
        .bind(before_ms)
        .bind(as_i64(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|row| text(row, "object_key")).collect()
    }

    async fn object_in_use(&self, object_key: &str) -> Result<bool> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM files WHERE object_key = $1) \
             + (SELECT COUNT(*) FROM variants WHERE object_key = $1) AS n",
        )
        .bind(object_key)
        .fetch_one(&self.pool)
        .await?;
        Ok(count(&row, "n")? > 0)
    }

    async fn expired_pending(&self, before_ms: i64, limit: u64) -> Result<Vec<PendingUpload>> {
        let sql = format!(
            "SELECT {PENDING_COLUMNS} FROM pending_uploads WHERE expires_at < $1 ORDER BY expires_at, id LIMIT $2"
        );
        let rows =
            sqlx::query(sqlx::AssertSqlSafe(sql)).bind(before_ms).bind(as_i64(limit)).fetch_all(&self.pool).await?;
        rows.iter().map(pending_of).collect()
    }

    async fn delete_pending(&self, id: &str) -> Result<()> {
        sqlx::query("DELETE FROM pending_uploads WHERE id = $1").bind(id).execute(&self.pool).await?;
        Ok(())
    }
}
