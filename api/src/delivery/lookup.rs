//! Public paths → file records, remembered: every `/v1/file/` and `/v1/raw/` request starts with this
//! lookup, and without memory each one is a database query, the largest part of serving a cached variant.
//!
//! A path resolves by its exact text, else by its stem, in which case the URL's extension names the output
//! format (`cat.webp` → `cat.jpg` as WebP). Found paths are kept (bounded in entries and in time); misses
//! are not, so a new upload is visible at once. Files are immutable, so a kept record can only go stale by
//! being deleted: `forget` drops every path of a deleted file, and a lookup that was reading the database
//! while a delete happened does not keep its answer (the generation check below). The time bound covers a
//! delete made by another API node, until invalidations travel between nodes.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use moka::future::Cache;
use shutterbox_metadata::{FileRecord, MetadataStore};
use shutterbox_model::{
    FileId,
    path::{extension, stem},
};
use shutterbox_pipeline::{Format, OutputFormat};

use crate::error::ApiError;

/// Paths kept at most (a record is a few hundred bytes).
const MAX_PATHS: u64 = 100_000;
/// How long a path is kept.
const PATH_TTL: Duration = Duration::from_secs(60);

/// What a public path names.
#[derive(Debug)]
pub struct Located {
    pub file: FileRecord,
    /// The output format named by the URL's extension when the path matched by stem only.
    pub extension_format: Option<OutputFormat>,
}

#[derive(Clone)]
pub struct PathLookup {
    paths: Cache<String, Arc<Located>>,
    /// Bumped by every `forget`; an answer read from the database under an older generation is not kept.
    generation: Arc<AtomicU64>,
}

impl Default for PathLookup {
    fn default() -> Self {
        let paths =
            Cache::builder().max_capacity(MAX_PATHS).time_to_live(PATH_TTL).support_invalidation_closures().build();
        Self { paths, generation: Arc::default() }
    }
}

impl PathLookup {
    /// The file at `path` (exactly), else the file with its stem when the extension names an output format.
    pub async fn locate(&self, metadata: &dyn MetadataStore, path: &str) -> Result<Option<Arc<Located>>, ApiError> {
        if let Some(hit) = self.paths.get(path).await {
            return Ok(Some(hit));
        }
        let generation = self.generation.load(Ordering::Acquire);
        let Some(located) = find(metadata, path).await? else { return Ok(None) };
        let located = Arc::new(located);
        if self.generation.load(Ordering::Acquire) == generation {
            self.paths.insert(path.to_owned(), located.clone()).await;
        }
        Ok(Some(located))
    }

    /// Drops every path of a deleted file.
    pub fn forget(&self, file_id: &FileId) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        let file_id = file_id.clone();
        if let Err(e) = self.paths.invalidate_entries_if(move |_, located| located.file.id == file_id) {
            // Only possible when closures are not enabled, which `default` does; the TTL still applies.
            tracing::warn!(error = %e, "could not drop a deleted file's paths");
        }
    }
}

async fn find(metadata: &dyn MetadataStore, path: &str) -> Result<Option<Located>, ApiError> {
    if let Some(file) = metadata.file_by_path(path).await? {
        return Ok(Some(Located { file, extension_format: None }));
    }
    let Some((folder, name)) = path.rsplit_once('/') else { return Ok(None) };
    let Some(format) = extension(name).and_then(Format::parse).and_then(Format::output_format) else {
        return Ok(None);
    };
    let file = metadata.file_by_stem(&format!("{folder}/{}", stem(name))).await?;
    Ok(file.map(|file| Located { file, extension_format: Some(format) }))
}
