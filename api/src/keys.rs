//! API keys' lifecycle: minting (`shutterbox keys create`, `POST /v1/keys`, the first-start bootstrap), and
//! the listing and revoking that `shutterbox keys list|revoke` and `GET|DELETE /v1/keys` share.

use shutterbox_metadata::{KeyInfo, MetadataError, MetadataStore, NewKey};
use shutterbox_model::{AccountId, AccountName, ApiKeySecret, KeyId, Scope, clock::now_ms};

/// A key just created: shown once, then only its hash remains.
pub struct MintedKey {
    pub id: KeyId,
    pub account: AccountName,
    pub scope: Scope,
    pub secret: ApiKeySecret,
    pub expires_at_ms: Option<i64>,
}

/// The longest a key may be made to last, in days (about 100 years): beyond it, say none.
pub const MAX_EXPIRY_DAYS: u64 = 36_500;

/// Creates a key for the account (creating the account if needed), valid for `expires_in_days` days from
/// now when given, else until revoked.
pub async fn mint(
    metadata: &dyn MetadataStore,
    account: &AccountName,
    scope: Scope,
    expires_in_days: Option<u64>,
) -> Result<MintedKey, MetadataError> {
    let now = now_ms();
    let record = metadata.ensure_account(account, now).await?;
    let secret = ApiKeySecret::generate();
    let expires_at_ms = expires_in_days.map(|days| {
        let ms = days.min(MAX_EXPIRY_DAYS).saturating_mul(86_400_000);
        now.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX))
    });
    let hash = secret.hash();
    let key = NewKey { hash: &hash, prefix: secret.prefix(), scope, expires_at_ms };
    let id = metadata.create_key(&record, &key, now).await?;
    Ok(MintedKey { id, account: account.clone(), scope, secret, expires_at_ms })
}

/// Where a key stands at `now_ms`.
pub fn state(key: &KeyInfo, now_ms: i64) -> &'static str {
    match (key.revoked_at_ms, key.expires_at_ms) {
        (Some(_), _) => "revoked",
        (None, Some(at)) if at <= now_ms => "expired",
        _ => "active",
    }
}

/// Revokes key `id` of `account` (any account's with `None`); `false` when there is none to revoke. Every
/// node refuses it from its next request: a request's key is looked up in the database each time.
pub async fn revoke(
    metadata: &dyn MetadataStore,
    account: Option<&AccountId>,
    id: &KeyId,
) -> Result<bool, MetadataError> {
    metadata.revoke_key(account, id, now_ms()).await
}
