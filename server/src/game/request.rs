//! What anyone may ask of a live game, defined once as data: [`GameRequest`] and its answer
//! [`GameReply`]. A session (or the hall) sends a [`GameCmd`]: a request and where its answer goes;
//! the actor's `handle` takes the request and returns the reply; scaled out, a node's stand-in for a
//! game owned elsewhere forwards the very same request, serialized, and passes the reply back. Two
//! commands only make sense on the node that runs the actor and are not requests: `Subscribe` (its
//! answer holds live receivers) and `Mirror` (what the cluster relays a game to other nodes from).
//! To add a game command: a variant here, its arm in the actor's `handle`, the session's arm, the
//! protocol message.

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    ChatLineId, Color, ErrorCode, EventOutcome, GameSummary, PlayerInfo, Point, Points, PoolInfo,
    RequestKey, TableId, UserId,
};
use tokio::sync::oneshot;

use super::{Mirror, PlayerMove, Subscription};
use crate::{Refusal, Reply};

/// A request to a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum GameRequest {
    Move {
        user: UserId,
        mv: PlayerMove,
        /// The client's key, recorded with the event so a retry is answered, not played again
        /// (whichever node it comes through).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    ToggleDead {
        user: UserId,
        point: Point,
    },
    /// Scoring phase: accept the marking; `dead` is the marking the player saw, when they said.
    AcceptScore {
        user: UserId,
        dead: Option<Vec<Point>>,
    },
    /// Scoring phase: dispute the marking and play on.
    ResumePlay {
        user: UserId,
    },
    /// Ask to take back one's last move.
    Undo {
        user: UserId,
    },
    /// Answer the opponent's undo request.
    AnswerUndo {
        user: UserId,
        accept: bool,
    },
    /// The SGF record so far.
    Record,
    /// The game's line in the hall's lists (for a hall that starts afresh on another node).
    Summary,
    Kibitz {
        from: PlayerInfo,
        text: String,
        at_ms: u64,
        /// The id the store gave the line.
        #[serde(default)]
        line: Option<ChatLineId>,
    },
    /// The players' chat of the game.
    PlayerChat {
        from: PlayerInfo,
        text: String,
        at_ms: u64,
        #[serde(default)]
        line: Option<ChatLineId>,
    },
    /// A moderator removed a line of the game's chat: everyone following the game drops it.
    RemoveChat {
        channel: tengen_protocol::ChatChannel,
        line: ChatLineId,
    },
    /// A moderator voids the game: it ends void, and its settlement refunds every stake and bet.
    Void,
    /// A watcher's bet in the spectator pool: through the inbox, so it is ordered exactly against the
    /// end of play.
    Bet {
        user: UserId,
        side: Color,
        amount: Points,
        /// The client's key, recorded with the transfer so a retry is answered, not placed again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// Stakes agreed at the game's table move into its escrow (from the players, or from the
    /// table's hold when agreed before the game): through the inbox, so never after the game ended.
    Stakes {
        /// (player, amount): the left seat's and the right seat's.
        entries: Vec<(UserId, u64)>,
        /// In paid coaching, the student.
        student: Option<UserId>,
        /// The table's hold and the agreement's key, when agreed before the game.
        hold: Option<(TableId, String)>,
    },
    /// A player adds to their own stake (追加).
    StakeRaise {
        user: UserId,
        amount: Points,
        /// As for a bet.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// The pool as it stands.
    Pool,
    /// These users (an event's entrants) may not bet in this game's pool.
    BarBettors {
        users: Vec<UserId>,
    },
    /// An event's director decides the game (a win by forfeit, a draw, or void for both losing).
    Adjudicate {
        outcome: EventOutcome,
    },
    /// An event's director warns a player of the game (a point off their count for each).
    Warn {
        color: Color,
    },
    /// An event's director pauses the game until `resume_at_ms` (Unix ms).
    Pause {
        resume_at_ms: u64,
    },
    /// An event's director adjourns the game until `resume_at_ms` (Unix ms): the player to move seals.
    Adjourn {
        resume_at_ms: u64,
    },
    /// An event's director resumes a paused or adjourned game now.
    Resume,
    /// In an adjourned game, the player to move seals a move (`None`: a pass).
    Seal {
        user: UserId,
        point: Option<Point>,
    },
}

/// What a game answers, one shape per kind of answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum GameReply {
    /// Done; nothing to say.
    Done,
    Record {
        sgf: String,
    },
    Summary {
        summary: GameSummary,
    },
    Bet {
        receipt: BetReceipt,
    },
    Pool {
        pool: PoolInfo,
    },
}

