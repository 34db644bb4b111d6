//! What can go wrong with a variant, for a request and a job alike: one error type, which the API maps to
//! statuses once (a rejected source or request is the caller's 400; overload a 503; our own fault a 500).

use shutterbox_metadata::MetadataError;
use shutterbox_model::FileId;
use shutterbox_pipeline::PipelineError;
use shutterbox_storage::StoreError;

use crate::render_pool::PoolError;

#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    /// The source or the parameters are at fault (bad image, crop outside, too many pixels).
    #[error("{0}")]
    Rejected(PipelineError),
    #[error("rendering failed: {0}")]
    Render(PipelineError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    #[error("the original of file {0} is missing from the store")]
    OriginalMissing(FileId),
    #[error("render task failed: {0}")]
    Task(#[from] PoolError),
    /// Every render slot is taken and the queue for them is full: come back later.
    #[error("too many renders are running or waiting")]
    Overloaded,
    /// The render stopped at its deadline (the service too busy to finish it in time) or was cancelled
    /// by its caller: the same request may succeed later, so it is never remembered as refused.
    #[error("{0}")]
    Unfinished(PipelineError),
    /// A video's frame was asked of a node that cannot decode one (no FFmpeg where it was configured).
    #[error("this service cannot decode video frames: FFmpeg is not available to it")]
    NoVideoDecoder,
    /// The caller's budget of cold renders is spent (`RenderBudget`).
    #[error("this client has asked for too many new variants; retry in {retry_after_secs} s")]
    Throttled { retry_after_secs: u64 },
}

impl VariantError {
    /// A render's failure: the request's fault, a render that could not finish, or ours.
    pub fn of_render(e: PipelineError) -> Self {
        if e.is_transient() {
            Self::Unfinished(e)
        } else if e.is_client_error() {
            Self::Rejected(e)
        } else {
            Self::Render(e)
        }
    }
}
