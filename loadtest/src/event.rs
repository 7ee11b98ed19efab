//! A Swiss event under load (`event`): `players` entrants register and join an event a director
//! created, `watchers` per board log in, and the director starts each of `rounds` rounds. Every
//! entrant waits for the `event` push that pairs it (the pairing is never handed over in-process),
//! finds its game there and plays it at `move_rate_per_s` (see `event_player`), ending it by
//! resignation or by a counted end as a seeded plan says, so a run is reproducible and the winners
//! spread. Each board's watchers follow its game and bet into its pool; once a round an entrant tries
//! to bet on another board of the event, which the server must refuse. The director starts the next
//! round once its push shows every result of the last.
//!
//! Beside the timings (the `Metrics` of every client, and the event's own in [`Tracker`]) it keeps
//! what the players saw (`Seen`: each game's pairing and result), from which `event_check`
//! recomputes the standings with `tengen-pairing` and compares them with the server's.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Serialize;
use tengen_protocol::{
    AccountsMsg, ClockSettings, Color, EventFormat, EventId, EventRound, EventSpec, EventView,
    EventsMsg, EventsServerMsg, FinalTie, GameId, GameSettings, GamesMsg, KoRule, MoneyMsg,
    ServerMsg, SwissRanking, UserId,
};
use tokio::sync::{mpsc, watch};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

use crate::client::{self, ClientHandle, Kind, Role, Slot, Tapped};
use crate::event_check::{self, Checked};
use crate::event_player::{self, Entrant};
use crate::metrics::{Latency, LatencySummary, Metrics};
use crate::nodes;
use crate::scenario::{ServerUse, UseStart};

/// Frames an entrant's or the director's tap holds unread: a round's `event` pushes (one per result,
/// so up to 256 at 512 entrants) and the frames of its own game (a few hundred at most); the joins
/// of setup (one push per entrant) are drained before the first round.
pub const TAP_LEN: usize = 1_024;

/// From a round's start to the first move of its games: the pairing pushes and the watchers' `watch`
/// go out first, so no move is due before its players could know their game.
pub const FIRST_MOVE_LEAD: Duration = Duration::from_secs(1);

/// Beyond a game's planned length at the move rate, how long it may take to end before the players
/// (and the director, for the round) give up on it.
pub const GAME_SLACK: Duration = Duration::from_secs(60);

/// How long an entrant waits for the push that pairs it once its round has started.
pub const PAIRING_WAIT: Duration = Duration::from_secs(30);

/// How long a player waits, after its game ended, for the `event` push that shows its result.
pub const STANDINGS_WAIT: Duration = Duration::from_secs(30);

/// Pause between setup and the first round, so the last logins' and joins' work is over.
const SETTLE: Duration = Duration::from_secs(2);

/// Watch requests (and account setups) in flight at once.
const WATCH_CONCURRENCY: usize = 32;

/// How long the end of a run waits for the players and the clients to finish before leaving them.
const WIND_DOWN_TIMEOUT: Duration = Duration::from_secs(15);

/// The most entrants: the server's bound on an event's players (`tengen-pairing`'s).
pub const PLAYERS_MAX: usize = tengen_pairing::MAX_ENTRANTS;

/// The most rounds: the server's bound on a Swiss event's rounds.
pub const ROUNDS_MAX: u32 = tengen_pairing::MAX_ROUNDS;

/// The most watchers per board: 256 boards of them already exceed the 20,000 descriptors a process
/// may hold here (PERFORMANCE.md), and a mistyped number should fail at once, not after setup.
pub const WATCHERS_MAX: usize = 1_000;

/// Game lengths, in moves: at least a few moves to time, at most a long 19x19 game (the intended
/// times of a game's events are kept in a ring of 512, see `client`).
pub const MOVES_MIN: usize = 4;
pub const MOVES_MAX: usize = 400;

