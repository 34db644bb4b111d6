//! The wall clock as the rest of the code stores time: Unix milliseconds.

/// The current time in Unix milliseconds (0 before 1970, saturating far in the future).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
