//! The game's own time: milliseconds on tokio's clock since the actor started, plus the game time
//! at which the stored log ended (0 for a new game). Every instant the core names (an event's
//! `at_ms`, a deadline) is in game time; this value turns it into a tokio instant to sleep until,
//! and tells the time now. A restarted actor resumes game time where its log ended, so the time
//! the server was down is charged to no one. It holds no deadline itself: those are the core's.

use std::time::Duration;

use tokio::time::Instant;

#[derive(Debug)]
pub(super) struct GameTime {
    /// The tokio instant at which game time was `offset_ms`.
    epoch: Instant,
    offset_ms: u64,
}

impl GameTime {
    /// Game time 0 now: a new game's.
    pub(super) fn started_now() -> GameTime {
        GameTime::resumed_at(0)
    }

    /// Game time `last_at_ms` now: a restored game goes on from the last instant its log recorded.
    pub(super) fn resumed_at(last_at_ms: u64) -> GameTime {
        GameTime {
            epoch: Instant::now(),
            offset_ms: last_at_ms,
        }
    }

    /// Milliseconds of game time now.
    pub(super) fn now_ms(&self) -> u64 {
        self.offset_ms + self.epoch.elapsed().as_millis() as u64
    }

    /// The tokio instant of a game-time instant.
    pub(super) fn instant_of(&self, at_ms: u64) -> Instant {
        self.epoch + Duration::from_millis(at_ms.saturating_sub(self.offset_ms))
    }
}
