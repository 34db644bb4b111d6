//! The web console at `/console/` (docs/console.md): a page, a script and a style sheet compiled into the
//! binary, served with a Content-Security-Policy that lets the page load nothing from another origin but
//! the service's own public addresses, and run no script but its own. The console is a client of the
//! management API like any other: everything it shows or changes goes through `/v1` with the API key the
//! user signs in with, which it keeps in the tab's `sessionStorage`.

use std::sync::Arc;

use poem::{
    EndpointExt, Request, Response, handler,
    http::{HeaderValue, Method, StatusCode, header},
    web::Data,
};

use shutterbox_model::MediaFormat;

use crate::{
    error::ApiError,
    http::route::{GET_HEAD, MethodCheck, RouteSpec},
    state::AppState,
};

/// The console: its page is `/console/` (`/console` redirects there), its assets beside it.
pub static CONSOLE: RouteSpec = RouteSpec {
    paths: &["/console", "/console/", "/console/:asset"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "console",
    documented: false,
    handler: |_| serve.map_to_response().boxed(),
};

/// A file of the console.
struct Asset {
    name: &'static str,
    format: MediaFormat,
    body: &'static str,
}

impl Asset {
    /// Its `Content-Type`: the text the console is written in is UTF-8.
    fn content_type(&self) -> String {
        match self.format {
            MediaFormat::Svg => self.format.mime().to_owned(),
            text => format!("{}; charset=utf-8", text.mime()),
        }
    }
}

/// Every file the console is made of: the page (`""`, served at `/console/`), its script and its styles.
const ASSETS: &[Asset] = &[
    Asset { name: "", format: MediaFormat::Html, body: include_str!("assets/index.html") },
    Asset { name: "console.js", format: MediaFormat::JavaScript, body: include_str!("assets/console.js") },
    Asset { name: "console.css", format: MediaFormat::Css, body: include_str!("assets/console.css") },
    Asset { name: "icon.svg", format: MediaFormat::Svg, body: include_str!("assets/icon.svg") },
];

/// `scheme://host[:port]` of an absolute URL.
fn origin(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let host_end = rest.find('/').unwrap_or(rest.len());
    Some(&url[..scheme.len() + 3 + host_end])
}

/// The policy: the console's own files ('self'), the API and delivery under the service's public URLs
/// (which may be another host than the one serving the console, behind a CDN), and the `data:` and `blob:`
/// images it makes itself (placeholders, previews). No inline script or style, no frame, no form target.
pub fn content_security_policy(public_urls: &[&str]) -> String {
    let mut sources = vec!["'self'"];
    for url in public_urls {
        if let Some(origin) = origin(url).filter(|o| !sources.contains(o)) {
            sources.push(origin);
        }
    }
    let sources = sources.join(" ");
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src {sources} data: blob:; \
         connect-src {sources}; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

#[handler]
async fn serve(req: &Request, state: Data<&Arc<AppState>>) -> Result<Response, ApiError> {
    let path = req.original_uri().path();
    let root = CONSOLE.prefix();
    // The page's links are relative (so the console works under a proxy's prefix): it must end in '/'.
    if path == root {
        return Ok(Response::builder()
            .status(StatusCode::PERMANENT_REDIRECT)
            .header(header::LOCATION, format!("{root}/"))
            .finish());
    }
    let name = path.strip_prefix(root).and_then(|rest| rest.strip_prefix('/')).unwrap_or_default();
    let asset = ASSETS.iter().find(|asset| asset.name == name).ok_or_else(|| ApiError::not_found("no such page"))?;
    let settings = &state.settings;
    let policy = content_security_policy(&[&settings.base_url, &settings.raw_base_url]);
    let builder = Response::builder()
        .header(header::CONTENT_TYPE, asset.content_type())
        .header(header::CONTENT_LENGTH, asset.body.len())
        // A new binary may bring new files: the browser asks again each time (they are small).
        .header(header::CACHE_CONTROL, "no-cache")
        .header(header::CONTENT_SECURITY_POLICY, HeaderValue::try_from(policy).map_err(ApiError::internal)?)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .header(header::X_FRAME_OPTIONS, "DENY");
    if req.method() == Method::HEAD {
        return Ok(builder.finish());
    }
    Ok(builder.body(asset.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_public_origins_once() {
        let policy = content_security_policy(&["https://img.example.com/v1", "https://img.example.com/v1/raw"]);
        assert!(policy.contains("img-src 'self' https://img.example.com data: blob:;"), "{policy}");
        assert!(policy.contains("connect-src 'self' https://img.example.com;"), "{policy}");
        assert!(policy.contains("script-src 'self';") && !policy.contains("unsafe"), "{policy}");
        let policy = content_security_policy(&["http://127.0.0.1:8080/v1", "https://cdn.example.com/raw"]);
        assert!(policy.contains("connect-src 'self' http://127.0.0.1:8080 https://cdn.example.com;"), "{policy}");
    }

    #[test]
    fn every_asset_the_page_names_is_served() {
        let page = ASSETS[0].body;
        for asset in &ASSETS[1..] {
            assert!(page.contains(asset.name), "index.html does not use {}", asset.name);
        }
        // No inline script or style: the policy would refuse them.
        assert!(!page.contains("<script>") && !page.contains("style="), "inline script or style in index.html");
    }
}
