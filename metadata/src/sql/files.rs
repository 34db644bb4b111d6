//! Files: lookups by id, path and stem, listing, and deletion with their variants.

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

pub(super) async fn image_files(db: &SqlMetadata, account_id: &str) -> Result<Vec<FileRecord>> {
    let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 AND kind = 'image' ORDER BY id");
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id).fetch_all(&db.pool).await?;
    rows.iter().map(file_of).collect()
}
