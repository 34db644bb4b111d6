//! Opening the backends the configuration names: the embedded ones (SQLite, a local directory, an
//! in-process queue) unless a database URL, an S3 endpoint or a Redis URL selects a distributed one. Every
//! failure here is one line naming the backend and what to check, so a bad URL or an unreachable service
//! at start-up ends the process with a clear message instead of a panic.

use std::{io, sync::Arc, time::Duration};

use shutterbox_metadata::{MetadataStore, SqlMetadata};
use shutterbox_queue::{InProcessQueue, JobQueue};
use shutterbox_storage::{LocalStore, ObjectStore, S3Config, S3Store};

use crate::{
    config::BackendConfig,
    redis::{RedisBackend, RedisQueue, RedisQueueOptions},
};

/// Why the service (or a worker process) could not start: each a line naming what to check.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: String, source: io::Error },
    #[error("{0}")]
    Metadata(#[from] shutterbox_metadata::MetadataError),
    #[error("cannot open the object store: {0}")]
    Store(#[from] shutterbox_storage::StoreError),
    #[error("cannot create the data directory {path}: {source}")]
    DataDir { path: String, source: io::Error },
    #[error("cannot use Redis: {0}")]
    Redis(String),
    #[error("configuration: {0}")]
    Config(String),
    #[error("cannot start the render threads: {0}")]
    RenderThreads(io::Error),
}

/// Opens the metadata store the configuration names (creating the data directory for SQLite).
pub async fn open_metadata(backend: &BackendConfig) -> Result<Arc<dyn MetadataStore>, StartError> {
    if backend.database_url.is_none() {
        tokio::fs::create_dir_all(&backend.data_dir)
            .await
            .map_err(|source| StartError::DataDir { path: backend.data_dir.display().to_string(), source })?;
    }
    Ok(Arc::new(SqlMetadata::connect(&backend.database_url()).await?))
}

/// Opens the object store: S3 when an endpoint is configured, else the local directory, whose upload URLs
/// point at `upload_base` (this service's `/storage`).
pub async fn open_store(backend: &BackendConfig, upload_base: String) -> Result<Arc<dyn ObjectStore>, StartError> {
    let s3 = &backend.s3;
    let Some(endpoint) = &s3.endpoint else {
        return Ok(Arc::new(LocalStore::open(&backend.data_dir, upload_base).await?));
    };
    let (Some(access_key), Some(secret_key)) = (&s3.access_key, &s3.secret_key) else {
        return Err(StartError::Config(
            "SHUTTERBOX_S3_ENDPOINT is set but SHUTTERBOX_S3_ACCESS_KEY or SHUTTERBOX_S3_SECRET_KEY is not".into(),
        ));
    };
    let config = S3Config {
        endpoint: endpoint.clone(),
        bucket: s3.bucket.clone(),
        access_key: access_key.clone(),
        secret_key: secret_key.clone(),
        region: s3.region.clone(),
        presign_endpoint: s3.public_endpoint.clone(),
    };
    Ok(Arc::new(S3Store::connect(config).await?))
}

/// The job queue, and the Redis pool when Redis is configured (the rate limiter and the invalidations
/// share it).
pub struct QueueBackend {
    pub queue: Arc<dyn JobQueue>,
    pub redis: Option<RedisBackend>,
}

/// Opens the Redis Streams queue when a Redis URL is configured, else an in-process queue.
pub async fn open_queue(backend: &BackendConfig) -> Result<QueueBackend, StartError> {
    let Some(url) = &backend.redis_url else {
        return Ok(QueueBackend { queue: Arc::new(InProcessQueue::new()), redis: None });
    };
    let options = RedisQueueOptions {
        prefix: backend.redis_prefix.clone(),
        claim_idle: Duration::from_secs(backend.job_timeout_secs.max(1)),
        ..RedisQueueOptions::default()
    };
    let queue = RedisQueue::connect(url, options).await.map_err(|e| StartError::Redis(e.to_string()))?;
    // The queue's pool of ordinary (non-blocking) connections serves the limiter and the leases too.
    let pool = queue.pool().clone();
    Ok(QueueBackend {
        queue: Arc::new(queue),
        redis: Some(RedisBackend { pool, url: url.clone(), prefix: backend.redis_prefix.clone() }),
    })
}
