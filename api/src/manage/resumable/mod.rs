//! Resumable uploads: TUS 1.0.0 with the creation, creation-with-upload, creation-defer-length,
//! expiration, termination and checksum extensions, at `/v1/uploads/tus` (docs/api.md, "Resumable
//! uploads"). An upload is a pending upload with an assembly (`shutterbox_storage::Assembly`: bytes
//! appended to a file of the local store, or an S3 multipart upload); the last byte runs the same confirm
//! as `POST /upload/confirm`.
//!
//! Authorisation: an API key (either header) for the account's uploads, or the token of a resumable URL
//! from presign, which authorises that one upload. Every PATCH takes the upload's write lock (in the
//! metadata database, so across nodes) and renews it while its body arrives; a second writer gets 409.
//! Every piece is durable before the 204 that acknowledges it, and recorded with the lock still held.

mod protocol;

use std::{io, sync::Arc, time::Duration};

use futures_util::{StreamExt, TryStreamExt};
use poem::{
    Body, EndpointExt, IntoResponse, Request, Response,
    endpoint::BoxEndpoint,
    handler,
    http::{Method, StatusCode, header},
    middleware::Cors,
    web::Data,
};
use rand::RngCore;
use sha2::{Digest, Sha256};
use shutterbox_metadata::{DeadWriters, PendingUpload, PieceRecord, Resumable};
use shutterbox_model::{AccountId, FileId, Operation, PendingId, clock::now_ms};
use shutterbox_storage::{AppendError, ObjectKey, Piece};
use subtle::ConstantTimeEq;

pub(crate) use protocol::{
    CHECKSUM_ALGORITHMS, EXTENSIONS, OFFSET_OCTET_STREAM, REQUEST_HEADERS, RESPONSE_HEADERS, VERSION,
};
use protocol::{FILE_ID, Length, UploadMetadata};

use super::{
    confirm::{Confirmed, confirm},
    upload_request::UploadRequest,
};
use crate::{
    auth,
    error::ApiError,
    http::route::{MethodCheck, Mount, RouteSpec},
    state::AppState,
    throttle::AddressBucket,
};

/// How long a request's write lock lasts unless renewed; it is renewed every third of that while the body
/// arrives. A process that dies holding it blocks its upload this long at most.
const LOCK_MS: i64 = 6_000;

/// `POST /v1/uploads/tus` (creation) and `OPTIONS` (what the server supports).
pub static RESUMABLE_UPLOADS: RouteSpec = RouteSpec {
    paths: &["/v1/uploads/tus", "/v1/uploads/tus/"],
    methods: &["POST", "OPTIONS"],
    method_check: MethodCheck::Handler,
    operation_id: "createResumableUpload",
    documented: true,
    handler: |mount| cors(collection.boxed(), mount),
};

/// `HEAD`, `PATCH`, `DELETE` (and `OPTIONS`) of `/v1/uploads/tus/<id>`.
pub static RESUMABLE_UPLOAD: RouteSpec = RouteSpec {
    paths: &["/v1/uploads/tus/:id"],
    methods: &["HEAD", "PATCH", "DELETE", "OPTIONS"],
    method_check: MethodCheck::Handler,
    operation_id: "resumableUpload",
    documented: true,
    handler: |mount| cors(resource.boxed(), mount),
};