/// Moves per second per game: from one every ten seconds (a round would last over an hour at
/// 400 moves) to twenty a second (faster than any person; the test plays that fast).
pub const MOVE_RATE_MIN: f64 = 0.1;
pub const MOVE_RATE_MAX: f64 = 20.0;

/// Bets per second per watcher: at most ten (each is a point, and the grant is 1,000).
pub const BET_RATE_MAX: f64 = 10.0;

/// Everything an event run is told.
#[derive(Debug, Clone)]
pub struct EventOptions {
    pub players: usize,
    pub rounds: u32,
    /// Watchers per board (game).
    pub watchers: usize,
    /// Watcher connections per account; each account bets on one side of a game.
    pub watchers_per_account: usize,
    pub size: u8,
    /// The longest game, in moves: each game's length is drawn from `moves / 2 ..= moves`.
    pub moves: usize,
    pub move_rate_per_s: f64,
    /// One-point bets per second per watcher.
    pub bet_rate_per_s: f64,
    /// Share of games ended by two passes and a count, in percent; the rest end by resignation.
    pub count_percent: u32,
    /// Seeds every game's plan (length, ending, loser) and its random moves.
    pub seed: u64,
    pub setup_concurrency: usize,
    pub source_ips: u8,
    pub progress: bool,
    pub run_tag: String,
    pub password: String,
    pub server_pids: Vec<u32>,
}

impl EventOptions {
    /// Every option within its bound, and the event possible: a Swiss event of `rounds` rounds
    /// needs more entrants than rounds, so no pair has to meet twice.
    pub fn validate(&self) -> Result<(), String> {
        let within = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_string()) };
        within(
            (2..=PLAYERS_MAX).contains(&self.players),
            "--players is 2 to 512 (an event's bound)",
        )?;
        within(
            (1..=ROUNDS_MAX).contains(&self.rounds) && (self.rounds as usize) < self.players,
            "--rounds is 1 to 64, and fewer than the players",
        )?;
        within(self.watchers <= WATCHERS_MAX, "--watchers is 0 to 1000")?;
        within([9, 13, 19].contains(&self.size), "--size is 9, 13 or 19")?;
        within(
            (MOVES_MIN..=MOVES_MAX).contains(&self.moves),
            "--moves is 4 to 400",
        )?;
        within(
            (MOVE_RATE_MIN..=MOVE_RATE_MAX).contains(&self.move_rate_per_s),
            "--move-rate is 0.1 to 20 moves a second",
        )?;
        within(
            (0.0..=BET_RATE_MAX).contains(&self.bet_rate_per_s),
            "--bet-rate is 0 to 10 bets a second",
        )?;
        within(self.count_percent <= 100, "--count-percent is 0 to 100")
    }

    /// Seconds between two moves of a game.
    pub fn interval(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.move_rate_per_s.max(0.001))
    }

    /// Boards per round (a bye for the odd entrant out).
    pub fn boards(&self) -> usize {
        self.players / 2
    }

    /// The longest a round may take: the lead, the boards' stagger, the longest game, the slack.
    pub fn round_bound(&self) -> Duration {
        FIRST_MOVE_LEAD + self.interval() * (2 * self.moves as u32 + 8) + GAME_SLACK
    }
}

/// The event's own figures, recorded by the entrants and the director.
#[derive(Debug)]
pub struct Tracker {
    /// A round's start (when the director sent `start_round`), as nanoseconds since the metrics'
    /// epoch, by round from 1 (index 0 unused); 0 until started.
    pub round_starts: Box<[AtomicU64]>,
    /// The last entrant's pairing push of each round (nanoseconds since the epoch).
    pub last_pairing: Box<[AtomicU64]>,
    /// Round start → each entrant's pairing push.
    pub pairing_delay: Latency,
    /// A player hears its game end → the `event` push with the result reaches it.
    pub end_to_standings: Latency,
    pub pairings_received: AtomicU64,
    pub pairings_missing: AtomicU64,
    /// Players who never heard the push with their game's result.
    pub standings_missing: AtomicU64,
    /// Games a player gave up on (no end within the bound).
    pub games_unfinished: AtomicU64,
    /// Entrants' bets on the event's games: tried, refused `players_cannot_bet`, anything else.
    pub entrant_bets_tried: AtomicU64,
    pub entrant_bets_refused: AtomicU64,
    pub entrant_bets_other: Mutex<Vec<String>>,
    /// What the players saw: every pairing and every result.
    pub seen: Mutex<Vec<Seen>>,
    /// The director gave up (a round did not finish): the entrants stop waiting.
    pub abandoned: AtomicBool,
}

