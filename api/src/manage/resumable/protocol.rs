//! TUS 1.0.0 on the wire: the headers this server reads and writes, parsed into typed values at the
//! boundary (<https://tus.io/protocols/resumable-upload>). Nothing here touches state.

use std::time::{Duration, UNIX_EPOCH};

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::{
    Request,
    http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode},
};
use shutterbox_storage::{Checksum, ChecksumAlgorithm};

use crate::error::ApiError;

/// The one protocol version served.
pub const VERSION: &str = "1.0.0";
/// The extensions served, as `Tus-Extension` lists them.
pub const EXTENSIONS: &str = "creation,creation-with-upload,creation-defer-length,expiration,termination,checksum";
/// The checksum algorithms, as `Tus-Checksum-Algorithm` lists them.
pub const CHECKSUM_ALGORITHMS: &str = "sha1,sha256";
/// The content type of every body that carries upload bytes.
pub const OFFSET_OCTET_STREAM: &str = shutterbox_model::media::TUS_CHUNK;

pub const TUS_RESUMABLE: HeaderName = HeaderName::from_static("tus-resumable");
pub const TUS_VERSION: HeaderName = HeaderName::from_static("tus-version");
pub const TUS_EXTENSION: HeaderName = HeaderName::from_static("tus-extension");
pub const TUS_MAX_SIZE: HeaderName = HeaderName::from_static("tus-max-size");
pub const TUS_CHECKSUM_ALGORITHM: HeaderName = HeaderName::from_static("tus-checksum-algorithm");
pub const UPLOAD_OFFSET: HeaderName = HeaderName::from_static("upload-offset");
pub const UPLOAD_LENGTH: HeaderName = HeaderName::from_static("upload-length");
pub const UPLOAD_DEFER_LENGTH: HeaderName = HeaderName::from_static("upload-defer-length");
pub const UPLOAD_METADATA: HeaderName = HeaderName::from_static("upload-metadata");
pub const UPLOAD_EXPIRES: HeaderName = HeaderName::from_static("upload-expires");
pub const UPLOAD_CHECKSUM: HeaderName = HeaderName::from_static("upload-checksum");
pub const METHOD_OVERRIDE: HeaderName = HeaderName::from_static("x-http-method-override");
/// The id of the file an upload created, on the last PATCH's answer and on HEAD's once it exists.
pub const FILE_ID: HeaderName = HeaderName::from_static("shutterbox-file-id");

/// TUS's status for a body that does not match its `Upload-Checksum`.
pub fn checksum_mismatch() -> StatusCode {
    StatusCode::from_u16(460).unwrap_or(StatusCode::BAD_REQUEST)
}

/// The request headers a browser's client sends (CORS `Access-Control-Allow-Headers`).
pub const REQUEST_HEADERS: [&str; 12] = [
    "authorization",
    "apikey",
    "content-type",
    "tus-resumable",
    "upload-offset",
    "upload-length",
    "upload-defer-length",
    "upload-metadata",
    "upload-checksum",
    "upload-concat",
    "x-http-method-override",
    "x-requested-with",
];

/// The response headers a browser's client reads (CORS `Access-Control-Expose-Headers`).
pub const RESPONSE_HEADERS: [&str; 13] = [
    "location",
    "tus-resumable",
    "tus-version",
    "tus-extension",
    "tus-max-size",
    "tus-checksum-algorithm",
    "upload-offset",
    "upload-length",
    "upload-defer-length",
    "upload-metadata",
    "upload-expires",
    "shutterbox-file-id",
    "x-request-id",
];

/// The method a request stands for: `X-HTTP-Method-Override` on a POST, for clients that can send only
/// GET and POST.
pub fn method(req: &Request) -> Result<Method, ApiError> {
    match req.headers().get(&METHOD_OVERRIDE) {
        Some(value) if req.method() == Method::POST => value
            .to_str()
            .ok()
            .and_then(|v| Method::from_bytes(v.trim().to_ascii_uppercase().as_bytes()).ok())
            .ok_or_else(|| ApiError::bad_request("X-HTTP-Method-Override must name an HTTP method")),
        _ => Ok(req.method().clone()),
    }
}

