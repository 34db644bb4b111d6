//! Accounts and their keys.

use shutterbox_metadata::{AccountStore, MetadataStore, NewKey, SqlMetadata};
use shutterbox_model::{AccountId, AccountName, KeyHash, KeyId, Scope};

use crate::backend::{T0, account};

pub async fn accounts_are_made_once_per_name(store: &SqlMetadata) {
    store.ping().await.unwrap();
    assert_eq!(store.account_count().await.unwrap(), 0);
    let alpha = account(store, "alpha").await;
    assert_eq!(alpha.name, "alpha");
    let again = store.ensure_account(&AccountName::parse("alpha").unwrap(), T0 + 5).await.unwrap();
    assert_eq!(again, alpha, "the same name is the same account");
    let beta = account(store, "beta").await;
    assert_ne!(beta.id, alpha.id);
    assert_eq!(store.account_count().await.unwrap(), 2);
    assert_eq!(store.account(&alpha.id).await.unwrap(), Some(alpha));
    assert_eq!(store.account(&AccountId::new("no-such-account")).await.unwrap(), None);
    // Text PostgreSQL cannot even take as a parameter finds nothing, as on SQLite.
    assert_eq!(store.account(&AccountId::new("a\0b")).await.unwrap(), None);
}

pub async fn keys_are_found_by_hash_until_revoked_or_expired(store: &SqlMetadata) {
    let alpha = account(store, "alpha").await;
    let hash = KeyHash::of("sbx_secret_one");
    let id = store
        .create_key(&alpha, &NewKey { hash: &hash, prefix: "sbx_sec", scope: Scope::Upload, expires_at_ms: None }, T0)
        .await
        .unwrap();
    let found = store.find_key(&hash, T0 + 1).await.unwrap().unwrap();
    assert_eq!(found.key_id, id);
    assert_eq!(found.account_id, alpha.id);
    assert_eq!(found.account_name, "alpha");
    assert_eq!(found.scope, Scope::Upload);
    assert_eq!(store.find_key(&KeyHash::of("another secret"), T0).await.unwrap(), None);

    // A key that expires is found before its time and not from it on.
    let expiring = KeyHash::of("sbx_secret_two");
    let key = NewKey { hash: &expiring, prefix: "sbx_sec", scope: Scope::Read, expires_at_ms: Some(T0 + 100) };
    store.create_key(&alpha, &key, T0).await.unwrap();
    assert!(store.find_key(&expiring, T0 + 99).await.unwrap().is_some());
    assert_eq!(store.find_key(&expiring, T0 + 100).await.unwrap(), None);

    assert!(store.revoke_key(None, &id, T0 + 2).await.unwrap());
    assert_eq!(store.find_key(&hash, T0 + 3).await.unwrap(), None, "a revoked key is not found");
}

pub async fn keys_are_listed_newest_first_and_revoked_within_their_account(store: &SqlMetadata) {
    let (alpha, beta) = (account(store, "alpha").await, account(store, "beta").await);
    let mut made = Vec::new();
    // Two keys in the same millisecond: the later one (its id is minted later) still lists first.
    for (i, (owner, at)) in
        [(&alpha, T0), (&beta, T0 + 10), (&alpha, T0 + 20), (&alpha, T0 + 20)].into_iter().enumerate()
    {
        let hash = KeyHash::of(&format!("secret {i}"));
        let key = NewKey { hash: &hash, prefix: "sbx_", scope: Scope::Secret, expires_at_ms: Some(T0 + 1_000) };
        made.push(store.create_key(owner, &key, at).await.unwrap());
    }
    let all: Vec<KeyId> = store.list_keys(None).await.unwrap().into_iter().map(|k| k.id).collect();
    assert_eq!(all, vec![made[3].clone(), made[2].clone(), made[1].clone(), made[0].clone()]);
    let of_alpha = store.list_keys(Some(&alpha.id)).await.unwrap();
    assert_eq!(of_alpha.iter().map(|k| &k.id).collect::<Vec<_>>(), vec![&made[3], &made[2], &made[0]]);
    let listed = &of_alpha[2];
    assert_eq!((listed.account_name.as_str(), listed.prefix.as_str(), listed.scope), ("alpha", "sbx_", Scope::Secret));
    assert_eq!((listed.created_at_ms, listed.expires_at_ms, listed.revoked_at_ms), (T0, Some(T0 + 1_000), None));

    // Another account's key is not revoked through this account; an unknown key is not revoked at all.
    assert!(!store.revoke_key(Some(&alpha.id), &made[1], T0 + 30).await.unwrap());
    assert!(!store.revoke_key(Some(&alpha.id), &KeyId::new("no-such-key"), T0 + 30).await.unwrap());
    assert!(store.revoke_key(Some(&alpha.id), &made[0], T0 + 30).await.unwrap());
    assert!(!store.revoke_key(Some(&alpha.id), &made[0], T0 + 40).await.unwrap(), "revoked already");
    let revoked = store.list_keys(Some(&alpha.id)).await.unwrap().into_iter().find(|k| k.id == made[0]).unwrap();
    assert_eq!(revoked.revoked_at_ms, Some(T0 + 30), "listed still, with when it was revoked");
    let of_beta = store.list_keys(Some(&beta.id)).await.unwrap();
    assert_eq!(of_beta.len(), 1);
    assert_eq!(of_beta[0].revoked_at_ms, None);
}