impl Tracker {
    fn new(rounds: u32) -> Tracker {
        let slots = || (0..=rounds).map(|_| AtomicU64::new(0)).collect();
        Tracker {
            round_starts: slots(),
            last_pairing: slots(),
            pairing_delay: Latency::new(),
            end_to_standings: Latency::new(),
            pairings_received: AtomicU64::new(0),
            pairings_missing: AtomicU64::new(0),
            standings_missing: AtomicU64::new(0),
            games_unfinished: AtomicU64::new(0),
            entrant_bets_tried: AtomicU64::new(0),
            entrant_bets_refused: AtomicU64::new(0),
            entrant_bets_other: Mutex::new(Vec::new()),
            seen: Mutex::new(Vec::new()),
            abandoned: AtomicBool::new(false),
        }
    }

    /// Round `round`'s start, once the director sent it.
    pub fn round_start(&self, metrics: &Metrics, round: u32) -> Option<Instant> {
        let nanos = self
            .round_starts
            .get(round as usize)?
            .load(Ordering::SeqCst);
        (nanos != 0).then(|| metrics.instant(nanos))
    }

    pub fn saw(&self, seen: Seen) {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(seen);
    }
}

/// What one entrant saw of one round: its pairing, and its game's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A board: its players and game, and the result as the `ended` event told it (`None` when
    /// the game never ended).
    Board {
        round: u32,
        board: u32,
        black: UserId,
        white: UserId,
        game: Option<GameId>,
        outcome: Option<tengen_protocol::EventOutcome>,
        /// Ended by the count (else by resignation or anything else).
        counted: bool,
    },
    /// A bye (scored as a win) or a rest (no score).
    Bye {
        round: u32,
        player: UserId,
        resting: bool,
    },
}

/// What an event run measured and checked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EventResults {
    pub players: usize,
    pub rounds: u32,
    pub rounds_played: u32,
    pub connections: usize,
    /// Why setup failed, if it did (nothing else was run).
    pub setup_error: Option<String>,
    pub setup_s: f64,
    pub window_s: f64,
    /// Pairings the entrants should have heard (entrants × rounds played), heard, missing.
    pub pairings_expected: u64,
    pub pairings_received: u64,
    pub pairings_missing: u64,
    /// Round start → each entrant's pairing push.
    pub pairing_delay: LatencySummary,
    /// Per round: its start → the last entrant's pairing push.
    pub round_last_pairing: LatencySummary,
    pub end_to_standings: LatencySummary,
    pub standings_missing: u64,
    pub games_unfinished: u64,
    pub moves: u64,
    pub move_ack: LatencySummary,
    /// Each watcher's delivery of each move (the fan-out).
    pub watcher_event: LatencySummary,
    pub bets: u64,
    pub bet_ack: LatencySummary,
    pub bets_after_close: u64,
    pub entrant_bets_tried: u64,
    pub entrant_bets_refused: u64,
    pub entrant_bets_other: Vec<String>,
    /// The checks of the results against the server's event.
    pub checked: Checked,
    pub delivered: u64,
    /// The bytes of the event's whole state at the end, as every `event` push carries it (each
    /// result pushes it to every entrant and the director).
    pub event_bytes: Option<usize>,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub server_rss_kib: Option<u64>,
    pub server_cpu_s: Option<f64>,
    pub server_cpu_us_per_delivered: Option<f64>,
    pub cpu_pressure_percent: Option<f64>,
}

