//! Several `tengen` nodes sharing one Redis: the bus between them and who runs what. Each live game
//! is run by one node, its owner (a fenced lease, see `lease`); the hall too. A session on any node
//! reaches a game or the hall through the same handles as on one node: for a game owned elsewhere,
//! `remote_game` runs a stand-in actor that forwards commands to the owner and mirrors the game's
//! frames from its pub/sub channel; for the hall, `hall_router` sends commands to the hall's owner
//! and the owner's pushes come back on the hall channel. Requests and replies travel on each node's
//! own channel (one channel per node, per game and for the hall; no pattern subscriptions). A ticker
//! keeps this node's heartbeat alive and takes over the games and the hall of nodes whose heartbeat
//! expired, replaying each game's log with fair clocks (the downtime belongs to no one).
//!
//! What the commands mean stays with `game` and `hall`; the durable state is the store's (on Redis
//! when scaled out), so a node holds nothing another node cannot rebuild.

mod hall_router;
pub mod lease;
pub mod messages;
mod remote_game;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use redis::aio::{ConnectionManager, PubSubSink};
use redis::AsyncCommands;
use tengen_protocol::{ErrorCode, GameId, GameSummary, UserId};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::config::{
    Config, CLUSTER_REQUEST_TIMEOUT_MS, CLUSTER_TICK_MS, LEASE_TTL_MS, MIRROR_QUEUE_LEN,
    PRESENCE_HOLD_MS,
};
use crate::game::{
    self, game_over, GameCmd, GameContext, GameHandle, Games, OtherNodes, PresenceGuard, StartGame,
    ViewerGuard, WeakNodes,
};
use crate::hall::{HallCmd, HallEvent, HallHandle};
use crate::store::Fences;
use crate::{lock, BoxError, Frame, Refusal, ShutdownTrigger};
use lease::{Leases, Owner};
use messages::{Completer, GameWire, HallWire, NodeId, NodeMsg, Request, Response};

/// The channel a node receives requests and replies on.
fn node_channel(node: NodeId) -> String {
    format!("tengen:node:{node}")
}

/// The channel a game's frames go out on.
fn game_channel(game: GameId) -> String {
    format!("tengen:game:{}", game.0)
}

/// The channel of the hall's pushes.
const HALL_CHANNEL: &str = "tengen:hall";

/// This node's membership of the cluster. Cloning is cheap.
#[derive(Clone)]
pub struct Cluster {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cluster({})", self.inner.node)
    }
}

/// A [`Cluster`] that may have stopped.
#[derive(Clone)]
pub struct WeakCluster(std::sync::Weak<Inner>);

impl std::fmt::Debug for WeakCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakCluster")
    }
}

impl WeakCluster {
    pub fn upgrade(&self) -> Option<Cluster> {
        self.0.upgrade().map(|inner| Cluster { inner })
    }
}

impl WeakNodes for WeakCluster {
    fn upgrade(&self) -> Option<Arc<dyn OtherNodes>> {
        WeakCluster::upgrade(self).map(|cluster| Arc::new(cluster) as Arc<dyn OtherNodes>)
    }
}

/// The game registry reaches games on other nodes through the cluster.
impl OtherNodes for Cluster {
    fn remote_game(&self, game: GameId) -> BoxFuture<'_, Result<GameHandle, Refusal>> {
        Box::pin(Cluster::remote_game(self, game))
    }

    fn games_of_player(&self, user: UserId) -> BoxFuture<'_, Vec<GameId>> {
        Box::pin(Cluster::games_of_player(self, user))
    }

    fn start_elsewhere(
        &self,
        start: &StartGame,
    ) -> Option<BoxFuture<'_, Result<GameSummary, Refusal>>> {
        let node = self.node_of(start.black.user)?;
        Some(Box::pin(self.start_game_on(node, start.clone())))
    }

    fn claim_new_game<'a>(
        &'a self,
        game: GameId,
        players: [UserId; 2],
        ctx: &'a GameContext,
    ) -> BoxFuture<'a, Result<GameContext, Refusal>> {
        Box::pin(Cluster::claim_new_game(self, game, players, ctx))
    }

    fn relay_game(
        &self,
        game: GameId,
        mirror: tokio::sync::oneshot::Receiver<Result<game::Mirror, Refusal>>,
    ) -> JoinHandle<()> {
        Cluster::relay_game(self, game, mirror)
    }

    fn game_stopped(
        &self,
        game: GameId,
        players: [UserId; 2],
        relay: Option<JoinHandle<()>>,
        ended: bool,
    ) -> BoxFuture<'_, ()> {
        Box::pin(Cluster::game_stopped(self, game, players, relay, ended))
    }
}

