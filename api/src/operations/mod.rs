//! The workflows of a file's life that span several backends, as operations the handlers call after
//! parsing and authorizing: `confirm` (copy-then-claim) and `delete`. They know nothing of HTTP; their
//! errors are typed and become statuses once, in `error.rs`.

pub mod confirm;
pub mod delete;

pub use confirm::{ConfirmError, Confirmed, confirm};
pub use delete::delete;
