//! Shutterbox's image pipeline: pure code, no I/O, the one place where transformation rules live. It is
//! shared by the API (validation, cache keys, synchronous renders) and the workers (precomputed variants).
//!
//! `params` parses a delivery query string (or a transform-url body) into a validated, canonical
//! `Transform`; its canonical text is the variant's cache key, independent of parameter order.

pub mod params;

pub use params::{Border, Crop, Fit, Format, ParamError, Quality, Transform};
