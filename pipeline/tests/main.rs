//! The pipeline's integration tests, one binary with a module per area (each module's page says what it
//! proves). Fixtures and reference readers shared by several are in `common/`.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod animation_props;
mod corpus_animation;
mod corpus_libvips;
mod corpus_orientation;
mod decode_paths;
mod facts_reference;
mod format_bounds;
mod gravity_sharp;
mod params_props;
mod render_props;
mod sharp_geometry;
mod video_facts;
