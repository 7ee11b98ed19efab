//! [`Pacer`]: when a coalesced push is next due. It only keeps time; what is pushed, and to whom,
//! is its owner's (the audience's watchers list, the wagers' pool).

use std::time::Duration;

use tokio::time::Instant;

/// When a coalesced push (the watchers list, the pool) is next due: a change is pushed at once when
/// the last push is an interval old, otherwise when it will be, so a burst of changes costs each
/// follower one frame per interval.
#[derive(Debug)]
pub(super) struct Pacer {
    interval: Duration,
    pushed_at: Option<Instant>,
    /// `None`: nothing changed since the last push.
    pub(super) due: Option<Instant>,
}

impl Pacer {
    pub(super) fn new(interval_ms: u64) -> Pacer {
        Pacer {
            interval: Duration::from_millis(interval_ms),
            pushed_at: None,
            due: None,
        }
    }

    /// Push at most once per `interval_ms` from now on (a push already scheduled keeps its time).
    pub(super) fn set_interval_ms(&mut self, interval_ms: u64) {
        self.interval = Duration::from_millis(interval_ms);
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