/// What an accepted bet did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetReceipt {
    /// The bettor's whole bet on that side, this one included.
    pub total: u64,
    /// The bettor's balance after it.
    pub balance: u64,
}

impl GameRequest {
    /// Whether the request may change the game or move points: it then waits for the log to be
    /// settled after a failed write, where a read is answered from what the actor has.
    pub fn writes(&self) -> bool {
        !matches!(
            self,
            GameRequest::Record
                | GameRequest::Summary
                | GameRequest::Kibitz { .. }
                | GameRequest::PlayerChat { .. }
                | GameRequest::RemoveChat { .. }
                | GameRequest::BarBettors { .. }
                | GameRequest::Pool
        )
    }
}

impl GameReply {
    /// The reply of a request answered `Done`.
    pub fn done(self) -> Result<(), Refusal> {
        match self {
            GameReply::Done => Ok(()),
            other => Err(other.mismatch()),
        }
    }

    pub fn record(self) -> Result<String, Refusal> {
        match self {
            GameReply::Record { sgf } => Ok(sgf),
            other => Err(other.mismatch()),
        }
    }

    pub fn summary(self) -> Result<GameSummary, Refusal> {
        match self {
            GameReply::Summary { summary } => Ok(summary),
            other => Err(other.mismatch()),
        }
    }

    pub fn bet(self) -> Result<BetReceipt, Refusal> {
        match self {
            GameReply::Bet { receipt } => Ok(receipt),
            other => Err(other.mismatch()),
        }
    }

    pub fn pool(self) -> Result<PoolInfo, Refusal> {
        match self {
            GameReply::Pool { pool } => Ok(pool),
            other => Err(other.mismatch()),
        }
    }

    /// An answer of another shape than the request's: only a node running other code sends one.
    fn mismatch(self) -> Refusal {
        tracing::error!(reply = ?self, "a game answered in an unexpected shape");
        Refusal::new(
            ErrorCode::Internal,
            "a game answered in an unexpected shape",
        )
    }
}

/// What a game actor's inbox carries.
#[derive(Debug)]
pub enum GameCmd {
    /// A request, with where its answer goes (`None`: nobody waits).
    Request {
        request: GameRequest,
        reply: Option<Reply<GameReply>>,
    },
    /// Follow the game: its state and every frame after it. `viewer` is the subscribing session's
    /// user (`None`: anonymous): a player's connections count as presence, anyone else's as watching.
    Subscribe {
        viewer: Option<PlayerInfo>,
        reply: Reply<Subscription>,
    },
    /// For the cluster: the state and the frames after it, counting nobody in as a watcher (the
    /// relay to other nodes, and their snapshots; they count their own watchers).
    Mirror { reply: Reply<Mirror> },
}

impl GameCmd {
    /// A request whose answer someone waits for, and the receiver of that answer.
    pub fn asked(request: GameRequest) -> (GameCmd, oneshot::Receiver<Result<GameReply, Refusal>>) {
        let (reply, answer) = oneshot::channel();
        let reply = Some(reply);
        (GameCmd::Request { request, reply }, answer)
    }

    /// Whether the command may change the game (see [`GameRequest::writes`]).
    pub fn writes(&self) -> bool {
        match self {
            GameCmd::Request { request, .. } => request.writes(),
            GameCmd::Subscribe { .. } | GameCmd::Mirror { .. } => false,
        }
    }

    /// Refuse a command that changes something with `refusal`, for a reason that leaves it
    /// undone (the store out of reach, a stand-in stopping before it forwarded it). Reads are
    /// never refused so: their senders hear the game has stopped here when the reply is dropped.
    pub(crate) fn refuse(self, refusal: Refusal) {
        self.refuse_writes(refusal.clone(), refusal);
    }

    /// Refuses a command that arrived after the game ended (a deadline passed while it waited in
    /// the inbox), each with the reason its sender expects.
    pub(crate) fn refuse_ended(self) {
        self.refuse_writes(
            Refusal::new(ErrorCode::WrongPhase, "the game has ended"),
            crate::ledger::BetRejected::Closed.into(),
        );
    }

    /// Answer a command that changes something with `refusal` (a bet with `bet_refusal`); drop a
    /// read-only request, whose sender hears that the game stopped here when its reply is dropped.
    fn refuse_writes(self, refusal: Refusal, bet_refusal: Refusal) {
        let GameCmd::Request {
            request,
            reply: Some(reply),
        } = self
        else {
            return;
        };
        let refusal = match request {
            GameRequest::Bet { .. } => bet_refusal,
            GameRequest::Record | GameRequest::Summary | GameRequest::Pool => return,
            _ => refusal,
        };
        let _ = reply.send(Err(refusal));
    }
}
