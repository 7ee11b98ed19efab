//! The per-connection rate limit: a token bucket, with strikes that close a socket that keeps
//! flooding.

use tokio::time::Instant;

use crate::config::RATE_LIMIT_STRIKES_MAX;

/// A token bucket: `Config::messages_per_second` sustained (`config::MESSAGES_PER_SECOND` by default),
/// `Config::messages_burst` at once (`config::MESSAGES_BURST`). Hand-written because
/// it is ten lines and per-connection, where a keyed limiter crate would add a shared map for nothing.
#[derive(Debug)]
pub(super) struct RateLimit {
    tokens: f64,
    last: Instant,
    per_second: f64,
    burst: f64,
    /// Frames refused since the client last calmed down; see [`RateLimit::check`].
    strikes: u32,
}

/// What the rate limit makes of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Allow,
    /// Over the limit: dropped.
    Drop,
    /// [`RATE_LIMIT_STRIKES_MAX`] frames dropped without the client calming down: close the socket.
    Close,
}

impl RateLimit {
    pub(super) fn new(now: Instant, per_second: u32, burst: u32) -> RateLimit {
        RateLimit {
            tokens: f64::from(burst),
            last: now,
            per_second: f64::from(per_second),
            burst: f64::from(burst),
            strikes: 0,
        }
    }

    /// Count one frame as `cost` messages (a large frame counts as the many small ones it could have
    /// been; at most a whole burst, so it can always pass once the bucket is full). Strikes are forgiven only once the bucket has refilled to half (the client
    /// slowed down for a while), not at every frame let through: a flooder whose frames pass one at a
    /// time as tokens trickle back (one every 50 ms) was otherwise never closed, and was answered
    /// `rate_limited` hundreds of times a second for as long as it liked.
    pub(super) fn check(&mut self, now: Instant, cost: u32) -> Verdict {
        if self.allow(now, f64::from(cost).clamp(1.0, self.burst)) {
            if self.tokens >= self.burst / 2.0 {
                self.strikes = 0;
            }
            return Verdict::Allow;
        }
        self.strikes += 1;
        if self.strikes >= RATE_LIMIT_STRIKES_MAX {
            Verdict::Close
        } else {
            Verdict::Drop
        }
    }

    fn allow(&mut self, now: Instant, cost: f64) -> bool {
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        if self.tokens >= cost {
            self.tokens -= cost;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_flooder_let_through_as_tokens_trickle_back_is_still_closed() {
        let start = Instant::now();
        let mut limit = RateLimit::new(start, 20, 40);
        // The burst passes.
        for _ in 0..40 {
            assert_eq!(limit.check(start, 1), Verdict::Allow);
        }
        // Then 500 frames a second: one in 25 passes as a token comes back; the rest count, and the
        // socket is closed within the strikes allowed (plus the frames let through meanwhile).
        let mut frames = 0;
        let verdict = loop {
            frames += 1;
            let verdict = limit.check(start + Duration::from_millis(2 * frames), 1);
            if verdict == Verdict::Close || frames > 10_000 {
                break verdict;
            }
        };
        assert_eq!(verdict, Verdict::Close);
        assert!(frames <= u64::from(RATE_LIMIT_STRIKES_MAX) * 2, "{frames}");
    }

    #[test]
    fn a_large_frame_costs_as_many_small_ones_and_can_always_pass_after_a_pause() {
        let start = Instant::now();
        let mut limit = RateLimit::new(start, 20, 40);
        assert_eq!(limit.check(start, 22), Verdict::Allow);
        assert_eq!(limit.check(start, 22), Verdict::Drop, "18 tokens left");
        // More than a burst costs a burst: a full bucket lets it through.
        let later = start + Duration::from_secs(2);
        assert_eq!(limit.check(later, 1_000), Verdict::Allow);
        assert_eq!(limit.check(later, 1), Verdict::Drop);
    }

    #[test]
    fn a_client_that_slows_down_is_forgiven() {
        let start = Instant::now();
        let mut limit = RateLimit::new(start, 20, 40);
        for _ in 0..40 {
            limit.check(start, 1);
        }
        for _ in 0..(RATE_LIMIT_STRIKES_MAX - 1) {
            assert_eq!(limit.check(start, 1), Verdict::Drop);
        }
        // A quiet second and a half refills most of the bucket; the strikes are forgotten.
        let later = start + Duration::from_millis(1_500);
        assert_eq!(limit.check(later, 1), Verdict::Allow);
        for _ in 0..(RATE_LIMIT_STRIKES_MAX - 1) {
            assert_ne!(limit.check(later, 1), Verdict::Close);
        }
    }
}
