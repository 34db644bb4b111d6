//! Accounts and their API keys.

use std::str::FromStr;

use shutterbox_model::{AccountId, AccountName, KeyHash, KeyId, Scope};

use super::{SqlMetadata, count, findable, text};
use async_trait::async_trait;
use sqlx::Row;

use crate::{Account, AccountStore, KeyInfo, KeyRecord, MetadataError, NewKey, Result};
#[async_trait]
impl AccountStore for SqlMetadata {
    async fn account_count(&self) -> Result<u64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM accounts").fetch_one(&self.pool).await?;
        count(&row, "n")
    }

    async fn ensure_account(&self, name: &AccountName, now_ms: i64) -> Result<Account> {
        sqlx::query("INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
            .bind(AccountId::mint().as_str())
            .bind(name.as_str())
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        let row = sqlx::query("SELECT id, name FROM accounts WHERE name = $1")
            .bind(name.as_str())
            .fetch_one(&self.pool)
            .await?;
        Ok(Account { id: AccountId::new(text(&row, "id")?), name: text(&row, "name")? })
    }

    async fn account(&self, id: &AccountId) -> Result<Option<Account>> {
        if !findable(id.as_str()) {
            return Ok(None);
        }
        let row = sqlx::query("SELECT id, name FROM accounts WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| Ok(Account { id: AccountId::new(text(&row, "id")?), name: text(&row, "name")? })).transpose()
    }

    async fn create_key(&self, account: &Account, key: &NewKey<'_>, now_ms: i64) -> Result<KeyId> {
        let id = KeyId::mint();
        sqlx::query(
            "INSERT INTO api_keys (id, account_id, key_hash, prefix, scope, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id.as_str())
        .bind(account.id.as_str())
        .bind(&key.hash.0)
        .bind(key.prefix)
        .bind(key.scope.as_str())
        .bind(now_ms)
        .bind(key.expires_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    async fn find_key(&self, hash: &KeyHash, now_ms: i64) -> Result<Option<KeyRecord>> {
        let row = sqlx::query(
            "SELECT k.id, k.account_id, k.scope, a.name FROM api_keys k JOIN accounts a ON a.id = k.account_id \
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)",
        )
        .bind(&hash.0)
        .bind(now_ms)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(KeyRecord {
            key_id: KeyId::new(text(&row, "id")?),
            account_id: AccountId::new(text(&row, "account_id")?),
            account_name: text(&row, "name")?,
            scope: scope(&row)?,
        }))
    }

    async fn list_keys(&self, account_id: Option<&AccountId>) -> Result<Vec<KeyInfo>> {
        let rows = sqlx::query(
            "SELECT k.id, a.name, k.prefix, k.scope, k.created_at, k.expires_at, k.revoked_at \
         FROM api_keys k JOIN accounts a ON a.id = k.account_id \
         WHERE ($1 IS NULL OR k.account_id = $1) ORDER BY k.created_at DESC, k.id DESC",
        )
        .bind(account_id.map(AccountId::as_str))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(KeyInfo {
                    id: KeyId::new(text(row, "id")?),
                    account_name: text(row, "name")?,
                    prefix: text(row, "prefix")?,
                    scope: scope(row)?,
                    created_at_ms: row.try_get("created_at")?,
                    expires_at_ms: row.try_get("expires_at")?,
                    revoked_at_ms: row.try_get("revoked_at")?,
                })
            })
            .collect()
    }

    async fn revoke_key(&self, account_id: Option<&AccountId>, key_id: &KeyId, now_ms: i64) -> Result<bool> {
        let changed = sqlx::query(
        "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL AND ($3 IS NULL OR account_id = $3)",
    )
    .bind(now_ms)
    .bind(key_id.as_str())
    .bind(account_id.map(AccountId::as_str))
    .execute(&self.pool)
    .await?
    .rows_affected();
        Ok(changed == 1)
    }
}

fn scope(row: &sqlx::any::AnyRow) -> Result<Scope> {
    Scope::from_str(&text(row, "scope")?).map_err(|e| MetadataError::Corrupt(e.to_string()))
}
