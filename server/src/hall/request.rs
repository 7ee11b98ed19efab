//! What anyone may ask of the hall, defined once as data: [`HallRequest`] and its answer
//! [`HallReply`]. A session sends a [`HallCmd`] (the request and, when someone waits, where the reply
//! goes); the hall's `handle` takes the request and returns the reply; scaled out, the cluster carries
//! the very same request to the node that owns the hall and the reply back, serialized as JSON. To add a
//! hall command: a variant here, its arm in `Hall::handle`, the session's arm, the protocol message.

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    ChallengeId, ChatChannel, ChatLineId, ErrorCode, EventPlacing, EventSummary, EventView, GameId,
    GameOutcome, GameSettings, GameSummary, PlayerInfo, Points, RoomId, Seat, StakeTerms, TableId,
    UserId,
};
use tokio::sync::oneshot;

use super::automatch::Seeker;
use super::relations::{FriendNow, RelationChange};
use crate::competition::{EventReply, EventRequest};
use crate::game::GameNotice;
use crate::store::RelationKind;
use crate::{Frame, Refusal, Reply};

/// A request to the hall. The first group comes from sessions and is answered; the second are
/// notifications (from sessions, game actors and the cluster) that nobody waits on.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum HallRequest {
    /// The hall snapshot (`hall` frame).
    HallSnapshot,
    /// What the hall knows of a user now, for their profile: online, the games they play, the
    /// events they entered.
    Presence {
        user: UserId,
    },
    /// Join a room; the reply is the `room` frame. `player` is `None` for an anonymous watcher.
    JoinRoom {
        room: RoomId,
        player: Option<PlayerInfo>,
    },
    LeaveRoom {
        room: RoomId,
        user: Option<UserId>,
    },
    /// The current `room` frame of a room, without joining it (for resyncs).
    RoomSnapshot {
        room: RoomId,
    },
    /// The current `table_updated` frame of a table (for resyncs).
    TableSnapshot {
        table: TableId,
    },
    /// Watch a table; the reply is its `table_updated` frame and its game, if one is on.
    JoinTable {
        table: TableId,
    },
    /// Leave a table: stand up if seated, and stop watching if `watching`.
    LeaveTable {
        table: TableId,
        user: Option<UserId>,
        watching: bool,
    },
    Sit {
        table: TableId,
        seat: Seat,
        player: PlayerInfo,
    },
    Stand {
        table: TableId,
        user: UserId,
    },
    Propose {
        table: TableId,
        user: UserId,
        settings: GameSettings,
    },
    Accept {
        table: TableId,
        user: UserId,
        settings: GameSettings,
    },
    /// A direct challenge; the reply is its id.
    Challenge {
        from: PlayerInfo,
        to: UserId,
        settings: GameSettings,
    },
    AcceptChallenge {
        challenge: ChallengeId,
        user: UserId,
    },
    DeclineChallenge {
        challenge: ChallengeId,
        user: UserId,
    },
    /// Join (or rejoin) the automatch queue.
    Automatch {
        seeker: Seeker,
    },
    CancelAutomatch {
        user: UserId,
    },
    /// Room or table chat (kibitz goes to the game), with the id the store gave the line.
    Chat {
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
        #[serde(default)]
        line: Option<ChatLineId>,
    },
    /// A competition's request (see [`EventRequest`]), which the hall hands to its competitions.
    Event(EventRequest),
    /// A seated player offers stakes (and presses OK).
    StakeOffer {
        table: TableId,
        user: UserId,
        /// The left seat's stake and the right seat's; `None` is none.
        amounts: [Option<Points>; 2],
        terms: StakeTerms,
    },
    /// A seated player agrees or disagrees to the offered stakes.
    StakeAnswer {
        table: TableId,
        user: UserId,
        agree: bool,
    },
    /// A relation the store just recorded (see [`RelationChange`]): the hall keeps it for its
    /// holder if online and tells both users' connections.
    Related {
        change: RelationChange,
    },
    /// Whether each of `users` is online and what they play (for a friends list).
    FriendsNow {
        users: Vec<UserId>,
    },
    /// A session authenticated as `player`.
    Online {
        player: PlayerInfo,
    },
    /// A session ended or logged out: it leaves its room and tables; the user goes offline when it was
    /// their last session.
    SessionGone {
        user: Option<UserId>,
        room: Option<RoomId>,
        tables: Vec<TableId>,
    },
    /// Sent by a game actor when its game is over, with its outcome (for an event's results).
    GameEnded {
        game: GameId,
        table: Option<TableId>,
        #[serde(default)]
        outcome: Option<GameOutcome>,
    },
    /// Sent by a game actor after settling: the new balance of each account it paid or refunded,
    /// pushed to that user's connections.
    Balances {
        balances: Vec<(UserId, u64)>,
    },
    /// A user's session token (`token_digest`), or all of them (`None`), was revoked: every connection
    /// of that user on every node bound to it is logged out (see [`super::Revocation`]).
    Revoked {
        user: UserId,
        token_digest: Option<String>,
        /// A moderator's ban: the connections close, saying why and until when.
        #[serde(default)]
        ban: Option<super::BanNotice>,
    },
    /// A message for one user's connections, on every node (a moderator's mute notice).
    ToUser {
        user: UserId,
        msg: Box<tengen_protocol::ServerMsg>,
    },
    /// A moderator removed a room or table chat line: whoever has it on screen drops it, and a
    /// room's recent chat forgets it.
    RemoveChat {
        channel: ChatChannel,
        line: ChatLineId,
    },
    /// Sent by a game actor after rating its game: both players' new listings (rank and rating),
    /// for every list that shows them and for their own connections.
    Rerated {
        players: Vec<PlayerInfo>,
    },
    /// Sent at startup for a game restored from the store, so its table shows it again.
    GameRestored {
        summary: GameSummary,
    },
    /// Scaled out: a game run by another node, with its watcher and move counts now.
    Relisted {
        summary: GameSummary,
    },
    /// Sent by the hall itself: `user`'s relations as the store had them, read by its load number
    /// `load` (only the newest load is taken).
    RelationsLoaded {
        user: UserId,
        load: u64,
        held: Vec<(RelationKind, UserId)>,
    },
}

