//! The distributed queue: Redis Streams with one consumer group shared by every worker process, so API
//! nodes enqueue and any number of workers take jobs, each job by one worker at a time.
//!
//! Delivery is at least once. A taken job stays in the group's pending list until it is acked or handed
//! back; a job pending longer than `claim_idle` belongs to a worker that died and is reclaimed (XAUTOCLAIM)
//! by another, which counts as a failed attempt: a delivery's attempt is the entry's stored `attempt`
//! plus the group's delivery count minus one, so every reclaim adds one, and past `MAX_ATTEMPTS` the job
//! is dead-lettered instead of delivered. Live workers keep their jobs from being reclaimed by refreshing
//! them (a heartbeat, XCLAIM … JUSTID, which leaves the delivery count alone) while they run. A job handed
//! back (by its worker, or taken by a `next()` its caller stopped waiting for) waits, uncounted, under
//! the consumer `(handed back)` with an idle time past any claim timeout, so the next worker to look
//! takes it at once. Failed jobs wait in a sorted set until their backoff ends, then go back into the
//! stream as new entries; after `MAX_ATTEMPTS` they move to a dead-letter stream. A job whose identical twin is still waiting or
//! running is dropped at enqueue (a dedupe key per job), and the jobs themselves are idempotent, so a job
//! done twice costs time, not correctness.
//!
//! Keys under a prefix `p`: `p:jobs` (stream, group `workers`; fields `job` = JSON, `attempt`),
//! `p:jobs:delayed` (sorted set: score = due time in ms, member = `<attempt>:<nonce>:<job JSON>`),
//! `p:jobs:dead` (stream; fields `job`, `attempts`, `failed_at_ms`, `reason`), `p:jobs:queued:<dedupe
//! key>` (a 24 h marker). Entries are deleted from the stream once acked or moved, so its length is the
//! number of jobs waiting or running. Every multi-key change is one Lua script or MULTI, so a crash
//! between two steps cannot lose or duplicate a job. Times inside scripts come from Redis (`TIME`), so
//! nodes with skewed clocks agree on when a retry is due.

use std::{
    collections::HashSet,
    fmt::Display,
    sync::{Arc, LazyLock, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use deadpool_redis::Pool;
use redis::{AsyncConnectionConfig, RedisError, Script, streams::StreamReadReply};
use shutterbox_queue::{Delivery, JobQueue, MAX_ATTEMPTS, Payload, QueueError, RetryOutcome};
use tokio::{sync::oneshot, task::JoinHandle};

use super::pool::{POOL_TIMEOUT, build_pool, connect_pool, connections_per_pool, pool_to_redis};

/// The consumer group every worker joins.
const GROUP: &str = "workers";
/// How long a dedupe marker outlives a job that was never acked (its queue lost, say).
const DEDUPE_TTL_SECS: u64 = 86_400;
/// Due retries moved back into the stream per turn (bounds one script's run time).
const PROMOTE_BATCH: u32 = 100;
/// The dead-letter stream is trimmed to about this many entries, so it cannot grow without bound.
const DEAD_MAX_LEN: u32 = 10_000;
/// Idle time given to a job handed back, so XAUTOCLAIM takes it at once.
const RELEASED_IDLE_MS: u64 = 365 * 86_400_000;
/// The consumer a handed-back job waits under until a worker reclaims it; no default consumer name
/// (`<host>-<pid>-<random>`) has parentheses or spaces.
const HANDED_BACK: &str = "(handed back)";

/// Where the queue's keys live and who this process is in the consumer group.
#[derive(Debug, Clone)]
pub struct RedisQueueOptions {
    /// Key prefix, e.g. `shutterbox`: keys are `<prefix>:jobs…`.
    pub prefix: String,
    /// Consumer name, unique per process (default `<hostname>-<pid>-<random>`).
    pub consumer: String,
    /// A job pending this long without an ack or a heartbeat is taken from its (dead) worker.
    pub claim_idle: Duration,
    /// How long one XREADGROUP waits for a new job; also how often due retries and dead workers' jobs
    /// are looked for while the queue is idle.
    pub block: Duration,
}

impl Default for RedisQueueOptions {
    fn default() -> Self {
        Self {
            prefix: "shutterbox".into(),
            consumer: default_consumer(),
            claim_idle: Duration::from_secs(30),
            block: Duration::from_secs(1),
        }
    }
}

fn default_consumer() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into());
    format!("{host}-{}-{:06x}", std::process::id(), rand::random::<u32>() & 0xff_ffff)
}

