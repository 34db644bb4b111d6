//! Per-key rate limiting in fixed windows, and the `X-RateLimit-*` headers that report it. The limiter sits
//! behind a trait: in-process here, shared through Redis in distributed mode (`coordination::RedisLimiter`).

use std::{
    collections::HashMap,
    fmt,
    str::FromStr,
    sync::{Arc, Mutex, OnceLock},
    time::{SystemTime, UNIX_EPOCH},
};

use async_trait::async_trait;
use poem::http::{HeaderMap, HeaderName, HeaderValue, header};

/// `<requests>/<seconds>s`, e.g. `1200/60s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitSpec {
    pub requests: u64,
    pub window_secs: u64,
}

impl Default for RateLimitSpec {
    fn default() -> Self {
        Self { requests: 1200, window_secs: 60 }
    }
}

impl FromStr for RateLimitSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("rate limit '{s}' is not of the form <requests>/<seconds>s, e.g. 1200/60s");
        let (requests, window) = s.split_once('/').ok_or_else(bad)?;
        let requests: u64 = requests.trim().parse().map_err(|_| bad())?;
        let window_secs: u64 = window.trim().strip_suffix('s').ok_or_else(bad)?.parse().map_err(|_| bad())?;
        if requests == 0 || window_secs == 0 {
            return Err(bad());
        }
        Ok(Self { requests, window_secs })
    }
}

impl RateLimitSpec {
    /// Start of the window `now` falls in (windows are aligned to multiples of their length).
    pub fn window_start(&self, now: u64) -> u64 {
        now - now % self.window_secs
    }

    /// The verdict on a request that makes `used` requests in the window of `now`.
    pub fn decide(&self, used: u64, now: u64) -> RateDecision {
        RateDecision {
            allowed: used <= self.requests,
            limit: self.requests,
            remaining: self.requests.saturating_sub(used),
            reset_at: self.window_start(now) + self.window_secs,
            now,
        }
    }
}

impl fmt::Display for RateLimitSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}s", self.requests, self.window_secs)
    }
}

/// The limiter's verdict on one request, and the numbers for the response headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateDecision {
    pub allowed: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Unix epoch seconds at which the window resets.
    pub reset_at: u64,
    /// Unix epoch seconds when the decision was made.
    pub now: u64,
}

impl RateDecision {
    /// Whole seconds until the window resets (at least 1).
    pub fn retry_after(&self) -> u64 {
        self.reset_at.saturating_sub(self.now).max(1)
    }

    pub fn apply(&self, headers: &mut HeaderMap) {
        let set = |headers: &mut HeaderMap, name: &'static str, value: u64| {
            headers.insert(HeaderName::from_static(name), HeaderValue::from(value));
        };
        set(headers, "x-ratelimit-limit", self.limit);
        set(headers, "x-ratelimit-remaining", self.remaining);
        set(headers, "x-ratelimit-reset", self.reset_at);
        if !self.allowed {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(self.retry_after()));
        }
    }
}

pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[async_trait]
pub trait RateLimiter: Send + Sync + 'static {
    /// Counts one request against `bucket` and says whether it is allowed.
    async fn check(&self, bucket: &str) -> RateDecision;
}

/// Fixed windows aligned to multiples of the window length, counted in memory.
pub struct InProcessLimiter {
    spec: RateLimitSpec,
    windows: Mutex<Windows>,
}

/// The counts of the current window, by bucket.
#[derive(Default)]
struct Windows {
    start: u64,
    counts: HashMap<String, u64>,
}

/// The most buckets counted in one window (~100 bytes each); past it, new buckets share one count
/// (`OVERFLOW`), so a spray of addresses can neither grow the map nor escape the limit.
const MAX_BUCKETS: usize = 100_000;
const OVERFLOW: &str = "overflow";

impl InProcessLimiter {
    pub fn new(spec: RateLimitSpec) -> Self {
        Self { spec, windows: Mutex::new(Windows::default()) }
    }

    /// The verdict on one more request of `bucket` at Unix second `now`.
    pub fn check_at(&self, bucket: &str, now: u64) -> RateDecision {
        let window_start = self.spec.window_start(now);
        let mut windows = self.windows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Every count belongs to the current window: a new window starts them all again, at once.
        if windows.start != window_start {
            windows.start = window_start;
            windows.counts.clear();
        }
        let full = windows.counts.len() >= MAX_BUCKETS && !windows.counts.contains_key(bucket);
        let bucket = if full { OVERFLOW } else { bucket };
        let count = windows.counts.entry(bucket.to_owned()).or_insert(0);
        *count = count.saturating_add(1);
        let count = *count;
        self.spec.decide(count, now)
    }

    /// Buckets counted in the current window (tests).
    #[cfg(test)]
    fn buckets(&self) -> usize {
        self.windows.lock().map_or(0, |w| w.counts.len())
    }
}

#[async_trait]
impl RateLimiter for InProcessLimiter {
    async fn check(&self, bucket: &str) -> RateDecision {
        self.check_at(bucket, unix_now())
    }
}

/// Where the authenticator leaves its rate-limit decision for the response envelope to report.
#[derive(Clone, Default)]
pub struct RateLimitSlot(Arc<OnceLock<RateDecision>>);

impl RateLimitSlot {
    pub fn get(&self) -> Option<RateDecision> {
        self.0.get().copied()
    }

    pub fn set(&self, decision: RateDecision) {
        let _ = self.0.set(decision);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spray_of_buckets_is_held_to_the_cap_and_limited_together() {
        let limiter = InProcessLimiter::new("5/60s".parse().unwrap());
        let now = 6_000;
        for n in 0..MAX_BUCKETS + 50 {
            limiter.check_at(&format!("addr:{n}"), now);
        }
        assert_eq!(limiter.buckets(), MAX_BUCKETS + 1, "the cap, and the one shared count");
        assert!(!limiter.check_at("addr:new", now).allowed, "past the cap new buckets share a spent count");
        assert!(limiter.check_at("addr:0", now).allowed, "a bucket counted before keeps its own count");
        // The next window forgets them all.
        assert!(limiter.check_at("addr:new", now + 60).allowed);
        assert_eq!(limiter.buckets(), 1);
    }

    #[test]
    fn specs_parse() {
        assert_eq!("1200/60s".parse(), Ok(RateLimitSpec { requests: 1200, window_secs: 60 }));
        for bad in ["", "1200", "1200/60", "0/60s", "10/0s", "a/60s", "10/xs"] {
            assert!(bad.parse::<RateLimitSpec>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn windows_count_and_reset() {
        let limiter = InProcessLimiter::new(RateLimitSpec { requests: 2, window_secs: 60 });
        let first = limiter.check_at("k", 120);
        assert_eq!((first.allowed, first.remaining, first.reset_at), (true, 1, 180));
        assert!(limiter.check_at("k", 130).allowed);
        let third = limiter.check_at("k", 179);
        assert_eq!((third.allowed, third.remaining, third.retry_after()), (false, 0, 1));
        assert!(limiter.check_at("other", 179).allowed);
        assert!(limiter.check_at("k", 180).allowed);
    }
}
