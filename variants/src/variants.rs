//! `Variants`, the one way to a variant: `get` for a request (memory, else the store, else rendered now and
//! kept in the background) and `ensure` for a job (rendered and kept unless it is kept already). Both claim
//! the variant through the `RenderFlight` before rendering, so a request and a job for the same variant,
//! here or on another node, render it once. The memory cache is a byte-bounded LRU keyed by `VariantKey`;
//! concurrent requests for one key share one load (`try_get_with`). Requests render after a turn from
//! `RenderAdmission`; jobs are bounded by the worker count instead, and render after any request.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use bytes::Bytes;
use moka::future::Cache;
use shutterbox_metadata::{FileRecord, MetadataStore};
use shutterbox_model::{FileId, ImageFacts, PixelSummary, VideoFacts, clock::now_ms};
use shutterbox_pipeline::{PipelineError, RenderOptions, reads_working_copy};
use shutterbox_storage::ObjectStore;

use crate::{
    admission::{RenderAdmission, RenderBudget},
    bounds::{Eviction, Keep, StoreBounds, StoreStats},
    error::VariantError,
    flight::{Claim, Held, LocalFlight, RenderFlight},
    render_pool::{Priority, RenderPool},
    renderer::{RenderTimes, Renderer, Variant},
    sources::{RenderSource, RenderSources},
    spec::{VariantKey, VariantSpec},
    video::{FrameAt, VideoDecode},
};

/// How often the last-use times noted in memory are written down.
const ACCESS_FLUSH: Duration = Duration::from_secs(60);
/// Variants `trim` weighs per round.
const TRIM_BATCH: u64 = 256;

/// Times a request whose shared load was refused by another caller's budget loads again before it gives
/// up as overloaded.
const SHARED_REFUSAL_RETRIES: usize = 4;

/// Longest wait for someone else's render of a variant before rendering it here.
const CLAIM_WAIT: Duration = Duration::from_secs(30);

/// Refused renders remembered (`Variants::refused`), and for how long: a damaged 48 MB PNG costs a
/// third of a second to find damaged again, and every request of its URL or its thumbnail would.
const REFUSALS_KEPT: u64 = 10_000;
const REFUSAL_TTL: Duration = Duration::from_secs(600);

/// Bytes of requests' variants that may wait to be stored at once (`StoreBacklog`).
pub const DEFAULT_STORE_BACKLOG_BYTES: u64 = 64 << 20;

/// What the description job found of a file (`Variants::describe`).
#[derive(Debug, Clone)]
pub struct Description {
    /// An image's facts.
    pub facts: Option<ImageFacts>,
    /// A video's facts, where they were read now (none when the file had them already).
    pub video: Option<VideoFacts>,
    /// The picture's summary: an image's, a video's poster's; none for sound alone.
    pub summary: Option<PixelSummary>,
}

/// The container of a video file, by its row; none for any other file.
fn video_container(file: &FileRecord) -> Option<shutterbox_model::VideoContainer> {
    file.raw_type.format().and_then(|format| format.info().video)
}

/// Why `t` is refused: past the end.
pub fn beyond_duration(ms: u32, duration_ms: u64) -> String {
    format!(
        "the frame asked for, at {} s, is beyond the video's end: it is {}.{:03} s long",
        f64::from(ms) / 1000.0,
        duration_ms / 1000,
        duration_ms % 1000
    )
}

/// Counters exported on `/metrics`.
#[derive(Debug, Default)]
pub struct VariantStats {
    /// Renders made by this process for requests (jobs count theirs in `JobStats`).
    pub renders: AtomicU64,
    /// Variants read back from the object store on a memory miss.
    pub stored_hits: AtomicU64,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    /// Variants a request rendered and served that are still being stored in the background (a gauge).
    pub storing: AtomicU64,
}

/// The variants of every file: cached, stored, rendered once.
#[derive(Clone)]
pub struct Variants {
    cache: Cache<VariantKey, Arc<Variant>>,
    /// Variants whose render the source or the parameters refused (a negative cache keyed like the
    /// variants): asked again, they are refused at once, without reading the source.
    refused: moka::sync::Cache<VariantKey, Arc<VariantError>>,
    renderer: Renderer,
    flight: Arc<dyn RenderFlight>,
    admission: RenderAdmission,
    backlog: StoreBacklog,
    stats: Arc<VariantStats>,
}

/// The bytes of rendered variants a request has served and left to be stored in the background, bounded:
/// a request answers before its variant is stored, so when the store falls behind the renders (a slow
/// disk or bucket, a burst of new variants), what waits would otherwise grow without bound, in memory.
/// Over the bound a variant is served and kept in the memory cache but not stored (counted in
/// `StoreStats::not_stored_backlog`); stored variants are a cache, so nothing is lost.
#[derive(Clone)]
struct StoreBacklog(Arc<tokio::sync::Semaphore>);

