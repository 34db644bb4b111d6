//! The OpenAPI document, generated from the route definitions. Its server is the relative `/v1`, so the
//! checked-in `openapi/openapi.json` does not depend on where the service runs.

use poem_openapi::OpenApiService;

use crate::routes::{files::FilesApi, transform::TransformApi, upload::UploadApi, warm::WarmApi};

pub type Apis = (UploadApi, FilesApi, TransformApi, WarmApi);

pub fn service() -> OpenApiService<Apis, ()> {
    OpenApiService::new((UploadApi, FilesApi, TransformApi, WarmApi), "Shutterbox", env!("CARGO_PKG_VERSION"))
        .description(
            "File storage and image delivery. Management endpoints take an API key as \
             `Authorization: ApiKey <key>` (or an `ApiKey: <key>` header); public delivery needs none.",
        )
        .server("/v1")
}

/// The document as pretty JSON, exactly as checked in at `openapi/openapi.json`.
pub fn spec_json() -> String {
    service().spec()
}
