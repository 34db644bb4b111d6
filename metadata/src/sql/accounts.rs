//! Accounts and their API keys.

use std::str::FromStr;

use shutterbox_model::{AccountId, AccountName, KeyHash, Scope};
use uuid::Uuid;

use super::{SqlMetadata, count, text};
use crate::{Account, KeyRecord, MetadataError, Result};
pub(super) async fn account_count(db: &SqlMetadata) -> Result<u64> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM accounts").fetch_one(&db.pool).await?;
    count(&row, "n")
}

pub(super) async fn ensure_account(db: &SqlMetadata, name: &AccountName, now_ms: i64) -> Result<Account> {
    sqlx::query("INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
        .bind(Uuid::now_v7().to_string())
        .bind(name.as_str())
        .bind(now_ms)
        .execute(&db.pool)
        .await?;
    let row =
        sqlx::query("SELECT id, name FROM accounts WHERE name = $1").bind(name.as_str()).fetch_one(&db.pool).await?;
    Ok(Account { id: AccountId::new(text(&row, "id")?), name: text(&row, "name")? })
}

pub(super) async fn account(db: &SqlMetadata, id: &str) -> Result<Option<Account>> {
    let row = sqlx::query("SELECT id, name FROM accounts WHERE id = $1").bind(id).fetch_optional(&db.pool).await?;
    row.map(|row| Ok(Account { id: AccountId::new(text(&row, "id")?), name: text(&row, "name")? })).transpose()
}

pub(super) async fn create_key(
    db: &SqlMetadata,
    account: &Account,
    hash: &KeyHash,
    prefix: &str,
    scope: Scope,
    now_ms: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO api_keys (id, account_id, key_hash, prefix, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(Uuid::now_v7().to_string())
    .bind(account.id.as_str())
    .bind(&hash.0)
    .bind(prefix)
    .bind(scope.as_str())
    .bind(now_ms)
    .execute(&db.pool)
    .await?;
    Ok(())
}

pub(super) async fn find_key(db: &SqlMetadata, hash: &KeyHash) -> Result<Option<KeyRecord>> {
    let row = sqlx::query(
        "SELECT k.id, k.account_id, k.scope, a.name FROM api_keys k JOIN accounts a ON a.id = k.account_id \
         WHERE k.key_hash = $1",
    )
    .bind(&hash.0)
    .fetch_optional(&db.pool)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let scope = text(&row, "scope")?;
    Ok(Some(KeyRecord {
        key_id: text(&row, "id")?,
        account_id: AccountId::new(text(&row, "account_id")?),
        account_name: text(&row, "name")?,
        scope: Scope::from_str(&scope).map_err(|e| MetadataError::Corrupt(e.to_string()))?,
    }))
}
