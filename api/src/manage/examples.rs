//! The example value of every schema in the OpenAPI document (`#[oai(example)]`), telling one story:
//! account `default` uploads `cat.jpg` into folder `pets`, reads it, asks for a 400 px WebP URL and warms
//! two widths. Swagger UI shows these as the request bodies to edit and the responses to expect; SDK
//! generators copy them into their docs. Written as the types themselves, so an example cannot drift from
//! its schema.

use std::collections::BTreeMap;

use poem_openapi::types::{Example, MaybeUndefined};
use serde_json::{Value, json};
use shutterbox_model::MediaFormat;
use shutterbox_pipeline::{Crop, Format, Quality, Transform};

use super::{
    file_object::{FileObject, Focus},
    files::{FileEnvelope, FileList, FilePatch, Message, Pagination},
    folders::{Folder, FolderList},
    key::{DeliveryRules, KeyInfo, Preset},
    transform::{OriginalFile, TransformUrl},
    upload::{ConfirmRequest, ConfirmResponse, PendingUploadObject, PresignRequest},
    warm::{WarmBatchStatus, WarmItemFailure, WarmRequest},
};
use crate::{
    delivery::{DELIVER_FILE, DELIVER_RAW, GET_THUMBNAIL},
    error::ErrorBody,
    storage::STORAGE_UPLOAD,
};

const FILE_ID: &str = "0193b8a2-5c4e-7d10-9a2b-6f1e4c3d2b1a";
const PENDING_ID: &str = "0193b8a2-4f00-7c3e-8e11-2a9b7c6d5e4f";
const PUBLIC_URL: &str = "https://img.example.com";
const BASE: &str = "https://img.example.com/v1";
/// `cat.jpg` in folder `pets` of account `default`.
const STORED_PATH: &str = "default/pets/cat.jpg";

impl Example for PresignRequest {
    fn example() -> Self {
        Self {
            filename: "cat.jpg".into(),
            mimetype: MediaFormat::Jpeg.mime().into(),
            size: 245_760,
            custom_filename: None,
            folder_name: Some("pets".into()),
            resumable: None,
        }
    }
}

impl Example for PendingUploadObject {
    fn example() -> Self {
        Self {
            upload_url: format!(
                "{}?expires=1764000000&size=245760&signature=9c1e2a…",
                STORAGE_UPLOAD.url(PUBLIC_URL, &[&format!("pending/{PENDING_ID}")])
            ),
            pending_upload_id: PENDING_ID.into(),
            expires_in: 3600,
        }
    }
}

impl Example for ConfirmRequest {
    fn example() -> Self {
        Self { pending_upload_id: PENDING_ID.into() }
    }
}

impl Example for FileObject {
    fn example() -> Self {
        Self {
            id: FILE_ID.into(),
            name: "cat.jpg".into(),
            secure_url: DELIVER_FILE.url(BASE, &[STORED_PATH]),
            secure_thumbnail_url: GET_THUMBNAIL.url(BASE, &[FILE_ID]),
            raw_url: DELIVER_RAW.url(BASE, &[STORED_PATH]),
            kind: "image".into(),
            raw_type: MediaFormat::Jpeg.mime().into(),
            size: "240 KB".into(),
            raw_size: 245_760,
            updated: "Just now".into(),
            raw_updated: "2026-11-24T09:30:00.000Z".into(),
            folder_id: Some(FOLDER_ID.into()),
            focus: Some(Focus::example()),
            width: Some(1600),
            height: Some(1200),
            has_alpha: Some(false),
            animated: Some(false),
            frame_count: Some(1),
            // A photo: no video's facts.
            duration: None,
            frame_rate: None,
            video_codec: None,
            audio_codec: None,
            bitrate: None,
            // A real 4:3 photo of a cat: its values.
            dominant_color: Some("#889878".into()),
            thumbhash: Some("YvgBDYJ/711fVofGOLGIiZCv+yl2".into()),
            blurhash: Some("L9G9Nl?1RO-.?oR#R*RkRzx:s=Mz".into()),
            placeholder: Some(
                "data:image/webp;base64,UklGRlIAAABXRUJQVlA4IEYAAADwAQCdASoQAAwAAkA4JYwAAtvo74iKo0AA/o9lBziW+kolSGFU\
                 FZW54gykBgfKsdYRV6AKwn1/+jXNePuHW2EA6/Xeu1AA"
                    .into(),
            ),
        }
    }
}

impl Example for Focus {
    fn example() -> Self {
        Self { x: 0.5, y: 0.3 }
    }
}

impl Example for FilePatch {
    fn example() -> Self {
        Self { focus: MaybeUndefined::Value(Focus::example()) }
    }
}

impl Example for ConfirmResponse {
    fn example() -> Self {
        Self { message: "Upload confirmed".into(), file: FileObject::example() }
    }
}

impl Example for FileEnvelope {
    fn example() -> Self {
        Self { file: FileObject::example() }
    }
}

impl Example for Pagination {
    fn example() -> Self {
        Self { page: 1, page_size: 20, total_count: 1, total_pages: 1 }
    }
}

