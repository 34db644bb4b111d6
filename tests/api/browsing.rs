//! Browsing, as the console does it: `GET /v1/files` with its filters and orders (checked against the
//! whole listing sorted and filtered here), `GET /v1/folders`, `GET /v1/key`, and the console's own files
//! at `/console/` with their Content-Security-Policy.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use shutterbox_model::Scope;

use crate::helpers::{PNG, TestApp, assert_error};

async fn get(app: &TestApp, path: &str, key: &str) -> Value {
    let response = app.authed(Method::GET, path, key).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    response.json().await.unwrap()
}

async fn upload_into(app: &TestApp, name: &str, mimetype: &str, bytes: &[u8], folder: Option<&str>) -> Value {
    let mut body = json!({"filename": name, "mimetype": mimetype, "size": bytes.len()});
    if let Some(folder) = folder {
        body["folderName"] = json!(folder);
    }
    app.upload_as(&app.key, body, bytes).await
}

fn ids(page: &Value) -> Vec<String> {
    page["files"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap().to_owned()).collect()
}

/// Every page of `query`, at `page_size`, concatenated.
async fn every_page(app: &TestApp, query: &str, page_size: u64) -> (Vec<Value>, u64) {
    let mut files = Vec::new();
    let mut page = 1;
    loop {
        let listing = get(app, &format!("/files?{query}&page={page}&pageSize={page_size}"), &app.key).await;
        let total = listing["pagination"]["totalCount"].as_u64().unwrap();
        assert_eq!(listing["pagination"]["totalPages"].as_u64().unwrap(), total.div_ceil(page_size), "{query}");
        let got = listing["files"].as_array().unwrap().clone();
        if got.is_empty() {
            return (files, total);
        }
        files.extend(got);
        page += 1;
    }
}

