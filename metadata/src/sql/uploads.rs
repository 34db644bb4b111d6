//! Pending uploads: created at presign, confirmed into a file (with a clash-free stored path), swept when expired.

use super::{
    NAME_ATTEMPTS, PENDING_COLUMNS, SqlMetadata, VideoColumns, as_i64, findable, name_suffix, pending_of, text,
};
use async_trait::async_trait;
use shutterbox_model::{Assembly, FolderId, PendingId};

use crate::{
    ConfirmOutcome, DeadWriters, FileRecord, MetadataError, NewFile, PendingUpload, PieceRecord, Result, UploadStore,
};
#[async_trait]
impl UploadStore for SqlMetadata {
    async fn create_pending(&self, p: &PendingUpload) -> Result<()> {
        let resumable = p.resumable.as_ref();
        sqlx::query(
            "INSERT INTO pending_uploads (id, account_id, object_key, name, folder_path, declared_type, size, \
         expires_at, created_at, file_id, assembly, length_deferred, upload_metadata, token_hash) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, $12, $13)",
        )
        .bind(p.id.as_str())
        .bind(p.account_id.as_str())
        .bind(p.object_key.as_str())
        .bind(&p.name)
        .bind(p.folder.as_deref())
        .bind(&p.declared_type)
        .bind(as_i64(p.size))
        .bind(p.expires_at_ms)
        .bind(p.created_at_ms)
        .bind(resumable.map(|r| assembly_text(&r.assembly)).transpose()?)
        .bind(i64::from(resumable.is_some_and(|r| r.length_deferred)))
        .bind(resumable.and_then(|r| r.metadata.as_deref()))
        .bind(resumable.and_then(|r| r.token_hash.as_deref()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn lock_upload(
        &self,
        id: &PendingId,
        holder: &str,
        now_ms: i64,
        until_ms: i64,
        dead: &DeadWriters,
    ) -> Result<bool> {
        if !findable(id.as_str()) {
            return Ok(false);
        }
        // A prefix compared with substr, not LIKE: a node's name may hold '%' or '_'.
        let taken = sqlx::query(
            "UPDATE pending_uploads SET lock_holder = $1, lock_until = $2 \
         WHERE id = $3 AND assembly IS NOT NULL AND (lock_holder IS NULL OR lock_holder = $1 OR lock_until < $4 \
         OR ($5 <> '' AND substr(lock_holder, 1, length($5)) = $5 AND substr(lock_holder, 1, length($6)) <> $6))",
        )
        .bind(holder)
        .bind(until_ms)
        .bind(id.as_str())
        .bind(now_ms)
        .bind(dead.node.as_str())
        .bind(dead.alive.as_str())
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(taken == 1)
    }

    async fn record_piece(&self, id: &PendingId, holder: &str, piece: &PieceRecord<'_>) -> Result<bool> {
        let declared = piece.declared_length.map(as_i64);
        let recorded = sqlx::query(
            "UPDATE pending_uploads SET assembly = $1, expires_at = $2, size = COALESCE($3, size), \
         length_deferred = CASE WHEN $4 = 1 THEN 0 ELSE length_deferred END \
         WHERE id = $5 AND lock_holder = $6",
        )
        .bind(assembly_text(piece.assembly)?)
        .bind(piece.expires_at_ms)
        .bind(declared)
        .bind(i64::from(declared.is_some()))
        .bind(id.as_str())
        .bind(holder)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(recorded == 1)
    }

    async fn unlock_upload(&self, id: &PendingId, holder: &str) -> Result<()> {
        sqlx::query(
            "UPDATE pending_uploads SET lock_holder = NULL, lock_until = NULL WHERE id = $1 AND lock_holder = $2",
        )
        .bind(id.as_str())
        .bind(holder)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn pending(&self, id: &PendingId) -> Result<Option<PendingUpload>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let sql = format!("SELECT {PENDING_COLUMNS} FROM pending_uploads WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id.as_str()).fetch_optional(&self.pool).await?;
        row.as_ref().map(pending_of).transpose()
    }

    async fn confirm_pending(&self, pending_id: &PendingId, file: NewFile) -> Result<ConfirmOutcome> {
        let mut tx = self.pool.begin().await?;
        // The write comes first so SQLite takes its write lock at once (a read-then-write transaction could
        // fail to upgrade under contention), and so two racing confirms serialize here.
        let claimed = sqlx::query("UPDATE pending_uploads SET file_id = $1 WHERE id = $2 AND file_id IS NULL")
            .bind(file.id.as_str())
            .bind(pending_id.as_str())
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

        let mut folder_id: Option<FolderId> = None;
        if let Some(folder) = file.path.folder() {
            for path in folder.lineage() {
                sqlx::query(
                    "INSERT INTO folders (id, account_id, parent_id, path, created_at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (account_id, path) DO NOTHING",
                )
                .bind(FolderId::mint().as_str())
                .bind(file.account_id.as_str())
                .bind(folder_id.as_ref().map(FolderId::as_str))
                .bind(&path)
                .bind(file.now_ms)
                .execute(&mut *tx)
                .await?;
                let row = sqlx::query("SELECT id FROM folders WHERE account_id = $1 AND path = $2")
                    .bind(file.account_id.as_str())
                    .bind(&path)
                    .fetch_one(&mut *tx)
                    .await?;
                folder_id = Some(FolderId::new(text(&row, "id")?));
            }
        }

        let video = VideoColumns::of(file.video.as_ref());
        let mut path = file.path.clone();
        for attempt in 0..NAME_ATTEMPTS {
            if attempt > 0 {
                path = file.path.with_suffix(&name_suffix());
            }
            let inserted = sqlx::query(
                "INSERT INTO files (id, account_id, folder_id, path, stem, name, object_key, raw_type, kind, size, \
             created_at, updated_at, width, height, has_alpha, frame_count, rotation, duration_ms, frame_rate_num, \
             frame_rate_den, video_codec, audio_codec, bitrate) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, \
             $21, $22) \
             ON CONFLICT DO NOTHING",
            )
            .bind(file.id.as_str())
            .bind(file.account_id.as_str())
            .bind(folder_id.as_ref().map(FolderId::as_str))
            .bind(path.to_string())
            .bind(path.stem())
            .bind(path.name().as_str())
            .bind(file.object_key.as_str())
            .bind(file.raw_type.as_str())
            .bind(file.kind.as_str())
            .bind(as_i64(file.size))
            .bind(file.now_ms)
            .bind(file.facts.map(|f| i64::from(f.width)).or(video.size.map(|(w, _)| i64::from(w))))
            .bind(file.facts.map(|f| i64::from(f.height)).or(video.size.map(|(_, h)| i64::from(h))))
            .bind(file.facts.map(|f| i64::from(f.has_alpha)))
            .bind(file.facts.map(|f| i64::from(f.frame_count)).or(video.frame_count.map(as_i64)))
            .bind(video.rotation)
            .bind(video.duration_ms)
            .bind(video.frame_rate_num)
            .bind(video.frame_rate_den)
            .bind(video.video_codec.clone())
            .bind(video.audio_codec.clone())
            .bind(video.bitrate)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 1 {
                tx.commit().await?;
                return Ok(ConfirmOutcome::Created(Box::new(FileRecord {
                    id: file.id,
                    account_id: file.account_id,
                    folder_id,
                    name: path.name().as_str().to_owned(),
                    path,
                    object_key: file.object_key,
                    raw_type: file.raw_type,
                    kind: file.kind,
                    size: file.size,
                    created_at_ms: file.now_ms,
                    updated_at_ms: file.now_ms,
                    focus: None,
                    facts: file.facts,
                    video: file.video,
                    summary: None,
                })));
            }
        }
        tx.rollback().await?;
        Err(MetadataError::NameExhausted(file.path.to_string()))
    }

    async fn expired_pending(&self, before_ms: i64, limit: u64) -> Result<Vec<PendingUpload>> {
        let sql = format!(
            "SELECT {PENDING_COLUMNS} FROM pending_uploads WHERE expires_at < $1 ORDER BY expires_at, id LIMIT $2"
        );
        let rows =
            sqlx::query(sqlx::AssertSqlSafe(sql)).bind(before_ms).bind(as_i64(limit)).fetch_all(&self.pool).await?;
        rows.iter().map(pending_of).collect()
    }

    async fn delete_pending(&self, id: &PendingId) -> Result<()> {
        sqlx::query("DELETE FROM pending_uploads WHERE id = $1").bind(id.as_str()).execute(&self.pool).await?;
        Ok(())
    }
}

fn assembly_text(assembly: &Assembly) -> Result<String> {
    serde_json::to_string(assembly).map_err(|e| MetadataError::Corrupt(format!("an assembly does not write: {e}")))
}