impl StoreBacklog {
    fn new(max_bytes: u64) -> Self {
        let kib =
            usize::try_from(max_bytes.div_ceil(1024)).unwrap_or(usize::MAX).min(tokio::sync::Semaphore::MAX_PERMITS);
        Self(Arc::new(tokio::sync::Semaphore::new(kib)))
    }

    /// Room for `bytes` more, held until the returned permit drops; `None` when there is none.
    fn reserve(&self, bytes: usize) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let kib = u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX);
        self.0.clone().try_acquire_many_owned(kib).ok()
    }
}

/// Whether the caller renders, holding the claim when it got one, or someone else rendered meanwhile.
enum Turn {
    Render(Option<Held>),
    Waited,
}

impl Variants {
    /// Renders on `pool`'s threads with `options`; no memory cache, claims within this process only, and
    /// one render at a time for requests until the `with_*` methods say otherwise.
    pub fn new(
        metadata: Arc<dyn MetadataStore>,
        store: Arc<dyn ObjectStore>,
        options: RenderOptions,
        pool: RenderPool,
    ) -> Self {
        Self {
            cache: memory(0),
            refused: moka::sync::Cache::builder().max_capacity(REFUSALS_KEPT).time_to_live(REFUSAL_TTL).build(),
            renderer: Renderer::new(metadata, store, options, pool),
            flight: Arc::new(LocalFlight::default()),
            admission: RenderAdmission::new(1, 0),
            backlog: StoreBacklog::new(DEFAULT_STORE_BACKLOG_BYTES),
            stats: Arc::default(),
        }
    }

    /// How many bytes of requests' variants may wait to be stored at once (default
    /// `DEFAULT_STORE_BACKLOG_BYTES`); beyond it a variant is served and cached in memory, not stored.
    pub fn with_store_backlog(mut self, max_bytes: u64) -> Self {
        self.backlog = StoreBacklog::new(max_bytes);
        self
    }

    /// Keeps up to `max_bytes` of variants in memory.
    pub fn with_memory(mut self, max_bytes: u64) -> Self {
        self.cache = memory(max_bytes);
        self
    }

    /// Keeps up to `max_bytes` of what renders read (originals, working copies) in memory (none by
    /// default).
    pub fn with_original_memory(mut self, max_bytes: u64) -> Self {
        self.renderer.sources = RenderSources::new(max_bytes);
        self
    }

    /// Decodes the sources libheif parses (HEIC, some AVIFs) in child processes of `isolation` instead of in
    /// this one (`isolation`): the service's binary sets it; a library user, or a test serving in its own
    /// process, may leave it unset.
    pub fn with_isolation(mut self, isolation: crate::isolation::Isolation) -> Self {
        self.renderer.isolation = Some(isolation);
        self
    }

    /// Decodes videos' frames with `decoder` (FFmpeg); without one, a video has no frames here.
    pub fn with_video(mut self, decoder: crate::video::VideoDecoder) -> Self {
        self.renderer.video = Some(decoder);
        self
    }

    /// Whether this node decodes videos' frames.
    pub fn decodes_video(&self) -> bool {
        self.renderer.video.is_some()
    }

    /// The facts of a whole file (`pipeline::read_facts`), read where its decoders run: a source libheif
    /// parses in a child process when isolation is set. Blocking: for a blocking thread.
    pub fn whole_facts(&self, bytes: &[u8]) -> Result<Option<ImageFacts>, shutterbox_pipeline::PipelineError> {
        match &self.renderer.isolation {
            Some(isolation) if shutterbox_pipeline::parsed_by_libheif(bytes) => {
                isolation.facts(bytes, self.renderer.options())
            }
            _ => shutterbox_pipeline::read_facts(bytes, true),
        }
    }

    /// Claims renders through `flight` (Redis leases in distributed mode) instead of this process alone.
    pub fn with_flight(mut self, flight: Arc<dyn RenderFlight>) -> Self {
        self.flight = flight;
        self
    }

    /// How many renders requests may run and queue (`SHUTTERBOX_RENDER_CONCURRENCY`, `…_QUEUE`).
    pub fn with_admission(mut self, admission: RenderAdmission) -> Self {
        self.admission = admission;
        self
    }

    pub fn stats(&self) -> &VariantStats {
        &self.stats
    }

    /// Renders running or waiting, and renders turned away (for `/metrics`).
    pub fn admission(&self) -> &RenderAdmission {
        &self.admission
    }

    /// Render times of every render, requests' and jobs' alike.
    pub fn times(&self) -> &RenderTimes {
        self.renderer.times()
    }

