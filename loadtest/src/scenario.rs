//! One load run against one server or several nodes (see `nodes`): set up `games` slots (two players who register and pair by
//! challenge, `watchers` who log in and watch), then for `duration` let every game play legal moves
//! chosen with `tengen-rules` at `move_rate_per_s`, on a fixed schedule, while every watcher chats at
//! its own fixed rate; then stop everything and return what was measured. The same run drives Tengen
//! and the baseline server, so their figures compare like with like.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tengen_protocol::{
    AccountsMsg, ClockSettings, Color, GameId, GameSettings, GamesMsg, HallMsg, HallServerMsg,
    KoRule, ServerMsg, UserId,
};
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::{Game, Move, Rules};
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::client::{self, ClientHandle, Kind, Role, Slot};
use crate::hot::HotTracker;
use crate::metrics::{LatencySummary, Metrics};
use crate::nodes;

/// Moves after which a 19x19 game resigns and its players start another: long enough to be a real
/// middle game, short enough that random play stays legal-move heavy rather than filling eyes.
pub const MAX_MOVES_19: usize = 300;

/// The same for 9x9.
pub const MAX_MOVES_9: usize = 70;

/// Events a player's driver may have unread (`challenged`, `game_started`): two per pairing.
const PLAYER_EVENTS_LEN: usize = 8;

/// How long setup waits for one pairing step (a `challenged` or `game_started` push).
const PAIRING_TIMEOUT: Duration = Duration::from_secs(20);

/// Pause between setup and the window, so the last logins' and subscriptions' work (and the
/// generator's own clean-up of setup) is over before anything is timed.
const SETTLE: Duration = Duration::from_secs(2);

/// Watch requests of one slot's watchers in flight at once.
const WATCH_CONCURRENCY: usize = 32;

/// How long the end of a run waits for drivers and clients to finish before leaving them.
const WIND_DOWN_TIMEOUT: Duration = Duration::from_secs(15);

/// Everything a run is told.
#[derive(Debug, Clone)]
pub struct Options {
    /// Games played at once.
    pub games: usize,
    /// Watchers per game.
    pub watchers: usize,
    /// Share of games on 9x9 (the rest 19x19), in percent.
    pub small_percent: u32,
    /// Moves per second per game.
    pub move_rate_per_s: f64,
    /// Kibitz lines per second per watcher (0 for none).
    pub chat_rate_per_s: f64,
    /// One-point bets per second per watcher (0 for none; the baseline has no pool).
    pub bet_rate_per_s: f64,
    /// The measurement window.
    pub duration: Duration,
    /// Slots set up at once.
    pub setup_concurrency: usize,
    /// Client sockets bind to 127.0.0.1 ..= 127.0.0.<source_ips>, round-robin.
    pub source_ips: u8,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Distinguishes this run's usernames from earlier runs' in the same data directory.
    pub run_tag: String,
    pub password: String,
    /// The servers' pids (one per node), to read their summed RSS at the end of the window (with
    /// every connection open) and their CPU time; empty for none.
    pub server_pids: Vec<u32>,
    /// Moves after which a game resigns and its players start another ([`MAX_MOVES_9`],
    /// [`MAX_MOVES_19`] by default; a test lowers them to exercise restarts in a short window).
    pub moves_max_9: usize,
    pub moves_max_19: usize,
    /// Watcher connections logged in to each account (the first registers, the rest resume its
    /// token); 0 for one account per slot's watchers, as the everyday run has.
    pub watchers_per_account: usize,
    /// Each game resigns at the end of the window (the hot game ends and settles).
    pub resign_at_end: bool,
    /// The hot game's own figures, which its watchers record (`None` for other runs).
    pub hot: Option<Arc<HotTracker>>,
}

