//! The opt-in cold-render throttle (`SHUTTERBOX_COLD_RENDER_LIMIT`): each client address may cause so many
//! renders per window; beyond that a delivery that would render is answered 429 with `Retry-After`, while
//! cached and stored variants are served as ever (`Variants::get` spends from the budget only for a render
//! the request itself would start). Counted by the `RateLimiter` the API keys' limit uses, so in
//! distributed mode every node draws on one budget per address (Redis).
//!
//! The client address is the connection's peer unless the operator names the header their proxy sets
//! (`ClientAddresses`); a header no proxy of theirs controls would let anyone pick their own address.
//! IPv6 addresses count per /64, the block one subscriber is given, so stepping through addresses inside
//! it does not multiply the budget.

use std::{
    fmt,
    net::{IpAddr, Ipv6Addr},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use async_trait::async_trait;
use poem::{
    Request,
    http::{HeaderMap, HeaderName},
};
use shutterbox_variants::{RenderBudget, Throttled};

use crate::rate_limit::RateLimiter;

/// Where a request's client address is read.
#[derive(Debug, Clone, Default)]
pub struct ClientAddresses {
    /// The header the operator's proxy sets (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`, …); `None`:
    /// the connection's peer.
    header: Option<HeaderName>,
    /// Proxies of the operator's that append to `header`: the client is that many entries from its end.
    hops: usize,
}

impl ClientAddresses {
    /// The peer's address, whatever the headers say (the default).
    pub fn peer() -> Self {
        Self::default()
    }

    /// Read from `header`, `hops` entries from its end (at least 1): with one proxy, the last entry, the
    /// address that proxy saw. A request without the header (one that did not come through the proxy)
    /// counts by its peer.
    pub fn from_header(header: HeaderName, hops: usize) -> Self {
        Self { header: Some(header), hops: hops.max(1) }
    }

    /// The client of a request with `headers` from `peer`.
    pub fn of(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let Some(name) = &self.header else { return peer };
        let entries: Vec<&str> = headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .collect();
        if entries.is_empty() {
            return peer;
        }
        // Fewer entries than proxies: the request skipped the outer ones, and the first entry is the
        // address the first proxy it met saw.
        let entry = entries[entries.len().saturating_sub(self.hops)];
        // An entry that names no address (`unknown`, an obfuscated `Forwarded` node) counts as the peer:
        // the proxy, which is all there is to count.
        parse_entry(entry).or(peer)
    }
}

/// One entry of `X-Forwarded-For`-style headers (`203.0.113.7`, `203.0.113.7:4711`, `[2001:db8::1]:4711`)
/// or of `Forwarded` (`for=203.0.113.7;proto=https`, `for="[2001:db8::1]:4711"`).
fn parse_entry(entry: &str) -> Option<IpAddr> {
    let node = entry
        .split(';')
        .map(str::trim)
        .find_map(|pair| pair.get(..4).filter(|key| key.eq_ignore_ascii_case("for=")).map(|_| &pair[4..]))
        .unwrap_or(entry)
        .trim_matches('"');
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = node.parse::<std::net::SocketAddr>() {
        return Some(socket.ip());
    }
    node.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|ip| ip.parse::<Ipv6Addr>().ok())
        .map(IpAddr::V6)
}

/// The budget an address draws on: itself for IPv4, its /64 for IPv6 (an IPv4-mapped address is IPv4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressBucket(IpAddr);

impl AddressBucket {
    pub fn of(address: IpAddr) -> Self {
        Self(match address {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let s = v6.segments();
                    IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
                }
            },
            v4 => v4,
        })
    }
}

impl fmt::Display for AddressBucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// Cold renders per client address, counted by a limiter of their own.
pub struct ColdRenderThrottle {
    limiter: Arc<dyn RateLimiter>,
    addresses: ClientAddresses,
    /// Renders refused since start (for `/metrics`).
    pub refused: AtomicU64,
}

impl ColdRenderThrottle {
    pub fn new(limiter: Arc<dyn RateLimiter>, addresses: ClientAddresses) -> Self {
        Self { limiter, addresses, refused: AtomicU64::new(0) }
    }

    /// The budget of the client that sent `req`.
    pub fn budget(&self, req: &Request) -> AddressBudget<'_> {
        let peer = req.remote_addr().as_socket_addr().map(std::net::SocketAddr::ip);
        AddressBudget { throttle: Some(self), address: self.addresses.of(req.headers(), peer).map(AddressBucket::of) }
    }
}

/// One request's client's budget; the limiter is asked only when a render is about to start.
pub struct AddressBudget<'a> {
    /// None when the operator set no budget: every render may start.
    throttle: Option<&'a ColdRenderThrottle>,
    address: Option<AddressBucket>,
}

impl AddressBudget<'_> {
    /// The budget of a request to `throttle`, or none when there is no throttle.
    pub fn of<'a>(throttle: Option<&'a ColdRenderThrottle>, req: &Request) -> AddressBudget<'a> {
        match throttle {
            Some(throttle) => throttle.budget(req),
            None => AddressBudget { throttle: None, address: None },
        }
    }
}

