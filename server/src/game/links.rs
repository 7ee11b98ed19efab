//! What a game needs from the modules above it, as traits they implement, so that `game` depends on
//! nothing above it (the order is in `docs/architecture.md`): the hall it tells of its end, its
//! restoration, new balances and ratings and an event game's log lines ([`HallLink`], implemented by
//! the hall's handle), and, scaled out, the other nodes where games also run ([`OtherNodes`],
//! implemented by the cluster). A game never waits on the hall for an answer, so a notice is one-way.

use std::fmt::Debug;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use tengen_protocol::{GameId, GameOutcome, GameSummary, PlayerInfo, TableId, UserId};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{GameContext, GameHandle, Mirror, StartGame};
use crate::Refusal;

/// What a game tells the hall. Each is one-way: the game goes on whatever the hall does with it.
#[derive(Debug, Clone)]
pub enum GameNotice {
    /// The game's result is stored: its table is free (sent before the players hear the end, so a
    /// player who proposes the next game at once finds the table free).
    Ended {
        game: GameId,
        table: Option<TableId>,
        outcome: Option<GameOutcome>,
    },
    /// A game restored from the store at startup or takeover, so its table and lists show it again.
    Restored { summary: GameSummary },
    /// After settling: the new balance of each account the game paid or refunded.
    Balances { balances: Vec<(UserId, u64)> },
    /// After a rated game: both players' new listings, for every list that shows them.
    Rerated { players: Vec<PlayerInfo> },
    /// A line for an event's log from one of its games (a warning, a pause, a sealed move); a game
    /// that is no event's is in no log, and the hall ignores it.
    EventLogged {
        game: GameId,
        action: String,
        user: Option<UserId>,
        until_ms: Option<u64>,
    },
}

/// The hall, as a game sees it: somewhere to send [`GameNotice`]s.
pub trait HallLink: Send + Sync + Debug {
    /// Deliver `notice`; waits only for room in the hall's inbox, never for an answer.
    fn tell(&self, notice: GameNotice) -> BoxFuture<'_, ()>;
}

/// A shared [`HallLink`], as a [`GameContext`] holds it.
pub type Hall = Arc<dyn HallLink>;

/// The other nodes of a cluster, as the game registry sees them: where a game not run here lives,
/// where a new game should start, and what to tell them when a game starts and stops here.
pub trait OtherNodes: Send + Sync {
    /// A stand-in that forwards to the node running `game`.
    fn remote_game(&self, game: GameId) -> BoxFuture<'_, Result<GameHandle, Refusal>>;
    /// The live games `user` plays in on any node.
    fn games_of_player(&self, user: UserId) -> BoxFuture<'_, Vec<GameId>>;
    /// Start `start` on the node Black is connected to, when that is another node: `None` when
    /// Black is here (or nowhere), so the game starts here.
    fn start_elsewhere(
        &self,
        start: &StartGame,
    ) -> Option<BoxFuture<'_, Result<GameSummary, Refusal>>>;
    /// Claim a new game for this node before its actor starts: the context it runs with.
    fn claim_new_game<'a>(
        &'a self,
        game: GameId,
        players: [UserId; 2],
        ctx: &'a GameContext,
    ) -> BoxFuture<'a, Result<GameContext, Refusal>>;
    /// Relay a game's frames to the other nodes from the mirror it answers with.
    fn relay_game(
        &self,
        game: GameId,
        mirror: oneshot::Receiver<Result<Mirror, Refusal>>,
    ) -> JoinHandle<()>;
    /// A game's actor stopped here (`ended`: the game is over, rather than handed over).
    fn game_stopped(
        &self,
        game: GameId,
        players: [UserId; 2],
        relay: Option<JoinHandle<()>>,
        ended: bool,
    ) -> BoxFuture<'_, ()>;
}

/// How the game registry holds the other nodes without keeping them alive: the cluster holds the
/// registry, and a strong link back would keep both (and the shutdown's task guard) alive after the
/// server stopped.
pub trait WeakNodes: Send + Sync + Debug {
    /// The other nodes, while the cluster runs.
    fn upgrade(&self) -> Option<Arc<dyn OtherNodes>>;
}
