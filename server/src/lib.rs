//! The Tengen server library: everything `tengen` runs. [`run`] serves the browser client, the
//! WebSocket protocol of `tengen-protocol` and a small HTTP API until a [`Shutdown`] is signalled.
//!
//! # Layout
//! - `config`: every limit, default and timeout, each with the reason for its value.
//! - `serve`: the accept loop: connection caps (in all and per address) counted at `accept`, and
//!   hyper's HTTP/1 with a header-read deadline under the routes.
//! - `http`: routes (static client, `/ws` upgrade with the Origin check, `/api/...`), the Host
//!   allow-list and security headers on every response, and the admin token's throttle.
//! - `session`: one task per socket: read frames, rate-limit, parse `ClientMsg`, authorize, route each
//!   to its area's handler (`session/hall.rs`, `games.rs`, `money.rs`, `study.rs`, `events.rs`,
//!   `accounts.rs`, `people.rs`), write `ServerMsg`s.
//! - `auth`: accounts, argon2id hashing, session tokens, login throttling.
//! - `username`: usernames in any script: the rules, the NFKC form kept, the caseless key that finds
//!   an account and the confusable skeleton that keeps lookalike names apart.
//! - `hall`: the hall actor: rooms, tables, seats, settings agreement, nigiri, challenges, chat,
//!   competitions (`hall/events.rs`), and the live lists pushed to subscribers. What it may be asked is
//!   `HallRequest` (`hall/request.rs`); a game's, `GameRequest` (`game/request.rs`).
//! - `game`: one actor per live game over `tengen-rules`: moves, scoring phase, event log, watchers.
//! - `cluster`: several nodes on one Redis (`--redis`): the bus between them (per-node request
//!   channels, per-game and hall pub/sub channels), fenced leases on each live game and the hall,
//!   stand-ins that forward to a game's owner, and takeover of a dead node's games and hall.
//! - `rating`: Glicko-2 updates after rated games, kyu/dan ranks (provisional or settled), the
//!   suggested handicap.
//! - `people`: profiles, from the store's record of a player and the hall's view of them now.
//! - `relations`: friends, blocks and mutes: making and undoing them, the lists a player sees, and
//!   the screen each connection applies to what it writes (hidden chat, hidden presence); the
//!   hall keeps those of users online (`hall/relations.rs`) to refuse and to push friends' presence.
//! - `store`: the durable `Store` trait (games, accounts and the ledger's batch-shaped API) and its
//!   two backends: SQLite (embedded, the default) and Redis (`Config::redis_url`).
//! - `study`: study boards and local play: one connection's private board with variations, SGF
//!   loading and the area count, checked by the same engine.
//! - `gtp`: a GTP version 2 referee over `tengen-rules`, for driving the engine from any Go tool.
//! - `bot`: `tengen bot`, a bridge that plays a GTP engine (GNU Go) as an ordinary account.
//! - `side`: the two seats at a table (Black, White), as the pure server modules name them.
//! - `clock`: the pure game clock state machine for every time system; `now` is passed in.
//! - `ledger`: fortune points: accounts and batches of transfers in the store (with a group-commit
//!   writer), watchers' bets and players' stakes, idempotent settlement of each finished game
//!   (`ledger::settle` is the pure math), records and the audit. Bets and in-game stakes go through
//!   the game actor's inbox; the stake dialog lives with the table in `hall::table`.

pub mod auth;
pub mod bot;
pub mod clock;
pub mod cluster;
pub mod config;
mod frame;
pub mod game;
pub mod gtp;
pub mod hall;
pub mod http;
pub mod ledger;
pub mod people;
pub mod rating;
pub mod relations;
mod serve;
pub mod session;
pub mod store;
pub mod study;
pub mod throttle;
pub mod username;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tengen_protocol::ErrorCode;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::auth::Auth;
use crate::config::{Config, SESSION_PURGE_INTERVAL_MS, SHUTDOWN_GRACE_MS};
use crate::game::Games;
use crate::hall::HallHandle;
use crate::ledger::Ledger;
use crate::store::redis::RedisStore;
use crate::store::sqlite::SqliteStore;
use crate::store::{Fences, Store, StoreHandle};

/// One serialized text frame. It is reference-counted bytes, so a game event or hall push is
/// serialized once and the same buffer goes to every socket that receives it.
pub type Frame = axum::extract::ws::Utf8Bytes;

