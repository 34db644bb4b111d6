//! Resumable uploads (TUS 1.0.0, `/v1/uploads/tus`) over real HTTP, in whichever deployment the suite runs:
//! every MUST of the protocol and of its extensions, the file the last byte creates, the resumable URL
//! presign hands out, the write lock, an interrupted PATCH, termination and CORS.

use std::time::Duration;

use base64::{Engine, engine::general_purpose::STANDARD};
use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::helpers::{self, PNG, TestApp};

const TUS: (&str, &str) = ("Tus-Resumable", "1.0.0");
const OCTETS: (&str, &str) = ("Content-Type", "application/offset+octet-stream");

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).map(|v| v.to_str().unwrap())
}

fn metadata(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k} {}", STANDARD.encode(v))).collect::<Vec<_>>().join(",")
}

/// Bytes of `len` that differ at every offset a piece could start (a wrong splice shows).
fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
}

/// `POST /uploads/tus` with the default key; returns the upload's URL.
async fn create(app: &TestApp, length: usize, meta: &[(&str, &str)]) -> String {
    let response = app
        .authed(Method::POST, "/uploads/tus", &app.key)
        .header(TUS.0, TUS.1)
        .header("Upload-Length", length.to_string())
        .header("Upload-Metadata", metadata(meta))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED, "{:?}", response.text().await);
    assert_eq!(header(&response, "tus-resumable"), Some("1.0.0"));
    assert!(header(&response, "upload-expires").is_some_and(|v| v.ends_with(" GMT")));
    let location = header(&response, "location").unwrap().to_owned();
    assert!(location.starts_with(&format!("{}/uploads/tus/", app.base)), "{location}");
    location
}

async fn patch(app: &TestApp, url: &str, offset: usize, bytes: &[u8]) -> Response {
    app.client
        .patch(url)
        .header("Authorization", format!("ApiKey {}", app.key))
        .header(TUS.0, TUS.1)
        .header(OCTETS.0, OCTETS.1)
        .header("Upload-Offset", offset.to_string())
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap()
}

async fn head(app: &TestApp, url: &str) -> Response {
    app.client
        .head(url)
        .header("Authorization", format!("ApiKey {}", app.key))
        .header(TUS.0, TUS.1)
        .send()
        .await
        .unwrap()
}

fn offset(response: &Response) -> u64 {
    header(response, "upload-offset").unwrap().parse().unwrap()
}

