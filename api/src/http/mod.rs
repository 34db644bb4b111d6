//! HTTP itself: the accept loop (`server`), the route table and the router (`routes`), the error envelope
//! and the `Allow` header it adds (`envelope`, `allow`), JSON bodies (`body`) and request telemetry.

pub(crate) mod allow;
pub(crate) mod body;
pub(crate) mod envelope;
pub(crate) mod routes;
pub mod server;
pub(crate) mod table;
pub(crate) mod telemetry;