/// The resumable-upload endpoints answer browsers of the configured origins (poem's `Cors`, which answers
/// their preflights and lets them read the TUS headers); with none configured, no CORS header is sent.
fn cors(endpoint: BoxEndpoint<'static>, mount: &Mount) -> BoxEndpoint<'static> {
    if mount.cors_origins.is_empty() {
        return endpoint;
    }
    let cors = Cors::new()
        .allow_origins(mount.cors_origins.iter().map(String::as_str))
        .allow_methods([Method::POST, Method::HEAD, Method::PATCH, Method::DELETE, Method::OPTIONS])
        .allow_headers(REQUEST_HEADERS)
        .expose_headers(RESPONSE_HEADERS)
        .max_age(86_400);
    endpoint.with(cors).boxed()
}

#[handler]
async fn collection(req: &Request, body: Body, state: Data<&Arc<AppState>>) -> Response {
    answer(req, async {
        match protocol::method(req)? {
            Method::OPTIONS => Ok(options(&state)),
            Method::POST => {
                protocol::check_version(req.headers())?;
                create(req, body, &state).await
            }
            _ => Err(method_not_allowed(&RESUMABLE_UPLOADS)),
        }
    })
    .await
}

#[handler]
async fn resource(req: &Request, body: Body, state: Data<&Arc<AppState>>) -> Response {
    answer(req, async {
        let method = protocol::method(req)?;
        if method == Method::OPTIONS {
            return Ok(options(&state));
        }
        protocol::check_version(req.headers())?;
        let id = req.uri().path().rsplit('/').next().unwrap_or_default();
        let pending = authorised(req, &state, &PendingId::new(id)).await?;
        match method {
            Method::HEAD => head(&state, pending).await,
            Method::PATCH => patch(req, body, &state, pending).await,
            Method::DELETE => terminate(&state, pending).await,
            _ => Err(method_not_allowed(&RESUMABLE_UPLOAD)),
        }
    })
    .await
}

/// Presign's resumable variant: the upload, and its URL with the token that authorises it alone.
pub(crate) async fn presign(
    state: &AppState,
    account_id: &AccountId,
    upload: UploadRequest,
    size: u64,
    now: i64,
) -> Result<(PendingId, String), ApiError> {
    let mut token = [0u8; 32];
    rand::rng().fill_bytes(&mut token);
    let token = hex::encode(token);
    let pending = begin(state, account_id, upload, Length::Known(size), None, Some(token_hash(&token)), now).await?;
    let url = format!("{}?token={token}", upload_url(state, &pending.id));
    if size == 0 {
        complete(state, &pending.id, now).await?;
    }
    Ok((pending.id, url))
}

/// Every answer but OPTIONS' carries `Tus-Resumable`, errors included.
async fn answer(req: &Request, handle: impl Future<Output = Result<Response, ApiError>>) -> Response {
    let mut response = handle.await.unwrap_or_else(IntoResponse::into_response);
    if protocol::method(req).map_or(true, |m| m != Method::OPTIONS) {
        response.headers_mut().insert(protocol::TUS_RESUMABLE, header_value(protocol::VERSION));
    }
    if response.status() == StatusCode::PRECONDITION_FAILED {
        response.headers_mut().insert(protocol::TUS_VERSION, header_value(protocol::VERSION));
    }
    response
}

fn header_value(text: &str) -> poem::http::HeaderValue {
    poem::http::HeaderValue::from_str(text).unwrap_or(poem::http::HeaderValue::from_static(""))
}

fn method_not_allowed(route: &RouteSpec) -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, format!("this tus resource accepts {}", route.methods.join(", ")))
}

fn options(state: &AppState) -> Response {
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .header(protocol::TUS_VERSION, protocol::VERSION)
        .header(protocol::TUS_EXTENSION, protocol::EXTENSIONS)
        .header(protocol::TUS_MAX_SIZE, state.settings.max_upload_bytes)
        .header(protocol::TUS_CHECKSUM_ALGORITHM, protocol::CHECKSUM_ALGORITHMS)
        .finish()
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn upload_url(state: &AppState, id: &PendingId) -> String {
    RESUMABLE_UPLOAD.url(&state.settings.base_url, &[id.as_str()])
}

/// The upload `id`, if the request may touch it: it carries the upload's token, or a key of its account
/// whose scope uploads. Anything else, like an unknown upload, is 404 (or 401 without credentials).
async fn authorised(req: &Request, state: &AppState, id: &PendingId) -> Result<PendingUpload, ApiError> {
    let unknown = || ApiError::not_found("no resumable upload at this URL");
    let token = req.uri().query().and_then(|query| {
        form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == "token").map(|(_, value)| value.into_owned())
    });
    let pending = match token {
        Some(token) => {
            // Counted per client address, as requests without a key are: a flood of token requests (or
            // guesses) costs a lookup each.
            let address = req.remote_addr().as_socket_addr().map(|addr| AddressBucket::of(addr.ip()).to_string());
            let decision = state.limiter.check(&format!("upload-token:{}", address.unwrap_or_default())).await;
            if !decision.allowed {
                return Err(ApiError::too_many_requests(decision.retry_after()));
            }
            let pending = state.metadata.pending(id).await?.ok_or_else(unknown)?;
            let expected = pending.resumable.as_ref().and_then(|r| r.token_hash.as_deref()).unwrap_or_default();
            if !bool::from(token_hash(&token).as_bytes().ct_eq(expected.as_bytes())) {
                return Err(unknown());
            }
            pending
        }
        None => {
            let caller = auth::caller(req, state).await?;
            caller.require(Operation::Presign)?;
            state.metadata.pending(id).await?.filter(|p| p.account_id == caller.account_id).ok_or_else(unknown)?
        }
    };
    if pending.resumable.is_none() {
        return Err(unknown());
    }
    if pending.file_id.is_none() && now_ms() > pending.expires_at_ms {
        return Err(ApiError::new(StatusCode::GONE, "this upload expired; create a new one"));
    }
    Ok(pending)
}

