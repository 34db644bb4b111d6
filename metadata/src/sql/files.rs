//! Files: lookups by id, path and stem, listing, and deletion with their variants.

use shutterbox_model::{ImageFacts, PixelSummary, VideoFacts};

use super::{
    FILE_COLUMNS, SqlMetadata, VARIANT_COLUMNS, VideoColumns, as_i64, count, file_of, findable, placeholders,
    variant_of,
};
use async_trait::async_trait;
use shutterbox_model::{AccountId, FileId, FocalPoint, FolderId};

use sqlx::{Row as _, any::AnyRow};

use crate::{DeletedFile, FileListing, FileRecord, FileSortKey, FileStore, FolderRecord, FolderScope, Result};
#[async_trait]
impl FileStore for SqlMetadata {
    async fn file(&self, account_id: &AccountId, id: &FileId) -> Result<Option<FileRecord>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1 AND account_id = $2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .bind(account_id.as_str())
            .fetch_optional(&self.pool)
            .await?;
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

    async fn list_files(
        &self,
        account_id: &AccountId,
        listing: &FileListing,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<FileRecord>, u64)> {
        // No stored name or id holds a NUL, which PostgreSQL cannot even take as a parameter.
        let folder_id = match &listing.folder {
            Some(FolderScope::Folder(id)) => Some(id.as_str()),
            _ => None,
        };
        if !listing.name_contains.iter().map(String::as_str).chain(folder_id).all(findable) {
            return Ok((Vec::new(), 0));
        }
        // The filters as SQL conditions over numbered parameters, bound in the same order below.
        let mut conditions = vec!["account_id = $1".to_owned()];
        let mut binds: Vec<String> = vec![account_id.as_str().to_owned()];
        let mut bind = |condition: &str, value: String| {
            binds.push(value);
            conditions.push(condition.replace('?', &format!("${}", binds.len())));
        };
        if let Some(text) = &listing.name_contains {
            bind("LOWER(name) LIKE LOWER(?) ESCAPE '\\'", contains_pattern(text));
        }
        if let Some(kind) = listing.kind {
            bind("kind = ?", kind.as_str().to_owned());
        }
        match &listing.folder {
            None => {}
            Some(FolderScope::Root) => conditions.push("folder_id IS NULL".to_owned()),
            Some(FolderScope::Folder(id)) => bind("folder_id = ?", id.as_str().to_owned()),
        }
        let filter = conditions.join(" AND ");
        let direction = if listing.sort.descending { "DESC" } else { "ASC" };
        let c = self.code_point_order;
        let order = match listing.sort.key {
            FileSortKey::Updated => format!("updated_at {direction}, id {direction}"),
            FileSortKey::Name => format!("LOWER(name){c} {direction}, name{c} {direction}, id {direction}"),
            FileSortKey::Size => format!("size {direction}, id {direction}"),
            FileSortKey::Type => format!("raw_type{c} {direction}, LOWER(name){c} {direction}, id {direction}"),
        };

        let sql = format!("SELECT COUNT(*) AS n FROM files WHERE {filter}");
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for value in &binds {
            query = query.bind(value.as_str());
        }
        let total = count(&query.fetch_one(&self.pool).await?, "n")?;

        let n = binds.len();
        let sql = format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE {filter} ORDER BY {order} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for value in &binds {
            query = query.bind(value.as_str());
        }
        let rows = query.bind(as_i64(limit)).bind(as_i64(offset)).fetch_all(&self.pool).await?;
        let files = rows.iter().map(file_of).collect::<Result<Vec<_>>>()?;
        Ok((files, total))
    }

