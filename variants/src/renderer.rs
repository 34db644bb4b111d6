//! The three steps of a variant's life: read a stored one, render one from what the file's renders read on the
//! render threads, keep one in the object store (`files/<id>/v/<digest>`, recorded in the metadata so
//! deleting the file removes it). `Variants` composes them for requests and jobs alike, so a variant is the
//! same bytes whoever made it.

use std::sync::{Arc, atomic::Ordering};

use bytes::Bytes;
use prometheus::{HistogramOpts, HistogramVec};
use shutterbox_metadata::{MetadataStore, VariantRecord};
use shutterbox_model::{ImageFacts, PixelSummary, VariantDigest, clock::now_ms};
use shutterbox_pipeline::{
    Cancellation, PipelineError, RenderOptions, Target, parsed_by_libheif, render_cancellable, summarize,
};
use shutterbox_storage::{ObjectKey, ObjectStore};

use crate::{
    bounds::{AccessLog, Eviction, Keep, StoreBounds, StoreStats},
    error::VariantError,
    isolation::Isolation,
    render_pool::{Priority, RenderPool},
    sources::RenderSources,
    spec::{VariantKey, VariantSpec},
    video::{VideoDecode, VideoDecoder, VideoInput},
};

/// A rendered variant's bytes and type.
#[derive(Debug, Clone)]
pub struct Variant {
    pub bytes: Bytes,
    pub content_type: String,
}

/// Render times by output format (`shutterbox_render_duration_seconds`; its count is the renders made).
#[derive(Clone)]
pub struct RenderTimes(HistogramVec);

impl RenderTimes {
    fn new() -> Self {
        let opts = HistogramOpts::new(
            "shutterbox_render_duration_seconds",
            "Time to render a variant (decode, transform, encode), by output format and outcome.",
        )
        .buckets(vec![0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]);
        Self(
            HistogramVec::new(opts, &["format", "outcome"])
                .unwrap_or_else(|e| unreachable!("static metric definition: {e}")),
        )
    }

    /// The histogram, for a registry to expose.
    pub fn collector(&self) -> Box<dyn prometheus::core::Collector> {
        Box::new(self.0.clone())
    }

    /// Renders timed with this output format and outcome.
    pub fn count(&self, format: &str, outcome: &str) -> u64 {
        self.0.with_label_values(&[format, outcome]).get_sample_count()
    }

    fn observe(&self, format: &str, outcome: &str, seconds: f64) {
        self.0.with_label_values(&[format, outcome]).observe(seconds);
    }
}

/// Renders and keeps variants.
#[derive(Clone)]
pub(crate) struct Renderer {
    pub(crate) metadata: Arc<dyn MetadataStore>,
    pub(crate) store: Arc<dyn ObjectStore>,
    options: RenderOptions,
    times: RenderTimes,
    pool: RenderPool,
    pub(crate) bounds: StoreBounds,
    pub(crate) access: Arc<AccessLog>,
    pub(crate) store_stats: Arc<StoreStats>,
    pub(crate) sources: RenderSources,
    /// Where sources libheif parses are decoded (`isolation`); none: in this process.
    pub(crate) isolation: Option<Isolation>,
    /// What decodes videos' frames; none: a video has no frames here (its thumbnail is a placeholder).
    pub(crate) video: Option<VideoDecoder>,
}

impl Renderer {
    /// Renders run on `pool`'s threads.
    pub(crate) fn new(
        metadata: Arc<dyn MetadataStore>,
        store: Arc<dyn ObjectStore>,
        options: RenderOptions,
        pool: RenderPool,
    ) -> Self {
        Self {
            metadata,
            store,
            options,
            times: RenderTimes::new(),
            pool,
            bounds: StoreBounds::default(),
            access: Arc::default(),
            store_stats: Arc::default(),
            sources: RenderSources::new(0),
            isolation: None,
            video: None,
        }
    }

    /// Render times of every render this renderer made (API and jobs alike).
    pub fn times(&self) -> &RenderTimes {
        &self.times
    }

    /// The limits every render is held to.
    pub fn options(&self) -> &RenderOptions {
        &self.options
    }

    pub fn metadata(&self) -> &dyn MetadataStore {
        self.metadata.as_ref()
    }

