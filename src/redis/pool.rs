//! The process's Redis connections: one pool of ordinary connections shared by the queue, the leases,
//! the limiter and the invalidations, and the queue's pool for its blocking reads. Every wait is bounded,
//! so a Redis that vanished fails a step within seconds instead of hanging it.

use std::{fmt::Display, time::Duration};

use deadpool_redis::{Manager, Pool, Runtime};
use redis::{AsyncConnectionConfig, IntoConnectionInfo};

/// Bounds on the pool: waiting for a connection, opening one, checking one before reuse.
pub(crate) const POOL_TIMEOUT: Duration = Duration::from_secs(5);
/// Response timeout of ordinary commands (redis 1.x defaults to 500 ms, tight on a loaded machine).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a pool could not be opened: a malformed URL or a Redis that does not answer. One line, naming
/// neither the URL nor its parse error, which may quote a password.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PoolError(String);

fn failed(what: &str, error: impl Display) -> PoolError {
    // One line: redis errors can carry the server's multi-line text.
    let text = error.to_string().replace('\n', " ");
    PoolError(format!("{what}: {}", text.trim()))
}

/// Builds a pool over `url` whose connections use `config`, with every wait bounded; also returns the
/// server's address, for messages.
pub(crate) fn build_pool(
    url: &str,
    config: AsyncConnectionConfig,
    max_size: usize,
) -> Result<(Pool, String), PoolError> {
    let info = url
        .into_connection_info()
        .map_err(|_| PoolError("invalid Redis URL: expected redis://[user:password@]host[:port][/db]".into()))?;
    let addr = info.addr().to_string();
    let manager = Manager::new_with_config(info, config).map_err(|e| failed("invalid Redis URL", e))?;
    let pool = Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(POOL_TIMEOUT))
        .create_timeout(Some(POOL_TIMEOUT))
        .recycle_timeout(Some(POOL_TIMEOUT))
        .build()
        .map_err(|e| failed("cannot build the Redis pool", e))?;
    Ok((pool, addr))
}

/// A pool of Redis connections for ordinary (non-blocking) commands, checked with one PING. Malformed
/// URLs and unreachable servers fail within a few seconds.
pub async fn connect_pool(url: &str) -> Result<Pool, PoolError> {
    let config = AsyncConnectionConfig::new().set_response_timeout(Some(RESPONSE_TIMEOUT));
    let (pool, addr) = build_pool(url, config, connections_per_pool())?;
    ping(&pool, &addr).await?;
    Ok(pool)
}

/// Four connections per core.
pub(crate) fn connections_per_pool() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get()) * 4
}

async fn ping(pool: &Pool, addr: &str) -> Result<(), PoolError> {
    let what = format!("cannot reach Redis at {addr}");
    let check = async {
        let mut conn = pool.get().await.map_err(|e| failed(&what, pool_to_redis(e)))?;
        redis::cmd("PING").query_async::<String>(&mut conn).await.map_err(|e| failed(&what, e))
    };
    match tokio::time::timeout(POOL_TIMEOUT, check).await {
        Ok(result) => result.map(drop),
        Err(_) => Err(PoolError(format!("{what}: no answer within {POOL_TIMEOUT:?}"))),
    }
}

/// A pool's failure as a Redis error (what the commands around it return).
pub(crate) fn pool_to_redis(error: deadpool_redis::PoolError) -> redis::RedisError {
    match error {
        deadpool_redis::PoolError::Backend(e) => e,
        other => redis::RedisError::from((redis::ErrorKind::Io, "no Redis connection", other.to_string())),
    }
}
