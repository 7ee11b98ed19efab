//! Competitions on the wire: what a player sends to create one and what every client reads of it.
//! The formats, results and standings are `tengen-pairing`'s own types, carried as they are, so
//! the figures a client shows are exactly those the server ranked by.

use serde::{Deserialize, Serialize};

use crate::{EventId, GameId, GameSettings, PlayerInfo, UserId};
pub use tengen_pairing::{
    Criterion, FinalTie, Format as EventFormat, Fraction, Outcome as EventOutcome, Standing,
    Standings, SwissRanking,
};

/// What a player asks for when creating an event (they direct it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSpec {
    /// 1 to 60 characters.
    pub name: String,
    pub format: EventFormat,
    /// How a tie every figure leaves is settled (default: it stands).
    #[serde(default)]
    pub final_tie: FinalTie,
    /// Every game's board, komi, handicap, ko rule and clock (`nigiri` is ignored: the pairing gives
    /// colours).
    pub settings: GameSettings,
    /// 2 to 512 (a match: 2).
    pub players_max: u32,
    /// Who may enter, by rank (kyu/dan, as `PlayerInfo::rank` shows it); anyone when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RankRange>,
    /// Past this lateness (ms after a game's start) a missing player loses the game; 15 minutes
    /// when absent, at most an hour. The event's games carry it as `settings.lateness_limit_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateness_limit_ms: Option<u64>,
}

/// A range of ranks, both ends included: `"10k"` to `"1d"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankRange {
    pub weakest: String,
    pub strongest: String,
}

/// Where an event stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventStatus {
    /// Taking entries; no round paired yet.
    Open,
    /// A round's games are being played.
    Playing,
    /// Every result of the last round is in; the director starts the next.
    BetweenRounds,
    Finished,
}

/// An event as the hall lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSummary {
    pub event: EventId,
    pub name: String,
    pub director: PlayerInfo,
    pub format: EventFormat,
    /// Who may enter, when the event says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RankRange>,
    pub status: EventStatus,
    pub entrants_count: u32,
    pub players_max: u32,
    /// Rounds paired so far.
    pub rounds_count: u32,
}

/// One entrant as the event shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventEntrant {
    pub player: PlayerInfo,
    pub warnings: u32,
    pub withdrawn: bool,
}

/// One board of a round: the players with their colours, its live or finished game, its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventBoard {
    pub board: u32,
    pub black: UserId,
    pub white: UserId,
    pub game: Option<GameId>,
    pub outcome: Option<EventOutcome>,
}

/// One round: its boards, the players given a bye (scored as a win) and those resting (no score).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRound {
    pub number: u32,
    pub boards: Vec<EventBoard>,
    pub byes: Vec<UserId>,
    pub resting: Vec<UserId>,
}

/// One line of the event's log: what the director (or the server) did, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventLogEntry {
    pub at_ms: u64,
    /// `created`, `joined`, `left`, `round_started`, `result`, `finished`, and the director's
    /// `withdrew`, `warned`, `adjudicated`.
    pub action: String,
    /// Who it concerns, if anyone.
    pub user: Option<UserId>,
    /// The round, if it concerns one.
    pub round: Option<u32>,
    /// The director's reason, or the game, when there is one to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// An event's whole state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventView {
    pub summary: EventSummary,
    pub final_tie: FinalTie,
    pub settings: GameSettings,
    /// In seeding order (strongest first).
    pub entrants: Vec<EventEntrant>,
    pub rounds: Vec<EventRound>,
    /// Every figure of every entrant, in rank order, with the criteria that ranked them.
    pub standings: Standings,
    /// Once the event is over and one player won it outright.
    pub winner: Option<UserId>,
    pub log: Vec<EventLogEntry>,
}
