//! `shutterbox migrate-store`: copies an embedded deployment (SQLite and the local object directory) into
//! the distributed one's PostgreSQL and S3 bucket, so that `serve` on the distributed configuration serves
//! every file at the same URLs with the same keys (docs/distributed.md, "Moving an embedded deployment").
//!
//! The embedded data is only read: the database is opened read-only. Records are copied table by table in
//! reference order (`shutterbox_metadata::Table::ORDER`), a page at a time; a row is written only after every
//! object it names is in the bucket with the source's size and SHA-256 (read back), so a row in the
//! destination means its objects are whole. A run stopped at any point and run again skips the rows already
//! there and, of an object written but not yet recorded, only checks it: nothing is copied twice, nothing is
//! missing. A resumable upload in progress becomes an S3 multipart upload holding the bytes received so far.

use std::{sync::Arc, time::Instant};

use futures_util::{StreamExt, TryStreamExt, stream};
use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};
use shutterbox_metadata::{Row, Selection, SqlMetadata, Table};
use shutterbox_model::{Assembly, ObjectKey};
use shutterbox_storage::{Checksum, ChecksumAlgorithm, LocalStore, ObjectStore, Piece, S3Config, S3Store};

/// Copying an embedded deployment into PostgreSQL and S3.
#[derive(Debug, clap::Args)]
pub struct MigrateStoreArgs {
    /// The embedded deployment's data directory (what `serve` ran with). It is only read.
    #[arg(long, env = "SHUTTERBOX_DATA_DIR", default_value = "./data")]
    data_dir: std::path::PathBuf,
    /// The PostgreSQL database to copy into (`postgres://…`); its schema is created or brought up to date.
    #[arg(long, env = "SHUTTERBOX_TO_DATABASE_URL")]
    to_database_url: String,
    /// The S3 endpoint to copy objects to.
    #[arg(long, env = "SHUTTERBOX_TO_S3_ENDPOINT")]
    to_s3_endpoint: String,
    /// The bucket (created if missing).
    #[arg(long, env = "SHUTTERBOX_TO_S3_BUCKET", default_value = "shutterbox")]
    to_s3_bucket: String,
    #[arg(long, env = "SHUTTERBOX_TO_S3_ACCESS_KEY")]
    to_s3_access_key: String,
    #[arg(long, env = "SHUTTERBOX_TO_S3_SECRET_KEY", hide_env_values = true)]
    to_s3_secret_key: String,
    #[arg(long, env = "SHUTTERBOX_TO_S3_REGION", default_value = "us-east-1")]
    to_s3_region: String,
    /// Copy every stored variant, not only the pinned ones (rendered by jobs and presets); the others are a
    /// cache that the distributed deployment refills on demand.
    #[arg(long)]
    all_variants: bool,
    /// Largest upload, as `serve` is configured (sizes the multipart parts of a resumable upload whose
    /// length is not declared yet).
    #[arg(long, env = "SHUTTERBOX_MAX_UPLOAD_BYTES", default_value_t = 5 * 1024 * 1024 * 1024)]
    max_upload_bytes: u64,
    /// Objects copied at once.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
}

/// Rows read from the source per query.
const PAGE: u64 = 200;

/// Objects up to this size are copied in one PUT; larger ones stream through a multipart upload.
const SINGLE_PUT: u64 = 64 << 20;

/// What became of a row's objects.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    copied: u64,
    bytes: u64,
    /// In the bucket already with the source's size and digest (an earlier run wrote them).
    checked: u64,
    /// Named by a record but not in the embedded store.
    missing: u64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.copied += other.copied;
        self.bytes += other.bytes;
        self.checked += other.checked;
        self.missing += other.missing;
    }
}

struct Copier {
    source: LocalStore,
    dest: Arc<dyn ObjectStore>,
    max_upload_bytes: u64,
    bar: ProgressBar,
}