/// 412 unless the request speaks the version served.
pub fn check_version(headers: &HeaderMap) -> Result<(), ApiError> {
    match headers.get(&TUS_RESUMABLE).map(HeaderValue::to_str) {
        Some(Ok(VERSION)) => Ok(()),
        Some(_) => Err(ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            format!("this server speaks tus {VERSION} only (Tus-Resumable: {VERSION})"),
        )),
        None => Err(ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            format!("a tus request carries Tus-Resumable: {VERSION}"),
        )),
    }
}

/// A header holding a non-negative decimal integer, if present.
fn number(headers: &HeaderMap, name: &HeaderName) -> Result<Option<u64>, ApiError> {
    let Some(value) = headers.get(name) else { return Ok(None) };
    value
        .to_str()
        .ok()
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse().ok())
        .map(Some)
        .ok_or_else(|| ApiError::bad_request(format!("{name} must be a non-negative integer")))
}

pub fn upload_offset(headers: &HeaderMap) -> Result<u64, ApiError> {
    number(headers, &UPLOAD_OFFSET)?.ok_or_else(|| ApiError::bad_request("a PATCH carries Upload-Offset"))
}

pub fn upload_length(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    number(headers, &UPLOAD_LENGTH)
}

/// What a creation request says of the length: known, or to be declared later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    Known(u64),
    Deferred,
}

pub fn creation_length(headers: &HeaderMap) -> Result<Length, ApiError> {
    let deferred = match headers.get(&UPLOAD_DEFER_LENGTH).map(HeaderValue::to_str) {
        None => false,
        Some(Ok("1")) => true,
        Some(_) => return Err(ApiError::bad_request("Upload-Defer-Length must be 1")),
    };
    match (upload_length(headers)?, deferred) {
        (Some(length), false) => Ok(Length::Known(length)),
        (None, true) => Ok(Length::Deferred),
        (Some(_), true) => Err(ApiError::bad_request("send Upload-Length or Upload-Defer-Length, not both")),
        (None, false) => {
            Err(ApiError::bad_request("a creation request carries Upload-Length or Upload-Defer-Length: 1"))
        }
    }
}

/// Whether a request's body is upload bytes (415 for a body of another type).
pub fn has_upload_body(headers: &HeaderMap, required: bool) -> Result<bool, ApiError> {
    match headers.get(poem::http::header::CONTENT_TYPE).map(HeaderValue::to_str) {
        Some(Ok(value))
            if value.split(';').next().is_some_and(|v| v.trim().eq_ignore_ascii_case(OFFSET_OCTET_STREAM)) =>
        {
            Ok(true)
        }
        None if !required => Ok(false),
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("upload bytes are sent as Content-Type: {OFFSET_OCTET_STREAM}"),
        )),
    }
}

