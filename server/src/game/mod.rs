//! Live games: the registry of running game actors ([`Games`]), the commands a session sends one
//! ([`GameCmd`], through a bounded inbox; a full inbox answers `busy`), starting a game and restoring
//! live games from the store after a restart, and subscribing to one. The game itself, its rules,
//! scoring phase and event log, is in `actor`; who watches it, in `viewers`; how a connection reads
//! the games it follows, in `follow`.

mod actor;
#[cfg(test)]
mod actor_tests;
mod core;
mod fan_out;
mod follow;
pub mod links;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod outage_tests;
mod request;
pub mod viewers;
pub mod wire;

pub use fan_out::{FanOut, SliceProgress};
pub use follow::{Arrival, Following, Source};
pub use links::{GameNotice, Hall, HallLink, OtherNodes, WeakNodes};
pub use request::{BetReceipt, GameCmd, GameReply, GameRequest};
pub use viewers::{ViewerGuard, Viewers, WatcherList};

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::FutureExt;
use tengen_protocol::{
    GameId, GameSettings, GameSummary, PlayerInfo, Point, RequestKey, TableId, UserId,
};
use tokio::sync::{broadcast, mpsc, oneshot, Notify};

use crate::config::{GameTiming, GAME_INBOX_LEN, LIVE_GAMES_MAX, SUBSCRIBE_WAIT_MS};
use crate::ledger::Ledger;
use crate::store::{store_refusal, LiveGameRow, NewGame, StoreHandle};
use crate::{unix_now_ms, BoxError, Frame, Refusal, Reply, Shutdown, TaskGuard};
use tengen_protocol::ErrorCode;

/// What a game actor needs from the rest of the server.
#[derive(Debug, Clone)]
pub struct GameContext {
    pub store: StoreHandle,
    /// Fortune points: bets go through the actor to it, and the actor settles the game with it.
    pub ledger: Ledger,
    /// Test fault injection (see `Config::fault_stop_before_settlement`).
    pub fault_stop_before_settlement: bool,
    /// Where the game's notices go (its end, new balances and ratings, restoration).
    pub hall: Hall,
    pub shutdown: Shutdown,
    pub tasks: TaskGuard,
    pub timing: GameTiming,
}

/// One frame a game publishes, serialized once for every subscriber.
#[derive(Debug, Clone)]
pub struct GameFrame {
    /// Counted from the game's first frame (see [`FanOut`]).
    pub number: u64,
    /// The event's `seq`; `None` for frames that are not events (kibitz chat).
    pub seq: Option<u64>,
    pub text: Frame,
    /// Users who must not receive it (the players, for kibitz during play).
    pub hidden_from: [Option<UserId>; 2],
    /// On the last frame of a crowd's slice: tell it when this follower has it.
    pub progress: Option<Arc<SliceProgress>>,
}

/// A subscriber's start: the full state up to `seq`, and the receiver for everything after it.
#[derive(Debug)]
pub struct Subscription {
    pub snapshot: Frame,
    pub seq: u64,
    pub frames: broadcast::Receiver<GameFrame>,
    /// Frames sent before the snapshot was taken: what they said is in it.
    pub frames_sent: u64,
    /// For a player's own subscription: while it lives, the player counts as present at the game.
    pub presence: Option<PresenceGuard>,
    /// While it lives, the subscriber counts as a watcher (a player's is accepted and not counted).
    pub viewer: ViewerGuard,
}

/// What another node starts a mirror of a game from.
#[derive(Debug)]
pub struct Mirror {
    pub snapshot: Frame,
    pub seq: u64,
    pub frames: broadcast::Receiver<GameFrame>,
}

/// How many connections each player (Black, White) has following their game, shared between the
/// actor and the players' subscriptions. Counters rather than messages, so that a leave can never be
/// lost to a full queue; the `Notify` wakes the actor to look at them.
#[derive(Debug, Default)]
pub struct Presence {
    pub counts: [AtomicU32; 2],
    pub changed: Notify,
}

/// Held by a player's subscription (and so by the connection following the game): dropping it, when the socket
/// closes or the game is unwatched, counts that connection out.
#[derive(Debug)]
pub struct PresenceGuard {
    presence: Arc<Presence>,
    index: usize,
}

