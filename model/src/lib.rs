//! Shutterbox's domain rules, free of I/O: how stored paths are built and sanitized, the one table of media
//! formats and how a file's type is decided from its bytes, how sizes and times are shown to users, what
//! each key scope may do, and how API keys are minted and hashed. Every other crate takes these rules from here so they live in one place.

pub mod assembly;
pub mod clock;
pub mod display;
pub mod facts;
pub mod focus;
pub mod id;
pub mod key;
pub mod media;
pub mod object_key;
pub mod path;
pub mod scope;
pub mod sniff;

pub use assembly::{Assembly, Multipart, Part, Tail, TailSlot};
pub use display::{human_size, iso_millis, time_ago};
pub use facts::{FrameRate, ImageFacts, PixelSummary, Rgb, VideoFacts};
pub use focus::{FOCAL_UNITS, FocalPoint};
pub use id::{AccountId, BatchId, FileId, FolderId, KeyId, PendingId, VariantDigest};
pub use key::{ApiKeySecret, KeyHash};
pub use media::{FileKind, JSON_UTF8, MEDIA_FORMATS, MediaFormat, MediaFormatInfo, VideoContainer};
pub use object_key::{KeyError, ObjectKey};
pub use path::{AccountName, FileName, FolderPath, PathError, StoredPath};
pub use scope::{Operation, Scope};
pub use sniff::{MediaType, SniffedType};