/// A new resumable upload: its assembly begun in the store, its pending upload recorded.
async fn begin(
    state: &AppState,
    account_id: &AccountId,
    upload: UploadRequest,
    length: Length,
    metadata: Option<String>,
    token_hash: Option<String>,
    now: i64,
) -> Result<PendingUpload, ApiError> {
    let settings = &state.settings;
    let (size, deferred) = match length {
        Length::Known(size) => (size, false),
        Length::Deferred => (0, true),
    };
    if size > settings.max_upload_bytes {
        return Err(too_large(settings.max_upload_bytes));
    }
    let id = PendingId::mint();
    let key = ObjectKey::pending(&id);
    let assembly = state.store.begin_assembly(&key, if deferred { settings.max_upload_bytes } else { size }).await?;
    let resumable = Resumable::new(assembly, deferred, metadata, token_hash);
    let pending = upload.pending(id, account_id.clone(), size, settings, now, Some(resumable));
    if let Err(e) = state.metadata.create_pending(&pending).await {
        if let Some(resumable) = &pending.resumable {
            let _ = state.store.abort_assembly(&key, &resumable.assembly).await;
        }
        return Err(e.into());
    }
    Ok(pending)
}

fn too_large(limit: u64) -> ApiError {
    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("the maximum upload size is {limit} bytes"))
}

/// `POST`: creates an upload from `Upload-Length` (or `Upload-Defer-Length: 1`) and `Upload-Metadata`
/// (`filename`, `filetype`, `folderName`, `customFilename`), and takes a first piece in its body.
async fn create(req: &Request, body: Body, state: &AppState) -> Result<Response, ApiError> {
    let caller = auth::caller(req, state).await?;
    caller.require(Operation::Presign)?;
    caller.require(Operation::Confirm)?;
    let headers = req.headers();
    let length = protocol::creation_length(headers)?;
    let metadata = UploadMetadata::parse(headers)?;
    let filename = metadata
        .get(&["filename", "name"])
        .ok_or_else(|| ApiError::bad_request("Upload-Metadata carries the file's name as `filename`"))?;
    let upload = UploadRequest::check(
        filename,
        metadata.get(&["customFilename"]),
        metadata.get(&["folderName"]),
        metadata
            .get(&["filetype", "type"])
            .filter(|t| !t.is_empty())
            .unwrap_or(shutterbox_model::MediaFormat::Binary.mime()),
    )?;
    let with_body = protocol::has_upload_body(headers, false)?;
    let now = now_ms();
    let pending = begin(state, &caller.account_id, upload, length, metadata.raw.clone(), None, now).await?;
    let mut response = Response::builder()
        .status(StatusCode::CREATED)
        .header(header::LOCATION, upload_url(state, &pending.id))
        .header(protocol::UPLOAD_EXPIRES, protocol::expires(pending.expires_at_ms))
        .finish();
    let written = if with_body {
        Some(write(req, body, state, &pending, 0).await?)
    } else if length == Length::Known(0) {
        Some(Written { offset: 0, file: Some(complete(state, &pending.id, now).await?), expires_at_ms: None })
    } else {
        None
    };
    if let Some(written) = written {
        written.describe(&mut response);
    }
    Ok(response)
}

/// `HEAD`: how far the upload has got. An upload whose every byte is in but whose file is not made yet
/// (the process stopped in between) is completed here, since a client that sees all its bytes
/// acknowledged sends nothing more.
async fn head(state: &AppState, pending: PendingUpload) -> Result<Response, ApiError> {
    let resumable = pending.resumable.as_ref().ok_or_else(|| ApiError::internal("not a resumable upload"))?;
    let complete_now =
        pending.file_id.is_none() && !resumable.length_deferred && resumable.assembly.offset == pending.size;
    let file = match &pending.file_id {
        Some(file) => Some(file.clone()),
        None if complete_now => Some(complete(state, &pending.id, now_ms()).await?),
        None => None,
    };
    let mut response = Response::builder()
        .status(StatusCode::OK)
        .header(header::CACHE_CONTROL, "no-store")
        .header(protocol::UPLOAD_OFFSET, resumable.assembly.offset)
        .header(protocol::UPLOAD_EXPIRES, protocol::expires(pending.expires_at_ms))
        .finish();
    let headers = response.headers_mut();
    if resumable.length_deferred {
        headers.insert(protocol::UPLOAD_DEFER_LENGTH, header_value("1"));
    } else {
        headers.insert(protocol::UPLOAD_LENGTH, pending.size.into());
    }
    if let Some(metadata) = &resumable.metadata {
        headers.insert(protocol::UPLOAD_METADATA, header_value(metadata));
    }
    if let Some(file) = file {
        headers.insert(FILE_ID, header_value(file.as_str()));
    }
    Ok(response)
}