impl Options {
    /// The everyday run's options: what `run` and the smoke test set, the rest as the everyday run.
    pub fn everyday(games: usize, watchers: usize, duration: Duration) -> Options {
        Options {
            games,
            watchers,
            small_percent: 0,
            move_rate_per_s: 1.0,
            chat_rate_per_s: 0.1,
            bet_rate_per_s: 0.05,
            duration,
            setup_concurrency: 32,
            source_ips: 8,
            progress: false,
            run_tag: String::new(),
            password: String::new(),
            server_pids: Vec::new(),
            moves_max_9: MAX_MOVES_9,
            moves_max_19: MAX_MOVES_19,
            watchers_per_account: 0,
            resign_at_end: false,
            hot: None,
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Results {
    pub connections: usize,
    pub games: usize,
    pub games_restarted: u64,
    pub window_s: f64,
    pub setup_s: f64,
    pub moves: u64,
    pub moves_per_s: f64,
    pub move_ack: LatencySummary,
    pub move_opponent: LatencySummary,
    pub watcher_event: LatencySummary,
    pub watcher_chat: LatencySummary,
    pub chats_per_s: f64,
    /// Chat lines that reached their game just after it ended (not errors; see `Metrics`).
    pub chats_after_end: u64,
    pub bets_per_s: f64,
    /// Bets refused because play had just ended (not errors).
    pub bets_after_close: u64,
    pub delivered: u64,
    pub delivered_per_s: f64,
    pub errors: std::collections::BTreeMap<String, u64>,
    /// The server's RSS at the end of the window, with every connection open.
    pub server_rss_kib: Option<u64>,
    /// CPU seconds the server used during the window (user plus system), and per second of window:
    /// unlike latency, this hardly depends on what else the machine is doing.
    pub server_cpu_s: Option<f64>,
    pub server_cpu_per_s: Option<f64>,
    /// Server CPU microseconds per delivered message.
    pub server_cpu_us_per_delivered: Option<f64>,
    /// Share of the window during which some task on the machine waited for a CPU (Linux PSI): the
    /// generator, the server and anything else running. Latency figures mean little when it is high.
    pub cpu_pressure_percent: Option<f64>,
}

impl Results {
    pub fn errors_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// The players and watchers of one slot, ready to play.
struct SlotSetup {
    index: usize,
    size: u8,
    black: ClientHandle,
    white: ClientHandle,
    white_user: UserId,
    watchers: Vec<ClientHandle>,
    events: mpsc::Receiver<ServerMsg>,
    slot: Arc<Slot>,
    metrics: Arc<Metrics>,
}

/// What every setup task shares.
struct Shared {
    /// The nodes; a slot's clients are placed by `nodes::node_of_slot_client`.
    servers: Vec<SocketAddr>,
    options: Options,
    metrics: Arc<Metrics>,
    stop: watch::Receiver<bool>,
    tasks: std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Shared {
    /// Open client `n` (its source address) to `server`, and say `hello`.
    async fn client(
        &self,
        server: SocketAddr,
        n: usize,
        role: Role,
        slot: &Arc<Slot>,
        events: Option<mpsc::Sender<ServerMsg>>,
    ) -> Result<ClientHandle, String> {
        let source = client::source_address(n, self.options.source_ips);
        let ws = client::connect(server, source).await?;
        let hot = self.options.hot.clone().filter(|_| role == Role::Watcher);
        let (handle, join) = client::spawn(
            ws,
            role,
            Arc::clone(slot),
            events,
            Arc::clone(&self.metrics),
            self.stop.clone(),
            hot,
        );
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(join);
        handle.hello().await?;
        Ok(handle)
    }

    /// Register a fresh account; returns its user id and session token.
    async fn register(
        &self,
        client: &ClientHandle,
        name: String,
    ) -> Result<(UserId, String), String> {
        client.register(name, self.options.password.clone()).await
    }
}

fn settings(size: u8) -> GameSettings {
    GameSettings {
        size,
        komi_half_points: 15,
        handicap: 0,
        ko_rule: KoRule::Positional,
        // A real clock, generous enough that the slowest game of a run never runs out of time.
        clock: ClockSettings::ByoYomi {
            main_time_ms: 20 * 60 * 1000,
            periods: 5,
            period_ms: 30_000,
            timeout_is_pass: false,
        },
        nigiri: false,
        lateness_limit_ms: None,
        unrated: false,
        event: None,
    }
}

/// Challenge, accept, and wait for the game to start; the challenger plays Black.
async fn pair(setup: &mut SlotSetup) -> Result<GameId, String> {
    let previous = setup.slot.game();
    let reply = setup
        .black
        .request(HallMsg::Challenge {
            user: setup.white_user,
            settings: settings(setup.size),
        })
        .await?;
    let ServerMsg::Hall(HallServerMsg::ChallengeSent { challenge, .. }) = reply else {
        return Err(format!("challenge answered {reply:?}"));
    };
    loop {
        match next_event(&mut setup.events, &setup.metrics).await? {
            ServerMsg::Hall(HallServerMsg::Challenged { challenge: c, .. }) if c == challenge => {
                break
            }
            _ => continue,
        }
    }
    setup
        .white
        .request(HallMsg::AcceptChallenge { challenge })
        .await?;
    loop {
        match next_event(&mut setup.events, &setup.metrics).await? {
            ServerMsg::Hall(HallServerMsg::GameStarted { game, .. }) if game > previous => {
                return Ok(game)
            }
            _ => continue,
        }
    }
}

async fn next_event(
    events: &mut mpsc::Receiver<ServerMsg>,
    metrics: &Metrics,
) -> Result<ServerMsg, String> {
    let code = match tokio::time::timeout(PAIRING_TIMEOUT, events.recv()).await {
        Ok(Some(event)) => return Ok(event),
        Ok(None) => "closed",
        Err(_) => "pairing_timeout",
    };
    metrics.error(code);
    Err(code.into())
}

/// Start the slot's next game and point its watchers at it.
async fn start_game(setup: &mut SlotSetup) -> Result<(), String> {
    let game = pair(setup).await?;
    setup.slot.set_game(game);
    // A bounded number at once: thousands of watchers one after the other would take seconds.
    let watching = futures_util::stream::iter(setup.watchers.clone())
        .map(|watcher| async move { watcher.request(GamesMsg::Watch { game }).await })
        .buffer_unordered(WATCH_CONCURRENCY);
    watching
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .try_for_each(|watched| watched.map(|_| ()))
}

async fn set_up_slot(shared: Arc<Shared>, index: usize) -> Result<SlotSetup, String> {
    let per_slot = 2 + shared.options.watchers;
    let first = index * per_slot;
    let small = (index as u64 * 100 / shared.options.games.max(1) as u64)
        < u64::from(shared.options.small_percent);
    let slot = Arc::new(Slot::new());
    let (events_tx, events) = mpsc::channel(PLAYER_EVENTS_LEN);
    let tag = &shared.options.run_tag;
    let server_of = |client: usize| nodes::server_of_slot_client(&shared.servers, index, client);
    let black = shared
        .client(
            server_of(nodes::BLACK_CLIENT),
            first,
            Role::Player(Color::Black),
            &slot,
            Some(events_tx.clone()),
        )
        .await?;
    shared.register(&black, format!("b{tag}x{index}")).await?;
    let white = shared
        .client(
            server_of(nodes::WHITE_CLIENT),
            first + 1,
            Role::Player(Color::White),
            &slot,
            Some(events_tx),
        )
        .await?;
    let (white_user, _) = shared.register(&white, format!("w{tag}x{index}")).await?;
    // Watchers share accounts (one per slot unless `watchers_per_account` says otherwise): each
    // connection logs in on its own (the first registers, the rest resume with its token), which
    // costs the server one password hash per account, not per connection. Accounts are set up a
    // bounded number at once, their connections in order.
    let per_account = match shared.options.watchers_per_account {
        0 => shared.options.watchers.max(1),
        n => n,
    };
    let accounts = shared.options.watchers.div_ceil(per_account);
    let account_setups = futures_util::stream::iter(0..accounts)
        .map(|account| {
            let members =
                account * per_account..((account + 1) * per_account).min(shared.options.watchers);
            let (shared, slot) = (Arc::clone(&shared), Arc::clone(&slot));
            async move { set_up_account(&shared, index, first, account, members, &slot).await }
        })
        .buffered(shared.options.setup_concurrency.max(1));
    let mut watchers = Vec::with_capacity(shared.options.watchers);
    for account in account_setups.collect::<Vec<_>>().await {
        watchers.extend(account?);
    }
    let mut setup = SlotSetup {
        index,
        size: if small { 9 } else { 19 },
        black,
        white,
        white_user,
        watchers,
        events,
        slot,
        metrics: Arc::clone(&shared.metrics),
    };
    start_game(&mut setup).await?;
    Ok(setup)
}

/// One account's watcher connections of slot `index` (whose first client is `first`): the first
/// registers, the others resume its token.
async fn set_up_account(
    shared: &Shared,
    index: usize,
    first: usize,
    account: usize,
    members: std::ops::Range<usize>,
    slot: &Arc<Slot>,
) -> Result<Vec<ClientHandle>, String> {
    let tag = &shared.options.run_tag;
    let mut watchers = Vec::with_capacity(members.len());
    let mut token: Option<String> = None;
    for n in members {
        let client = nodes::PLAYERS_PER_SLOT + n;
        let server = nodes::server_of_slot_client(&shared.servers, index, client);
        let watcher = shared
            .client(server, first + client, Role::Watcher, slot, None)
            .await?;
        match &token {
            None => {
                let name = if account == 0 {
                    format!("k{tag}x{index}")
                } else {
                    format!("k{tag}x{index}a{account}")
                };
                token = Some(shared.register(&watcher, name).await?.1)
            }
            Some(token) => {
                watcher
                    .request(AccountsMsg::Resume {
                        token: token.clone(),
                    })
                    .await?;
            }
        }
        watchers.push(watcher);
    }
    Ok(watchers)
}

/// When a slot's moves are due.
struct Plan {
    /// Moves after which a game resigns and its players start another.
    moves_max: usize,
    first: Instant,
    interval: Duration,
    end: Instant,
    /// Resign at `end` (and start no other game).
    resign_at_end: bool,
}

/// Play the slot's games on schedule until `end`: one move every `interval`, the first at `first`.
async fn drive(plan: Plan, mut setup: SlotSetup, metrics: Arc<Metrics>) {
    let mut rng = SeededRng::new(0x7e46_e000 + setup.index as u64);
    let mut local = new_local(setup.size);
    let mut seq: u64 = 0;
    let mut due = plan.first;
    while due < plan.end {
        tokio::time::sleep_until(due).await;
        let color = local.to_move();
        let mv = if local.moves().len() >= plan.moves_max {
            Move::Resign
        } else {
            random_move(&local, color, &mut rng)
        };
        let Ok(resigned) = send_move(&setup, &metrics, mv, color, seq, due).await else {
            // The error is counted by the client (or there, for a timeout); this slot stops playing.
            return;
        };
        seq += 1;
        if resigned {
            if start_game(&mut setup).await.is_err() {
                metrics.error("restart_failed");
                return;
            }
            metrics
                .games_restarted_count
                .fetch_add(1, Ordering::Relaxed);
            local = new_local(setup.size);
            seq = 0;
            due = (due + plan.interval).max(Instant::now());
            continue;
        }
        if let Move::Play(point) = mv {
            local
                .play(color, Move::Play(point))
                .expect("the server accepted it, so the local replica does too");
        }
        due += plan.interval;
    }
    if plan.resign_at_end {
        tokio::time::sleep_until(plan.end).await;
        let color = local.to_move();
        let _ = send_move(&setup, &metrics, Move::Resign, color, seq, plan.end).await;
    }
}

fn new_local(size: u8) -> Game {
    Game::new(Rules {
        size,
        ..Rules::default()
    })
    .expect("standard sizes are valid")
}

/// Send `mv` by `color`'s player as event `seq + 1`, meant for `due`; `Ok(true)` when it was a
/// resignation (a pass would lead to scoring, so the generator resigns instead).
async fn send_move(
    setup: &SlotSetup,
    metrics: &Metrics,
    mv: Move,
    color: Color,
    seq: u64,
    due: Instant,
) -> Result<bool, String> {
    let mover = match color {
        Color::Black => &setup.black,
        Color::White => &setup.white,
    };
    let game = setup.slot.game();
    let (msg, resigning) = match mv {
        Move::Play(point) => (
            GamesMsg::Play {
                game,
                point,
                key: None,
            },
            false,
        ),
        Move::Pass | Move::Resign => (GamesMsg::Resign { game, key: None }, true),
    };
    if resigning {
        setup.slot.set_ending();
    }
    setup.slot.set_intent(seq + 1, metrics.nanos(due));
    mover.request_at(msg, due, Kind::Move).await?;
    Ok(resigning)
}

/// A run set up and ready to start: its slots with their clients, and what they share.
pub struct Prepared {
    shared: Arc<Shared>,
    metrics: Arc<Metrics>,
    ready: Vec<SlotSetup>,
    setup_s: f64,
    stop_tx: watch::Sender<bool>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("slots", &self.ready.len())
            .field("setup_s", &self.setup_s)
            .finish()
    }
}

/// A run whose window has started: its drivers and timers are going.
pub struct Running {
    shared: Arc<Shared>,
    metrics: Arc<Metrics>,
    drivers: JoinSet<()>,
    stop_tx: watch::Sender<bool>,
    slots: usize,
    setup_s: f64,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("slots", &self.slots)
            .field("setup_s", &self.setup_s)
            .finish()
    }
}

/// Set up every slot against `servers` (a bounded number at once): players registered and paired,
/// watchers logged in and watching. Nothing is measured yet.
pub async fn prepare(servers: &[SocketAddr], options: Options) -> Prepared {
    assert!(!servers.is_empty(), "a run has at least one node");
    let metrics = Arc::new(Metrics::new());
    let (stop_tx, stop) = watch::channel(false);
    let shared = Arc::new(Shared {
        servers: servers.to_vec(),
        options: options.clone(),
        metrics: Arc::clone(&metrics),
        stop,
        tasks: std::sync::Mutex::new(Vec::new()),
    });
    let progress = progress_bar(options.progress, options.games as u64, "setup");
    let setup_started = Instant::now();
    let permits = Arc::new(Semaphore::new(options.setup_concurrency.max(1)));
    let mut setups = JoinSet::new();
    for index in 0..options.games {
        let shared = Arc::clone(&shared);
        let permits = Arc::clone(&permits);
        setups.spawn(async move {
            let _permit = permits.acquire_owned().await;
            set_up_slot(shared, index).await
        });
    }
    let mut ready = Vec::with_capacity(options.games);
    while let Some(done) = setups.join_next().await {
        match done {
            Ok(Ok(setup)) => ready.push(setup),
            // The cause was counted where it happened; this counts the slot lost.
            Ok(Err(_)) => metrics.error("setup_failed"),
            Err(_) => metrics.error("setup:panic"),
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    Prepared {
        shared,
        metrics,
        ready,
        setup_s: setup_started.elapsed().as_secs_f64(),
        stop_tx,
    }
}

/// A progress bar on stderr, or a hidden one.
pub fn progress_bar(shown: bool, length: u64, prefix: &'static str) -> ProgressBar {
    let progress = if shown {
        ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    progress.set_style(
        ProgressStyle::with_template("{prefix:>8} [{bar:40}] {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    progress.set_prefix(prefix);
    progress
}

impl Prepared {
    pub fn metrics(&self) -> Arc<Metrics> {
        Arc::clone(&self.metrics)
    }

    /// The first slot's watchers and its game (the hot game's, where there is one slot); none when
    /// its setup failed.
    pub fn first_slot_watchers(&self) -> (Vec<ClientHandle>, Arc<Slot>) {
        match self.ready.first() {
            Some(setup) => (setup.watchers.clone(), Arc::clone(&setup.slot)),
            None => (Vec::new(), Arc::new(Slot::new())),
        }
    }

    /// Start the window: every game's moves from `start` (spread evenly over the first interval so
    /// games do not move in lockstep) until `end`, with its watchers' chat and bets.
    pub async fn start(self, start: Instant, end: Instant) -> Running {
        let options = &self.shared.options;
        let interval = Duration::from_secs_f64(1.0 / options.move_rate_per_s.max(0.001));
        self.metrics.set_measuring(true);
        let slots = self.ready.len();
        let mut drivers = JoinSet::new();
        for (n, setup) in self.ready.into_iter().enumerate() {
            let offset = interval.mul_f64(n as f64 / slots.max(1) as f64);
            start_timers(options, &setup, n, slots, start, end).await;
            let moves_max = if setup.size == 9 {
                options.moves_max_9
            } else {
                options.moves_max_19
            };
            let plan = Plan {
                moves_max,
                first: start + offset,
                interval,
                end,
                resign_at_end: options.resign_at_end,
            };
            drivers.spawn(drive(plan, setup, Arc::clone(&self.metrics)));
        }
        Running {
            shared: self.shared,
            metrics: self.metrics,
            drivers,
            stop_tx: self.stop_tx,
            slots,
            setup_s: self.setup_s,
        }
    }
}

/// Start a slot's watchers' chat and betting timers (staggered across every slot's watchers).
async fn start_timers(
    options: &Options,
    setup: &SlotSetup,
    n: usize,
    slots: usize,
    start: Instant,
    end: Instant,
) {
    let spread = |every: Duration, w: usize| {
        every.mul_f64((n * options.watchers + w) as f64 / (slots * options.watchers).max(1) as f64)
    };
    if options.chat_rate_per_s > 0.0 {
        let every = Duration::from_secs_f64(1.0 / options.chat_rate_per_s);
        for (w, watcher) in setup.watchers.iter().enumerate() {
            watcher
                .start_chat(start + spread(every, w), every, end)
                .await;
        }
    }
    if options.bet_rate_per_s > 0.0 {
        let every = Duration::from_secs_f64(1.0 / options.bet_rate_per_s);
        // A slot's watchers share one account (see `setup`), and one bettor keeps to one side.
        let side = if n % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        for (w, watcher) in setup.watchers.iter().enumerate() {
            // Staggered across every slot's watchers, as chat is: bettors in different games are
            // not synchronized, and a schedule that made every game's n-th watcher bet at the same
            // instant offered the server bursts of one bet per game at once.
            watcher
                .start_bets(side, start + spread(every, w), every, end)
                .await;
        }
    }
}

impl Running {
    pub fn metrics(&self) -> Arc<Metrics> {
        Arc::clone(&self.metrics)
    }

    /// Stop recording, let the drivers finish (bounded), close every client; returns the number of
    /// connections the run had.
    pub async fn wind_down(mut self) -> usize {
        self.metrics.set_measuring(false);
        let _ = tokio::time::timeout(WIND_DOWN_TIMEOUT, async {
            while self.drivers.join_next().await.is_some() {}
        })
        .await;
        self.drivers.abort_all();
        let _ = self.stop_tx.send(true);
        let tasks =
            std::mem::take(&mut *self.shared.tasks.lock().unwrap_or_else(|p| p.into_inner()));
        let connections = tasks.len();
        let _ = tokio::time::timeout(WIND_DOWN_TIMEOUT, async {
            for task in tasks {
                let _ = task.await;
            }
        })
        .await;
        connections
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    pub fn setup_s(&self) -> f64 {
        self.setup_s
    }
}

/// What the server's process did during a window: its RSS at the end, CPU seconds, and the
/// machine's CPU pressure.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerUse {
    pub rss_kib: Option<u64>,
    pub cpu_s: Option<f64>,
    pub pressure_percent: Option<f64>,
}

/// Readings at the start of a window, for [`ServerUse`] at its end.
#[derive(Debug, Clone, Copy)]
pub struct UseStart {
    cpu_s: Option<f64>,
    pressure_us: Option<u64>,
    at: Instant,
}

impl UseStart {
    pub fn now(pids: &[u32]) -> UseStart {
        UseStart {
            cpu_s: crate::rss::cpu_s_total(pids),
            pressure_us: crate::rss::cpu_pressure_us(),
            at: Instant::now(),
        }
    }

    pub fn end(self, pids: &[u32]) -> ServerUse {
        let window_s = self.at.elapsed().as_secs_f64();
        let cpu_end_s = crate::rss::cpu_s_total(pids);
        ServerUse {
            rss_kib: crate::rss::rss_kib_total(pids),
            cpu_s: self.cpu_s.zip(cpu_end_s).map(|(start, end)| end - start),
            pressure_percent: self
                .pressure_us
                .zip(crate::rss::cpu_pressure_us())
                .map(|(start, end)| (end - start) as f64 / 1e4 / window_s),
        }
    }
}

/// The figures of a window of `duration` (`window_s` as it really lasted) from `metrics`.
pub fn results(
    metrics: &Metrics,
    duration: Duration,
    (connections, games, setup_s, window_s): (usize, usize, f64, f64),
    server: ServerUse,
) -> Results {
    let per_s = |count: u64| count as f64 / duration.as_secs_f64().max(0.001);
    let delivered = Metrics::count(&metrics.delivered_count);
    Results {
        connections,
        games,
        games_restarted: Metrics::count(&metrics.games_restarted_count),
        window_s,
        setup_s,
        moves: Metrics::count(&metrics.moves_count),
        moves_per_s: per_s(Metrics::count(&metrics.moves_count)),
        move_ack: metrics.move_ack.summary(),
        move_opponent: metrics.move_opponent.summary(),
        watcher_event: metrics.watcher_event.summary(),
        watcher_chat: metrics.watcher_chat.summary(),
        chats_per_s: per_s(Metrics::count(&metrics.chats_count)),
        chats_after_end: Metrics::count(&metrics.chats_after_end_count),
        bets_per_s: per_s(Metrics::count(&metrics.bets_count)),
        bets_after_close: Metrics::count(&metrics.bets_after_close_count),
        delivered,
        delivered_per_s: per_s(delivered),
        errors: metrics.errors(),
        server_rss_kib: server.rss_kib,
        server_cpu_s: server.cpu_s,
        server_cpu_per_s: server.cpu_s.map(|cpu| cpu / window_s),
        server_cpu_us_per_delivered: server
            .cpu_s
            .filter(|_| delivered > 0)
            .map(|cpu| cpu * 1e6 / delivered as f64),
        cpu_pressure_percent: server.pressure_percent,
    }
}

/// Run the whole scenario against `servers` (one node, or several: see `nodes`) and return its
/// figures; RSS and CPU are summed over `options.server_pids`.
pub async fn run(servers: &[SocketAddr], options: Options) -> Results {
    let prepared = prepare(servers, options.clone()).await;
    // A pause, so the last logins' and subscriptions' work is over before anything is timed.
    tokio::time::sleep(SETTLE).await;
    let start = Instant::now() + Duration::from_millis(100);
    let end = start + options.duration;
    let running = prepared.start(start, end).await;
    let used = UseStart::now(&options.server_pids);
    let metrics = running.metrics();
    let progress = progress_bar(options.progress, options.duration.as_secs(), "load");
    while Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(250).min(end - Instant::now())).await;
        progress.set_position(start.elapsed().as_secs());
        progress.set_message(format!(
            "moves {} delivered {} errors {}",
            Metrics::count(&metrics.moves_count),
            Metrics::count(&metrics.delivered_count),
            metrics.errors().values().sum::<u64>()
        ));
    }
    metrics.set_measuring(false);
    let server = used.end(&options.server_pids);
    let window_s = start.elapsed().as_secs_f64();
    progress.finish_and_clear();
    let (slots, setup_s) = (running.slots(), running.setup_s());
    // Drivers stop on their own at `end`; then every client closes its socket.
    let connections = running.wind_down().await;
    results(
        &metrics,
        options.duration,
        (connections, slots, setup_s, window_s),
        server,
    )
}
