//! The `Allow` header of a 405 (RFC 9110 requires it): the methods each route answers, taken once from the
//! OpenAPI operations' own declarations (poem-openapi's registry) and from the routes' rows, both of which the
//! router passes in. The router hands the table to the error envelope, so the envelope knows no route.

use std::collections::BTreeMap;

use poem_openapi::registry::MetaApi;

use super::route::{API_PREFIX, RouteSpec};

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
    /// The table of the OpenAPI operations `apis` declare (their paths under the API prefix) and of
    /// the routes' `rows`.
    pub fn new(apis: Vec<MetaApi>, rows: &[&RouteSpec]) -> Self {
        let mut operations: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for path in apis.into_iter().flat_map(|api| api.paths) {
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
        for spec in rows {
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