    /// The stored variant, if one was kept whole. One whose object is not its recorded size (a write cut
    /// short by a power loss: stores may keep variants unflushed) is evicted, to be rendered and kept again.
    pub async fn stored(&self, key: &VariantKey) -> Result<Option<Variant>, VariantError> {
        let Some(record) = self.metadata.variant(&key.file_id, &key.digest).await? else { return Ok(None) };
        let Some(bytes) = self.store.get(&record.object_key).await? else { return Ok(None) };
        if bytes.len() as u64 != record.size {
            tracing::warn!(variant = %key, bytes = bytes.len(), recorded = record.size, "a stored variant is damaged; rendering it again");
            // Rendered either way; an eviction that fails leaves its note to the sweep and the record to the
            // next read.
            if let Err(e) = self.evict(&record, Eviction::Damaged, now_ms()).await {
                tracing::warn!(error = %e, variant = %key, "could not evict a damaged stored variant");
            }
            return Ok(None);
        }
        Ok(Some(Variant { bytes, content_type: record.content_type }))
    }

    /// Renders the variant from `source` (the file's original or its working copy) on a render thread,
    /// before the queued renders of a lower `priority`.
    pub async fn render(&self, source: Bytes, spec: &VariantSpec, priority: Priority) -> Result<Variant, VariantError> {
        let (transform, target, options, times) = (*spec.transform(), spec.target(), self.options, self.times.clone());
        let (pool, isolation) = (self.pool.clone(), self.isolation.clone());
        // Dropped with this future (the request went away): a render that has started stops at its next
        // step or frame; one still queued is never started (`RenderPool::run`).
        let cancellation = Cancellation::new();
        let cancel_on_drop = cancellation.on_drop();
        let rendered = self
            .pool
            .run(priority, move || {
                let started = std::time::Instant::now();
                // A second core only while one idles: at saturation each render keeps to its own.
                let options = RenderOptions { parallel: options.parallel && pool.core_to_spare(), ..options };
                let rendered = match &isolation {
                    Some(isolation) if parsed_by_libheif(&source) => {
                        isolation.render(&source, &transform, target, &options, &cancellation)
                    }
                    _ => render_cancellable(&source, &transform, target, options, &cancellation),
                };
                let seconds = started.elapsed().as_secs_f64();
                tracing::debug!(elapsed_ms = seconds * 1e3, "rendered");
                match &rendered {
                    Ok(r) => times.observe(Target::Format(r.format).as_str(), "ok", seconds),
                    Err(PipelineError::Cancelled) => times.observe(target.as_str(), "cancelled", seconds),
                    Err(_) => times.observe(target.as_str(), "failed", seconds),
                }
                rendered
            })
            .await?
            .map_err(VariantError::of_render);
        cancel_on_drop.disarm();
        let rendered = rendered?;
        // Encoders grow their output as they go, up to twice its length; the memory cache weighs a variant
        // by its length, so the spare capacity would be held there unweighed (a 256 MiB cache of PNGs held
        // 580 MiB).
        let mut bytes = rendered.bytes;
        bytes.shrink_to_fit();
        Ok(Variant { bytes: Bytes::from(bytes), content_type: rendered.format.mime().to_owned() })
    }

    /// What `decode` asks of video `file` (whose headers said `facts`): a frame as a BMP, or an animated
    /// preview as an APNG, decoded by FFmpeg while a render thread waits: video work is counted as renders
    /// are, by the pool and admission alike.
    pub async fn video(
        &self,
        file: &shutterbox_metadata::FileRecord,
        container: shutterbox_model::VideoContainer,
        facts: &shutterbox_model::VideoFacts,
        decode: VideoDecode,
        priority: Priority,
    ) -> Result<Bytes, VariantError> {
        let decoder = self.video.clone().ok_or(VariantError::NoVideoDecoder)?;
        let input = VideoInput::of(self.store.as_ref(), &file.object_key).await?;
        let (facts, options) = (facts.clone(), self.options);
        let cancellation = Cancellation::new();
        let cancel_on_drop = cancellation.on_drop();
        let decoded = self
            .pool
            .run(priority, move || match decode {
                VideoDecode::Frame(at) => decoder.frame(&input, container, &facts, at, &options, &cancellation),
                VideoDecode::Preview(preview) => {
                    decoder.preview(&input, container, &facts, preview, &options, &cancellation)
                }
            })
            .await?
            .map_err(VariantError::of_render);
        cancel_on_drop.disarm();
        Ok(Bytes::from(decoded?))
    }

