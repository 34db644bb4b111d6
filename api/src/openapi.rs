//! The OpenAPI document: generated from the route definitions by poem-openapi, then completed here with
//! what poem-openapi cannot express, so that SDK generators and Swagger UI see the whole API (docs/clients.md,
//! "What the document guarantees generators"):
//!
//! - the public delivery routes (`/file/{path}`, `/raw/{path}`, `/files/{id}/thumbnail`), which are served
//!   by plain poem handlers on the hot path (a wildcard path has no poem-openapi form), under their own tag
//!   and with `security: []`;
//! - the resumable-upload routes (`/uploads/tus`, `/uploads/tus/{id}`), tus's own protocol of headers and
//!   binary bodies served by their own handler, under their own tag;
//! - per-status error examples and the response headers (`X-Request-Id`, the rate-limit headers,
//!   `Retry-After`) on every response;
//! - the transform-url body and the delivery parameters, written from the parameter table
//!   (`shutterbox_pipeline::PARAMS`): each row's type, range, value set or grammar, and its words.
//!
//! Its server is the relative `/v1`, so the checked-in `openapi/openapi.json` does not depend on where the
//! service runs. Swagger UI at `/v1/docs` embeds this completed document.

use std::sync::LazyLock;

use poem::{EndpointExt, IntoResponse, endpoint::make_sync, web::Html};
use poem_openapi::OpenApiService;
use serde_json::{Map, Value, json};
use shutterbox_model::MediaFormat;
use shutterbox_pipeline::{PARAMS, ParamKind, ParamSpec};

use crate::{
    delivery::{DELIVER_FILE, DELIVER_RAW, GET_THUMBNAIL, PRESET, THUMBNAIL_PRESET},
    http::route::{GET_HEAD, MethodCheck, RouteSpec},
    manage::resumable::{self, RESUMABLE_UPLOAD, RESUMABLE_UPLOADS},
    manage::{FilesApi, FoldersApi, KeyApi, KeysApi, TransformApi, UploadApi, WarmApi, transform_request_example},
};

pub type Apis = (UploadApi, FilesApi, FoldersApi, TransformApi, WarmApi, KeyApi, KeysApi);

pub fn service() -> OpenApiService<Apis, ()> {
    OpenApiService::new(
        (UploadApi, FilesApi, FoldersApi, TransformApi, WarmApi, KeyApi, KeysApi),
        "Shutterbox",
        env!("CARGO_PKG_VERSION"),
    )
    .description(
        "File storage and image delivery. Management endpoints take an API key as \
             `Authorization: ApiKey <key>` (or an `ApiKey: <key>` header); public delivery needs none.",
    )
    .server("/v1")
}

