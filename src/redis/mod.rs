//! Everything this service asks of Redis, in one place (distributed mode): the connection pool every user
//! shares (`pool`), the job queue over Redis Streams (`queue`, a `JobQueue` transport), and what API
//! nodes coordinate through it: render leases (one render per variant across nodes), invalidations (a
//! deletion reaching every node) and the shared rate limiter. The Lua scripts are the `.lua` files in
//! `lua/`, compiled in. The coordination steps fail with a `CoordinationError`, and each degrades rather
//! than fails the request when Redis is away: a lost lease costs a second render, a lost invalidation a
//! cache expiry, a lost count a node counting alone.

mod invalidation;
mod leases;
mod limiter;
mod pool;
mod queue;
#[cfg(test)]
mod queue_tests;

pub use invalidation::Invalidations;
pub use leases::{Lease, LeaseOutcome, RenderLeases};
pub use limiter::RedisLimiter;
pub use pool::{PoolError, connect_pool};
pub use queue::{RedisQueue, RedisQueueOptions};

/// A connected Redis: its pool, URL (pub/sub needs a connection of its own) and key prefix.
#[derive(Clone)]
pub struct RedisBackend {
    pub pool: deadpool_redis::Pool,
    pub url: String,
    pub prefix: String,
}

impl RedisBackend {
    /// A pooled connection.
    pub async fn connection(&self) -> Result<deadpool_redis::Connection, CoordinationError> {
        Ok(self.pool.get().await?)
    }
}

/// Why a coordination step through Redis did not complete.
#[derive(Debug, thiserror::Error)]
pub enum CoordinationError {
    #[error("no Redis connection: {0}")]
    Connection(#[from] deadpool_redis::PoolError),
    #[error("Redis: {0}")]
    Command(#[from] redis::RedisError),
    #[error("{confirmed} of {receivers} nodes confirmed within {waited:?}")]
    Unconfirmed { confirmed: i64, receivers: i64, waited: std::time::Duration },
}
