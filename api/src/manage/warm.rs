//! Batch warming: `POST /v1/warm` renders chosen transformations of chosen image files (or of all the
//! account's images) ahead of their first request, one `RenderVariant` job per (file, transformation)
//! item; `GET /v1/warm/{batchId}` reads how many items are done and how many failed. Transformations are
//! delivery query strings, validated by the same parser as delivery, so a batch warms exactly the
//! variants those URLs will ask for.

use std::{collections::HashSet, sync::Arc};

use futures_util::{StreamExt, stream};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;
use shutterbox_jobs::{Job, WarmItem};
use shutterbox_metadata::{FileRecord, WarmBatch, WarmItemState};
use shutterbox_model::{BatchId, FileId, FileKind, Operation, clock::now_ms};
use shutterbox_pipeline::Transform;

use crate::{
    auth::Caller,
    delivery::{DeliveryAccess, Rendition, query_pairs},
    error::ApiError,
    http::{body::JsonBody, route::ApiTags},
    manage::files::Pagination,
    state::AppState,
};

/// Most transformations one batch may name.
const MAX_TRANSFORMATIONS: usize = 50;
/// Enqueues sent at once while a batch is created.
const ENQUEUES_IN_FLIGHT: usize = 16;
/// Most files one batch may name (each is looked up).
const MAX_FILE_IDS: usize = 10_000;
/// Most items (files × transformations) one batch may hold.
const MAX_ITEMS: usize = 100_000;

/// What to warm.
#[derive(Debug, Object, Deserialize)]
#[oai(example, skip_serializing_if_is_none, rename_all = "camelCase")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WarmRequest {
    /// Ids of image files of the account, at most 10,000. Omitted: every image file of the account.
    #[oai(nullable, validator(max_items = 10000))]
    pub file_ids: Option<Vec<String>>,
    /// Transformations as delivery query strings, e.g. `w=320`, `w=640&format=webp` or `preset=thumb`; 1
    /// to 50, each changing something.
    #[oai(validator(min_items = 1, max_items = 50))]
    pub transformations: Vec<String>,
}

/// A failed item of a warming batch.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct WarmItemFailure {
    /// The image file.
    pub file_id: String,
    /// The transformation, as the batch named it.
    pub transformation: String,
    /// Why it was not rendered: the render's error (an undecodable image, a crop outside it, a limit), or
    /// why it could not be queued.
    pub reason: String,
}

/// A warming batch and its progress. `done + failed` reaches `total` when every item has finished.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct WarmBatchStatus {
    pub batch_id: String,
    /// Items in the batch: files × transformations.
    pub total: u64,
    /// Items rendered (or already kept, or needing no render).
    pub done: u64,
    /// Items that could not be rendered (an undecodable image, a crop outside it, repeated failures).
    pub failed: u64,
    /// Items still waiting or being rendered.
    pub pending: u64,
    /// Whether every item has finished.
    pub complete: bool,
    /// The failed items, in the batch's order (files × transformations), a page at a time (`page` and
    /// `pageSize` of `GET /warm/{batchId}`; the first 20 otherwise).
    pub failures: Vec<WarmItemFailure>,
    /// Where `failures` stands among all the failed items.
    pub failures_pagination: Pagination,
}

/// Failed items shown when no page is asked for.
const FAILURES_PER_PAGE: u64 = 20;

impl WarmBatchStatus {
    /// The batch's progress and the `page` (from 1) of `page_size` of its failed items.
    async fn read(
        state: &AppState,
        caller: &Caller,
        batch_id: &BatchId,
        page: u64,
        page_size: u64,
    ) -> Result<Option<Self>, ApiError> {
        let Some(p) = state.metadata.warm_progress(&caller.account_id, batch_id).await? else { return Ok(None) };
        let offset = (page - 1).saturating_mul(page_size);
        let (failures, total_count) =
            state.metadata.warm_failures(&caller.account_id, batch_id, offset, page_size).await?;
        let finished = p.done + p.failed;
        Ok(Some(Self {
            batch_id: p.id.into_string(),
            total: p.total,
            done: p.done,
            failed: p.failed,
            pending: p.total.saturating_sub(finished),
            complete: finished >= p.total,
            failures: failures
                .into_iter()
                .map(|f| WarmItemFailure {
                    file_id: f.file_id.into_string(),
                    transformation: f.query,
                    reason: f.reason,
                })
                .collect(),
            failures_pagination: Pagination::new(page, page_size, total_count),
        }))
    }
}