fn unavailable(what: &str, error: impl Display) -> QueueError {
    // One line: redis errors can carry the server's multi-line text.
    let text = error.to_string().replace('\n', " ");
    QueueError::Unavailable(format!("{what}: {}", text.trim()))
}

/// Enqueue: a job goes in only if no twin holds its dedupe marker.
/// KEYS: dedupe marker, stream. ARGV: job JSON, marker TTL (s).
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/enqueue.lua")));

/// Moves retries whose time has come from the delayed set back into the stream.
/// KEYS: delayed set, stream. ARGV: batch size.
static PROMOTE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/promote.lua")));

/// Takes over one job pending longer than the idle limit (its worker died), with its delivery count.
/// KEYS: stream. ARGV: group, consumer, min idle (ms), cursor.
/// Returns {next cursor} or {next cursor, id, state, job, attempt, times delivered}; state is 1 when
/// the entry has a `job` field, 0 when it has none, `gone` when the entry no longer exists (Redis 6).
static CLAIM: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/claim.lua")));

/// Schedules a failed job's next attempt; a no-op if the entry is no longer pending (another worker
/// reclaimed it and has settled it), so a late hand-back cannot duplicate the job.
/// KEYS: stream, delayed set. ARGV: group, id, member (`<attempt>:<nonce>:<job>`), delay (ms).
static SCHEDULE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/schedule.lua")));

/// Hands a pending entry back: moved to the `HANDED_BACK` consumer with an idle time past any claim
/// timeout (so the next worker to look reclaims it) and its delivery count lowered by one (so this
/// delivery does not count as an attempt). Only an entry the caller still owns: one reclaimed elsewhere
/// is that worker's. Parking it under another consumer is what keeps a heartbeat already under way for
/// it (its id read before the release) from taking it back and resetting its idle time.
/// KEYS: stream; ARGV: group, id, caller's consumer, idle ms, parking consumer. Returns 0 when the entry
/// is no longer the caller's.
static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/release.lua")));

/// Moves a job to the dead-letter stream and forgets it (same no-op rule as SCHEDULE).
/// KEYS: stream, dead stream, [dedupe marker]. ARGV: group, id, job text, attempts, reason, max length.
static DEAD_LETTER: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/dead_letter.lua")));

/// Refreshes the idle time of jobs this consumer is running, so they are not taken as a dead worker's.
/// Only jobs still owned by this consumer: one already reclaimed elsewhere is not taken back.
/// KEYS: stream. ARGV: group, consumer, ids…
static HEARTBEAT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/heartbeat.lua")));

/// What the background tasks share with the queue.
struct Inner {
    /// Ordinary commands (the shared pool).
    pool: Pool,
    /// Connections for the blocking XREADGROUP, one per concurrent `next()`; their response timeout
    /// outlasts `block`.
    blocking: Pool,
    stream: String,
    delayed: String,
    dead: String,
    dedupe_prefix: String,
    consumer: String,
    claim_idle: Duration,
    block: Duration,
    /// XAUTOCLAIM's cursor, so successive scans cover the whole pending list rather than its head.
    claim_cursor: Mutex<String>,
}

/// The Redis Streams job queue (see the module docs).
pub struct RedisQueue {
    inner: Arc<Inner>,
    /// Receipts handed to workers and not yet acked or handed back: the heartbeat keeps them.
    in_flight: Arc<Mutex<HashSet<String>>>,
    heartbeat: JoinHandle<()>,
}

impl Drop for RedisQueue {
    fn drop(&mut self) {
        // Without the heartbeat, unfinished jobs are reclaimed by other workers after `claim_idle`.
        self.heartbeat.abort();
    }
}

