//! The route table: every route served beside the OpenAPI operations (whose path, method and operation
//! id are their `#[oai]` attributes, in `manage/`), by a handler of its own. `ROUTES` is the only place such
//! a route's paths, methods and operation id are written: the router mounts it (`routes`), telemetry
//! labels its requests with its operation id, the `Allow` header of a 405 names its methods (`allow`), and
//! the OpenAPI document's entry for it (the documented ones) takes its path and operation id from here.

use poem_openapi::Tags;

#[derive(Tags)]
pub enum ApiTags {
    /// Presigned uploads: presign, send the bytes, confirm.
    Upload,
    /// Listing, reading and deleting files.
    Files,
    /// Rendering variants ahead of their first request, in batches.
    Warming,
}

/// A route served beside the OpenAPI operations, by a handler of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    DeliverFile,
    DeliverRaw,
    GetThumbnail,
    StorageUpload,
    ResumableUploads,
    ResumableUpload,
    OpenapiDocument,
    Docs,
    Healthz,
    Readyz,
    Metrics,
    Console,
}

/// What the table says of a route.
pub struct RouteSpec {
    pub route: Route,
    /// Where the router mounts it (poem's syntax: `:name` one segment, `*name` the rest).
    pub paths: &'static [&'static str],
    /// The methods it answers (its `Allow` header); the router refuses any other with a 405, but for the
    /// resumable-upload routes, which read a tus client's `X-HTTP-Method-Override` themselves.
    pub methods: &'static [&'static str],
    /// Its name: the OpenAPI operation id for the documented ones, and every route's metric label.
    pub operation_id: &'static str,
    /// Whether the OpenAPI document describes it (the public delivery and the resumable-upload routes).
    pub documented: bool,
}

// Where GET is answered, so is HEAD (RFC 9110 §9.3.2): the same answer without its body.
const GET_HEAD: &[&str] = &["GET", "HEAD"];

/// Every route outside the OpenAPI service, in the order of `Route`'s variants.
pub const ROUTES: &[RouteSpec] = &[
    RouteSpec {
        route: Route::DeliverFile,
        paths: &["/v1/file/*path"],
        methods: GET_HEAD,
        operation_id: "deliverFile",
        documented: true,
    },
    RouteSpec {
        route: Route::DeliverRaw,
        paths: &["/v1/raw/*path"],
        methods: GET_HEAD,
        operation_id: "deliverRaw",
        documented: true,
    },
    RouteSpec {
        route: Route::GetThumbnail,
        paths: &["/v1/files/:id/thumbnail"],
        methods: GET_HEAD,
        operation_id: "getThumbnail",
        documented: true,
    },
    RouteSpec {
        route: Route::StorageUpload,
        paths: &["/storage/*key"],
        methods: &["PUT"],
        operation_id: "storageUpload",
        documented: false,
    },
    RouteSpec {
        route: Route::ResumableUploads,
        paths: &["/v1/uploads/tus", "/v1/uploads/tus/"],
        methods: &["POST", "OPTIONS"],
        operation_id: "createResumableUpload",
        documented: true,
    },
    RouteSpec {
        route: Route::ResumableUpload,
        paths: &["/v1/uploads/tus/:id"],
        methods: &["HEAD", "PATCH", "DELETE", "OPTIONS"],
        operation_id: "resumableUpload",
        documented: true,
    },
    RouteSpec {
        route: Route::OpenapiDocument,
        paths: &["/v1/openapi.json"],
        methods: GET_HEAD,
        operation_id: "openapiDocument",
        documented: false,
    },
    RouteSpec {
        route: Route::Docs,
        paths: &["/v1/docs", "/v1/docs/"],
        methods: GET_HEAD,
        operation_id: "docs",
        documented: false,
    },
    RouteSpec {
        route: Route::Healthz,
        paths: &["/healthz"],
        methods: GET_HEAD,
        operation_id: "healthz",
        documented: false,
    },
    RouteSpec {
        route: Route::Readyz,
        paths: &["/readyz"],
        methods: GET_HEAD,
        operation_id: "readyz",
        documented: false,
    },
    RouteSpec {
        route: Route::Metrics,
        paths: &["/metrics"],
        methods: GET_HEAD,
        operation_id: "metrics",
        documented: false,
    },
    RouteSpec {
        route: Route::Console,
        paths: &["/console", "/console/", "/console/:asset"],
        methods: GET_HEAD,
        operation_id: "console",
        documented: false,
    },
];

