//! Object intents: writes noted before their record exists, so the sweep can find what a crash left.

use super::{LIST_CHUNK, SqlMetadata, as_i64, count, object_key, placeholders};
use async_trait::async_trait;
use shutterbox_model::ObjectKey;

use crate::{IntentStore, Result};

#[async_trait]
impl IntentStore for SqlMetadata {
    async fn begin_objects(&self, object_keys: &[&ObjectKey], now_ms: i64) -> Result<()> {
        for chunk in object_keys.chunks(LIST_CHUNK) {
            let rows: Vec<String> = (0..chunk.len()).map(|i| format!("(${}, $1)", i + 2)).collect();
            let sql = format!(
                "INSERT INTO object_intents (object_key, created_at) VALUES {} ON CONFLICT DO NOTHING",
                rows.join(", ")
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms);
            for key in chunk {
                query = query.bind(key.as_str());
            }
            query.execute(&self.pool).await?;
        }
        Ok(())
    }

    async fn end_objects(&self, object_keys: &[&ObjectKey]) -> Result<()> {
        for chunk in object_keys.chunks(LIST_CHUNK) {
            let sql = format!("DELETE FROM object_intents WHERE object_key IN ({})", placeholders(1, chunk.len()));
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for key in chunk {
                query = query.bind(key.as_str());
            }
            query.execute(&self.pool).await?;
        }
        Ok(())
    }

    async fn stale_objects(&self, before_ms: i64, limit: u64) -> Result<Vec<ObjectKey>> {
        // Ties in code-point order, as SQLite has them, whatever the PostgreSQL database's locale.
        let sql = format!(
            "SELECT object_key FROM object_intents WHERE created_at < $1 ORDER BY created_at, object_key{} LIMIT $2",
            self.code_point_order
        );
        let rows =
            sqlx::query(sqlx::AssertSqlSafe(sql)).bind(before_ms).bind(as_i64(limit)).fetch_all(&self.pool).await?;
        // Only `begin_objects` writes these, from keys the service minted.
        rows.iter().map(object_key).collect()
    }

    async fn object_in_use(&self, object_key: &ObjectKey) -> Result<bool> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM files WHERE object_key = $1) \
         + (SELECT COUNT(*) FROM variants WHERE object_key = $1) AS n",
        )
        .bind(object_key.as_str())
        .fetch_one(&self.pool)
        .await?;
        Ok(count(&row, "n")? > 0)
    }
}
