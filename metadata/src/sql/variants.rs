//! Rendered variants kept in the object store, by file and digest: the records, and what their bounds
//! weigh (per-file count, total bytes, last access, pinned).

use sqlx::Row;

use super::{LIST_CHUNK, SqlMetadata, VARIANT_COLUMNS, as_i64, count, findable, placeholders, variant_of};
use async_trait::async_trait;
use shutterbox_model::{FileId, VariantDigest};

use crate::{MetadataError, Result, VariantRecord, VariantRoom, VariantStore};

#[async_trait]
impl VariantStore for SqlMetadata {
    async fn variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<Option<VariantRecord>> {
        if !findable(file_id.as_str()) {
            return Ok(None);
        }
        let sql = format!("SELECT {VARIANT_COLUMNS} FROM variants WHERE file_id = $1 AND digest = $2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(file_id.as_str())
            .bind(digest.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(variant_of).transpose()
    }

    async fn put_variant(&self, variant: &VariantRecord, now_ms: i64) -> Result<bool> {
        let inserted = sqlx::query(
        "INSERT INTO variants (file_id, digest, object_key, content_type, size, created_at, last_access_at, pinned) \
         SELECT $1, $2, $3, $4, $5, $6, $6, $7 WHERE EXISTS (SELECT 1 FROM files WHERE id = $1) \
         ON CONFLICT (file_id, digest) DO NOTHING",
    )
    .bind(variant.file_id.as_str())
    .bind(variant.digest.as_str())
    .bind(variant.object_key.as_str())
    .bind(&variant.content_type)
    .bind(as_i64(variant.size))
    .bind(now_ms)
    .bind(i64::from(variant.pinned))
    .execute(&self.pool)
    .await;
        match inserted {
            Ok(done) => Ok(done.rows_affected() == 1),
            // The file was there when the insert looked and gone when its foreign key was checked: a delete
            // that locked it first (`delete_file`) committed in between. Gone is gone.
            Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn variant_room(&self, file_id: &FileId, digest: &VariantDigest, per_file: u64) -> Result<VariantRoom> {
        if !findable(file_id.as_str()) {
            return Ok(VariantRoom { stored: 0, this: None, evictable: Vec::new() });
        }
        // One row of counts (`this`: 0 when `digest` is not stored, else 1 + its `pinned`), joined with as many
        // of the oldest unpinned variants as one more would put over `per_file` ($3); NULLs when none.
        let sql = format!(
            "SELECT counts.n, counts.this, oldest.* FROM \
         (SELECT COUNT(*) AS n, CAST(COALESCE(MAX(CASE WHEN digest = $2 THEN 1 + pinned END), 0) AS BIGINT) AS this \
          FROM variants WHERE file_id = $1) AS counts \
         LEFT JOIN (SELECT {VARIANT_COLUMNS} FROM variants WHERE file_id = $1 AND pinned = 0 \
          ORDER BY last_access_at, digest \
          LIMIT (SELECT CASE WHEN COUNT(*) + 1 > $3 THEN COUNT(*) + 1 - $3 ELSE 0 END FROM variants WHERE file_id = $1)) \
         AS oldest ON 1 = 1 \
         ORDER BY oldest.last_access_at, oldest.digest"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(file_id.as_str())
            .bind(digest.as_str())
            .bind(as_i64(per_file))
            .fetch_all(&self.pool)
            .await?;
        let Some(first) = rows.first() else {
            return Err(MetadataError::Corrupt("no count of a file's variants".into()));
        };
        let this = match count(first, "this")? {
            0 => None,
            state => Some(state > 1),
        };
        let mut evictable = Vec::new();
        for row in &rows {
            if row.try_get::<Option<String>, _>("digest")?.is_some() {
                evictable.push(variant_of(row)?);
            }
        }
        Ok(VariantRoom { stored: count(first, "n")?, this, evictable })
    }

    async fn pin_variant(&self, file_id: &FileId, digest: &VariantDigest) -> Result<()> {
        sqlx::query("UPDATE variants SET pinned = 1 WHERE file_id = $1 AND digest = $2")
            .bind(file_id.as_str())
            .bind(digest.as_str())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn touch_variants(&self, keys: &[(FileId, VariantDigest)], now_ms: i64) -> Result<()> {
        for chunk in keys.chunks(LIST_CHUNK) {
            // `(file_id = $2 AND digest = $3) OR …`: row values in IN lists are not portable to every SQLite.
            let matches: Vec<String> =
                (0..chunk.len()).map(|i| format!("(file_id = ${} AND digest = ${})", 2 + 2 * i, 3 + 2 * i)).collect();
            let sql = format!(
                "UPDATE variants SET last_access_at = $1 WHERE last_access_at < $1 AND ({})",
                matches.join(" OR ")
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms);
            for (file_id, digest) in chunk {
                query = query.bind(file_id.as_str()).bind(digest.as_str());
            }
            query.execute(&self.pool).await?;
        }
        Ok(())
    }

    async fn least_recent_variants(&self, limit: u64) -> Result<Vec<VariantRecord>> {
        let sql =
            format!("SELECT {VARIANT_COLUMNS} FROM variants ORDER BY pinned, last_access_at, file_id, digest LIMIT $1");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(as_i64(limit)).fetch_all(&self.pool).await?;
        rows.iter().map(variant_of).collect()
    }

    async fn delete_variants(&self, file_id: &FileId, digests: &[&VariantDigest]) -> Result<u64> {
        let mut deleted = 0;
        for chunk in digests.chunks(LIST_CHUNK) {
            let sql =
                format!("DELETE FROM variants WHERE file_id = $1 AND digest IN ({})", placeholders(2, chunk.len()));
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(file_id.as_str());
            for digest in chunk {
                query = query.bind(digest.as_str());
            }
            deleted += query.execute(&self.pool).await?.rows_affected();
        }
        Ok(deleted)
    }

    async fn variant_totals(&self) -> Result<(u64, u64)> {
        let row = sqlx::query("SELECT COUNT(*) AS n, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes FROM variants")
            .fetch_one(&self.pool)
            .await?;
        Ok((count(&row, "n")?, count(&row, "bytes")?))
    }
}
