//! The management API, the OpenAPI service's operations: presigned uploads (`upload`, and `confirm`, the
//! copy-then-claim workflow), files (`files`, and `delete`), transform-url (`transform`) and batch warming
//! (`warm`), folders (`folders`), the calling key (`key`) and the account's keys (`keys`), with the file object they answer with (`file_object`) and the schemas' examples.

mod confirm;
mod delete;
mod examples;
mod file_object;
mod files;
mod folders;
mod key;
mod keys;
pub(crate) mod resumable;
mod transform;
mod upload;
mod upload_request;
mod warm;

pub(crate) use examples::transform_request_example;
pub(crate) use files::FilesApi;
pub(crate) use folders::FoldersApi;
pub(crate) use key::KeyApi;
pub(crate) use keys::KeysApi;
pub(crate) use transform::TransformApi;
pub(crate) use upload::UploadApi;
pub(crate) use warm::WarmApi;
