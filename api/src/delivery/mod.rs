//! Public delivery: `/v1/file/` (an image, transformed), `/v1/raw/` (the stored bytes) and thumbnails,
//! with what decides them: the operator's access rules (`access`: signing, presets), the request's text
//! (`query`), delivery's rule of original or variant (`rules::Rendition`, which transform-url and warming
//! follow too), the path lookup and the response cache.

mod access;
mod file;
mod lookup;
mod presets;
mod query;
mod responses;
mod rules;
mod signing;
mod thumbnails;

pub use access::DeliveryAccess;
pub(crate) use file::{answer_kept, deliver_file, deliver_raw};
pub use lookup::PathLookup;
pub use presets::Presets;
pub(crate) use query::query_pairs;
pub use responses::ResponseCache;
pub(crate) use rules::Rendition;
pub use signing::{KeysError, UrlSigningKeys};
pub(crate) use signing::{PRESET, SIGNATURE};
pub(crate) use thumbnails::{PRESET as THUMBNAIL_PRESET, enqueue as enqueue_thumbnail, thumbnail};
