//! Competitions on the wire: what a player sends to create one and what every client reads of it,
//! in full or as the hall lists it.
//! The formats, results and standings are `tengen-pairing`'s own types, carried as they are, so
//! the figures a client shows are exactly those the server ranked by.

use serde::{Deserialize, Serialize};

use crate::{EventId, GameId, GameSettings, PlayerInfo, Point, RequestId, UserId};
pub use tengen_pairing::team::{RelayState, Side as TeamSide, TeamId, TeamStanding};
pub use tengen_pairing::{
    Criterion, EventOutcome, FinalTie, Format as EventFormat, Fraction, Standing, Standings,
    SwissRanking,
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
    /// A team event (团体赛): its entrants are teams of this many players; `players_max` then counts
    /// teams. Absent: an individual event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<TeamRules>,
    /// Whether the event's games change the players' ratings (default: they do).
    #[serde(default = "rated_by_default", skip_serializing_if = "is_rated")]
    pub rated: bool,
    /// When rounds start by themselves (Unix ms, round 1 first); a round whose time comes while the
    /// one before is still in play starts when that one's last game ends. The director may still
    /// start any round earlier. Empty: the director starts every round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_starts_ms: Vec<u64>,
}

fn rated_by_default() -> bool {
    true
}

/// Written only when an event is unrated, as it reads when absent.
fn is_rated(rated: &bool) -> bool {
    *rated
}

/// How a team event is played (docs/competitions.md, 团体赛).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamRules {
    /// Players per team, 1 to 8; every team must have exactly this many when round 1 starts.
    pub players: u32,
    pub line_up: LineUp,
}

/// Who plays whom inside a team match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineUp {
    /// 分台定人制: the board order is set once, at round 1, strongest (highest rating) on board 1; the
    /// teams are paired by the event's `format`.
    FixedBoards,
    /// 临场出人制: each captain may set the order for the next round (`set_line_up`); without one, the
    /// team's own order stands. Teams are paired by the event's `format`.
    FreeLineUp,
    /// 全队循环制: two teams; every player meets every player of the other team once, one round per
    /// board (round r: home board i against away board i + r − 1, wrapping round).
    AllPlayAll,
    /// 擂台赛: two teams, one game at a time in each side's order; the loser is out, the winner meets
    /// the other side's next player; the side whose last player loses has lost.
    Relay,
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
    /// A team event's rules (then `entrants_count` and `players_max` count teams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<TeamRules>,
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
    /// `created`, `joined`, `left`, `team_created`, `team_joined`, `line_up_set`, `round_started`,
    /// `result`, `finished`, and the director's `withdrew`, `warned`, `adjudicated`.
    pub action: String,
    /// Who it concerns, if anyone.
    pub user: Option<UserId>,
    /// The round, if it concerns one.
    pub round: Option<u32>,
    /// The director's reason (an adjudication), when there is one to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The game it concerns (a warning, an adjudication, a pause, an adjournment, a sealed move, a
    /// resumption).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameId>,
    /// The team it concerns (founded, joined, a line-up set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<TeamId>,
    /// Until when (Unix ms): a pause's or an adjournment's set resumption.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<u64>,
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
    /// A team event's teams, matches and team standings (then `entrants` lists every player of every
    /// team, `rounds` every board of every match, and `standings`/`winner` rank the teams by
    /// [`TeamId`] on match points, as the pairing saw them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<TeamsView>,
}

/// A team event's teams, matches and standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamsView {
    pub rules: TeamRules,
    pub teams: Vec<EventTeam>,
    pub matches: Vec<EventMatch>,
    /// The competition rules' team ranking (docs/competitions.md): match points (场分), board points (局分), board 1's, board 2's, ...
    pub standings: Vec<TeamStanding>,
    /// A relay's orders and where it stands (players by account id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelayView>,
    /// Once the event is over and one team won it outright.
    pub winner: Option<TeamId>,
}

/// A team as the event shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventTeam {
    pub team: TeamId,
    pub name: String,
    pub captain: UserId,
    /// In board order once round 1 has started (before: in the order they joined).
    pub players: Vec<UserId>,
    /// The captain's line-up for the next round, when set (free line-up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_line_up: Option<Vec<UserId>>,
}