fn is_no_group(error: &RedisError) -> bool {
    // Inside a script the code arrives inside the message, so look at both.
    error.code() == Some("NOGROUP") || error.to_string().contains("NOGROUP")
}

impl Inner {
    fn dedupe_key(&self, job: &Payload) -> String {
        format!("{}{}", self.dedupe_prefix, job.dedupe_key())
    }

    async fn conn(&self) -> Result<deadpool_redis::Connection, QueueError> {
        self.pool.get().await.map_err(|e| unavailable("no Redis connection", e))
    }

    /// Creates the stream and group if missing. From id 0: entries are deleted once settled, so any entry
    /// already there is a job nobody has taken yet (the group may be new after a Redis restart).
    async fn ensure_group(&self) -> Result<(), QueueError> {
        let mut conn = self.conn().await?;
        let created = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(&self.stream)
            .arg(GROUP)
            .arg("0")
            .arg("MKSTREAM")
            .query_async::<()>(&mut conn)
            .await;
        match created {
            Err(e) if e.code() != Some("BUSYGROUP") => Err(unavailable("cannot create the consumer group", e)),
            _ => Ok(()),
        }
    }

    /// One turn of `next()`: due retries back into the stream, then a dead worker's job, then a new one.
    async fn fetch(&self) -> Result<Option<Delivery>, QueueError> {
        let mut conn = self.conn().await?;
        PROMOTE
            .key(&self.delayed)
            .key(&self.stream)
            .arg(PROMOTE_BATCH)
            .invoke_async::<u32>(&mut conn)
            .await
            .map_err(|e| unavailable("cannot move due retries", e))?;
        drop(conn);
        match self.reclaim().await {
            Ok(Some(found)) => return Ok(Some(found)),
            Ok(None) => {}
            Err(e) if is_no_group(&e) => return self.ensure_group().await.map(|()| None),
            Err(e) => return Err(unavailable("cannot reclaim jobs", e)),
        }
        match self.read_new().await {
            Ok(found) => Ok(found),
            Err(e) if is_no_group(&e) => self.ensure_group().await.map(|()| None),
            Err(e) => Err(unavailable("cannot read jobs", e)),
        }
    }

    async fn reclaim(&self) -> Result<Option<Delivery>, RedisError> {
        let cursor = self.claim_cursor.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut conn = self.pool.get().await.map_err(pool_to_redis)?;
        let reply: Vec<String> = CLAIM
            .key(&self.stream)
            .arg(GROUP)
            .arg(&self.consumer)
            .arg(duration_ms(self.claim_idle))
            .arg(&cursor)
            .invoke_async(&mut conn)
            .await?;
        drop(conn);
        let [next_cursor, rest @ ..] = reply.as_slice() else { return Ok(None) };
        *self.claim_cursor.lock().unwrap_or_else(|p| p.into_inner()) = next_cursor.clone();
        let [id, state, job, attempt, delivered] = rest else { return Ok(None) };
        match state.as_str() {
            "gone" => {
                // An entry deleted while pending (Redis 6 reports these): nothing left to run.
                let mut conn = self.pool.get().await.map_err(pool_to_redis)?;
                redis::cmd("XACK").arg(&self.stream).arg(GROUP).arg(id).query_async::<()>(&mut conn).await?;
                Ok(None)
            }
            state => {
                let job = (state == "1").then(|| job.clone());
                let delivered = delivered.parse().unwrap_or(1);
                Ok(self.accept(id.clone(), job, Some(attempt.clone()), delivered).await)
            }
        }
    }

    async fn read_new(&self) -> Result<Option<Delivery>, RedisError> {
        let mut conn = self.blocking.get().await.map_err(pool_to_redis)?;
        // BLOCK 0 would wait forever: at least 1 ms.
        let block_ms = duration_ms(self.block).max(1);
        let reply: Option<StreamReadReply> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(&self.consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(block_ms)
            .arg("STREAMS")
            .arg(&self.stream)
            .arg(">")
            .query_async(&mut conn)
            .await?;
        drop(conn);
        let Some(entry) = reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids).next() else {
            return Ok(None);
        };
        let job = entry.get::<String>("job");
        let attempt = entry.get::<String>("attempt");
        Ok(self.accept(entry.id, job, attempt, 1).await)
    }