pub async fn run(args: MigrateStoreArgs) -> Result<(), String> {
    let started = Instant::now();
    let source_db = SqlMetadata::open_sqlite_read_only(&args.data_dir.join("shutterbox.db"))
        .await
        .map_err(|e| format!("the embedded deployment at {}: {e}", args.data_dir.display()))?;
    // Nothing is uploaded through it, so it needs no upload address.
    let source = LocalStore::open(&args.data_dir, String::new()).await.map_err(|e| e.to_string())?;
    let dest_db =
        SqlMetadata::connect(&args.to_database_url).await.map_err(|e| format!("the destination database: {e}"))?;
    let config = S3Config {
        region: args.to_s3_region.clone(),
        ..S3Config::new(args.to_s3_endpoint, args.to_s3_bucket, args.to_s3_access_key, args.to_s3_secret_key)
    };
    let dest: Arc<dyn ObjectStore> =
        Arc::new(S3Store::connect(config).await.map_err(|e| format!("the destination bucket: {e}"))?);

    let now_ms = shutterbox_model::clock::now_ms();
    let selection = |table: Table| match table {
        Table::Variants if !args.all_variants => Selection::PinnedVariants,
        Table::PendingUploads => Selection::PendingUntil(now_ms),
        _ => Selection::All,
    };
    let mut total = 0;
    for table in Table::ORDER {
        total += source_db.row_count(table, selection(table)).await.map_err(|e| e.to_string())?;
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} records {msg}")
            .map_err(|e| e.to_string())?,
    );
    let copier = Copier { source, dest, max_upload_bytes: args.max_upload_bytes, bar: bar.clone() };
    let concurrency = args.concurrency.max(1);

    let mut lines = Vec::new();
    let mut objects = Tally::default();
    for table in Table::ORDER {
        let (mut added, mut present) = (0u64, 0u64);
        let mut after: Option<Row> = None;
        loop {
            let page =
                source_db.rows(table, selection(table), after.as_ref(), PAGE).await.map_err(|e| e.to_string())?;
            let Some(last) = page.last() else { break };
            after = Some(last.clone());
            let there = dest_db.present(&page).await.map_err(|e| e.to_string())?;
            let count = page.len() as u64;
            let missing: Vec<Row> = page.into_iter().filter(|row| !there.contains(&row.identity())).collect();
            present += count - missing.len() as u64;
            let carried: Vec<(Option<Row>, Tally)> =
                stream::iter(missing).map(|row| copier.carry(row)).buffer_unordered(concurrency).try_collect().await?;
            let rows: Vec<Row> = carried
                .into_iter()
                .filter_map(|(row, tally)| {
                    objects.add(tally);
                    row
                })
                .collect();
            added += dest_db.insert_rows(&rows).await.map_err(|e| e.to_string())?;
            // Every row is there now, or one of the destination's own took its name: stop before anything
            // refers to the row that is not there.
            let now_there = dest_db.present(&rows).await.map_err(|e| e.to_string())?;
            if let Some(row) = rows.iter().find(|row| !now_there.contains(&row.identity())) {
                return Err(format!(
                    "a {} record {:?} could not be written: the destination already holds another with the same \
                     name (was `serve` started on it before?). Copy into an empty database and bucket.",
                    table.name(),
                    row.identity()
                ));
            }
            bar.inc(count);
            bar.set_message(format!(
                "{}: {} objects, {} MiB copied",
                table.name(),
                objects.copied,
                objects.bytes >> 20
            ));
        }
        lines.push(format!("  {:<16} {added:>8} copied {present:>8} already there", table.name()));
    }
    bar.finish_and_clear();
    println!("migrate-store: done in {:.1} s", started.elapsed().as_secs_f64());
    println!("  records:");
    for line in lines {
        println!("{line}");
    }
    println!(
        "  objects: {} copied ({} bytes), {} already there and checked, {} missing in the embedded store",
        objects.copied, objects.bytes, objects.checked, objects.missing
    );
    Ok(())
}