impl PresenceGuard {
    pub fn new(presence: Arc<Presence>, index: usize) -> PresenceGuard {
        presence.counts[index].fetch_add(1, Ordering::SeqCst);
        presence.changed.notify_one();
        PresenceGuard { presence, index }
    }
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        self.presence.counts[self.index].fetch_sub(1, Ordering::SeqCst);
        self.presence.changed.notify_one();
    }
}

/// A player's move as the actor receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PlayerMove {
    Play(Point),
    Pass,
    Resign,
}

/// The way in to one game actor.
#[derive(Debug, Clone)]
pub struct GameHandle {
    inbox: mpsc::Sender<GameCmd>,
    /// Who watches the game; shared with the actor, which pushes the list when it changes.
    viewers: Arc<Viewers>,
    /// The game is over (set by the actor, or by a stand-in when the owner says so).
    ended: Arc<AtomicBool>,
    /// Moves played so far, kept by the actor for the hall's list (a stand-in leaves it at 0).
    moves_count: Arc<AtomicU32>,
}

impl GameHandle {
    /// A handle on `inbox` and a watcher registry, for an actor or a stand-in for one (the
    /// cluster's mirror of a game owned by another node).
    pub fn new(
        inbox: mpsc::Sender<GameCmd>,
        viewers: Arc<Viewers>,
        ended: Arc<AtomicBool>,
    ) -> GameHandle {
        GameHandle {
            inbox,
            viewers,
            ended,
            moves_count: Arc::default(),
        }
    }

    /// The game is over (not merely stopped on this node).
    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// The game's watcher registry: hold a [`ViewerGuard::new`] on it to count someone in as a
    /// watcher without a local subscription (a session on another node following this game).
    pub fn viewers(&self) -> Arc<Viewers> {
        Arc::clone(&self.viewers)
    }

    /// Queue a command without waiting: `busy` when the inbox is full. Forwarded commands use it so
    /// that they reach the actor in the order they arrived.
    pub fn try_send(&self, cmd: GameCmd) -> Result<(), Refusal> {
        self.inbox.try_send(cmd).map_err(|err| match err {
            mpsc::error::TrySendError::Full(_) => Refusal::busy(),
            mpsc::error::TrySendError::Closed(_) => game_over(),
        })
    }

    /// The actor (or stand-in) behind this handle has stopped.
    pub fn is_closed(&self) -> bool {
        self.inbox.is_closed()
    }

    /// Ask the game something; a full inbox answers `busy` at once rather than waiting.
    pub async fn ask(&self, request: GameRequest) -> Result<GameReply, Refusal> {
        let (cmd, answer) = GameCmd::asked(request);
        self.try_send(cmd)?;
        answer.await.map_err(|_| game_over())?
    }

    /// Ask for something only the actor's own node can give (a subscription, a mirror).
    pub async fn ask_local<T>(&self, make: impl FnOnce(Reply<T>) -> GameCmd) -> Result<T, Refusal> {
        let (tx, rx) = oneshot::channel();
        self.try_send(make(tx))?;
        rx.await.map_err(|_| game_over())?
    }
}

/// What a request to a game whose actor has stopped hears.
pub(crate) fn game_over() -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, "the game has ended")
}

/// A live game's handle and its two players (Black, White).
type LiveEntry = (GameHandle, [UserId; 2]);

/// The registry of live games on this node, and (scaled out) the way to games on other nodes.
#[derive(Debug, Clone, Default)]
pub struct Games {
    /// Bounded by [`LIVE_GAMES_MAX`]: `start` refuses beyond it. Each entry keeps its two players.
    live: Arc<Mutex<HashMap<GameId, LiveEntry>>>,
    /// Set once at start when the server runs as one of several nodes (weak: see [`WeakNodes`]).
    other_nodes: Arc<OnceLock<Arc<dyn WeakNodes>>>,
}

/// Everything needed to start a game.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StartGame {
    pub table: Option<TableId>,
    /// Who may not bet in the game's pool besides its players: an event's entrants, on its games.
    /// (A game restored after a restart hears it again from the hall, see `GameRequest::BarBettors`.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bettors_barred: Vec<UserId>,
    pub black: PlayerInfo,
    pub white: PlayerInfo,
    pub settings: GameSettings,
    pub nigiri_seed: Option<u64>,
}

