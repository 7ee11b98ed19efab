//! The login and registration throttles, with their counters in the store so every node counts the
//! same attempts and a restart forgets none. A login attempt is counted on three counters at once,
//! before its password is hashed (so a flood of parallel guesses cannot all slip past the check):
//! the account from this address (strict: 5 free, then 1 s, 2 s, 4 s ... up to 15 minutes), the
//! account from every address (looser: 20 free, waits capped at a minute, so the owner from a new
//! address is at worst slowed, never locked out, by someone else's guesses), and this address across
//! every account (30 free, capped at 5 minutes, against one password sprayed over many names). A
//! success takes its own attempt back from the wide counters and clears the pair's. Registrations
//! are counted per address the same way. Addresses are IPv4 addresses or IPv6 /64 prefixes (one
//! IPv6 host usually holds a whole /64).
//!
//! The admin token's throttle is here too, kept in memory: failed tries per address and in all,
//! within a window ([`AdminThrottle`]).

use std::collections::HashMap;
use std::net::IpAddr;

use axum::http::HeaderValue;

use crate::config::{
    Throttles, ADMIN_FAILURES_MAX, ADMIN_FAILURES_PER_IP_MAX, ADMIN_FAILURE_WINDOW_MS,
    ADMIN_THROTTLE_ENTRIES_MAX,
};
use crate::store::{StoreError, StoreHandle};

/// The counters one login attempt is counted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginCounters {
    pair: String,
    account: String,
    address: String,
}

impl LoginCounters {
    /// The counters of `username` (any case or width: one account is one counter) from `ip`. The
    /// address comes first in the pair's key and holds no space, so no two (address, name) pairs
    /// share a key.
    pub fn new(username: &str, ip: IpAddr) -> LoginCounters {
        let name = crate::username::lookup_key(username);
        let address = address_key(ip);
        LoginCounters {
            pair: format!("login:pair:{address} {name}"),
            account: format!("login:account:{name}"),
            address: format!("login:address:{address}"),
        }
    }
}

/// The client's address: the socket's, unless the socket comes from a trusted reverse proxy
/// (`Config::trusted_proxies`), whose `X-Forwarded-For` then names the client (its last entry: the one
/// the proxy itself added; earlier ones are the client's to invent). Without this every client behind
/// the proxy would share the proxy's throttle counters.
pub fn client_address(
    peer: IpAddr,
    forwarded_for: Option<&HeaderValue>,
    trusted_proxies: &[IpAddr],
) -> IpAddr {
    if !trusted_proxies.contains(&peer) {
        return peer;
    }
    forwarded_for
        .and_then(|value| value.to_str().ok())
        .and_then(|list| list.rsplit(',').next())
        .and_then(|last| last.trim().parse().ok())
        .unwrap_or(peer)
}

/// An IPv4 address as it is; an IPv6 address by its /64 prefix.
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                format!("{a:x}:{b:x}:{c:x}:{d:x}::/64")
            }
        },
    }
}

/// Count a login attempt, or say how long (ms) it must wait; nothing is counted when it must wait.
pub async fn login_attempt(
    store: &StoreHandle,
    throttles: Throttles,
    counters: &LoginCounters,
    now_ms: u64,
) -> Result<Option<u64>, StoreError> {
    let keys = vec![
        (counters.pair.clone(), throttles.login_pair),
        (counters.account.clone(), throttles.login_account),
        (counters.address.clone(), throttles.login_address),
    ];
    store
        .call(move |store| store.throttle_attempt(&keys, now_ms))
        .await
}

/// A login succeeded: its attempt is taken back from the wide counters and the pair's is cleared, so
/// the owner's typos are forgotten (the account's other addresses keep theirs).
pub async fn login_succeeded(
    store: &StoreHandle,
    counters: &LoginCounters,
) -> Result<(), StoreError> {
    let release = vec![counters.account.clone(), counters.address.clone()];
    let clear = vec![counters.pair.clone()];
    store
        .call(move |store| store.throttle_release(&release, &clear))
        .await
}

/// A login was counted but its password never checked (the hashing queue was full and it was
/// answered `busy`): its attempt is taken back from all three counters, so a busy server never
/// throttles anyone for guesses it did not hear.
pub async fn login_not_checked(
    store: &StoreHandle,
    counters: &LoginCounters,
) -> Result<(), StoreError> {
    let release = vec![
        counters.pair.clone(),
        counters.account.clone(),
        counters.address.clone(),
    ];
    store
        .call(move |store| store.throttle_release(&release, &[]))
        .await
}

/// A registration was counted but not made (the hashing queue was full): its attempt is taken back.
pub async fn registration_not_made(store: &StoreHandle, ip: IpAddr) -> Result<(), StoreError> {
    let release = vec![registration_key(ip)];
    store
        .call(move |store| store.throttle_release(&release, &[]))
        .await
}

fn registration_key(ip: IpAddr) -> String {
    format!("register:address:{}", address_key(ip))
}

/// Count a registration from `ip`, or say how long (ms) it must wait.
pub async fn registration_attempt(
    store: &StoreHandle,
    throttles: Throttles,
    ip: IpAddr,
    now_ms: u64,
) -> Result<Option<u64>, StoreError> {
    let keys = vec![(registration_key(ip), throttles.register_address)];
    store
        .call(move |store| store.throttle_attempt(&keys, now_ms))
        .await
}