/// The account: files of every type, names differing in case and holding `%` and `_`, equal sizes and
/// names (ties go by id), in the top level and in nested folders.
async fn account(app: &TestApp) -> Vec<Value> {
    let spec: &[(&str, &str, &[u8], Option<&str>)] = &[
        ("Cat.png", "image/png", PNG, None),
        ("cat_2.png", "image/png", PNG, Some("pets")),
        ("dog.png", "image/png", PNG, Some("pets/dogs")),
        ("100%.txt", "text/plain", b"one hundred", None),
        ("notes.txt", "text/plain", b"eleven char", Some("pets")),
        ("data.json", "application/json", b"{\"a\": 1}", None),
        ("Zebra.json", "application/json", b"[1, 2, 3, 4]", Some("pets/dogs")),
        ("archive.bin", "application/octet-stream", &[0, 1, 2, 3, 4, 5, 6, 7], None),
        ("clip.mp4", "video/mp4", b"\0\0\0\x18ftypmp42\0\0\0\0mp42isom", None),
        ("cat.txt", "text/plain", b"a cat", None),
    ];
    let mut files = Vec::new();
    for (name, mimetype, bytes, folder) in spec {
        files.push(upload_into(app, name, mimetype, bytes, *folder).await);
        // Distinct update times, so that the default order is observable.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    files
}

#[tokio::test]
async fn every_order_and_filter_lists_what_the_whole_listing_says() {
    let app = TestApp::spawn().await;
    let all = account(&app).await;
    let folders = get(&app, "/folders", &app.key).await;
    let pets = folders["folders"][0]["id"].as_str().unwrap().to_owned();

    let text = |f: &Value, field: &str| f[field].as_str().unwrap().to_owned();
    type Key = Box<dyn Fn(&Value) -> (String, u64, String)>;
    let orders: Vec<(&str, Key)> = vec![
        ("updated", Box::new(move |f| (text(f, "rawUpdated"), 0, text(f, "id")))),
        ("name", Box::new(move |f| (text(f, "name").to_lowercase(), 0, text(f, "name") + &text(f, "id")))),
        ("size", Box::new(move |f| (String::new(), f["rawSize"].as_u64().unwrap(), text(f, "id")))),
        ("type", Box::new(move |f| (text(f, "rawType"), 0, text(f, "name").to_lowercase() + &text(f, "id")))),
    ];
    type Keep = Box<dyn Fn(&Value) -> bool>;
    let filters: Vec<(String, Keep)> = vec![
        (String::new(), Box::new(|_| true)),
        ("name=CAT".into(), Box::new(|f| f["name"].as_str().unwrap().to_lowercase().contains("cat"))),
        ("name=%25".into(), Box::new(|f| f["name"].as_str().unwrap().contains('%'))),
        ("name=t_".into(), Box::new(|f| f["name"].as_str().unwrap().contains("t_"))),
        ("name=nothing-like-it".into(), Box::new(|_| false)),
        ("type=image".into(), Box::new(|f| f["type"] == "image")),
        ("type=json".into(), Box::new(|f| f["type"] == "json")),
        ("type=video".into(), Box::new(|f| f["type"] == "video")),
        ("type=file".into(), Box::new(|f| f["type"] == "file")),
        ("folderId=root".into(), Box::new(|f| f["folderId"].is_null())),
        (
            format!("folderId={pets}"),
            Box::new({
                let pets = pets.clone();
                move |f| f["folderId"] == pets.as_str()
            }),
        ),
        (
            format!("folderId={pets}&type=image&name=CAT"),
            Box::new({
                let pets = pets.clone();
                move |f| f["folderId"] == pets.as_str() && f["type"] == "image"
            }),
        ),
        ("folderId=0193b8a2-0000-7000-8000-000000000000".into(), Box::new(|_| false)),
        // A NUL is in no name and no id (and PostgreSQL refuses it as a parameter).
        ("name=a%00b".into(), Box::new(|_| false)),
        ("folderId=%00".into(), Box::new(|_| false)),
    ];
    for (filter, keep) in &filters {
        for (order, key) in &orders {
            for descending in [false, true] {
                let sort = if descending { format!("-{order}") } else { (*order).to_owned() };
                let mut expected: Vec<&Value> = all.iter().filter(|f| keep(f)).collect();
                expected.sort_by_key(|f| key(f));
                if descending {
                    expected.reverse();
                }
                let expected: Vec<String> = expected.iter().map(|f| text(f, "id")).collect();
                for page_size in [1, 3, 100] {
                    let (got, total) = every_page(&app, &format!("{filter}&sort={sort}"), page_size).await;
                    let got: Vec<String> = got.iter().map(|f| text(f, "id")).collect();
                    assert_eq!(got, expected, "?{filter}&sort={sort}&pageSize={page_size}");
                    assert_eq!(total, expected.len() as u64, "?{filter}&sort={sort}");
                }
            }
        }
    }
    // The default is newest first, as before the parameters existed.
    let newest: Vec<String> = all.iter().rev().map(|f| text(f, "id")).collect();
    assert_eq!(ids(&get(&app, "/files?pageSize=100", &app.key).await), newest);
}

#[tokio::test]
async fn bad_filters_are_400s_that_name_the_parameter() {
    let app = TestApp::spawn().await;
    for (query, named) in [
        ("sort=newest", "sort"),
        ("sort=--name", "sort"),
        ("type=images", "type"),
        ("name=", "name"),
        (&format!("name={}", "a".repeat(256)), "name"),
        ("folderId=", "folderId"),
    ] {
        let response = app.authed(Method::GET, &format!("/files?{query}"), &app.key).send().await.unwrap();
        let message = assert_error(response, StatusCode::BAD_REQUEST).await;
        assert!(message.contains(named), "?{query}: {message}");
    }
}

#[tokio::test]
async fn another_accounts_folder_lists_nothing_and_is_not_found() {
    let app = TestApp::spawn().await;
    upload_into(&app, "a.png", "image/png", PNG, Some("mine")).await;
    let folder = get(&app, "/folders", &app.key).await["folders"][0]["id"].as_str().unwrap().to_owned();
    let other = app.key_for("other", Scope::Secret).await;
    let listing = get(&app, &format!("/files?folderId={folder}"), &other).await;
    assert_eq!(listing["pagination"]["totalCount"], 0);
    let response = app.authed(Method::GET, &format!("/folders?parentId={folder}"), &other).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    assert_eq!(get(&app, "/folders", &other).await["folders"], json!([]));
}

#[tokio::test]
async fn folders_list_a_level_with_counts_and_the_trail_above() {
    let app = TestApp::spawn().await;
    account(&app).await;
    upload_into(&app, "b.txt", "text/plain", b"b", Some("Archive")).await;
    let top = get(&app, "/folders", &app.key).await;
    let names: Vec<&str> = top["folders"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Archive", "pets"], "by path, ignoring case");
    assert_eq!(top["parents"], json!([]));
    assert_eq!(top, get(&app, "/folders?parentId=root", &app.key).await);
    let pets = &top["folders"][1];
    assert_eq!(
        (pets["path"].as_str(), pets["fileCount"].as_u64(), pets["folderCount"].as_u64()),
        (Some("pets"), Some(2), Some(1))
    );
    assert!(pets["parentId"].is_null());

    let inside = get(&app, &format!("/folders?parentId={}", pets["id"].as_str().unwrap()), &app.key).await;
    let dogs = &inside["folders"][0];
    assert_eq!(
        dogs,
        &json!({"id": dogs["id"], "name": "dogs", "path": "pets/dogs", "parentId": pets["id"], "fileCount": 2, "folderCount": 0})
    );
    assert_eq!(inside["parents"], json!([pets]));
    let deepest = get(&app, &format!("/folders?parentId={}", dogs["id"].as_str().unwrap()), &app.key).await;
    assert_eq!(deepest["folders"], json!([]));
    assert_eq!(deepest["parents"], json!([pets, dogs]));
    assert_eq!(deepest["pagination"], json!({"page": 1, "pageSize": 100, "totalCount": 0, "totalPages": 0}));

    let paged = get(&app, "/folders?pageSize=1&page=2", &app.key).await;
    assert_eq!(paged["folders"], json!([pets]));
    assert_eq!(paged["pagination"], json!({"page": 2, "pageSize": 1, "totalCount": 2, "totalPages": 2}));
    let response = app.authed(Method::GET, "/folders?parentId=nope", &app.key).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    // A read key browses.
    let read = app.key_for("default", Scope::Read).await;
    assert_eq!(get(&app, "/folders", &read).await, top);
}

#[tokio::test]
async fn a_key_says_what_it_may_do() {
    let app = TestApp::spawn_with(|config| {
        config.presets = "thumb: w=8&h=8&fit=cover; wide: w=12&format=webp".parse().unwrap();
    })
    .await;
    let rules = json!({"signedUrls": false, "presetsOnly": false, "presets": [
        {"name": "thumb", "query": "w=8&h=8"}, {"name": "wide", "query": "format=webp&w=12"}]});
    let everything = ["presign", "confirm", "list", "get", "delete", "update", "transformUrl", "warm", "manageKeys"];
    let cases: [(Scope, &[&str]); 3] = [
        (Scope::Secret, &everything),
        (Scope::Upload, &["presign", "confirm", "list", "get"]),
        (Scope::Read, &["list", "get"]),
    ];
    for (scope, allows) in cases {
        let key = app.key_for("default", scope).await;
        let info = get(&app, "/key", &key).await;
        let max = info["maxUploadBytes"].clone();
        assert!(max.as_u64().unwrap() > 0);
        assert_eq!(
            info,
            json!({"account": "default", "scope": scope.as_str(), "allows": allows, "delivery": rules, "maxUploadBytes": max})
        );
    }
    let response = app.client.get(format!("{}/key", app.base)).send().await.unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED).await;

    let signed = TestApp::spawn_with(|config| {
        config.url_signing_keys = Some("k1:c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA".into());
        config.presets_only = true;
    })
    .await;
    let info = get(&signed, "/key", &signed.key).await;
    assert_eq!(info["delivery"], json!({"signedUrls": true, "presetsOnly": true, "presets": []}));
}

#[tokio::test]
async fn the_console_is_served_with_a_strict_policy() {
    let app = TestApp::spawn().await;
    let root = app.base.strip_suffix("/v1").unwrap();
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let response = client.get(format!("{root}/console")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(response.headers()["location"], "/console/");

    let origin = root.to_owned();
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' {origin} data: blob:; \
         connect-src 'self' {origin}; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    for (path, content_type, contains) in [
        ("/console/", "text/html; charset=utf-8", "<script type=\"module\" src=\"console.js\"></script>"),
        ("/console/console.js", "text/javascript; charset=utf-8", "sessionStorage"),
        ("/console/console.css", "text/css; charset=utf-8", ":root"),
        ("/console/icon.svg", "image/svg+xml", "<svg"),
    ] {
        let response = client.get(format!("{root}{path}")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], content_type, "{path}");
        assert_eq!(headers["content-security-policy"], policy.as_str(), "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["x-frame-options"], "DENY");
        assert_eq!(headers["referrer-policy"], "no-referrer");
        assert_eq!(headers["cache-control"], "no-cache");
        let body = response.text().await.unwrap();
        assert!(body.contains(contains), "{path}");
        // Nothing from another origin: no absolute URL in any asset but the SVG namespace.
        let absolute = body.matches("http://").chain(body.matches("https://")).count();
        let namespaces = body.matches("http://www.w3.org/2000/svg").count();
        assert_eq!(absolute, namespaces, "{path} names another origin");
        let head = client.head(format!("{root}{path}")).send().await.unwrap();
        assert_eq!(head.status(), StatusCode::OK);
        assert_eq!(head.headers()["content-length"], headers["content-length"]);
    }
    let response = client.get(format!("{root}/console/nope.js")).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND).await;
    let response = client.post(format!("{root}/console/")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()["allow"], "GET, HEAD");
}
