//! One entry of a game's event log as it is stored: the wire event, the game-time instant it
//! happened (from which the clocks replay exactly), the retry key of the player's request it
//! records, and a sealed move (kept in the log only). The stored form never changes: old logs
//! must replay.

use serde::{Deserialize, Serialize};
use tengen_protocol::{GameEvent, Point, RequestKey, UserId};

/// One event as the log stores it: the wire event plus the game-time instant it happened, from
/// which a restart replays the clocks exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(in crate::game) struct LoggedEvent {
    #[serde(flatten)]
    pub(in crate::game) event: GameEvent,
    #[serde(default)]
    pub(in crate::game) at_ms: u64,
    /// The key the player sent with the move, pass or resignation this event records, so a retry
    /// is recognised after a restart, on another node, and after the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(in crate::game) key: Option<KeyRecord>,
    /// With a `sealed` event only: the sealed move, which no frame carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(in crate::game) sealed: Option<Sealed>,
}

impl LoggedEvent {
    /// `event` at game time `at_ms`, with no key and no sealed move.
    pub(in crate::game) fn at(event: GameEvent, at_ms: u64) -> LoggedEvent {
        LoggedEvent {
            event,
            at_ms,
            key: None,
            sealed: None,
        }
    }
}

/// A sealed move as its log entry keeps it: a stone at `point`, or a pass when it is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(in crate::game) struct Sealed {
    pub(in crate::game) point: Option<Point>,
}

/// A client's retry key and whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(in crate::game) struct KeyRecord {
    pub(in crate::game) user: UserId,
    pub(in crate::game) key: RequestKey,
}