    /// The variant `spec` of `file` for a request: from memory, else the store, else rendered now (the
    /// response does not wait for it to be stored, as `keep` says) once `budget` allows it. `Throttled`
    /// when the budget is spent, `Overloaded` when no render turn is free.
    pub async fn get(
        &self,
        file: &FileRecord,
        spec: &VariantSpec,
        keep: Keep,
        budget: &dyn RenderBudget,
    ) -> Result<Arc<Variant>, Arc<VariantError>> {
        let key = spec.key(&file.id);
        if let Some(hit) = self.cache.get(&key).await {
            self.stats.hits.fetch_add(1, Ordering::Relaxed);
            self.renderer.access.note(&key);
            return Ok(hit);
        }
        self.stats.misses.fetch_add(1, Ordering::Relaxed);
        if let Some(refused) = self.refused.get(&key) {
            return Err(refused);
        }
        // Concurrent requests for one key share the first one's load, and so its refusal: a request whose
        // own budget was never asked tries again rather than answer for someone else's.
        for _ in 0..SHARED_REFUSAL_RETRIES {
            let asked = AtomicBool::new(false);
            let loaded =
                self.cache.try_get_with(key.clone(), self.load(key.clone(), file, spec, keep, budget, &asked)).await;
            match loaded {
                Err(e) if matches!(*e, VariantError::Throttled { .. }) && !asked.load(Ordering::Relaxed) => continue,
                Err(e) if matches!(*e, VariantError::Rejected(_)) => {
                    self.refused.insert(key, e.clone());
                    return Err(e);
                }
                other => return other,
            }
        }
        Err(Arc::new(VariantError::Overloaded))
    }