async fn file(app: &TestApp, id: &str) -> Value {
    let response = app.authed(Method::GET, &format!("/files/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["file"].clone()
}

#[tokio::test]
async fn options_says_what_the_server_supports() {
    let app = TestApp::spawn().await;
    for path in ["/uploads/tus", "/uploads/tus/anything"] {
        let response = app.client.request(Method::OPTIONS, format!("{}{path}", app.base)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NO_CONTENT, "{path}");
        assert_eq!(header(&response, "tus-version"), Some("1.0.0"));
        assert_eq!(
            header(&response, "tus-extension"),
            Some("creation,creation-with-upload,creation-defer-length,expiration,termination,checksum")
        );
        assert_eq!(header(&response, "tus-max-size"), Some(app.config.max_upload_bytes.to_string().as_str()));
        assert_eq!(header(&response, "tus-checksum-algorithm"), Some("sha1,sha256"));
        assert_eq!(header(&response, "tus-resumable"), None, "OPTIONS answers without Tus-Resumable");
    }
}

#[tokio::test]
async fn an_upload_in_pieces_becomes_the_file() {
    let app = TestApp::spawn().await;
    let bytes = PNG;
    let meta = [
        ("filename", "in-pieces.png"),
        ("filetype", "image/png"),
        ("folderName", "tus/pieces"),
        ("customFilename", "renamed.png"),
    ];
    let url = create(&app, bytes.len(), &meta).await;

    let first = head(&app, &url).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!((offset(&first), header(&first, "upload-length")), (0, Some(bytes.len().to_string().as_str())));
    assert_eq!(header(&first, "upload-metadata"), Some(metadata(&meta).as_str()));
    assert_eq!(header(&first, "cache-control"), Some("no-store"));
    assert_eq!(header(&first, "tus-resumable"), Some("1.0.0"));
    assert!(header(&first, "shutterbox-file-id").is_none());

    let cuts = [0, 1, bytes.len() / 3, bytes.len() - 1, bytes.len()];
    let mut file_id = None;
    for piece in cuts.windows(2) {
        let response = patch(&app, &url, piece[0], &bytes[piece[0]..piece[1]]).await;
        assert_eq!(response.status(), StatusCode::NO_CONTENT, "{:?}", response.text().await);
        assert_eq!(offset(&response), piece[1] as u64);
        assert_eq!(header(&response, "tus-resumable"), Some("1.0.0"));
        file_id = header(&response, "shutterbox-file-id").map(str::to_owned);
        assert_eq!(file_id.is_some(), piece[1] == bytes.len(), "only the last PATCH names the file");
    }
    let file_id = file_id.unwrap();
    let done = head(&app, &url).await;
    assert_eq!(offset(&done), bytes.len() as u64);
    assert_eq!(header(&done, "shutterbox-file-id"), Some(file_id.as_str()));

    let object = file(&app, &file_id).await;
    assert!(object["rawUrl"].as_str().unwrap().ends_with("/raw/default/tus/pieces/renamed.png"), "{object}");
    assert_eq!(object["rawType"], "image/png");
    assert_eq!(object["rawSize"], bytes.len());
    let (status, _, raw) = app.fetch(object["rawUrl"].as_str().unwrap()).await;
    assert_eq!((status, raw.as_slice()), (StatusCode::OK, bytes));
    // The thumbnail and the description were queued as for any confirmed image.
    app.wait_for_jobs(2).await;

    // The pending upload's id still confirms, to the same file; a repeated last PATCH is answered again.
    let pending_id = url.rsplit('/').next().unwrap();
    let confirmed: Value = app.confirm(&app.key, pending_id).await.json().await.unwrap();
    assert_eq!(confirmed["message"], "Upload already confirmed");
    assert_eq!(confirmed["file"]["id"], file_id.as_str());
    let again = patch(&app, &url, bytes.len(), b"").await;
    assert_eq!(again.status(), StatusCode::NO_CONTENT);
    assert_eq!(header(&again, "shutterbox-file-id"), Some(file_id.as_str()));
}

#[tokio::test]
async fn the_protocol_refuses_what_it_must() {
    let app = TestApp::spawn_with(|c| c.max_upload_bytes = 1000).await;
    let url = create(&app, 10, &[("filename", "ten.bin")]).await;
    let auth = format!("ApiKey {}", app.key);

    // 412: no or another version, answered with the versions served.
    for version in [None, Some("0.2.2")] {
        let mut request = app.client.head(&url).header("Authorization", &auth);
        if let Some(version) = version {
            request = request.header("Tus-Resumable", version);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::PRECONDITION_FAILED, "{version:?}");
        assert_eq!(header(&response, "tus-version"), Some("1.0.0"));
        assert_eq!(header(&response, "tus-resumable"), Some("1.0.0"));
    }
    // 415: bytes of another type.
    let response = app
        .client
        .patch(&url)
        .header("Authorization", &auth)
        .header(TUS.0, TUS.1)
        .header("Content-Type", "application/octet-stream")
        .header("Upload-Offset", "0")
        .body("abc")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "tus-resumable"), Some("1.0.0"));
    helpers::assert_error(response, StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
    // 409: an offset the upload does not hold.
    assert_eq!(patch(&app, &url, 0, b"abc").await.status(), StatusCode::NO_CONTENT);
    let response = patch(&app, &url, 2, b"zzz").await;
    assert_eq!(header(&response, "tus-resumable"), Some("1.0.0"));
    helpers::assert_error(response, StatusCode::CONFLICT).await;
    // 413: more than the upload has left; at creation, more than the server takes.
    helpers::assert_error(patch(&app, &url, 3, b"12345678").await, StatusCode::PAYLOAD_TOO_LARGE).await;
    let response = app
        .authed(Method::POST, "/uploads/tus", &app.key)
        .header(TUS.0, TUS.1)
        .header("Upload-Length", "1001")
        .header("Upload-Metadata", metadata(&[("filename", "big.bin")]))
        .send()
        .await
        .unwrap();
    helpers::assert_error(response, StatusCode::PAYLOAD_TOO_LARGE).await;
    // 460: a body that does not match its checksum is not kept; 400 for an algorithm not served.
    let sha1 = |bytes: &[u8]| STANDARD.encode(sha1_of(bytes));
    let bad = app
        .client
        .patch(&url)
        .header("Authorization", &auth)
        .header(TUS.0, TUS.1)
        .header(OCTETS.0, OCTETS.1)
        .header("Upload-Offset", "3")
        .header("Upload-Checksum", format!("sha1 {}", sha1(b"defg")))
        .body("DEFG")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status().as_u16(), 460);
    assert_eq!(offset(&head(&app, &url).await), 3, "the mismatching piece was not kept");
    let sha256 = STANDARD.encode(Sha256::digest(b"defg"));
    for (checksum, expected) in
        [(format!("md5 {sha256}"), 400), (format!("sha256 {sha256}"), 204), (format!("sha1 {}", sha1(b"hij")), 204)]
    {
        let at = offset(&head(&app, &url).await);
        let body: &[u8] = if at == 3 { b"defg" } else { b"hij" };
        let response = app
            .client
            .patch(&url)
            .header("Authorization", &auth)
            .header(TUS.0, TUS.1)
            .header(OCTETS.0, OCTETS.1)
            .header("Upload-Offset", at.to_string())
            .header("Upload-Checksum", checksum)
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), expected);
    }
    assert!(head(&app, &url).await.headers().contains_key("shutterbox-file-id"), "ten bytes made the file");
    // 404: no such upload, a presigned PUT's pending upload, another account's upload.
    let unknown = format!("{}/uploads/tus/0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f", app.base);
    let response = head(&app, &unknown).await;
    assert_eq!((response.status(), header(&response, "tus-resumable")), (StatusCode::NOT_FOUND, Some("1.0.0")));
    let presigned: Value = app
        .presign(&app.key, json!({"filename": "a.bin", "mimetype": "application/octet-stream", "size": 3}))
        .await
        .json()
        .await
        .unwrap();
    let put_upload = format!("{}/uploads/tus/{}", app.base, presigned["pendingUploadId"].as_str().unwrap());
    assert_eq!(head(&app, &put_upload).await.status(), StatusCode::NOT_FOUND);
    let other = app.key_for("other", shutterbox_model::Scope::Secret).await;
    let url2 = create(&app, 5, &[("filename", "mine.bin")]).await;
    let response = app
        .client
        .head(&url2)
        .header("Authorization", format!("ApiKey {other}"))
        .header(TUS.0, TUS.1)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    // 401 without a key; 400 without a filename or a length.
    let response = app.client.head(&url2).header(TUS.0, TUS.1).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    for (length, meta) in
        [(Some("5"), metadata(&[("filetype", "text/plain")])), (None, metadata(&[("filename", "x.txt")]))]
    {
        let mut request =
            app.authed(Method::POST, "/uploads/tus", &app.key).header(TUS.0, TUS.1).header("Upload-Metadata", meta);
        if let Some(length) = length {
            request = request.header("Upload-Length", length);
        }
        helpers::assert_error(request.send().await.unwrap(), StatusCode::BAD_REQUEST).await;
    }
}