/// One team match of a round: its boards (numbers of the round's boards) and its points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventMatch {
    pub round: u32,
    pub home: TeamId,
    pub away: TeamId,
    pub boards: Vec<u32>,
    /// Board points (局分) so far: home, away.
    pub board_points: [u32; 2],
    /// Match points (场分) once every board has its result.
    pub match_points: Option<[u32; 2]>,
}

/// A relay's two orders (players by account id) and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayView {
    pub home: Vec<UserId>,
    pub away: Vec<UserId>,
    pub state: RelayState,
}

/// What an entrant, captain or director sends about a competition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventsMsg {
    /// Create a competition; its creator directs it. Replied with `event`.
    CreateEvent { spec: EventSpec },
    /// Enter an open event (replied with `event`).
    JoinEvent { event: EventId },
    /// Leave an open event before its first round (replied with `event`).
    LeaveEvent { event: EventId },
    /// The director pairs and starts the event's next round: its games start at once.
    StartRound { event: EventId },
    /// An event's whole state (`event`).
    GetEvent { event: EventId },
    /// Events, newest first (`event_list`): at most 100, those created before event `before` when
    /// it is given (the next page).
    ListEvents {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<EventId>,
    },
    /// The director withdraws an entrant: before round 1 they simply leave; later they are paired no
    /// more, a game of theirs in play is lost by forfeit, and in a round robin their results are void
    /// if they played fewer than half of their games (else their remaining games are forfeits).
    EventWithdraw { event: EventId, user: UserId },
    /// The director warns an entrant (fewer warnings rank higher in a tie); a second warning in the
    /// same game loses that game.
    EventWarn { event: EventId, user: UserId },
    /// The director decides a game of the event's round in play, with a reason for the log.
    EventAdjudicate {
        event: EventId,
        game: GameId,
        outcome: EventOutcome,
        reason: String,
    },
    /// The director pauses a game of the round in play until `resume_at_ms` (Unix ms).
    EventPause {
        event: EventId,
        game: GameId,
        resume_at_ms: u64,
    },
    /// The director resumes a paused or adjourned game now.
    EventResume { event: EventId, game: GameId },
    /// The director adjourns a game of the round in play (封棋) until `resume_at_ms` (Unix ms).
    EventAdjourn {
        event: EventId,
        game: GameId,
        resume_at_ms: u64,
    },
    /// In an adjourned game, the player to move seals their move: a stone at `point`, or a pass when
    /// it is `null`.
    SealMove { game: GameId, point: Option<Point> },
    /// Found a team in an open team event: its founder is its captain and first player (replied with
    /// `event`).
    CreateTeam { event: EventId, name: String },
    /// Join a team of an open team event (replied with `event`); `leave_event` leaves it.
    JoinTeam { event: EventId, team: TeamId },
    /// A captain's board order for the team's next match (free line-up): every player of the team
    /// once, board 1 first.
    SetLineUp {
        event: EventId,
        players: Vec<UserId>,
    },
}

impl EventsMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "create_event",
        "join_event",
        "leave_event",
        "start_round",
        "get_event",
        "list_events",
        "event_withdraw",
        "event_warn",
        "event_adjudicate",
        "event_pause",
        "event_resume",
        "event_adjourn",
        "seal_move",
        "create_team",
        "join_team",
        "set_line_up",
    ];
}

/// What the server sends about competitions: an event in full, the list of events, and the
/// summary the hall lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventsServerMsg {
    /// An event's whole state: the reply to the event requests, and pushed to its entrants and
    /// director whenever it changes (an entry, a round paired, a result).
    Event {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        event: Box<EventView>,
    },
    /// Reply to `list_events`.
    EventList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        events: Vec<EventSummary>,
    },
    /// Pushed to the hall when an event is created or its status, entries or rounds change.
    EventListed { event: EventSummary },
}

impl EventsServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &["event", "event_list", "event_listed"];
}