/// `/v1/openapi.json`: the document.
pub static OPENAPI_DOCUMENT: RouteSpec = RouteSpec {
    paths: &["/v1/openapi.json"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "openapiDocument",
    documented: false,
    handler: |_| {
        let spec = spec_json();
        make_sync(move |_| spec.clone().with_content_type(JSON)).map_to_response().boxed()
    },
};

/// `/v1/docs`: Swagger UI over the document.
pub static DOCS: RouteSpec = RouteSpec {
    paths: &["/v1/docs", "/v1/docs/"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "docs",
    documented: false,
    handler: |_| {
        let docs = swagger_ui_html();
        make_sync(move |_| Html(docs.clone())).map_to_response().boxed()
    },
};

/// What the OpenAPI operations declare (paths and methods), for the router's `Allow` table.
pub fn operations() -> Vec<poem_openapi::registry::MetaApi> {
    <Apis as poem_openapi::OpenApi>::meta()
}

/// The document as pretty JSON, exactly as checked in at `openapi/openapi.json`.
pub fn spec_json() -> String {
    static SPEC: LazyLock<String> = LazyLock::new(|| {
        let generated = service().spec();
        match serde_json::from_str::<Value>(&generated) {
            Ok(mut document) => {
                complete(&mut document);
                serde_json::to_string_pretty(&document).unwrap_or(generated)
            }
            // poem-openapi's own output always parses; if it ever did not, serve it as it is.
            Err(_) => generated,
        }
    });
    SPEC.clone()
}

/// Swagger UI's page, with the completed document in place of poem-openapi's.
pub fn swagger_ui_html() -> String {
    let service = service();
    service.swagger_ui_html().replace(&service.spec(), &spec_json())
}

const JSON: &str = shutterbox_model::JSON_UTF8;
const DELIVERY_TAG: &str = "Delivery";
const RESUMABLE_TAG: &str = "Resumable";

/// Adds to poem-openapi's document what it cannot express (see the module comment).
fn complete(document: &mut Value) {
    document["components"]["schemas"]["TransformRequest"] = transform_request_schema();
    // serde's deny_unknown_fields, which poem-openapi's schema does not show.
    for schema in ["WarmRequest", "FilePatch", "CreateKeyRequest"] {
        document["components"]["schemas"][schema]["additionalProperties"] = json!(false);
    }
    let transformation_params = transformation_parameters(document);
    for item in document["paths"].as_object_mut().into_iter().flat_map(|paths| paths.values_mut()) {
        for operation in item.as_object_mut().into_iter().flat_map(|item| item.values_mut()) {
            describe_responses(operation, true);
        }
    }
    if let Some(paths) = document["paths"].as_object_mut() {
        let operations = public_routes(&transformation_params).into_iter().chain(resumable_routes());
        for (route, method, mut operation) in operations {
            let Some(path) = route.document_path() else { continue };
            // The row's operation id, unless the operation names its own (a route of several methods).
            if operation.get("operationId").is_none() {
                operation["operationId"] = route.operation_id.into();
            }
            describe_responses(&mut operation, false);
            let item = paths.entry(path).or_insert_with(|| json!({}));
            item[method.to_ascii_lowercase()] = operation;
        }
    }
    document["components"]["headers"] = shared_headers();
    if let Some(tags) = document["tags"].as_array_mut() {
        tags.push(json!({
            "name": RESUMABLE_TAG,
            "description": "Resumable uploads by the tus 1.0.0 protocol, whose requests and answers live in \
                            headers: for tus clients (tus-js-client, Uppy's @uppy/tus), not meant for the \
                            generated clients. docs/api.md, \"Resumable uploads\"."
        }));
        tags.push(json!({
            "name": DELIVERY_TAG,
            "description": "Public delivery: images with transformations, stored bytes and thumbnails, by the \
                            URLs of a file object. No API key; not meant for the generated clients, which \
                            percent-encode the `/` of a stored path."
        }));
    }
}

/// The transform-url body's schema, from the parameter table: a nullable property per row, of the schema
/// its kind gives, and `preset`.
fn transform_request_schema() -> Value {
    let mut properties: Map<String, Value> = PARAMS
        .iter()
        .map(|spec| {
            let mut schema = parameter_schema(spec.kind);
            schema["nullable"] = json!(true);
            schema["description"] = json!(description(spec));
            (spec.name.to_owned(), schema)
        })
        .collect();
    properties.insert(
        PRESET.to_owned(),
        json!({
            "type": "string",
            "nullable": true,
            "description": "The name of one of the service's presets (`SHUTTERBOX_PRESETS`), alone: instead of \
                            the parameters above."
        }),
    );
    json!({
        "type": "object",
        "title": "TransformRequest",
        "description": "Transformations, with the names, types and ranges of the delivery query parameters. All \
                        optional.",
        // serde's deny_unknown_fields, as the body's parser has it.
        "additionalProperties": false,
        "example": transform_request_example(),
        "properties": properties,
    })
}

/// The schema of a parameter's value: the ranges, value sets and grammar the parser holds it to.
fn parameter_schema(kind: ParamKind) -> Value {
    match kind {
        ParamKind::Integer { min, max } => json!({
            "type": "integer",
            "format": if min < 0 { "int32" } else { "uint32" },
            "minimum": min as f64,
            "maximum": max as f64,
        }),
        ParamKind::Number { min, max } => {
            json!({ "type": "number", "format": "double", "minimum": min, "maximum": max })
        }
        ParamKind::Boolean => json!({ "type": "boolean" }),
        ParamKind::OneOf { values } => json!({ "type": "string", "enum": values() }),
        ParamKind::Quality => json!({
            "anyOf": [
                { "type": "integer", "minimum": 1, "maximum": 100 },
                { "type": "string", "enum": ["auto"] }
            ]
        }),
        ParamKind::Border | ParamKind::Crop | ParamKind::Gravity => {
            json!({ "type": "string", "pattern": kind.pattern() })
        }
    }
}

/// A row's words as one sentence: what it does, then its default.
fn description(spec: &ParamSpec) -> String {
    let mut about = spec.about.chars();
    let first = about.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
    format!("{first}{}. Default: {}.", about.as_str(), spec.default)
}

/// The delivery query parameters: TransformRequest's properties, one parameter each.
fn transformation_parameters(document: &Value) -> Vec<Value> {
    let Some(properties) = document["components"]["schemas"]["TransformRequest"]["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, schema)| {
            let mut schema = schema.clone();
            // A query parameter is absent or has a value: null means nothing there.
            let description = schema.as_object_mut().and_then(|s| {
                s.remove("nullable");
                s.remove("description")
            });
            json!({
                "name": name,
                "in": "query",
                "required": false,
                "description": description.unwrap_or_default(),
                "schema": schema
            })
        })
        .collect()
}

fn header(description: &str, schema: Value, required: bool) -> Value {
    json!({ "description": description, "required": required, "schema": schema })
}

/// The response headers shared by every operation, defined once under `components/headers`.
fn shared_headers() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "X-Request-Id": header(
            "This request's id, also in the service's log lines: the caller's own `X-Request-Id` when it sent a \
             short plain one, else a new one.",
            json!({ "type": "string" }),
            true,
        ),
        "X-RateLimit-Limit": header("Requests allowed per window.", count.clone(), false),
        "X-RateLimit-Remaining": header("Requests left in the current window.", count.clone(), false),
        "X-RateLimit-Reset": header("When the current window ends, in Unix seconds.", count.clone(), false),
        "Retry-After": header("Seconds to wait before retrying.", count, false),
    })
}