/// `PATCH`: one piece at `Upload-Offset`.
async fn patch(req: &Request, body: Body, state: &AppState, pending: PendingUpload) -> Result<Response, ApiError> {
    protocol::has_upload_body(req.headers(), true)?;
    let offset = protocol::upload_offset(req.headers())?;
    if let Some(file) = &pending.file_id {
        // Done already: a repeated last PATCH (its answer was lost) is answered again.
        if offset == pending.size {
            let mut response = Response::builder().status(StatusCode::NO_CONTENT).finish();
            Written { offset, file: Some(file.clone()), expires_at_ms: None }.describe(&mut response);
            return Ok(response);
        }
        return Err(offset_mismatch(offset, pending.size));
    }
    let written = write(req, body, state, &pending, offset).await?;
    let mut response = Response::builder().status(StatusCode::NO_CONTENT).finish();
    written.describe(&mut response);
    Ok(response)
}

/// What a write left: the offset, the file when it was the last piece, the new expiry.
struct Written {
    offset: u64,
    file: Option<FileId>,
    expires_at_ms: Option<i64>,
}

impl Written {
    fn describe(self, response: &mut Response) {
        let headers = response.headers_mut();
        headers.insert(protocol::UPLOAD_OFFSET, self.offset.into());
        if let Some(at) = self.expires_at_ms {
            headers.insert(protocol::UPLOAD_EXPIRES, protocol::expires(at));
        }
        if let Some(file) = self.file {
            headers.insert(FILE_ID, header_value(file.as_str()));
        }
    }
}

fn offset_mismatch(sent: u64, held: u64) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        format!(
            "Upload-Offset {sent} does not match the {held} bytes this upload holds; ask with HEAD and resume there"
        ),
    )
}

/// Takes the upload's write lock, writes the request's body at `offset`, records it, completes the upload
/// when that was its last byte, and lets the lock go.
async fn write(
    req: &Request,
    body: Body,
    state: &AppState,
    pending: &PendingUpload,
    offset: u64,
) -> Result<Written, ApiError> {
    let holder = take_lock(state, &pending.id).await?;
    let written = write_locked(req, body, state, &pending.id, offset, &holder).await;
    if let Err(e) = state.metadata.unlock_upload(&pending.id, &holder).await {
        tracing::warn!(error = %e, upload = %pending.id, "could not let go of an upload's lock; it runs out by itself");
    }
    written
}

async fn write_locked(
    req: &Request,
    body: Body,
    state: &AppState,
    id: &PendingId,
    offset: u64,
    holder: &str,
) -> Result<Written, ApiError> {
    // Read again under the lock: the offset a racing writer left is the one that counts.
    let pending =
        state.metadata.pending(id).await?.ok_or_else(|| ApiError::not_found("no resumable upload at this URL"))?;
    let resumable = pending.resumable.as_ref().ok_or_else(|| ApiError::internal("not a resumable upload"))?;
    let held = resumable.assembly.offset;
    if offset != held {
        return Err(offset_mismatch(offset, held));
    }
    let max = state.settings.max_upload_bytes;
    let declared = protocol::upload_length(req.headers())?;
    let (total, declared) = if resumable.length_deferred {
        match declared {
            Some(length) if length > max => return Err(too_large(max)),
            Some(length) if length < held => {
                return Err(ApiError::bad_request(format!(
                    "Upload-Length {length} is less than the {held} bytes received"
                )));
            }
            Some(length) => (Some(length), Some(length)),
            None => (None, None),
        }
    } else {
        if declared.is_some_and(|length| length != pending.size) {
            return Err(ApiError::bad_request(format!("this upload's length is {} and cannot change", pending.size)));
        }
        (Some(pending.size), None)
    };
    let limit = total.unwrap_or(max).saturating_sub(held);
    let content_length = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if content_length.is_some_and(|len| len > limit) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body's {} bytes pass the {limit} this upload has left", content_length.unwrap_or_default()),
        ));
    }
    let piece = Piece {
        body: body.into_bytes_stream().map_err(io::Error::other).boxed(),
        limit,
        total,
        checksum: protocol::checksum(req.headers())?,
    };
    let key = &pending.object_key;
    let appended = tokio::select! {
        appended = state.store.append(key, &resumable.assembly, piece) => appended.map_err(append_error)?,
        () = keep_lock(state, id, holder) => {
            return Err(ApiError::new(StatusCode::CONFLICT, "this request lost the upload's lock; ask with HEAD and resume"));
        }
    };
    let now = now_ms();
    let expires_at_ms = now + i64::try_from(state.settings.upload_expiry_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
    let record = PieceRecord { assembly: &appended.assembly, declared_length: declared, expires_at_ms };
    if !state.metadata.record_piece(id, holder, &record).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "this request lost the upload's lock; ask with HEAD and resume",
        ));
    }
    let offset = appended.assembly.offset;
    if let Some(e) = appended.cut_short {
        // The client went away; what arrived is kept and recorded, and nobody reads this answer.
        return Err(ApiError::bad_request(format!("the body broke off after {offset} bytes: {e}")));
    }
    let file = match total {
        Some(total) if total == offset => Some(complete(state, id, now).await?),
        _ => None,
    };
    Ok(Written { offset, file, expires_at_ms: Some(expires_at_ms) })
}

