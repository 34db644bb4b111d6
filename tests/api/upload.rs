//! upload