fn header_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

/// Response headers by status, and an error example for every error response.
fn describe_responses(operation: &mut Value, rate_limited: bool) {
    let Some(responses) = operation["responses"].as_object_mut() else { return };
    for (status, response) in responses.iter_mut() {
        let code: u16 = status.parse().unwrap_or(0);
        let mut names = vec!["X-Request-Id"];
        if rate_limited {
            names.extend(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]);
        }
        if code == 429 || code == 503 {
            names.push("Retry-After");
        }
        let mut headers: Map<String, Value> =
            names.into_iter().map(|name| (name.to_owned(), header_ref(name))).collect();
        headers.extend(response["headers"].as_object().cloned().unwrap_or_default());
        response["headers"] = Value::Object(headers);
        if code >= 400
            && let Some(media) = response.get_mut("content").and_then(|content| content.get_mut(JSON))
        {
            media["example"] = error_example(code, rate_limited);
        }
    }
}

/// A typical error body for `status`, with a message the service really sends.
fn error_example(status: u16, rate_limited: bool) -> Value {
    let message = match status {
        400 => "w must be an integer from 1 to 5000 (got '0')",
        401 => "missing API key: send 'Authorization: ApiKey <key>' or 'ApiKey: <key>'",
        408 => "the request body sent less than 16384 bytes in 30 s",
        413 => "the request body is larger than 1048576 bytes",
        403 if rate_limited => "this key's scope 'read' does not allow this operation",
        // The public routes: signed URLs.
        403 => "this URL asks for a transformation and carries no signature (sig); sign it with a current key",
        404 => "no file with this id",
        416 => "requested range is outside the file",
        429 if rate_limited => "rate limit exceeded; retry after the reset time",
        // Public delivery: the cold-render throttle.
        429 => "this client has asked for too many new variants; retry in 17 s",
        500 => "internal server error",
        503 => "the metadata database is temporarily unavailable; retry shortly",
        _ => "request failed",
    };
    let mut headers = json!({});
    if rate_limited {
        headers = json!({
            "x-ratelimit-limit": "100",
            "x-ratelimit-remaining": if status == 429 { "0" } else { "97" },
            "x-ratelimit-reset": "1764000060"
        });
    }
    if status == 429 {
        headers["retry-after"] = json!("17");
    }
    json!({ "message": message, "status": status, "headers": headers })
}

fn error_response(description: &str) -> Value {
    json!({ "description": description, "content": { JSON: { "schema": { "$ref": "#/components/schemas/Error" } } } })
}

fn binary(media_types: &[&str]) -> Value {
    let content: Map<String, Value> = media_types
        .iter()
        .map(|media| ((*media).to_owned(), json!({ "schema": { "type": "string", "format": "binary" } })))
        .collect();
    Value::Object(content)
}

/// Headers of a delivered body; the ETag answers `If-None-Match`.
fn delivery_headers() -> Value {
    json!({
        "ETag": header("Strong validator of these bytes.", json!({ "type": "string" }), true),
        "Cache-Control": header("`public, max-age=<SHUTTERBOX_CACHE_MAX_AGE>`.", json!({ "type": "string" }), true),
    })
}

fn stored_path_parameter() -> Value {
    json!({
        "name": "path",
        "in": "path",
        "required": true,
        "description": "The file's stored path, as in its `secureUrl`: account, folders and file name, separated \
                        by unencoded `/` (each segment percent-encoded on its own). A `/` sent as `%2F` is a \
                        404, so that no file has a second address; take the URL from the file object rather \
                        than building it.",
        "schema": { "type": "string" },
        "example": "default/pets/cat.jpg"
    })
}

