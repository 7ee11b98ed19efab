//! What anyone may ask of the competitions, defined once as data: [`EventRequest`], answered with an
//! [`EventReply`]. Sessions send it wrapped in the hall's request, which the hall hands to its
//! [`Competitions`](super::Competitions) and whose answer it wraps in its own reply; a game's line
//! for an event's log (`GameLogged`) and a round's timer (`RoundDue`) arrive the same way.

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    EventId, EventOutcome, EventSpec, EventSummary, EventView, GameId, PlayerInfo, TeamId, UserId,
};

/// A request about competitions. It travels inside the hall's own request (`HallRequest::Event`),
/// so scaled out it reaches whichever node runs the hall, and there its competitions.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event_cmd", rename_all = "snake_case")]
pub enum EventRequest {
    /// Create a competition directed by `director`; the reply is its view.
    CreateEvent {
        director: PlayerInfo,
        spec: EventSpec,
    },
    JoinEvent {
        event: EventId,
        player: PlayerInfo,
    },
    LeaveEvent {
        event: EventId,
        user: UserId,
    },
    /// The director pairs and starts the next round.
    StartRound {
        event: EventId,
        user: UserId,
    },
    GetEvent {
        event: EventId,
    },
    ListEvents {
        before: Option<EventId>,
    },
    /// The director's actions: `director` is who asks.
    EventWithdraw {
        event: EventId,
        director: UserId,
        user: UserId,
    },
    EventWarn {
        event: EventId,
        director: UserId,
        user: UserId,
    },
    EventAdjudicate {
        event: EventId,
        director: UserId,
        game: GameId,
        outcome: EventOutcome,
        reason: String,
    },
    /// Whether `director` directs `event` and `game` is in play in its round: `Done` if so. The
    /// session then asks the game itself (a pause, a resumption, an adjournment), so the hall (where
    /// the competitions run) never waits on a game.
    EventGameDirected {
        event: EventId,
        director: UserId,
        game: GameId,
    },
    /// Told by an event's game: a line for the event's log (`paused`, `adjourned`, `sealed`,
    /// `resumed`). A game that is no event's is ignored.
    GameLogged {
        game: GameId,
        action: String,
        user: Option<UserId>,
        /// A pause's or adjournment's set resumption (Unix ms).
        until_ms: Option<u64>,
    },
    /// Team events: `player` founds a team (and captains it), joins one, or (a captain) sets the
    /// next round's line-up.
    CreateTeam {
        event: EventId,
        player: PlayerInfo,
        name: String,
    },
    JoinTeam {
        event: EventId,
        player: PlayerInfo,
        team: TeamId,
    },
    SetLineUp {
        event: EventId,
        captain: UserId,
        players: Vec<UserId>,
    },
    /// A round's set start time came (sent by the competition's own timer, through the hall): start
    /// it if it can.
    RoundDue {
        event: EventId,
        round: u32,
    },
}

/// What the competitions answer, one shape per kind of answer (the hall's reply carries each as it
/// always has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventReply {
    /// Done; nothing to say.
    Done,
    /// An event's whole state.
    Event(Box<EventView>),
    /// A page of the events.
    Events(Vec<EventSummary>),
}
