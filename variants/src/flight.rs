//! Single flight: one render per variant at a time, whoever asks (a request or a job, this process or
//! another node). Whoever is about to render claims the variant's key; a claim refused means someone else
//! is rendering it, and the caller waits for that claim to end and then reads the stored variant.
//!
//! Two implementations behind `RenderFlight`: `LocalFlight` (this process; the embedded default) and, in
//! distributed mode, Redis leases shared by every node (the binary's `coordination` module). A claim that
//! ends without a stored variant (a failed render, a dead node) sends the waiters back to rendering it
//! themselves, so a lost claim costs time, never an answer.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use futures_util::future::BoxFuture;

use crate::spec::VariantKey;

/// The outcome of a claim.
pub enum Claim {
    /// The caller renders; the claim ends when the returned value is released (or dropped).
    Mine(Held),
    /// Someone else is rendering the variant.
    Elsewhere,
}

/// A claim the caller holds. `release` ends it once the variant is stored (or its render failed).
pub struct Held(Option<Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>>);

impl Held {
    /// A claim ended by `release` (which must not fail: a claim that cannot be released expires).
    pub fn new(release: impl FnOnce() -> BoxFuture<'static, ()> + Send + 'static) -> Self {
        Self(Some(Box::new(release)))
    }

    pub async fn release(mut self) {
        if let Some(release) = self.0.take() {
            release().await;
        }
    }
}

/// Why a claim could not be asked for (the caller then renders without one).
#[derive(Debug, thiserror::Error)]
#[error("render claims are unavailable: {0}")]
pub struct FlightError(pub String);

#[async_trait]
pub trait RenderFlight: Send + Sync + 'static {
    /// Claims `key` unless someone holds it.
    async fn claim(&self, key: &VariantKey) -> Result<Claim, FlightError>;

    /// Waits until `key` is not claimed any more, or at most `limit`.
    async fn wait(&self, key: &VariantKey, limit: Duration);
}

/// Claims within this process: a lock per variant being rendered.
#[derive(Clone, Default)]
pub struct LocalFlight(Arc<Mutex<HashMap<VariantKey, Arc<tokio::sync::Mutex<()>>>>>);

impl LocalFlight {
    fn locks(&self) -> std::sync::MutexGuard<'_, HashMap<VariantKey, Arc<tokio::sync::Mutex<()>>>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl RenderFlight for LocalFlight {
    async fn claim(&self, key: &VariantKey) -> Result<Claim, FlightError> {
        let mut locks = self.locks();
        if locks.contains_key(key) {
            return Ok(Claim::Elsewhere);
        }
        let lock = Arc::new(tokio::sync::Mutex::new(()));
        let Ok(guard) = lock.clone().try_lock_owned() else { return Ok(Claim::Elsewhere) };
        locks.insert(key.clone(), lock);
        let (flight, key) = (self.clone(), key.clone());
        Ok(Claim::Mine(Held::new(move || {
            Box::pin(async move {
                // Out of the map first, so a claim made after this one ends is a new one; then the waiters,
                // which hold the lock itself, wake.
                flight.locks().remove(&key);
                drop(guard);
            })
        })))
    }

    async fn wait(&self, key: &VariantKey, limit: Duration) {
        let lock = self.locks().get(key).cloned();
        if let Some(lock) = lock {
            let _ = tokio::time::timeout(limit, lock.lock()).await;
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // Dropped without `release` (a cancelled request): end the claim in the background.
        if let Some(release) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(release());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(digest: &str) -> VariantKey {
        VariantKey { file_id: "f".into(), digest: digest.into() }
    }

    #[tokio::test]
    async fn one_claim_at_a_time_and_waiters_wake_when_it_ends() {
        let flight = LocalFlight::default();
        let Claim::Mine(held) = flight.claim(&key("a")).await.unwrap() else { panic!("first claim is mine") };
        assert!(matches!(flight.claim(&key("a")).await.unwrap(), Claim::Elsewhere));
        assert!(matches!(flight.claim(&key("b")).await.unwrap(), Claim::Mine(_)));
        let waiter = {
            let flight = flight.clone();
            tokio::spawn(async move { flight.wait(&key("a"), Duration::from_secs(30)).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        held.release().await;
        tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap();
        assert!(matches!(flight.claim(&key("a")).await.unwrap(), Claim::Mine(_)));
    }

    #[tokio::test]
    async fn a_dropped_claim_ends_too() {
        let flight = LocalFlight::default();
        drop(flight.claim(&key("a")).await.unwrap());
        for _ in 0..100 {
            if matches!(flight.claim(&key("a")).await.unwrap(), Claim::Mine(_)) {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("the dropped claim never ended");
    }
}