/// `sig` and `exp`, read when the operator requires signed URLs (api/src/signing.rs).
fn signature_parameters() -> [Value; 2] {
    [
        json!({
            "name": "sig",
            "in": "query",
            "required": false,
            "description": "When the service requires signed URLs (`SHUTTERBOX_URL_SIGNING_KEYS`): the \
                            HMAC-SHA256 of the path and parameters, unpadded base64url. transform-url and \
                            `shutterbox sign` add it; docs/internet.md defines it.",
            "schema": { "type": "string", "pattern": "^[A-Za-z0-9_-]{43}$" }
        }),
        json!({
            "name": "exp",
            "in": "query",
            "required": false,
            "description": "A signed URL's expiry, in Unix seconds (covered by `sig`).",
            "schema": { "type": "integer", "minimum": 0 }
        }),
    ]
}

fn not_modified() -> Value {
    json!({
        "description": "`If-None-Match` named this ETag: the cached copy is current.",
        "headers": delivery_headers()
    })
}

/// The documented public routes (served by plain handlers, `delivery/`): each operation's description here,
/// its path, method and operation id from the route table.
fn public_routes(transformation_params: &[Value]) -> Vec<(&'static RouteSpec, &'static str, Value)> {
    let mut file_params = vec![stored_path_parameter()];
    file_params.extend_from_slice(transformation_params);
    file_params.extend(signature_parameters());
    let operations = [
        (
            &DELIVER_FILE,
            json!({
                "tags": [DELIVERY_TAG],
                "summary": "Deliver an image, transformed",
                "description": "The file at `path` with the query's transformations applied \
                    (docs/transformations.md), in the format named by `format`, else by the URL's extension \
                    (`cat.webp` serves \
                    `cat.jpg` as WebP). Unknown parameters are ignored and parameter order does not matter. \
                    Without transformations the original bytes are served, with `Range` support. SVG and \
                    BMP originals and `format=bmp` are served unconverted. `preset` renders one of the \
                    operator's named presets. Where the operator requires it, a render needs a valid \
                    signature (`sig`, docs/internet.md) or a preset. Variants are rendered once and kept; a \
                    render the service has no room for is a 503 with `Retry-After`, and where the operator \
                    set a budget of renders per client address, a render beyond it is a 429 with \
                    `Retry-After` (cached and stored variants are always served). Also answers `HEAD`.",
                "security": [],
                "parameters": file_params,
                "responses": {
                    "200": {
                        "description": "The image bytes, typed by their format; a non-image file asked for \
                                        without transformations comes as stored.",
                        "headers": delivery_headers(),
                        "content": binary(&["image/*", "*/*"])
                    },
                    "206": {
                        "description": "The requested range of an original served as stored (`Range`).",
                        "content": binary(&["image/*", "*/*"])
                    },
                    "304": not_modified(),
                    "400": error_response("A transformation parameter is out of range or malformed, a \
                                           preset is unknown or combined with parameters, \
                                           transformations were asked of a non-image, or the render \
                                           would exceed a limit (source or output pixels, source \
                                           frames)."),
                    "403": error_response("The service requires signed URLs and `sig` is missing, wrong or \
                                           expired, or it renders named presets only."),
                    "404": error_response("No file at this path."),
                    "416": error_response("The requested range is outside the original."),
                    "429": error_response("This client address has caused as many renders as the \
                                           operator's budget allows for now; see Retry-After."),
                    "500": error_response("Internal server error."),
                    "503": error_response("Rendering is at capacity or a backing service is unavailable; \
                                           see Retry-After.")
                }
            }),
        ),
        (
            &DELIVER_RAW,
            json!({
                "tags": [DELIVERY_TAG],
                "summary": "Deliver a file's stored bytes",
                "description": "The bytes exactly as uploaded (the file's `rawUrl`). Supports `Range` (one \
                    range) and `If-None-Match`. Types that could run script in this origin (HTML, SVG, XML, \
                    JavaScript) are sent as attachments under a sandboxing Content-Security-Policy. Also \
                    answers `HEAD`.",
                "security": [],
                "parameters": [stored_path_parameter()],
                "responses": {
                    "200": {
                        "description": "The stored bytes with their sniffed type.",
                        "headers": delivery_headers(),
                        "content": binary(&["*/*"])
                    },
                    "206": { "description": "The requested range.", "content": binary(&["*/*"]) },
                    "304": not_modified(),
                    "404": error_response("No file at this path."),
                    "416": error_response("The requested range is outside the file."),
                    "500": error_response("Internal server error."),
                    "503": error_response("The object store is unavailable; see Retry-After.")
                }
            }),
        ),
        (
            &GET_THUMBNAIL,
            json!({
                "tags": [DELIVERY_TAG],
                "summary": "Deliver a file's thumbnail",
                "description": format!(
                    "The file's `secureThumbnailUrl`: a 256×256 WebP centre crop (`{}`; smaller images are not \
                     enlarged; an animation's first frame), rendered by a job queued at confirm. Files without a \
                     picture of their own (non-images, SVG, undecodable images) get a PNG placeholder for their \
                     type. Also answers `HEAD`.",
                    THUMBNAIL_PRESET.to_query()
                ),
                "security": [],
                "parameters": [{
                    "name": "id",
                    "in": "path",
                    "required": true,
                    "description": "The file's id.",
                    "schema": { "type": "string" }
                }],
                "responses": {
                    "200": {
                        "description": "The thumbnail, or a placeholder.",
                        "headers": delivery_headers(),
                        "content": binary(&[MediaFormat::Webp.mime(), MediaFormat::Png.mime()])
                    },
                    "304": not_modified(),
                    "404": error_response("No file with this id."),
                    "500": error_response("Internal server error."),
                    "503": error_response("Rendering is at capacity or a backing service is unavailable; \
                                           see Retry-After.")
                }
            }),
        ),
    ];
    operations.into_iter().map(|(route, operation)| (route, "GET", operation)).collect()
}