/// A game this node runs: its claim, and the trigger that stops its actor if the claim is lost.
struct Owned {
    owner: Owner,
    abandon: ShutdownTrigger,
    /// Set when the lease was lost: the actor stops without ending the game.
    abandoned: bool,
}

/// What this node holds in one of its games for the people following it from another node: the
/// players' presence and the watchers' places in the list.
struct Held {
    players: Vec<(UserId, PresenceGuard)>,
    watchers: HashMap<UserId, ViewerGuard>,
    anonymous: Vec<ViewerGuard>,
    refreshed: Instant,
}

struct Inner {
    node: NodeId,
    client: redis::Client,
    conn: ConnectionManager,
    leases: Leases,
    config: Config,
    games: Games,
    /// This node's hall handle: sessions and games send to it, `hall_router` routes.
    hall: HallHandle,
    ctx: GameContext,
    /// The pub/sub connection's sending half, while connected.
    sink: tokio::sync::Mutex<Option<PubSubSink>>,
    /// Requests waiting for a reply, with their deadline. Bounded by the sweep in each tick, which
    /// fails every request older than [`CLUSTER_REQUEST_TIMEOUT_MS`].
    pending: Mutex<HashMap<u64, (Instant, Completer)>>,
    next_request: AtomicU64,
    /// Games mirrored here (one per stand-in actor), by the queue their channel's messages go to.
    mirrors: Mutex<HashMap<GameId, mpsc::Sender<GameWire>>>,
    /// Stand-in actors for games owned elsewhere.
    remotes: Mutex<HashMap<GameId, GameHandle>>,
    owned: Mutex<HashMap<GameId, Owned>>,
    fences: Fences,
    held: Mutex<HashMap<(NodeId, GameId), Held>>,
    /// The hall actor while this node owns the hall.
    hall_actor: Mutex<Option<hall_router::RunningHall>>,
    /// When this node last failed to renew its heartbeat (Redis unreachable).
    beat_failed_at: Mutex<Option<Instant>>,
    /// The hall's owner as last seen, for routing.
    hall_owner: Mutex<Option<NodeId>>,
    /// This node's logged-in sessions (one `PlayerInfo` each), announced again to a new hall.
    local_online: Mutex<HashMap<UserId, Vec<tengen_protocol::PlayerInfo>>>,
    /// On the hall's owner: sessions online through each other node, by user.
    remote_online: Mutex<HashMap<NodeId, HashMap<UserId, u32>>>,
    /// The listing of each game run here as last told to a hall on another node.
    relisted: Mutex<HashMap<GameId, GameSummary>>,
}

/// Redis out of reach for a lookup or a claim: nothing was done.
fn redis_refusal(err: redis::RedisError) -> Refusal {
    tracing::warn!(%err, "redis request failed");
    Refusal::new(
        ErrorCode::Unavailable,
        "the store is unreachable; nothing changed: try again",
    )
}

/// A forwarded request whose fate this node cannot know: the owner may have acted on it.
fn unanswered() -> Refusal {
    Refusal::new(
        ErrorCode::OutcomeUnknown,
        "another server node did not confirm whether that was done; send it again with the same key",
    )
}

/// Who follows a game from another node, as that node reports it.
struct Followers {
    players: Vec<tengen_protocol::PlayerInfo>,
    watchers: Vec<tengen_protocol::PlayerInfo>,
    anonymous: u32,
}

/// Everything a node needs to join a cluster.
#[derive(Debug)]
pub struct Joining {
    pub redis_url: String,
    pub config: Config,
    pub games: Games,
    /// The node's hall handle, whose inbox the router reads (`router_inbox`).
    pub hall: HallHandle,
    pub router_inbox: mpsc::Receiver<HallCmd>,
    /// The leases this node's store appends must present; kept in step with the games it owns.
    pub fences: Fences,
    pub ctx: GameContext,
}