    /// Turns a stream entry into a delivery, or dead-letters it when it cannot or must not run again.
    /// The attempt is the stored one plus the deliveries since it was stored: each reclaim counts as a
    /// failed attempt (its worker died mid-job), and XAUTOCLAIM counts deliveries for us.
    async fn accept(
        &self,
        id: String,
        job: Option<String>,
        attempt: Option<String>,
        delivered: u64,
    ) -> Option<Delivery> {
        let text = job.unwrap_or_default();
        let stored: u32 = attempt.as_deref().and_then(|a| a.parse().ok()).unwrap_or(1);
        let attempt = u64::from(stored.max(1)) + delivered.saturating_sub(1);
        let job = match Payload::from_json(&text) {
            Ok(job) => job,
            Err(e) => {
                tracing::error!(id = %id, error = %e, "unparsable job in the queue; dead-lettering it");
                self.dead_letter(&id, &text, None, attempt, "unparsable").await;
                return None;
            }
        };
        if attempt > u64::from(MAX_ATTEMPTS) {
            tracing::error!(id = %id, job = ?job, attempts = attempt - 1, "job's workers kept dying; dead-lettered");
            self.dead_letter(&id, &text, Some(&job), attempt - 1, "worker lost").await;
            return None;
        }
        let attempt = u32::try_from(attempt).unwrap_or(MAX_ATTEMPTS);
        Some(Delivery { receipt: id, payload: job, attempt })
    }

    /// Dead-letters from inside `next()`, where a failure is only logged: the entry stays pending and
    /// is reclaimed (and dead-lettered) again later.
    async fn dead_letter(&self, id: &str, text: &str, job: Option<&Payload>, attempts: u64, reason: &str) {
        if let Err(e) = self.dead_letter_checked(id, text, job, attempts, reason).await {
            tracing::warn!(id = %id, error = %e, "could not dead-letter a job; it will be retried");
        }
    }

    async fn dead_letter_checked(
        &self,
        id: &str,
        text: &str,
        job: Option<&Payload>,
        attempts: u64,
        reason: &str,
    ) -> Result<bool, QueueError> {
        let mut conn = self.conn().await?;
        let mut call = DEAD_LETTER.key(&self.stream);
        call.key(&self.dead);
        if let Some(job) = job {
            call.key(self.dedupe_key(job));
        }
        call.arg(GROUP).arg(id).arg(text).arg(attempts).arg(reason).arg(DEAD_MAX_LEN);
        let moved: u32 = call.invoke_async(&mut conn).await.map_err(|e| unavailable("cannot dead-letter a job", e))?;
        Ok(moved == 1)
    }