/// A [`Frame`] as a JSON string, for the requests and replies nodes send each other
/// (`#[serde(with = "crate::frame_text")]`).
pub mod frame_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Frame;

    pub fn serialize<S: Serializer>(frame: &Frame, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(frame.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Frame, D::Error> {
        String::deserialize(deserializer).map(Frame::from)
    }
}

/// Errors that stop the server from starting or running; reported by `main` and tests.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Where an actor (a game, the hall) answers a command: the result, or why it was refused.
pub type Reply<T> = tokio::sync::oneshot::Sender<Result<T, Refusal>>;

/// A request refused for an expected reason: a stable [`ErrorCode`] (itself the enum of expected
/// failures every client switches on) and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// The actor or hall did not answer: it is shutting down or its inbox is full.
    pub fn busy() -> Refusal {
        Refusal::new(ErrorCode::Busy, "the server is busy; try again")
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Refuse a request: the one shorthand for `Err(Refusal::new(..))` that every handler returns early with.
pub fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}

/// Milliseconds since the Unix epoch, the one wall-clock reading the server takes (for expiry and
/// timestamps); game logic receives it as an argument.
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Lock a mutex that holds plain bookkeeping (counts, lists, senders): a panic while it was held
/// leaves nothing half-written that a later holder could misread, so a poisoned lock is used as is.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The one stop signal every task selects on. Cloning is cheap; `wait` returns once the trigger fires
/// (or is dropped, which also means "stop").
#[derive(Debug, Clone)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

/// Fires the [`Shutdown`] it was made with.
#[derive(Debug)]
pub struct ShutdownTrigger {
    tx: watch::Sender<bool>,
}

impl Shutdown {
    pub fn new() -> (ShutdownTrigger, Shutdown) {
        let (tx, rx) = watch::channel(false);
        (ShutdownTrigger { tx }, Shutdown { rx })
    }

    pub async fn wait(&self) {
        let mut rx = self.rx.clone();
        // An error means the trigger was dropped: nobody can ask us to keep running, so stop too.
        let _ = rx.wait_for(|stop| *stop).await;
    }

    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }

    /// A signal that fires with this one or on its own trigger: one part of the server (a game whose
    /// lease moved to another node) can be stopped while the rest runs on.
    pub fn child(&self) -> (ShutdownTrigger, Shutdown) {
        let (trigger, child) = Shutdown::new();
        let parent = self.clone();
        let watcher = child.clone();
        let link = ShutdownTrigger {
            tx: trigger.tx.clone(),
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = parent.wait() => link.trigger(),
                _ = watcher.wait() => {}
            }
        });
        (trigger, child)
    }
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        let _ = self.tx.send(true);
    }
}

/// Counts live tasks: each holds a clone of the sender, and shutdown waits until all are dropped.
#[derive(Debug, Clone)]
pub struct TaskGuard {
    _alive: mpsc::Sender<()>,
}

/// Everything a request handler or session needs, shared.
#[derive(Debug)]
pub(crate) struct AppState {
    pub config: Config,
    pub auth: Auth,
    pub store: StoreHandle,
    pub hall: HallHandle,
    pub games: Games,
    pub ledger: Ledger,
    pub conns: Arc<serve::ConnCounter>,
    /// Failed admin-token tries, per address and in all.
    pub admin_throttle: Mutex<http::AdminThrottle>,
    pub shutdown: Shutdown,
    pub tasks: TaskGuard,
}

/// Delete expired sessions now and every [`SESSION_PURGE_INTERVAL_MS`] until shutdown.
async fn purge_sessions(store: StoreHandle, shutdown: Shutdown, _tasks: TaskGuard) {
    let mut ticks = tokio::time::interval(Duration::from_millis(SESSION_PURGE_INTERVAL_MS));
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = ticks.tick() => {
                let now_ms = unix_now_ms();
                match store.call(move |store| store.purge_sessions(now_ms)).await {
                    Ok(0) => {}
                    Ok(purged) => tracing::info!(purged, "deleted expired sessions"),
                    Err(err) => tracing::warn!(%err, "could not delete expired sessions"),
                }
            }
        }
    }
}

/// The store `config` names: the Redis at `redis_url` when there is one, else the SQLite file in
/// the data directory. It blocks (connecting, checking, creating files), so async code calls it on
/// the blocking pool.
pub fn open_store(config: &Config) -> Result<Arc<dyn Store>, BoxError> {
    open_fenced_store(config, Fences::default())
}

/// [`open_store`], with the Redis store checking event appends against this node's `fences`.
fn open_fenced_store(config: &Config, fences: Fences) -> Result<Arc<dyn Store>, BoxError> {
    Ok(match &config.redis_url {
        Some(url) => {
            Arc::new(RedisStore::open(url, config.redis_allow_unsafe)?.with_fences(fences))
        }
        None => Arc::new(SqliteStore::open(&config.data_dir)?),
    })
}