    async fn load(
        &self,
        key: VariantKey,
        file: &FileRecord,
        spec: &VariantSpec,
        keep: Keep,
        budget: &dyn RenderBudget,
        asked: &AtomicBool,
    ) -> Result<Arc<Variant>, VariantError> {
        if let Some(stored) = self.stored(&key).await? {
            self.renderer.access.note(&key);
            return Ok(stored);
        }
        asked.store(true, Ordering::Relaxed);
        budget.spend().await.map_err(|t| VariantError::Throttled { retry_after_secs: t.retry_after_secs })?;
        // A turn before the claim, so a refused request holds no claim.
        let _slot = self.admission.admit().await.map_err(|_| VariantError::Overloaded)?;
        let held = match self.turn(&key).await {
            Turn::Render(held) => held,
            Turn::Waited => match self.stored(&key).await? {
                Some(stored) => return Ok(stored),
                None => None,
            },
        };
        self.stats.renders.fetch_add(1, Ordering::Relaxed);
        let rendered = async {
            let source = self.source(file, spec, Priority::Request).await?;
            self.renderer.render(source, spec, Priority::Request).await
        }
        .await;
        let (renderer, stats, mut kept) = (self.renderer.clone(), self.stats.clone(), rendered.as_ref().ok().cloned());
        let room = kept.as_ref().and_then(|variant| self.backlog.reserve(variant.bytes.len()));
        if kept.is_some() && room.is_none() {
            self.renderer.store_stats.not_stored_backlog.fetch_add(1, Ordering::Relaxed);
            kept = None;
        }
        stats.storing.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let _room = room;
            if let Some(kept) = kept
                && let Err(e) = renderer.persist(&key, &kept, now_ms(), keep).await
            {
                // Still served from memory and rendered again when needed; nothing is lost.
                tracing::warn!(error = %e, variant = %key, "could not keep a rendered variant");
            }
            // Ended once the variant is stored (or the render failed), so whoever waits finds it.
            if let Some(held) = held {
                held.release().await;
            }
            stats.storing.fetch_sub(1, Ordering::Relaxed);
        });
        Ok(Arc::new(rendered?))
    }

    /// Renders and keeps the variant `spec` of `file` unless it is kept already (a job). Returns whether
    /// it rendered.
    pub async fn ensure(&self, file: &FileRecord, spec: &VariantSpec) -> Result<bool, VariantError> {
        let key = spec.key(&file.id);
        if let Some(kept) = self.renderer.metadata().variant(&key.file_id, &key.digest).await? {
            // A request's variant that a job names now: kept in preference from here on.
            if !kept.pinned {
                self.renderer.metadata().pin_variant(&key.file_id, &key.digest).await?;
            }
            return Ok(false);
        }
        let held = match self.turn(&key).await {
            Turn::Render(held) => held,
            Turn::Waited if self.recorded(&key).await? => return Ok(false),
            Turn::Waited => None,
        };
        let kept = async {
            let source = self.source(file, spec, Priority::Background).await?;
            let variant = self.renderer.render(source, spec, Priority::Background).await?;
            self.renderer.persist(&key, &variant, now_ms(), Keep::Pinned).await
        }
        .await;
        if let Some(held) = held {
            held.release().await;
        }
        kept.map(|()| true)
    }

    /// What the description job finds of `file`: an image's facts and pixel summary, read from its
    /// original (a working copy has lost its alpha); a video's summary from its poster, and its facts from
    /// its headers when it has none yet (a video uploaded before they were read).
    pub async fn describe(&self, file: &FileRecord) -> Result<Description, VariantError> {
        if let Some(container) = video_container(file) {
            let video = match &file.video {
                Some(_) => None,
                None => Some(self.video_facts(file, container).await?),
            };
            let facts = video.as_ref().or(file.video.as_ref());
            let summary = match facts {
                Some(facts) if facts.size.is_some() => {
                    let poster = self.poster(file, container, facts, Priority::Background).await?;
                    Some(self.renderer.describe(poster).await?.1)
                }
                // Sound alone: nothing to summarize.
                _ => None,
            };
            return Ok(Description { facts: None, video, summary });
        }
        let max = self.renderer.options().max_source_bytes;
        let original = self.renderer.sources.original(self.renderer.store.as_ref(), file, max).await?;
        let (facts, summary) = self.renderer.describe(original).await?;
        Ok(Description { facts: Some(facts), video: None, summary: Some(summary) })
    }

    /// A stored video's facts, from its headers.
    async fn video_facts(
        &self,
        file: &FileRecord,
        container: shutterbox_model::VideoContainer,
    ) -> Result<VideoFacts, VariantError> {
        let store = self.renderer.store.clone();
        let head = shutterbox_storage::read_head(store.as_ref(), &file.object_key, 256 << 10)
            .await?
            .ok_or_else(|| VariantError::OriginalMissing(file.id.clone()))?;
        crate::video::read_video_facts_stored(store, file.object_key.clone(), file.size, head, container)
            .await
            .map_err(|e| VariantError::Rejected(PipelineError::Refused(e.to_string())))
    }

    /// What renders of a video read: the frame at `t` for a spec that names one; else its poster, rendered
    /// once as the file's working copy (a full-size `q=95` JPEG, stored and recorded as variants are), so
    /// every size of it reads one JPEG instead of decoding the video again.
    async fn video_source(
        &self,
        file: &FileRecord,
        container: shutterbox_model::VideoContainer,
        spec: &VariantSpec,
        priority: Priority,
    ) -> Result<Bytes, VariantError> {
        let facts = file.video.as_ref().ok_or_else(|| {
            VariantError::Rejected(PipelineError::Refused(
                "the video's headers could not be read, so no frame of it is decoded".into(),
            ))
        })?;
        let transform = spec.transform();
        if let Some(for_ms) = transform.preview_ms {
            let preview = crate::video::Preview {
                from_ms: transform.frame_at_ms.unwrap_or(0),
                for_ms,
                side: transform.width.max(transform.height),
                crops: transform.crop.is_some(),
            };
            return self.renderer.video(file, container, facts, VideoDecode::Preview(preview), priority).await;
        }
        if let Some(ms) = transform.frame_at_ms {
            if let Some(duration) = facts.duration_ms
                && u64::from(ms) > duration
            {
                return Err(VariantError::Rejected(PipelineError::Refused(beyond_duration(ms, duration))));
            }
            return self
                .renderer
                .video(file, container, facts, VideoDecode::Frame(FrameAt::Millis(ms)), priority)
                .await;
        }
        if spec.is_working_copy() {
            return self.renderer.video(file, container, facts, VideoDecode::Frame(FrameAt::Poster), priority).await;
        }
        self.poster(file, container, facts, priority).await
    }

    /// A video's poster: its working copy, from memory, the store, or made now from the chosen frame.
    async fn poster(
        &self,
        file: &FileRecord,
        container: shutterbox_model::VideoContainer,
        facts: &VideoFacts,
        priority: Priority,
    ) -> Result<Bytes, VariantError> {
        let sources = &self.renderer.sources;
        let copy_key = VariantSpec::working_copy().key(&file.id);
        if let Some(RenderSource::WorkingCopy(copy)) = sources.kept(&file.id).await {
            self.renderer.access.note(&copy_key);
            return Ok(copy);
        }
        if let Some(copy) = self.renderer.stored(&copy_key).await? {
            self.renderer.access.note(&copy_key);
            sources.keep(&file.id, RenderSource::WorkingCopy(copy.bytes.clone())).await;
            return Ok(copy.bytes);
        }
        let frame = self.renderer.video(file, container, facts, VideoDecode::Frame(FrameAt::Poster), priority);
        let copy = self.make_working_copy(&copy_key, frame, priority).await?;
        sources.keep(&file.id, RenderSource::WorkingCopy(copy.clone())).await;
        Ok(copy)
    }

    /// What a render of `spec` reads of `file`: its working copy where its format has one and the original
    /// allows it (docs/formats.md, "Working copies"), made and kept first if need be; else the original.
    /// The working copy itself is always rendered from the original. A copy that cannot be made (a store
    /// that refuses it) leaves the render to the original, and the next render tries again.
    async fn source(&self, file: &FileRecord, spec: &VariantSpec, priority: Priority) -> Result<Bytes, VariantError> {
        if let Some(container) = video_container(file) {
            return self.video_source(file, container, spec, priority).await;
        }
        let (sources, store) = (&self.renderer.sources, self.renderer.store.as_ref());
        let max = self.renderer.options().max_source_bytes;
        if spec.is_working_copy() {
            return sources.original(store, file, max).await;
        }
        let has_copy = file.raw_type.format().is_some_and(|format| format.info().working_copy);
        let copy_key = VariantSpec::working_copy().key(&file.id);
        // An original kept in memory does not stand for a file that may have a working copy by now (made
        // by a job on another node); one that reads no copy does.
        match sources.kept(&file.id).await {
            Some(RenderSource::WorkingCopy(copy)) => {
                // Read as a variant is, from memory too: its recency counts when the store's budget evicts.
                self.renderer.access.note(&copy_key);
                return Ok(copy);
            }
            Some(RenderSource::OriginalAlone(original)) => return Ok(original),
            Some(RenderSource::Original(original)) if !has_copy => return Ok(original),
            _ => {}
        }
        if has_copy && let Some(copy) = self.renderer.stored(&copy_key).await? {
            // Read as a variant is: its recency counts when the variant store's budget evicts.
            self.renderer.access.note(&copy_key);
            sources.keep(&file.id, RenderSource::WorkingCopy(copy.bytes.clone())).await;
            return Ok(copy.bytes);
        }
        let original = sources.original(store, file, max).await?;
        if !has_copy || !reads_working_copy(&original, self.renderer.options()) {
            // Remembered, so later renders neither look for a copy nor read the headers again.
            sources.keep(&file.id, RenderSource::OriginalAlone(original.clone())).await;
            return Ok(original);
        }
        match self.make_working_copy(&copy_key, async { Ok(original.clone()) }, priority).await {
            Ok(copy) => {
                sources.keep(&file.id, RenderSource::WorkingCopy(copy.clone())).await;
                Ok(copy)
            }
            // The original says what is wrong with it; rendering it again would only say it twice (and a
            // render that could not finish in time would not finish from the original either).
            Err(e @ (VariantError::Rejected(_) | VariantError::Unfinished(_))) => Err(e),
            Err(e) => {
                tracing::warn!(error = %e, file = %file.id, "no working copy; rendering from the original");
                Ok(original)
            }
        }
    }

    /// Renders the working copy `key` names from what `source` reads (the file's original, or a video's
    /// poster frame, read only by whoever renders) and keeps it (pinned), once across nodes: whoever waited
    /// for another's render reads the stored copy. A copy the store refuses is still this render's source
    /// (the next render makes it again).
    async fn make_working_copy(
        &self,
        key: &VariantKey,
        source: impl std::future::Future<Output = Result<Bytes, VariantError>>,
        priority: Priority,
    ) -> Result<Bytes, VariantError> {
        let held = match self.turn(key).await {
            Turn::Render(held) => held,
            Turn::Waited => match self.renderer.stored(key).await? {
                Some(copy) => return Ok(copy.bytes),
                None => None,
            },
        };
        let made = match source.await {
            Ok(source) => self.renderer.render(source, &VariantSpec::working_copy(), priority).await,
            Err(e) => Err(e),
        };
        if let Ok(copy) = &made
            && let Err(e) = self.renderer.persist(key, copy, now_ms(), Keep::Pinned).await
        {
            tracing::warn!(error = %e, variant = %key, "could not keep a working copy");
        }
        if let Some(held) = held {
            held.release().await;
        }
        made.map(|copy| copy.bytes)
    }

    /// Keeps stored variants within `bounds`, and writes down when variants were last used once a minute
    /// (in a task of its own; call within the runtime).
    pub fn with_store_bounds(mut self, bounds: StoreBounds) -> Self {
        self.renderer.bounds = bounds;
        let (access, metadata) = (self.renderer.access.clone(), self.renderer.metadata.clone());
        tokio::spawn(async move {
            let mut every = tokio::time::interval(ACCESS_FLUSH);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                access.flush(metadata.as_ref(), now_ms()).await;
            }
        });
        self
    }

    /// Stored variants and evictions, for `/metrics`.
    pub fn store_stats(&self) -> &StoreStats {
        &self.renderer.store_stats
    }

    /// Evicts the least recently used stored variants (unpinned first) until their bytes are within the
    /// budget; counts what is stored. The sweep runs it where jobs run. Returns how many it evicted.
    pub async fn trim(&self) -> Result<u64, VariantError> {
        let now = now_ms();
        self.renderer.access.flush(self.renderer.metadata(), now).await;
        let budget = self.renderer.bounds.total_bytes;
        let mut evicted = 0;
        loop {
            let (count, bytes) = self.renderer.metadata().variant_totals().await?;
            let stats = &self.renderer.store_stats;
            stats.stored.store(count, Ordering::Relaxed);
            stats.stored_bytes.store(bytes, Ordering::Relaxed);
            if bytes <= budget {
                return Ok(evicted);
            }
            let mut excess = bytes - budget;
            let candidates = self.renderer.metadata().least_recent_variants(TRIM_BATCH).await?;
            if candidates.is_empty() {
                return Ok(evicted);
            }
            for record in candidates {
                if excess == 0 {
                    break;
                }
                self.renderer.evict(&record, Eviction::Budget, now).await?;
                excess = excess.saturating_sub(record.size);
                evicted += 1;
            }
        }
    }

    /// Forgets every variant of a file held in memory, and its source (on delete).
    pub fn forget(&self, file_id: &FileId) {
        self.renderer.sources.forget(file_id);
        let file_id = file_id.clone();
        if let Err(e) = self.cache.invalidate_entries_if(move |key, _| key.file_id == file_id) {
            tracing::warn!(error = %e, "could not drop a deleted file's cached variants");
        }
    }

    /// Claims the variant, or waits for whoever holds its claim.
    async fn turn(&self, key: &VariantKey) -> Turn {
        match self.flight.claim(key).await {
            Ok(Claim::Mine(held)) => Turn::Render(Some(held)),
            Ok(Claim::Elsewhere) => {
                self.flight.wait(key, CLAIM_WAIT).await;
                Turn::Waited
            }
            Err(e) => {
                tracing::warn!(error = %e, variant = %key, "rendering without a claim");
                Turn::Render(None)
            }
        }
    }

    async fn stored(&self, key: &VariantKey) -> Result<Option<Arc<Variant>>, VariantError> {
        let stored = self.renderer.stored(key).await?;
        if stored.is_some() {
            self.stats.stored_hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok(stored.map(Arc::new))
    }

    async fn recorded(&self, key: &VariantKey) -> Result<bool, VariantError> {
        Ok(self.renderer.metadata().variant(&key.file_id, &key.digest).await?.is_some())
    }
}