impl Games {
    pub fn new() -> Games {
        Games::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, LiveEntry>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Join a cluster of nodes: games this node does not run are reached through `nodes`.
    pub fn join(&self, nodes: Arc<dyn WeakNodes>) {
        let _ = self.other_nodes.set(nodes);
    }

    /// The other nodes, if this one runs as one of several (and the cluster has not stopped).
    pub fn other_nodes(&self) -> Option<Arc<dyn OtherNodes>> {
        self.other_nodes.get().and_then(|nodes| nodes.upgrade())
    }

    /// A game's handle: its actor's on this node, else (scaled out) a stand-in that forwards to the
    /// node that owns it.
    pub async fn get(&self, game: GameId) -> Result<GameHandle, Refusal> {
        if let Some(handle) = self.get_local(game) {
            return Ok(handle);
        }
        match self.other_nodes() {
            Some(nodes) => nodes.remote_game(game).await,
            None => Err(Refusal::new(
                ErrorCode::NoSuchGame,
                format!("no live game {game}"),
            )),
        }
    }

    /// The handle of a game whose actor runs on this node.
    pub fn get_local(&self, game: GameId) -> Option<GameHandle> {
        self.lock().get(&game).map(|(handle, _)| handle.clone())
    }

    /// The two players of a game whose actor runs on this node.
    pub fn players_of(&self, game: GameId) -> Option<[UserId; 2]> {
        self.lock().get(&game).map(|(_, players)| *players)
    }

    /// The live games on this node.
    pub fn local_ids(&self) -> Vec<GameId> {
        self.lock().keys().copied().collect()
    }

    /// A live game's listing as it stands now, `listed` with its watchers and moves counted now
    /// (`None` once it has ended or when it runs on another node), for the hall's lists.
    pub fn listing_now(&self, listed: &GameSummary) -> Option<GameSummary> {
        self.lock()
            .get(&listed.game)
            .map(|(handle, _)| GameSummary {
                watchers_count: handle.viewers.count(),
                moves_count: handle.moves_count.load(Ordering::Relaxed),
                ..listed.clone()
            })
    }

    /// The live games `user` plays in (for a player who reconnects), on any node.
    pub async fn of_player(&self, user: UserId) -> Vec<GameId> {
        let mut games: Vec<GameId> = self
            .lock()
            .iter()
            .filter(|(_, (_, players))| players.contains(&user))
            .map(|(id, _)| *id)
            .collect();
        if let Some(nodes) = self.other_nodes() {
            for game in nodes.games_of_player(user).await {
                if !games.contains(&game) {
                    games.push(game);
                }
            }
        }
        games
    }

    fn remove(&self, game: GameId) {
        self.lock().remove(&game);
    }

    /// Record a new game in the store and start its actor: here, or scaled out on the node Black
    /// is connected to (so games spread over the nodes as their players do, and Black's moves need
    /// no hop), falling back to this node if that one cannot.
    pub async fn start(&self, start: StartGame, ctx: &GameContext) -> Result<GameSummary, Refusal> {
        if let Some(nodes) = self.other_nodes() {
            if let Some(started) = nodes.start_elsewhere(&start) {
                match started.await {
                    Ok(summary) => return Ok(summary),
                    Err(err) => {
                        tracing::warn!(%err, "could not start a game on its player's node; starting it here");
                    }
                }
            }
        }
        self.start_here(start, ctx).await
    }

    /// Record a new game in the store and start its actor on this node.
    pub async fn start_here(
        &self,
        start: StartGame,
        ctx: &GameContext,
    ) -> Result<GameSummary, Refusal> {
        if self.lock().len() >= LIVE_GAMES_MAX {
            return Err(Refusal::new(
                ErrorCode::Busy,
                "the server has too many live games",
            ));
        }
        let engine = wire::new_engine_game(&start.settings)?;
        let new_game_started_at_ms = unix_now_ms();
        let new_game = NewGame {
            black: start.black.user,
            white: start.white.user,
            table: start.table,
            settings_json: serde_json::to_string(&start.settings)
                .map_err(|err| Refusal::new(ErrorCode::Internal, err.to_string()))?,
            nigiri_seed: start.nigiri_seed,
            started_at_ms: new_game_started_at_ms,
        };
        let id = ctx
            .store
            .call(move |store| store.create_game(&new_game))
            .await
            .map_err(|err| store_refusal(&err))?;
        let players = [start.black.user, start.white.user];
        let ctx = match self.other_nodes() {
            Some(nodes) => nodes.claim_new_game(id, players, ctx).await?,
            None => ctx.clone(),
        };
        let actor = actor::GameActor::new(id, start, engine, ctx, new_game_started_at_ms)?;
        let summary = actor.summary();
        self.spawn(actor);
        Ok(summary)
    }

    fn spawn(&self, actor: actor::GameActor) {
        let (tx, rx) = mpsc::channel(GAME_INBOX_LEN);
        let players = actor.players();
        let handle = GameHandle {
            inbox: tx,
            viewers: actor.viewers(),
            ended: actor.ended_flag(),
            moves_count: actor.moves_count(),
        };
        self.lock().insert(actor.id(), (handle.clone(), players));
        let games = self.clone();
        let nodes = self.other_nodes();
        // Scaled out, the relay to other nodes asks first, so it misses none of the game's frames.
        let relay = nodes.as_ref().map(|nodes| {
            let (reply, mirror) = oneshot::channel();
            let _ = handle.try_send(GameCmd::Mirror { reply });
            nodes.relay_game(actor.id(), mirror)
        });
        tokio::spawn(async move {
            let (id, mut rx, mut relay) = (actor.id(), rx, relay);
            // An actor restarted after a panic relays the game again from its fresh state.
            let relay_again = || {
                if let Some(nodes) = &nodes {
                    let (reply, mirror) = oneshot::channel();
                    let _ = handle.try_send(GameCmd::Mirror { reply });
                    relay = Some(nodes.relay_game(id, mirror));
                }
            };
            let ended = actor.supervise(&mut rx, relay_again).await;
            // Closed before the registry forgets the game, so no subscriber waits on it.
            drop(rx);
            games.remove(id);
            if let Some(nodes) = nodes {
                nodes.game_stopped(id, players, relay, ended).await;
            }
        });
    }

    /// Take over a live game whose owner died: replay its log into a new actor here. `Ok(false)`
    /// when the log shows it had already ended (it is finished and settled now instead).
    pub async fn restore(&self, row: LiveGameRow, ctx: &GameContext) -> Result<bool, BoxError> {
        let id = row.id;
        // A log whose replay panics fails this one game, not the start or the takeover scan.
        let restored = AssertUnwindSafe(actor::GameActor::restore(row, ctx.clone()))
            .catch_unwind()
            .await
            .map_err(|_| -> BoxError { format!("replaying game {id}'s log panicked").into() })?;
        match restored? {
            Some(actor) => {
                let summary = actor.summary();
                self.spawn(actor);
                ctx.hall.tell(GameNotice::Restored { summary }).await;
                tracing::info!(game = %id, "restored a live game");
                Ok(true)
            }
            None => {
                tracing::info!(game = %id, "finished a game that had ended before it was restored");
                Ok(false)
            }
        }
    }
}

/// Start an actor for every game the store says is live, replaying its event log, so a restart loses
/// no game. A game whose log already ends with its result is finished instead.
pub async fn restore_live_games(ctx: GameContext, games: &Games) -> Result<(), BoxError> {
    let live = ctx.store.call(|store| store.live_games()).await?;
    for row in live {
        let id = row.id;
        if let Err(err) = games.restore(row, &ctx).await {
            tracing::error!(game = %id, %err, "could not restore a live game");
        }
    }
    Ok(())
}

/// Games listed per `list_games` request: a page of recent games, so one request stays cheap.
pub const GAME_LIST_LEN_MAX: usize = 100;

/// A game's SGF: from its actor while live (the record so far), else the stored record.
pub async fn record(games: &Games, store: &StoreHandle, game: GameId) -> Result<String, Refusal> {
    if let Ok(handle) = games.get(game).await {
        if let Ok(sgf) = handle
            .ask(GameRequest::Record)
            .await
            .and_then(GameReply::record)
        {
            return Ok(sgf);
        }
    }
    store
        .call(move |store| store.game_sgf(game))
        .await
        .map_err(|err| store_refusal(&err))?
        .ok_or_else(|| Refusal::new(ErrorCode::NoSuchGame, format!("no game {game}")))
}

/// A keyed move, pass or resignation sent to a game that is no longer live (a resignation whose
/// `ack` was lost ended it): answered from the game's stored log. `Ok(None)` when the log has no
/// such key (the request was never played).
pub async fn retry_after_end(
    store: &StoreHandle,
    game: GameId,
    user: UserId,
    key: RequestKey,
    mv: PlayerMove,
) -> Result<Option<()>, Refusal> {
    let events = store
        .call(move |store| store.game_events(game))
        .await
        .map_err(|err| store_refusal(&err))?;
    actor::answer_from_log(&events, user, &key, mv).transpose()
}

/// The games a user played, newest first, at most [`GAME_LIST_LEN_MAX`] (those before `before`
/// when given).
pub async fn list_games(
    store: &StoreHandle,
    username: &str,
    before: Option<GameId>,
) -> Result<Vec<tengen_protocol::GameListing>, Refusal> {
    let name = username.to_string();
    let internal = |err: crate::store::StoreError| store_refusal(&err);
    let user = store
        .call(move |store| store.user_by_name(&name))
        .await
        .map_err(internal)?
        .ok_or_else(|| Refusal::new(ErrorCode::NoSuchUser, format!("no user {username}")))?;
    let rows = store
        .call(move |store| store.games_of_user(user.id, before, GAME_LIST_LEN_MAX))
        .await
        .map_err(internal)?;
    Ok(list_game_rows(rows))
}

/// Stored games as a player's list shows them.
pub fn list_game_rows(rows: Vec<crate::store::GameListRow>) -> Vec<tengen_protocol::GameListing> {
    rows.into_iter()
        .map(|row| tengen_protocol::GameListing {
            game: row.id,
            black: row.black,
            white: row.white,
            size: serde_json::from_str::<GameSettings>(&row.settings_json)
                .map(|s| s.size)
                .unwrap_or(0),
            result: row.result,
            started_at_ms: row.started_at_ms,
        })
        .collect()
}

/// Subscribe to a game: the caller sends `subscription.snapshot` itself (so it arrives before the
/// request's `ack`), then hands the subscription to [`Following::follow`]. Unlike moves, a subscription waits (up to
/// [`SUBSCRIBE_WAIT_MS`]) for room in the inbox: when a game starts, every watcher of its table
/// subscribes at once, and turning them away `busy` would leave them without the game.
pub async fn subscribe(
    handle: &GameHandle,
    viewer: Option<PlayerInfo>,
) -> Result<Subscription, Refusal> {
    let (tx, rx) = oneshot::channel();
    let wait = Duration::from_millis(SUBSCRIBE_WAIT_MS);
    let cmd = GameCmd::Subscribe { viewer, reply: tx };
    match tokio::time::timeout(wait, handle.inbox.send(cmd)).await {
        Ok(Ok(())) => {}
        Ok(Err(_)) => return Err(game_over()),
        Err(_) => return Err(Refusal::busy()),
    }
    rx.await.map_err(|_| game_over())?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game whose inbox is full answers a move `busy` at once instead of making the session wait.
    #[tokio::test]
    async fn a_full_inbox_answers_busy() {
        let (inbox, rx) = mpsc::channel(1);
        let viewers = Arc::new(Viewers::new([UserId(1), UserId(2)]));
        let handle = GameHandle::new(inbox, viewers, Arc::default());
        let (reply, _) = oneshot::channel();
        handle
            .inbox
            .try_send(GameCmd::Subscribe {
                viewer: None,
                reply,
            })
            .unwrap();
        let pass = GameRequest::Move {
            user: UserId(1),
            mv: PlayerMove::Pass,
            key: None,
        };
        let refused = handle.ask(pass.clone()).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::Busy);
        drop(rx);
        let gone = handle.ask(pass).await.unwrap_err();
        assert_eq!(gone.code, ErrorCode::NoSuchGame);
        let gone = subscribe(&handle, None).await.unwrap_err();
        assert_eq!(gone.code, ErrorCode::NoSuchGame);
    }
}
