//! Admission control for the renders a request waits on: at most `concurrency` run at once and at most
//! `queue` more wait for a turn. A cold variant asked for beyond that is answered 503 with `Retry-After`,
//! so a burst of cold URLs costs bounded memory and bounded latency instead of a pile of blocking threads
//! that all finish late. Hits (memory or stored) never come here; jobs are bounded by the worker count.
//!
//! Before its turn, a request's render spends from the caller's `RenderBudget` (the HTTP layer's opt-in
//! cold-render throttle per client address): asked only by the request that would start the render, never
//! for a hit, nor for a request that joins a render already under way.

use std::sync::{
    Arc,
    atomic::{AtomicU64, AtomicUsize, Ordering},
};

use async_trait::async_trait;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// What a request may spend on renders of its own.
#[async_trait]
pub trait RenderBudget: Send + Sync {
    /// Takes one render from the budget, or says when to come back.
    async fn spend(&self) -> Result<(), Throttled>;
}

/// The budget is spent for now: retry after this many seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttled {
    pub retry_after_secs: u64,
}

/// No budget: every render may start (jobs, thumbnails, and delivery without a throttle).
pub struct Unlimited;

#[async_trait]
impl RenderBudget for Unlimited {
    async fn spend(&self) -> Result<(), Throttled> {
        Ok(())
    }
}

/// How many synchronous renders run and wait (`SHUTTERBOX_RENDER_CONCURRENCY`, `SHUTTERBOX_RENDER_QUEUE`).
#[derive(Debug, Clone)]
pub struct RenderAdmission {
    slots: Arc<Semaphore>,
    /// Renders running plus renders waiting for a slot.
    admitted: Arc<AtomicUsize>,
    limit: usize,
    /// Renders turned away since start (for `/metrics`).
    pub rejected: Arc<AtomicU64>,
}

/// The render is full: the caller should come back later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overloaded;

/// A running render's slot; the slot and its place in the count go back when it drops.
pub struct RenderSlot {
    _permit: OwnedSemaphorePermit,
    _admitted: Admitted,
}

/// One place in the admitted count, given back on drop (also when a waiting request is cancelled).
struct Admitted(Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl RenderAdmission {
    pub fn new(concurrency: usize, queue: usize) -> Self {
        let concurrency = concurrency.max(1);
        Self {
            slots: Arc::new(Semaphore::new(concurrency)),
            admitted: Arc::default(),
            limit: concurrency + queue,
            rejected: Arc::default(),
        }
    }

    /// Waits for a render slot, or refuses at once when `concurrency + queue` renders are running or waiting.
    pub async fn admit(&self) -> Result<RenderSlot, Overloaded> {
        let before = self.admitted.fetch_add(1, Ordering::AcqRel);
        let admitted = Admitted(self.admitted.clone());
        if before >= self.limit {
            self.rejected.fetch_add(1, Ordering::Relaxed);
            return Err(Overloaded);
        }
        // The semaphore is never closed, so acquiring only fails if it were; treat that as overload too.
        let permit = self.slots.clone().acquire_owned().await.map_err(|_| Overloaded)?;
        Ok(RenderSlot { _permit: permit, _admitted: admitted })
    }

    /// Renders running or waiting right now.
    pub fn in_flight(&self) -> usize {
        self.admitted.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn refuses_beyond_running_plus_waiting_and_recovers() {
        let admission = RenderAdmission::new(1, 1);
        let running = admission.admit().await.expect("first runs");
        let waiting = {
            let admission = admission.clone();
            tokio::spawn(async move { admission.admit().await.map(drop) })
        };
        tokio::task::yield_now().await;
        while admission.in_flight() < 2 {
            tokio::task::yield_now().await;
        }
        assert_eq!(admission.admit().await.err(), Some(Overloaded));
        assert_eq!(admission.rejected.load(Ordering::Relaxed), 1);
        drop(running);
        waiting.await.expect("task").expect("the waiting render gets the slot");
        assert_eq!(admission.in_flight(), 0);
        assert!(admission.admit().await.is_ok());
    }

    #[tokio::test]
    async fn a_cancelled_wait_gives_its_place_back() {
        let admission = RenderAdmission::new(1, 1);
        let _running = admission.admit().await.expect("first runs");
        let wait = admission.admit();
        let _ = tokio::time::timeout(std::time::Duration::from_millis(10), wait).await;
        assert_eq!(admission.in_flight(), 1);
    }
}
