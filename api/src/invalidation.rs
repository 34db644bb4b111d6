//! Deletions reaching every API node. Each node remembers resolved paths, responses and variants in
//! memory; when one node deletes a file it publishes the file's id on a Redis channel and every node
//! (itself included) forgets the file at once. Messages missed while a node was cut off from Redis are
//! covered by the caches' 60-second expiry (ARCHITECTURE.md, "Delivery").

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::watch;

use crate::{backends::RedisBackend, state::AppState};

/// Publishes deleted files' ids to the other nodes.
#[derive(Clone)]
pub struct Invalidations {
    redis: RedisBackend,
    channel: String,
}

impl Invalidations {
    pub fn new(redis: RedisBackend) -> Self {
        let channel = format!("{}:invalidate", redis.prefix);
        Self { redis, channel }
    }

    /// Tells every node that `file_id` is gone. A failure is logged, not returned: the delete has
    /// happened, and other nodes' caches expire within a minute anyway.
    pub async fn publish(&self, file_id: &str) {
        let published: Result<(), String> = async {
            let mut conn = self.redis.pool.get().await.map_err(|e| e.to_string())?;
            redis::cmd("PUBLISH")
                .arg(&self.channel)
                .arg(file_id)
                .query_async::<i64>(&mut *conn)
                .await
                .map_err(|e| e.to_string())?;
            Ok(())
        }
        .await;
        if let Err(e) = published {
            tracing::warn!(error = %e, file = %file_id, "could not tell other nodes of a deletion");
        }
    }

    /// Listens for deletions until `shutdown` turns true, reconnecting after a lost connection.
    pub async fn listen(self, state: AppState, mut shutdown: watch::Receiver<bool>) {
        loop {
            let listened = tokio::select! {
                biased;
                _ = shutdown.wait_for(|stop| *stop) => return,
                result = self.listen_once(&state) => result,
            };
            if let Err(e) = listened {
                tracing::warn!(error = %e, "lost the invalidation channel; reconnecting in 1 s");
            }
            tokio::select! {
                _ = shutdown.wait_for(|stop| *stop) => return,
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }

    async fn listen_once(&self, state: &AppState) -> redis::RedisResult<()> {
        let client = redis::Client::open(self.redis.url.as_str())?;
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(&self.channel).await?;
        let mut messages = pubsub.on_message();
        while let Some(message) = messages.next().await {
            match message.get_payload::<String>() {
                Ok(file_id) => state.forget_file(&file_id),
                Err(e) => tracing::warn!(error = %e, "unreadable invalidation message"),
            }
        }
        Err(redis::RedisError::from((redis::ErrorKind::Io, "the subscription ended")))
    }
}
