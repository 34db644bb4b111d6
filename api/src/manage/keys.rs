//! `GET|POST /v1/keys` and `DELETE /v1/keys/{keyId}`: a secret key lists its account's keys (never their
//! secrets), creates keys (with an expiry, if asked) and revokes them. A revoked or expired key is refused
//! from its next request on every node (each request looks its key up). The CLI's `shutterbox keys` does
//! the same for the operator, across accounts.

use std::sync::Arc;

use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use serde::Deserialize;
use shutterbox_model::{AccountName, KeyId, Operation, Scope, clock::now_ms, display::iso_millis};

use crate::{
    auth::Caller,
    error::ApiError,
    http::{body::JsonBody, route::ApiTags},
    keys,
    state::AppState,
};

/// A key of the account, as listed: never its secret.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct ApiKeyInfo {
    pub id: String,
    /// The key's first characters, to tell it apart.
    pub prefix: String,
    /// `secret`, `upload` or `read`.
    pub scope: String,
    pub created_at: String,
    /// When it stops working; null: until revoked.
    #[oai(nullable)]
    pub expires_at: Option<String>,
    /// When it was revoked; null while it is not.
    #[oai(nullable)]
    pub revoked_at: Option<String>,
    /// `active`, `expired` or `revoked`.
    pub state: String,
}

/// The account's keys, newest first.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct ApiKeyList {
    pub keys: Vec<ApiKeyInfo>,
}

/// A key to create.
#[derive(Debug, Object, Deserialize)]
#[oai(example, rename_all = "camelCase")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateKeyRequest {
    /// `secret`, `upload` or `read`.
    pub scope: String,
    /// Days it is valid for, 1 to 36500; omitted or null: until revoked.
    #[oai(nullable, validator(minimum(value = "1"), maximum(value = "36500")))]
    pub expires_in_days: Option<u64>,
}

/// A key just created, its secret shown this once.
#[derive(Debug, Object)]
#[oai(example, rename_all = "camelCase")]
pub struct CreatedKey {
    /// The key itself: send it as `Authorization: ApiKey <key>`. Only its hash is kept.
    pub key: String,
    #[oai(flatten)]
    pub info: ApiKeyInfo,
}

#[derive(ApiResponse)]
pub enum KeyCreated {
    /// The key, shown once.
    #[oai(status = 201)]
    Created(Json<CreatedKey>),
}

#[derive(ApiResponse)]
pub enum KeyRevoked {
    /// Revoked: refused from its next request.
    #[oai(status = 204)]
    Revoked,
}

fn info(key: &shutterbox_metadata::KeyInfo, now: i64) -> ApiKeyInfo {
    ApiKeyInfo {
        id: key.id.to_string(),
        prefix: key.prefix.clone(),
        scope: key.scope.as_str().to_owned(),
        created_at: iso_millis(key.created_at_ms),
        expires_at: key.expires_at_ms.map(iso_millis),
        revoked_at: key.revoked_at_ms.map(iso_millis),
        state: keys::state(key, now).to_owned(),
    }
}

pub struct KeysApi;

#[OpenApi(tag = "ApiTags::Files")]
impl KeysApi {
    /// List the account's keys
    ///
    /// Every key of the calling key's account, newest first, revoked and expired ones too; never a secret.
    /// Needs a secret key.
    #[oai(path = "/keys", method = "get", operation_id = "listKeys")]
    async fn list(&self, caller: Caller, state: Data<&Arc<AppState>>) -> Result<Json<ApiKeyList>, ApiError> {
        caller.require(Operation::ManageKeys)?;
        let now = now_ms();
        let list = state.metadata.list_keys(Some(&caller.account_id)).await?;
        Ok(Json(ApiKeyList { keys: list.iter().map(|key| info(key, now)).collect() }))
    }

    /// Create a key
    ///
    /// A new key of the account, of any scope, valid until revoked or for `expiresInDays` days. Its secret is
    /// in this answer only. Needs a secret key.
    #[oai(path = "/keys", method = "post", operation_id = "createKey")]
    async fn create(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        body: JsonBody<CreateKeyRequest>,
    ) -> Result<KeyCreated, ApiError> {
        caller.require(Operation::ManageKeys)?;
        let request = body.read().await?;
        let scope: Scope = request
            .scope
            .parse()
            .map_err(|e: shutterbox_model::scope::UnknownScope| ApiError::bad_request(e.to_string()))?;
        if request.expires_in_days.is_some_and(|days| days == 0 || days > keys::MAX_EXPIRY_DAYS) {
            return Err(ApiError::bad_request(format!("expiresInDays must be from 1 to {}", keys::MAX_EXPIRY_DAYS)));
        }
        let account = AccountName::parse(&caller.account_name).map_err(ApiError::internal)?;
        let minted = keys::mint(state.metadata.as_ref(), &account, scope, request.expires_in_days).await?;
        let now = now_ms();
        let listed = shutterbox_metadata::KeyInfo {
            id: minted.id.clone(),
            account_name: caller.account_name.clone(),
            prefix: minted.secret.prefix().to_owned(),
            scope,
            created_at_ms: now,
            expires_at_ms: minted.expires_at_ms,
            revoked_at_ms: None,
        };
        Ok(KeyCreated::Created(Json(CreatedKey { key: minted.secret.expose().to_owned(), info: info(&listed, now) })))
    }

    /// Revoke a key
    ///
    /// The key stops working from its next request, on every node. Another account's key, or one revoked
    /// already, is a 404. Needs a secret key (which may revoke itself).
    #[oai(path = "/keys/:keyId", method = "delete", operation_id = "revokeKey")]
    async fn revoke(
        &self,
        caller: Caller,
        state: Data<&Arc<AppState>>,
        /// The key's id, as listed.
        #[oai(name = "keyId")]
        key_id: Path<String>,
    ) -> Result<KeyRevoked, ApiError> {
        caller.require(Operation::ManageKeys)?;
        if keys::revoke(state.metadata.as_ref(), Some(&caller.account_id), &KeyId::new(key_id.0)).await? {
            Ok(KeyRevoked::Revoked)
        } else {
            Err(ApiError::not_found("no key with this id to revoke in this account"))
        }
    }
}
