//! What a route is: a row (`RouteSpec`) that owns its paths, methods, operation id, whether the OpenAPI
//! document describes it, its handler, and the URL builders every layer names it by. Each row is written
//! beside its handler (`delivery::DELIVER_FILE`, `health::HEALTHZ`, …); the router's `ROUTES` lists them, and
//! the router, telemetry's labels, the `Allow` header of a 405 (`allow`), the resumable routes' CORS and the
//! OpenAPI document's entries all read the rows. The OpenAPI operations (`manage/`) are routes of
//! poem-openapi's own, described by their `#[oai]` attributes.

use poem::endpoint::BoxEndpoint;
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

/// The prefix of the API's own routes; the OpenAPI document's paths are relative to it.
pub const API_PREFIX: &str = "/v1";

// Where GET is answered, so is HEAD (RFC 9110 §9.3.2): the same answer without its body.
pub const GET_HEAD: &[&str] = &["GET", "HEAD"];

/// Who refuses a method the row does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodCheck {
    /// The router, with a 405 whose `Allow` is the row's.
    Router,
    /// The handler: tus clients may send their method as `X-HTTP-Method-Override` on a POST, and every tus
    /// answer, a refusal included, carries `Tus-Resumable`.
    Handler,
}

/// What the router knows when it mounts a handler.
pub struct Mount<'a> {
    /// The origins whose browsers may call the routes that allow them (the resumable uploads).
    pub cors_origins: &'a [String],
}

/// A route served by a handler of its own, beside the OpenAPI operations.
pub struct RouteSpec {
    /// Where the router mounts it (poem's syntax: `:name` one segment, `*name` the rest). The first is its
    /// address: what `prefix` and `url` read.
    pub paths: &'static [&'static str],
    /// The methods it answers (its `Allow` header).
    pub methods: &'static [&'static str],
    pub method_check: MethodCheck,
    /// Its name: the OpenAPI operation id for the documented ones, and every route's metric label.
    pub operation_id: &'static str,
    /// Whether the OpenAPI document describes it (the public delivery and the resumable-upload routes).
    pub documented: bool,
    /// Its handler, made once when the router mounts the row.
    pub handler: fn(&Mount) -> BoxEndpoint<'static>,
}

impl RouteSpec {
    fn address(&self) -> &'static str {
        self.paths.first().copied().unwrap_or_default()
    }

    /// Its first path up to its first parameter (`/v1/file/`): what a request's path starts with, and
    /// what is left after it is the parameter.
    pub fn prefix(&self) -> &'static str {
        let path = self.address();
        let end = path.find([':', '*']).unwrap_or(path.len());
        &path[..end]
    }

    /// Its public URL under `base_url` (`<public url>/v1`, for a route under `API_PREFIX`) with `values`
    /// in its parameters' places, in order; each value as given (already percent-encoded where needed).
    pub fn url(&self, base_url: &str, values: &[&str]) -> String {
        let path = self.address();
        let path = path.strip_prefix(API_PREFIX).unwrap_or(path);
        let mut values = values.iter();
        let segments = path.split('/').map(|segment| {
            if segment.starts_with([':', '*']) { values.next().copied().unwrap_or_default() } else { segment }
        });
        format!("{base_url}{}", segments.collect::<Vec<_>>().join("/"))
    }

    /// Its path in the OpenAPI document (`/file/{path}`), for the documented routes.
    pub fn document_path(&self) -> Option<String> {
        let path = self.address().strip_prefix(API_PREFIX).filter(|_| self.documented)?;
        let segments = path.split('/').map(|segment| match segment.strip_prefix([':', '*']) {
            Some(name) => format!("{{{name}}}"),
            None => segment.to_owned(),
        });
        Some(segments.collect::<Vec<_>>().join("/"))
    }
}

#[cfg(test)]
mod tests {
    use poem::{EndpointExt, endpoint::make_sync};

    use super::*;

    fn row(path: &'static [&'static str], documented: bool) -> RouteSpec {
        RouteSpec {
            paths: path,
            methods: GET_HEAD,
            method_check: MethodCheck::Router,
            operation_id: "example",
            documented,
            handler: |_| make_sync(|_| "").map_to_response().boxed(),
        }
    }

    #[test]
    fn urls_fill_the_rows_paths() {
        let file = row(&["/v1/file/*path"], true);
        let thumbnail = row(&["/v1/files/:id/thumbnail"], true);
        assert_eq!(file.prefix(), "/v1/file/");
        assert_eq!(row(&["/storage/*key"], false).prefix(), "/storage/");
        assert_eq!(row(&["/healthz"], false).prefix(), "/healthz");
        let base = "https://img.example.com/v1";
        assert_eq!(file.url(base, &["default/a%20b/cat.png"]), format!("{base}/file/default/a%20b/cat.png"));
        assert_eq!(thumbnail.url(base, &["0190"]), format!("{base}/files/0190/thumbnail"));
    }

    #[test]
    fn documented_paths_are_the_documents() {
        assert_eq!(row(&["/v1/file/*path"], true).document_path().as_deref(), Some("/file/{path}"));
        assert_eq!(row(&["/v1/files/:id/thumbnail"], true).document_path().as_deref(), Some("/files/{id}/thumbnail"));
        assert_eq!(row(&["/v1/file/*path"], false).document_path(), None);
        assert_eq!(row(&["/healthz"], true).document_path(), None);
    }
}
