//! Deleting a file: its records first (the file row and, taken before it, its variants' rows), so the file
//! is unreachable at once; then every node forgets it; then its objects go, now or by a retried job.

use shutterbox_metadata::{DeletedFile, MetadataError};
use shutterbox_model::{AccountId, FileId};

use crate::state::AppState;

/// Deletes file `file_id` of account `account_id`; `None` when the account has no such file.
pub async fn delete(
    state: &AppState,
    account_id: &AccountId,
    file_id: &FileId,
) -> Result<Option<DeletedFile>, MetadataError> {
    let Some(deleted) = state.metadata.delete_file(account_id, file_id).await? else { return Ok(None) };
    state.file_changed(&deleted.file.id).await;
    let keys = std::iter::once(&deleted.file.object_key).chain(deleted.variants.iter().map(|v| &v.object_key));
    for key in keys {
        state.discard(key).await;
    }
    Ok(Some(deleted))
}
