//! `GET /v1/key`: the calling key — its account, its scope and the operations that scope allows — and the
//! rules the service applies to what it does (signed delivery, presets, the upload size limit). A client
//! such as the console offers only what the key may do, and builds URLs the way delivery will take them.

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::{Object, OpenApi, payload::Json};
use shutterbox_model::Operation;

use crate::{auth::Caller, error::ApiError, http::route::ApiTags, state::AppState};

/// The calling key and the rules it works under.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct KeyInfo {
    /// The account the key acts for.
    pub account: String,
    /// `secret`, `upload` or `read`.
    pub scope: String,
    /// What the scope allows, of `presign`, `confirm` (uploads), `list`, `get`, `update`, `delete` (files),
    /// `transformUrl`, `warm` and `manageKeys` (the account's keys).
    pub allows: Vec<String>,
    pub delivery: DeliveryRules,
    /// The largest upload the service takes, in bytes.
    pub max_upload_bytes: u64,
}

/// How public delivery treats transformations.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct DeliveryRules {
    /// Transformation URLs need a signature (`sig`), which `POST /file/{id}/transform-url` adds.
    pub signed_urls: bool,
    /// Only presets render (`?preset=<name>`); other transformations are refused.
    pub presets_only: bool,
    /// The operator's named transformations, by name.
    pub presets: Vec<Preset>,
}

/// A named transformation.
#[derive(Debug, Object)]
#[oai(example)]
pub struct Preset {
    pub name: String,
    /// What it does, as a delivery query string.
    pub query: String,
}

pub struct KeyApi;

#[OpenApi(tag = "ApiTags::Files")]
impl KeyApi {
    /// Describe the calling key
    ///
    /// The key's account and scope, the operations it allows, and the service's delivery rules and upload
    /// limit. Any valid key may ask.
    #[oai(path = "/key", method = "get", operation_id = "getKey")]
    async fn get(&self, caller: Caller, state: Data<&Arc<AppState>>) -> Result<Json<KeyInfo>, ApiError> {
        let access = &state.settings.access;
        let presets = access
            .presets
            .names()
            .filter_map(|name| {
                let transform = access.presets.get(name)?;
                Some(Preset { name: name.to_owned(), query: transform.to_query() })
            })
            .collect();
        Ok(Json(KeyInfo {
            account: caller.account_name.clone(),
            scope: caller.scope.as_str().to_owned(),
            allows: Operation::ALL
                .into_iter()
                .filter(|op| caller.scope.allows(*op))
                .map(|op| op.as_str().to_owned())
                .collect(),
            delivery: DeliveryRules {
                signed_urls: access.signing.is_some(),
                presets_only: access.presets_only,
                presets,
            },
            max_upload_bytes: state.settings.max_upload_bytes,
        }))
    }
}
