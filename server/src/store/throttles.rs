//! The throttles' counters as the store keeps them, behind [`ThrottleCounters`] (which
//! [`Store`](super::Store) requires): so every node counts the same login and registration attempts,
//! and a restart forgets none. The policy of each counter ([`Backoff`]) is configuration and what is
//! counted is `crate::throttle`'s business; expired counters are forgotten with expired sessions
//! (`Accounts::purge_sessions`).

use super::StoreError;
/// The throttles' policy is configuration; the store counts the attempts it governs.
pub use crate::config::Backoff;

/// Counted attempts, durable and shared by every node.
pub trait ThrottleCounters {
    /// Count one attempt on every counter of `counters` at once, if each of them lets one through at
    /// `now_ms` (see [`Backoff`]); otherwise count none and return how long the caller must still
    /// wait (the longest wait). Shared by every node and kept across restarts; each counter expires
    /// `forget_ms` after its last counted attempt.
    fn throttle_attempt(
        &self,
        counters: &[(String, Backoff)],
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError>;
    /// Take one counted attempt back from each of `release` (it succeeded) and forget `clear`.
    fn throttle_release(&self, release: &[String], clear: &[String]) -> Result<(), StoreError>;
}

/// Throttle counters: free attempts, then growing waits from the last counted one; all counters of a
/// call counted together or none; released, cleared and forgotten.
#[cfg(test)]
pub(crate) fn conformance(store: &dyn super::Store) {
    let backoff = Backoff {
        free: 2,
        base_ms: 1000,
        max_ms: 3000,
        forget_ms: 60_000,
    };
    let loose = Backoff {
        free: 10,
        ..backoff
    };
    let both = |a: &str, b: &str| vec![(a.to_string(), backoff), (b.to_string(), loose)];
    assert_eq!(store.throttle_attempt(&both("pair", "wide"), 100), Ok(None));
    assert_eq!(store.throttle_attempt(&both("pair", "wide"), 100), Ok(None));
    // Two counted: the third waits a second after the last.
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 600),
        Ok(Some(500))
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 1100),
        Ok(None)
    );
    // Three counted: two seconds now; then the cap.
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3000),
        Ok(Some(100))
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3100),
        Ok(None)
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3100),
        Ok(Some(3000))
    );
    // A refused call counted nothing anywhere: "wide" has 4 of its 10 free.
    let wide = vec![("wide".to_string(), Backoff { free: 5, ..backoff })];
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(None));
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(Some(1000)));
    // A release takes one back; a clear forgets the counter.
    store
        .throttle_release(&["wide".to_string()], &["pair".to_string()])
        .unwrap();
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(None));
    assert_eq!(
        store.throttle_attempt(&both("pair", "other"), 3100),
        Ok(None)
    );
    // A free attempt passes even when the last one was stamped later (clocks of concurrent callers).
    let skew = vec![("skew".to_string(), backoff)];
    assert_eq!(store.throttle_attempt(&skew, 5000), Ok(None));
    assert_eq!(store.throttle_attempt(&skew, 4990), Ok(None));
    assert_eq!(store.throttle_attempt(&skew, 4990), Ok(Some(1010)));
    // Forgotten after `forget_ms` without a counted attempt.
    let pair = vec![("pair".to_string(), backoff)];
    assert_eq!(store.throttle_attempt(&pair, 3100), Ok(None));
    assert_eq!(store.throttle_attempt(&pair, 3100), Ok(Some(1000)));
    let later = 3100 + backoff.forget_ms;
    store.purge_sessions(later).unwrap();
    assert_eq!(store.throttle_attempt(&pair, later), Ok(None));
    assert_eq!(store.throttle_attempt(&pair, later), Ok(None));
}
