//! HTTP routes: the documented management API (`upload`, `files`), public delivery of stored bytes
//! (`delivery`, `thumbnail`), the local store's presigned upload target (`storage`) and probes (`health`),
//! mounted together by `router`.

pub mod delivery;
pub mod files;
pub mod health;
pub mod storage;
pub mod thumbnail;
pub mod transform;
pub mod upload;
pub mod warm;

use std::sync::Arc;

use poem::{EndpointExt, IntoEndpoint, IntoResponse, Route, endpoint::make_sync, web::Html};
use poem_openapi::Tags;

use crate::{error::envelope, openapi, state::AppState, telemetry::observe};

#[derive(Tags)]
pub enum ApiTags {
    /// Presigned uploads: presign, send the bytes, confirm.
    Upload,
    /// Listing, reading and deleting files.
    Files,
    /// Rendering variants ahead of their first request, in batches.
    Warming,
}

/// Every route of the service over `state`, inside the error envelope and the request telemetry.
pub fn router(state: AppState) -> impl poem::Endpoint {
    let metrics = state.http_metrics.clone();
    let state = Arc::new(state);
    let kept = state.clone();
    let api = Arc::new(openapi::service().into_endpoint());
    let spec = openapi::spec_json();
    let docs = openapi::swagger_ui_html();
    let v1 = Route::new()
        .at("/openapi.json", make_sync(move |_| spec.clone().with_content_type("application/json; charset=utf-8")))
        .at(
            "/docs",
            make_sync({
                let docs = docs.clone();
                move |_| Html(docs.clone())
            }),
        )
        .at("/docs/", make_sync(move |_| Html(docs.clone())))
        // The documented POST under /file/ must win over the public delivery wildcard beside it.
        .at("/file/:id/transform-url", api.clone())
        .at("/files/:id/thumbnail", thumbnail::thumbnail)
        .at("/file/*path", delivery::deliver_file)
        .at("/raw/*path", delivery::deliver_raw)
        .nest("/", api);
    Route::new()
        .nest("/v1", v1)
        .at("/storage/*key", storage::put)
        .at("/healthz", health::live)
        .at("/readyz", health::ready)
        .at("/metrics", health::metrics)
        .data(state)
        .around(envelope)
        // Around everything else, so it sees the final status and every response carries the request id.
        .around(move |endpoint, request| observe(endpoint, metrics.clone(), request))
        // A repeated variant URL, the delivery path's hot case, skips all of the above.
        .around(move |endpoint, request| delivery::answer_kept(endpoint, kept.clone(), request))
}
