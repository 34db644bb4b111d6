//! The rate limiter shared by every API node: fixed windows counted in Redis.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

use super::{CoordinationError, RedisBackend};
use shutterbox_api::rate_limit::{InProcessLimiter, RateDecision, RateLimitSpec, RateLimiter, unix_now};

/// Fixed windows counted in Redis, so every API node shares one count per key. A window's counter is
/// `<prefix>:ratelimit:<bucket>:<window start>`, incremented and given its expiry in one Lua script (atomic:
/// no request is lost between the increment and the expiry). While Redis cannot be reached, each node
/// counts on its own instead of refusing or waving through every request, and after a failure it does not
/// ask Redis again for a second, so an outage does not add a connection attempt to every request.
pub struct RedisLimiter {
    spec: RateLimitSpec,
    redis: RedisBackend,
    script: redis::Script,
    fallback: InProcessLimiter,
    /// Unix milliseconds before which Redis is not asked (set after a failure).
    redis_resumes_at: AtomicU64,
}

/// How long the limiter counts alone after Redis failed it.
const REDIS_BACKOFF_MS: u64 = 1000;

impl RedisLimiter {
    pub fn new(spec: RateLimitSpec, redis: RedisBackend) -> Self {
        let script = redis::Script::new(include_str!("lua/count_request.lua"));
        Self { spec, redis, script, fallback: InProcessLimiter::new(spec), redis_resumes_at: AtomicU64::new(0) }
    }

    async fn count(&self, bucket: &str, window_start: u64) -> Result<u64, CoordinationError> {
        let mut conn = self.redis.connection().await?;
        let key = format!("{}:ratelimit:{bucket}:{window_start}", self.redis.prefix);
        // One second past the window, so a clock a little behind Redis's still finds its counter.
        let ttl = self.spec.window_secs + 1;
        Ok(self.script.key(key).arg(ttl).invoke_async::<u64>(&mut *conn).await?)
    }
}

#[async_trait]
impl RateLimiter for RedisLimiter {
    async fn check(&self, bucket: &str) -> RateDecision {
        let now = unix_now();
        let now_ms = shutterbox_model::clock::now_ms().max(0) as u64;
        if now_ms < self.redis_resumes_at.load(Ordering::Relaxed) {
            return self.fallback.check_at(bucket, now);
        }
        match self.count(bucket, self.spec.window_start(now)).await {
            Ok(used) => self.spec.decide(used, now),
            Err(e) => {
                tracing::warn!(error = %e, "rate limiter cannot reach Redis; counting on this node alone for a second");
                self.redis_resumes_at.store(now_ms + REDIS_BACKOFF_MS, Ordering::Relaxed);
                self.fallback.check_at(bucket, now)
            }
        }
    }
}
