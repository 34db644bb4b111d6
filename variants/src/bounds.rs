//! Stored variants are a cache, not data: at most `StoreBounds::per_file` per file and
//! `StoreBounds::total_bytes` in all, the least recently asked for evicted first, variants rendered ahead of
//! requests (jobs) and presets only after every other one (`Keep::Pinned`).
//!
//! The per-file cap is applied when a variant is kept (`Renderer::persist`); the byte budget by
//! `Variants::trim`, which the sweep runs where jobs run. Last access is coalesced in memory (`AccessLog`)
//! and written in one statement a minute, never a write per request; a variant answered from memory is
//! noted, so a hot variant is not evicted from the store because the store is never read.

use std::{
    collections::HashSet,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use shutterbox_metadata::MetadataStore;
use shutterbox_model::{FileId, VariantDigest};

use crate::spec::VariantKey;

/// How many stored variants to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreBounds {
    /// Stored variants per file (`SHUTTERBOX_VARIANTS_PER_FILE`); pinned ones may exceed it.
    pub per_file: u64,
    /// Bytes of stored variants in all (`SHUTTERBOX_VARIANT_STORE_BYTES`).
    pub total_bytes: u64,
}

impl StoreBounds {
    pub const DEFAULT_PER_FILE: u64 = 64;
    /// 10 GiB: room for ~100,000 typical web variants, a small part of a single machine's disk.
    pub const DEFAULT_TOTAL_BYTES: u64 = 10 * 1024 * 1024 * 1024;
}

impl Default for StoreBounds {
    fn default() -> Self {
        Self { per_file: Self::DEFAULT_PER_FILE, total_bytes: Self::DEFAULT_TOTAL_BYTES }
    }
}

/// How a variant is kept: asked for ad hoc, or named ahead of requests and kept in preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// A request's variant: evicted first.
    Cached,
    /// A job's (thumbnail, transform-url, warming) or a preset's.
    Pinned,
}

/// Why a stored variant was removed (`shutterbox_variant_evictions_total{reason}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// Its file had as many stored variants as the per-file cap allows, and it was the least recent.
    FileCap,
    /// The store held more bytes than the budget, and it was among the least recent.
    Budget,
    /// Its object was not the size its record says (`Renderer::stored`).
    Damaged,
}

/// What the bounds did, for `/metrics`.
#[derive(Debug, Default)]
pub struct StoreStats {
    pub evicted_for_file_cap: AtomicU64,
    pub evicted_for_budget: AtomicU64,
    pub evicted_damaged: AtomicU64,
    /// Rendered and served, but not stored: the file's cap was full of pinned variants.
    pub not_stored: AtomicU64,
    /// Rendered and served, but not stored: the variants already waiting to be stored were over
    /// `StoreBacklog`'s bytes (the store falls behind the renders).
    pub not_stored_backlog: AtomicU64,
    /// Stored variants and their bytes when last counted (by `Variants::trim`).
    pub stored: AtomicU64,
    pub stored_bytes: AtomicU64,
}

impl StoreStats {
    pub(crate) fn evicted(&self, reason: Eviction, count: u64) {
        let counter = match reason {
            Eviction::FileCap => &self.evicted_for_file_cap,
            Eviction::Budget => &self.evicted_for_budget,
            Eviction::Damaged => &self.evicted_damaged,
        };
        counter.fetch_add(count, Ordering::Relaxed);
    }
}

/// Variants asked for since the last flush.
#[derive(Debug, Default)]
pub(crate) struct AccessLog {
    touched: Mutex<HashSet<VariantKey>>,
}

impl AccessLog {
    pub(crate) fn note(&self, key: &VariantKey) {
        let mut touched = self.touched.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !touched.contains(key) {
            touched.insert(key.clone());
        }
    }

    /// Writes every noted access as `now_ms`, in one statement per 500.
    pub(crate) async fn flush(&self, metadata: &dyn MetadataStore, now_ms: i64) {
        let keys: Vec<(FileId, VariantDigest)> = {
            let mut touched = self.touched.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            touched.drain().map(|key| (key.file_id, key.digest)).collect()
        };
        if keys.is_empty() {
            return;
        }
        if let Err(e) = metadata.touch_variants(&keys, now_ms).await {
            // Recency is advice: a lost batch only makes those variants look older.
            tracing::warn!(error = %e, variants = keys.len(), "could not note when variants were last used");
        }
    }
}