/// `Tus-Resumable`, which every tus request but `OPTIONS` carries.
fn tus_version_parameter() -> Value {
    json!({
        "name": "Tus-Resumable",
        "in": "header",
        "required": true,
        "description": "The tus version the client speaks; another is a 412 naming the one served.",
        "schema": { "type": "string", "enum": [resumable::VERSION] }
    })
}

/// The request headers of tus that carry a number, a list or a checksum.
fn tus_parameter(name: &str, required: bool, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "header", "required": required, "description": description, "schema": schema })
}

/// An upload's id in its URL, and the token of a presigned one.
fn tus_upload_parameters() -> [Value; 2] {
    [
        json!({
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The upload's id: the last segment of its `Location` (or of a presigned `uploadUrl`).",
            "schema": { "type": "string" }
        }),
        json!({
            "name": "token",
            "in": "query",
            "required": false,
            "description": "The token of a presigned resumable URL (`POST /upload/presign` with `\"resumable\": \
                            true`), which authorises this one upload without a key.",
            "schema": { "type": "string" }
        }),
    ]
}

fn tus_headers(entries: &[(&str, bool, &str)]) -> Value {
    let mut headers: Map<String, Value> = entries
        .iter()
        .map(|(name, required, description)| {
            ((*name).to_owned(), header(description, json!({ "type": "string" }), *required))
        })
        .collect();
    headers.insert(
        "Tus-Resumable".into(),
        header("The tus version served.", json!({ "type": "string", "enum": [resumable::VERSION] }), true),
    );
    Value::Object(headers)
}

const FILE_ID_HEADER: (&str, bool, &str) =
    ("Shutterbox-File-Id", false, "The file the upload became, once its last byte is in (and on every answer after).");
const EXPIRES_HEADER: &str = "When the upload expires unless more bytes arrive (an HTTP date).";

fn tus_errors(statuses: &[(u16, &str)]) -> Map<String, Value> {
    statuses.iter().map(|(status, description)| (status.to_string(), error_response(description))).collect()
}

/// A HEAD's errors: the same statuses, without a body.
fn bodiless(errors: Map<String, Value>) -> Map<String, Value> {
    errors.into_iter().map(|(status, error)| (status, json!({ "description": error["description"] }))).collect()
}

