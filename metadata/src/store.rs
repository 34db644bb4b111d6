//! The metadata's traits, one per aggregate, each with the records it reads and writes.

pub mod accounts;
pub mod files;
pub mod intents;
pub mod uploads;
pub mod variants;
pub mod warming;