impl Example for FileList {
    fn example() -> Self {
        Self { files: vec![FileObject::example()], pagination: Pagination::example() }
    }
}

const FOLDER_ID: &str = "0193b8a2-4e10-7a55-b3c1-9d8e7f6a5b4c";

impl Example for Folder {
    fn example() -> Self {
        Self {
            id: FOLDER_ID.into(),
            name: "pets".into(),
            path: "pets".into(),
            parent_id: None,
            file_count: 1,
            folder_count: 0,
        }
    }
}

impl Example for FolderList {
    fn example() -> Self {
        Self { folders: vec![Folder::example()], parents: Vec::new(), pagination: Pagination::example() }
    }
}

impl Example for Preset {
    fn example() -> Self {
        Self {
            name: "thumb".into(),
            query: query(Transform { width: Some(200), height: Some(200), ..Transform::NONE }),
        }
    }
}

impl Example for DeliveryRules {
    fn example() -> Self {
        Self { signed_urls: false, presets_only: false, presets: vec![Preset::example()] }
    }
}

impl Example for KeyInfo {
    fn example() -> Self {
        Self {
            account: "default".into(),
            scope: "secret".into(),
            allows: ["presign", "confirm", "list", "get", "delete", "update", "transformUrl", "warm", "manageKeys"]
                .map(String::from)
                .to_vec(),
            delivery: DeliveryRules::example(),
            max_upload_bytes: 104_857_600,
        }
    }
}

impl Example for Message {
    fn example() -> Self {
        Self { message: "File deleted".into() }
    }
}

/// A delivery query, as the parameter table writes it.
fn query(transform: Transform) -> String {
    transform.to_query()
}

/// A 400-pixel-wide WebP at automatic quality: the transform-url example.
fn webp_400() -> Transform {
    let format = Some(Format::Named(MediaFormat::Webp));
    Transform { format, width: Some(400), quality: Quality::Auto, quality_given: true, ..Transform::NONE }
}

/// A transform-url body (its schema is written from the parameter table, `TransformRequest`).
pub fn transform_request_example() -> Value {
    json!({ "w": 400, "q": "auto", "format": "webp" })
}

impl Example for OriginalFile {
    fn example() -> Self {
        Self { id: FILE_ID.into(), filename: "cat.jpg".into(), mimetype: MediaFormat::Jpeg.mime().into() }
    }
}

impl Example for TransformUrl {
    fn example() -> Self {
        Self {
            url: format!("{}?{}", DELIVER_FILE.url(BASE, &["default/pets/cat.webp"]), query(webp_400())),
            original_file: OriginalFile::example(),
            transformations: json!({ "w": 400, "q": "auto", "format": "webp" }),
        }
    }
}

impl Example for WarmRequest {
    fn example() -> Self {
        let webp = Some(Format::Named(MediaFormat::Webp));
        let transformations = vec![
            query(Transform { width: Some(320), ..Transform::NONE }),
            query(Transform { width: Some(640), format: webp, ..Transform::NONE }),
        ];
        Self { file_ids: Some(vec![FILE_ID.into()]), transformations }
    }
}

impl Example for WarmBatchStatus {
    fn example() -> Self {
        Self {
            batch_id: "0193b8a3-0a00-7b2c-8d4e-5f6a7b8c9d0e".into(),
            total: 3,
            done: 1,
            failed: 1,
            pending: 1,
            complete: false,
            failures: vec![WarmItemFailure::example()],
            failures_pagination: Pagination::example(),
        }
    }
}

impl Example for WarmItemFailure {
    fn example() -> Self {
        Self {
            file_id: FILE_ID.into(),
            transformation: query(Transform {
                width: Some(320),
                crop: Some(Crop { x: 2000, y: 0, width: 400, height: 400 }),
                ..Transform::NONE
            }),
            reason: "the crop rectangle lies outside the 1200x800 image".into(),
        }
    }
}

impl Example for ErrorBody {
    fn example() -> Self {
        Self { message: "no file with this id".into(), status: 404, headers: BTreeMap::new() }
    }
}

impl Example for super::keys::ApiKeyInfo {
    fn example() -> Self {
        Self {
            id: "0193a5f2-7c1e-7d40-9b1a-3f5e2d8c4b10".into(),
            prefix: "sbx_3f9a1c".into(),
            scope: "upload".into(),
            created_at: "2026-11-30T09:12:44.120Z".into(),
            expires_at: Some("2026-12-30T09:12:44.120Z".into()),
            revoked_at: None,
            state: "active".into(),
        }
    }
}

impl Example for super::keys::ApiKeyList {
    fn example() -> Self {
        Self { keys: vec![super::keys::ApiKeyInfo::example()] }
    }
}

impl Example for super::keys::CreateKeyRequest {
    fn example() -> Self {
        Self { scope: "upload".into(), expires_in_days: Some(30) }
    }
}

impl Example for super::keys::CreatedKey {
    fn example() -> Self {
        Self {
            key: "sbx_3f9a1c5e0b7d2a4f6c8e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d0f1a3".into(),
            info: super::keys::ApiKeyInfo::example(),
        }
    }
}
