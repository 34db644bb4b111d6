//! HTTP itself, the crate's bottom layer: the accept loop (`server`), what a route is (`route`: the row each
//! handler's module writes beside it, with its paths, methods, operation id and URL builders), the error
//! envelope and the `Allow` header it adds (`envelope`, `allow`), JSON bodies (`body`) and request
//! telemetry. The router that lists the rows and mounts them is the crate's top (`crate::router`).

pub(crate) mod allow;
pub(crate) mod body;
pub(crate) mod envelope;
pub mod route;
pub mod server;
pub(crate) mod telemetry;
