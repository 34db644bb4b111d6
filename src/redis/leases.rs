//! One render per variant across every process (distributed mode): the `RenderFlight` of API nodes and
//! worker processes alike. The first to claim a variant takes a lease in Redis
//! (`<prefix>:render:<file id>/<digest>`, SET NX with an expiry) and the others wait for it to end, then
//! read the variant it kept. A lease that expires or is released without a stored variant (a failed
//! render, a dead node) sends the waiters back to rendering it themselves, so a lost lease costs time,
//! never an answer.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use rand::Rng;
use shutterbox_variants::{Claim, FlightError, Held, RenderFlight, VariantKey};

use super::{CoordinationError, RedisBackend};

/// How often a waiter looks whether the lease is still held.
const POLL: Duration = Duration::from_millis(20);

/// How long a lease lasts: longer than any render (a 50 MP source to AVIF takes a few seconds).
const LEASE: Duration = Duration::from_secs(60);

/// Render leases in Redis.
#[derive(Clone)]
pub struct RenderLeases {
    redis: RedisBackend,
    release: redis::Script,
}

/// The outcome of asking for a lease.
pub enum LeaseOutcome {
    /// This node renders; release the lease once the variant is stored.
    Taken(Lease),
    /// Another node is rendering the variant.
    HeldElsewhere,
}

/// A lease this node holds.
pub struct Lease {
    key: String,
    token: String,
}

impl RenderLeases {
    pub fn new(redis: RedisBackend) -> Self {
        // Deletes the lease only while it is still ours (it may have expired and been taken since).
        let release = redis::Script::new(include_str!("lua/release_lease.lua"));
        Self { redis, release }
    }

    fn key(&self, variant: &VariantKey) -> String {
        format!("{}:render:{variant}", self.redis.prefix)
    }

    /// Takes the variant's lease unless another node holds it. `Err` when Redis cannot be asked.
    pub async fn take(&self, variant: &VariantKey) -> Result<LeaseOutcome, CoordinationError> {
        let key = self.key(variant);
        let token = format!("{:016x}", rand::rng().random::<u64>());
        let mut conn = self.redis.connection().await?;
        let taken: Option<String> = redis::cmd("SET")
            .arg(&key)
            .arg(&token)
            .arg("NX")
            .arg("PX")
            .arg(LEASE.as_millis() as u64)
            .query_async(&mut *conn)
            .await?;
        Ok(match taken {
            Some(_) => LeaseOutcome::Taken(Lease { key, token }),
            None => LeaseOutcome::HeldElsewhere,
        })
    }

    /// Whether some node still holds the variant's lease.
    pub async fn held(&self, variant: &VariantKey) -> Result<bool, CoordinationError> {
        let mut conn = self.redis.connection().await?;
        Ok(redis::cmd("EXISTS").arg(self.key(variant)).query_async(&mut *conn).await?)
    }

    /// Gives a lease back (logged on failure: it expires by itself).
    pub async fn release(&self, lease: Lease) {
        let released: Result<i64, CoordinationError> = async {
            let mut conn = self.redis.connection().await?;
            Ok(self.release.key(&lease.key).arg(&lease.token).invoke_async(&mut *conn).await?)
        }
        .await;
        if let Err(e) = released {
            tracing::warn!(error = %e, lease = %lease.key, "could not release a render lease; it will expire");
        }
    }
}

#[async_trait]
impl RenderFlight for RenderLeases {
    async fn claim(&self, key: &VariantKey) -> Result<Claim, FlightError> {
        match self.take(key).await.map_err(|e| FlightError(e.to_string()))? {
            LeaseOutcome::HeldElsewhere => Ok(Claim::Elsewhere),
            LeaseOutcome::Taken(lease) => {
                let leases = self.clone();
                Ok(Claim::Mine(Held::new(move || Box::pin(async move { leases.release(lease).await }))))
            }
        }
    }

    async fn wait(&self, key: &VariantKey, limit: Duration) {
        let deadline = Instant::now() + limit;
        // Redis unreachable counts as released: the caller then looks for the variant and renders it.
        while Instant::now() < deadline && matches!(self.held(key).await, Ok(true)) {
            tokio::time::sleep(POLL).await;
        }
    }
}
