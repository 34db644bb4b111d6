//! Keys' lifecycle (docs/api.md, "Key lifecycle"): listed, created with an expiry, revoked, over the API and
//! with `shutterbox keys`; a revoked or expired key is refused from its next request on every node; the
//! first start's key is written where only the operator reads it.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_metadata::NewKey;
use shutterbox_model::{AccountName, ApiKeySecret, Scope, clock::now_ms};

use crate::helpers::{TestApp, assert_error, shutterbox};

async fn keys_of(app: &TestApp, key: &str) -> Vec<Value> {
    let response = app.authed(Method::GET, "/keys", key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["keys"].as_array().unwrap().clone()
}

/// Every node refuses `key` (distributed: the proxy alternates them, so four requests reach both twice).
async fn refused_everywhere(app: &TestApp, key: &str) {
    for _ in 0..4 {
        assert_error(app.authed(Method::GET, "/files", key).send().await.unwrap(), StatusCode::UNAUTHORIZED).await;
    }
}

#[tokio::test]
async fn a_secret_key_lists_creates_and_revokes_its_accounts_keys() {
    let app = TestApp::spawn().await;
    let listed = keys_of(&app, &app.key).await;
    assert_eq!(listed.len(), 1, "the bootstrap key: {listed:?}");
    assert_eq!((listed[0]["scope"].as_str(), listed[0]["state"].as_str()), (Some("secret"), Some("active")));
    assert!(listed[0]["expiresAt"].is_null());
    assert!(!listed.iter().any(|k| k.to_string().contains(&app.key)), "a listing never holds a secret");

    let created = app
        .authed(Method::POST, "/keys", &app.key)
        .json(&json!({"scope": "upload", "expiresInDays": 30}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    let (new_key, id) = (created["key"].as_str().unwrap().to_owned(), created["id"].as_str().unwrap().to_owned());
    assert!(new_key.starts_with(created["prefix"].as_str().unwrap()));
    assert_eq!(created["state"], "active");
    assert!(created["expiresAt"].as_str().is_some_and(|at| at.ends_with('Z')), "{created}");
    assert_eq!(app.authed(Method::GET, "/files", &new_key).send().await.unwrap().status(), StatusCode::OK);
    // An upload key may not manage keys.
    assert_error(app.authed(Method::GET, "/keys", &new_key).send().await.unwrap(), StatusCode::FORBIDDEN).await;
    for bad in
        [json!({"scope": "root"}), json!({"scope": "read", "expiresInDays": 0}), json!({"scope": "read", "x": 1})]
    {
        let response = app.authed(Method::POST, "/keys", &app.key).json(&bad).send().await.unwrap();
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }

    // Revoked: refused from the next request, on every node; listed as revoked; a second revoke is a 404.
    let response = app.authed(Method::DELETE, &format!("/keys/{id}"), &app.key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    refused_everywhere(&app, &new_key).await;
    let listed = keys_of(&app, &app.key).await;
    let revoked = listed.iter().find(|k| k["id"] == id.as_str()).unwrap();
    assert_eq!(revoked["state"], "revoked");
    assert!(revoked["revokedAt"].is_string());
    let again = app.authed(Method::DELETE, &format!("/keys/{id}"), &app.key).send().await.unwrap();
    assert_error(again, StatusCode::NOT_FOUND).await;

    // Another account's key is not this account's to see or revoke.
    let other = app.key_for("other", Scope::Secret).await;
    let theirs = keys_of(&app, &other).await;
    assert_eq!(theirs.len(), 1);
    let their_id = theirs[0]["id"].as_str().unwrap();
    let response = app.authed(Method::DELETE, &format!("/keys/{their_id}"), &app.key).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    assert_eq!(app.authed(Method::GET, "/files", &other).send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn an_expired_key_is_refused() {
    let app = TestApp::spawn().await;
    let metadata = shutterbox::open_metadata(&app.config.backend).await.unwrap();
    let account = metadata.ensure_account(&AccountName::parse("default").unwrap(), now_ms()).await.unwrap();
    let secret = ApiKeySecret::generate();
    let hash = secret.hash();
    let expired =
        NewKey { hash: &hash, prefix: secret.prefix(), scope: Scope::Secret, expires_at_ms: Some(now_ms() - 1) };
    metadata.create_key(&account, &expired, now_ms() - 10).await.unwrap();
    refused_everywhere(&app, secret.expose()).await;
    let listed = keys_of(&app, &app.key).await;
    assert!(listed.iter().any(|k| k["state"] == "expired"), "{listed:?}");
}

#[tokio::test]
async fn the_cli_lists_creates_and_revokes_keys() {
    let app = TestApp::spawn().await;
    let env = app.command_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (ok, out, err) =
        shutterbox(&["keys", "create", "--account", "cli", "--scope", "read", "--expires-in-days", "7"], &env).await;
    assert!(ok, "{err}");
    let key = out.lines().last().unwrap().to_owned();
    assert!(key.starts_with("sbx_") && out.contains("valid until 20"), "{out}");
    assert_eq!(app.authed(Method::GET, "/files", &key).send().await.unwrap().status(), StatusCode::OK);

    let (ok, listing, err) = shutterbox(&["keys", "list", "--account", "cli"], &env).await;
    assert!(ok, "{err}");
    let line = listing.lines().find(|l| l.contains(" cli ")).unwrap_or_else(|| panic!("{listing}"));
    assert!(line.contains("read") && line.ends_with("active") && !listing.contains(&key), "{listing}");
    let id = line.split_whitespace().next().unwrap();

    let (ok, _, err) = shutterbox(&["keys", "revoke", id], &env).await;
    assert!(ok, "{err}");
    refused_everywhere(&app, &key).await;
    let (ok, _, err) = shutterbox(&["keys", "revoke", id], &env).await;
    assert!(!ok && err.contains("no key"), "{err}");
}

#[tokio::test]
async fn the_first_key_is_written_for_the_operator_alone() {
    use std::os::unix::fs::PermissionsExt;
    let app = TestApp::spawn_processes(|_| {}).await;
    if !app.is_embedded() {
        return;
    }
    let path = app.data_dir.join("bootstrap-key");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", path.display());
    let stdout = std::fs::read_to_string(app.data_dir.parent().unwrap().join("logs/node.stdout")).unwrap();
    assert!(stdout.contains("bootstrap-key") && !stdout.contains(&app.key), "{stdout}");
}