    async fn list_folders(
        &self,
        account_id: &AccountId,
        parent_id: Option<&FolderId>,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<FolderRecord>, u64)> {
        // The parent's condition, and the number of the first parameter after it.
        let (parent, next) = match parent_id {
            Some(_) => ("parent_id = $2", 3),
            None => ("parent_id IS NULL", 2),
        };
        let sql = format!("SELECT COUNT(*) AS n FROM folders WHERE account_id = $1 AND {parent}");
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id.as_str());
        if let Some(id) = parent_id {
            query = query.bind(id.as_str());
        }
        let total = count(&query.fetch_one(&self.pool).await?, "n")?;
        let sql = format!(
            "SELECT id, parent_id, path, {FOLDER_COUNTS} FROM folders WHERE account_id = $1 AND {parent} \
         ORDER BY LOWER(path){c}, path{c}, id LIMIT ${next} OFFSET ${}",
            next + 1,
            c = self.code_point_order
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id.as_str());
        if let Some(id) = parent_id {
            query = query.bind(id.as_str());
        }
        let rows = query.bind(as_i64(limit)).bind(as_i64(offset)).fetch_all(&self.pool).await?;
        let folders = rows.iter().map(folder_of).collect::<Result<Vec<_>>>()?;
        Ok((folders, total))
    }

    async fn folder_lineage(&self, account_id: &AccountId, id: &FolderId) -> Result<Option<Vec<FolderRecord>>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let sql = format!("SELECT id, parent_id, path, {FOLDER_COUNTS} FROM folders WHERE account_id = $1 AND id = $2");
        let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account_id.as_str())
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let folder = folder_of(&row)?;
        // Its ancestors' paths are the prefixes of its own (folders are created along their lineage), so one
        // query finds them all, and the shorter path is the higher folder.
        let segments: Vec<&str> = folder.path.split('/').collect();
        let ancestors: Vec<String> = (1..segments.len()).map(|n| segments[..n].join("/")).collect();
        let mut lineage = Vec::with_capacity(segments.len());
        if !ancestors.is_empty() {
            let sql = format!(
                "SELECT id, parent_id, path, {FOLDER_COUNTS} FROM folders WHERE account_id = $1 AND path IN ({}) \
             ORDER BY LENGTH(path)",
                placeholders(2, ancestors.len())
            );
            let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id.as_str());
            let query = ancestors.iter().fold(query, |query, path| query.bind(path));
            for row in query.fetch_all(&self.pool).await? {
                lineage.push(folder_of(&row)?);
            }
        }
        lineage.push(folder);
        Ok(Some(lineage))
    }

    async fn file_by_id(&self, id: &FileId) -> Result<Option<FileRecord>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id.as_str()).fetch_optional(&self.pool).await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn delete_file(&self, account_id: &AccountId, id: &FileId) -> Result<Option<DeletedFile>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let mut tx = self.pool.begin().await?;
        // On PostgreSQL the file's row is locked first, so a variant being recorded now waits for this
        // delete and then fails its foreign key (`put_variant`'s `false`: its writer removes the object),
        // rather than landing between the two deletes below and going by the cascade unseen.
        if self.locks_rows {
            sqlx::query("SELECT id FROM files WHERE id = $1 AND account_id = $2 FOR UPDATE")
                .bind(id.as_str())
                .bind(account_id.as_str())
                .fetch_optional(&mut *tx)
                .await?;
        }
        // Writes first on SQLite (see confirm_pending). The variant rows go before the file row: the foreign
        // key cascades, so deleting the file first would drop them unseen and leave their objects behind.
        // The `EXISTS` keeps another account's variants out of reach.
        let sql = format!(
            "DELETE FROM variants WHERE file_id = $1 \
         AND EXISTS (SELECT 1 FROM files WHERE files.id = $1 AND files.account_id = $2) \
         RETURNING {VARIANT_COLUMNS}"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .bind(account_id.as_str())
            .fetch_all(&mut *tx)
            .await?;
        let variants = rows.iter().map(variant_of).collect::<Result<Vec<_>>>()?;
        let sql = format!("DELETE FROM files WHERE id = $1 AND account_id = $2 RETURNING {FILE_COLUMNS}");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .bind(account_id.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let file = file_of(&row)?;
        tx.commit().await?;
        Ok(Some(DeletedFile { file, variants }))
    }

    async fn set_focus(
        &self,
        account_id: &AccountId,
        id: &FileId,
        focus: Option<FocalPoint>,
        now_ms: i64,
    ) -> Result<Option<FileRecord>> {
        if !findable(id.as_str()) {
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
            .bind(id.as_str())
            .bind(account_id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(file_of).transpose()
    }

    async fn describe_file(
        &self,
        id: &FileId,
        facts: Option<ImageFacts>,
        summary: Option<&PixelSummary>,
        now_ms: i64,
    ) -> Result<bool> {
        if !findable(id.as_str()) {
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
        .bind(id.as_str())
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(updated == 1)
    }

    async fn set_video_facts(&self, id: &FileId, facts: &VideoFacts) -> Result<bool> {
        if !findable(id.as_str()) {
            return Ok(false);
        }
        let video = VideoColumns::of(Some(facts));
        let updated = sqlx::query(
            "UPDATE files SET width = $1, height = $2, frame_count = $3, rotation = $4, duration_ms = $5, \
         frame_rate_num = $6, frame_rate_den = $7, video_codec = $8, audio_codec = $9, bitrate = $10 WHERE id = $11",
        )
        .bind(video.size.map(|(w, _)| i64::from(w)))
        .bind(video.size.map(|(_, h)| i64::from(h)))
        .bind(video.frame_count.map(as_i64))
        .bind(video.rotation)
        .bind(video.duration_ms)
        .bind(video.frame_rate_num)
        .bind(video.frame_rate_den)
        .bind(video.video_codec)
        .bind(video.audio_codec)
        .bind(video.bitrate)
        .bind(id.as_str())
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(updated == 1)
    }

    async fn undescribed_files(&self, after: Option<&FileId>, limit: u64) -> Result<(Vec<FileRecord>, u64)> {
        const UNDESCRIBED: &str = "kind IN ('image', 'video') AND described_at IS NULL";
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE {UNDESCRIBED} AND id > $1 ORDER BY id LIMIT $2");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(after.map_or("", |id| id.as_str()))
            .bind(as_i64(limit))
            .fetch_all(&self.pool)
            .await?;
        let files = rows.iter().map(file_of).collect::<Result<Vec<_>>>()?;
        let sql = format!("SELECT COUNT(*) AS n FROM files WHERE {UNDESCRIBED}");
        let total = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_one(&self.pool).await?;
        Ok((files, count(&total, "n")?))
    }

    async fn image_files(&self, account_id: &AccountId) -> Result<Vec<FileRecord>> {
        let sql = format!("SELECT {FILE_COLUMNS} FROM files WHERE account_id = $1 AND kind = 'image' ORDER BY id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(account_id.as_str()).fetch_all(&self.pool).await?;
        rows.iter().map(file_of).collect()
    }
}

/// `LIKE` pattern matching `text` anywhere, its wildcards taken literally (escaped with `\`).
fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

const FOLDER_COUNTS: &str = "(SELECT COUNT(*) FROM files WHERE files.folder_id = folders.id) AS file_count, \
     (SELECT COUNT(*) FROM folders AS children WHERE children.parent_id = folders.id) AS folder_count";

fn folder_of(row: &AnyRow) -> Result<FolderRecord> {
    Ok(FolderRecord {
        id: FolderId::new(row.try_get::<String, _>("id")?),
        parent_id: row.try_get::<Option<String>, _>("parent_id")?.map(FolderId::new),
        path: row.try_get("path")?,
        file_count: count(row, "file_count")?,
        folder_count: count(row, "folder_count")?,
    })
}
