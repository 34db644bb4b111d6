//! The router, the crate's top layer: the OpenAPI service's operations and the routes' rows (`ROUTES`, each
//! written beside its handler) mounted, each route's responses named with its operation id, inside the error
//! envelope and the request telemetry (`http/`, the bottom layer).

use std::sync::Arc;

use poem::{Endpoint, EndpointExt, IntoEndpoint, Response, Route as Router, endpoint::BoxEndpoint, http::StatusCode};
use poem_openapi::OperationId;

use crate::{
    console, delivery,
    error::ApiError,
    health,
    http::{
        allow::AllowTable,
        envelope::envelope,
        route::{API_PREFIX, MethodCheck, Mount, RouteSpec},
        telemetry::observe,
    },
    manage::resumable,
    openapi,
    state::AppState,
    storage,
};

/// Every route served beside the OpenAPI operations. A route is its row, beside its handler, and its line
/// here (`tests/vocabulary.rs` fails on a row that is not listed).
pub static ROUTES: &[&RouteSpec] = &[
    &delivery::DELIVER_FILE,
    &delivery::DELIVER_RAW,
    &delivery::GET_THUMBNAIL,
    &storage::STORAGE_UPLOAD,
    &resumable::RESUMABLE_UPLOADS,
    &resumable::RESUMABLE_UPLOAD,
    &openapi::OPENAPI_DOCUMENT,
    &openapi::DOCS,
    &health::HEALTHZ,
    &health::READYZ,
    &health::METRICS,
    &console::CONSOLE,
];

/// Names every response of a route with its operation id, as the OpenAPI service names its operations'
/// (what telemetry labels the request with).
fn named(endpoint: BoxEndpoint<'static>, operation_id: &'static str) -> BoxEndpoint<'static> {
    endpoint
        .after(move |result| async move {
            let mut response: Response = match result {
                Ok(response) => response,
                Err(error) => error.into_response(),
            };
            response.set_data(OperationId(operation_id));
            Ok(response)
        })
        .boxed()
}