/// `Upload-Checksum: <algorithm> <base64 digest>`.
pub fn checksum(headers: &HeaderMap) -> Result<Option<Checksum>, ApiError> {
    let Some(value) = headers.get(&UPLOAD_CHECKSUM) else { return Ok(None) };
    let malformed = || ApiError::bad_request("Upload-Checksum must be '<algorithm> <base64 digest>'");
    let (name, digest) = value.to_str().ok().and_then(|v| v.trim().split_once(' ')).ok_or_else(malformed)?;
    let algorithm = ChecksumAlgorithm::named(name).ok_or_else(|| {
        ApiError::bad_request(format!("checksum algorithm {name:?} is not supported: use one of {CHECKSUM_ALGORITHMS}"))
    })?;
    let digest = STANDARD.decode(digest.trim()).map_err(|_| malformed())?;
    Ok(Some(Checksum { algorithm, digest }))
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs (a key alone has an empty value).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct UploadMetadata {
    /// The header as sent, which HEAD answers with.
    pub raw: Option<String>,
    pairs: Vec<(String, String)>,
}

impl UploadMetadata {
    pub fn parse(headers: &HeaderMap) -> Result<Self, ApiError> {
        let Some(value) = headers.get(&UPLOAD_METADATA) else { return Ok(Self::default()) };
        let raw = value.to_str().map_err(|_| ApiError::bad_request("Upload-Metadata is not valid text"))?.trim();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for pair in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, encoded) = pair.split_once(' ').unwrap_or((pair, ""));
            let value =
                STANDARD.decode(encoded.trim()).ok().and_then(|bytes| String::from_utf8(bytes).ok()).ok_or_else(
                    || ApiError::bad_request(format!("Upload-Metadata {key:?} is not base64 of UTF-8 text")),
                )?;
            if pairs.iter().any(|(k, _)| k == key) {
                return Err(ApiError::bad_request(format!("Upload-Metadata names {key:?} twice")));
            }
            pairs.push((key.to_owned(), value));
        }
        Ok(Self { raw: (!raw.is_empty()).then(|| raw.to_owned()), pairs })
    }

    /// The first of `keys` present (Uppy sends `name` and `type` beside `filename` and `filetype`).
    pub fn get(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|key| self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()))
    }
}

/// `Upload-Expires`: an HTTP date.
pub fn expires(at_ms: i64) -> HeaderValue {
    let at = UNIX_EPOCH + Duration::from_millis(u64::try_from(at_ms).unwrap_or(0));
    HeaderValue::from_str(&httpdate::fmt_http_date(at)).unwrap_or(HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn metadata_reads_as_tus_writes_it() {
        // tus-js-client's encoding: `key base64(value)`, comma-separated; a key may stand alone.
        let meta = UploadMetadata::parse(&headers(&[(
            "upload-metadata",
            "filename Y2F0LmpwZw==,filetype aW1hZ2UvanBlZw==, is_confidential",
        )]))
        .unwrap();
        assert_eq!(meta.get(&["filename"]), Some("cat.jpg"));
        assert_eq!(meta.get(&["name", "filetype"]), Some("image/jpeg"));
        assert_eq!(meta.get(&["is_confidential"]), Some(""));
        assert_eq!(meta.get(&["folderName"]), None);
        for bad in ["filename !!!", "a YQ==,a YQ==", "filename /w=="] {
            let map = {
                let mut m = HeaderMap::new();
                m.insert(UPLOAD_METADATA, HeaderValue::from_str(bad).unwrap());
                m
            };
            assert!(UploadMetadata::parse(&map).is_err(), "{bad}");
        }
    }

    #[test]
    fn lengths_offsets_and_checksums() {
        assert_eq!(creation_length(&headers(&[("upload-length", "12")])).unwrap(), Length::Known(12));
        assert_eq!(creation_length(&headers(&[("upload-defer-length", "1")])).unwrap(), Length::Deferred);
        assert!(creation_length(&headers(&[])).is_err());
        assert!(creation_length(&headers(&[("upload-length", "1"), ("upload-defer-length", "1")])).is_err());
        for bad in ["-1", "1.5", "", " 3", "99999999999999999999999"] {
            let mut map = HeaderMap::new();
            map.insert(UPLOAD_OFFSET, HeaderValue::from_str(bad).unwrap());
            assert!(upload_offset(&map).is_err(), "{bad:?}");
        }
        let sum = checksum(&headers(&[("upload-checksum", "sha1 qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")])).unwrap().unwrap();
        assert_eq!(sum.algorithm, ChecksumAlgorithm::Sha1);
        assert_eq!(sum.digest.len(), 20);
        assert!(checksum(&headers(&[("upload-checksum", "md5 qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")])).is_err());
        assert!(checksum(&headers(&[("upload-checksum", "sha1")])).is_err());
    }

    #[test]
    fn expiry_is_an_http_date() {
        assert_eq!(expires(784_111_777_000).to_str().unwrap(), "Sun, 06 Nov 1994 08:49:37 GMT");
    }
}