#[async_trait]
impl RenderBudget for AddressBudget<'_> {
    async fn spend(&self) -> Result<(), Throttled> {
        let Some(throttle) = self.throttle else { return Ok(()) };
        let bucket = match self.address {
            Some(address) => format!("cold-render:{address}"),
            None => "cold-render:unknown".to_owned(),
        };
        let decision = throttle.limiter.check(&bucket).await;
        if decision.allowed {
            return Ok(());
        }
        throttle.refused.fetch_add(1, Ordering::Relaxed);
        Err(Throttled { retry_after_secs: decision.retry_after() })
    }
}

#[cfg(test)]
mod tests {
    use poem::http::HeaderValue;

    use super::*;

    fn headers(name: &'static str, values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(name, HeaderValue::from_static(value));
        }
        map
    }

    const PEER: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1)));

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn without_a_header_the_peer_counts_whatever_is_sent() {
        let spoofed = headers("x-forwarded-for", &["1.2.3.4"]);
        assert_eq!(ClientAddresses::peer().of(&spoofed, PEER), PEER);
    }

    #[test]
    fn the_named_header_is_read_from_its_end() {
        let xff = ClientAddresses::from_header(HeaderName::from_static("x-forwarded-for"), 1);
        // A client's own (spoofed) entries come first; the proxy appends what it saw.
        assert_eq!(xff.of(&headers("x-forwarded-for", &["6.6.6.6, 203.0.113.7"]), PEER), ip("203.0.113.7"));
        assert_eq!(xff.of(&headers("x-forwarded-for", &["6.6.6.6", "203.0.113.7"]), PEER), ip("203.0.113.7"));
        assert_eq!(xff.of(&headers("x-forwarded-for", &["203.0.113.7:4711"]), PEER), ip("203.0.113.7"));
        assert_eq!(xff.of(&headers("x-forwarded-for", &["[2001:db8::1]:4711"]), PEER), ip("2001:db8::1"));
        assert_eq!(xff.of(&headers("x-forwarded-for", &["2001:db8::1"]), PEER), ip("2001:db8::1"));
        // Missing, empty or not an address: the peer.
        assert_eq!(xff.of(&HeaderMap::new(), PEER), PEER);
        assert_eq!(xff.of(&headers("x-forwarded-for", &[" , "]), PEER), PEER);
        assert_eq!(xff.of(&headers("x-forwarded-for", &["unknown"]), PEER), PEER);

        let two = ClientAddresses::from_header(HeaderName::from_static("x-forwarded-for"), 2);
        assert_eq!(
            two.of(&headers("x-forwarded-for", &["6.6.6.6, 203.0.113.7, 198.51.100.2"]), PEER),
            ip("203.0.113.7")
        );
        assert_eq!(two.of(&headers("x-forwarded-for", &["203.0.113.7"]), PEER), ip("203.0.113.7"));
    }

    #[test]
    fn forwarded_nodes_are_read() {
        let fwd = ClientAddresses::from_header(HeaderName::from_static("forwarded"), 1);
        let value = r#"for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https;by=203.0.113.43"#;
        let map = {
            let mut map = HeaderMap::new();
            map.insert("forwarded", HeaderValue::from_str(value).unwrap());
            map
        };
        assert_eq!(fwd.of(&map, PEER), ip("2001:db8:cafe::17"));
        assert_eq!(fwd.of(&headers("forwarded", &["proto=https;For=192.0.2.60"]), PEER), ip("192.0.2.60"));
        assert_eq!(fwd.of(&headers("forwarded", &["for=_hidden"]), PEER), PEER);
    }

    #[test]
    fn any_header_text_gives_the_peer_or_an_address_written_in_it() {
        // Seeded random values over the characters these headers are made of, and some that are not.
        const ALPHABET: &[char] = &[
            '0', '1', '9', 'a', 'f', 'F', ':', '.', ',', ';', '[', ']', '"', '=', ' ', '_', 'o', 'r', 'é', '\u{202e}',
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let prefixes = ["", "for=", "For=\"", "proto=https;for=", "2001:db8::", "203.0.113."];
        for hops in 1..=3 {
            let addresses = ClientAddresses::from_header(HeaderName::from_static("forwarded"), hops);
            for _ in 0..20_000 {
                let mut text = prefixes[next(prefixes.len())].to_owned();
                text.extend((0..next(24)).map(|_| ALPHABET[next(ALPHABET.len())]));
                let Ok(value) = HeaderValue::from_str(&text) else { continue };
                let mut map = HeaderMap::new();
                map.insert("forwarded", value);
                let Some(found) = addresses.of(&map, PEER) else { panic!("{text:?}: no address") };
                if Some(found) != PEER {
                    let written = text.split(',').any(|entry| parse_entry(entry.trim()) == Some(found));
                    assert!(written, "{text:?} gave {found}");
                }
            }
        }
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() {
        let a = AddressBucket::of("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = AddressBucket::of("2001:db8:1:2:bbbb::9".parse().unwrap());
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        assert_ne!(a, AddressBucket::of("2001:db8:1:3::1".parse().unwrap()));
        assert_eq!(AddressBucket::of("::ffff:192.0.2.1".parse().unwrap()).to_string(), "192.0.2.1");
    }
}