/// The resumable-upload routes (tus 1.0.0, docs/api.md "Resumable uploads"), served by their own handler
/// (`manage/resumable/`): for tus clients (tus-js-client, Uppy), whose protocol lives in headers.
fn resumable_routes() -> Vec<(&'static RouteSpec, &'static str, Value)> {
    let chunk = json!({ resumable::OFFSET_OCTET_STREAM: { "schema": { "type": "string", "format": "binary" } } });
    let key_or_token = json!([{ "AuthorizationHeader": [] }, { "ApiKeyHeader": [] }, {}]);
    let [upload_id, token] = tus_upload_parameters();
    let common = [
        (401, "No API key and no token (or a key that is unknown, revoked or expired)."),
        (403, "The key's scope does not upload."),
        (412, "Another tus version than the one served; `Tus-Version` names it."),
        (429, "Too many requests for this key or client address; see Retry-After."),
        (500, "Internal server error."),
        (503, "A backing service is unavailable; see Retry-After."),
    ];
    let gone = [(404, "No upload at this URL that the key or token may touch."), (410, "The upload expired.")];
    // The collection's and an upload's capabilities: the same answer, the upload's with its id.
    let options = |operation_id: &str, parameters: Value| {
        json!({
            "tags": [RESUMABLE_TAG],
            "summary": "What the tus server supports",
            "description": "tus discovery: the version, extensions, largest upload and checksum algorithms.",
            "operationId": operation_id,
            "security": [],
            "parameters": parameters,
            "responses": {
                "204": {
                    "description": "What is served.",
                    "headers": {
                        "Tus-Version": header("The versions served.", json!({ "type": "string" }), true),
                        "Tus-Extension": header("The extensions served.", json!({ "type": "string", "example": resumable::EXTENSIONS }), true),
                        "Tus-Max-Size": header("The largest upload, in bytes.", json!({ "type": "integer", "minimum": 0 }), true),
                        "Tus-Checksum-Algorithm": header("The checksums `Upload-Checksum` may use.", json!({ "type": "string", "example": resumable::CHECKSUM_ALGORITHMS }), true)
                    }
                }
            }
        })
    };
    let length = json!({ "type": "integer", "minimum": 0 });
    let checksum = tus_parameter(
        "Upload-Checksum",
        false,
        "`<algorithm> <base64 digest>` of this request's body (`sha1` or `sha256`); a mismatch is a 460 and \
         nothing of the body is kept.",
        json!({ "type": "string" }),
    );

    let mut create_errors = tus_errors(&common);
    create_errors.extend(tus_errors(&[
        (400, "A tus header is missing or malformed, or the name, folder or type in Upload-Metadata is refused."),
        (408, "The first piece arrived too slowly."),
        (413, "Upload-Length is over the largest upload (`Tus-Max-Size`)."),
        (415, "A body that is not `application/offset+octet-stream`."),
        (460, "The body does not match its Upload-Checksum."),
    ]));
    let mut created = Map::new();
    created.insert(
        "201".into(),
        json!({
            "description": "Created; its URL is in `Location`. With a first piece in the body, `Upload-Offset` says \
                            how much of it was kept.",
            "headers": tus_headers(&[
                ("Location", true, "The upload's URL, for its HEAD, PATCH and DELETE."),
                ("Upload-Expires", true, EXPIRES_HEADER),
                ("Upload-Offset", false, "Bytes kept of the first piece."),
                FILE_ID_HEADER,
            ])
        }),
    );
    created.extend(create_errors);
    let create = json!({
        "tags": [RESUMABLE_TAG],
        "summary": "Create a resumable upload (tus)",
        "description": "tus creation: an upload of `Upload-Length` bytes (or `Upload-Defer-Length: 1`), named by \
            `Upload-Metadata` (`filename`, and `filetype`, `folderName`, `customFilename`, each base64), \
            optionally with a first piece (`creation-with-upload`). Send the rest with PATCH; the last byte \
            confirms the file. For tus clients (tus-js-client, Uppy): docs/api.md, \"Resumable uploads\".",
        "security": key_or_token.clone(),
        "parameters": [
            tus_version_parameter(),
            tus_parameter("Upload-Length", false, "The upload's size in bytes.", length.clone()),
            tus_parameter("Upload-Defer-Length", false, "`1`: the size is sent with a later PATCH.", json!({ "type": "integer", "enum": [1] })),
            tus_parameter("Upload-Metadata", true, "Comma-separated `key base64(value)` pairs; `filename` is required.", json!({ "type": "string" })),
            checksum.clone(),
        ],
        "requestBody": { "required": false, "content": chunk.clone() },
        "responses": created
    });

    let mut head_responses = Map::new();
    head_responses.insert(
        "200".into(),
        json!({
            "description": "How far the upload has got.",
            "headers": tus_headers(&[
                ("Upload-Offset", true, "Bytes received and kept: send the rest from here."),
                ("Upload-Length", false, "The upload's size, once known."),
                ("Upload-Defer-Length", false, "`1` while the size is not yet known."),
                ("Upload-Metadata", false, "Upload-Metadata as it was sent at creation."),
                ("Upload-Expires", true, EXPIRES_HEADER),
                ("Cache-Control", true, "`no-store`."),
                FILE_ID_HEADER,
            ])
        }),
    );
    head_responses.extend(bodiless(tus_errors(&common)));
    head_responses.extend(bodiless(tus_errors(&gone)));
    let head = json!({
        "tags": [RESUMABLE_TAG],
        "summary": "How far a resumable upload has got (tus)",
        "description": "tus offset: after a broken connection, ask this and send the rest from `Upload-Offset`.",
        "operationId": "getResumableUploadOffset",
        "security": key_or_token.clone(),
        "parameters": [upload_id.clone(), token.clone(), tus_version_parameter()],
        "responses": head_responses
    });

    let mut patch_responses = Map::new();
    patch_responses.insert(
        "204".into(),
        json!({
            "description": "The piece is kept (durable before this answer). After the last byte, the upload is a \
                            file, named in `Shutterbox-File-Id`.",
            "headers": tus_headers(&[
                ("Upload-Offset", true, "Bytes received and kept."),
                ("Upload-Expires", false, EXPIRES_HEADER),
                FILE_ID_HEADER,
            ])
        }),
    );
    patch_responses.extend(tus_errors(&common));
    patch_responses.extend(tus_errors(&gone));
    patch_responses.extend(tus_errors(&[
        (400, "A tus header is missing or malformed, the body broke off, or the last byte's file is refused."),
        (408, "The piece arrived too slowly; what arrived is kept (ask with HEAD)."),
        (409, "Upload-Offset is not the upload's offset, or this request lost the upload's lock: ask with HEAD."),
        (413, "More bytes than the upload's length, or than the largest upload."),
        (415, "A body that is not `application/offset+octet-stream`."),
        (423, "Another request is writing to this upload; try again shortly."),
        (460, "The body does not match its Upload-Checksum; nothing of it was kept."),
    ]));
    let patch = json!({
        "tags": [RESUMABLE_TAG],
        "summary": "Send a piece of a resumable upload (tus)",
        "description": "tus append: the body's bytes at `Upload-Offset` (the offset HEAD gave). One writer at a \
            time, across nodes.",
        "operationId": "appendResumableUpload",
        "security": key_or_token.clone(),
        "parameters": [
            upload_id.clone(),
            token.clone(),
            tus_version_parameter(),
            tus_parameter("Upload-Offset", true, "Where this piece starts: the upload's offset.", length.clone()),
            tus_parameter("Upload-Length", false, "The size, for an upload created with Upload-Defer-Length.", length),
            checksum,
        ],
        "requestBody": { "required": true, "content": chunk },
        "responses": patch_responses
    });

    let mut delete_responses = Map::new();
    delete_responses.insert(
        "204".into(),
        json!({ "description": "The upload and its bytes are gone.", "headers": tus_headers(&[]) }),
    );
    delete_responses.extend(tus_errors(&common));
    delete_responses.extend(tus_errors(&gone));
    let delete = json!({
        "tags": [RESUMABLE_TAG],
        "summary": "Abandon a resumable upload (tus)",
        "description": "tus termination: the upload and the bytes received are removed.",
        "operationId": "terminateResumableUpload",
        "security": key_or_token,
        "parameters": [upload_id.clone(), token.clone(), tus_version_parameter()],
        "responses": delete_responses
    });

    vec![
        (&RESUMABLE_UPLOADS, "POST", create),
        (&RESUMABLE_UPLOADS, "OPTIONS", options("tusCapabilities", json!([]))),
        (&RESUMABLE_UPLOAD, "HEAD", head),
        (&RESUMABLE_UPLOAD, "PATCH", patch),
        (&RESUMABLE_UPLOAD, "DELETE", delete),
        (&RESUMABLE_UPLOAD, "OPTIONS", options("tusUploadCapabilities", json!([upload_id.clone()]))),
    ]
}

