//! `RedisQueue` against a real Redis (the binary crate's unit tests, run by `cargo test --workspace`): `SHUTTERBOX_TEST_REDIS_URL`, default `redis://127.0.0.1:6379`. When
//! Redis is unreachable these tests fail (they never skip). Each test works under a prefix of its own and
//! removes its keys when it ends, even when it fails. Durations are short and every wait is bounded, so a
//! bug fails a test instead of hanging it.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use redis::streams::StreamRangeReply;
use shutterbox_queue::{Delivery, JobQueue, MAX_ATTEMPTS, Payload, QueueError, RetryOutcome};
use tokio::time::timeout;

use super::{RedisQueue, RedisQueueOptions, connect_pool};

const CLAIM_IDLE: Duration = Duration::from_millis(300);
const BLOCK: Duration = Duration::from_millis(150);
/// The longest any expected delivery may take.
const WAIT: Duration = Duration::from_secs(5);

fn url() -> String {
    std::env::var("SHUTTERBOX_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn job(key: &str) -> Payload {
    Payload::new("delete_object", serde_json::Map::from_iter([("key".to_owned(), key.into())]))
}

/// One test's keys: a unique prefix, deleted on drop (SCAN + DEL, best effort).
struct Scope {
    prefix: String,
}

impl Scope {
    fn new() -> Self {
        Self { prefix: format!("sbx-test-{:032x}", rand::random::<u128>()) }
    }

    fn options(&self, consumer: &str) -> RedisQueueOptions {
        RedisQueueOptions {
            prefix: self.prefix.clone(),
            consumer: consumer.into(),
            claim_idle: CLAIM_IDLE,
            block: BLOCK,
        }
    }

    async fn queue(&self, consumer: &str) -> RedisQueue {
        self.queue_with(self.options(consumer)).await
    }

    async fn queue_with(&self, options: RedisQueueOptions) -> RedisQueue {
        let url = url();
        match timeout(WAIT, RedisQueue::connect(&url, options)).await {
            Ok(Ok(queue)) => queue,
            Ok(Err(e)) => panic!(
                "Redis at {url} is needed by these tests and is unreachable ({e}); start it with \
                 `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save \"\" --appendonly no` \
                 or set SHUTTERBOX_TEST_REDIS_URL"
            ),
            Err(_) => panic!("connecting to Redis at {url} took longer than {WAIT:?}"),
        }
    }

    /// A raw connection, for what the queue's API does not show.
    async fn raw(&self) -> deadpool_redis::Connection {
        let pool = connect_pool(&url()).await.unwrap_or_else(|e| panic!("Redis at {} is unreachable: {e}", url()));
        pool.get().await.unwrap()
    }

    async fn dead_entries(&self) -> Vec<HashMap<String, String>> {
        let mut conn = self.raw().await;
        let reply: StreamRangeReply = redis::cmd("XRANGE")
            .arg(format!("{}:jobs:dead", self.prefix))
            .arg("-")
            .arg("+")
            .query_async(&mut conn)
            .await
            .unwrap();
        reply
            .ids
            .iter()
            .map(|entry| entry.map.keys().map(|k| (k.clone(), entry.get::<String>(k).unwrap_or_default())).collect())
            .collect()
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        // Synchronous, so it also runs when the test panics.
        let cleanup = || -> redis::RedisResult<()> {
            let client = redis::Client::open(url())?;
            let mut conn = client.get_connection_with_timeout(Duration::from_secs(2))?;
            let keys = redis::Commands::scan_match::<_, String>(&mut conn, format!("{}*", self.prefix))?
                .collect::<Result<Vec<_>, _>>()?;
            if !keys.is_empty() {
                redis::cmd("DEL").arg(&keys).query::<()>(&mut conn)?;
            }
            Ok(())
        };
        if let Err(e) = cleanup() {
            eprintln!("could not remove the test keys under {}: {e}", self.prefix);
        }
    }
}

async fn next(queue: &RedisQueue) -> Delivery {
    match timeout(WAIT, queue.next()).await {
        Ok(Ok(Some(delivery))) => delivery,
        Ok(Ok(None)) => panic!("the Redis queue said it was closed"),
        Ok(Err(e)) => panic!("next() failed: {e}"),
        Err(_) => panic!("no job within {WAIT:?}"),
    }
}

async fn assert_nothing_for(queue: &RedisQueue, wait: Duration) {
    if let Ok(delivered) = timeout(wait, queue.next()).await {
        panic!("expected no job for {wait:?}, got {delivered:?}");
    }
}

#[tokio::test]
async fn jobs_arrive_in_order_and_ack_empties_the_queue() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    for key in ["a", "b", "c"] {
        queue.enqueue(job(key)).await.unwrap();
    }
    assert_eq!(queue.depth().await.unwrap(), 3);
    for key in ["a", "b", "c"] {
        let delivery = next(&queue).await;
        assert_eq!((delivery.payload.clone(), delivery.attempt), (job(key), 1));
        // Taken but not acked: still counted.
        assert!(queue.depth().await.unwrap() >= 1);
        queue.ack(&delivery).await.unwrap();
    }
    assert_eq!(queue.depth().await.unwrap(), 0);
    assert!(queue.dead_letters().await.unwrap().is_empty());
    assert_nothing_for(&queue, Duration::from_millis(400)).await;
}

