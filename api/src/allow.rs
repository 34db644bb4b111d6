//! The `Allow` header of a 405 (RFC 9110 requires it): the methods each route answers, taken once from the
//! management routes' own declarations (poem-openapi's registry of `Apis`), and fixed for the public routes
//! served beside them.

use std::{collections::BTreeMap, sync::LazyLock};

use poem_openapi::OpenApi;

use crate::openapi::Apis;

/// A path template under `/v1`, by segment: `None` matches any one segment (a `{parameter}`).
type Template = Vec<Option<String>>;

/// Every management route's template and its methods, e.g. `DELETE, GET`.
static OPERATIONS: LazyLock<Vec<(Template, String)>> = LazyLock::new(|| {
    let mut methods: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in <Apis as OpenApi>::meta().into_iter().flat_map(|api| api.paths) {
        let names = path.operations.iter().map(|operation| operation.method.as_str().to_owned());
        methods.entry(path.path).or_default().extend(names);
    }
    methods
        .into_iter()
        .map(|(path, mut names)| {
            names.sort();
            names.dedup();
            let template =
                path.trim_start_matches('/').split('/').map(|s| (!s.starts_with('{')).then(|| s.to_owned())).collect();
            (template, names.join(", "))
        })
        .collect()
});

/// The methods `path` answers, when it names a route.
pub fn allowed(path: &str) -> Option<String> {
    if path.starts_with("/v1/file/") && !path.ends_with("/transform-url")
        || path.starts_with("/v1/raw/")
        || path.starts_with("/v1/files/") && path.ends_with("/thumbnail")
    {
        return Some("GET, HEAD".into());
    }
    if path.starts_with("/storage/") {
        return Some("PUT".into());
    }
    let rest = path.strip_prefix("/v1/")?;
    let segments: Vec<&str> = rest.split('/').collect();
    OPERATIONS
        .iter()
        .find(|(template, _)| {
            template.len() == segments.len()
                && template.iter().zip(&segments).all(|(t, s)| t.as_deref().is_none_or(|t| t == *s))
        })
        .map(|(_, methods)| methods.clone())
}

#[cfg(test)]
mod tests {
    use super::allowed;

    #[test]
    fn routes_name_their_methods() {
        assert_eq!(allowed("/v1/files").as_deref(), Some("GET"));
        assert_eq!(allowed("/v1/files/abc").as_deref(), Some("DELETE, GET"));
        assert_eq!(allowed("/v1/upload/confirm").as_deref(), Some("POST"));
        assert_eq!(allowed("/v1/file/abc/transform-url").as_deref(), Some("POST"));
        assert_eq!(allowed("/v1/file/default/cat.png").as_deref(), Some("GET, HEAD"));
        assert_eq!(allowed("/v1/files/abc/thumbnail").as_deref(), Some("GET, HEAD"));
        assert_eq!(allowed("/storage/pending/x").as_deref(), Some("PUT"));
        assert_eq!(allowed("/v1/nothing/here"), None);
    }

    /// Every path of the served document, with its parameters filled in, is answered with exactly the
    /// methods the document gives it: the table and the document cannot disagree.
    #[test]
    fn every_documented_path_allows_its_documented_methods() {
        let document: serde_json::Value = serde_json::from_str(&crate::openapi::spec_json()).unwrap();
        let paths = document["paths"].as_object().unwrap();
        assert!(paths.len() >= 10, "{paths:?}");
        for (path, item) in paths {
            let concrete: Vec<String> =
                path.split('/').map(|s| if s.starts_with('{') { "x".to_owned() } else { s.to_owned() }).collect();
            let mut methods: Vec<String> = item.as_object().unwrap().keys().map(|m| m.to_uppercase()).collect();
            // The public delivery routes answer HEAD as well; the document lists their GET.
            if ["/file/{path}", "/raw/{path}", "/files/{id}/thumbnail"].contains(&path.as_str()) {
                methods.push("HEAD".into());
            }
            methods.sort();
            assert_eq!(allowed(&format!("/v1{}", concrete.join("/"))), Some(methods.join(", ")), "{path}");
        }
    }
}
