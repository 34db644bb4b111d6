//! HTTP itself, the crate's bottom layer: the accept loop (`server`), the route table (`table`: each route's
//! paths, methods and operation id, which every layer names routes by), the error envelope and the `Allow`
//! header it adds (`envelope`, `allow`), JSON bodies (`body`) and request telemetry. The router that mounts
//! the handlers on them is the crate's top (`crate::router`).

pub(crate) mod allow;
pub(crate) mod body;
pub(crate) mod envelope;
pub mod server;
pub(crate) mod table;
pub(crate) mod telemetry;