impl Copier {
    /// Brings the objects `row` names into the bucket; returns the row to write (`None` to leave it out)
    /// and what it took.
    async fn carry(&self, mut row: Row) -> Result<(Option<Row>, Tally), String> {
        let mut tally = Tally::default();
        let Some(key) = row.text("object_key").map(str::to_owned) else { return Ok((Some(row), tally)) };
        let key =
            ObjectKey::parse(&key).map_err(|e| format!("a {} record names object {key:?}: {e}", row.table().name()))?;
        let content_type = row
            .text("raw_type")
            .or_else(|| row.text("content_type"))
            .or_else(|| row.text("declared_type"))
            .unwrap_or(shutterbox_model::MediaFormat::Binary.mime())
            .to_owned();
        let unfinished = row.table() == Table::PendingUploads && row.text("file_id").is_none();
        if let (true, Some(assembly)) = (unfinished, row.text("assembly")) {
            let assembly: Assembly =
                serde_json::from_str(assembly).map_err(|e| format!("upload {key}: its assembly does not read: {e}"))?;
            return match self.carry_assembly(&row, &key, &assembly).await? {
                Some((moved, bytes)) => {
                    let json = serde_json::to_string(&moved).map_err(|e| e.to_string())?;
                    row.set_text("assembly", Some(json));
                    tally.copied += 1;
                    tally.bytes += bytes;
                    Ok((Some(row), tally))
                }
                None => {
                    self.bar.println(format!(
                        "resumable upload {key}: its bytes are not in the embedded store; left out (the client starts it again)"
                    ));
                    tally.missing += 1;
                    Ok((None, tally))
                }
            };
        }
        match self.carry_object(&key, &content_type).await? {
            Carried::Copied(bytes) => {
                tally.copied += 1;
                tally.bytes += bytes;
            }
            Carried::Checked => tally.checked += 1,
            // A pending upload's bytes arrive later (or never); a file's or variant's should be there.
            Carried::Missing if row.table() == Table::PendingUploads => {}
            Carried::Missing => {
                self.bar.println(format!(
                    "{} record {:?}: object {key} is not in the embedded store; the record is copied as it is",
                    row.table().name(),
                    row.identity()
                ));
                tally.missing += 1;
            }
        }
        Ok((Some(row), tally))
    }

    /// Copies one object unless the bucket has it with the same bytes, and checks the copy.
    async fn carry_object(&self, key: &ObjectKey, content_type: &str) -> Result<Carried, String> {
        let failed = |e: &dyn std::fmt::Display| format!("object {key}: {e}");
        let Some(info) = self.source.stat(key).await.map_err(|e| failed(&e))? else { return Ok(Carried::Missing) };
        // A small object is read once, into memory, for its digest and its PUT; a large one is digested as
        // a stream first, since its multipart upload is given the digest to check.
        let (small, source_digest) = if info.size <= SINGLE_PUT {
            let Some(bytes) = self.source.get(key).await.map_err(|e| failed(&e))? else { return Ok(Carried::Missing) };
            let source_digest: [u8; 32] = Sha256::digest(&bytes).into();
            (Some(bytes), source_digest)
        } else {
            let source_digest = digest(self.source.read(key, None).await.map_err(|e| failed(&e))?).await;
            let Some(source_digest) = source_digest.map_err(|e| failed(&e))? else { return Ok(Carried::Missing) };
            (None, source_digest)
        };
        if self.dest.stat(key).await.map_err(|e| failed(&e))?.is_some_and(|there| there.size == info.size)
            && self.dest_digest(key).await? == Some(source_digest)
        {
            return Ok(Carried::Checked);
        }
        if let Some(bytes) = small {
            self.dest.put(key, bytes, content_type).await.map_err(|e| failed(&e))?;
        } else {
            let body = self.source.read(key, None).await.map_err(|e| failed(&e))?.ok_or_else(|| failed(&"vanished"))?;
            let assembly = self.dest.begin_assembly(key, info.size).await.map_err(|e| failed(&e))?;
            let checksum = Checksum { algorithm: ChecksumAlgorithm::Sha256, digest: source_digest.to_vec() };
            let piece = Piece { body, limit: info.size, total: Some(info.size), checksum: Some(checksum) };
            let appended = self.dest.append(key, &assembly, piece).await.map_err(|e| failed(&e))?;
            if appended.assembly.offset != info.size {
                let _ = self.dest.abort_assembly(key, &appended.assembly).await;
                return Err(failed(&format!("{} of its {} bytes were copied", appended.assembly.offset, info.size)));
            }
            self.dest.finish_assembly(key, &appended.assembly).await.map_err(|e| failed(&e))?;
        }
        let copied = self.dest.stat(key).await.map_err(|e| failed(&e))?.map(|there| there.size);
        if copied != Some(info.size) || self.dest_digest(key).await? != Some(source_digest) {
            return Err(failed(&"the copy in the bucket does not have the embedded object's size and SHA-256"));
        }
        Ok(Carried::Copied(info.size))
    }

