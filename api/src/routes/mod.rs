//! HTTP routes: the documented management API (`upload`, `files`), public delivery of stored bytes
//! (`delivery`, `thumbnail`), the local store's presigned upload target (`storage`) and probes (`health`).

pub mod delivery;
pub mod files;
pub mod health;
pub mod storage;
pub mod thumbnail;
pub mod transform;
pub mod upload;
pub mod warm;

use poem_openapi::Tags;

#[derive(Tags)]
pub enum ApiTags {
    /// Presigned uploads: presign, send the bytes, confirm.
    Upload,
    /// Listing, reading and deleting files.
    Files,
    /// Rendering variants ahead of their first request, in batches.
    Warming,
}
