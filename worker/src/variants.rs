//! Variants: rendering a file's original through the pipeline and keeping the result in the object store
//! (`files/<id>/v/<digest>`, recorded in the metadata so deleting the file removes it). The API's on-demand
//! path and the `RenderVariant` job run this same code, so a variant is the same bytes whoever made it.

use std::sync::Arc;

use bytes::Bytes;
use sha2::{Digest, Sha256};
use shutterbox_metadata::{FileRecord, MetadataError, MetadataStore, VariantRecord};
use shutterbox_pipeline::{PipelineError, RenderOptions, Target, Transform, render};
use shutterbox_storage::{ObjectKey, ObjectStore, StoreError};

/// What to render: the transformation and the output target.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSpec {
    pub transform: Transform,
    pub target: Target,
}

impl VariantSpec {
    /// Names the variant among a file's variants: order-free, defaults filled in (canonical text).
    pub fn digest(&self) -> String {
        let digest = Sha256::digest(format!("{}|{}", self.transform.canonical(), self.target.as_str()));
        hex::encode(&digest[..8])
    }
}

/// A rendered variant's bytes and type.
#[derive(Debug, Clone)]
pub struct Variant {
    pub bytes: Bytes,
    pub content_type: String,
}

#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    /// The source or the parameters are at fault (bad image, crop outside, too many pixels).
    #[error("{0}")]
    Rejected(PipelineError),
    #[error("rendering failed: {0}")]
    Render(PipelineError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    #[error("the original of file {0} is missing from the store")]
    OriginalMissing(String),
    #[error("malformed object key '{0}'")]
    MalformedKey(String),
    #[error("render task failed: {0}")]
    Task(String),
}

/// Renders and keeps variants.
#[derive(Clone)]
pub struct Renderer {
    metadata: Arc<dyn MetadataStore>,
    store: Arc<dyn ObjectStore>,
    options: RenderOptions,
}

impl Renderer {
    pub fn new(metadata: Arc<dyn MetadataStore>, store: Arc<dyn ObjectStore>, options: RenderOptions) -> Self {
        Self { metadata, store, options }
    }

    pub fn metadata(&self) -> &dyn MetadataStore {
        self.metadata.as_ref()
    }

    /// The stored variant, if one was kept.
    pub async fn stored(&self, file: &FileRecord, spec: &VariantSpec) -> Result<Option<Variant>, VariantError> {
        let Some(record) = self.metadata.variant(&file.id, &spec.digest()).await? else { return Ok(None) };
        let key =
            ObjectKey::parse(&record.object_key).map_err(|_| VariantError::MalformedKey(record.object_key.clone()))?;
        Ok(self.store.get(&key).await?.map(|bytes| Variant { bytes, content_type: record.content_type }))
    }

    /// Renders the variant from the original (on the blocking pool).
    pub async fn render(&self, file: &FileRecord, spec: &VariantSpec) -> Result<Variant, VariantError> {
        let key =
            ObjectKey::parse(&file.object_key).map_err(|_| VariantError::MalformedKey(file.object_key.clone()))?;
        let source = self.store.get(&key).await?.ok_or_else(|| VariantError::OriginalMissing(file.id.clone()))?;
        let (transform, target, options) = (spec.transform, spec.target, self.options);
        let rendered = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let rendered = render(&source, &transform, target, options);
            tracing::debug!(elapsed_ms = started.elapsed().as_secs_f64() * 1e3, "rendered");
            rendered
        })
        .await
        .map_err(|e| VariantError::Task(e.to_string()))?
        .map_err(|e| if e.is_client_error() { VariantError::Rejected(e) } else { VariantError::Render(e) })?;
        Ok(Variant { bytes: Bytes::from(rendered.bytes), content_type: rendered.format.mime().to_owned() })
    }

    /// Keeps a rendered variant in the store and records it. Idempotent: a variant recorded already, or a
    /// file deleted meanwhile, leaves no object behind.
    pub async fn persist(
        &self,
        file: &FileRecord,
        spec: &VariantSpec,
        variant: &Variant,
        now_ms: i64,
    ) -> Result<(), VariantError> {
        let digest = spec.digest();
        let key = ObjectKey::variant(&file.id, &digest);
        self.store.put(&key, variant.bytes.clone(), &variant.content_type).await?;
        let record = VariantRecord {
            file_id: file.id.clone(),
            digest,
            object_key: key.to_string(),
            content_type: variant.content_type.clone(),
            size: variant.bytes.len() as u64,
        };
        if !self.metadata.put_variant(&record, now_ms).await? {
            // Already recorded (same key, same bytes: keep it) or the file is gone (remove it).
            if self.metadata.file_by_id(&file.id).await?.is_none() {
                self.store.delete(&key).await?;
            }
        }
        Ok(())
    }

    /// Renders and keeps a variant unless it is kept already (the `RenderVariant` job). Returns whether it
    /// rendered.
    pub async fn ensure(&self, file: &FileRecord, spec: &VariantSpec, now_ms: i64) -> Result<bool, VariantError> {
        if self.metadata.variant(&file.id, &spec.digest()).await?.is_some() {
            return Ok(false);
        }
        let variant = self.render(file, spec).await?;
        self.persist(file, spec, &variant, now_ms).await?;
        Ok(true)
    }
}
