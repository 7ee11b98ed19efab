//! The Tengen server library: everything `tengen` runs. [`run`] serves the browser client, the
//! WebSocket protocol of `tengen-protocol` and a small HTTP API until a [`Shutdown`] is signalled.
//!
//! # Layout
//! Modules are listed lowest first; each imports only modules above it in this list (the order is
//! checked by `tests/layering.rs` and drawn in `docs/architecture.md`).
//! - `ground`: what every module stands on: [`Refusal`], [`Reply`], the serialized [`Frame`], the
//!   wall clock, [`Shutdown`] and [`TaskGuard`]; the crate's root re-exports it.
//! - `config`: every limit, default and timeout, each with the reason for its value.
//! - `clock`: the pure game clock state machine for every time system; `now` is passed in.
//! - `frame`: a text frame's request id and type, read without parsing it.
//! - `username`: usernames in any script: the rules, the NFKC form kept, the caseless key that finds
//!   an account and the confusable skeleton that keeps lookalike names apart.
//! - `chat`: a chat line's rule and its frame, shared by every channel.
//! - `book`: the ledger's vocabulary (accounts, transfers, batches) shared by the ledger and stores.
//! - `store`: durable state as small traits by concern (`Accounts`, `ThrottleCounters`, `GameLog`,
//!   `Ratings`, `Bookkeeping` for the ledger's batch-shaped book, `EventRecords`, `Moderation`,
//!   `Relations`), the umbrella `Store` that is all of them, and its two backends: SQLite
//!   (embedded, the default) and Redis (`Config::redis_url`), each implementing each trait in a
//!   file of its own.
//! - `rating`: Glicko-2 updates after rated games, kyu/dan ranks (provisional or settled), the
//!   suggested handicap.
//! - `throttle`: login and registration throttles, counted in the store.
//! - `moderation`: reports, mutes and bans as stored, and the moderation log; every chat line is
//!   kept (bounded) here before it is shown, for reports. The moderators' acts, which reach the hall
//!   and the games, are the session's (`session/moderation/acts.rs`).
//! - `auth`: accounts, argon2id hashing, session tokens; a banned account's login is refused.
//! - `ledger`: fortune points: accounts and batches of transfers in the store (with a group-commit
//!   writer), watchers' bets and players' stakes, idempotent settlement of each finished game
//!   (`ledger::settle` is the pure math), records and the audit.
//! - `game`: one actor per live game around a pure core over `tengen-rules` (`game/core`: moves,
//!   clock, scoring phase, undo, event rules; decide, then apply): event log, watchers, bets. What it needs from the hall and the other nodes it names as traits (`game/links.rs`).
//! - `study`: study boards and local play: one connection's private board with variations, SGF
//!   loading and the area count, checked by the same engine.
//! - `competition`: competitions (events over `tengen-pairing`, team events, the director's acts),
//!   each event's record kept in the store. `Competitions` owns them all and runs in the hall's
//!   actor; what it needs of the hall (a game started, a frame pushed, a round's timer) it names as
//!   the trait `competition::Venue`, which the hall implements. Asked with `EventRequest`.
//! - `hall`: the hall actor: rooms, tables, seats, settings agreement, nigiri, challenges, automatch,
//!   chat, presence, and the live lists pushed to subscribers; it hosts the competitions
//!   (`hall/competitions.rs`). What it may be asked is `HallRequest` (`hall/request.rs`); a game's,
//!   `GameRequest` (`game/request.rs`).
//! - `relations`: friends, blocks and mutes: making and undoing them, the lists a player sees, and
//!   the screen each connection applies to what it writes (hidden chat, hidden presence); the
//!   hall keeps those of users online (`hall/relations.rs`) to refuse and to push friends' presence.
//! - `people`: profiles, from the store's record of a player and the hall's view of them now.
//! - `cluster`: several nodes on one Redis (`--redis`): the bus between them (per-node request
//!   channels, per-game and hall pub/sub channels), fenced leases on each live game and the hall,
//!   stand-ins that forward to a game's owner, and takeover of a dead node's games and hall.
//! - `serve`: the accept loop: connection caps (in all and per address) counted at `accept`, and
//!   hyper's HTTP/1 with a header-read deadline under the routes.
//! - `app`: what every session and HTTP handler shares: handles to the services, built at start.
//! - `session`: one task per socket: read frames, rate-limit, parse `ClientMsg`, authorize, route each
//!   to its area's handler (`session/hall.rs`, `games.rs`, `money.rs`, `study.rs`, `events.rs`,
//!   `accounts.rs`, `people.rs`), write `ServerMsg`s.
//! - `http`: routes (static client, `/ws` upgrade with the Origin check, `/api/...`), the Host
//!   allow-list and security headers on every response, and the admin token's throttle.
//! - `gtp`: a GTP version 2 referee over `tengen-rules`, for driving the engine from any Go tool.
//! - `bot`: `tengen bot`, a bridge that plays a GTP engine (GNU Go) as an ordinary account.

pub mod app;
pub mod auth;
pub mod book;
pub mod bot;
pub mod chat;
pub mod clock;
pub mod cluster;
pub mod competition;
pub mod config;
mod frame;
pub mod game;
mod ground;
pub mod gtp;
pub mod hall;
pub mod http;
pub mod ledger;
pub mod moderation;
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

use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub use ground::{
    frame_text, lock, refuse, unix_now_ms, utc_date, BoxError, Frame, Refusal, Reply, Shutdown,
    ShutdownTrigger, TaskGuard,
};

use crate::app::AppState;
use crate::auth::Auth;
use crate::config::{Config, SESSION_PURGE_INTERVAL_MS, SHUTDOWN_GRACE_MS};
use crate::game::Games;
use crate::hall::HallHandle;
use crate::ledger::Ledger;
use crate::store::redis::RedisStore;
use crate::store::sqlite::SqliteStore;
use crate::store::{Fences, Store, StoreHandle};

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
    let tasks = TaskGuard::new(alive_tx);
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
        admin_throttle: Mutex::new(throttle::AdminThrottle::default()),
        moderation: moderation::Counters::default(),
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
            hall: Arc::new(hall.clone()),
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
