//! The embedded queue: a tokio channel shared by the workers of this process. Retries wait on a timer
//! task; nothing survives a restart (the jobs are derived work, see the crate docs).

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use async_trait::async_trait;
use tokio::sync::{Mutex as AsyncMutex, mpsc};

use crate::{Delivery, Job, JobQueue, MAX_ATTEMPTS, QueueError, RetryOutcome};

pub struct InProcessQueue {
    sender: mpsc::UnboundedSender<Delivery>,
    receiver: AsyncMutex<mpsc::UnboundedReceiver<Delivery>>,
    next_id: AtomicU64,
    /// Enqueued or scheduled for retry, not yet acked or dead-lettered.
    pending: Arc<AtomicUsize>,
    dead: Mutex<Vec<Job>>,
}

impl Default for InProcessQueue {
    fn default() -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        Self {
            sender,
            receiver: AsyncMutex::new(receiver),
            next_id: AtomicU64::new(1),
            pending: Arc::new(AtomicUsize::new(0)),
            dead: Mutex::new(Vec::new()),
        }
    }
}

impl InProcessQueue {
    pub fn new() -> Self {
        Self::default()
    }

    fn send(&self, delivery: Delivery) -> Result<(), QueueError> {
        self.sender.send(delivery).map_err(|_| QueueError::Unavailable("queue is closed".into()))
    }
}

#[async_trait]
impl JobQueue for InProcessQueue {
    async fn enqueue(&self, job: Job) -> Result<(), QueueError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.pending.fetch_add(1, Ordering::Relaxed);
        self.send(Delivery { id, job, attempt: 1 })
    }

    async fn next(&self) -> Result<Option<Delivery>, QueueError> {
        Ok(self.receiver.lock().await.recv().await)
    }

    async fn ack(&self, _delivery: &Delivery) -> Result<(), QueueError> {
        self.pending.fetch_sub(1, Ordering::Relaxed);
        Ok(())
    }

    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError> {
        if delivery.attempt >= MAX_ATTEMPTS {
            tracing::error!(job = ?delivery.job, attempts = delivery.attempt, "job dead-lettered");
            self.pending.fetch_sub(1, Ordering::Relaxed);
            self.dead.lock().unwrap_or_else(|p| p.into_inner()).push(delivery.job);
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

    async fn depth(&self) -> Result<usize, QueueError> {
        Ok(self.pending.load(Ordering::Relaxed))
    }

    async fn dead_letters(&self) -> Result<Vec<Job>, QueueError> {
        Ok(self.dead.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(key: &str) -> Job {
        Job::DeleteObject { key: key.into() }
    }

    #[tokio::test]
    async fn jobs_arrive_in_order_and_ack_empties_the_queue() {
        let queue = InProcessQueue::new();
        queue.enqueue(job("a")).await.unwrap();
        queue.enqueue(job("b")).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 2);
        let first = queue.next().await.unwrap().unwrap();
        assert_eq!((first.job.clone(), first.attempt), (job("a"), 1));
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
    }
}
