//! One render per variant across API nodes (distributed mode). Within a node the variant cache already
//! makes concurrent misses wait for one render; across nodes, the first node to miss takes a lease in Redis
//! (`<prefix>:render:<file id>:<digest>`, SET NX with an expiry) and the others wait for the variant it
//! keeps in the store. A lease that expires or is released without a stored variant (a failed render, a
//! dead node) sends the waiters back to rendering it themselves, so a lost lease costs time, never an
//! answer.

use std::time::Duration;

use rand::Rng;

use super::{CoordinationError, RedisBackend};
use crate::variants::VariantKey;

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
        let release = redis::Script::new(
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
        );
        Self { redis, release }
    }

    fn key(&self, variant: &VariantKey) -> String {
        format!("{}:render:{}:{}", self.redis.prefix, variant.file_id, variant.digest)
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
