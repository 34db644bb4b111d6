//! Confirming an upload: copy-then-claim. Each attempt copies the pending object to a key of its own, then
//! one transaction claims the pending upload and creates the file; the loser of a race discards its copy
//! and answers with the winner's file, so racing or repeated confirms yield one file and no orphan. The
//! pending object is removed afterwards, so a late PUT to the old URL cannot change a confirmed file.

use shutterbox_jobs::Job;
use shutterbox_metadata::{ConfirmOutcome, FileRecord, MetadataError, NewFile};
use shutterbox_model::{
    AccountId, AccountName, FileId, FileKind, ImageFacts, PendingId, VideoContainer, VideoFacts, sniff,
};
use shutterbox_pipeline::read_facts;
use shutterbox_storage::{ObjectKey, StoreError, read_head};

use shutterbox_variants::read_video_facts_stored;

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
    #[error("this resumable upload has {received} of its {length} bytes; send the rest before confirming")]
    Incomplete { received: u64, length: String },
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
    if let Some(resumable) = &pending.resumable {
        let received = resumable.assembly.offset;
        if resumable.length_deferred || received < pending.size {
            let length = if resumable.length_deferred { "undeclared".to_owned() } else { pending.size.to_string() };
            return Err(ConfirmError::Incomplete { received, length });
        }
        // Every byte is in: the assembly becomes the pending object (again, harmlessly, if a racing
        // confirm did it first; a racing confirm that already made the file has removed it).
        if let Err(e) = state.store.finish_assembly(&pending_key, &resumable.assembly).await {
            if let Some(file_id) = confirmed_meanwhile(state, &pending.id).await? {
                return already_confirmed(state, account_id, &file_id).await;
            }
            return Err(e.into());
        }
    }
    // The size and the leading bytes in one round trip's time (two requests at once to an S3 store).
    let (info, head) =
        tokio::join!(state.store.stat(&pending_key), read_head(state.store.as_ref(), &pending_key, HEAD_BYTES));
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
    let head = head.unwrap_or_default();
    let sniffed = sniff::sniff(&pending.declared_type, &head[..head.len().min(sniff::SNIFF_BYTES)]);
    let container = sniffed.mime.format().and_then(|format| format.info().video);
    let (facts, video) = match (sniffed.kind, container) {
        (FileKind::Image, _) => (header_facts(state, &pending_key, head, info.size).await, None),
        (_, Some(container)) => (None, video_facts(state, &pending_key, head, info.size, container).await),
        _ => (None, None),
    };
    let account = AccountName::parse(account_name).map_err(|e| ConfirmError::Corrupt(e.to_string()))?;
    let path = pending.stored_path(&account).map_err(ConfirmError::Corrupt)?;

    // Each attempt copies to a key of its own; the database decides which attempt created the file.
    let file_id = FileId::mint();
    let attempt = file_id.clone();
    let file_key = ObjectKey::original(&file_id);
    // Noted before the copy: should this process die before the record exists, the sweep removes the
    // copy (worker/src/sweeper.rs). Racing attempts that lose leave theirs to the sweep as well.
    state.metadata.begin_objects(&[&file_key], now_ms).await?;
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
        facts,
        video,
    };
    match state.metadata.confirm_pending(&pending.id, new_file).await {
        Ok(ConfirmOutcome::Created(file)) => {
            if let Err(e) = state.metadata.end_objects(&[&file.object_key]).await {
                // The sweep finds the record and only drops the note.
                tracing::warn!(error = %e, "could not settle a confirmed upload's object note");
            }
            tokio::join!(
                state.discard(&pending_key),
                delivery::enqueue_thumbnail(state, &file),
                enqueue_description(state, &file)
            );
            Ok(Confirmed::Created(*file))
        }
        Ok(ConfirmOutcome::AlreadyConfirmed { file_id }) => {
            state.discard(&file_key).await;
            already_confirmed(state, account_id, &file_id).await
        }
        Err(e) => {
            // A COMMIT whose answer was lost may have committed: the pending row says which attempt created
            // the file. This one's object is removed only when it surely did not; unsure, it stays noted for
            // the sweep, which removes it only if no record refers to it.
            match confirmed_meanwhile(state, &pending.id).await {
                Ok(Some(created)) if created == attempt => return already_confirmed(state, account_id, &created).await,
                Ok(_) => state.discard(&file_key).await,
                Err(again) => tracing::warn!(error = %again, "could not tell whether a failed confirm committed"),
            }
            Err(e.into())
        }
    }
}

