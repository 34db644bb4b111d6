//! Confirming an upload: copy-then-claim. Each attempt copies the pending object to a key of its own, then
//! one transaction claims the pending upload and creates the file; the loser of a race discards its copy
//! and answers with the winner's file, so racing or repeated confirms yield one file and no orphan. The
//! pending object is removed afterwards, so a late PUT to the old URL cannot change a confirmed file.

use shutterbox_metadata::{ConfirmOutcome, FileRecord, MetadataError, NewFile};
use shutterbox_model::{AccountId, AccountName, FileId, PendingId, sniff};
use shutterbox_storage::{ObjectKey, StoreError, read_head};

use crate::{delivery, error::ApiError, state::AppState};

/// What a confirm found or made.
pub enum Confirmed {
    /// This confirm created the file.
    Created(FileRecord),
    /// The upload had been confirmed before (or by a racing confirm): its file.
    Already(FileRecord),
}

/// Why an upload cannot be confirmed.
#[derive(Debug, thiserror::Error)]
pub enum ConfirmError {
    #[error("no pending upload with this pendingUploadId")]
    UnknownUpload,
    #[error("this upload expired before it was confirmed; request a new upload URL with /upload/presign")]
    Expired,
    #[error("no bytes have arrived at the uploadUrl yet; PUT the file there before confirming")]
    NotArrived,
    #[error(
        "the uploaded object has {stored} bytes but {declared} were declared at presign; the object was \
         discarded, upload it again"
    )]
    SizeMismatch { stored: u64, declared: u64 },
    #[error("the file created by this upload has since been deleted")]
    FileDeleted,
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A record that breaks our own rules (an account or path that no longer parses).
    #[error("{0}")]
    Corrupt(String),
}

/// Confirms pending upload `pending_id` of account `account_id` (named `account_name`) at `now_ms`.
pub async fn confirm(
    state: &AppState,
    account_id: &AccountId,
    account_name: &str,
    pending_id: &PendingId,
    now_ms: i64,
) -> Result<Confirmed, ConfirmError> {
    let pending = state
        .metadata
        .pending(pending_id)
        .await?
        .filter(|p| &p.account_id == account_id)
        .ok_or(ConfirmError::UnknownUpload)?;
    if let Some(file_id) = &pending.file_id {
        return already_confirmed(state, account_id, file_id).await;
    }
    let pending_key = pending.object_key.clone();
    if now_ms > pending.expires_at_ms {
        state.discard(&pending_key).await;
        return Err(ConfirmError::Expired);
    }
    // The size and the leading bytes in one round trip's time (two requests at once to an S3 store).
    let (info, head) =
        tokio::join!(state.store.stat(&pending_key), read_head(state.store.as_ref(), &pending_key, sniff::SNIFF_BYTES));
    let (info, head) = match (info, head) {
        (Ok(Some(info)), Ok(head)) => (info, head),
        (info, head) => {
            // A racing confirm of this upload may have just created the file and removed the object,
            // before or between these two reads (a read cut short by the removal is a store error).
            if let Some(file_id) = confirmed_meanwhile(state, &pending.id).await? {
                return already_confirmed(state, account_id, &file_id).await;
            }
            let Some(info) = info? else { return Err(ConfirmError::NotArrived) };
            (info, head?)
        }
    };
    if info.size != pending.size {
        state.discard(&pending_key).await;
        return Err(ConfirmError::SizeMismatch { stored: info.size, declared: pending.size });
    }
    let sniffed = sniff::sniff(&pending.declared_type, &head.unwrap_or_default());
    let account = AccountName::parse(account_name).map_err(|e| ConfirmError::Corrupt(e.to_string()))?;
    let path = pending.stored_path(&account).map_err(ConfirmError::Corrupt)?;

    // Each attempt copies to a key of its own; the database decides which attempt created the file.
    let file_id = FileId::mint();
    let file_key = ObjectKey::original(&file_id);
    // Noted before the copy: should this process die before the record exists, the sweep removes the
    // copy (worker/src/sweeper.rs). Racing attempts that lose leave theirs to the sweep as well.
    state.metadata.begin_objects(&[file_key.as_str()], now_ms).await?;
    if let Err(e) = state.store.copy(&pending_key, &file_key).await {
        // The object vanishes when a racing confirm of this upload wins: answer with its file.
        if let Some(file_id) = confirmed_meanwhile(state, &pending.id).await? {
            return already_confirmed(state, account_id, &file_id).await;
        }
        return Err(e.into());
    }
    // Tests stop the process here to leave exactly what a crash would (tests/api/sweep.rs).
    fail::fail_point!("confirm-after-copy");
    let new_file = NewFile {
        id: file_id,
        account_id: account_id.clone(),
        path,
        object_key: file_key.clone(),
        raw_type: sniffed.mime,
        kind: sniffed.kind,
        size: info.size,
        now_ms,
    };
    match state.metadata.confirm_pending(&pending.id, new_file).await {
        Ok(ConfirmOutcome::Created(file)) => {
            if let Err(e) = state.metadata.end_objects(&[file.object_key.as_str()]).await {
                // The sweep finds the record and only drops the note.
                tracing::warn!(error = %e, "could not settle a confirmed upload's object note");
            }
            tokio::join!(state.discard(&pending_key), delivery::enqueue_thumbnail(state, &file));
            Ok(Confirmed::Created(*file))
        }
        Ok(ConfirmOutcome::AlreadyConfirmed { file_id }) => {
            state.discard(&file_key).await;
            already_confirmed(state, account_id, &file_id).await
        }
        Err(e) => {
            state.discard(&file_key).await;
            Err(e.into())
        }
    }
}

/// The file created by a pending upload, if it has been confirmed since it was first read.
async fn confirmed_meanwhile(state: &AppState, pending_id: &PendingId) -> Result<Option<FileId>, ConfirmError> {
    Ok(state.metadata.pending(pending_id).await?.and_then(|p| p.file_id))
}

async fn already_confirmed(
    state: &AppState,
    account_id: &AccountId,
    file_id: &FileId,
) -> Result<Confirmed, ConfirmError> {
    let file = state.metadata.file(account_id, file_id).await?.ok_or(ConfirmError::FileDeleted)?;
    Ok(Confirmed::Already(file))
}

impl From<ConfirmError> for ApiError {
    fn from(e: ConfirmError) -> Self {
        match e {
            ConfirmError::UnknownUpload | ConfirmError::FileDeleted => Self::not_found(e.to_string()),
            ConfirmError::Expired | ConfirmError::NotArrived | ConfirmError::SizeMismatch { .. } => {
                Self::bad_request(e.to_string())
            }
            ConfirmError::Metadata(e) => e.into(),
            ConfirmError::Store(e) => e.into(),
            ConfirmError::Corrupt(detail) => Self::internal(detail),
        }
    }
}