impl Cluster {
    /// Connect to Redis, start the bus, the hall router and the ticker, and take over what needs an
    /// owner (the first tick runs before this returns, so a lone node restarting resumes its games
    /// once the old heartbeat has expired).
    pub async fn join(joining: Joining) -> Result<Cluster, BoxError> {
        let client = redis::Client::open(joining.redis_url.as_str())?;
        let conn = client.get_connection_manager().await?;
        let node = NodeId(rand::random());
        let ctx = joining.ctx;
        let cluster = Cluster {
            inner: Arc::new(Inner {
                node,
                client,
                leases: Leases::new(conn.clone(), node),
                conn,
                config: joining.config,
                games: joining.games.clone(),
                hall: joining.hall,
                ctx,
                sink: tokio::sync::Mutex::new(None),
                pending: Mutex::new(HashMap::new()),
                next_request: AtomicU64::new(1),
                mirrors: Mutex::new(HashMap::new()),
                remotes: Mutex::new(HashMap::new()),
                owned: Mutex::new(HashMap::new()),
                fences: joining.fences,
                held: Mutex::new(HashMap::new()),
                hall_actor: Mutex::new(None),
                hall_owner: Mutex::new(None),
                beat_failed_at: Mutex::new(None),
                local_online: Mutex::new(HashMap::new()),
                remote_online: Mutex::new(HashMap::new()),
                relisted: Mutex::new(HashMap::new()),
            }),
        };
        joining.games.join(Arc::new(cluster.downgrade()));
        cluster.inner.leases.beat(LEASE_TTL_MS).await?;
        let (connected_tx, connected_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(cluster.clone().listen(connected_tx));
        // Requests may only go out once replies can come back.
        let _ = connected_rx.await;
        tokio::spawn(hall_router::route(cluster.clone(), joining.router_inbox));
        cluster.register_stored_games().await?;
        cluster.tick().await;
        tokio::spawn(cluster.clone().tick_forever());
        tracing::info!(node = %node, "joined the cluster");
        Ok(cluster)
    }

    /// A reference that does not keep the cluster alive (for the game registry it holds itself).
    pub fn downgrade(&self) -> WeakCluster {
        WeakCluster(Arc::downgrade(&self.inner))
    }

    /// Every game the store holds as live goes into the live set, so that one left without an
    /// owner (all nodes stopped, or a crash between its start and its claim) is taken over.
    async fn register_stored_games(&self) -> Result<(), BoxError> {
        let live = self
            .inner
            .ctx
            .store
            .call(|store| store.live_games())
            .await?;
        for row in live {
            self.inner
                .leases
                .add_live(row.id, [row.game.black, row.game.white])
                .await?;
        }
        Ok(())
    }

    // ---- requests between nodes ----

    async fn publish(
        &self,
        channel: String,
        payload: impl redis::ToSingleRedisArg + Send + Sync,
    ) -> redis::RedisResult<i64> {
        let mut conn = self.inner.conn.clone();
        conn.publish(channel, payload).await
    }

    /// Send a request to `to`. With a completer, it is answered by the reply; by `busy` when no node
    /// listens on `to`'s channel (certainly not done); by `outcome_unknown` when `to` does not answer
    /// within [`CLUSTER_REQUEST_TIMEOUT_MS`] (it may have acted: a keyed retry settles it).
    pub(crate) async fn send_request(&self, to: NodeId, body: Request, done: Option<Completer>) {
        let id = match done {
            Some(done) => {
                let id = self.inner.next_request.fetch_add(1, Ordering::Relaxed);
                let deadline = Instant::now() + Duration::from_millis(CLUSTER_REQUEST_TIMEOUT_MS);
                lock(&self.inner.pending).insert(id, (deadline, done));
                id
            }
            None => 0,
        };
        let msg = NodeMsg::Request {
            from: self.inner.node,
            id,
            body,
        };
        let payload = match serde_json::to_string(&msg) {
            Ok(payload) => payload,
            Err(err) => {
                self.complete(id, Err(Refusal::new(ErrorCode::Internal, err.to_string())));
                return;
            }
        };
        match self.publish(node_channel(to), payload).await {
            Ok(0) => self.complete(
                id,
                Err(Refusal::new(
                    ErrorCode::Busy,
                    "that part of the server is moving to another node; try again",
                )),
            ),
            Ok(_) => {}
            // The publish may have reached the owner before the connection broke.
            Err(err) => {
                tracing::warn!(%err, "could not publish a request to another node");
                self.complete(id, Err(unanswered()));
            }
        }
    }

    /// Ask `to` and wait for the answer.
    pub(crate) async fn ask(&self, to: NodeId, body: Request) -> Result<Response, Refusal> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let done: Completer = Box::new(move |result| {
            let _ = tx.send(result);
        });
        self.send_request(to, body, Some(done)).await;
        rx.await.map_err(|_| Refusal::busy())?
    }