#[cfg(test)]
mod tests {
    use shutterbox_pipeline::{PARAMS, ParamKind, ParamSpec};

    use super::*;

    /// What a parameter's schema must say, by its row: the same ranges and value sets the parser holds it
    /// to.
    fn assert_schema_states(spec: &ParamSpec, schema: &Value, place: &str) {
        let name = spec.name;
        match spec.kind {
            ParamKind::Integer { min, max } => {
                assert_eq!(schema["type"], "integer", "{place} {name}");
                // The document writes bounds as numbers (`1.0`).
                let bounds = (schema["minimum"].as_f64(), schema["maximum"].as_f64());
                assert_eq!(bounds, (Some(min as f64), Some(max as f64)), "{place} {name}");
            }
            ParamKind::Number { min, max } => {
                assert_eq!(schema["type"], "number", "{place} {name}");
                assert_eq!(
                    (schema["minimum"].as_f64(), schema["maximum"].as_f64()),
                    (Some(min), Some(max)),
                    "{place} {name}"
                );
            }
            ParamKind::Boolean => assert_eq!(schema["type"], "boolean", "{place} {name}"),
            ParamKind::OneOf { values } => assert_eq!(schema["enum"], json!(values()), "{place} {name}"),
            ParamKind::Quality => assert_eq!(
                schema["anyOf"],
                json!([{ "type": "integer", "minimum": 1, "maximum": 100 }, { "type": "string", "enum": ["auto"] }]),
                "{place} {name}"
            ),
            ParamKind::Border | ParamKind::Crop | ParamKind::Gravity => {
                assert_eq!(schema["type"], "string", "{place} {name}");
                assert!(schema["pattern"].is_string(), "{place} {name}: a pattern");
            }
        }
    }