    /// The facts and pixel summary of an image from its `source` (`pipeline::summarize`), on a render
    /// thread at background priority.
    pub async fn describe(&self, source: Bytes) -> Result<(ImageFacts, PixelSummary), VariantError> {
        let options = RenderOptions { parallel: false, ..self.options };
        let isolation = self.isolation.clone();
        self.pool
            .run(Priority::Background, move || match &isolation {
                Some(isolation) if parsed_by_libheif(&source) => isolation.summarize(&source, &options),
                _ => summarize(&source, &options),
            })
            .await?
            .map_err(VariantError::of_render)
    }

    /// Keeps a rendered variant in the store and records it, within the file's cap: to make room, the
    /// file's least recently used unpinned variants are evicted; when there are none, a `Keep::Cached`
    /// variant is not stored (it was served, and stays in memory) and a pinned one is stored anyway.
    /// Idempotent: a variant recorded already, or a file deleted meanwhile, leaves no object behind.
    ///
    /// Five statements when it evicts, four when it does not (a round trip to the database each, which
    /// at saturation costs more than the SQL): the room, the intents, the evicted records, the record, the
    /// intents settled.
    pub async fn persist(
        &self,
        key: &VariantKey,
        variant: &Variant,
        now_ms: i64,
        keep: Keep,
    ) -> Result<(), VariantError> {
        let pinned = keep == Keep::Pinned;
        // The freshest recency this process knows goes first, so the cap weighs it.
        self.access.flush(self.metadata.as_ref(), now_ms).await;
        let room = self.metadata.variant_room(&key.file_id, &key.digest, self.bounds.per_file).await?;
        if let Some(was_pinned) = room.this {
            if pinned && !was_pinned {
                self.metadata.pin_variant(&key.file_id, &key.digest).await?;
            }
            return Ok(());
        }
        let over = (room.stored + 1).saturating_sub(self.bounds.per_file);
        if (room.evictable.len() as u64) < over && !pinned {
            self.store_stats.not_stored.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }

        let (file_id, digest) = (&key.file_id, key.digest.clone());
        let key: ObjectKey = key.object_key();
        // Every object to be written or removed noted first, so a crash anywhere after leaves nothing the
        // sweep cannot find: the new one before it is put, the evicted ones before their records go.
        let settled: Vec<&ObjectKey> =
            std::iter::once(&key).chain(room.evictable.iter().map(|r| &r.object_key)).collect();
        self.metadata.begin_objects(&settled, now_ms).await?;
        if !room.evictable.is_empty() {
            let digests: Vec<&VariantDigest> = room.evictable.iter().map(|r| &r.digest).collect();
            let evicted = self.metadata.delete_variants(file_id, &digests).await?;
            self.store_stats.evicted(Eviction::FileCap, evicted);
            for record in &room.evictable {
                self.store.delete(&record.object_key).await?;
            }
        }
        self.store.put(&key, variant.bytes.clone(), &variant.content_type).await?;
        let record = VariantRecord {
            file_id: file_id.clone(),
            digest,
            object_key: key.clone(),
            content_type: variant.content_type.clone(),
            size: variant.bytes.len() as u64,
            pinned,
            last_access_ms: now_ms,
        };
        if !self.metadata.put_variant(&record, now_ms).await? {
            // Already recorded (same key, same bytes: keep it) or the file is gone (remove it).
            if self.metadata.file_by_id(file_id).await?.is_none() {
                self.store.delete(&key).await?;
            }
        }
        self.metadata.end_objects(&settled).await?;
        Ok(())
    }

    /// Removes a stored variant: its record, then its object. Noted as an intent first, so a crash or a
    /// store that refuses the delete leaves the object to the sweep, never an object without a record.
    pub async fn evict(&self, record: &VariantRecord, reason: Eviction, now_ms: i64) -> Result<(), VariantError> {
        let key = &record.object_key;
        self.metadata.begin_objects(&[key], now_ms).await?;
        let evicted = self.metadata.delete_variants(&record.file_id, &[&record.digest]).await?;
        self.store_stats.evicted(reason, evicted);
        self.store.delete(&record.object_key).await?;
        self.metadata.end_objects(&[key]).await?;
        Ok(())
    }
}