fn memory(max_bytes: u64) -> Cache<VariantKey, Arc<Variant>> {
    Cache::builder()
        .max_capacity(max_bytes)
        .weigher(|_key: &VariantKey, variant: &Arc<Variant>| u32::try_from(variant.bytes.len()).unwrap_or(u32::MAX))
        .support_invalidation_closures()
        .build()
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use shutterbox_metadata::{ConfirmOutcome, NewFile, PendingUpload, SqlMetadata, VariantRecord};
    use shutterbox_model::{AccountName, FileKind, MediaType, ObjectKey, PendingId, VariantDigest};
    use shutterbox_pipeline::{OutputFormat, Target, Transform, samples};
    use shutterbox_storage::LocalStore;

    use super::*;

    async fn setup(dir: &tempfile::TempDir) -> (Variants, FileRecord) {
        let metadata = Arc::new(SqlMetadata::open_sqlite(&dir.path().join("meta.db")).await.unwrap());
        let store = Arc::new(LocalStore::open(dir.path(), "http://x/storage".into()).await.unwrap());
        let jpeg = samples::sample(samples::SampleKind::Jpeg420, 640, 480, 1).unwrap();
        let file = file_record(metadata.as_ref(), store.as_ref(), jpeg).await;
        let variants = Variants::new(metadata, store, RenderOptions::default(), RenderPool::new(2).unwrap())
            .with_memory(1 << 20)
            .with_admission(RenderAdmission::new(2, 8));
        (variants, file)
    }

    /// A confirmed file of account `default` holding `bytes`, the way confirm makes one.
    async fn file_record(metadata: &dyn MetadataStore, store: &dyn ObjectStore, bytes: Vec<u8>) -> FileRecord {
        let account = AccountName::parse("default").unwrap();
        let owner = metadata.ensure_account(&account, 0).await.unwrap();
        let id = FileId::new("0190a0a0-0000-7000-8000-000000000001");
        let object_key = ObjectKey::original(&id);
        store.put(&object_key, Bytes::from(bytes.clone()), "image/jpeg").await.unwrap();
        let pending = PendingUpload {
            id: PendingId::new("0190a0a0-0000-7000-8000-000000000002"),
            account_id: owner.id.clone(),
            object_key: ObjectKey::pending(&PendingId::new("0190a0a0-0000-7000-8000-000000000002")),
            name: "photo.jpg".into(),
            folder: None,
            declared_type: "image/jpeg".into(),
            size: bytes.len() as u64,
            expires_at_ms: i64::MAX,
            created_at_ms: 0,
            file_id: None,
            resumable: None,
        };
        metadata.create_pending(&pending).await.unwrap();
        let new = NewFile {
            id,
            account_id: owner.id,
            path: pending.stored_path(&account).unwrap(),
            object_key,
            raw_type: MediaType::new("image/jpeg"),
            kind: FileKind::Image,
            size: bytes.len() as u64,
            now_ms: 0,
            facts: None,
            video: None,
        };
        match metadata.confirm_pending(&pending.id, new).await.unwrap() {
            ConfirmOutcome::Created(file) => *file,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_request_and_a_job_for_one_variant_render_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let spec = VariantSpec::new(Transform::from_query("w=100").unwrap(), Target::Format(OutputFormat::Webp));
        for _ in 0..4 {
            let (got, ensured) = tokio::join!(
                variants.get(&file, &spec, Keep::Cached, &crate::Unlimited),
                variants.ensure(&file, &spec)
            );
            got.unwrap();
            ensured.unwrap();
        }
        assert_eq!(variants.times().count("webp", "ok"), 1);
        variants.forget(&file.id);
        let again = variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await.unwrap();
        assert_eq!(again.content_type, "image/webp");
        assert_eq!(variants.times().count("webp", "ok"), 1, "read back from the store, not rendered");
    }

    /// Renders of one original read it from the store once while it is kept in memory; a deleted file's
    /// is forgotten; an original over an eighth of the bound is read for every render.
    #[tokio::test]
    async fn renders_of_one_original_read_it_once() {
        let png = |q: &str| VariantSpec::new(Transform::from_query(q).unwrap(), Target::Format(OutputFormat::Png));
        for (memory_per_byte, kept) in [(8, true), (7, false)] {
            let dir = tempfile::tempdir().unwrap();
            let (variants, file) = setup(&dir).await;
            let store = variants.renderer.store.clone();
            let variants = variants.with_original_memory(memory_per_byte * file.size);
            variants.get(&file, &png("w=50"), Keep::Cached, &crate::Unlimited).await.unwrap();
            store.delete(&file.object_key).await.unwrap();
            let second = variants.get(&file, &png("w=51"), Keep::Cached, &crate::Unlimited).await;
            if !kept {
                assert!(matches!(*second.unwrap_err(), VariantError::OriginalMissing(_)), "read again");
                continue;
            }
            second.unwrap();
            assert_eq!(variants.times().count("png", "ok"), 2, "rendered from the original kept in memory");
            variants.forget(&file.id);
            let third = variants.get(&file, &png("w=52"), Keep::Cached, &crate::Unlimited).await;
            assert!(matches!(*third.unwrap_err(), VariantError::OriginalMissing(_)), "forgotten");
        }
    }

    #[tokio::test]
    async fn over_the_store_backlog_a_variant_is_served_from_memory_and_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let variants = variants.with_store_backlog(0);
        let spec = VariantSpec::new(Transform::from_query("w=60").unwrap(), Target::Format(OutputFormat::Png));
        let served = variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await.unwrap();
        assert_eq!(served.content_type, "image/png");
        assert_eq!(variants.store_stats().not_stored_backlog.load(Ordering::Relaxed), 1);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let key = spec.key(&file.id);
        assert!(!variants.recorded(&key).await.unwrap(), "not stored");
        variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await.unwrap();
        assert_eq!(variants.times().count("png", "ok"), 1, "the second request is a memory hit");
        // A job stores what it renders whatever the backlog: it waits for its own store write.
        variants.forget(&file.id);
        assert!(variants.ensure(&file, &spec).await.unwrap());
        assert!(variants.recorded(&key).await.unwrap());

        // Within the bound, a request's variant is stored.
        let roomy = variants.with_store_backlog(DEFAULT_STORE_BACKLOG_BYTES);
        let other = VariantSpec::new(Transform::from_query("w=61").unwrap(), Target::Format(OutputFormat::Png));
        roomy.get(&file, &other, Keep::Cached, &crate::Unlimited).await.unwrap();
        let other_key = other.key(&file.id);
        for _ in 0..50 {
            if roomy.recorded(&other_key).await.unwrap() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(roomy.recorded(&other_key).await.unwrap(), "stored in the background");
        assert_eq!(roomy.store_stats().not_stored_backlog.load(Ordering::Relaxed), 1);
    }

    /// Polls until the variant is recorded (a request's variant is kept in the background).
    async fn until_recorded(variants: &Variants, key: &VariantKey) -> VariantRecord {
        for _ in 0..100 {
            if let Some(record) = variants.renderer.metadata().variant(&key.file_id, &key.digest).await.unwrap() {
                return record;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{key} was never recorded");
    }

    /// A stored variant cut short (as a power loss can leave an unflushed one) is not served: it is
    /// evicted, rendered again and kept whole.
    #[tokio::test]
    async fn a_stored_variant_shorter_than_its_record_is_rendered_again() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let spec = VariantSpec::new(Transform::from_query("w=80").unwrap(), Target::Format(OutputFormat::Png));
        let whole = variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await.unwrap();
        let key = spec.key(&file.id);
        let record = until_recorded(&variants, &key).await;
        let store = variants.renderer.store.clone();
        store.put(&record.object_key, whole.bytes.slice(..whole.bytes.len() / 2), "image/png").await.unwrap();

        variants.forget(&file.id);
        let again = variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await.unwrap();
        assert_eq!(again.bytes, whole.bytes, "rendered again, not served short");
        assert_eq!(variants.times().count("png", "ok"), 2);
        assert_eq!(variants.store_stats().evicted_damaged.load(Ordering::Relaxed), 1);
        let rekept = until_recorded(&variants, &key).await;
        assert_eq!(rekept.size, whole.bytes.len() as u64);
        assert_eq!(store.get(&rekept.object_key).await.unwrap().unwrap(), whole.bytes, "kept whole again");
    }

    /// Refuses every render (after `delay`), counting how often it was asked.
    #[derive(Default)]
    struct Spent(AtomicU64, Duration);

    #[async_trait::async_trait]
    impl RenderBudget for Spent {
        async fn spend(&self) -> Result<(), crate::Throttled> {
            self.0.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(self.1).await;
            Err(crate::Throttled { retry_after_secs: 7 })
        }
    }

    #[tokio::test]
    async fn a_request_joining_a_refused_load_renders_on_its_own_budget() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let spent = Spent(AtomicU64::new(0), Duration::from_millis(300));
        let spec = VariantSpec::new(Transform::from_query("w=70").unwrap(), Target::Format(OutputFormat::Png));
        let (refused, served) = tokio::join!(variants.get(&file, &spec, Keep::Cached, &spent), async {
            // Joins the first request's load while its budget is being asked.
            tokio::time::sleep(Duration::from_millis(50)).await;
            variants.get(&file, &spec, Keep::Cached, &crate::Unlimited).await
        });
        assert!(matches!(*refused.unwrap_err(), VariantError::Throttled { .. }));
        assert_eq!(served.unwrap().content_type, "image/png");
        assert_eq!(variants.times().count("png", "ok"), 1);
    }

    #[tokio::test]
    async fn a_spent_budget_refuses_renders_but_never_hits() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let spent = Spent::default();
        let cold = VariantSpec::new(Transform::from_query("w=90").unwrap(), Target::Format(OutputFormat::Png));
        let refused = variants.get(&file, &cold, Keep::Cached, &spent).await.unwrap_err();
        assert!(matches!(*refused, VariantError::Throttled { retry_after_secs: 7 }), "{refused}");
        assert_eq!((spent.0.load(Ordering::Relaxed), variants.times().count("png", "ok")), (1, 0));

        // Stored (by a job) and then in memory: neither asks the budget.
        assert!(variants.ensure(&file, &cold).await.unwrap());
        variants.get(&file, &cold, Keep::Cached, &spent).await.unwrap();
        variants.get(&file, &cold, Keep::Cached, &spent).await.unwrap();
        assert_eq!(spent.0.load(Ordering::Relaxed), 1);
    }

    /// Which of the digests "a" to "d" the file has stored, checked against its stored count so that no
    /// other variant hides among them.
    async fn stored_digests(metadata: &dyn MetadataStore, file_id: &FileId) -> Vec<&'static str> {
        let mut stored = Vec::new();
        for digest in ["a", "b", "c", "d"] {
            if metadata.variant(file_id, &VariantDigest::new(digest)).await.unwrap().is_some() {
                stored.push(digest);
            }
        }
        let room = metadata.variant_room(file_id, &VariantDigest::new("a"), u64::MAX).await.unwrap();
        assert_eq!(room.stored, stored.len() as u64);
        stored
    }

    #[tokio::test]
    async fn trimming_evicts_ad_hoc_variants_before_pinned_ones_least_recent_first() {
        let dir = tempfile::tempdir().unwrap();
        let (variants, file) = setup(&dir).await;
        let variants = variants.with_store_bounds(StoreBounds { per_file: 64, total_bytes: 250 });
        let (metadata, store) = (variants.renderer.metadata.clone(), variants.renderer.store.clone());
        // (digest, pinned, last used): 100 bytes each, 400 in all against a budget of 250.
        for (digest, pinned, used) in [("a", true, 1), ("b", false, 3), ("c", false, 2), ("d", true, 4)] {
            let object_key = ObjectKey::variant(&file.id, &VariantDigest::new(digest));
            store.put(&object_key, Bytes::from(vec![0; 100]), "image/png").await.unwrap();
            let record = VariantRecord {
                file_id: file.id.clone(),
                digest: VariantDigest::new(digest),
                object_key,
                content_type: "image/png".into(),
                size: 100,
                pinned,
                last_access_ms: used,
            };
            assert!(metadata.put_variant(&record, used).await.unwrap());
        }
        assert_eq!(variants.trim().await.unwrap(), 2);
        assert_eq!(stored_digests(metadata.as_ref(), &file.id).await, ["a", "d"]);
        assert!(
            store.get(&ObjectKey::variant(&file.id, &VariantDigest::new("b"))).await.unwrap().is_none(),
            "the object went too"
        );
        assert_eq!(variants.store_stats().stored_bytes.load(Ordering::Relaxed), 200);
        assert_eq!(variants.store_stats().evicted_for_budget.load(Ordering::Relaxed), 2);

        // Then pinned ones, least recent first, once nothing else is left.
        let tight = variants.with_store_bounds(StoreBounds { per_file: 64, total_bytes: 150 });
        assert_eq!(tight.trim().await.unwrap(), 1);
        assert_eq!(stored_digests(metadata.as_ref(), &file.id).await, ["d"]);
    }
}
