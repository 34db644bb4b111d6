//! The `Allow` header of a 405 (RFC 9110 requires it): the methods each route answers, taken once from the
//! OpenAPI operations' own declarations (poem-openapi's registry of `Apis`) and from the route table
//! (`table::ROUTES`). The router hands the table to the error envelope, so the envelope knows no route.

use std::collections::BTreeMap;

use poem_openapi::OpenApi;

use super::table::{API_PREFIX, ROUTES};
use crate::openapi::Apis;

/// One segment of a path template: literal text, any one segment (`{id}`, `:id`) or the rest (`*path`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Any,
    Rest,
}

/// Every route's template and its methods, e.g. `DELETE, GET`.
pub struct AllowTable {
    /// The OpenAPI operations first: where a wildcard route overlaps one (`/v1/file/*path` and
    /// `/v1/file/{id}/transform-url`), the router prefers the operation too.
    routes: Vec<(Vec<Segment>, String)>,
}

fn template(path: &str) -> Vec<Segment> {
    path.trim_start_matches('/')
        .split('/')
        .map(|segment| {
            if segment.starts_with('*') {
                Segment::Rest
            } else if segment.starts_with(':') || segment.starts_with('{') {
                Segment::Any
            } else {
                Segment::Literal(segment.to_owned())
            }
        })
        .collect()
}

fn matches(template: &[Segment], path: &str) -> bool {
    let mut segments = path.trim_start_matches('/').split('/');
    for part in template {
        match (part, segments.next()) {
            (Segment::Rest, Some(_)) => return true,
            (Segment::Any, Some(_)) => {}
            (Segment::Literal(literal), Some(segment)) if literal == segment => {}
            _ => return false,
        }
    }
    segments.next().is_none()
}

impl AllowTable {
    pub fn new() -> Self {
        let mut operations: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for path in <Apis as OpenApi>::meta().into_iter().flat_map(|api| api.paths) {
            let names = path.operations.iter().map(|operation| operation.method.as_str().to_owned());
            operations.entry(format!("{API_PREFIX}{}", path.path)).or_default().extend(names);
        }
        let mut routes: Vec<(Vec<Segment>, String)> = operations
            .into_iter()
            .map(|(path, mut names)| {
                names.sort();
                names.dedup();
                (template(&path), names.join(", "))
            })
            .collect();
        for spec in ROUTES {
            let mut methods = spec.methods.to_vec();
            methods.sort_unstable();
            for path in spec.paths {
                routes.push((template(path), methods.join(", ")));
            }
        }
        Self { routes }
    }

    /// The methods `path` answers, when it names a route.
    pub fn allowed(&self, path: &str) -> Option<&str> {
        self.routes.iter().find(|(template, _)| matches(template, path)).map(|(_, methods)| methods.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_their_methods() {
        let table = AllowTable::new();
        assert_eq!(table.allowed("/v1/files"), Some("GET"));
        assert_eq!(table.allowed("/v1/files/abc"), Some("DELETE, GET, PATCH"));
        assert_eq!(table.allowed("/v1/upload/confirm"), Some("POST"));
        assert_eq!(table.allowed("/v1/file/abc/transform-url"), Some("POST"));
        assert_eq!(table.allowed("/v1/file/default/cat.png"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/v1/file/default/a/b/cat.png"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/v1/files/abc/thumbnail"), Some("GET, HEAD"));
        assert_eq!(table.allowed("/storage/pending/x"), Some("PUT"));
        assert_eq!(table.allowed("/healthz"), Some("GET"));
        assert_eq!(table.allowed("/v1/nothing/here"), None);
        assert_eq!(table.allowed("/v1/files/abc/thumbnail/more"), None);
    }

    /// Every path of the served document, with its parameters filled in, is answered with exactly the
    /// methods the document gives it: the table and the document cannot disagree.
    #[test]
    fn every_documented_path_allows_its_documented_methods() {
        let table = AllowTable::new();
        let document: serde_json::Value = serde_json::from_str(&crate::openapi::spec_json()).unwrap();
        let paths = document["paths"].as_object().unwrap();
        assert!(paths.len() >= 10, "{paths:?}");
        for (path, item) in paths {
            let concrete: Vec<String> =
                path.split('/').map(|s| if s.starts_with('{') { "x".to_owned() } else { s.to_owned() }).collect();
            let mut methods: Vec<String> = item.as_object().unwrap().keys().map(|m| m.to_uppercase()).collect();
            // The public delivery routes answer HEAD as well; the document lists their GET.
            let documented = ROUTES.iter().filter(|spec| spec.documented);
            if documented.clone().any(|spec| spec.route.document_path().as_deref() == Some(path.as_str())) {
                methods.push("HEAD".into());
            }
            methods.sort();
            let concrete = format!("{API_PREFIX}{}", concrete.join("/"));
            assert_eq!(table.allowed(&concrete), Some(methods.join(", ").as_str()), "{path}");
        }
    }
}
