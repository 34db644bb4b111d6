//! `shutterbox migrate-store`: an embedded deployment of a few hundred files (images and not, in folders, of
//! two accounts, with pinned variants, a focal point, a warming batch, an upload PUT but not confirmed and a
//! resumable upload half-way) is copied into PostgreSQL and S3 by the real binary, killed half-way and run
//! again; then `serve` on the distributed configuration, at the same address, answers everything as the
//! embedded deployment did, with the same keys. Always against the distributed services, like `cluster::`.

use std::{
    collections::BTreeMap,
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

use bytes::Bytes;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use shutterbox::client::{ApiClient, Upload};
use sqlx::{Connection, Executor};

use crate::helpers::{ServeProcess, eventually, free_port, shutterbox, terminate};

const TUS: (&str, &str) = ("Tus-Resumable", "1.0.0");
const IMAGES: usize = 200;
const OTHERS: usize = 100;

fn required(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: migrate_store:: needs PostgreSQL and S3"))
}

/// A small picture of its own for every `i`: a PNG for even `i`, a JPEG for odd.
fn picture(i: usize) -> (String, &'static str, Vec<u8>) {
    let image = image::RgbImage::from_fn(40 + (i % 7) as u32, 30 + (i % 5) as u32, |x, y| {
        image::Rgb([(x * 6) as u8, (y * 8) as u8, (i * 37 % 256) as u8])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    if i.is_multiple_of(2) {
        image.write_to(&mut bytes, image::ImageFormat::Png).unwrap();
        (format!("picture-{i}.png"), "image/png", bytes.into_inner())
    } else {
        image.write_to(&mut bytes, image::ImageFormat::Jpeg).unwrap();
        (format!("picture-{i}.jpg"), "image/jpeg", bytes.into_inner())
    }
}

/// The JSON a request is answered with.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Every file under `dir` and the SHA-256 of its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(name, sha256(&std::fs::read(&path).unwrap()));
            }
        }
    }
    files
}

/// What a client sees of the deployment: every file of an account (listed, fetched one by one, its raw
/// bytes' digest) and answers that must survive the move.
async fn observe(client: &Client, root: &str, keys: &[&str], probes: &[String]) -> Value {
    let mut seen = serde_json::Map::new();
    for key in keys {
        let mut files = Vec::new();
        for page in 1.. {
            let listed: Value =
                json_of(client.get(format!("{root}/v1/files?page={page}&pageSize=100")).header("ApiKey", *key)).await;
            let items = listed["files"].as_array().unwrap_or_else(|| panic!("a listing: {listed}")).clone();
            if items.is_empty() {
                break;
            }
            for mut item in items {
                // Relative ("2 minutes ago"): the only field that moves while the test runs.
                item.as_object_mut().unwrap().remove("updated");
                let mut one: Value = json_of(
                    client.get(format!("{root}/v1/files/{}", item["id"].as_str().unwrap())).header("ApiKey", *key),
                )
                .await;
                let one = one["file"].as_object_mut().map(|file| {
                    file.remove("updated");
                    Value::Object(file.clone())
                });
                assert_eq!(one.as_ref(), Some(&item), "a file fetched alone is as listed");
                let raw = client.get(item["rawUrl"].as_str().unwrap()).send().await.unwrap();
                assert_eq!(raw.status(), StatusCode::OK, "{}", item["rawUrl"]);
                files.push(json!({"file": item, "raw": sha256(&raw.bytes().await.unwrap())}));
            }
        }
        seen.insert(key.to_string(), Value::Array(files));
    }
    for probe in probes {
        let response = client.get(format!("{root}{probe}")).header("ApiKey", keys[0]).send().await.unwrap();
        let status = response.status().as_u16();
        let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned());
        let body = response.bytes().await.unwrap();
        let body = match serde_json::from_slice::<Value>(&body) {
            Ok(json) => json,
            Err(_) => json!(sha256(&body)),
        };
        seen.insert(probe.clone(), json!({"status": status, "type": content_type, "body": body}));
    }
    Value::Object(seen)
}

