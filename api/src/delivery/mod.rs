//! Public delivery: `/v1/file/` (an image, transformed), `/v1/raw/` (the stored bytes) and thumbnails,
//! with what decides them: the operator's access rules (`access`: signing, presets), the request's text
//! (`query`), delivery's rule of original or variant (`rules::Rendition`, which transform-url and warming
//! follow too), the path lookup and the response cache. Their three routes' rows are here, where every
//! file of delivery, and the file object's URLs, read them.

mod access;
mod file;
mod lookup;
mod presets;
mod query;
mod responses;
mod rules;
mod signing;
mod thumbnails;

use poem::EndpointExt;

use crate::http::route::{GET_HEAD, MethodCheck, RouteSpec};

pub use access::DeliveryAccess;
pub(crate) use file::answer_kept;
use file::{deliver_file, deliver_raw};
pub use lookup::PathLookup;
pub use presets::Presets;
pub(crate) use query::query_pairs;
pub use responses::ResponseCache;
pub(crate) use rules::Rendition;
pub use signing::{KeysError, UrlSigningKeys};
pub(crate) use signing::{PRESET, SIGNATURE};
use thumbnails::thumbnail;
pub(crate) use thumbnails::{PRESET as THUMBNAIL_PRESET, enqueue as enqueue_thumbnail};

/// `/v1/file/<stored path>?<transformations>`: an image, transformed.
pub static DELIVER_FILE: RouteSpec = RouteSpec {
    paths: &["/v1/file/*path"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "deliverFile",
    documented: true,
    handler: |_| deliver_file.map_to_response().boxed(),
};

/// `/v1/raw/<stored path>`: the stored bytes.
pub static DELIVER_RAW: RouteSpec = RouteSpec {
    paths: &["/v1/raw/*path"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "deliverRaw",
    documented: true,
    handler: |_| deliver_raw.map_to_response().boxed(),
};

/// `/v1/files/<id>/thumbnail`.
pub static GET_THUMBNAIL: RouteSpec = RouteSpec {
    paths: &["/v1/files/:id/thumbnail"],
    methods: GET_HEAD,
    method_check: MethodCheck::Router,
    operation_id: "getThumbnail",
    documented: true,
    handler: |_| thumbnail.map_to_response().boxed(),
};
