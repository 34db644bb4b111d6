//! Accounts and their API keys: what the authenticator reads on every request and `shutterbox keys` manages.

use async_trait::async_trait;
use shutterbox_model::{AccountId, AccountName, KeyHash, KeyId, Scope};

use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
}

/// An API key as the authenticator sees it: which account it acts for and with what scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub key_id: KeyId,
    pub account_id: AccountId,
    pub account_name: String,
    pub scope: Scope,
}

/// A key to record: its hash (never the secret), its shown prefix, scope and expiry.
#[derive(Debug, Clone, Copy)]
pub struct NewKey<'a> {
    pub hash: &'a KeyHash,
    pub prefix: &'a str,
    pub scope: Scope,
    pub expires_at_ms: Option<i64>,
}

/// What is known of a key, for listing it: never its secret or its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    pub id: KeyId,
    pub account_name: String,
    pub prefix: String,
    pub scope: Scope,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
}

#[async_trait]
pub trait AccountStore: Send + Sync {
    async fn account_count(&self) -> Result<u64>;

    /// The account with this name, created if it does not exist.
    async fn ensure_account(&self, name: &AccountName, now_ms: i64) -> Result<Account>;

    /// The account with this id.
    async fn account(&self, id: &AccountId) -> Result<Option<Account>>;

    /// Records a new key of `account`; returns its id.
    async fn create_key(&self, account: &Account, key: &NewKey<'_>, now_ms: i64) -> Result<KeyId>;

    /// The key with this hash, with its account, unless it is revoked or expired as of `now_ms`.
    async fn find_key(&self, hash: &KeyHash, now_ms: i64) -> Result<Option<KeyRecord>>;

    /// The keys of an account (of every account with `None`), newest first, revoked and expired ones too.
    async fn list_keys(&self, account_id: Option<&AccountId>) -> Result<Vec<KeyInfo>>;

    /// Revokes key `key_id` (of `account_id` only, when given); `false` when there is no such key or it was
    /// revoked already.
    async fn revoke_key(&self, account_id: Option<&AccountId>, key_id: &KeyId, now_ms: i64) -> Result<bool>;
}