/// `shutterbox migrate-store` into `database`/`bucket`, with extra arguments.
fn migrate_command(data: &Path, database: &str, bucket: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shutterbox"));
    for (var, _) in std::env::vars().filter(|(var, _)| var.starts_with("SHUTTERBOX_")) {
        command.env_remove(var);
    }
    command
        .arg("migrate-store")
        .args(extra)
        .env("SHUTTERBOX_DATA_DIR", data)
        .env("SHUTTERBOX_TO_DATABASE_URL", database)
        .env("SHUTTERBOX_TO_S3_ENDPOINT", required("SHUTTERBOX_TEST_S3_ENDPOINT"))
        .env("SHUTTERBOX_TO_S3_BUCKET", bucket)
        .env("SHUTTERBOX_TO_S3_ACCESS_KEY", "minioadmin")
        .env("SHUTTERBOX_TO_S3_SECRET_KEY", "minioadmin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A number in the summary line that starts with `label` (`objects:` → "N copied").
fn summary_number(summary: &str, line_start: &str, before: &str) -> u64 {
    let line = summary.lines().find(|l| l.trim_start().starts_with(line_start)).unwrap_or_else(|| panic!("{summary}"));
    let at = line.find(before).unwrap_or_else(|| panic!("{line}"));
    line[..at].split_whitespace().last().unwrap().trim_start_matches('(').parse().unwrap_or_else(|_| panic!("{line}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_embedded_deployment_moves_to_postgres_and_s3_and_serves_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let port = free_port();
    let limits = [("SHUTTERBOX_RATE_LIMIT", "100000/60s"), ("SHUTTERBOX_UPLOAD_EXPIRY_SECS", "86400")];
    let embedded = ServeProcess::start(&data, port, "embedded", &limits).await;
    let root = embedded.root.clone();
    let key = embedded.key.clone().unwrap();
    let client = Client::builder().no_proxy().timeout(Duration::from_secs(30)).build().unwrap();
    let data_env = data.display().to_string();
    let mint = |account: &'static str, scope: &'static str| {
        let data_env = data_env.clone();
        async move {
            let (ok, stdout, stderr) = shutterbox(
                &["keys", "create", "--account", account, "--scope", scope],
                &[("SHUTTERBOX_DATA_DIR", &data_env)],
            )
            .await;
            assert!(ok, "{stderr}");
            stdout.lines().last().unwrap().to_owned()
        }
    };
    let read_key = mint("default", "read").await;
    let other_key = mint("other", "secret").await;

    // The deployment: images and other files in folders, and one file of another account.
    let api = ApiClient::with_http(client.clone(), &root, &key);
    let mut images = Vec::new();
    for i in 0..IMAGES + OTHERS {
        let (name, mimetype, bytes) = if i < IMAGES {
            picture(i)
        } else {
            (format!("note-{i}.txt"), "text/plain", format!("note {i}\n").repeat(i).into_bytes())
        };
        let upload = Upload {
            mimetype: mimetype.into(),
            folder_name: (i % 3 != 0).then(|| format!("album-{}/part-{}", i % 4, i % 2)),
            ..Upload::of(&name, &bytes)
        };
        let file = api.upload(&upload, Bytes::from(bytes)).await.unwrap();
        if i < IMAGES {
            images.push(file);
        }
    }
    // Larger than one PUT of the copy takes (64 MiB): streamed through a multipart upload.
    let big: Vec<u8> = (0..(65u32 << 20) + 3).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    api.upload(
        &Upload { mimetype: "application/octet-stream".into(), ..Upload::of("big.bin", &big) },
        Bytes::from(big),
    )
    .await
    .unwrap();
    let other = ApiClient::with_http(client.clone(), &root, &other_key);
    other
        .upload(&Upload::of("theirs.txt", b"another account's"), Bytes::from_static(b"another account's"))
        .await
        .unwrap();

    // Pinned variants (transform-url's jobs, besides every image's thumbnail), a focal point, a warming batch.
    let mut transformed = Vec::new();
    for file in &images[..10] {
        let id = file["id"].as_str().unwrap();
        let answer: Value = json_of(
            client
                .post(format!("{root}/v1/file/{id}/transform-url"))
                .header("ApiKey", &key)
                .json(&json!({"w": 24, "format": "webp"})),
        )
        .await;
        transformed.push(answer["url"].as_str().unwrap_or_else(|| panic!("{answer}")).to_owned());
    }
    let focused = images[3]["id"].as_str().unwrap().to_owned();
    let response = client
        .patch(format!("{root}/v1/files/{focused}"))
        .header("ApiKey", &key)
        .json(&json!({"focus": {"x": 0.25, "y": 0.75}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{:?}", response.text().await);
    let warm: Value = json_of(
        client
            .post(format!("{root}/v1/warm"))
            .header("ApiKey", &key)
            .json(&json!({"fileIds": [images[0]["id"], images[1]["id"]], "transformations": ["w=16"]})),
    )
    .await;
    let batch = warm["batchId"].as_str().unwrap_or_else(|| panic!("{warm}")).to_owned();
    let sqlite = format!("sqlite://{}?mode=ro", data.join("shutterbox.db").display());
    eventually(60, "the thumbnails, transform-url variants and warming are rendered", || {
        let sqlite = sqlite.clone();
        async move {
            let mut db = sqlx::SqliteConnection::connect(&sqlite).await.unwrap();
            let (pinned,): (i64,) =
                sqlx::query_as("SELECT COUNT(*) FROM variants WHERE pinned <> 0").fetch_one(&mut db).await.unwrap();
            let (queued,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM warm_items WHERE state = 'queued'")
                .fetch_one(&mut db)
                .await
                .unwrap();
            let (undescribed,): (i64,) =
                sqlx::query_as("SELECT COUNT(*) FROM files WHERE kind = 'image' AND described_at IS NULL")
                    .fetch_one(&mut db)
                    .await
                    .unwrap();
            pinned >= (IMAGES + 10) as i64 && queued == 0 && undescribed == 0
        }
    })
    .await;

    // Uploads in progress: one PUT but not confirmed, one resumable upload half-way.
    let late = picture(999);
    let pending = embedded.presign_and_put(&client, &late.0, late.1, &late.2).await;
    let resumable_bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let created = client
        .post(format!("{root}/v1/uploads/tus"))
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .header("Upload-Length", resumable_bytes.len().to_string())
        .header("Upload-Metadata", "filename ZmlsbS5iaW4=")
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let tus_url = created.headers()["location"].to_str().unwrap().to_owned();
    let half = 1_200_000;
    let patched = client
        .patch(&tus_url)
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .header("Content-Type", "application/offset+octet-stream")
        .header("Upload-Offset", "0")
        .body(resumable_bytes[..half].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(patched.status(), StatusCode::NO_CONTENT);

    let mut probes: Vec<String> = transformed.iter().map(|url| url.trim_start_matches(&root).to_owned()).collect();
    probes.push(format!("/v1/warm/{batch}"));
    for file in &images[..20] {
        probes.push(format!("{}?w=32&h=32&fit=cover", file["secureUrl"].as_str().unwrap().trim_start_matches(&root)));
        probes.push(format!("/v1/files/{}/thumbnail", file["id"].as_str().unwrap()));
    }
    let before = observe(&client, &root, &[&key, &read_key, &other_key], &probes).await;
    let mut embedded = embedded;
    let (status, _) = terminate(&mut embedded.child, Duration::from_secs(30));
    assert!(status.success());
    let untouched = snapshot(&data);

    // The copy, killed as soon as its first page of files is recorded, then run again to the end.
    let admin = required("SHUTTERBOX_TEST_DATABASE_URL");
    let name = format!(
        "{}_{}",
        std::env::var("SHUTTERBOX_TEST_DB_PREFIX").unwrap_or_else(|_| "sbx_t".into()),
        &uuid::Uuid::new_v4().simple().to_string()[..16]
    );
    let mut admin_conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    admin_conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).await.unwrap();
    let database = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
    let bucket = format!("t-{}", uuid::Uuid::new_v4().simple());
    let mut first = migrate_command(&data, &database, &bucket, &["--concurrency", "1"]).spawn().unwrap();
    let mut watch = None;
    for _ in 0..3000 {
        if watch.is_none() {
            watch = sqlx::PgConnection::connect(&database).await.ok();
        }
        if let Some(db) = watch.as_mut()
            && let Ok((files,)) = sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM files").fetch_one(&mut *db).await
            && files > 0
        {
            break;
        }
        if first.try_wait().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(first.try_wait().unwrap().is_none(), "the first run was still copying when it was killed");
    first.kill().unwrap();
    first.wait().unwrap();
    let files_after_kill: (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM files").fetch_one(watch.as_mut().unwrap()).await.unwrap();
    assert!((1..(IMAGES + OTHERS) as i64).contains(&files_after_kill.0), "{files_after_kill:?}");
    let bucket_dir = Path::new(&required("SHUTTERBOX_TEST_S3_DATA_DIR")).join(&bucket);
    let written_by_first: BTreeMap<String, std::time::SystemTime> = snapshot(&bucket_dir)
        .into_keys()
        .map(|name| {
            let modified = std::fs::metadata(bucket_dir.join(&name)).unwrap().modified().unwrap();
            (name, modified)
        })
        .collect();

    let second = migrate_command(&data, &database, &bucket, &[]).output().unwrap();
    let summary = String::from_utf8_lossy(&second.stdout).into_owned();
    eprintln!("the second run, after {files_after_kill:?} files were recorded by the first:\n{summary}");
    assert!(second.status.success(), "{summary}\n{}", String::from_utf8_lossy(&second.stderr));
    // Every object the first run wrote is left as it was (at most the one it was writing is checked again).
    for (name, modified) in &written_by_first {
        let now = std::fs::metadata(bucket_dir.join(name)).unwrap().modified().unwrap();
        assert_eq!(&now, modified, "{name} was written again");
    }
    let objects_of_first = written_by_first.keys().filter(|name| !name.contains(".s3s")).count() as u64;
    let copied = summary_number(&summary, "objects:", "copied");
    let checked = summary_number(&summary, "objects:", "already there and checked");
    assert!(checked <= 1, "{summary}");
    assert_eq!(summary_number(&summary, "objects:", "missing"), 0, "{summary}");
    // Originals (302 files), pinned variants (thumbnails, transform-url, warming), the two pending uploads'
    // objects; ad-hoc variants (the probes' renders) are left to the new deployment's cache.
    let sqlite_db = &mut sqlx::SqliteConnection::connect(&sqlite).await.unwrap();
    let (expected,): (i64,) =
        sqlx::query_as("SELECT (SELECT COUNT(*) FROM files) + (SELECT COUNT(*) FROM variants WHERE pinned <> 0) + 2")
            .fetch_one(&mut *sqlite_db)
            .await
            .unwrap();
    assert_eq!(copied + objects_of_first, expected as u64, "{summary}\nfirst run wrote {objects_of_first}");
    assert_eq!(summary_number(&summary, "files", "copied") + files_after_kill.0 as u64, (IMAGES + OTHERS + 2) as u64);

    // A third run finds everything there; a fourth, after two variants' records are taken away (as if a
    // run had stopped between writing their objects and recording them) and one of the two objects was
    // damaged meanwhile, checks the whole one and copies the damaged one again.
    let third = migrate_command(&data, &database, &bucket, &[]).output().unwrap();
    let summary = String::from_utf8_lossy(&third.stdout).into_owned();
    assert!(third.status.success(), "{summary}");
    assert_eq!(summary_number(&summary, "objects:", "copied"), 0, "{summary}");
    assert_eq!(summary_number(&summary, "files", "copied"), 0, "{summary}");
    let db = watch.as_mut().unwrap();
    let unrecorded: Vec<(String, String)> =
        sqlx::query_as("SELECT file_id, object_key FROM variants ORDER BY file_id, digest LIMIT 2")
            .fetch_all(&mut *db)
            .await
            .unwrap();
    for (file_id, object_key) in &unrecorded {
        sqlx::query("DELETE FROM variants WHERE file_id = $1 AND object_key = $2")
            .bind(file_id)
            .bind(object_key)
            .execute(&mut *db)
            .await
            .unwrap();
    }
    let damaged = bucket_dir.join(&unrecorded[1].1);
    let length = std::fs::metadata(&damaged).unwrap().len();
    std::fs::write(&damaged, vec![0u8; length as usize]).unwrap();
    let fourth = migrate_command(&data, &database, &bucket, &[]).output().unwrap();
    let summary = String::from_utf8_lossy(&fourth.stdout).into_owned();
    assert!(fourth.status.success(), "{summary}");
    assert_eq!(summary_number(&summary, "variants", "copied"), 2, "{summary}");
    assert_eq!(summary_number(&summary, "objects:", "copied"), 1, "{summary}");
    assert_eq!(summary_number(&summary, "objects:", "already there and checked"), 1, "{summary}");
    assert_ne!(std::fs::read(&damaged).unwrap(), vec![0u8; length as usize], "the damaged object is whole again");
    // Except SQLite's `-shm`, the shared-memory index of its write-ahead log, where every reader (a
    // read-only one too) notes what it reads: it holds no data and is rebuilt from the log when missing.
    // And a missing log is the same as an empty one: a read-only reader of a database whose log the server
    // removed on closing makes an empty `-wal` (SQLite reads a WAL database read-only that way).
    let now = snapshot(&data);
    let empty = sha256(b"");
    let content = |files: &BTreeMap<String, String>, name: &str| {
        files.get(name).filter(|digest| !(name.ends_with(".db-wal") && **digest == empty)).cloned()
    };
    let changed: Vec<&String> = untouched
        .keys()
        .chain(now.keys())
        .filter(|name| !name.ends_with(".db-shm") && content(&untouched, name) != content(&now, name))
        .collect();
    assert!(changed.is_empty(), "the embedded data is left as it was, but these changed: {changed:?}");

    // `serve` on the distributed configuration, at the same address.
    let serve_env = [
        ("SHUTTERBOX_RATE_LIMIT", "100000/60s"),
        ("SHUTTERBOX_DATABASE_URL", database.as_str()),
        ("SHUTTERBOX_REDIS_URL", &required("SHUTTERBOX_TEST_REDIS_URL")),
        ("SHUTTERBOX_REDIS_PREFIX", &format!("{name}_redis")),
        ("SHUTTERBOX_S3_ENDPOINT", &required("SHUTTERBOX_TEST_S3_ENDPOINT")),
        ("SHUTTERBOX_S3_BUCKET", bucket.as_str()),
        ("SHUTTERBOX_S3_ACCESS_KEY", "minioadmin"),
        ("SHUTTERBOX_S3_SECRET_KEY", "minioadmin"),
    ]
    .map(|(name, value)| (name, value.to_owned()));
    let serve_env: Vec<(&str, &str)> = serve_env.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let distributed = ServeProcess::start(&dir.path().join("unused"), port, "distributed", &serve_env).await;
    assert_eq!(distributed.key, None, "no account is made: the copied ones are there");
    let after = observe(&client, &root, &[&key, &read_key, &other_key], &probes).await;
    assert_eq!(after, before, "the distributed deployment answers as the embedded one did");

    // The uploads in progress go on: the pending one confirms, the resumable one takes the rest.
    let confirmed = client
        .post(format!("{root}/v1/upload/confirm"))
        .header("ApiKey", &key)
        .json(&json!({"pendingUploadId": pending["pendingUploadId"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(confirmed.status(), StatusCode::OK);
    let late_file: Value = confirmed.json().await.unwrap();
    let raw = client.get(late_file["file"]["rawUrl"].as_str().unwrap()).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(raw.as_ref(), late.2.as_slice());
    let head = client
        .head(&tus_url)
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .send()
        .await
        .unwrap();
    assert_eq!(head.headers()["upload-offset"].to_str().unwrap(), half.to_string());
    let finished = client
        .patch(&tus_url)
        .header("Authorization", format!("ApiKey {key}"))
        .header(TUS.0, TUS.1)
        .header("Content-Type", "application/offset+octet-stream")
        .header("Upload-Offset", half.to_string())
        .body(resumable_bytes[half..].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(finished.status(), StatusCode::NO_CONTENT, "{:?}", finished.text().await);
    let file_id = finished.headers()["shutterbox-file-id"].to_str().unwrap().to_owned();
    let file: Value = json_of(client.get(format!("{root}/v1/files/{file_id}")).header("ApiKey", &key)).await;
    let raw = client.get(file["file"]["rawUrl"].as_str().unwrap()).send().await.unwrap().bytes().await.unwrap();
    assert!(raw.as_ref() == resumable_bytes.as_slice(), "the resumed upload is byte-identical");

    // The keys keep their scopes; a deletion works.
    let victim = images[5]["id"].as_str().unwrap();
    let refused = client
        .request(Method::DELETE, format!("{root}/v1/files/{victim}"))
        .header("ApiKey", &read_key)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let deleted = client
        .request(Method::DELETE, format!("{root}/v1/files/{victim}"))
        .header("ApiKey", &key)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let gone = client.get(images[5]["rawUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}
