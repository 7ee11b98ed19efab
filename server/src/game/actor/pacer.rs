//! [`Pacer`]: when a coalesced push is next due, at most once an interval that grows with the
//! crowd. It only keeps time; what is pushed, and to whom, is its owner's (the audience's watchers
//! list, the wagers' pool).

use std::time::Duration;

use tokio::time::Instant;

/// When a coalesced push (the watchers list, the pool) is next due: a change is pushed at once when
/// the last push is an interval old, otherwise when it will be, so a burst of changes costs each
/// follower one frame per interval.
#[derive(Debug)]
pub(super) struct Pacer {
    /// The interval for a game with few followers.
    base_ms: u64,
    /// The most frames a second the pushes may cost: past this many followers the interval grows.
    frames_per_s_max: usize,
    interval: Duration,
    pushed_at: Option<Instant>,
    /// `None`: nothing changed since the last push.
    pub(super) due: Option<Instant>,
}

impl Pacer {
    /// Pushes every `base_ms`, or less often past `frames_per_s_max` followers (see [`Pacer::crowd_is`]).
    pub(super) fn new(base_ms: u64, frames_per_s_max: usize) -> Pacer {
        Pacer {
            base_ms,
            frames_per_s_max,
            interval: Duration::from_millis(base_ms),
            pushed_at: None,
            due: None,
        }
    }

    /// The game has `followers` now: push every base interval, or less often in proportion past the
    /// most frames a second, so the pushes cost at most that many frames a second however many
    /// follow (a push already scheduled keeps its time).
    pub(super) fn crowd_is(&mut self, followers: usize) {
        self.interval = Duration::from_millis(self.interval_ms(followers));
    }

    fn interval_ms(&self, followers: usize) -> u64 {
        let per_push = followers.div_ceil(self.frames_per_s_max.max(1)).max(1) as u64;
        self.base_ms.saturating_mul(per_push)
    }

    /// Something changed: schedule a push unless one is already due.
    pub(super) fn changed(&mut self) {
        if self.due.is_none() {
            let now = Instant::now();
            let due = self
                .pushed_at
                .map_or(now, |at| (at + self.interval).max(now));
            self.due = Some(due);
        }
    }

    /// Every follower was just sent something else (a game event): a change from now on waits the
    /// interval as after a push. Nothing is scheduled here, and a push already due keeps its time.
    pub(super) fn followers_woken(&mut self) {
        if self.due.is_none() {
            self.pushed_at = Some(Instant::now());
        }
    }

    /// A push went out now (which makes any scheduled one unnecessary).
    pub(super) fn pushed(&mut self) {
        self.due = None;
        self.pushed_at = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::Pacer;
    use crate::config::{
        POOL_FRAMES_PER_S_MAX, POOL_PUSH_MS, WATCHER_COUNT_PUSH_MS, WATCHER_LIST_FRAMES_PER_S_MAX,
    };

    #[test]
    fn a_crowd_hears_the_watchers_list_less_often_in_proportion() {
        let list = Pacer::new(WATCHER_COUNT_PUSH_MS, WATCHER_LIST_FRAMES_PER_S_MAX);
        assert_eq!(list.interval_ms(0), 1_000);
        assert_eq!(list.interval_ms(2_000), 1_000);
        assert_eq!(list.interval_ms(2_001), 2_000);
        assert_eq!(list.interval_ms(20_000), 10_000);
    }

    #[test]
    fn a_crowd_hears_the_pool_less_often_in_proportion() {
        let pool = Pacer::new(POOL_PUSH_MS, POOL_FRAMES_PER_S_MAX);
        assert_eq!(pool.interval_ms(10), 1_000);
        assert_eq!(pool.interval_ms(5_000), 1_000);
        assert_eq!(pool.interval_ms(15_000), 3_000);
        assert_eq!(pool.interval_ms(20_000), 4_000);
    }
}