#[derive(ApiResponse)]
pub enum WarmCreated {
    /// The batch is queued; read its progress at `/warm/{batchId}`.
    #[oai(status = 202)]
    Accepted(Json<WarmBatchStatus>),
}

/// One validated transformation: its query as given and its parsed form.
struct Planned {
    query: String,
    transform: Transform,
}

fn plan(access: &DeliveryAccess, transformations: &[String]) -> Result<Vec<Planned>, ApiError> {
    if transformations.is_empty() || transformations.len() > MAX_TRANSFORMATIONS {
        return Err(ApiError::bad_request(format!(
            "transformations must list 1 to {MAX_TRANSFORMATIONS} delivery query strings"
        )));
    }
    transformations
        .iter()
        .map(|query| {
            let query = query.trim_start_matches('?').to_owned();
            if query.chars().any(char::is_control) {
                return Err(ApiError::bad_request("transformations cannot contain control characters"));
            }
            let (transform, _) = access.transformation(&query_pairs(&query)).map_err(|e| {
                let mut error = ApiError::from(e);
                error.message = format!("transformation '{query}': {}", error.message);
                error
            })?;
            if transform.is_identity() {
                return Err(ApiError::bad_request(format!("transformation '{query}' changes nothing")));
            }
            Ok(Planned { query, transform })
        })
        .collect()
}

async fn files_to_warm(
    state: &AppState,
    caller: &Caller,
    ids: Option<Vec<String>>,
) -> Result<Vec<FileRecord>, ApiError> {
    let Some(ids) = ids else { return Ok(state.metadata.image_files(&caller.account_id).await?) };
    if ids.len() > MAX_FILE_IDS {
        return Err(ApiError::bad_request(format!("fileIds lists at most {MAX_FILE_IDS} files; split the batch")));
    }
    let mut seen = HashSet::with_capacity(ids.len());
    let mut files = Vec::with_capacity(ids.len());
    for id in ids {
        if !seen.insert(id.clone()) {
            continue;
        }
        let file = state
            .metadata
            .file(&caller.account_id, &FileId::new(id.as_str()))
            .await?
            .ok_or_else(|| ApiError::not_found(format!("no file with id '{id}'")))?;
        if file.kind != FileKind::Image {
            return Err(ApiError::bad_request(format!("file '{id}' is not an image")));
        }
        files.push(file);
    }
    Ok(files)
}

pub struct WarmApi;

#[OpenApi(tag = "ApiTags::Warming")]
impl WarmApi {
    /// Warm variants in a batch
    ///
    /// Queues the rendering of every listed transformation of every listed image file (all the account's
    /// image files when `fileIds` is omitted), so their first requests are served from the store. Answers
    /// at once with the batch's id; its progress is at `GET /warm/{batchId}`. Needs a secret key.
    #[oai(path = "/warm", method = "post", operation_id = "createWarmBatch")]
    async fn create(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        body: JsonBody<WarmRequest>,
    ) -> Result<WarmCreated, ApiError> {
        caller.require(Operation::Warm)?;
        let request = body.read().await?;
        let planned = plan(&state.settings.access, &request.transformations)?;
        let files = files_to_warm(&state, &caller, request.file_ids).await?;
        if files.len().saturating_mul(planned.len()) > MAX_ITEMS {
            return Err(ApiError::bad_request(format!(
                "a batch holds at most {MAX_ITEMS} items (files × transformations); split it"
            )));
        }

        // A flood of batches waits for its own: the account's queued items are weighed first.
        let allowed = state.settings.max_warm_items;
        let outstanding = state.metadata.outstanding_warm_items(&caller.account_id).await?;
        let asked = (files.len() as u64).saturating_mul(planned.len() as u64);
        if outstanding.saturating_add(asked) > allowed {
            return Err(ApiError {
                retry_after: Some(60),
                ..ApiError::new(
                    poem::http::StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "this account has {outstanding} warming items still queued; {asked} more would pass the \
                         {allowed} it may have queued at once, so wait for its batches to finish"
                    ),
                )
            });
        }
        let items: Vec<(&FileRecord, &Planned)> =
            files.iter().flat_map(|file| planned.iter().map(move |p| (file, p))).collect();
        let batch = WarmBatch {
            id: BatchId::mint(),
            account_id: caller.account_id.clone(),
            items: items.iter().map(|(file, p)| (file.id.clone(), p.query.clone())).collect(),
            created_at_ms: now_ms(),
        };
        state.metadata.create_warm_batch(&batch).await?;