#[tokio::test]
async fn retries_come_back_until_dead_lettered() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    queue.enqueue(job("x")).await.unwrap();
    let mut attempts = Vec::new();
    loop {
        let delivery = next(&queue).await;
        assert_eq!(delivery.payload, job("x"));
        attempts.push(delivery.attempt);
        match queue.retry(delivery, Duration::ZERO).await.unwrap() {
            RetryOutcome::Scheduled => assert!(attempts.len() < MAX_ATTEMPTS as usize, "scheduled after {attempts:?}"),
            RetryOutcome::DeadLettered => break,
        }
    }
    assert_eq!(attempts, (1..=MAX_ATTEMPTS).collect::<Vec<_>>());
    assert_eq!(queue.dead_letters().await.unwrap(), vec![job("x")]);
    assert_eq!(queue.depth().await.unwrap(), 0);
    let dead = scope.dead_entries().await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0]["attempts"], MAX_ATTEMPTS.to_string());
    assert_eq!(dead[0]["reason"], "failed");
    assert!(dead[0]["failed_at_ms"].parse::<u64>().unwrap() > 1_600_000_000_000);
    // Dead-lettering forgets the dedupe marker: the same job can be queued again.
    queue.enqueue(job("x")).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 1);
}

#[tokio::test]
async fn a_retry_waits_for_its_delay() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    queue.enqueue(job("later")).await.unwrap();
    let first = next(&queue).await;
    let handed_back = Instant::now();
    let delay = Duration::from_millis(800);
    assert_eq!(queue.retry(first, delay).await.unwrap(), RetryOutcome::Scheduled);
    // Waiting in the delayed set counts as queued.
    assert_eq!(queue.depth().await.unwrap(), 1);
    assert_nothing_for(&queue, Duration::from_millis(500)).await;
    let again = next(&queue).await;
    assert!(handed_back.elapsed() >= delay - Duration::from_millis(10), "delivered after {:?}", handed_back.elapsed());
    assert_eq!((again.payload.clone(), again.attempt), (job("later"), 2));
    queue.ack(&again).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn a_dead_workers_job_is_reclaimed_as_its_next_attempt() {
    let scope = Scope::new();
    let a = scope.queue("a").await;
    a.enqueue(job("orphan")).await.unwrap();
    let taken = next(&a).await;
    assert_eq!(taken.attempt, 1);
    // The worker dies mid-job: no ack, no heartbeat.
    drop(a);
    let b = scope.queue("b").await;
    let dropped_at = Instant::now();
    let reclaimed = next(&b).await;
    assert!(dropped_at.elapsed() >= CLAIM_IDLE / 2, "reclaimed after {:?}", dropped_at.elapsed());
    assert_eq!((reclaimed.payload.clone(), reclaimed.attempt), (job("orphan"), 2));
    assert_eq!(reclaimed.receipt, taken.receipt);
    b.ack(&reclaimed).await.unwrap();
    assert_eq!(b.depth().await.unwrap(), 0);
    assert_nothing_for(&b, CLAIM_IDLE * 2).await;
}

