//! Rendered variants kept in the object store, by file and digest: the records, and what their bounds
//! weigh (per-file count, total bytes, last access, pinned).

use sqlx::Row;

use super::{LIST_CHUNK, SqlMetadata, VARIANT_COLUMNS, as_i64, count, findable, placeholders, variant_of};
use shutterbox_model::{FileId, VariantDigest};

use crate::{MetadataError, Result, VariantRecord, VariantRoom};

pub(super) async fn variant(db: &SqlMetadata, file_id: &str, digest: &str) -> Result<Option<VariantRecord>> {
    if !findable(file_id) {
        return Ok(None);
    }
    let sql = format!("SELECT {VARIANT_COLUMNS} FROM variants WHERE file_id = $1 AND digest = $2");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(file_id).bind(digest).fetch_optional(&db.pool).await?;
    row.as_ref().map(variant_of).transpose()
}

pub(super) async fn put_variant(db: &SqlMetadata, variant: &VariantRecord, now_ms: i64) -> Result<bool> {
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
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

pub(super) async fn variant_room(db: &SqlMetadata, file_id: &str, digest: &str, per_file: u64) -> Result<VariantRoom> {
    if !findable(file_id) {
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
        .bind(file_id)
        .bind(digest)
        .bind(as_i64(per_file))
        .fetch_all(&db.pool)
        .await?;
    let Some(first) = rows.first() else { return Err(MetadataError::Corrupt("no count of a file's variants".into())) };
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

pub(super) async fn pin_variant(db: &SqlMetadata, file_id: &str, digest: &str) -> Result<()> {
    sqlx::query("UPDATE variants SET pinned = 1 WHERE file_id = $1 AND digest = $2")
        .bind(file_id)
        .bind(digest)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub(super) async fn touch_variants(db: &SqlMetadata, keys: &[(FileId, VariantDigest)], now_ms: i64) -> Result<()> {
    for chunk in keys.chunks(LIST_CHUNK) {
        // `(file_id = $2 AND digest = $3) OR …`: row values in IN lists are not portable to every SQLite.
        let matches: Vec<String> =
            (0..chunk.len()).map(|i| format!("(file_id = ${} AND digest = ${})", 2 + 2 * i, 3 + 2 * i)).collect();
        let sql =
            format!("UPDATE variants SET last_access_at = $1 WHERE last_access_at < $1 AND ({})", matches.join(" OR "));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms);
        for (file_id, digest) in chunk {
            query = query.bind(file_id.as_str()).bind(digest.as_str());
        }
        query.execute(&db.pool).await?;
    }
    Ok(())
}

pub(super) async fn least_recent_variants(db: &SqlMetadata, limit: u64) -> Result<Vec<VariantRecord>> {
    let sql =
        format!("SELECT {VARIANT_COLUMNS} FROM variants ORDER BY pinned, last_access_at, file_id, digest LIMIT $1");
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(as_i64(limit)).fetch_all(&db.pool).await?;
    rows.iter().map(variant_of).collect()
}

pub(super) async fn delete_variants(db: &SqlMetadata, file_id: &str, digests: &[&str]) -> Result<u64> {
    let mut deleted = 0;
    for chunk in digests.chunks(LIST_CHUNK) {
        let sql = format!("DELETE FROM variants WHERE file_id = $1 AND digest IN ({})", placeholders(2, chunk.len()));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(file_id);
        for digest in chunk {
            query = query.bind(*digest);
        }
        deleted += query.execute(&db.pool).await?.rows_affected();
    }
    Ok(deleted)
}

pub(super) async fn variant_totals(db: &SqlMetadata) -> Result<(u64, u64)> {
    let row = sqlx::query("SELECT COUNT(*) AS n, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes FROM variants")
        .fetch_one(&db.pool)
        .await?;
    Ok((count(&row, "n")?, count(&row, "bytes")?))
}