    /// Turns an embedded resumable upload (the bytes so far in one file) into a multipart upload in the
    /// bucket holding the same bytes; `None` when its bytes are gone.
    async fn carry_assembly(
        &self,
        row: &Row,
        key: &ObjectKey,
        assembly: &Assembly,
    ) -> Result<Option<(Assembly, u64)>, String> {
        let failed = |e: &dyn std::fmt::Display| format!("resumable upload {key}: {e}");
        let size = row.int("size").and_then(|s| u64::try_from(s).ok()).unwrap_or(0);
        let deferred = row.int("length_deferred").is_some_and(|d| d != 0);
        let largest = if deferred { self.max_upload_bytes } else { size };
        let Some(body) = self.source.read_assembly(key, assembly).await.map_err(|e| failed(&e))? else {
            return Ok(None);
        };
        let Some(received) = digest(Some(body)).await.map_err(|e| failed(&e))? else { return Ok(None) };
        let moved = self.dest.begin_assembly(key, largest).await.map_err(|e| failed(&e))?;
        if assembly.offset == 0 {
            return Ok(Some((moved, 0)));
        }
        let body = self
            .source
            .read_assembly(key, assembly)
            .await
            .map_err(|e| failed(&e))?
            .ok_or_else(|| failed(&"vanished"))?;
        let checksum = Checksum { algorithm: ChecksumAlgorithm::Sha256, digest: received.to_vec() };
        let total = (!deferred).then_some(size);
        let piece = Piece { body, limit: largest, total, checksum: Some(checksum) };
        let appended = self.dest.append(key, &moved, piece).await.map_err(|e| failed(&e))?;
        if appended.assembly.offset != assembly.offset {
            let _ = self.dest.abort_assembly(key, &appended.assembly).await;
            return Err(failed(&format!("{} of its {} bytes were copied", appended.assembly.offset, assembly.offset)));
        }
        Ok(Some((appended.assembly, assembly.offset)))
    }

    async fn dest_digest(&self, key: &ObjectKey) -> Result<Option<[u8; 32]>, String> {
        let body = self.dest.read(key, None).await.map_err(|e| format!("object {key} in the bucket: {e}"))?;
        digest(body).await.map_err(|e| format!("object {key} in the bucket: {e}"))
    }
}

enum Carried {
    Copied(u64),
    Checked,
    Missing,
}

/// The SHA-256 of a stream's bytes (`None` for no stream).
async fn digest(body: Option<shutterbox_storage::ByteStream>) -> std::io::Result<Option<[u8; 32]>> {
    let Some(mut body) = body else { return Ok(None) };
    let mut hasher = Sha256::new();
    while let Some(chunk) = body.try_next().await? {
        hasher.update(&chunk);
    }
    Ok(Some(hasher.finalize().into()))
}
