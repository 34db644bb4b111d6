//! `GET|HEAD /v1/files/<id>/thumbnail`, public: the file's thumbnail, the value of `secureThumbnailUrl`.
//!
//! The preset is fixed: `w=256&h=256&fit=cover&q=80&anim=false` as WebP (a 256×256 square centre crop, or the whole
//! image when it is smaller). Confirm queues a job that renders it, so it is normally read from the store;
//! if the job has not run yet it is rendered here, once, like any variant. A video's is its poster's. Files
//! without a picture of their own — documents, SVG, sound, images and videos we cannot decode — get a
//! placeholder PNG for their type.

use std::sync::Arc;

use bytes::Bytes;
use poem::{
    Request, Response, handler,
    http::{HeaderValue, StatusCode},
    web::{Data, Path},
};
use shutterbox_jobs::Job;
use shutterbox_metadata::FileRecord;
use shutterbox_model::{FileId, MediaFormat};
use shutterbox_pipeline::{Fit, OutputFormat, PlaceholderKind, Quality, Target, Transform, placeholder_png};
use shutterbox_variants::{Keep, VariantSpec};

use super::{
    file::{etag_matches, not_modified, variant_response},
    responses::CachedResponse,
};
use crate::{error::ApiError, state::AppState, throttle::AddressBudget};

/// The preset: a 256-pixel square covered by the picture, quality 80, an animation's first frame.
pub const PRESET: Transform = Transform {
    width: Some(256),
    height: Some(256),
    fit: Fit::Cover,
    quality: Quality::Value(80),
    quality_given: true,
    still: true,
    ..Transform::NONE
};
const PRESET_FORMAT: OutputFormat = OutputFormat::Webp;

fn preset() -> VariantSpec {
    VariantSpec::new(PRESET, Target::Format(PRESET_FORMAT))
}

/// Whether the file's thumbnail is rendered from its own pixels (else it is a placeholder): a raster image,
/// or a video with a picture (its poster), where this node decodes videos.
fn has_picture(state: &AppState, file: &FileRecord) -> bool {
    let video = file.video.as_ref().is_some_and(|facts| facts.size.is_some()) && state.variants.decodes_video();
    file.raw_type.is_raster_image() || video
}

/// Queues the rendering of a new file's thumbnail. Failing to queue costs nothing but time: the first
/// request renders it instead, so the caller's request still succeeds.
pub async fn enqueue(state: &AppState, file: &FileRecord) {
    if !has_picture(state, file) {
        return;
    }
    if let Err(e) = Job::render_variant(&file.id, preset(), None).enqueue(state.queue.as_ref()).await {
        tracing::warn!(error = %e, file = %file.id, "could not queue a thumbnail; it will be rendered on request");
    }
}

#[handler]
pub async fn thumbnail(
    req: &Request,
    state: Data<&Arc<AppState>>,
    Path(id): Path<FileId>,
) -> Result<Response, ApiError> {
    let file = state.metadata.file_by_id(&id).await?.ok_or_else(|| ApiError::not_found("no file with this id"))?;
    let response = if has_picture(&state, &file) {
        let spec = preset();
        let etag = HeaderValue::try_from(spec.key(&file.id).etag()).map_err(ApiError::internal)?;
        // Before rendering: a client that has the thumbnail costs nothing.
        if etag_matches(req, etag.to_str().unwrap_or_default()) {
            return Ok(not_modified(&state, &etag));
        }
        // Under the cold-render throttle as any delivery: usually confirm's job has stored it, which spends
        // nothing, but a thumbnail that fails to render (and is asked again) must not be a free render.
        let budget = AddressBudget::of(state.cold_renders.as_deref(), req);
        match state.variants.get(&file, &spec, Keep::Pinned, &budget).await.map_err(|e| ApiError::from(&*e)) {
            Ok(variant) => CachedResponse {
                file_id: file.id.clone(),
                etag,
                content_type: HeaderValue::try_from(variant.content_type.as_str()).map_err(ApiError::internal)?,
                bytes: variant.bytes.clone(),
            },
            // An image or video we cannot decode still gets a thumbnail, its kind's placeholder.
            Err(e) if e.status == StatusCode::BAD_REQUEST => {
                placeholder(&file.id, PlaceholderKind::of_mime(file.raw_type.as_str()))
            }
            Err(e) => return Err(e),
        }
    } else {
        placeholder(&file.id, PlaceholderKind::of_mime(file.raw_type.as_str()))
    };
    Ok(variant_response(req, &state, &response))
}

/// A placeholder's ETag names its kind and this build, whose drawing is fixed. Each kind is drawn once.
fn placeholder(file_id: &FileId, kind: PlaceholderKind) -> CachedResponse {
    static PLACEHOLDERS: std::sync::OnceLock<std::sync::Mutex<Vec<(PlaceholderKind, Bytes)>>> =
        std::sync::OnceLock::new();
    let cache = PLACEHOLDERS.get_or_init(Default::default);
    let bytes = {
        let mut cache = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match cache.iter().find(|(k, _)| *k == kind) {
            Some((_, bytes)) => bytes.clone(),
            None => {
                let bytes = Bytes::from(placeholder_png(kind));
                cache.push((kind, bytes.clone()));
                bytes
            }
        }
    };
    let etag = format!("\"placeholder-{}-{}\"", kind.as_str(), env!("CARGO_PKG_VERSION"));
    CachedResponse {
        file_id: file_id.clone(),
        etag: HeaderValue::try_from(etag).unwrap_or_else(|_| HeaderValue::from_static("\"placeholder\"")),
        content_type: HeaderValue::from_static(MediaFormat::Png.mime()),
        bytes,
    }
}
