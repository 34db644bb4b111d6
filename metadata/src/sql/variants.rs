//! Rendered variants kept in the object store, by file and digest.

use super::{SqlMetadata, as_i64, findable, variant_of};
use crate::{Result, VariantRecord};
pub(super) async fn variant(db: &SqlMetadata, file_id: &str, digest: &str) -> Result<Option<VariantRecord>> {
    if !findable(file_id) {
        return Ok(None);
    }
    let row = sqlx::query(
        "SELECT file_id, digest, object_key, content_type, size FROM variants WHERE file_id = $1 AND digest = $2",
    )
    .bind(file_id)
    .bind(digest)
    .fetch_optional(&db.pool)
    .await?;
    row.as_ref().map(variant_of).transpose()
}

pub(super) async fn put_variant(db: &SqlMetadata, variant: &VariantRecord, now_ms: i64) -> Result<bool> {
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
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