/// What the hall answers, one shape per kind of answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum HallReply {
    /// Done; nothing to say.
    Done,
    /// A serialized frame for the client (`hall`, `room`, `table_updated`).
    Frame {
        #[serde(with = "crate::frame_text")]
        text: Frame,
    },
    /// A table joined: its frame and its game in play, if any.
    Table {
        #[serde(with = "crate::frame_text")]
        text: Frame,
        game: Option<GameId>,
    },
    /// A challenge sent.
    Challenge { challenge: ChallengeId },
    /// An event's whole state.
    Event { view: Box<EventView> },
    /// A page of the events (the competitions', which the hall hosts).
    Events { events: Vec<EventSummary> },
    /// A user's presence (the answer to `Presence`).
    Presence { presence: Presence },
    /// Whether each user asked about is online and what they play (the answer to `FriendsNow`).
    FriendsNow { now: Vec<FriendNow> },
}

/// What the hall knows of a user now: the live part of their profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    pub online: bool,
    /// When their last connection ended, when the hall still knows it (the store has it too, a
    /// moment later).
    #[serde(default)]
    pub left_at_ms: Option<u64>,
    /// The live games they play.
    pub playing: Vec<GameId>,
    /// The events they entered, newest first, with their placing.
    pub events: Vec<EventPlacing>,
}

impl HallReply {
    /// The reply of a request answered `Done`.
    pub fn done(self) -> Result<(), Refusal> {
        match self {
            HallReply::Done => Ok(()),
            other => Err(other.mismatch()),
        }
    }

    /// The frame of a snapshot request.
    pub fn frame(self) -> Result<Frame, Refusal> {
        match self {
            HallReply::Frame { text } => Ok(text),
            other => Err(other.mismatch()),
        }
    }

    /// The frame and game of `JoinTable`.
    pub fn table(self) -> Result<(Frame, Option<GameId>), Refusal> {
        match self {
            HallReply::Table { text, game } => Ok((text, game)),
            other => Err(other.mismatch()),
        }
    }

    /// The view of an event request.
    pub fn event(self) -> Result<EventView, Refusal> {
        match self {
            HallReply::Event { view } => Ok(*view),
            other => Err(other.mismatch()),
        }
    }

    pub fn events(self) -> Result<Vec<EventSummary>, Refusal> {
        match self {
            HallReply::Events { events } => Ok(events),
            other => Err(other.mismatch()),
        }
    }

    pub fn presence(self) -> Result<Presence, Refusal> {
        match self {
            HallReply::Presence { presence } => Ok(presence),
            other => Err(other.mismatch()),
        }
    }

    pub fn friends_now(self) -> Result<Vec<FriendNow>, Refusal> {
        match self {
            HallReply::FriendsNow { now } => Ok(now),
            other => Err(other.mismatch()),
        }
    }

    /// The id of a challenge sent.
    pub fn challenge(self) -> Result<ChallengeId, Refusal> {
        match self {
            HallReply::Challenge { challenge } => Ok(challenge),
            other => Err(other.mismatch()),
        }
    }

    /// An answer of another shape than the request's: only a node running other code sends one.
    fn mismatch(self) -> Refusal {
        tracing::error!(reply = ?self, "the hall answered in an unexpected shape");
        Refusal::new(
            ErrorCode::Internal,
            "the hall answered in an unexpected shape",
        )
    }
}

/// A request on its way to the hall actor, with where its answer goes (`None`: nobody waits).
#[derive(Debug)]
pub struct HallCmd {
    pub request: HallRequest,
    pub reply: Option<Reply<HallReply>>,
}

impl HallCmd {
    /// A request whose answer someone waits for, and the receiver of that answer.
    pub fn asked(request: HallRequest) -> (HallCmd, oneshot::Receiver<Result<HallReply, Refusal>>) {
        let (reply, answer) = oneshot::channel();
        let reply = Some(reply);
        (HallCmd { request, reply }, answer)
    }

    /// A notification: nobody waits for the answer.
    pub fn told(request: HallRequest) -> HallCmd {
        HallCmd {
            request,
            reply: None,
        }
    }
}

/// The competitions' answers, in the shapes the hall has always sent them.
impl From<EventReply> for HallReply {
    fn from(reply: EventReply) -> HallReply {
        match reply {
            EventReply::Done => HallReply::Done,
            EventReply::Event(view) => HallReply::Event { view },
            EventReply::Events(events) => HallReply::Events { events },
        }
    }
}

impl From<GameNotice> for HallRequest {
    fn from(notice: GameNotice) -> HallRequest {
        match notice {
            GameNotice::Ended {
                game,
                table,
                outcome,
            } => HallRequest::GameEnded {
                game,
                table,
                outcome,
            },
            GameNotice::Restored { summary } => HallRequest::GameRestored { summary },
            GameNotice::Balances { balances } => HallRequest::Balances { balances },
            GameNotice::Rerated { players } => HallRequest::Rerated { players },
            GameNotice::EventLogged {
                game,
                action,
                user,
                until_ms,
            } => HallRequest::Event(EventRequest::GameLogged {
                game,
                action,
                user,
                until_ms,
            }),
        }
    }
}