impl EventResults {
    pub fn errors_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// The generator's side of the connections: where they go, what they share.
struct Net {
    servers: Vec<SocketAddr>,
    options: EventOptions,
    metrics: Arc<Metrics>,
    stop: watch::Receiver<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    opened: AtomicUsize,
}

impl Net {
    /// Open a connection to node `node` (round-robin over the nodes) and say `hello`; with a tap,
    /// its pushes go there.
    async fn connect(
        &self,
        node: usize,
        role: Role,
        slot: &Arc<Slot>,
        tap: Option<mpsc::Sender<Tapped>>,
    ) -> Result<ClientHandle, String> {
        let n = self.opened.fetch_add(1, Ordering::Relaxed);
        let source = client::source_address(n, self.options.source_ips);
        let server = self.servers[nodes::node_of_connection(node, self.servers.len())];
        let ws = client::connect(server, source).await?;
        let (metrics, stop) = (Arc::clone(&self.metrics), self.stop.clone());
        let slot = Arc::clone(slot);
        let (handle, join) = match tap {
            Some(tap) => client::spawn_tapped(ws, role, slot, tap, metrics, stop),
            None => client::spawn(ws, role, slot, None, metrics, stop, None),
        };
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(join);
        handle.hello().await?;
        Ok(handle)
    }

    async fn register(
        &self,
        client: &ClientHandle,
        name: String,
    ) -> Result<(UserId, String), String> {
        client.register(name, self.options.password.clone()).await
    }

