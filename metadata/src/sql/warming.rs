//! Warming batches and the progress of their items.

use sqlx::Row;

use super::{SqlMetadata, WARM_ROWS_PER_INSERT, as_i64, count, findable, text};
use async_trait::async_trait;
use shutterbox_model::{AccountId, BatchId, FileId};

use crate::{MetadataError, Result, WarmBatch, WarmFailure, WarmItemState, WarmProgress, WarmStore};
#[async_trait]
impl WarmStore for SqlMetadata {
    async fn create_warm_batch(&self, batch: &WarmBatch) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO warm_batches (id, account_id, total, created_at) VALUES ($1, $2, $3, $4)")
            .bind(batch.id.as_str())
            .bind(batch.account_id.as_str())
            .bind(as_i64(batch.items.len() as u64))
            .bind(batch.created_at_ms)
            .execute(&mut *tx)
            .await?;
        // Many rows per statement: a batch of thousands of items is a few round trips, not thousands.
        let items: Vec<(usize, &(FileId, String))> = batch.items.iter().enumerate().collect();
        for chunk in items.chunks(WARM_ROWS_PER_INSERT) {
            let rows: Vec<String> = (0..chunk.len())
                .map(|i| format!("($1, ${}, ${}, ${}, 'queued')", 2 + 3 * i, 3 + 3 * i, 4 + 3 * i))
                .collect();
            let sql =
                format!("INSERT INTO warm_items (batch_id, item, file_id, query, state) VALUES {}", rows.join(", "));
            let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(batch.id.as_str());
            for (item, (file_id, query)) in chunk {
                insert = insert.bind(as_i64(*item as u64)).bind(file_id.as_str()).bind(query);
            }
            insert.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn finish_warm_item(
        &self,
        batch_id: &BatchId,
        item: u32,
        state: &WarmItemState,
        now_ms: i64,
    ) -> Result<bool> {
        let changed = sqlx::query(
            "UPDATE warm_items SET state = $1, finished_at = $2, reason = $5 \
         WHERE batch_id = $3 AND item = $4 AND state = 'queued'",
        )
        .bind(state.as_str())
        .bind(now_ms)
        .bind(batch_id.as_str())
        .bind(i64::from(item))
        .bind(state.reason().map(|reason| reason.replace('\0', "")))
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(changed == 1)
    }

    async fn outstanding_warm_items(&self, account_id: &AccountId) -> Result<u64> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM warm_items WHERE state = 'queued' \
         AND batch_id IN (SELECT id FROM warm_batches WHERE account_id = $1)",
        )
        .bind(account_id.as_str())
        .fetch_one(&self.pool)
        .await?;
        count(&row, "n")
    }

    async fn expire_warm_batches(&self, created_before_ms: i64) -> Result<u64> {
        let mut tx = self.pool.begin().await?;
        // Items first: SQLite enforces the cascade only with its foreign-key pragma on.
        sqlx::query("DELETE FROM warm_items WHERE batch_id IN (SELECT id FROM warm_batches WHERE created_at < $1)")
            .bind(created_before_ms)
            .execute(&mut *tx)
            .await?;
        let removed = sqlx::query("DELETE FROM warm_batches WHERE created_at < $1")
            .bind(created_before_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(removed)
    }

    async fn warm_progress(&self, account_id: &AccountId, batch_id: &BatchId) -> Result<Option<WarmProgress>> {
        if !findable(batch_id.as_str()) {
            return Ok(None);
        }
        let batch = sqlx::query("SELECT total, created_at FROM warm_batches WHERE id = $1 AND account_id = $2")
            .bind(batch_id.as_str())
            .bind(account_id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        let Some(batch) = batch else { return Ok(None) };
        let rows = sqlx::query("SELECT state, COUNT(*) AS n FROM warm_items WHERE batch_id = $1 GROUP BY state")
            .bind(batch_id.as_str())
            .fetch_all(&self.pool)
            .await?;
        let mut progress = WarmProgress {
            id: batch_id.clone(),
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

    async fn warm_failures(
        &self,
        account_id: &AccountId,
        batch_id: &BatchId,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<WarmFailure>, u64)> {
        if !findable(batch_id.as_str()) {
            return Ok((Vec::new(), 0));
        }
        const OF_THE_BATCH: &str = "FROM warm_items WHERE batch_id = $1 AND state = 'failed' \
         AND EXISTS (SELECT 1 FROM warm_batches WHERE id = $1 AND account_id = $2)";
        let total = sqlx::query(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) AS n {OF_THE_BATCH}")))
            .bind(batch_id.as_str())
            .bind(account_id.as_str())
            .fetch_one(&self.pool)
            .await?;
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT item, file_id, query, reason {OF_THE_BATCH} ORDER BY item LIMIT $3 OFFSET $4"
        )))
        .bind(batch_id.as_str())
        .bind(account_id.as_str())
        .bind(as_i64(limit))
        .bind(as_i64(offset))
        .fetch_all(&self.pool)
        .await?;
        let failures = rows
            .iter()
            .map(|row| {
                let item: i64 = row.try_get("item")?;
                Ok(WarmFailure {
                    item: u32::try_from(item).map_err(|_| MetadataError::Corrupt(format!("warming item {item}")))?,
                    file_id: FileId::new(text(row, "file_id")?),
                    query: text(row, "query")?,
                    reason: row
                        .try_get::<Option<String>, _>("reason")?
                        .unwrap_or_else(|| "not recorded (it failed before reasons were kept)".into()),
                })
            })
            .collect::<Result<_>>()?;
        Ok((failures, count(&total, "n")?))
    }
}