#[tokio::test]
async fn a_job_whose_workers_keep_dying_is_dead_lettered() {
    let scope = Scope::new();
    scope.queue("producer").await.enqueue(job("poison")).await.unwrap();
    for attempt in 1..=MAX_ATTEMPTS {
        let worker = scope.queue(&format!("worker-{attempt}")).await;
        let delivery = next(&worker).await;
        assert_eq!((delivery.payload, delivery.attempt), (job("poison"), attempt));
        drop(worker);
    }
    let last = scope.queue("last").await;
    assert_nothing_for(&last, CLAIM_IDLE * 4).await;
    assert_eq!(last.dead_letters().await.unwrap(), vec![job("poison")]);
    assert_eq!(last.depth().await.unwrap(), 0);
    let dead = scope.dead_entries().await;
    assert_eq!(dead[0]["reason"], "worker lost");
    assert_eq!(dead[0]["attempts"], MAX_ATTEMPTS.to_string());
    // Its dedupe marker went with it.
    last.enqueue(job("poison")).await.unwrap();
    assert_eq!(last.depth().await.unwrap(), 1);
}

#[tokio::test]
async fn a_live_workers_long_job_is_not_reclaimed() {
    let scope = Scope::new();
    let a = scope.queue("a").await;
    let b = scope.queue("b").await;
    a.enqueue(job("slow")).await.unwrap();
    let running = next(&a).await;
    // Well past `claim_idle`: a's heartbeat keeps the job its own.
    assert_nothing_for(&b, CLAIM_IDLE * 4).await;
    a.ack(&running).await.unwrap();
    assert_eq!(a.depth().await.unwrap(), 0);
    assert_nothing_for(&b, CLAIM_IDLE * 2).await;
}

#[tokio::test]
async fn an_identical_job_is_dropped_while_its_twin_waits() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    queue.enqueue(job("same")).await.unwrap();
    queue.enqueue(job("same")).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 1);
    queue.enqueue(job("other")).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 2);
    let render = |target: &str| {
        Payload::from_json(&format!(r#"{{"kind":"render_variant","file_id":"f","query":"w=10","target":"{target}"}}"#))
            .unwrap()
    };
    queue.enqueue(render("webp")).await.unwrap();
    queue.enqueue(render("avif")).await.unwrap();
    queue.enqueue(render("webp")).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 4);

    let mut seen = Vec::new();
    for _ in 0..4 {
        let delivery = next(&queue).await;
        // A twin of a running job is dropped too.
        queue.enqueue(delivery.payload.clone()).await.unwrap();
        seen.push(delivery.payload.clone());
        queue.ack(&delivery).await.unwrap();
    }
    assert_eq!(seen, vec![job("same"), job("other"), render("webp"), render("avif")]);
    assert_nothing_for(&queue, Duration::from_millis(400)).await;
    assert_eq!(queue.depth().await.unwrap(), 0);

    // Acked: the same job is new work again.
    queue.enqueue(job("same")).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 1);
    let again = next(&queue).await;
    assert_eq!((again.payload.clone(), again.attempt), (job("same"), 1));
    queue.ack(&again).await.unwrap();
}

