//! Object intents: writes noted before their record exists, so the sweep can find what a crash left.

use super::{LIST_CHUNK, SqlMetadata, as_i64, count, placeholders, text};
use crate::Result;

pub(super) async fn begin_objects(db: &SqlMetadata, object_keys: &[&str], now_ms: i64) -> Result<()> {
    for chunk in object_keys.chunks(LIST_CHUNK) {
        let rows: Vec<String> = (0..chunk.len()).map(|i| format!("(${}, $1)", i + 2)).collect();
        let sql = format!(
            "INSERT INTO object_intents (object_key, created_at) VALUES {} ON CONFLICT DO NOTHING",
            rows.join(", ")
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms);
        for key in chunk {
            query = query.bind(*key);
        }
        query.execute(&db.pool).await?;
    }
    Ok(())
}

pub(super) async fn end_objects(db: &SqlMetadata, object_keys: &[&str]) -> Result<()> {
    for chunk in object_keys.chunks(LIST_CHUNK) {
        let sql = format!("DELETE FROM object_intents WHERE object_key IN ({})", placeholders(1, chunk.len()));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for key in chunk {
            query = query.bind(*key);
        }
        query.execute(&db.pool).await?;
    }
    Ok(())
}

pub(super) async fn stale_objects(db: &SqlMetadata, before_ms: i64, limit: u64) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT object_key FROM object_intents WHERE created_at < $1 ORDER BY created_at, object_key LIMIT $2",
    )
    .bind(before_ms)
    .bind(as_i64(limit))
    .fetch_all(&db.pool)
    .await?;
    rows.iter().map(|row| text(row, "object_key")).collect()
}

pub(super) async fn object_in_use(db: &SqlMetadata, object_key: &str) -> Result<bool> {
    let row = sqlx::query(
        "SELECT (SELECT COUNT(*) FROM files WHERE object_key = $1) \
         + (SELECT COUNT(*) FROM variants WHERE object_key = $1) AS n",
    )
    .bind(object_key)
    .fetch_one(&db.pool)
    .await?;
    Ok(count(&row, "n")? > 0)
}