    /// Hands back a job this consumer took (see `RELEASE`); a no-op when it is no longer ours.
    async fn hand_back(&self, id: &str) -> Result<(), QueueError> {
        let mut conn = self.conn().await?;
        let released: u32 = RELEASE
            .key(&self.stream)
            .arg(GROUP)
            .arg(id)
            .arg(&self.consumer)
            .arg(RELEASED_IDLE_MS)
            .arg(HANDED_BACK)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable("cannot release a job", e))?;
        if released == 0 {
            tracing::debug!(id = %id, "a released job had been reclaimed by another worker; left with it");
        }
        Ok(())
    }

    async fn heartbeat(&self, ids: &[String]) -> Result<(), RedisError> {
        let mut conn = self.pool.get().await.map_err(pool_to_redis)?;
        let mut call = HEARTBEAT.key(&self.stream);
        call.arg(GROUP).arg(&self.consumer);
        for id in ids {
            call.arg(id);
        }
        call.invoke_async::<u32>(&mut conn).await.map(drop)
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl RedisQueue {
    /// Connects, checks the server and joins (creating if needed) the consumer group.
    pub async fn connect(url: &str, options: RedisQueueOptions) -> Result<Self, QueueError> {
        let pool = connect_pool(url).await.map_err(|e| QueueError::Unavailable(e.to_string()))?;
        // The blocking read waits up to `block` for an answer: its connections must wait longer than
        // that (redis 1.x's 500 ms default would fail every idle read as "timed out"), yet not forever,
        // so a server that vanished is still noticed.
        let blocking_config = AsyncConnectionConfig::new().set_response_timeout(Some(options.block + POOL_TIMEOUT));
        let (blocking, _) = build_pool(url, blocking_config, connections_per_pool().max(32))
            .map_err(|e| QueueError::Unavailable(e.to_string()))?;
        let prefix = options.prefix;
        let inner = Arc::new(Inner {
            pool,
            blocking,
            stream: format!("{prefix}:jobs"),
            delayed: format!("{prefix}:jobs:delayed"),
            dead: format!("{prefix}:jobs:dead"),
            dedupe_prefix: format!("{prefix}:jobs:queued:"),
            consumer: options.consumer,
            claim_idle: options.claim_idle,
            block: options.block,
            claim_cursor: Mutex::new("0-0".into()),
        });
        inner.ensure_group().await?;
        let in_flight = Arc::new(Mutex::new(HashSet::new()));
        let heartbeat = tokio::spawn(run_heartbeat(Arc::downgrade(&inner), in_flight.clone()));
        Ok(Self { inner, in_flight, heartbeat })
    }

    /// The pool of ordinary connections, for other users of the same Redis.
    pub fn pool(&self) -> &Pool {
        &self.inner.pool
    }

    /// This process's name in the consumer group.
    pub fn consumer(&self) -> &str {
        &self.inner.consumer
    }

    fn settled(&self, receipt: &str) {
        self.in_flight.lock().unwrap_or_else(|p| p.into_inner()).remove(receipt);
    }
}

/// Refreshes the running jobs three times per `claim_idle`, until the queue is dropped.
async fn run_heartbeat(inner: std::sync::Weak<Inner>, in_flight: Arc<Mutex<HashSet<String>>>) {
    let period = match inner.upgrade() {
        Some(inner) => (inner.claim_idle / 3).max(Duration::from_millis(10)),
        None => return,
    };
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let ids: Vec<String> = in_flight.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect();
        if ids.is_empty() {
            continue;
        }
        if let Err(e) = inner.heartbeat(&ids).await {
            tracing::warn!(error = %e, jobs = ids.len(), "could not refresh running jobs");
        }
    }
}