/// How much of an upload confirm reads first: its type, and for a JPEG, a still PNG or WebP or a BMP the
/// headers its facts come from.
const HEAD_BYTES: usize = 256 << 10;

/// The largest upload confirm reads whole when its facts need more than the head (a GIF's or an animated
/// WebP's frames, a TIFF's directories, a HEIF container's boxes); a larger one has them from its
/// description job.
const WHOLE_READ_BYTES: u64 = 64 << 20;

/// An image's facts from its headers (`shutterbox_pipeline::read_facts`): from the `head` already read
/// where that holds them, else from the whole object up to `WHOLE_READ_BYTES`. `None` when its headers
/// cannot be read here: the description job tries again, and says why if it cannot either.
async fn header_facts(state: &AppState, key: &ObjectKey, head: Vec<u8>, size: u64) -> Option<ImageFacts> {
    let whole = head.len() as u64 >= size;
    // What libheif parses is read where the service's isolated decoders run, never here.
    if shutterbox_pipeline::parsed_by_libheif(&head) {
        if size > WHOLE_READ_BYTES {
            return None;
        }
    } else {
        match read_facts(&head, whole) {
            Ok(Some(facts)) => return Some(facts),
            Ok(None) if size <= WHOLE_READ_BYTES => {}
            Ok(None) => return None,
            Err(e) => {
                tracing::debug!(error = %e, "an image's headers do not read");
                return None;
            }
        }
    }
    let bytes = match state.store.get(key).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(e) => {
            tracing::warn!(error = %e, "could not read an upload for its image facts");
            return None;
        }
    };
    // A container walked end to end (or copied, as avif-parse does) is work for a blocking thread.
    let variants = state.variants.clone();
    tokio::task::spawn_blocking(move || variants.whole_facts(&bytes)).await.ok()?.ok().flatten()
}

/// A video's facts from its container's headers (`shutterbox_pipeline::video`), read through ranged reads
/// of the upload beyond the `head` already read: a few kilobytes of a file of any size. `None` when they
/// cannot be read; the description job tries again, and the file is stored either way.
async fn video_facts(
    state: &AppState,
    key: &ObjectKey,
    head: Vec<u8>,
    size: u64,
    container: VideoContainer,
) -> Option<VideoFacts> {
    match read_video_facts_stored(state.store.clone(), key.clone(), size, head, container).await {
        Ok(facts) => Some(facts),
        Err(e) => {
            tracing::info!(error = %e, "a video's headers do not read");
            None
        }
    }
}

/// Queues the description of a new image or video (its pixel summary, from a video's poster, and its
/// facts where confirm could not read them). Failing to queue leaves them null until `shutterbox backfill`
/// runs; the confirm still succeeds.
async fn enqueue_description(state: &AppState, file: &FileRecord) {
    if !matches!(file.kind, FileKind::Image | FileKind::Video) {
        return;
    }
    if let Err(e) = Job::describe_image(&file.id).enqueue(state.queue.as_ref()).await {
        tracing::warn!(error = %e, file = %file.id, "could not queue an image's description; a backfill makes it");
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
            ConfirmError::Expired
            | ConfirmError::NotArrived
            | ConfirmError::Incomplete { .. }
            | ConfirmError::SizeMismatch { .. } => Self::bad_request(e.to_string()),
            ConfirmError::Metadata(e) => e.into(),
            ConfirmError::Store(e) => e.into(),
            ConfirmError::Corrupt(detail) => Self::internal(detail),
        }
    }
}
