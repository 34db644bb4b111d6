//! Variants, the transformed images of a file, as one concern: what a variant is (`VariantSpec`, named by
//! `VariantKey`), where it is found (memory, the object store), how it is made (the pipeline on the
//! `RenderPool`'s threads, requests before jobs, behind `RenderAdmission`) and how it is made once
//! (`RenderFlight`). Requests call `Variants::get`, jobs `Variants::ensure`; the HTTP layer and the worker
//! know nothing else of rendering. A video's frames are sources like any other (`video`): its poster stands
//! in as its working copy, a frame at `t` is decoded for its variant. Stored variants are a bounded cache (`StoreBounds`, `Variants::trim`).

mod admission;
mod bounds;
mod child;
mod error;
mod flight;
mod render_pool;
mod renderer;
mod sources;
mod spec;
mod variants;
mod video;

pub mod isolation;
pub use admission::{RenderAdmission, RenderBudget, Throttled, Unlimited};
pub use bounds::{Keep, StoreBounds, StoreStats};
pub use error::VariantError;
pub use flight::{Claim, FlightError, Held, LocalFlight, RenderFlight};
pub use render_pool::{PoolError, Priority, RenderPool};
pub use renderer::{RenderTimes, Variant};
pub use spec::{VariantKey, VariantSpec};
pub use variants::{Description, VariantStats, Variants, beyond_duration};
pub use video::{VideoDecoder, read_video_facts_stored};