#[async_trait]
impl JobQueue for RedisQueue {
    async fn enqueue(&self, job: Payload) -> Result<(), QueueError> {
        let mut conn = self.inner.conn().await?;
        let added: u32 = ENQUEUE
            .key(self.inner.dedupe_key(&job))
            .key(&self.inner.stream)
            .arg(job.to_json())
            .arg(DEDUPE_TTL_SECS)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable("cannot enqueue a job", e))?;
        if added == 0 {
            tracing::debug!(job = ?job, "an identical job is still waiting; dropped this one");
        }
        Ok(())
    }

    /// Never `None`: a Redis queue is not closed. Cancel-safe: each turn runs in a task of its own, and a
    /// job it takes after the caller stopped waiting is handed back at once (see `Inner::release`).
    async fn next(&self) -> Result<Option<Delivery>, QueueError> {
        loop {
            let inner = self.inner.clone();
            let (sender, receiver) = oneshot::channel();
            tokio::spawn(async move {
                let result = inner.fetch().await;
                // The caller stopped waiting after Redis gave this job out: hand it back, uncounted.
                if let Err(Ok(Some(taken))) = sender.send(result) {
                    match inner.hand_back(&taken.receipt).await {
                        Ok(()) => tracing::debug!(id = %taken.receipt, "released a job taken by a cancelled next()"),
                        Err(e) => {
                            tracing::warn!(id = %taken.receipt, error = %e, "could not release a job; it will be reclaimed later")
                        }
                    }
                }
            });
            match receiver.await {
                Ok(Ok(Some(delivery))) => {
                    let receipt = delivery.receipt.clone();
                    self.in_flight.lock().unwrap_or_else(|p| p.into_inner()).insert(receipt);
                    return Ok(Some(delivery));
                }
                Ok(Ok(None)) => continue,
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(QueueError::Unavailable("the job fetch task stopped".into())),
            }
        }
    }

    async fn ack(&self, delivery: &Delivery) -> Result<(), QueueError> {
        let inner = &self.inner;
        let mut conn = inner.conn().await?;
        redis::pipe()
            .atomic()
            .cmd("XACK")
            .arg(&inner.stream)
            .arg(GROUP)
            .arg(&delivery.receipt)
            .ignore()
            .cmd("XDEL")
            .arg(&inner.stream)
            .arg(&delivery.receipt)
            .ignore()
            .cmd("DEL")
            .arg(inner.dedupe_key(&delivery.payload))
            .ignore()
            .query_async::<()>(&mut conn)
            .await
            .map_err(|e| unavailable("cannot ack a job", e))?;
        self.settled(&delivery.receipt);
        Ok(())
    }

    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError> {
        let inner = &self.inner;
        let text = delivery.payload.to_json();
        if delivery.attempt >= MAX_ATTEMPTS {
            let moved = inner
                .dead_letter_checked(
                    &delivery.receipt,
                    &text,
                    Some(&delivery.payload),
                    delivery.attempt.into(),
                    "failed",
                )
                .await?;
            self.settled(&delivery.receipt);
            if moved {
                tracing::error!(job = ?delivery.payload, attempts = delivery.attempt, "job dead-lettered");
                return Ok(RetryOutcome::DeadLettered);
            }
            // Another worker reclaimed it meanwhile: its fate is that worker's now.
            return Ok(RetryOutcome::Scheduled);
        }
        let member = format!("{}:{:016x}:{text}", delivery.attempt + 1, rand::random::<u64>());
        let mut conn = inner.conn().await?;
        let scheduled: u32 = SCHEDULE
            .key(&inner.stream)
            .key(&inner.delayed)
            .arg(GROUP)
            .arg(&delivery.receipt)
            .arg(member)
            .arg(duration_ms(delay))
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable("cannot schedule a retry", e))?;
        self.settled(&delivery.receipt);
        if scheduled == 0 {
            tracing::debug!(job = ?delivery.payload, "a retried job had been reclaimed by another worker");
        }
        Ok(RetryOutcome::Scheduled)
    }

    async fn release(&self, delivery: Delivery) -> Result<(), QueueError> {
        // No longer this worker's to run, even if Redis cannot be told: without the heartbeat the job is
        // then reclaimed after `claim_idle`.
        self.settled(&delivery.receipt);
        self.inner.hand_back(&delivery.receipt).await
    }

    async fn depth(&self) -> Result<usize, QueueError> {
        let inner = &self.inner;
        let mut conn = inner.conn().await?;
        let (stream, delayed): (usize, usize) = redis::pipe()
            .atomic()
            .cmd("XLEN")
            .arg(&inner.stream)
            .cmd("ZCARD")
            .arg(&inner.delayed)
            .query_async(&mut conn)
            .await
            .map_err(|e| unavailable("cannot measure the queue", e))?;
        Ok(stream + delayed)
    }

    async fn dead_letters(&self) -> Result<Vec<Payload>, QueueError> {
        let inner = &self.inner;
        let mut conn = inner.conn().await?;
        let entries: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
            .arg(&inner.dead)
            .arg("-")
            .arg("+")
            .query_async(&mut conn)
            .await
            .map_err(|e| unavailable("cannot read dead letters", e))?;
        Ok(entries
            .ids
            .into_iter()
            .filter_map(|entry| {
                let text = entry.get::<String>("job").unwrap_or_default();
                // An unparsable entry was dead-lettered as such; it has no payload to show.
                Payload::from_json(&text).ok()
            })
            .collect())
    }
}
