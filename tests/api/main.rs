//! The end-to-end suite: one binary, a module per area. Every test talks HTTP to a real server.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod animation;
mod attacks;
mod auth;
mod browsing;
mod cluster;
mod delivery;
mod errors;
mod facts;
mod faults;
mod files;
mod formats;
mod health;
mod helpers;
mod keys;
mod limits;
mod migrate_store;
mod observability;
mod openapi;
mod rate_limit;
mod resumable;
mod security;
mod shutdown;
mod startup;
mod sweep;
mod throttle;
mod thumbnail;
mod transform;
mod transform_url;
mod upload;
mod variant_store;
mod video;
mod warm;