/// This process's writers, and the dead ones: `<node>/<boot>/<request>` names a lock's holder, and a lock of
/// this node's from another boot (a process killed mid-request) is free to take at once.
fn writers(state: &AppState) -> DeadWriters {
    static BOOT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let boot = BOOT.get_or_init(|| {
        let mut id = [0u8; 8];
        rand::rng().fill_bytes(&mut id);
        hex::encode(id)
    });
    let node = &state.settings.node_id;
    DeadWriters { node: format!("{node}/"), alive: format!("{node}/{boot}/") }
}

/// Takes upload `id`'s write lock for a holder of its own (returned), or answers 423 Locked with Retry-After
/// while a live writer holds it (as tusd does).
async fn take_lock(state: &AppState, id: &PendingId) -> Result<String, ApiError> {
    let mut request = [0u8; 16];
    rand::rng().fill_bytes(&mut request);
    let dead = writers(state);
    let holder = format!("{}{}", dead.alive, hex::encode(request));
    let now = now_ms();
    if !state.metadata.lock_upload(id, &holder, now, now + LOCK_MS, &dead).await? {
        return Err(ApiError {
            retry_after: Some((LOCK_MS / 3 / 1000).unsigned_abs().max(1)),
            ..ApiError::new(StatusCode::LOCKED, "another request is writing to this upload; try again shortly")
        });
    }
    Ok(holder)
}

/// Renews the lock every third of its life; returns only when another request has taken it.
async fn keep_lock(state: &AppState, id: &PendingId, holder: &str) {
    loop {
        tokio::time::sleep(Duration::from_millis((LOCK_MS / 3).unsigned_abs())).await;
        let now = now_ms();
        match state.metadata.lock_upload(id, holder, now, now + LOCK_MS, &writers(state)).await {
            Ok(true) => {}
            Ok(false) => return,
            // The database may be back before the lock runs out; record_piece checks the holder anyway.
            Err(e) => tracing::warn!(error = %e, upload = %id, "could not renew an upload's lock"),
        }
    }
}

fn append_error(e: AppendError) -> ApiError {
    match e {
        AppendError::TooLarge { .. } => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, e.to_string()),
        AppendError::ChecksumMismatch => ApiError::new(protocol::checksum_mismatch(), e.to_string()),
        AppendError::Interrupted(_) => ApiError::bad_request(e.to_string()),
        AppendError::Store(e) => e.into(),
    }
}

/// Makes the file of an upload whose every byte is in: the confirm of `POST /upload/confirm`.
async fn complete(state: &AppState, id: &PendingId, now: i64) -> Result<FileId, ApiError> {
    let pending =
        state.metadata.pending(id).await?.ok_or_else(|| ApiError::not_found("no resumable upload at this URL"))?;
    let account = state
        .metadata
        .account(&pending.account_id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("the account of upload {id} is gone")))?;
    let file = match confirm(state, &pending.account_id, &account.name, id, now).await? {
        Confirmed::Created(file) | Confirmed::Already(file) => file,
    };
    Ok(file.id)
}

/// `DELETE`: the upload and what it holds go (a file it made stays: delete that with `DELETE /files/{id}`).
async fn terminate(state: &AppState, pending: PendingUpload) -> Result<Response, ApiError> {
    take_lock(state, &pending.id).await?;
    if pending.file_id.is_none()
        && let Some(resumable) = &pending.resumable
    {
        state.store.abort_assembly(&pending.object_key, &resumable.assembly).await?;
        state.discard(&pending.object_key).await;
    }
    state.metadata.delete_pending(&pending.id).await?;
    Ok(Response::builder().status(StatusCode::NO_CONTENT).finish())
}
