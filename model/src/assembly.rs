//! An object assembled from bytes that arrive in pieces (a resumable upload): how much has arrived and,
//! for a store that keeps it as a multipart upload, which parts hold it. The store computes it, the
//! metadata store keeps it beside the pending upload, and the next piece starts from it.

use serde::{Deserialize, Serialize};

/// The bytes received so far. Everything before `offset` is durable; nothing after it counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assembly {
    /// Bytes received and kept.
    pub offset: u64,
    /// Where an S3-like store keeps them; `None` for a store that appends to one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipart: Option<Multipart>,
}

/// A multipart upload: whole parts, and the bytes after the last part (fewer than a part, which S3 accepts
/// only as the last one) kept in a tail object until more arrive or the upload ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Multipart {
    /// The store's id of the multipart upload.
    pub upload_id: String,
    /// Size of every part but the last.
    pub part_size: u64,
    /// Parts uploaded, numbered from 1 in order.
    pub parts: Vec<Part>,
    /// The tail object, if the bytes do not end on a part boundary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<Tail>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub number: u16,
    pub etag: String,
    pub size: u64,
}

/// The bytes after the last part, in one of two slots: a new tail goes to the slot the recorded one does
/// not use, so until the new state is recorded the old tail stays whole (a failed append changes nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tail {
    pub slot: TailSlot,
    pub size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TailSlot {
    A,
    B,
}

impl TailSlot {
    pub const BOTH: [TailSlot; 2] = [TailSlot::A, TailSlot::B];

    pub fn other(self) -> Self {
        match self {
            Self::A => Self::B,
            Self::B => Self::A,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::A => "tail-a",
            Self::B => "tail-b",
        }
    }
}

impl Multipart {
    /// The most parts S3 takes in one upload.
    pub const MAX_PARTS: u64 = 10_000;
    /// The smallest part S3 takes but for the last.
    pub const MIN_PART: u64 = 5 << 20;

    /// The part size for an object of at most `largest` bytes: 5 MiB, or more where 10,000 parts of 5 MiB
    /// would not hold it.
    pub fn part_size_for(largest: u64) -> u64 {
        Self::MIN_PART.max(largest.div_ceil(Self::MAX_PARTS))
    }

    /// The tail slot a new tail is written to.
    pub fn free_slot(&self) -> TailSlot {
        self.tail.map_or(TailSlot::A, |tail| tail.slot.other())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_keep_within_ten_thousand_parts() {
        assert_eq!(Multipart::part_size_for(0), 5 << 20);
        assert_eq!(Multipart::part_size_for(64 << 20), 5 << 20);
        for largest in [50_000 << 20, 6 << 30, 5 << 40, u64::MAX / 2] {
            let part = Multipart::part_size_for(largest);
            assert!(largest.div_ceil(part) <= Multipart::MAX_PARTS, "{largest}");
        }
    }

    #[test]
    fn the_wire_form_is_stable() {
        let assembly = Assembly {
            offset: 7,
            multipart: Some(Multipart {
                upload_id: "u".into(),
                part_size: 5 << 20,
                parts: vec![Part { number: 1, etag: "\"e\"".into(), size: 5 << 20 }],
                tail: Some(Tail { slot: TailSlot::B, size: 2 }),
            }),
        };
        let text = serde_json::to_string(&assembly).unwrap();
        assert_eq!(
            text,
            r#"{"offset":7,"multipart":{"upload_id":"u","part_size":5242880,"parts":[{"number":1,"etag":"\"e\"","size":5242880}],"tail":{"slot":"b","size":2}}}"#
        );
        assert_eq!(serde_json::from_str::<Assembly>(&text).unwrap(), assembly);
        assert_eq!(
            serde_json::from_str::<Assembly>(r#"{"offset":3}"#).unwrap(),
            Assembly { offset: 3, multipart: None }
        );
    }
}
