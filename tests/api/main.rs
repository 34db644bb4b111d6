//! The end-to-end suite: one binary, a module per area. Every test talks HTTP to a real server.

mod auth;
mod cluster;
mod delivery;
mod errors;
mod files;
mod health;
mod helpers;
mod openapi;
mod rate_limit;
mod startup;
mod thumbnail;
mod transform;
mod transform_url;
mod upload;
mod warm;