/// Serve on `listener` until `shutdown` fires, then close every session and stop every actor.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: Shutdown,
) -> Result<(), BoxError> {
    let (alive_tx, mut alive_rx) = mpsc::channel::<()>(1);
    let tasks = TaskGuard { _alive: alive_tx };
    let state = start(config, shutdown.clone(), tasks).await?;
    let app = http::router(Arc::clone(&state));
    tracing::info!(addr = %listener.local_addr()?, "tengen listening");
    let limits = serve::Limits {
        connections_max: state.config.connections_max,
        connections_per_ip_max: state.config.connections_per_ip_max,
        header_read_timeout: Duration::from_millis(state.config.header_read_timeout_ms),
    };
    serve::accept_loop(
        listener,
        app,
        Arc::clone(&state.conns),
        limits,
        shutdown.clone(),
        state.tasks.clone(),
    )
    .await;
    // Upgraded sockets outlive the HTTP server; wait for their tasks (and the actors) to finish.
    drop(state);
    let grace = Duration::from_millis(SHUTDOWN_GRACE_MS);
    if tokio::time::timeout(grace, alive_rx.recv()).await.is_err() {
        tracing::warn!("tasks still running after the shutdown grace period");
    }
    Ok(())
}

/// Open the store and start what serves the sockets: accounts, the ledger, the hall and the live
/// games (restored from the store, or scaled out, taken over through the cluster).
async fn start(
    config: Config,
    shutdown: Shutdown,
    tasks: TaskGuard,
) -> Result<Arc<AppState>, BoxError> {
    let opening = config.clone();
    let fences = Fences::default();
    let store_fences = fences.clone();
    let store =
        tokio::task::spawn_blocking(move || open_fenced_store(&opening, store_fences)).await??;
    let store = StoreHandle::new(store);
    let auth = Auth::new(
        store.clone(),
        config.argon2,
        config.session_ttl_ms,
        config.throttles,
    )
    .await?;
    let games = Games::new();
    let ledger = Ledger::new(store.clone(), config.grant_points, config.tax_bp)
        .with_grant_delay(config.grant_delay_ms);
    let services = Services {
        config: &config,
        store: &store,
        ledger: &ledger,
        games: &games,
        shutdown: &shutdown,
        tasks: &tasks,
    };
    let hall = match config.redis_url.clone() {
        Some(redis_url) => services.join_cluster(redis_url, fences).await?,
        None => services.start_alone().await?,
    };
    tokio::spawn(purge_sessions(
        store.clone(),
        shutdown.clone(),
        tasks.clone(),
    ));
    Ok(Arc::new(AppState {
        config,
        auth,
        store,
        hall,
        games,
        ledger,
        conns: Arc::new(serve::ConnCounter::default()),
        admin_throttle: Mutex::new(http::AdminThrottle::default()),
        shutdown,
        tasks,
    }))
}

/// What the hall and the games start from.
struct Services<'a> {
    config: &'a Config,
    store: &'a StoreHandle,
    ledger: &'a Ledger,
    games: &'a Games,
    shutdown: &'a Shutdown,
    tasks: &'a TaskGuard,
}

impl Services<'_> {
    fn game_context(&self, hall: &HallHandle) -> game::GameContext {
        game::GameContext {
            store: self.store.clone(),
            ledger: self.ledger.clone(),
            fault_stop_before_settlement: self.config.fault_stop_before_settlement,
            hall: hall.clone(),
            shutdown: self.shutdown.clone(),
            tasks: self.tasks.clone(),
            timing: self.config.game_timing,
        }
    }

    /// One of several nodes: the cluster routes to the hall wherever it runs, and takes over
    /// (restores) live games and the hall whose owners are gone, this node's predecessor's too.
    async fn join_cluster(
        &self,
        redis_url: String,
        fences: Fences,
    ) -> Result<HallHandle, BoxError> {
        let (hall, router_inbox) = HallHandle::channels();
        let joining = cluster::Joining {
            redis_url,
            config: self.config.clone(),
            games: self.games.clone(),
            hall: hall.clone(),
            router_inbox,
            fences,
            ctx: self.game_context(&hall),
        };
        cluster::Cluster::join(joining).await?;
        self.ledger.settle_unsettled().await?;
        Ok(hall)
    }

    /// The only node: the hall here, and the live games restored from the store.
    async fn start_alone(&self) -> Result<HallHandle, BoxError> {
        let hall = hall::spawn(
            self.config,
            self.store.clone(),
            self.ledger.clone(),
            self.games.clone(),
            self.shutdown.clone(),
            self.tasks.clone(),
        );
        // Games whose end was logged but not finished are finished (and settled) as they are
        // restored; games finished but never settled (a crash right after the end) are settled next.
        game::restore_live_games(self.game_context(&hall), self.games).await?;
        self.ledger.settle_unsettled().await?;
        // Tables start empty, so stakes held for a next game that was never started go back.
        self.ledger.release_all_holds().await?;
        Ok(hall)
    }
}
