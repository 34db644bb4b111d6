//! Deletions and changes (a focal point) reaching every API node. Each node remembers resolved paths, responses and variants in
//! memory; when one node deletes a file it publishes the file's id on a Redis channel, every node (itself
//! included) forgets the file and counts that it did under `<prefix>:invalidated:<file id>`, and the
//! deleting node answers once as many nodes have counted as received the message (at most a second), so
//! no node serves the file after its DELETE has answered. Messages missed while a node was cut off from
//! Redis are covered by the caches' 60-second expiry (ARCHITECTURE.md, "Delivery").

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures_util::StreamExt;
use shutterbox_api::{App, DeletionBroadcast};
use shutterbox_model::FileId;
use tokio::sync::watch;

use super::{CoordinationError, RedisBackend};

/// Longest wait for the other nodes to confirm they forgot a deleted file.
const ACK_WAIT: Duration = Duration::from_secs(1);
const ACK_POLL: Duration = Duration::from_millis(2);

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

    fn ack_key(&self, file_id: &str) -> String {
        format!("{}:invalidated:{file_id}", self.redis.prefix)
    }

    /// Tells every node that `file_id` is gone and waits (at most `ACK_WAIT`) until each node that received
    /// the message has forgotten it. A failure is logged, not returned: the delete has happened, and other
    /// nodes' caches expire within a minute anyway.
    pub async fn publish(&self, file_id: &str) {
        let published: Result<(), CoordinationError> = async {
            let mut conn = self.redis.connection().await?;
            let receivers: i64 = redis::cmd("PUBLISH").arg(&self.channel).arg(file_id).query_async(&mut *conn).await?;
            let (ack_key, deadline) = (self.ack_key(file_id), Instant::now() + ACK_WAIT);
            loop {
                let acked: Option<i64> = redis::cmd("GET").arg(&ack_key).query_async(&mut *conn).await?;
                if acked.unwrap_or(0) >= receivers {
                    return Ok(());
                }
                if Instant::now() > deadline {
                    return Err(CoordinationError::Unconfirmed {
                        confirmed: acked.unwrap_or(0),
                        receivers,
                        waited: ACK_WAIT,
                    });
                }
                tokio::time::sleep(ACK_POLL).await;
            }
        }
        .await;
        if let Err(e) = published {
            tracing::warn!(error = %e, file = %file_id, "could not make sure every node forgot a deleted file");
        }
    }

    /// Counts this node's forgetting of `file_id` for the node waiting in `publish`.
    async fn acknowledge(&self, file_id: &str) -> Result<(), CoordinationError> {
        let mut conn = self.redis.connection().await?;
        let key = self.ack_key(file_id);
        redis::pipe()
            .cmd("INCR")
            .arg(&key)
            .ignore()
            .cmd("EXPIRE")
            .arg(&key)
            .arg(60)
            .ignore()
            .query_async::<()>(&mut *conn)
            .await?;
        Ok(())
    }

    /// Listens for deletions until `shutdown` turns true, reconnecting after a lost connection.
    pub async fn listen(self, state: App, mut shutdown: watch::Receiver<bool>) {
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

    async fn listen_once(&self, state: &App) -> redis::RedisResult<()> {
        let client = redis::Client::open(self.redis.url.as_str())?;
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(&self.channel).await?;
        let mut messages = pubsub.on_message();
        while let Some(message) = messages.next().await {
            match message.get_payload::<String>() {
                Ok(file_id) => {
                    state.forget_file(&FileId::new(file_id.as_str()));
                    if let Err(e) = self.acknowledge(&file_id).await {
                        tracing::warn!(error = %e, file = %file_id, "could not confirm forgetting a deleted file");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "unreadable invalidation message"),
            }
        }
        Err(redis::RedisError::from((redis::ErrorKind::Io, "the subscription ended")))
    }
}

#[async_trait]
impl DeletionBroadcast for Invalidations {
    async fn file_changed(&self, file_id: &FileId) {
        self.publish(file_id.as_str()).await;
    }
}