/// A wait for people: whole seconds, rounded up, at least one.
pub fn seconds(wait_ms: u64) -> u64 {
    wait_ms.div_ceil(1000).max(1)
}

/// Failed admin-token tries in the current window, per address and in all. Pure: time is passed in.
#[derive(Debug, Default)]
pub(crate) struct AdminThrottle {
    /// Bounded by [`ADMIN_THROTTLE_ENTRIES_MAX`]: ended windows, then the oldest, are dropped.
    per_ip: HashMap<IpAddr, Window>,
    all: Window,
}

/// Failures counted since `start_ms`.
#[derive(Debug, Default, Clone, Copy)]
struct Window {
    start_ms: u64,
    failures: u32,
}

impl Window {
    /// The failures of the window running at `now_ms` (zero once it ended).
    fn failures(&self, now_ms: u64) -> u32 {
        if now_ms >= self.start_ms.saturating_add(ADMIN_FAILURE_WINDOW_MS) {
            0
        } else {
            self.failures
        }
    }

    fn record(&mut self, now_ms: u64) {
        if self.failures(now_ms) == 0 {
            *self = Window {
                start_ms: now_ms,
                failures: 0,
            };
        }
        self.failures += 1;
    }
}

impl AdminThrottle {
    /// Whether admin requests from `ip` are refused now, before the token is even looked at.
    pub(crate) fn is_throttled(&self, ip: IpAddr, now_ms: u64) -> bool {
        self.all.failures(now_ms) >= ADMIN_FAILURES_MAX
            || self
                .per_ip
                .get(&ip)
                .is_some_and(|window| window.failures(now_ms) >= ADMIN_FAILURES_PER_IP_MAX)
    }

    pub(crate) fn record_failure(&mut self, ip: IpAddr, now_ms: u64) {
        if !self.per_ip.contains_key(&ip) && self.per_ip.len() >= ADMIN_THROTTLE_ENTRIES_MAX {
            self.evict(now_ms);
        }
        self.per_ip.entry(ip).or_default().record(now_ms);
        self.all.record(now_ms);
    }

    /// Drop ended windows, and if none ended, the oldest one.
    fn evict(&mut self, now_ms: u64) {
        self.per_ip.retain(|_, window| window.failures(now_ms) > 0);
        if self.per_ip.len() >= ADMIN_THROTTLE_ENTRIES_MAX {
            let oldest = self
                .per_ip
                .iter()
                .min_by_key(|(_, window)| window.start_ms)
                .map(|(ip, _)| *ip);
            if let Some(ip) = oldest {
                self.per_ip.remove(&ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_hosts_for_ipv4_and_slash_64s_for_ipv6() {
        let v4: IpAddr = "203.0.113.9".parse().unwrap();
        assert_eq!(address_key(v4), "203.0.113.9");
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        assert_eq!(address_key(a), "2001:db8:1:2::/64");
        assert_eq!(address_key(a), address_key(b));
        let mapped: IpAddr = "::ffff:203.0.113.9".parse().unwrap();
        assert_eq!(address_key(mapped), "203.0.113.9");
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        let client: IpAddr = "198.51.100.7".parse().unwrap();
        let header = HeaderValue::from_static("10.9.9.9, 198.51.100.7");
        assert_eq!(client_address(proxy, Some(&header), &[proxy]), client);
        // Anyone else's header is ignored, as is a missing or malformed one.
        assert_eq!(client_address(client, Some(&header), &[proxy]), client);
        assert_eq!(client_address(proxy, Some(&header), &[]), proxy);
        assert_eq!(client_address(proxy, None, &[proxy]), proxy);
        let junk = HeaderValue::from_static("not an address");
        assert_eq!(client_address(proxy, Some(&junk), &[proxy]), proxy);
    }

    #[test]
    fn keys_of_different_pairs_differ() {
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let alice = LoginCounters::new("Alice", ip);
        assert_eq!(alice, LoginCounters::new("alice", ip));
        assert_eq!(alice, LoginCounters::new("ＡＬＩＣＥ", ip));
        assert_ne!(alice.pair, LoginCounters::new("bob", ip).pair);
        assert_eq!(alice.address, LoginCounters::new("bob", ip).address);
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        assert_eq!(alice.account, LoginCounters::new("alice", other).account);
        assert_ne!(alice.pair, LoginCounters::new("alice", other).pair);
    }

    #[test]
    fn default_waits_grow_from_a_second_to_their_caps() {
        let throttles = Throttles::default();
        let pair = throttles.login_pair;
        assert_eq!(pair.delay_ms(pair.free - 1), 0);
        assert_eq!(pair.delay_ms(pair.free), 1_000);
        assert_eq!(pair.delay_ms(pair.free + 3), 8_000);
        assert_eq!(pair.delay_ms(u32::MAX), pair.max_ms);
        let account = throttles.login_account;
        assert!(account.free > pair.free && account.max_ms < pair.max_ms);
        assert_eq!(seconds(1), 1);
        assert_eq!(seconds(1_001), 2);
    }
}
