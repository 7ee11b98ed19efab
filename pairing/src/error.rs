//! Why an event refused a request. A refused request changes nothing; each variant says what a
//! director or player sees, and the server maps each to an error code.

use crate::event::{EventOutcome, PlayerId};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EventError {
    /// The format's own parameters are out of range (rounds, cycles, games of a match, losses).
    #[error("invalid format: {0}")]
    InvalidFormat(&'static str),
    #[error("the event needs at least {min} players")]
    TooFewPlayers { min: usize },
    #[error("the event takes at most {max} players")]
    TooManyPlayers { max: usize },
    #[error("player {0} is entered twice")]
    DuplicatePlayer(PlayerId),
    #[error("player {0} is not in the event")]
    NotEntered(PlayerId),
    /// Entries are fixed once round 1 is paired.
    #[error("the event has started")]
    Started,
    /// The next round is paired only when every game of the current one has a result.
    #[error("round {round} still has {missing} games without a result")]
    RoundUnfinished { round: u32, missing: usize },
    #[error("the event is over")]
    Over,
    #[error("round {round} has no game at table {table}")]
    NoSuchGame { round: u32, table: u32 },
    /// A result, once recorded, stands; recording the same one again is accepted (a retry).
    #[error("round {round} table {table} already has a result ({existing:?})")]
    AlreadyRecorded {
        round: u32,
        table: u32,
        existing: EventOutcome,
    },
    #[error("the event has already played {played} rounds")]
    RoundsAlreadyPlayed { played: u32 },
    #[error("player {0} has already withdrawn")]
    AlreadyWithdrawn(PlayerId),
    /// A stored event that does not hold together (a game naming a player not entered, ...).
    #[error("stored event is inconsistent: {0}")]
    Inconsistent(&'static str),
}