    /// The transform-url body and the delivery routes' query parameters are the parameter table: the same
    /// names (plus `preset`), ranges and value sets. A row added to the table, or a field to the body,
    /// without the other fails here.
    #[test]
    fn the_document_states_the_parameter_table() {
        let document: Value = serde_json::from_str(&spec_json()).unwrap();
        let body = document["components"]["schemas"]["TransformRequest"]["properties"].as_object().unwrap();
        let mut names: Vec<&str> = PARAMS.iter().map(|spec| spec.name).chain(["preset"]).collect();
        let mut fields: Vec<&str> = body.keys().map(String::as_str).collect();
        names.sort_unstable();
        fields.sort_unstable();
        assert_eq!(fields, names, "the transform-url body's fields");
        for spec in &PARAMS {
            assert_schema_states(spec, &body[spec.name], "TransformRequest");
        }
        for (route, transforms) in [(&DELIVER_FILE, true), (&DELIVER_RAW, false)] {
            let path = route.document_path().unwrap();
            let parameters = document["paths"][&path]["get"]["parameters"].as_array().unwrap();
            if !transforms {
                assert!(parameters.iter().all(|p| p["in"] == "path"), "{path} takes no transformation");
                continue;
            }
            for spec in &PARAMS {
                let parameter = parameters.iter().find(|p| p["name"] == spec.name && p["in"] == "query");
                let parameter = parameter.unwrap_or_else(|| panic!("{path} does not document {}", spec.name));
                assert_schema_states(spec, &parameter["schema"], &path);
            }
        }
    }
}

/// The body's `border`, `crop` and `gravity` patterns (`ParamKind::pattern`, which clients and schemathesis read) and the
/// parser agree: every value the schema accepts, delivery accepts, and every value delivery accepts without
/// surrounding white space (which the parser trims and the border schema does not allow) matches the
/// schema, but for crops beyond any image (`beyond_any_image`). Over 200,000 seeded random values per
/// parameter from the characters either grammar uses, plus their edges.
#[cfg(test)]
mod pattern_tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use shutterbox_pipeline::Transform;

    use super::*;

    fn pattern(document: &Value, name: &str) -> regex::Regex {
        let text = document["components"]["schemas"]["TransformRequest"]["properties"][name]["pattern"].as_str();
        regex::Regex::new(text.unwrap_or_else(|| panic!("{name} has no pattern"))).unwrap()
    }

    /// A value with a number of ten digits or more: the crop schema stops at nine, the parser at `u32`'s
    /// end, and such a rectangle lies outside every image the service renders (a side of a billion pixels
    /// is 20 times the default pixel limit), so delivery answers it 400 too, at the render.
    fn beyond_any_image(value: &str) -> bool {
        value.split(|c: char| !c.is_ascii_digit()).any(|digits| digits.len() >= 10)
    }

    /// Random values are `prefix` and up to 15 characters of `alphabet`.
    fn check(name: &str, prefix: &str, alphabet: &[u8], edges: &[&str]) {
        let document: Value = serde_json::from_str(&spec_json()).unwrap();
        let schema = pattern(&document, name);
        let mut rng = StdRng::seed_from_u64(38);
        let random = (0..200_000).map(|_| {
            let len = rng.random_range(0..16);
            let tail: String = (0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())] as char).collect();
            format!("{prefix}{tail}")
        });
        let (mut accepted, mut refused) = (0, 0);
        for value in edges.iter().map(|e| (*e).to_owned()).chain(random) {
            let parsed = Transform::from_pairs([(name.to_owned(), value.clone())]).is_ok();
            let matched = schema.is_match(&value);
            if matched {
                assert!(parsed, "{name}={value:?} matches the schema but delivery refuses it");
            } else if parsed && value.trim() == value && !beyond_any_image(&value) {
                panic!("{name}={value:?} is accepted by delivery but not by the schema");
            }
            if parsed { accepted += 1 } else { refused += 1 }
        }
        assert!(accepted > 100 && refused > 100, "{name}: {accepted} accepted, {refused} refused");
    }

    #[test]
    fn the_border_pattern_is_the_parsers_grammar() {
        check(
            "border",
            "",
            b"0011119_#aAfFgG+- ",
            &["1_fff", "1000_00000000", "0001000_#ABCDEF", "+5_fff", "0_fff", "1001_fff", "5_ffff", "5_", "_fff"],
        );
    }

    #[test]
    fn the_gravity_pattern_is_the_parsers_grammar() {
        check(
            "gravity",
            "fp:",
            b"0000111.., 95e+",
            &[
                "center",
                "centre",
                "northwest",
                "entropy",
                "fp:0,0",
                "fp:1,1",
                "fp: .5 , 1.000 ",
                "fp:1.01,0",
                "fp:.,0",
                "fp:2,0",
                "fp:0,01",
            ],
        );
    }

    #[test]
    fn the_crop_pattern_is_the_parsers_grammar() {
        check(
            "crop",
            "",
            b"0011923,,,, +-a",
            &["0,0,1,1", " 1 , 2 , 3 , 4 ", "+0,+0,+1,+1", "0,0,0,1", "1,2,3", "4294967295,0,1,1", "0,0,1,1,1"],
        );
    }
}
