//! Human-readable renderings of sizes and times used in the file object (`size`, `updated`, `rawUpdated`).

use chrono::{DateTime, SecondsFormat, Utc};

const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];

/// `532 B`, `2 KB`, `1.5 MB`, `3.25 GB`: 1024-based, at most two decimals, trailing zeros dropped.
pub fn human_size(bytes: u64) -> String {
    let mut unit = 0;
    let mut value = bytes as f64;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    // Rounding can carry into the next unit (1023.999 KB shows as 1 MB, not 1024 KB).
    let mut hundredths = (value * 100.0).round();
    if hundredths >= 102_400.0 && unit < UNITS.len() - 1 {
        unit += 1;
        hundredths = (hundredths / 1024.0).round();
    }
    let text = format!("{:.2}", hundredths / 100.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {}", UNITS[unit])
}

/// `Just now` under a minute, then `N minutes ago`, `N hours ago`, `N days ago`, `N months ago` (30 days),
/// `N years ago` (365 days), singular for one. A time in the future (clock skew) reads `Just now`.
pub fn time_ago(now_ms: i64, then_ms: i64) -> String {
    let seconds = (now_ms - then_ms).max(0) / 1000;
    let (n, unit) = match seconds {
        s if s < 60 => return "Just now".to_owned(),
        s if s < 3600 => (s / 60, "minute"),
        s if s < 86_400 => (s / 3600, "hour"),
        s if s < 30 * 86_400 => (s / 86_400, "day"),
        s if s < 365 * 86_400 => (s / (30 * 86_400), "month"),
        s => (s / (365 * 86_400), "year"),
    };
    if n == 1 { format!("1 {unit} ago") } else { format!("{n} {unit}s ago") }
}

/// ISO 8601 in UTC with milliseconds: `2026-11-22T10:11:12.345Z`.
pub fn iso_millis(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_documented_shape() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(532), "532 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(2048), "2 KB");
        assert_eq!(human_size(1536 * 1024), "1.5 MB");
        assert_eq!(human_size(3_489_660_928), "3.25 GB");
        assert_eq!(human_size(1024 * 1024 - 1), "1 MB");
        assert_eq!(human_size(1234), "1.21 KB");
        assert_eq!(human_size(u64::MAX), "16384 PB");
    }

    #[test]
    fn times_read_like_a_person_would_say_them() {
        let now = 1_000_000_000_000;
        assert_eq!(time_ago(now, now), "Just now");
        assert_eq!(time_ago(now, now - 59_999), "Just now");
        assert_eq!(time_ago(now, now + 5_000), "Just now");
        assert_eq!(time_ago(now, now - 60_000), "1 minute ago");
        assert_eq!(time_ago(now, now - 59 * 60_000), "59 minutes ago");
        assert_eq!(time_ago(now, now - 3_600_000), "1 hour ago");
        assert_eq!(time_ago(now, now - 5 * 3_600_000), "5 hours ago");
        assert_eq!(time_ago(now, now - 86_400_000), "1 day ago");
        assert_eq!(time_ago(now, now - 45 * 86_400_000), "1 month ago");
        assert_eq!(time_ago(now, now - 400 * 86_400_000), "1 year ago");
        assert_eq!(time_ago(now, now - 800 * 86_400_000), "2 years ago");
    }

    #[test]
    fn timestamps_are_utc_with_milliseconds() {
        assert_eq!(iso_millis(1_795_342_272_345), "2026-11-22T10:11:12.345Z");
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
    }
}