    fn complete(&self, id: u64, result: Result<Response, Refusal>) {
        if id == 0 {
            return;
        }
        if let Some((_, done)) = lock(&self.inner.pending).remove(&id) {
            done(result);
        }
    }

    async fn reply(&self, to: NodeId, id: u64, result: Result<Response, Refusal>) {
        if id == 0 {
            return;
        }
        let msg = NodeMsg::Reply { id, result };
        match serde_json::to_string(&msg) {
            Ok(payload) => {
                if let Err(err) = self.publish(node_channel(to), payload).await {
                    tracing::warn!(%err, "could not send a reply to another node");
                }
            }
            Err(err) => tracing::error!(%err, "could not encode a reply"),
        }
    }

    // ---- the pub/sub listener ----

    /// Receive this node's channel, the hall channel and every mirrored game's channel, reconnecting
    /// (and resyncing every mirror) when the connection drops.
    async fn listen(self, connected: tokio::sync::oneshot::Sender<()>) {
        let _tasks = self.inner.ctx.tasks.clone();
        let mut connected = Some(connected);
        loop {
            match self.connect_pubsub().await {
                Ok(mut stream) => {
                    if let Some(connected) = connected.take() {
                        let _ = connected.send(());
                    }
                    loop {
                        let msg = tokio::select! {
                            _ = self.inner.ctx.shutdown.wait() => return,
                            msg = stream.next() => msg,
                        };
                        let Some(msg) = msg else { break };
                        self.dispatch(msg.get_channel_name(), msg.get_payload_bytes())
                            .await;
                    }
                    *self.inner.sink.lock().await = None;
                    tracing::warn!("lost the pub/sub connection to redis; reconnecting");
                }
                Err(err) => tracing::warn!(%err, "could not open a pub/sub connection to redis"),
            }
            tokio::select! {
                _ = self.inner.ctx.shutdown.wait() => return,
                _ = tokio::time::sleep(Duration::from_millis(CLUSTER_TICK_MS)) => {}
            }
        }
    }

    async fn connect_pubsub(&self) -> redis::RedisResult<redis::aio::PubSubStream> {
        let (mut sink, stream) = self.inner.client.get_async_pubsub().await?.split();
        sink.subscribe(node_channel(self.inner.node)).await?;
        sink.subscribe(HALL_CHANNEL).await?;
        let mirrored: Vec<(GameId, mpsc::Sender<GameWire>)> = lock(&self.inner.mirrors)
            .iter()
            .map(|(game, tx)| (*game, tx.clone()))
            .collect();
        for (game, tx) in mirrored {
            sink.subscribe(game_channel(game)).await?;
            // Frames may have been missed while disconnected.
            let _ = tx.try_send(GameWire::Resync);
        }
        *self.inner.sink.lock().await = Some(sink);
        Ok(stream)
    }

