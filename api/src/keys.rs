//! Minting API keys for an account (used by `shutterbox keys create` and the first-start bootstrap).

use shutterbox_metadata::{MetadataError, MetadataStore};
use shutterbox_model::{AccountName, ApiKeySecret, Scope};

use shutterbox_model::clock::now_ms;

/// A key just created: shown once, then only its hash remains.
pub struct MintedKey {
    pub account: AccountName,
    pub scope: Scope,
    pub secret: ApiKeySecret,
}

/// Creates a key for the account (creating the account if needed).
pub async fn mint(
    metadata: &dyn MetadataStore,
    account: &AccountName,
    scope: Scope,
) -> Result<MintedKey, MetadataError> {
    let now = now_ms();
    let record = metadata.ensure_account(account, now).await?;
    let secret = ApiKeySecret::generate();
    metadata.create_key(&record, &secret.hash(), secret.prefix(), scope, now).await?;
    Ok(MintedKey { account: account.clone(), scope, secret })
}