/// Refuses a method the route's row does not name with a 405 (the envelope adds the row's `Allow`), so no
/// handler checks its own but those whose row says they do (`MethodCheck::Handler`).
fn only_its_methods(endpoint: BoxEndpoint<'static>, methods: &'static [&'static str]) -> BoxEndpoint<'static> {
    endpoint
        .before(move |request| async move {
            if methods.contains(&request.method().as_str()) {
                return Ok(request);
            }
            let allowed = match methods.split_last() {
                Some((only, [])) => format!("only {only} is allowed here"),
                Some((last, rest)) => format!("only {} and {last} are allowed here", rest.join(", ")),
                None => "no method is allowed here".to_owned(),
            };
            Err(ApiError::new(StatusCode::METHOD_NOT_ALLOWED, allowed).into())
        })
        .boxed()
}

/// Every route of the service over `state`, inside the error envelope and the request telemetry.
pub fn router(state: Arc<AppState>) -> impl Endpoint {
    let metrics = state.http_metrics.clone();
    let kept = state.clone();
    let api = Arc::new(openapi::service().into_endpoint());
    let mut v1 = Router::new();
    let mut root = Router::new();
    let mount = Mount { cors_origins: &state.settings.cors_origins };
    for spec in ROUTES {
        for path in spec.paths {
            let mut endpoint = (spec.handler)(&mount);
            if spec.method_check == MethodCheck::Router {
                endpoint = only_its_methods(endpoint, spec.methods);
            }
            let endpoint = named(endpoint, spec.operation_id);
            match path.strip_prefix(API_PREFIX) {
                Some(path) => v1 = v1.at(path, endpoint),
                None => root = root.at(*path, endpoint),
            }
        }
    }
    // An OpenAPI operation under a wildcard route's prefix (transform-url's `/file/:id/transform-url` beside
    // the delivery route's `/file/*path`) is mounted at its own path, so that it wins over the wildcard.
    let wildcards: Vec<&str> = ROUTES
        .iter()
        .filter(|spec| spec.paths.iter().any(|path| path.contains('*')))
        .filter_map(|spec| spec.prefix().strip_prefix(API_PREFIX))
        .collect();
    for path in openapi::operations().into_iter().flat_map(|api| api.paths) {
        if wildcards.iter().any(|prefix| path.path.starts_with(prefix)) {
            // The document's `{id}` is poem's `:id`.
            let segments: Vec<String> = path
                .path
                .split('/')
                .map(|segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => format!(":{name}"),
                    None => segment.to_owned(),
                })
                .collect();
            v1 = v1.at(segments.join("/"), api.clone());
        }
    }
    let v1 = v1.nest("/", api);
    let allow = Arc::new(AllowTable::new(openapi::operations(), ROUTES));
    root.nest(API_PREFIX, v1)
        .data(state)
        .around(move |endpoint, request| envelope(endpoint, allow.clone(), request))
        // Around everything else, so it sees the final status and every response carries the request id.
        .around(move |endpoint, request| observe(endpoint, metrics.clone(), request))
        // A repeated variant URL, the delivery path's hot case, skips all of the above.
        .around(move |endpoint, request| delivery::answer_kept(endpoint, kept.clone(), request))
}

/// The `Allow` table the router builds, over the real operations and routes.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_and_paths_are_unique() {
        let mut ids: Vec<&str> = ROUTES.iter().map(|spec| spec.operation_id).collect();
        let mut paths: Vec<&str> = ROUTES.iter().flat_map(|spec| spec.paths.iter().copied()).collect();
        let (id_count, path_count) = (ids.len(), paths.len());
        ids.sort_unstable();
        ids.dedup();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!((ids.len(), paths.len()), (id_count, path_count));
        let documented = openapi::operations().into_iter().flat_map(|api| api.paths).flat_map(|path| path.operations);
        for operation in documented {
            let id = operation.operation_id.unwrap_or_default();
            assert!(!ROUTES.iter().any(|spec| spec.operation_id == id), "{id} is a row's and an operation's");
        }
    }

    #[test]
    fn routes_name_their_methods() {
        let table = AllowTable::new(openapi::operations(), ROUTES);
        assert_eq!(table.allowed("/v1/files"), Some("GET"));
        assert_eq!(table.allowed("/v1/files/abc"), Some("DELETE, GET, PATCH"));
        assert_eq!(table.allowed("/v1/upload/confirm"), Some("POST"));
        assert_eq!(table.allowed("/v1/file/abc/transform-url"), Some("POST"));
        assert_eq!(table.allowed("/v1/file/default/cat.png"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/v1/file/default/a/b/cat.png"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/v1/files/abc/thumbnail"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/storage/pending/x"), Some("PUT"));
        assert_eq!(table.allowed("/healthz"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/v1/nothing/here"), None);
        assert_eq!(table.allowed("/v1/files/abc/thumbnail/more"), None);
    }

    /// Every path of the served document, with its parameters filled in, is answered with exactly the
    /// methods the document gives it: the table and the document cannot disagree.
    #[test]
    fn every_documented_path_allows_its_documented_methods() {
        let table = AllowTable::new(openapi::operations(), ROUTES);
        let document: serde_json::Value = serde_json::from_str(&crate::openapi::spec_json()).unwrap();
        let paths = document["paths"].as_object().unwrap();
        assert!(paths.len() >= 10, "{paths:?}");
        for (path, item) in paths {
            let concrete: Vec<String> =
                path.split('/').map(|s| if s.starts_with('{') { "x".to_owned() } else { s.to_owned() }).collect();
            let mut methods: Vec<String> = item.as_object().unwrap().keys().map(|m| m.to_uppercase()).collect();
            // The public delivery routes answer HEAD as well; the document lists their GET.
            let mut documented = ROUTES.iter().filter(|spec| spec.documented);
            if documented.any(|spec| {
                spec.document_path().as_deref() == Some(path.as_str())
                    && spec.methods.contains(&"GET")
                    && spec.methods.contains(&"HEAD")
            }) {
                methods.push("HEAD".into());
            }
            methods.sort();
            let concrete = format!("{API_PREFIX}{}", concrete.join("/"));
            assert_eq!(table.allowed(&concrete), Some(methods.join(", ").as_str()), "{path}");
        }
    }
}