    async fn dispatch(&self, channel: &str, payload: &[u8]) {
        if channel == HALL_CHANNEL {
            match serde_json::from_slice::<HallWire>(payload) {
                Ok(wire) if wire.from != self.inner.node => {
                    self.inner.hall.publish(HallEvent {
                        recipients: wire.recipients,
                        text: Frame::from(wire.text),
                        started_game: wire.started_game,
                    });
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(%err, "a malformed hall push"),
            }
        } else if let Some(game) = channel
            .strip_prefix("tengen:game:")
            .and_then(|id| id.parse().ok())
            .map(GameId)
        {
            self.dispatch_game_wire(game, payload);
        } else {
            match serde_json::from_slice::<NodeMsg>(payload) {
                Ok(NodeMsg::Reply { id, result }) => self.complete(id, result),
                Ok(NodeMsg::Request { from, id, body }) => self.serve(from, id, body).await,
                Err(err) => tracing::warn!(%err, "a malformed message from another node"),
            }
        }
    }

    fn dispatch_game_wire(&self, game: GameId, payload: &[u8]) {
        let Some(tx) = lock(&self.inner.mirrors).get(&game).cloned() else {
            return;
        };
        let wire = match GameWire::decode(payload) {
            Ok(wire) => wire,
            Err(err) => {
                tracing::warn!(%err, "a malformed game frame");
                GameWire::Resync
            }
        };
        if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(wire) {
            // The stand-in fell behind: a frame is lost, so it must start again from a snapshot.
            tokio::spawn(async move {
                let _ = tx.send(GameWire::Resync).await;
            });
        }
    }

    /// Serve a request from another node (or from this one, through a stand-in made before this
    /// node took the game over). Commands are queued to the actor here, in arrival order; only the
    /// wait for the answer is spawned.
    async fn serve(&self, from: NodeId, id: u64, body: Request) {
        match body {
            Request::Game { game, request } => {
                let Some(handle) = self.local_game(from, id, game).await else {
                    return;
                };
                // Queued at once, so forwarded requests reach the actor in the order they came.
                let (reply, answer) = tokio::sync::oneshot::channel();
                let reply = (id != 0).then_some(reply);
                if let Err(refusal) = handle.try_send(GameCmd::Request { request, reply }) {
                    self.reply(from, id, Err(refusal)).await;
                    return;
                }
                let wrap = |reply| Response::Game { reply };
                self.reply_when_answered((from, id), answer, wrap, game_over);
            }
            Request::GamePlayers { game } => {
                // The registry knows them: no need to ask the actor.
                let result = self
                    .inner
                    .games
                    .players_of(game)
                    .map(|players| Response::Players { players })
                    .ok_or_else(game_over);
                self.reply(from, id, result).await;
            }
            Request::GameSnapshot { game } => {
                let Some(handle) = self.local_game(from, id, game).await else {
                    return;
                };
                let this = self.clone();
                tokio::spawn(async move {
                    let result = this.snapshot(&handle).await;
                    this.reply(from, id, result).await;
                });
            }
            Request::GamePresence {
                game,
                players,
                watchers,
                anonymous,
            } => {
                let Some(handle) = self.local_game(from, id, game).await else {
                    return;
                };
                let followers = Followers {
                    players,
                    watchers,
                    anonymous,
                };
                let this = self.clone();
                tokio::spawn(
                    async move { this.hold_followers(from, game, &handle, followers).await },
                );
            }
            Request::Hall { request } => hall_router::serve(self, from, id, request).await,
            Request::StartGame { start } => {
                let this = self.clone();
                tokio::spawn(async move {
                    let started = this.inner.games.start_here(start, &this.inner.ctx).await;
                    let result = started.map(|summary| Response::Started { summary });
                    this.reply(from, id, result).await;
                });
            }
        }
    }

    /// The handle of a game this node runs; else the asker hears `no_such_game`.
    async fn local_game(&self, from: NodeId, id: u64, game: GameId) -> Option<GameHandle> {
        let handle = self.inner.games.get_local(game);
        if handle.is_none() {
            let refusal = Refusal::new(ErrorCode::NoSuchGame, "that game is not live here");
            self.reply(from, id, Err(refusal)).await;
        }
        handle
    }

    /// Send the local actor's answer back to the asking node once it comes (when the asker waits
    /// for one); `gone` when the actor dropped the request (it stopped).
    pub(crate) fn reply_when_answered<T: Send + 'static>(
        &self,
        (from, id): (NodeId, u64),
        answer: oneshot::Receiver<Result<T, Refusal>>,
        wrap: fn(T) -> Response,
        gone: fn() -> Refusal,
    ) {
        if id == 0 {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let result = answer.await.unwrap_or_else(|_| Err(gone()));
            this.reply(from, id, result.map(wrap)).await;
        });
    }

    async fn snapshot(&self, handle: &GameHandle) -> Result<Response, Refusal> {
        let mirror = handle.ask_local(|reply| GameCmd::Mirror { reply }).await?;
        Ok(Response::Snapshot {
            text: mirror.snapshot,
            seq: mirror.seq,
        })
    }

    /// Hold, in `game`, the presence of the players and the places of the watchers that follow it
    /// from node `from`, and let go of what it held for that node before and no longer follows.
    async fn hold_followers(
        &self,
        from: NodeId,
        game: GameId,
        handle: &GameHandle,
        followers: Followers,
    ) {
        let key = (from, game);
        let mut held = lock(&self.inner.held).remove(&key).unwrap_or(Held {
            players: Vec::new(),
            watchers: HashMap::new(),
            anonymous: Vec::new(),
            refreshed: Instant::now(),
        });
        held.refreshed = Instant::now();
        held.players
            .retain(|(user, _)| followers.players.iter().any(|p| p.user == *user));
        for player in followers.players {
            if held.players.iter().any(|(user, _)| *user == player.user) {
                continue;
            }
            let user = player.user;
            if let Ok(subscription) = game::subscribe(handle, Some(player)).await {
                if let Some(guard) = subscription.presence {
                    held.players.push((user, guard));
                }
            }
        }
        held.watchers
            .retain(|user, _| followers.watchers.iter().any(|w| w.user == *user));
        for watcher in followers.watchers {
            held.watchers
                .entry(watcher.user)
                .or_insert_with(|| ViewerGuard::new(handle.viewers(), Some(watcher)));
        }
        held.anonymous.truncate(followers.anonymous as usize);
        while held.anonymous.len() < followers.anonymous as usize {
            held.anonymous
                .push(ViewerGuard::new(handle.viewers(), None));
        }
        if !held.players.is_empty() || !held.watchers.is_empty() || !held.anonymous.is_empty() {
            lock(&self.inner.held).insert(key, held);
        }
    }

    // ---- games this node owns ----

    /// Record a new game as this node's; the context its actor runs with (stopped if the claim is
    /// lost).
    pub async fn claim_new_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        ctx: &GameContext,
    ) -> Result<GameContext, Refusal> {
        let owner = self
            .inner
            .leases
            .take_over_game(game)
            .await
            .map_err(redis_refusal)?
            .ok_or_else(|| Refusal::new(ErrorCode::Internal, "a new game already has an owner"))?;
        // Owned here before it enters the live set, so this node's takeover scan (which restores a
        // live game owned here and not running) can never start a second actor for it.
        let ctx = self.own(game, owner, ctx);
        if let Err(err) = self.inner.leases.add_live(game, players).await {
            self.disown(game);
            return Err(redis_refusal(err));
        }
        Ok(ctx)
    }

    fn own(&self, game: GameId, owner: Owner, ctx: &GameContext) -> GameContext {
        let (abandon, shutdown) = ctx.shutdown.child();
        self.inner.fences.set(game, owner.encode());
        lock(&self.inner.owned).insert(
            game,
            Owned {
                owner,
                abandon,
                abandoned: false,
            },
        );
        GameContext {
            shutdown,
            ..ctx.clone()
        }
    }

    /// Forget a game this node no longer runs (its actor has stopped, or never started).
    fn disown(&self, game: GameId) -> Option<Owned> {
        let owned = lock(&self.inner.owned).remove(&game)?;
        self.inner.fences.clear(game);
        // Ends the task linking the game's stop signal to the server's.
        owned.abandon.trigger();
        Some(owned)
    }

    /// Copy a local game's frames to its channel, for the nodes that mirror it.
    pub fn relay_game(
        &self,
        game: GameId,
        mirror: tokio::sync::oneshot::Receiver<Result<game::Mirror, Refusal>>,
    ) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut mirror = match mirror.await {
                Ok(Ok(mirror)) => mirror,
                _ => {
                    tracing::error!(game = %game, "could not relay a game to other nodes");
                    return;
                }
            };
            let channel = game_channel(game);
            loop {
                let wire = match mirror.frames.recv().await {
                    Ok(frame) => GameWire::Frame {
                        seq: frame.seq,
                        hidden_from: frame.hidden_from,
                        text: frame.text.as_str().to_string(),
                    },
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => GameWire::Resync,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if let Err(err) = this.publish(channel.clone(), wire.encode()).await {
                    tracing::warn!(game = %game, %err, "could not relay a game frame");
                }
            }
        })
    }

    /// A local game's actor stopped. If the game ended, its lease and live entries go and mirrors
    /// hear it closed. If it stopped with the game live, the game stays in the live set: when the
    /// lease was lost the new owner carries on; when this node still holds it (an event could not
    /// be stored), the next tick finds it owned here and not running, and restores it from its log.
    pub async fn game_stopped(
        &self,
        game: GameId,
        players: [UserId; 2],
        relay: Option<JoinHandle<()>>,
        ended: bool,
    ) {
        if let Some(relay) = relay {
            let _ = relay.await;
        }
        let Some(owned) = self.disown(game) else {
            return;
        };
        if !ended || self.inner.ctx.shutdown.is_triggered() {
            return;
        }
        let _ = self
            .publish(game_channel(game), GameWire::Closed.encode())
            .await;
        if let Err(err) = self
            .inner
            .leases
            .end_game(game, owned.owner, &players)
            .await
        {
            tracing::warn!(game = %game, %err, "could not release an ended game's lease");
        }
    }

    // ---- games owned elsewhere ----

    /// A stand-in for a game owned by another node (made on first use).
    pub async fn remote_game(&self, game: GameId) -> Result<GameHandle, Refusal> {
        if let Some(handle) = lock(&self.inner.remotes).get(&game).cloned() {
            if !handle.is_closed() {
                return Ok(handle);
            }
        }
        let owner = self
            .inner
            .leases
            .game_owner(game)
            .await
            .map_err(redis_refusal)?
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchGame, format!("no live game {game}")))?;
        let body = Request::GamePlayers { game };
        // Asking who plays changes nothing: an owner that does not answer it means "not now".
        let asked = self.ask(owner.node, body).await.map_err(|refusal| {
            if refusal.code == ErrorCode::OutcomeUnknown {
                Refusal::new(
                    ErrorCode::Busy,
                    "the game's server node did not answer; try again",
                )
            } else {
                refusal
            }
        });
        let Response::Players { players } = asked? else {
            return Err(Refusal::new(ErrorCode::Internal, "a node sent no players"));
        };
        let mut remotes = lock(&self.inner.remotes);
        if let Some(handle) = remotes.get(&game).filter(|handle| !handle.is_closed()) {
            return Ok(handle.clone());
        }
        let handle = remote_game::spawn(self.clone(), game, owner.node, players);
        remotes.insert(game, handle.clone());
        Ok(handle)
    }

    /// The node other than this one through which `user` is online, as the hall's node knows it
    /// (`None` when they are online here, or not known: the game then starts here).
    pub fn node_of(&self, user: UserId) -> Option<NodeId> {
        if lock(&self.inner.local_online).contains_key(&user) {
            return None;
        }
        lock(&self.inner.remote_online)
            .iter()
            .find(|(_, users)| users.contains_key(&user))
            .map(|(node, _)| *node)
    }

    /// Start a game on `node` and return its listing.
    pub async fn start_game_on(
        &self,
        node: NodeId,
        start: StartGame,
    ) -> Result<GameSummary, Refusal> {
        match self.ask(node, Request::StartGame { start }).await? {
            Response::Started { summary } => Ok(summary),
            _ => Err(Refusal::new(ErrorCode::Internal, "a node started no game")),
        }
    }

    /// The live games `user` plays, on any node.
    pub async fn games_of_player(&self, user: UserId) -> Vec<GameId> {
        match self.inner.leases.games_of_player(user).await {
            Ok(games) => games,
            Err(err) => {
                tracing::warn!(%err, "could not read a player's live games");
                Vec::new()
            }
        }
    }

    /// Start receiving a game's channel; its messages arrive on the returned queue.
    async fn mirror(&self, game: GameId) -> Result<mpsc::Receiver<GameWire>, Refusal> {
        let (tx, rx) = mpsc::channel(MIRROR_QUEUE_LEN);
        lock(&self.inner.mirrors).insert(game, tx);
        let mut sink = self.inner.sink.lock().await;
        let sink = sink.as_mut().ok_or_else(Refusal::busy)?;
        sink.subscribe(game_channel(game))
            .await
            .map_err(redis_refusal)?;
        Ok(rx)
    }

    /// A stand-in stopped: stop receiving its game's channel.
    async fn forget_remote(&self, game: GameId) {
        lock(&self.inner.mirrors).remove(&game);
        lock(&self.inner.remotes).remove(&game);
        if let Some(sink) = self.inner.sink.lock().await.as_mut() {
            let _ = sink.unsubscribe(game_channel(game)).await;
        }
    }

    // ---- the ticker: heartbeat, timeouts, takeovers ----

    async fn tick_forever(self) {
        let _tasks = self.inner.ctx.tasks.clone();
        let mut ticks = tokio::time::interval(Duration::from_millis(CLUSTER_TICK_MS));
        loop {
            tokio::select! {
                _ = self.inner.ctx.shutdown.wait() => break,
                _ = ticks.tick() => self.tick().await,
            }
        }
        // A clean stop: the others need not wait for the heartbeat to expire.
        let _ = self.inner.leases.stop_beating().await;
    }

    async fn tick(&self) {
        if let Err(err) = self.inner.leases.beat(LEASE_TTL_MS).await {
            tracing::warn!(%err, "could not renew this node's heartbeat");
            *lock(&self.inner.beat_failed_at) = Some(Instant::now());
        }
        self.sweep_pending();
        self.drop_stale_holds();
        if let Err(err) = self.check_owned().await {
            tracing::warn!(%err, "could not check this node's leases");
        }
        // The hall first: a game taken over tells the hall, which must have an owner by then.
        if let Err(err) = hall_router::watch_hall(self).await {
            tracing::warn!(%err, "could not look after the hall's lease");
        }
        if let Err(err) = self.take_over_games().await {
            tracing::warn!(%err, "could not look for games to take over");
        }
        hall_router::relist_games(self).await;
    }

    fn sweep_pending(&self) {
        let now = Instant::now();
        let expired: Vec<Completer> = {
            let mut pending = lock(&self.inner.pending);
            let ids: Vec<u64> = pending
                .iter()
                .filter(|(_, (deadline, _))| *deadline <= now)
                .map(|(id, _)| *id)
                .collect();
            ids.iter()
                .filter_map(|id| pending.remove(id).map(|(_, done)| done))
                .collect()
        };
        // The request was delivered: the owner may have acted on it and its answer was lost.
        for done in expired {
            done(Err(unanswered()));
        }
    }

    /// Presence held for a node that stopped refreshing it (it died) is let go.
    fn drop_stale_holds(&self) {
        let limit = Duration::from_millis(PRESENCE_HOLD_MS);
        lock(&self.inner.held).retain(|_, held| held.refreshed.elapsed() < limit);
    }

    /// Stop the actor of every game whose lease now names another node.
    async fn check_owned(&self) -> redis::RedisResult<()> {
        let (games, claims): (Vec<GameId>, Vec<Owner>) = lock(&self.inner.owned)
            .iter()
            .filter(|(_, owned)| !owned.abandoned)
            .map(|(game, owned)| (*game, owned.owner))
            .unzip();
        let owners = self.inner.leases.game_owners(&games).await?;
        for ((game, claim), owner) in games.into_iter().zip(claims).zip(owners) {
            if owner != Some(claim) {
                tracing::warn!(game = %game, "lost a game's lease; stopping its actor here");
                if let Some(owned) = lock(&self.inner.owned).get_mut(&game) {
                    owned.abandoned = true;
                    owned.abandon.trigger();
                }
            }
        }
        Ok(())
    }

    /// Whether this node may claim what looks unowned. After Redis was out of reach, every node's
    /// heartbeat may have expired at once: a node first beats for a whole lease time again, so the
    /// live ones have renewed theirs before anyone takes their games or the hall.
    fn may_take_over(&self) -> bool {
        lock(&self.inner.beat_failed_at)
            .is_none_or(|at| at.elapsed() >= Duration::from_millis(LEASE_TTL_MS))
    }

    /// Claim every live game whose owner is dead (or that has none), and run it here.
    async fn take_over_games(&self) -> Result<(), BoxError> {
        if !self.may_take_over() {
            return Ok(());
        }
        // One read for every owner, one liveness check per owner node; only games whose owner is
        // gone (or that have none) are claimed, each with its own compare-and-set.
        let games: Vec<GameId> = self
            .inner
            .leases
            .live_games()
            .await?
            .into_iter()
            // Games this node runs, or has claimed and is about to start, are not candidates.
            .filter(|game| !lock(&self.inner.owned).contains_key(game))
            .collect();
        let owners = self.inner.leases.game_owners(&games).await?;
        let mut alive: HashMap<NodeId, bool> = HashMap::new();
        let mut won = Vec::new();
        for (game, owner) in games.into_iter().zip(owners) {
            if let Some(owner) = owner {
                let node_alive = match alive.get(&owner.node) {
                    Some(known) => *known,
                    None => {
                        let known = self.inner.leases.is_alive(owner.node).await?;
                        alive.insert(owner.node, known);
                        known
                    }
                };
                // A game owned here and not running (its actor stopped, see `game_stopped`) is
                // restored here again; the claim below returns this node's own lease.
                if node_alive && owner.node != self.inner.node {
                    continue;
                }
            }
            if let Some(owner) = self.inner.leases.take_over_game(game).await? {
                won.push((game, owner));
            }
        }
        if won.is_empty() {
            return Ok(());
        }
        let rows = self
            .inner
            .ctx
            .store
            .call(|store| store.live_games())
            .await?;
        for (game, owner) in won {
            let Some(row) = rows.iter().find(|row| row.id == game).cloned() else {
                // Finished in the store: its owner died after the end and before releasing it. Its
                // players' lists are cleaned when next read (`games_of_player`).
                self.inner.leases.end_game(game, owner, &[]).await?;
                continue;
            };
            let players = [row.game.black, row.game.white];
            let ctx = self.own(game, owner, &self.inner.ctx);
            tracing::info!(game = %game, node = %self.inner.node, "taking over a game");
            match self.inner.games.restore(row, &ctx).await {
                Ok(true) => {}
                Ok(false) => {
                    self.disown(game);
                    self.inner.leases.end_game(game, owner, &players).await?;
                }
                Err(err) => {
                    tracing::error!(game = %game, %err, "could not take over a game");
                    self.disown(game);
                }
            }
        }
        Ok(())
    }
}
