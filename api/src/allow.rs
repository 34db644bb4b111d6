//! The `Allow` header of a 405 (RFC 9110 requires it): the methods each route answers, read once from our
//! own OpenAPI document for the management routes, and fixed for the routes beside it.

use std::sync::LazyLock;

use serde_json::Value;

/// Path templates under `/v1` (segments; `None` matches any one segment) and their methods.
static OPERATIONS: LazyLock<Vec<(Vec<Option<String>>, String)>> = LazyLock::new(|| {
    let spec: Value = serde_json::from_str(&crate::openapi::spec_json()).unwrap_or_default();
    let Some(paths) = spec["paths"].as_object() else { return Vec::new() };
    paths
        .iter()
        .map(|(path, item)| {
            let segments =
                path.trim_start_matches('/').split('/').map(|s| (!s.starts_with('{')).then(|| s.to_owned())).collect();
            let methods = item.as_object().map(|m| m.keys().map(|k| k.to_uppercase()).collect::<Vec<_>>());
            (segments, methods.unwrap_or_default().join(", "))
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
}
