//! Typed ids. Every id is text on the wire and in the database (a UUID the service minted, or whatever a
//! caller sent, which simply finds nothing), but each kind is its own type, so a file id cannot be passed
//! where an account id is expected. They are parsed into these types where they enter (a URL, a row, a
//! job) and stay typed from there.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! text_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as it arrived (from a URL, a row or a job); not checked, as an unknown id only finds
            /// nothing.
            pub fn new(text: impl Into<String>) -> Self {
                Self(text.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                Self(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                Self(text.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }
    };
}

macro_rules! minted_id {
    ($(#[$doc:meta])* $name:ident) => {
        text_id!($(#[$doc])* $name);

        impl $name {
            /// A new id: a time-ordered UUID (v7), so ids sort by creation.
            pub fn mint() -> Self {
                Self(uuid::Uuid::now_v7().to_string())
            }
        }
    };
}

minted_id!(
    /// A stored file (`files.id`).
    FileId
);
minted_id!(
    /// An account (`accounts.id`).
    AccountId
);
minted_id!(
    /// A warming batch (`POST /v1/warm`).
    BatchId
);
minted_id!(
    /// A folder of an account (`folders.id`, a File's `folderId`).
    FolderId
);
minted_id!(
    /// An API key (`api_keys.id`): what lists and revokes it, never its secret.
    KeyId
);
text_id!(
    /// A pending upload (`pendingUploadId`).
    PendingId
);

impl PendingId {
    /// A new id: a random UUID (v4), as nothing orders pending uploads and it tells nothing of when.
    pub fn mint() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }
}
text_id!(
    /// Names a variant of a file: a digest of its canonical transformation and target format
    /// (`VariantSpec::new` computes it; nothing else does).
    VariantDigest
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_their_text_on_the_wire() {
        let id = FileId::new("0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"0193a6c4-7f5e-7b7a-9c1e-2a9f3b1d4e5f\"");
        assert_eq!(serde_json::from_str::<FileId>("\"x\"").unwrap(), FileId::new("x"));
        assert_eq!(id.to_string(), id.as_str());
    }

    #[test]
    fn minted_ids_are_time_ordered_uuids() {
        let (a, b) = (BatchId::mint(), BatchId::mint());
        assert!(a < b, "{a} then {b}");
        assert_eq!(uuid::Uuid::parse_str(a.as_str()).unwrap().get_version_num(), 7);
    }
}