/// The prefix of the API's own routes; the OpenAPI document's paths are relative to it.
pub const API_PREFIX: &str = "/v1";

impl Route {
    /// Its row: `ROUTES` lists the routes in the enum's order (`every_route_has_one_row`), so this is an
    /// index, not a search (the cached delivery path asks it on every answer).
    pub fn spec(self) -> &'static RouteSpec {
        &ROUTES[self as usize]
    }

    pub fn operation_id(self) -> &'static str {
        self.spec().operation_id
    }

    /// Its first path up to its first parameter (`/v1/file/`): what a request's path starts with, and
    /// what is left after it is the parameter.
    pub fn prefix(self) -> &'static str {
        let path = self.spec().paths.first().copied().unwrap_or_default();
        let end = path.find([':', '*']).unwrap_or(path.len());
        &path[..end]
    }

    /// Its public URL under `base_url` (`<public url>/v1`, for a route under `API_PREFIX`) with `values`
    /// in its parameters' places, in order; each value as given (already percent-encoded where needed).
    pub fn url(self, base_url: &str, values: &[&str]) -> String {
        let path = self.spec().paths.first().copied().unwrap_or_default();
        let path = path.strip_prefix(API_PREFIX).unwrap_or(path);
        let mut values = values.iter();
        let segments = path.split('/').map(|segment| {
            if segment.starts_with([':', '*']) { values.next().copied().unwrap_or_default() } else { segment }
        });
        format!("{base_url}{}", segments.collect::<Vec<_>>().join("/"))
    }

    /// Its path in the OpenAPI document (`/file/{path}`), for the documented routes.
    pub fn document_path(self) -> Option<String> {
        let spec = self.spec();
        let path = spec.paths.first()?.strip_prefix(API_PREFIX).filter(|_| spec.documented)?;
        let segments = path.split('/').map(|segment| match segment.strip_prefix([':', '*']) {
            Some(name) => format!("{{{name}}}"),
            None => segment.to_owned(),
        });
        Some(segments.collect::<Vec<_>>().join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_has_one_row() {
        use Route::*;
        for route in [
            DeliverFile,
            DeliverRaw,
            GetThumbnail,
            StorageUpload,
            ResumableUploads,
            ResumableUpload,
            OpenapiDocument,
            Docs,
            Healthz,
            Readyz,
            Metrics,
            Console,
        ] {
            assert_eq!(ROUTES.iter().filter(|spec| spec.route == route).count(), 1, "{route:?}");
            assert_eq!(route.spec().route, route, "ROUTES lists {route:?} in the enum's order");
        }
        let mut ids: Vec<&str> = ROUTES.iter().map(|spec| spec.operation_id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ROUTES.len(), "operation ids are unique");
    }

    #[test]
    fn urls_fill_the_rows_paths() {
        assert_eq!(Route::DeliverFile.prefix(), "/v1/file/");
        assert_eq!(Route::StorageUpload.prefix(), "/storage/");
        assert_eq!(Route::Healthz.prefix(), "/healthz");
        let base = "https://img.example.com/v1";
        assert_eq!(
            Route::DeliverFile.url(base, &["default/a%20b/cat.png"]),
            format!("{base}/file/default/a%20b/cat.png")
        );
        assert_eq!(Route::GetThumbnail.url(base, &["0190"]), format!("{base}/files/0190/thumbnail"));
    }

    #[test]
    fn documented_paths_are_the_documents() {
        assert_eq!(Route::DeliverFile.document_path().as_deref(), Some("/file/{path}"));
        assert_eq!(Route::GetThumbnail.document_path().as_deref(), Some("/files/{id}/thumbnail"));
        assert_eq!(Route::Healthz.document_path(), None);
    }
}
