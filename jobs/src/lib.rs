//! The background jobs, as typed values: what the API asks for (`Job`) and how each travels on the job
//! queue (`Job::to_payload`, `Job::from_payload`). The queue carries payloads and knows none of this; the
//! worker decodes each delivery back into a `Job` and runs it.
//!
//! The payloads are the wire form jobs had before the queue became a transport, field for field, so jobs
//! a previous version queued in Redis still run after an upgrade (the tests pin that form).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use shutterbox_model::{BatchId, FileId, ObjectKey};
use shutterbox_queue::{JobQueue, Payload, QueueError};
use shutterbox_variants::VariantSpec;

/// A unit of background work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    /// Remove a stored object whose inline removal failed (a deleted file's bytes, a confirm's leftovers),
    /// so a failed step leaves no orphan behind.
    DeleteObject { key: ObjectKey },
    /// Render a variant of a file and keep it in the object store (thumbnails on confirm, transform-url
    /// variants, batch warming), so its first request is already a hit. The variant spec travels as two fields,
    /// `query` (delivery syntax) and `target` (`source`, `auto`, `webp`, …). `warm` names the batch item
    /// this job completes, when it is part of a warming batch.
    RenderVariant {
        file_id: FileId,
        #[serde(flatten)]
        spec: VariantSpec,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warm: Option<WarmItem>,
    },
    /// Read an image's facts and pixel summary (`shutterbox_pipeline::summarize`) and record them with the
    /// file: queued by confirm, run for older files by `shutterbox backfill`.
    DescribeImage { file_id: FileId },
}

/// One (file, transformation) pair of a warming batch, whose outcome the batch's progress counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmItem {
    pub batch_id: BatchId,
    pub item: u32,
}

/// A payload that is no job of this version: an unknown kind, or fields that do not parse.
#[derive(Debug, thiserror::Error)]
#[error("payload of kind '{kind}' is not a job this version runs: {reason}")]
pub struct UnknownJob {
    pub kind: String,
    pub reason: String,
}

impl Job {
    /// The job rendering variant `spec` of file `file_id`, for warming item `warm` if any.
    pub fn render_variant(file_id: &FileId, spec: VariantSpec, warm: Option<WarmItem>) -> Self {
        Self::RenderVariant { file_id: file_id.clone(), spec, warm }
    }

    /// The job's payload on the queue.
    pub fn to_payload(&self) -> Payload {
        match serde_json::to_value(self) {
            Ok(Value::Object(object)) => Payload::from_object(object).unwrap_or_else(|_| self.unreachable()),
            _ => self.unreachable(),
        }
    }

    /// Serializing a job (ids, a key, a query and a target: strings and integers, `kind` set by the
    /// enum's tag) always gives an object with a kind; were it ever not so, the job is named in an empty
    /// payload of kind `unserializable`, which the worker drops with an error.
    fn unreachable(&self) -> Payload {
        Payload::new("unserializable", serde_json::Map::new())
    }

    /// The job a delivered payload carries.
    pub fn from_payload(payload: &Payload) -> Result<Self, UnknownJob> {
        serde_json::from_value(Value::Object(payload.to_object()))
            .map_err(|e| UnknownJob { kind: payload.kind().to_owned(), reason: e.to_string() })
    }

    /// The job describing image `file_id`.
    pub fn describe_image(file_id: &FileId) -> Self {
        Self::DescribeImage { file_id: file_id.clone() }
    }

    /// Puts the job on `queue`.
    pub async fn enqueue(&self, queue: &dyn JobQueue) -> Result<(), QueueError> {
        queue.enqueue(self.to_payload()).await
    }

    /// The warming item this job completes, if any.
    pub fn warm_item(&self) -> Option<&WarmItem> {
        match self {
            Self::RenderVariant { warm, .. } => warm.as_ref(),
            Self::DeleteObject { .. } | Self::DescribeImage { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use shutterbox_pipeline::{Target, Transform};

    use super::*;

    fn spec(query: &str, target: &str) -> VariantSpec {
        VariantSpec::new(Transform::from_query(query).unwrap(), Target::parse(target).unwrap())
    }

    /// The wire forms the previous version (`shutterbox_queue::Job`, an enum serialized by serde, the
    /// query in its canonical text) wrote into Redis, byte for byte: each must decode into the job it was,
    /// and encode back to the same text, so its dedupe key is unchanged too.
    #[test]
    fn the_previous_versions_wire_form_decodes_and_round_trips() {
        let id = "0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f";
        let cases = [
            (
                format!(r#"{{"kind":"delete_object","key":"files/{id}/original"}}"#),
                Job::DeleteObject { key: ObjectKey::parse(&format!("files/{id}/original")).unwrap() },
            ),
            (format!(r#"{{"kind":"describe_image","file_id":"{id}"}}"#), Job::describe_image(&FileId::new(id))),
            (
                format!(r#"{{"kind":"render_variant","file_id":"{id}","query":"w=256&h=256&q=80","target":"webp"}}"#),
                Job::render_variant(&FileId::new(id), spec("w=256&h=256&fit=cover&q=80", "webp"), None),
            ),
            (
                format!(
                    r#"{{"kind":"render_variant","file_id":"{id}","query":"w=300","target":"auto","warm":{{"batch_id":"b1","item":7}}}}"#
                ),
                Job::render_variant(
                    &FileId::new(id),
                    spec("w=300", "auto"),
                    Some(WarmItem { batch_id: BatchId::new("b1"), item: 7 }),
                ),
            ),
        ];
        for (wire, job) in cases {
            let payload = Payload::from_json(&wire).unwrap();
            assert_eq!(Job::from_payload(&payload).unwrap(), job, "{wire}");
            assert_eq!(job.to_payload().to_json(), wire);
            assert_eq!(job.to_payload().dedupe_key(), payload.dedupe_key());
        }
    }

    #[test]
    fn a_payload_no_job_of_this_version_names_its_kind() {
        for (wire, kind) in [
            (r#"{"kind":"transcode_video","file_id":"f"}"#, "transcode_video"),
            (r#"{"kind":"delete_object","key":"../etc/passwd"}"#, "delete_object"),
            (r#"{"kind":"delete_object"}"#, "delete_object"),
            (r#"{"kind":"render_variant","file_id":"f","query":"w=0","target":"webp"}"#, "render_variant"),
        ] {
            let error = Job::from_payload(&Payload::from_json(wire).unwrap()).unwrap_err();
            assert_eq!(error.kind, kind, "{wire}");
        }
    }
}
