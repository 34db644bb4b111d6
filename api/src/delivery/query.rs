//! A delivery request's text: its path, percent-decoded a segment at a time, and its query's pairs. The
//! signed message, the presets and the access rules all read a request through these, so they agree on
//! what it says.

use percent_encoding::percent_decode_str;

/// The URL-decoded pairs of a query string.
pub(crate) fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
}

/// Percent-decodes a request path one segment at a time; `None` when a segment is not UTF-8 or decodes to
/// a `/` (stored names never contain one).
pub(crate) fn decode_path(raw: &str) -> Option<String> {
    let segments = raw
        .split('/')
        .map(|segment| percent_decode_str(segment).decode_utf8().ok().filter(|s| !s.contains('/')))
        .collect::<Option<Vec<_>>>()?;
    Some(segments.join("/"))
}
