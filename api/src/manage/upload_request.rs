//! What an upload asks for (name, folder, declared type), checked once whichever way it arrives: presign
//! (`upload`) or resumable creation (`resumable`); and the pending upload that receives it.

use shutterbox_metadata::{PendingUpload, Resumable};
use shutterbox_model::{AccountId, FileName, FolderPath, PendingId, sniff};
use shutterbox_storage::ObjectKey;

use crate::{error::ApiError, state::Settings};

/// An upload's name, folder and type, checked as presign checks them (resumable creation too).
pub(crate) struct UploadRequest {
    name: FileName,
    folder: Option<FolderPath>,
    mimetype: String,
}

impl UploadRequest {
    pub(crate) fn check(
        filename: &str,
        custom_filename: Option<&str>,
        folder_name: Option<&str>,
        mimetype: &str,
    ) -> Result<Self, ApiError> {
        let name =
            FileName::from_upload(filename, custom_filename).map_err(|e| ApiError::bad_request(e.to_string()))?;
        let folder = match folder_name {
            Some(folder) => FolderPath::parse(folder).map_err(|e| ApiError::bad_request(e.to_string()))?,
            None => None,
        };
        let mimetype = sniff::normalize_mime(mimetype)
            .ok_or_else(|| ApiError::bad_request("mimetype must be a MIME type such as 'image/png'"))?;
        Ok(Self { name, folder, mimetype })
    }

    /// The pending upload that receives it, expiring `upload_expiry_secs` after `now`.
    pub(crate) fn pending(
        self,
        id: PendingId,
        account_id: AccountId,
        size: u64,
        settings: &Settings,
        now: i64,
        resumable: Option<Resumable>,
    ) -> PendingUpload {
        let expires_in = settings.upload_expiry_secs;
        PendingUpload {
            object_key: ObjectKey::pending(&id),
            id,
            account_id,
            name: self.name.as_str().to_owned(),
            folder: self.folder.map(|f| f.to_string()),
            declared_type: self.mimetype,
            size,
            expires_at_ms: now + i64::try_from(expires_in.saturating_mul(1000)).unwrap_or(i64::MAX),
            created_at_ms: now,
            file_id: None,
            resumable,
        }
    }
}