/// SHA-1 of `bytes` (the tests' own, so the server's is checked against another implementation).
fn sha1_of(bytes: &[u8]) -> [u8; 20] {
    use sha1::Digest as _;
    sha1::Sha1::digest(bytes).into()
}

#[tokio::test]
async fn method_override_creation_with_upload_and_deferred_length() {
    let app = TestApp::spawn().await;
    let bytes = content(3000);
    // creation-with-upload and creation-defer-length: the first piece in the POST, the length later.
    let response = app
        .authed(Method::POST, "/uploads/tus", &app.key)
        .header(TUS.0, TUS.1)
        .header(OCTETS.0, OCTETS.1)
        .header("Upload-Defer-Length", "1")
        .header("Upload-Metadata", metadata(&[("filename", "deferred.bin")]))
        .body(bytes[..1000].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(offset(&response), 1000);
    let url = header(&response, "location").unwrap().to_owned();
    let state = head(&app, &url).await;
    assert_eq!((header(&state, "upload-defer-length"), header(&state, "upload-length")), (Some("1"), None));
    // X-HTTP-Method-Override: a POST that is a PATCH, declaring the length.
    let response = app
        .client
        .post(&url)
        .header("Authorization", format!("ApiKey {}", app.key))
        .header("X-HTTP-Method-Override", "PATCH")
        .header(TUS.0, TUS.1)
        .header(OCTETS.0, OCTETS.1)
        .header("Upload-Offset", "1000")
        .header("Upload-Length", "3000")
        .body(bytes[1000..2000].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!((response.status(), offset(&response)), (StatusCode::NO_CONTENT, 2000));
    let state = app
        .client
        .post(&url)
        .header("Authorization", format!("ApiKey {}", app.key))
        .header("X-HTTP-Method-Override", "HEAD")
        .header(TUS.0, TUS.1)
        .send()
        .await
        .unwrap();
    assert_eq!(header(&state, "upload-length"), Some("3000"));
    let last = patch(&app, &url, 2000, &bytes[2000..]).await;
    let id = header(&last, "shutterbox-file-id").unwrap().to_owned();
    let (_, _, raw) = app.fetch(file(&app, &id).await["rawUrl"].as_str().unwrap()).await;
    assert!(raw == bytes);

    // An empty upload is a file at creation.
    let response = app
        .authed(Method::POST, "/uploads/tus", &app.key)
        .header(TUS.0, TUS.1)
        .header("Upload-Length", "0")
        .header("Upload-Metadata", metadata(&[("filename", "empty.txt"), ("filetype", "text/plain")]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let id = header(&response, "shutterbox-file-id").unwrap().to_owned();
    assert_eq!(file(&app, &id).await["rawSize"], 0);
}

#[tokio::test]
async fn presign_hands_out_a_url_that_needs_no_key() {
    let app = TestApp::spawn().await;
    let bytes = content(70_000);
    let body = json!({"filename": "browser.bin", "mimetype": "application/octet-stream", "size": bytes.len(), "resumable": true, "folderName": "from-browser"});
    let pending: Value = app.presign(&app.key, body).await.json().await.unwrap();
    let url = pending["uploadUrl"].as_str().unwrap().to_owned();
    let pending_id = pending["pendingUploadId"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/uploads/tus/{pending_id}?token=", app.base)), "{url}");
    let anonymous = |method: Method, url: &str| app.client.request(method, url).header(TUS.0, TUS.1);

    assert_eq!(offset(&anonymous(Method::HEAD, &url).send().await.unwrap()), 0);
    // A wrong token, or none, is refused.
    let (path, _) = url.split_once('?').unwrap();
    assert_eq!(
        anonymous(Method::HEAD, &format!("{path}?token=00")).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(anonymous(Method::HEAD, path).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    // Confirming early says how far the upload has got.
    let early = helpers::assert_error(app.confirm(&app.key, pending_id).await, StatusCode::BAD_REQUEST).await;
    assert!(early.contains("0 of its 70000 bytes"), "{early}");

    let mut at = 0;
    for piece in bytes.chunks(30_000) {
        let response = anonymous(Method::PATCH, &url)
            .header(OCTETS.0, OCTETS.1)
            .header("Upload-Offset", at.to_string())
            .body(piece.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        at += piece.len();
    }
    let done = anonymous(Method::HEAD, &url).send().await.unwrap();
    let id = header(&done, "shutterbox-file-id").unwrap().to_owned();
    let object = file(&app, &id).await;
    assert!(object["rawUrl"].as_str().unwrap().ends_with("/raw/default/from-browser/browser.bin"), "{object}");
    let (_, _, raw) = app.fetch(object["rawUrl"].as_str().unwrap()).await;
    assert!(raw == bytes);
}

#[tokio::test]
async fn termination_removes_the_upload_and_what_it_held() {
    let app = TestApp::spawn().await;
    let url = create(&app, 10 << 20, &[("filename", "abandoned.bin")]).await;
    assert_eq!(patch(&app, &url, 0, &content(6 << 20)).await.status(), StatusCode::NO_CONTENT);
    let delete = app
        .client
        .delete(&url)
        .header("Authorization", format!("ApiKey {}", app.key))
        .header(TUS.0, TUS.1)
        .send()
        .await
        .unwrap();
    assert_eq!((delete.status(), header(&delete, "tus-resumable")), (StatusCode::NO_CONTENT, Some("1.0.0")));
    assert_eq!(head(&app, &url).await.status(), StatusCode::NOT_FOUND);
    assert_eq!(patch(&app, &url, 6 << 20, b"more").await.status(), StatusCode::NOT_FOUND);
    if app.is_embedded() {
        let left: Vec<_> = walk(&app.data_dir.join("assembling"));
        assert!(left.is_empty(), "the partial file is gone: {left:?}");
    } else {
        let left = walk(&app.objects_dir);
        assert!(left.iter().all(|p| !p.contains("pending")), "no tail object is left: {left:?}");
    }
}

/// Every file under `dir`, as paths relative to it.
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                found.push(entry.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found
}

#[tokio::test]
async fn two_writers_cannot_interleave_and_a_broken_body_keeps_what_arrived() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::spawn().await;
    let total = 12 << 20;
    let bytes = content(total);
    let url = create(&app, total, &[("filename", "contended.bin")]).await;
    let target = url.strip_prefix(&app.root).unwrap().to_owned();
    // The first writer announces 8 MiB and sends 6: the server holds the lock while it waits for the rest.
    let addr = app.root.strip_prefix("http://").unwrap().to_owned();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let request = format!(
        "PATCH {target} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {}\r\nTus-Resumable: 1.0.0\r\n\
         Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: {}\r\n\r\n",
        app.key,
        8 << 20
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(&bytes[..6 << 20]).await.unwrap();
    stream.flush().await.unwrap();
    // Once the first writer holds the upload's lock (its row says so), a second writer is refused. (A
    // probe sent earlier could take the lock itself and refuse the first writer instead.)
    let pending_id = url.rsplit('/').next().unwrap().to_owned();
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.config.backend.database_url()).await.unwrap();
    let mut locked = false;
    for _ in 0..200 {
        let holder: Option<String> = sqlx::query_scalar("SELECT lock_holder FROM pending_uploads WHERE id = $1")
            .bind(&pending_id)
            .fetch_one(&pool)
            .await
            .unwrap();
        if holder.is_some() {
            locked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(locked, "the first writer took the upload's lock");
    let response = patch(&app, &url, 0, &bytes[..1024]).await;
    assert_eq!(response.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("2"));
    let message = helpers::assert_error(response, StatusCode::LOCKED).await;
    assert!(message.contains("another request is writing"), "{message}");
    // The first writer goes away mid-body: what arrived is kept (no checksum asked for all of it).
    drop(stream);
    let mut kept = 0;
    for _ in 0..100 {
        kept = offset(&head(&app, &url).await);
        if kept > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(kept > 0 && kept <= 6 << 20, "kept {kept}");
    // The client resumes there and the file is whole.
    let last = patch(&app, &url, kept as usize, &bytes[kept as usize..]).await;
    assert_eq!(last.status(), StatusCode::NO_CONTENT);
    let id = header(&last, "shutterbox-file-id").unwrap().to_owned();
    let (_, _, raw) = app.fetch(file(&app, &id).await["rawUrl"].as_str().unwrap()).await;
    assert!(Sha256::digest(&raw) == Sha256::digest(&bytes), "byte-identical");
}

#[tokio::test]
async fn browsers_of_the_configured_origins_alone_may_call() {
    let open = TestApp::spawn_with(|c| c.cors_origins = vec!["https://app.example".into()]).await;
    let closed = TestApp::spawn().await;
    let preflight = |app: &TestApp, origin: &str| {
        app.client
            .request(Method::OPTIONS, format!("{}/uploads/tus", app.base))
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "tus-resumable, upload-length, upload-metadata, authorization")
            .send()
    };
    let allowed = preflight(&open, "https://app.example").await.unwrap();
    assert!(allowed.status().is_success());
    assert_eq!(header(&allowed, "access-control-allow-origin"), Some("https://app.example"));
    let allow_headers = header(&allowed, "access-control-allow-headers").unwrap().to_ascii_lowercase();
    for name in ["tus-resumable", "upload-length", "upload-metadata", "authorization"] {
        assert!(allow_headers.contains(name), "{allow_headers}");
    }
    let other = preflight(&open, "https://evil.example").await.unwrap();
    assert_eq!(header(&other, "access-control-allow-origin"), None);
    let none = preflight(&closed, "https://app.example").await.unwrap();
    assert_eq!(header(&none, "access-control-allow-origin"), None, "no origin is allowed by default");

    // A real request from the allowed origin can read the TUS headers.
    let created = open
        .authed(Method::POST, "/uploads/tus", &open.key)
        .header("Origin", "https://app.example")
        .header(TUS.0, TUS.1)
        .header("Upload-Length", "3")
        .header("Upload-Metadata", metadata(&[("filename", "cors.txt")]))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let exposed = header(&created, "access-control-expose-headers").unwrap().to_ascii_lowercase();
    for name in ["location", "upload-offset", "upload-length", "tus-resumable", "upload-expires", "shutterbox-file-id"]
    {
        assert!(exposed.contains(name), "{exposed}");
    }
}

/// tus-js-client, in Node, uploads 64 MiB in 5 MiB chunks, is stopped after 4, and a new Upload of the
/// same bytes resumes it from its stored fingerprint; the file is byte-identical (scripts/tus-client.cjs).
#[tokio::test]
async fn tus_js_client_resumes_an_interrupted_upload() {
    let app = TestApp::spawn().await;
    let bytes = content(64 << 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("upload.bin");
    std::fs::write(&path, &bytes).unwrap();
    let modules = std::env::var("SHUTTERBOX_SHARP_NODE_MODULES").expect(
        "SHUTTERBOX_SHARP_NODE_MODULES names no node_modules with tus-js-client (scripts/test.sh installs one)",
    );
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/tus-client.cjs");
    let output = tokio::process::Command::new("node")
        .arg(script)
        .arg(format!("{}/uploads/tus", app.base))
        .arg(&app.key)
        .arg(&path)
        .arg((5 << 20).to_string())
        .arg("4")
        .arg(dir.path().join("fingerprints.json"))
        .env("NODE_PATH", modules)
        .output()
        .await
        .expect("node runs");
    assert!(output.status.success(), "tus-js-client: {}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let aborted_at = report["abortedAt"].as_u64().unwrap();
    assert!(aborted_at >= 4 * (5 << 20), "{report}");
    assert_eq!(report["resumedAt"].as_u64(), Some(aborted_at), "resumed where the server said: {report}");
    assert!(report["progressEvents"].as_u64().unwrap() > 0);
    let id = report["fileId"].as_str().unwrap_or_else(|| panic!("no file id: {report}"));
    let object = file(&app, id).await;
    assert!(object["rawUrl"].as_str().unwrap().ends_with("/raw/default/tus-js/tus-js-client.bin"), "{object}");
    let (status, _, raw) = app.fetch(object["rawUrl"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(Sha256::digest(&raw) == Sha256::digest(&bytes), "byte-identical");
}

/// An upload nobody finishes expires `upload_expiry_secs` after its last piece (410 until swept), and the
/// sweep removes it with its bytes (the partial file, or the multipart upload and tail object), counted
/// on `/metrics`.
#[tokio::test]
async fn an_abandoned_upload_is_swept_with_its_bytes() {
    let app = TestApp::spawn_with(|c| {
        c.upload_expiry_secs = 2;
        c.backend.sweep_interval_secs = 1;
        c.backend.sweep_grace_secs = 1;
    })
    .await;
    let url = create(&app, 10 << 20, &[("filename", "abandoned.bin")]).await;
    let response = patch(&app, &url, 0, &content(6 << 20)).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    // The piece moved the expiry on: an upload in use does not expire under its client.
    let expires = httpdate::parse_http_date(header(&response, "upload-expires").unwrap()).unwrap();
    assert!(expires > std::time::SystemTime::now(), "Upload-Expires is ahead");
    let swept = r#"shutterbox_uploads_swept_total{kind="resumable"}"#;
    let mut gone = false;
    for _ in 0..100 {
        let status = head(&app, &url).await.status();
        assert!(matches!(status, StatusCode::OK | StatusCode::GONE | StatusCode::NOT_FOUND), "{status}");
        if status == StatusCode::NOT_FOUND && app.job_metric(swept).await >= 1 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(gone, "the expired upload was swept and counted");
    if app.is_embedded() {
        let left = walk(&app.data_dir.join("assembling"));
        assert!(left.is_empty(), "the partial file is gone: {left:?}");
    } else {
        let left = walk(&app.objects_dir);
        assert!(left.iter().all(|p| !p.contains("pending")), "no tail object is left: {left:?}");
    }
}

/// A server killed (SIGKILL) in the middle of a PATCH loses no acknowledged byte and counts none it did not
/// acknowledge: the client's HEAD finds the last acknowledged offset, its resume waits out the dead
/// request's lock, and the file is byte-identical. Embedded: the real binary, killed and started again on
/// its data directory. Distributed: the API node serving the PATCH is killed and the other one resumes.
#[tokio::test]
async fn a_server_killed_mid_patch_loses_no_acknowledged_byte() {
    let client = reqwest::Client::builder().no_proxy().pool_max_idle_per_host(0).build().unwrap();
    let bytes = content(20 << 20);
    if helpers::distributed() {
        let mut app = TestApp::spawn().await;
        let (before, after) = (app.nodes[0].clone(), app.nodes[1].clone());
        let key = app.key.clone();
        let upload = start_then_hang(&client, &before, &key, &bytes).await;
        app.kill_node(0);
        // The other node cannot know the dead one is gone: 423 with Retry-After until its lock lapses.
        resume_after_kill(&client, &after, &key, &upload, &bytes).await;
    } else {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let port = helpers::free_port();
        let mut first = helpers::ServeProcess::start(&data, port, "first", &[]).await;
        let key = first.key.clone().unwrap();
        let upload = start_then_hang(&client, &first.root, &key, &bytes).await;
        first.child.kill().unwrap();
        first.child.wait().unwrap();
        let second = helpers::ServeProcess::start(&data, port, "second", &[]).await;
        // Well within the dead request's 6 s lock: the restarted process knows it for its own earlier life's.
        let refused = resume_after_kill(&client, &second.root, &key, &upload, &bytes).await;
        assert_eq!(refused, 0, "the restarted node waited out its own dead writer's lock");
    }
}

/// Creates an upload of `bytes` at `root`, sends its first 8 MiB (acknowledged), then a PATCH announcing
/// the rest of which only 5 MiB arrive, and leaves that one hanging. Returns the upload's path.
async fn start_then_hang(client: &reqwest::Client, root: &str, key: &str, bytes: &[u8]) -> String {
    use tokio::io::AsyncWriteExt;
    let created = client
        .post(format!("{root}/v1/uploads/tus"))
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .header("Upload-Length", bytes.len().to_string())
        .header("Upload-Metadata", metadata(&[("filename", "killed.bin")]))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let location = header(&created, "location").unwrap();
    let path = format!("/v1/uploads/tus/{}", location.rsplit('/').next().unwrap());
    let acknowledged = client
        .patch(format!("{root}{path}"))
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .header(OCTETS.0, OCTETS.1)
        .header("Upload-Offset", "0")
        .body(bytes[..8 << 20].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!((acknowledged.status(), offset(&acknowledged)), (StatusCode::NO_CONTENT, 8 << 20));
    let addr = root.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "PATCH {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {key}\r\nTus-Resumable: 1.0.0\r\n\
         Content-Type: application/offset+octet-stream\r\nUpload-Offset: {}\r\nContent-Length: {}\r\n\r\n",
        8 << 20,
        bytes.len() - (8 << 20)
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&bytes[8 << 20..13 << 20]).await.unwrap();
    stream.flush().await.unwrap();
    // Long enough for the server to have written (and, on S3, uploaded a part of) what arrived.
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The connection stays open until the test ends: the server dies with the PATCH in flight.
    std::mem::forget(stream);
    path
}

/// After the kill: HEAD at `root` finds exactly the acknowledged 8 MiB; the resumed PATCH (423 while a
/// dead request's lock lasts on another node; at once on the restarted node, which knows its lock for dead) completes the upload into a byte-identical file.
async fn resume_after_kill(client: &reqwest::Client, root: &str, key: &str, path: &str, bytes: &[u8]) -> usize {
    let url = format!("{root}{path}");
    let state = client.head(&url).header("Authorization", format!("ApiKey {key}")).header(TUS.0, TUS.1).send();
    let state = state.await.unwrap();
    assert_eq!(state.status(), StatusCode::OK);
    let at = offset(&state) as usize;
    assert_eq!(at, 8 << 20, "the acknowledged bytes, and only those");
    let mut conflicts = 0;
    let done = loop {
        let response = client
            .patch(&url)
            .header("Authorization", format!("ApiKey {key}"))
            .header(TUS.0, TUS.1)
            .header(OCTETS.0, OCTETS.1)
            .header("Upload-Offset", at.to_string())
            .body(bytes[at..].to_vec())
            .send()
            .await;
        // A 423 answered before the body was read can reach the client as a broken pipe while it sends.
        let refused = response.as_ref().map_or(true, |r| r.status() == StatusCode::LOCKED);
        if refused && conflicts < 40 {
            conflicts += 1;
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        break response.unwrap();
    };
    assert_eq!(done.status(), StatusCode::NO_CONTENT, "{:?}", done.text().await);
    let id = header(&done, "shutterbox-file-id").unwrap().to_owned();
    let file: Value = client
        .get(format!("{root}/v1/files/{id}"))
        .header("Authorization", format!("ApiKey {key}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let raw_path = file["file"]["rawUrl"].as_str().unwrap().split("/v1/").nth(1).unwrap().to_owned();
    let raw = client.get(format!("{root}/v1/{raw_path}")).send().await.unwrap().bytes().await.unwrap();
    assert!(Sha256::digest(&raw) == Sha256::digest(bytes), "byte-identical after the kill");
    conflicts
}
