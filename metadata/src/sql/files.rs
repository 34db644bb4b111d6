//! Files: lookups by id, path and stem, listing, and deletion with their variants.

use shutterbox_model::{ImageFacts, PixelSummary};

use super::{FILE_COLUMNS, SqlMetadata, VARIANT_COLUMNS, as_i64, count, file_of, findable, variant_of};
use shutterbox_model::FocalPoint;

use crate::{DeletedFile, FileRecord, Result};
pub(super) async fn file(db: &SqlMetadata, account_id: &str, id: &str) -> Result<Option<FileRecord>> {
    if !findable(id) {
        return Ok(None);
    }
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1 AND account_id = $2");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_optional(&db.pool).await?;
    row.as_ref().map(file_of).transpose()
}

pub(super) async fn file_by_path(db: &SqlMetadata, path: &str) -> Result<Option<FileRecord>> {
    if !findable(path) {
        return Ok(None);
    }
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE path = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(path).fetch_optional(&db.pool).await?;
    row.as_ref().map(file_of).transpose()
}

pub(super) async fn file_by_stem(db: &SqlMetadata, stem: &str) -> Result<Option<FileRecord>> {
    if !findable(stem) {
        return Ok(None);
    }
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE stem = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(stem).fetch_optional(&db.pool).await?;
    row.as_ref().map(file_of).transpose()
}

pub(super) async fn list_files(
    db: &SqlMetadata,
    account_id: &str,
    offset: u64,
    limit: u64,
) -> Result<(Vec<FileRecord>, u64)> {
    let total = sqlx::query("SELECT COUNT(*) AS n FROM files WHERE account_id = $1")
        .bind(account_id)
        .fetch_one(&db.pool)
        .await?;
    let total = count(&total, "n")?;
    let sql = format!(
        "SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(account_id)
        .bind(as_i64(limit))
        .bind(as_i64(offset))
        .fetch_all(&db.pool)
        .await?;
    let files = rows.iter().map(file_of).collect::<Result<Vec<_>>>()?;
    Ok((files, total))
}

pub(super) async fn file_by_id(db: &SqlMetadata, id: &str) -> Result<Option<FileRecord>> {
    if !findable(id) {
        return Ok(None);
    }
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(&db.pool).await?;
    row.as_ref().map(file_of).transpose()
}

pub(super) async fn delete_file(db: &SqlMetadata, account_id: &str, id: &str) -> Result<Option<DeletedFile>> {
    if !findable(id) {
        return Ok(None);
    }
    let mut tx = db.pool.begin().await?;
    // Writes first (see confirm_pending). The variant rows go before the file row: the foreign key
    // cascades, so deleting the file first would drop them unseen and leave their objects behind. The
    // `EXISTS` keeps another account's variants out of reach.
    let sql = format!(
        "DELETE FROM variants WHERE file_id = $1 \
         AND EXISTS (SELECT 1 FROM files WHERE files.id = $1 AND files.account_id = $2) \
         RETURNING {VARIANT_COLUMNS}"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(account_id).fetch_all(&mut *tx).await?;
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

pub(super) async fn set_focus(
    db: &SqlMetadata,
    account_id: &str,
    id: &str,
    focus: Option<FocalPoint>,
    now_ms: i64,
) -> Result<Option<FileRecord>> {
    if !findable(id) {
        return Ok(None);
    }
    let sql = format!(
        "UPDATE files SET focus_x = $1, focus_y = $2, updated_at = $3 WHERE id = $4 AND account_id = $5 \
         RETURNING {FILE_COLUMNS}"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(focus.map(|p| i64::from(p.x)))
        .bind(focus.map(|p| i64::from(p.y)))
        .bind(now_ms)
        .bind(id)
        .bind(account_id)
        .fetch_optional(&db.pool)
        .await?;
    row.as_ref().map(file_of).transpose()
}

pub(super) async fn describe_file(
    db: &SqlMetadata,
    id: &str,
    facts: Option<ImageFacts>,
    summary: Option<&PixelSummary>,
    now_ms: i64,
) -> Result<bool> {
    if !findable(id) {
        return Ok(false);
    }
    let updated = sqlx::query(
        "UPDATE files SET width = COALESCE($1, width), height = COALESCE($2, height), \
         has_alpha = COALESCE($3, has_alpha), frame_count = COALESCE($4, frame_count), dominant_color = $5, \
         thumbhash = $6, blurhash = $7, placeholder = $8, attention_x = $9, attention_y = $10, described_at = $11 \
         WHERE id = $12",
    )
    .bind(facts.map(|f| i64::from(f.width)))
    .bind(facts.map(|f| i64::from(f.height)))
    .bind(facts.map(|f| i64::from(f.has_alpha)))
    .bind(facts.map(|f| i64::from(f.frame_count)))
    .bind(summary.map(|s| i64::from(s.dominant_color.to_u32())))
    .bind(summary.map(|s| s.thumbhash.clone()))
    .bind(summary.map(|s| s.blurhash.clone()))
    .bind(summary.map(|s| s.placeholder.clone()))
    .bind(summary.map(|s| i64::from(s.attention.x)))
    .bind(summary.map(|s| i64::from(s.attention.y)))
    .bind(now_ms)
    .bind(id)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(updated == 1)
}

pub(super) async fn undescribed_images(
    db: &SqlMetadata,
    after: Option<&str>,
    limit: u64,
) -> Result<(Vec<FileRecord>, u64)> {
    const UNDESCRIBED: &str = "kind = 'image' AND described_at IS NULL";
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE {UNDESCRIBED} AND id > $1 ORDER BY id LIMIT $2");
    let rows =
        sqlx::query(sqlx::AssertSqlSafe(sql)).bind(after.unwrap_or("")).bind(as_i64(limit)).fetch_all(&db.pool).await?;
    let files = rows.iter().map(file_of).collect::<Result<Vec<_>>>()?;
    let sql = format!("SELECT COUNT(*) AS n FROM files WHERE {UNDESCRIBED}");
    let total = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_one(&db.pool).await?;
    Ok((files, count(&total, "n")?))
}

pub(super) async fn image_files(db: &SqlMetadata, account_id: &str) -> Result<Vec<FileRecord>> {
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 AND kind = 'image' ORDER BY id");
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id).fetch_all(&db.pool).await?;
    rows.iter().map(file_of).collect()
}