    /// A logged-in connection with a tap: an entrant or the director.
    async fn tapped(
        &self,
        node: usize,
        name: String,
    ) -> Result<(UserId, ClientHandle, mpsc::Receiver<Tapped>), String> {
        let (tap, rx) = mpsc::channel(TAP_LEN);
        let slot = Arc::new(Slot::new());
        let handle = self
            .connect(node, Role::Player(Color::Black), &slot, Some(tap))
            .await?;
        let (user, _) = self.register(&handle, name).await?;
        Ok((user, handle, rx))
    }
}

/// The director's connection.
struct Director {
    handle: ClientHandle,
    tap: mpsc::Receiver<Tapped>,
}

/// Everything set up: the director, the event, its entrants, each board's watchers.
struct Setup {
    director: Director,
    event: EventId,
    entrants: Vec<Entrant>,
    /// Each board's watchers, grouped by account (an account bets on one side of a game).
    watchers: Vec<Vec<Vec<ClientHandle>>>,
    /// Each board's slot: the game its watchers follow this round, and its moves' intended times.
    boards: Vec<Arc<Slot>>,
}

/// Every game's settings: a real clock, generous enough that no game of a run loses on time.
fn settings(size: u8) -> GameSettings {
    GameSettings {
        size,
        komi_half_points: 15,
        handicap: 0,
        ko_rule: KoRule::Positional,
        clock: ClockSettings::ByoYomi {
            main_time_ms: 20 * 60 * 1000,
            periods: 5,
            period_ms: 30_000,
            timeout_is_pass: false,
        },
        nigiri: false,
        unrated: false,
        event: None,
        lateness_limit_ms: None,
    }
}

fn spec(options: &EventOptions) -> EventSpec {
    EventSpec {
        name: format!("Load {}", options.run_tag),
        format: EventFormat::Swiss {
            rounds: options.rounds,
            out_after_losses: None,
            ranking: SwissRanking::TotalScore,
        },
        final_tie: FinalTie::Stands,
        settings: settings(options.size),
        players_max: options.players as u32,
        ranks: None,
        teams: None,
        rated: true,
        round_starts_ms: Vec::new(),
        lateness_limit_ms: None,
    }
}

/// The view in an `event` reply or push.
pub fn view_of(msg: ServerMsg) -> Option<EventView> {
    match msg {
        ServerMsg::Events(EventsServerMsg::Event { event, .. }) => Some(*event),
        _ => None,
    }
}

/// The director registers and creates the event, the entrants register and join it, and each
/// board's watchers log in (a bounded number at once). Nothing is measured yet.
async fn set_up(net: &Net) -> Result<Setup, String> {
    let options = &net.options;
    let tag = &options.run_tag;
    let (_, handle, tap) = net.tapped(0, format!("d{tag}")).await?;
    let created = handle
        .request(EventsMsg::CreateEvent {
            spec: spec(options),
        })
        .await?;
    let event = view_of(created)
        .ok_or("create_event answered something else")?
        .summary
        .event;
    let concurrency = options.setup_concurrency.max(1);
    let entrants = futures_util::stream::iter(0..options.players)
        .map(|index| async move {
            let (user, handle, tap) = net.tapped(index, format!("e{tag}x{index}")).await?;
            handle.request(EventsMsg::JoinEvent { event }).await?;
            Ok::<_, String>(Entrant::new(index, user, handle, tap))
        })
        .buffered(concurrency)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let boards: Vec<Arc<Slot>> = (0..options.boards())
        .map(|_| Arc::new(Slot::new()))
        .collect();
    let mut watchers = Vec::with_capacity(options.boards());
    for (board, slot) in boards.iter().enumerate() {
        watchers.push(set_up_watchers(net, board, slot).await?);
    }
    Ok(Setup {
        director: Director { handle, tap },
        event,
        entrants,
        watchers,
        boards,
    })
}

/// Board `board`'s watchers, by account: the first connection of each registers, the rest resume.
async fn set_up_watchers(
    net: &Net,
    board: usize,
    slot: &Arc<Slot>,
) -> Result<Vec<Vec<ClientHandle>>, String> {
    let options = &net.options;
    let per_account = options.watchers_per_account.max(1);
    let accounts = options.watchers.div_ceil(per_account);
    let tag = &options.run_tag;
    futures_util::stream::iter(0..accounts)
        .map(|account| {
            let members = (options.watchers - account * per_account).min(per_account);
            let slot = Arc::clone(slot);
            async move {
                let mut group = Vec::with_capacity(members);
                let mut token: Option<String> = None;
                for member in 0..members {
                    let node = board + account * per_account + member;
                    let watcher = net.connect(node, Role::Watcher, &slot, None).await?;
                    match &token {
                        None => {
                            let name = format!("k{tag}x{board}a{account}");
                            token = Some(net.register(&watcher, name).await?.1);
                        }
                        Some(token) => {
                            let token = token.clone();
                            watcher.request(AccountsMsg::Resume { token }).await?;
                        }
                    }
                    group.push(watcher);
                }
                Ok::<_, String>(group)
            }
        })
        .buffered(WATCH_CONCURRENCY)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

/// Run the event against `servers` (the director and the hall's work on the first) and return what
/// was measured and checked.
pub async fn run(servers: &[SocketAddr], options: EventOptions) -> EventResults {
    let metrics = Arc::new(Metrics::new());
    let (stop_tx, stop) = watch::channel(false);
    let net = Net {
        servers: servers.to_vec(),
        options: options.clone(),
        metrics: Arc::clone(&metrics),
        stop,
        tasks: Mutex::new(Vec::new()),
        opened: AtomicUsize::new(0),
    };
    let mut results = EventResults {
        players: options.players,
        rounds: options.rounds,
        ..EventResults::default()
    };
    let refused = match options.validate() {
        Err(err) => Some(err),
        Ok(()) if servers.is_empty() => Some("no server to run against".into()),
        Ok(()) => None,
    };
    if let Some(err) = refused {
        results.setup_error = Some(err);
        return results;
    }
    let setup_started = Instant::now();
    let setup = set_up(&net).await;
    results.setup_s = setup_started.elapsed().as_secs_f64();
    let setup = match setup {
        Ok(setup) => setup,
        Err(err) => {
            results.setup_error = Some(err);
            results.connections = wind_down(&net, &stop_tx).await;
            results.errors = metrics.errors();
            return results;
        }
    };
    tokio::time::sleep(SETTLE).await;
    let tracker = Arc::new(Tracker::new(options.rounds));
    let (window, director) = run_rounds(&net, setup, &tracker).await;
    results.connections = wind_down(&net, &stop_tx).await;
    fill(&mut results, &metrics, &tracker, window, director);
    results
}

/// What the window produced: the server's use, its length, the rounds started and finished.
struct Window {
    server: ServerUse,
    window_s: f64,
    rounds_started: u32,
}

/// The rounds, from the first `start_round` to the last result: the entrants play, the director
/// directs; returns the window's figures and the event as the director finally reads it.
async fn run_rounds(
    net: &Net,
    setup: Setup,
    tracker: &Arc<Tracker>,
) -> (Window, Option<EventView>) {
    let options = &net.options;
    let Setup {
        mut director,
        event,
        mut entrants,
        watchers,
        boards,
    } = setup;
    while director.tap.try_recv().is_ok() {}
    entrants.iter_mut().for_each(Entrant::drain);
    let probes: Vec<(UserId, ClientHandle)> = entrants
        .iter()
        .map(|e| (e.user, e.handle.clone()))
        .collect();
    let shared = Arc::new(event_player::Shared {
        options: options.clone(),
        metrics: Arc::clone(&net.metrics),
        tracker: Arc::clone(tracker),
        boards,
    });
    net.metrics.set_measuring(true);
    let used = UseStart::now(&options.server_pids);
    let started = Instant::now();
    let mut players = JoinSet::new();
    for entrant in entrants {
        players.spawn(event_player::play(Arc::clone(&shared), entrant));
    }
    let rounds_started = direct(&shared, &mut director, event, &watchers, &probes).await;
    net.metrics.set_measuring(false);
    let server = used.end(&options.server_pids);
    let window_s = started.elapsed().as_secs_f64();
    // The entrants stop by themselves after the last round (or once the director gave up).
    let _ = tokio::time::timeout(WIND_DOWN_TIMEOUT, async {
        while players.join_next().await.is_some() {}
    })
    .await;
    players.abort_all();
    let view = director
        .handle
        .request(EventsMsg::GetEvent { event })
        .await
        .ok()
        .and_then(view_of);
    let window = Window {
        server,
        window_s,
        rounds_started,
    };
    (window, view)
}

/// The director's part: start each round, point the watchers at its games, let one entrant try to
/// bet, and wait for the push with every result; returns the rounds started. A round that does not
/// finish within its bound ends the run (the entrants are told to stop).
async fn direct(
    shared: &event_player::Shared,
    director: &mut Director,
    event: EventId,
    watchers: &[Vec<Vec<ClientHandle>>],
    probes: &[(UserId, ClientHandle)],
) -> u32 {
    let (tracker, metrics) = (&shared.tracker, &shared.metrics);
    let progress = crate::scenario::progress_bar(
        shared.options.progress,
        u64::from(shared.options.rounds),
        "rounds",
    );
    let mut started = 0;
    for round in 1..=shared.options.rounds {
        let start = Instant::now();
        if let Some(slot) = tracker.round_starts.get(round as usize) {
            slot.store(metrics.nanos(start), Ordering::SeqCst);
        }
        let reply = director
            .handle
            .request(EventsMsg::StartRound { event })
            .await;
        let paired = reply
            .ok()
            .and_then(view_of)
            .and_then(|view| view.rounds.into_iter().find(|r| r.number == round));
        let Some(paired) = paired else {
            metrics.error("start_round_failed");
            break;
        };
        started = round;
        // The entrant's bet first, while every game of the round is surely still in play.
        probe(tracker, probes, &paired).await;
        follow(shared, watchers, &paired, start).await;
        if !round_done(shared, director, event, round, start).await {
            metrics.error("round_unfinished");
            break;
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    if started < shared.options.rounds {
        tracker.abandoned.store(true, Ordering::SeqCst);
    }
    started
}

/// Each board's watchers follow its game of `round` and bet into its pool: every account on one
/// side (alternating by account and board), bets staggered across every watcher.
async fn follow(
    shared: &event_player::Shared,
    watchers: &[Vec<Vec<ClientHandle>>],
    round: &EventRound,
    start: Instant,
) {
    let options = &shared.options;
    let mut follows = Vec::new();
    for board in &round.boards {
        let index = (board.board as usize).saturating_sub(1);
        let (Some(game), Some(slot), Some(groups)) =
            (board.game, shared.boards.get(index), watchers.get(index))
        else {
            continue;
        };
        slot.set_game(game);
        for (account, group) in groups.iter().enumerate() {
            // The same side every round: a watcher's timer of the last round may still bet once
            // into this round's game before the new one replaces it, and an account keeps to one
            // side of a game.
            let side = if (account + index) % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            follows.extend(group.iter().map(|watcher| (watcher.clone(), game, side)));
        }
    }
    let total = follows.len().max(1);
    let every = Duration::from_secs_f64(1.0 / options.bet_rate_per_s.max(1e-6));
    let end = start + options.round_bound();
    let first = start + FIRST_MOVE_LEAD;
    futures_util::stream::iter(follows.into_iter().enumerate())
        .map(|(k, (watcher, game, side))| async move {
            // A failed watch is counted by the client; that watcher just sees nothing this round.
            if watcher.request(GamesMsg::Watch { game }).await.is_ok()
                && options.bet_rate_per_s > 0.0
            {
                let at = first + every.mul_f64(k as f64 / total as f64);
                watcher.start_bets(side, at, every, end).await;
            }
        })
        .buffer_unordered(WATCH_CONCURRENCY)
        .collect::<Vec<()>>()
        .await;
}

/// Once a round: an entrant tries to bet on another board of the event (its own when there is
/// one board), which the server must refuse as `players_cannot_bet`.
async fn probe(tracker: &Tracker, probes: &[(UserId, ClientHandle)], round: &EventRound) {
    let Some((user, handle)) =
        probes.get((round.number as usize).saturating_sub(1) % probes.len().max(1))
    else {
        return;
    };
    let own = round
        .boards
        .iter()
        .position(|b| b.black == *user || b.white == *user);
    let target = match own {
        Some(own) if round.boards.len() > 1 => round.boards.get((own + 1) % round.boards.len()),
        _ => round.boards.first(),
    };
    let Some(game) = target.and_then(|b| b.game) else {
        return;
    };
    tracker.entrant_bets_tried.fetch_add(1, Ordering::Relaxed);
    let bet = MoneyMsg::Bet {
        game,
        side: Color::Black,
        amount: 1.into(),
        key: None,
    };
    match handle.request_at(bet, Instant::now(), Kind::Probe).await {
        Err(code) if code == "players_cannot_bet" => {
            tracker.entrant_bets_refused.fetch_add(1, Ordering::Relaxed);
        }
        other => {
            let said = match other {
                Ok(reply) => format!("accepted: {reply:?}"),
                Err(code) => code,
            };
            let mut others = tracker
                .entrant_bets_other
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            others.push(format!("round {}: {said}", round.number));
        }
    }
}

/// Wait (bounded by the round's bound) for the director's push that shows every result of `round`.
async fn round_done(
    shared: &event_player::Shared,
    director: &mut Director,
    event: EventId,
    round: u32,
    start: Instant,
) -> bool {
    let deadline = start + shared.options.round_bound();
    loop {
        let frame = match tokio::time::timeout_at(deadline, director.tap.recv()).await {
            Ok(Some((_, frame))) => frame,
            Ok(None) | Err(_) => return false,
        };
        let Some(view) = view_of(frame) else {
            continue;
        };
        let finished = view.summary.event == event
            && view
                .rounds
                .iter()
                .find(|r| r.number == round)
                .is_some_and(|r| r.boards.iter().all(|b| b.outcome.is_some()));
        if finished {
            return true;
        }
    }
}

/// Stop every client and wait (bounded) for their tasks; returns how many connections there were.
async fn wind_down(net: &Net, stop_tx: &watch::Sender<bool>) -> usize {
    let _ = stop_tx.send(true);
    let tasks = std::mem::take(&mut *net.tasks.lock().unwrap_or_else(|p| p.into_inner()));
    let connections = tasks.len();
    let _ = tokio::time::timeout(WIND_DOWN_TIMEOUT, async {
        for task in tasks {
            let _ = task.await;
        }
    })
    .await;
    connections
}

/// The results from what the run measured and saw, and the checks against the final event.
fn fill(
    results: &mut EventResults,
    metrics: &Metrics,
    tracker: &Tracker,
    window: Window,
    view: Option<EventView>,
) {
    let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
    results.event_bytes = view
        .as_ref()
        .and_then(|view| serde_json::to_string(view).ok())
        .map(|text| text.len());
    let seen = tracker
        .seen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    results.checked = event_check::check(&seen, view.as_ref());
    results.rounds_played = results.checked.rounds_finished;
    results.window_s = window.window_s;
    results.pairings_expected = results.players as u64 * u64::from(window.rounds_started);
    results.pairings_received = count(&tracker.pairings_received);
    results.pairings_missing = results
        .pairings_expected
        .saturating_sub(results.pairings_received);
    results.pairing_delay = tracker.pairing_delay.summary();
    results.round_last_pairing = last_pairings(metrics, tracker, window.rounds_started);
    results.end_to_standings = tracker.end_to_standings.summary();
    results.standings_missing = count(&tracker.standings_missing);
    results.games_unfinished = count(&tracker.games_unfinished);
    results.moves = Metrics::count(&metrics.moves_count);
    results.move_ack = metrics.move_ack.summary();
    results.watcher_event = metrics.watcher_event.summary();
    results.bets = Metrics::count(&metrics.bets_count);
    results.bet_ack = metrics.bet_ack.summary();
    results.bets_after_close = Metrics::count(&metrics.bets_after_close_count);
    results.entrant_bets_tried = count(&tracker.entrant_bets_tried);
    results.entrant_bets_refused = count(&tracker.entrant_bets_refused);
    results.entrant_bets_other = tracker
        .entrant_bets_other
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    results.delivered = Metrics::count(&metrics.delivered_count);
    results.errors = metrics.errors();
    let server = window.server;
    results.server_rss_kib = server.rss_kib;
    results.server_cpu_s = server.cpu_s;
    results.server_cpu_us_per_delivered = server
        .cpu_s
        .filter(|_| results.delivered > 0)
        .map(|cpu| cpu * 1e6 / results.delivered as f64);
    results.cpu_pressure_percent = server.pressure_percent;
}

/// Per round: its start → the last entrant's pairing push.
fn last_pairings(metrics: &Metrics, tracker: &Tracker, rounds: u32) -> LatencySummary {
    let latency = Latency::new();
    for round in 1..=rounds as usize {
        let (Some(start), Some(last)) = (
            tracker.round_starts.get(round),
            tracker.last_pairing.get(round),
        ) else {
            continue;
        };
        let (start, last) = (start.load(Ordering::SeqCst), last.load(Ordering::SeqCst));
        if start != 0 && last != 0 {
            latency.record(
                metrics
                    .instant(last)
                    .saturating_duration_since(metrics.instant(start)),
            );
        }
    }
    latency.summary()
}