#[tokio::test]
async fn two_processes_share_the_jobs_without_duplicates() {
    let scope = Scope::new();
    let total = 20;
    let producer = scope.queue("producer").await;
    for i in 0..total {
        producer.enqueue(job(&format!("k{i}"))).await.unwrap();
    }
    let received: Arc<Mutex<Vec<(String, Payload)>>> = Arc::default();
    let mut workers = Vec::new();
    for name in ["one", "two"] {
        let queue = scope.queue(name).await;
        let received = received.clone();
        workers.push(tokio::spawn(async move {
            while received.lock().unwrap().len() < total {
                let Ok(delivery) = timeout(Duration::from_millis(300), queue.next()).await else { continue };
                let delivery = delivery.unwrap().unwrap();
                received.lock().unwrap().push((name.to_owned(), delivery.payload.clone()));
                // A little work, so both consumers get a share.
                tokio::time::sleep(Duration::from_millis(10)).await;
                queue.ack(&delivery).await.unwrap();
            }
        }));
    }
    for worker in workers {
        timeout(Duration::from_secs(30), worker).await.expect("the jobs were not all delivered in 30 s").unwrap();
    }
    let received = received.lock().unwrap().clone();
    let jobs: HashSet<String> = received.iter().map(|(_, job)| job.to_json()).collect();
    assert_eq!(received.len(), total, "some job was delivered twice: {received:?}");
    assert_eq!(jobs, (0..total).map(|i| job(&format!("k{i}")).to_json()).collect());
    for name in ["one", "two"] {
        assert!(received.iter().any(|(who, _)| who == name), "consumer {name} got nothing: {received:?}");
    }
    assert_eq!(producer.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn an_unparsable_entry_is_dead_lettered() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    let mut conn = scope.raw().await;
    redis::cmd("XADD")
        .arg(format!("{}:jobs", scope.prefix))
        .arg("*")
        .arg("job")
        .arg("not json")
        .arg("attempt")
        .arg(1)
        .query_async::<String>(&mut conn)
        .await
        .unwrap();
    queue.enqueue(job("fine")).await.unwrap();
    let delivery = next(&queue).await;
    assert_eq!(delivery.payload, job("fine"));
    queue.ack(&delivery).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
    let dead = scope.dead_entries().await;
    assert_eq!(dead.len(), 1);
    assert_eq!((dead[0]["job"].as_str(), dead[0]["reason"].as_str()), ("not json", "unparsable"));
    // Not a payload, so not listed as one.
    assert!(queue.dead_letters().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_cancelled_next_hands_its_job_back_at_once() {
    let scope = Scope::new();
    // Reclaiming alone would take 30 s: a prompt delivery shows the job was released.
    let options = RedisQueueOptions {
        claim_idle: Duration::from_secs(30),
        block: Duration::from_millis(500),
        ..scope.options("solo")
    };
    let queue = scope.queue_with(options).await;
    assert!(timeout(Duration::from_millis(50), queue.next()).await.is_err());
    // The abandoned XREADGROUP is still blocked on the server and takes this job.
    queue.enqueue(job("caught")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let delivery = next(&queue).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!((delivery.payload.clone(), delivery.attempt), (job("caught"), 1));
    queue.ack(&delivery).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn a_released_job_goes_to_another_worker_at_once_as_the_same_attempt() {
    let scope = Scope::new();
    // `a` refreshes its running jobs every 10 ms, so over the rounds its heartbeat often reads a job's id
    // just before the release and writes just after it; `b` would take a dead worker's job only after
    // 30 s, so each prompt delivery shows a release that held.
    let a = scope.queue_with(RedisQueueOptions { claim_idle: Duration::from_millis(30), ..scope.options("a") }).await;
    let b = scope.queue_with(RedisQueueOptions { claim_idle: Duration::from_secs(30), ..scope.options("b") }).await;
    for round in 0..200 {
        a.enqueue(job(&format!("handed-back-{round}"))).await.unwrap();
        let taken = next(&a).await;
        a.release(taken.clone()).await.unwrap();
        let again = next(&b).await;
        assert_eq!(
            (again.payload.clone(), again.attempt, again.receipt.clone()),
            (taken.payload, 1, taken.receipt),
            "round {round}"
        );
        b.ack(&again).await.unwrap();
    }
    assert_eq!(b.depth().await.unwrap(), 0);
    drop(a);
    // A job its worker no longer holds is not released: one reclaimed elsewhere stays with that worker.
    let c = scope.queue_with(RedisQueueOptions { claim_idle: Duration::from_millis(50), ..scope.options("c") }).await;
    c.enqueue(job("reclaimed")).await.unwrap();
    let lost = next(&c).await;
    let d = scope.queue_with(RedisQueueOptions { claim_idle: Duration::from_millis(50), ..scope.options("d") }).await;
    drop(c);
    let reclaimed = next(&d).await;
    assert_eq!((reclaimed.receipt.clone(), reclaimed.attempt), (lost.receipt.clone(), 2));
    let c = scope.queue_with(RedisQueueOptions { claim_idle: Duration::from_secs(30), ..scope.options("c") }).await;
    c.release(lost).await.unwrap();
    assert_nothing_for(&c, Duration::from_millis(500)).await;
    d.ack(&reclaimed).await.unwrap();
    assert_eq!(d.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn a_lost_consumer_group_is_recreated() {
    let scope = Scope::new();
    let queue = scope.queue("solo").await;
    // As after a Redis restart without persistence: the stream and its group are gone.
    let mut conn = scope.raw().await;
    redis::cmd("DEL").arg(format!("{}:jobs", scope.prefix)).query_async::<()>(&mut conn).await.unwrap();
    queue.enqueue(job("after restart")).await.unwrap();
    let delivery = next(&queue).await;
    assert_eq!(delivery.payload, job("after restart"));
    queue.ack(&delivery).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn an_unreachable_or_malformed_url_fails_quickly() {
    let scope = Scope::new();
    let started = Instant::now();
    let closed = timeout(WAIT, RedisQueue::connect("redis://127.0.0.1:1", scope.options("x")))
        .await
        .expect("connecting to a closed port must fail within 5 s");
    let Err(QueueError::Unavailable(message)) = closed else { panic!("connected to a closed port") };
    assert!(message.contains("127.0.0.1:1") && !message.contains('\n'), "{message}");
    assert!(started.elapsed() < WAIT);

    for bad in ["not a url", "http://127.0.0.1:6379", "redis://:secret@"] {
        let result = timeout(WAIT, connect_pool(bad)).await.expect("a malformed URL must fail at once");
        let Err(error) = result else { panic!("accepted {bad}") };
        let message = error.to_string();
        assert!(!message.contains("secret") && !message.contains('\n'), "{message}");
    }
}

/// A job the previous version queued (its `RedisQueue` wrote the job's JSON into the stream entry's `job`
/// field, beside `attempt`) is delivered after an upgrade as the job it was.
#[tokio::test]
async fn a_job_queued_by_the_previous_version_is_delivered_as_that_job() {
    use shutterbox_jobs::{Job, WarmItem};
    use shutterbox_model::{BatchId, FileId};
    use shutterbox_pipeline::{Target, Transform};
    use shutterbox_variants::VariantSpec;

    let scope = Scope::new();
    let queue = scope.queue("upgraded").await;
    let wire = r#"{"kind":"render_variant","file_id":"0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f","query":"w=300&fit=cover","target":"webp","warm":{"batch_id":"b1","item":3}}"#;
    let mut conn = scope.raw().await;
    redis::cmd("XADD")
        .arg(format!("{}:jobs", scope.prefix))
        .arg("*")
        .arg("job")
        .arg(wire)
        .arg("attempt")
        .arg(2)
        .query_async::<String>(&mut conn)
        .await
        .unwrap();
    let delivery = next(&queue).await;
    assert_eq!(delivery.attempt, 2);
    let spec = VariantSpec::new(Transform::from_query("w=300&fit=cover").unwrap(), Target::parse("webp").unwrap());
    let expected = Job::render_variant(
        &FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f"),
        spec,
        Some(WarmItem { batch_id: BatchId::new("b1"), item: 3 }),
    );
    assert_eq!(Job::from_payload(&delivery.payload).unwrap(), expected);
    queue.ack(&delivery).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 0);
}