        let mut jobs = Vec::with_capacity(items.len());
        for (n, (file, p)) in items.iter().enumerate() {
            let item = u32::try_from(n).map_err(ApiError::internal)?;
            // Served as stored (no transformation, SVG and BMP sources, format=bmp): nothing to render, the
            // item is done.
            let Ok(Rendition::Variant(spec)) = Rendition::of(file, &p.transform, None) else {
                state.metadata.finish_warm_item(&batch.id, item, &WarmItemState::Done, now_ms()).await?;
                continue;
            };
            let job = Job::render_variant(&file.id, spec, Some(WarmItem { batch_id: batch.id.clone(), item }));
            jobs.push((item, job));
        }
        // Several enqueues in flight at once: a queue out of process answers each after a round trip.
        let (queue, to_queue) = (&state.queue, jobs.len());
        let refused: Vec<(u32, String)> = stream::iter(jobs)
            .map(|(item, job)| async move { job.enqueue(queue.as_ref()).await.err().map(|e| (item, e.to_string())) })
            .buffer_unordered(ENQUEUES_IN_FLIGHT)
            .filter_map(std::future::ready)
            .collect()
            .await;
        // An item not queued can never finish: it counts as failed, so the batch still completes and its
        // reader learns that something went wrong. Nothing queued at all is a 503.
        for (item, e) in &refused {
            let failed = WarmItemState::Failed { reason: format!("it could not be queued: {e}") };
            state.metadata.finish_warm_item(&batch.id, *item, &failed, now_ms()).await?;
        }
        if let Some((_, e)) = refused.first() {
            tracing::warn!(error = %e, batch = %batch.id, refused = refused.len(), "could not queue warming items");
            if refused.len() == to_queue {
                return Err(ApiError::unavailable("the job queue", e));
            }
        }
        let status = WarmBatchStatus::read(&state, &caller, &batch.id, 1, FAILURES_PER_PAGE)
            .await?
            .ok_or_else(|| ApiError::internal("a warming batch vanished after it was created"))?;
        Ok(WarmCreated::Accepted(Json(status)))
    }

    /// Read a warming batch's progress
    ///
    /// How many of the batch's items are rendered, failed or still pending; `complete` once none is
    /// pending; and the failed items with their reasons, a page at a time. A batch of another account is a
    /// 404.
    #[oai(path = "/warm/:batchId", method = "get", operation_id = "getWarmBatch")]
    async fn progress(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The batch's id, as returned when it was created.
        #[oai(name = "batchId")]
        batch_id: Path<String>,
        /// Page of the failed items, from 1.
        #[oai(validator(minimum(value = "1"), maximum(value = "1000000000")))]
        page: Query<Option<u64>>,
        /// Failed items per page, 1 to 100 (default 20).
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))]
        page_size: Query<Option<u64>>,
    ) -> Result<Json<WarmBatchStatus>, ApiError> {
        caller.require(Operation::Warm)?;
        let (page, page_size) = (page.0.unwrap_or(1), page_size.0.unwrap_or(FAILURES_PER_PAGE));
        let status = WarmBatchStatus::read(&state, &caller, &BatchId::new(batch_id.0), page, page_size)
            .await?
            .ok_or_else(|| ApiError::not_found("no warming batch with this id"))?;
        Ok(Json(status))
    }
}
