//! The job queue as a transport, behind one trait, `JobQueue`. It carries `Payload`s (a kind and a JSON
//! body) and knows nothing of what they ask for: the typed jobs and their handlers live above it
//! (`shutterbox-jobs`, `shutterbox-worker`). Payloads are delivered at least once: a worker takes a
//! `Delivery`, then acks it or hands it back for a later attempt; after `MAX_ATTEMPTS` it is dead-lettered.
//! A payload whose identical twin (same `Payload::dedupe_key`) is still waiting or running is dropped at
//! enqueue, and jobs are idempotent, so a job done twice is harmless.
//!
//! `InProcessQueue` is the embedded backend, run by workers inside `serve` (nothing survives a restart).
//! The distributed one, over Redis Streams, lives with the rest of the Redis code in the `shutterbox`
//! crate (`src/redis/`).

mod in_process;

use std::{fmt, sync::atomic::AtomicU64, time::Duration};

use async_trait::async_trait;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _, ser::SerializeMap};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub use in_process::InProcessQueue;

/// Attempts before a job is dead-lettered.
pub const MAX_ATTEMPTS: u32 = 5;

/// A unit of background work as the queue carries it: what kind of job it is and its fields, opaque to
/// the queue. On the wire (out-of-process queues) it is one JSON object, the body's fields beside
/// `"kind"`: `{"kind":"delete_object","key":"files/…/original"}`.
#[derive(Clone, PartialEq)]
pub struct Payload {
    kind: String,
    body: Map<String, Value>,
}

/// Text that is not a payload: not a JSON object, or one without a string `kind`.
#[derive(Debug, thiserror::Error)]
#[error("not a job payload: {0}")]
pub struct PayloadError(String);

impl Payload {
    /// A payload of `kind` with `body`'s fields (a `kind` field among them is dropped: the kind is the
    /// payload's own).
    pub fn new(kind: impl Into<String>, mut body: Map<String, Value>) -> Self {
        body.remove("kind");
        Self { kind: kind.into(), body }
    }

    /// A payload from one JSON object holding `kind` beside the body's fields (the wire form).
    pub fn from_object(mut object: Map<String, Value>) -> Result<Self, PayloadError> {
        match object.remove("kind") {
            Some(Value::String(kind)) => Ok(Self { kind, body: object }),
            _ => Err(PayloadError("no string field \"kind\"".into())),
        }
    }

    pub fn kind(&self) -> &str {
        &self.kind
    }

    pub fn body(&self) -> &Map<String, Value> {
        &self.body
    }

    /// The wire form as one JSON object (`kind` beside the body's fields).
    pub fn to_object(&self) -> Map<String, Value> {
        let mut object = self.body.clone();
        object.insert("kind".into(), Value::String(self.kind.clone()));
        object
    }

    /// Identical payloads share this key: a queue may drop a payload whose twin is still waiting, so
    /// enqueuing the same work twice does it once.
    pub fn dedupe_key(&self) -> String {
        hex::encode(&Sha256::digest(self.to_json().as_bytes())[..12])
    }

    /// JSON text of the payload (the out-of-process queues' wire form).
    pub fn to_json(&self) -> String {
        // Strings and numbers under string keys: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, PayloadError> {
        serde_json::from_str(text).map_err(|e| PayloadError(e.to_string()))
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.body.len() + 1))?;
        map.serialize_entry("kind", &self.kind)?;
        for (name, value) in &self.body {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::deserialize(deserializer)?;
        Self::from_object(object).map_err(D::Error::custom)
    }
}

/// What one process's background work did, counted for `/metrics`: its workers' job outcomes, and what
/// its cleanup sweep removed.
#[derive(Debug, Default)]
pub struct JobStats {
    /// Jobs that succeeded.
    pub done: AtomicU64,
    /// Failed attempts handed back for a retry.
    pub retried: AtomicU64,
    /// Jobs dropped because they cannot succeed.
    pub dropped: AtomicU64,
    /// Variants rendered by jobs (a job finding its variant kept already renders nothing).
    pub renders: AtomicU64,
    /// Expired uploads the sweep removed: by presigned PUT, and resumable ones (their assemblies aborted).
    pub swept_uploads: AtomicU64,
    pub swept_resumable_uploads: AtomicU64,
    /// Objects the sweep removed because a crash left them unrecorded.
    pub swept_orphans: AtomicU64,
}

/// A payload handed to a worker, with how many times it has been tried before.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The queue's own handle on this delivery (ack and retry use it); opaque to workers.
    pub receipt: String,
    pub payload: Payload,
    /// 1 on the first attempt.
    pub attempt: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("job queue is unavailable: {0}")]
    Unavailable(String),
    #[error("job queue is full ({capacity} jobs waiting)")]
    Full { capacity: usize },
}

/// What became of a job handed back after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryOutcome {
    Scheduled,
    DeadLettered,
}

#[async_trait]
pub trait JobQueue: Send + Sync + 'static {
    /// Adds a job. One identical to one still waiting (same `Payload::dedupe_key`) may be dropped instead.
    async fn enqueue(&self, payload: Payload) -> Result<(), QueueError>;

    /// Waits for the next job; `None` once the queue is closed.
    async fn next(&self) -> Result<Option<Delivery>, QueueError>;

    /// The job is done.
    async fn ack(&self, delivery: &Delivery) -> Result<(), QueueError>;

    /// The job failed: try again after `delay`, or dead-letter it once it has had `MAX_ATTEMPTS`.
    async fn retry(&self, delivery: Delivery, delay: Duration) -> Result<RetryOutcome, QueueError>;

    /// The worker stops before finishing the job (shutdown): hand it back at once, for another worker to
    /// take, without counting an attempt.
    async fn release(&self, delivery: Delivery) -> Result<(), QueueError>;

    /// Jobs waiting or scheduled for retry.
    async fn depth(&self) -> Result<usize, QueueError>;

    /// Jobs given up on, oldest first.
    async fn dead_letters(&self) -> Result<Vec<Payload>, QueueError>;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn the_wire_form_is_one_object_with_the_kind_first() {
        let payload = Payload::new("delete_object", object(json!({"key": "files/a/original"})));
        assert_eq!(payload.to_json(), r#"{"kind":"delete_object","key":"files/a/original"}"#);
        assert_eq!(Payload::from_json(&payload.to_json()).unwrap(), payload);
        assert_eq!(payload.to_object(), object(json!({"kind": "delete_object", "key": "files/a/original"})));
        // A kind in the body cannot shadow the payload's own.
        assert_eq!(Payload::new("a", object(json!({"kind": "b"}))).to_json(), r#"{"kind":"a"}"#);
    }

    #[test]
    fn text_without_a_kind_is_not_a_payload() {
        for bad in ["", "[]", "{}", r#"{"kind":1}"#, r#"{"key":"x"}"#, "not json"] {
            assert!(Payload::from_json(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn twins_share_a_dedupe_key_whatever_the_field_order() {
        let a = Payload::from_json(r#"{"kind":"k","a":1,"b":"x"}"#).unwrap();
        let b = Payload::from_json(r#"{"b":"x","a":1,"kind":"k"}"#).unwrap();
        assert_eq!(a.dedupe_key(), b.dedupe_key());
        let c = Payload::from_json(r#"{"kind":"k","a":2,"b":"x"}"#).unwrap();
        assert_ne!(a.dedupe_key(), c.dedupe_key());
    }
}
