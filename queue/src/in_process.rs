//! The embedded queue: a tokio channel shared by the workers of this process. Retries wait on a timer
//! task; nothing survives a restart (the jobs are derived work, see the crate docs). A job whose twin is
//! still waiting, running or scheduled for retry is dropped at enqueue, as the Redis queue does.

use std::{
    collections::HashSet,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use async_trait::async_trait;
use tokio::sync::{Mutex as AsyncMutex, mpsc};

use crate::{Delivery, JobQueue, MAX_ATTEMPTS, Payload, QueueError, RetryOutcome};

pub struct InProcessQueue {
    sender: mpsc::UnboundedSender<Delivery>,
    receiver: AsyncMutex<mpsc::UnboundedReceiver<Delivery>>,
    next_id: AtomicU64,
    /// Enqueued or scheduled for retry, not yet acked or dead-lettered.
    pending: Arc<AtomicUsize>,
    dead: Mutex<Vec<Payload>>,
    /// Dedupe keys of the jobs enqueued and not yet acked or dead-lettered.
    queued: Mutex<HashSet<String>>,
    /// The most jobs pending at once; past it an enqueue is refused (`QueueError::Full`), so a flood of
    /// work (warming batches) cannot grow this process's memory without bound.
    capacity: usize,
}

/// Jobs the embedded queue holds at most: a few hundred bytes each.
pub const DEFAULT_CAPACITY: usize = 200_000;

impl Default for InProcessQueue {
    fn default() -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        Self {
            sender,
            receiver: AsyncMutex::new(receiver),
            next_id: AtomicU64::new(1),
            pending: Arc::new(AtomicUsize::new(0)),
            dead: Mutex::new(Vec::new()),
            queued: Mutex::new(HashSet::new()),
            capacity: DEFAULT_CAPACITY,
        }
    }
}

impl InProcessQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Holds at most `capacity` pending jobs.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { capacity, ..Self::default() }
    }

    fn send(&self, delivery: Delivery) -> Result<(), QueueError> {
        self.sender.send(delivery).map_err(|_| QueueError::Unavailable("queue is closed".into()))
    }

    fn queued(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.queued.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl JobQueue for InProcessQueue {
    async fn enqueue(&self, payload: Payload) -> Result<(), QueueError> {
        let key = payload.dedupe_key();
        if self.pending.load(Ordering::Relaxed) >= self.capacity {
            return Err(QueueError::Full { capacity: self.capacity });
        }
        if !self.queued().insert(key.clone()) {
            tracing::debug!(job = ?payload, "an identical job is still waiting; dropped this one");
            return Ok(());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.pending.fetch_add(1, Ordering::Relaxed);
        let sent = self.send(Delivery { receipt: id.to_string(), payload, attempt: 1 });
        if sent.is_err() {
            self.pending.fetch_sub(1, Ordering::Relaxed);
            self.queued().remove(&key);
        }
        sent
    }

    async fn next(&self) -> Result<Option<Delivery>, QueueError> {
        Ok(self.receiver.lock().await.recv().await)
    }

    async fn ack(&self, delivery: &Delivery) -> Result<(), QueueError> {
        self.pending.fetch_sub(1, Ordering::Relaxed);
        self.queued().remove(&delivery.payload.dedupe_key());
        Ok(())
    }

    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError> {
        if delivery.attempt >= MAX_ATTEMPTS {
            tracing::error!(job = ?delivery.payload, attempts = delivery.attempt, "job dead-lettered");
            self.pending.fetch_sub(1, Ordering::Relaxed);
            self.queued().remove(&delivery.payload.dedupe_key());
            self.dead.lock().unwrap_or_else(|p| p.into_inner()).push(delivery.payload);
            return Ok(RetryOutcome::DeadLettered);
        }
        let sender = self.sender.clone();
        let again = Delivery { attempt: delivery.attempt + 1, ..delivery };
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            // The queue may have been dropped meanwhile (shutdown); the job is derived work.
            let _ = sender.send(again);
        });
        Ok(RetryOutcome::Scheduled)
    }

    async fn release(&self, delivery: Delivery) -> Result<(), QueueError> {
        // Still pending and still queued under its dedupe key: it only goes back in line.
        self.send(delivery)
    }

    async fn depth(&self) -> Result<usize, QueueError> {
        Ok(self.pending.load(Ordering::Relaxed))
    }

    async fn dead_letters(&self) -> Result<Vec<Payload>, QueueError> {
        Ok(self.dead.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(key: &str) -> Payload {
        Payload::from_json(&format!(r#"{{"kind":"delete_object","key":"{key}"}}"#)).unwrap()
    }

    #[tokio::test]
    async fn jobs_arrive_in_order_and_ack_empties_the_queue() {
        let queue = InProcessQueue::new();
        queue.enqueue(job("a")).await.unwrap();
        queue.enqueue(job("b")).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 2);
        let first = queue.next().await.unwrap().unwrap();
        assert_eq!((first.payload.clone(), first.attempt), (job("a"), 1));
        queue.ack(&first).await.unwrap();
        let second = queue.next().await.unwrap().unwrap();
        queue.ack(&second).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 0);
    }

    #[tokio::test]
    async fn retries_come_back_until_dead_lettered() {
        let queue = InProcessQueue::new();
        queue.enqueue(job("x")).await.unwrap();
        let mut delivery = queue.next().await.unwrap().unwrap();
        for attempt in 1..MAX_ATTEMPTS {
            assert_eq!(delivery.attempt, attempt);
            let outcome = queue.retry(delivery, Duration::from_millis(1)).await.unwrap();
            assert_eq!(outcome, RetryOutcome::Scheduled);
            delivery = queue.next().await.unwrap().unwrap();
        }
        assert_eq!(queue.retry(delivery, Duration::ZERO).await.unwrap(), RetryOutcome::DeadLettered);
        assert_eq!(queue.dead_letters().await.unwrap(), vec![job("x")]);
        assert_eq!(queue.depth().await.unwrap(), 0);
        // Dead-lettering forgets the job: it can be queued again.
        queue.enqueue(job("x")).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_job_whose_twin_is_still_waiting_is_dropped() {
        let queue = InProcessQueue::new();
        queue.enqueue(job("a")).await.unwrap();
        queue.enqueue(job("a")).await.unwrap();
        queue.enqueue(job("b")).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 2);
        let first = queue.next().await.unwrap().unwrap();
        assert_eq!(first.payload, job("a"));
        // Still running, then scheduled for retry: a twin is still dropped.
        queue.enqueue(job("a")).await.unwrap();
        assert_eq!(queue.retry(first, Duration::ZERO).await.unwrap(), RetryOutcome::Scheduled);
        queue.enqueue(job("a")).await.unwrap();
        let second = queue.next().await.unwrap().unwrap();
        assert_eq!(second.payload, job("b"));
        queue.ack(&second).await.unwrap();
        let again = queue.next().await.unwrap().unwrap();
        assert_eq!((again.payload.clone(), again.attempt), (job("a"), 2));
        queue.ack(&again).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 0);
        // Once acked, the same job can be queued again.
        queue.enqueue(job("a")).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 1);
        let fresh = queue.next().await.unwrap().unwrap();
        assert_eq!((fresh.payload, fresh.attempt), (job("a"), 1));
    }
}
