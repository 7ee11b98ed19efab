//! The title match (`hot-game`): one 19x19 game between two players at a move every 2 s, watched by
//! thousands of logged-in connections, beside the everyday background (hundreds of games with a few
//! watchers each, moving, chatting and betting as in `run`). From `bet_burst_at` seconds before the
//! hot game ends, every one of its watchers bets once (a random side per account, a random amount)
//! within `bet_burst_s` seconds; then the game ends by resignation and settles, and every bettor's
//! connections should hear their new balance.
//!
//! What it measures, beside what `scenario` measures for the background: for each of the hot
//! game's moves, the time from its intended send time to the *last* watcher's delivery (the fan-out
//! time); the bets' acks during the burst; the pool pushes each watcher receives per second (which
//! the server must coalesce, not send one per bet); the time from the end to the last bettor's
//! `balance` push; and the background games' move acks inside the burst window. The baseline gets
//! the same watchers and moves, without bets.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;
use tengen_protocol::{Color, MoneyMsg};
use tengen_rules::random::SeededRng;
use tokio::time::Instant;

use crate::client::{ClientHandle, Kind, Slot};
use crate::metrics::{LatencySummary, Metrics};
use crate::scenario::{self, Options, Results, UseStart};

/// Events of the hot game whose deliveries are tracked: more than the moves of any window this
/// scenario plays (a move every 2 s).
const TRACKED_EVENTS: usize = 1_024;

/// The longest the run waits after the end for every bettor's balance push.
const BALANCE_WAIT_MAX: Duration = Duration::from_secs(30);

/// How often the wait for the balance pushes looks again.
const BALANCE_POLL: Duration = Duration::from_millis(50);

/// Pause between setup and the window (as in `scenario`).
const SETTLE: Duration = Duration::from_secs(2);

/// What the hot game's watchers record, beside the shared [`Metrics`]: every instant is in
/// nanoseconds since the hot run's `Metrics::epoch`.
#[derive(Debug)]
pub struct HotTracker {
    /// Per event `seq`: its intended send time, its last delivery to a watcher, and how many
    /// watchers received it.
    intended: Box<[AtomicU64]>,
    last_delivery: Box<[AtomicU64]>,
    deliveries: Box<[AtomicU64]>,
    /// From when pool pushes count (the burst's start), and how many were received since.
    burst_start: AtomicU64,
    pool_pushes: AtomicU64,
    bets_accepted: AtomicU64,
    /// The resignation's intended time (0 until the driver sends it), the balance pushes received
    /// after it (one per connection) and the last one's arrival.
    end: AtomicU64,
    balance_pushes: AtomicU64,
    last_balance: AtomicU64,
}

impl Default for HotTracker {
    fn default() -> Self {
        HotTracker::new()
    }
}

fn zeros(len: usize) -> Box<[AtomicU64]> {
    (0..len).map(|_| AtomicU64::new(0)).collect()
}

impl HotTracker {
    pub fn new() -> HotTracker {
        HotTracker {
            intended: zeros(TRACKED_EVENTS),
            last_delivery: zeros(TRACKED_EVENTS),
            deliveries: zeros(TRACKED_EVENTS),
            burst_start: AtomicU64::new(u64::MAX),
            pool_pushes: AtomicU64::new(0),
            bets_accepted: AtomicU64::new(0),
            end: AtomicU64::new(0),
            balance_pushes: AtomicU64::new(0),
            last_balance: AtomicU64::new(0),
        }
    }

    /// A watcher received event `seq`, meant to be sent at `intended`, at `at`.
    pub fn delivered(&self, seq: u64, intended: u64, at: u64) {
        let Some(index) = usize::try_from(seq).ok().filter(|&i| i < TRACKED_EVENTS) else {
            return;
        };
        self.intended[index].store(intended, Ordering::Relaxed);
        self.last_delivery[index].fetch_max(at, Ordering::Relaxed);
        self.deliveries[index].fetch_add(1, Ordering::Relaxed);
    }

    pub fn pool_pushed(&self, at: u64) {
        if at >= self.burst_start.load(Ordering::Relaxed) {
            self.pool_pushes.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn bet_accepted(&self) {
        self.bets_accepted.fetch_add(1, Ordering::Relaxed);
    }

    /// A `balance` push arrived at `at`: counted (and `true`) when it came after the end.
    pub fn balance_pushed(&self, at: u64) -> bool {
        let end = self.end.load(Ordering::SeqCst);
        if end == 0 || at < end {
            return false;
        }
        self.balance_pushes.fetch_add(1, Ordering::Relaxed);
        self.last_balance.fetch_max(at, Ordering::Relaxed);
        true
    }

    /// Each tracked event's fan-out time (intended send to the last of `watchers` deliveries), in
    /// a histogram; and how many events some watcher never received.
    fn fan_out(&self, watchers: u64) -> (LatencySummary, u64, Vec<SlowEvent>) {
        let Ok(mut histogram) = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3) else {
            return (LatencySummary::default(), 0, Vec::new());
        };
        let end = self.end.load(Ordering::Relaxed);
        let mut slowest = Vec::new();
        let mut incomplete = 0;
        for seq in 1..TRACKED_EVENTS {
            let count = self.deliveries[seq].load(Ordering::Relaxed);
            if count == 0 {
                continue;
            }
            if count < watchers {
                incomplete += 1;
                continue;
            }
            let took = self.last_delivery[seq]
                .load(Ordering::Relaxed)
                .saturating_sub(self.intended[seq].load(Ordering::Relaxed));
            histogram.saturating_record((took / 1_000).max(1));
            let intended = self.intended[seq].load(Ordering::Relaxed);
            slowest.push(SlowEvent {
                seq: seq as u64,
                before_end_s: end.saturating_sub(intended) as f64 / 1e9,
                took_ms: took as f64 / 1e6,
            });
        }
        slowest.sort_by(|a, b| b.took_ms.total_cmp(&a.took_ms));
        slowest.truncate(SLOWEST_EVENTS);
        let ms = |us: u64| us as f64 / 1000.0;
        let summary = LatencySummary {
            count: histogram.len(),
            p50_ms: ms(histogram.value_at_quantile(0.5)),
            p99_ms: ms(histogram.value_at_quantile(0.99)),
            p999_ms: ms(histogram.value_at_quantile(0.999)),
            max_ms: ms(histogram.max()),
        };
        (summary, incomplete, slowest)
    }
}

/// Everything a hot-game run is told.
#[derive(Debug, Clone)]
pub struct HotOptions {
    pub watchers: usize,
    /// Watcher connections per account (each account bets on one side).
    pub watchers_per_account: usize,
    pub background_games: usize,
    pub background_watchers: usize,
    /// Seconds between two moves of the hot game.
    pub move_every_s: f64,
    /// The window: the hot game resigns at its end.
    pub duration: Duration,
    /// The burst starts this long before the end, and lasts `bet_burst_s`.
    pub bet_burst_at: Duration,
    pub bet_burst: Duration,
    /// Bets are 1..=this many points.
    pub bet_max: u64,
    /// Place the bets (off for the baseline, which has no pool).
    pub bets: bool,
    /// The background's options (games, watchers, rates, tag, pids, ...).
    pub base: Options,
}

/// The slowest fan-outs a report lists, to tell a slow move from a slow end.
const SLOWEST_EVENTS: usize = 3;

/// One hot-game event's fan-out: which event, when it was meant to go out (seconds before the
/// resignation's intended time; 0 for the resignation itself) and how long it took to reach the
/// last watcher.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlowEvent {
    pub seq: u64,
    pub before_end_s: f64,
    pub took_ms: f64,
}

/// What a hot-game run measured, beside the background's [`Results`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct HotResults {
    pub watchers: usize,
    pub setup_s: f64,
    /// Per move: intended send to the last watcher's delivery.
    pub fan_out: LatencySummary,
    /// Moves some watcher never received (within the window).
    pub fan_out_incomplete: u64,
    /// The slowest events' fan-outs, slowest first.
    pub fan_out_slowest: Vec<SlowEvent>,
    /// Every delivery to every hot watcher.
    pub watcher_event: LatencySummary,
    pub move_ack: LatencySummary,
    pub bets_sent: u64,
    pub bets_accepted: u64,
    pub bets_after_close: u64,
    pub bet_ack: LatencySummary,
    /// Accepted bets over the burst's length.
    pub bets_per_s: f64,
    /// Pool pushes each watcher received per second, from the burst's start to the end.
    pub pool_pushes_per_watcher_per_s: f64,
    /// Connections that heard a new balance after the end, and the last one's delay.
    pub balance_pushes: u64,
    pub end_to_last_balance_s: Option<f64>,
    pub errors: std::collections::BTreeMap<String, u64>,
    /// The background's figures (its `move_ack_burst` is below).
    pub background: Results,
    pub background_move_ack_burst: LatencySummary,
    /// Hot and background together.
    pub delivered: u64,
    pub server_rss_kib: Option<u64>,
    pub server_cpu_s: Option<f64>,
    pub server_cpu_us_per_delivered: Option<f64>,
    pub cpu_pressure_percent: Option<f64>,
}

/// The hot slot's options: one 19x19 game, its watchers, a move every `move_every_s`, no chat, and
/// a resignation at the end.
fn hot_slot_options(options: &HotOptions, tracker: &Arc<HotTracker>) -> Options {
    Options {
        games: 1,
        watchers: options.watchers,
        small_percent: 0,
        move_rate_per_s: 1.0 / options.move_every_s.max(0.001),
        chat_rate_per_s: 0.0,
        bet_rate_per_s: 0.0,
        run_tag: format!("{}h", options.base.run_tag),
        watchers_per_account: options.watchers_per_account,
        resign_at_end: true,
        hot: Some(Arc::clone(tracker)),
        ..options.base.clone()
    }
}

/// Run the hot game beside the background against `servers` and return what was measured.
pub async fn run(servers: &[SocketAddr], options: HotOptions) -> HotResults {
    let tracker = Arc::new(HotTracker::new());
    let background_options = Options {
        games: options.background_games,
        watchers: options.background_watchers,
        bet_rate_per_s: if options.bets {
            options.base.bet_rate_per_s
        } else {
            0.0
        },
        ..options.base.clone()
    };
    // The hot game first: its thousands of logins take the longest, and a background game set up
    // before them would wait that long for its first move.
    let hot = scenario::prepare(servers, hot_slot_options(&options, &tracker)).await;
    let background = scenario::prepare(servers, background_options).await;
    let (watchers, hot_slot) = hot.first_slot_watchers();
    tokio::time::sleep(SETTLE).await;
    let start = Instant::now() + Duration::from_millis(100);
    let end = start + options.duration;
    let burst_start = end
        .checked_sub(options.bet_burst_at)
        .unwrap_or(start)
        .max(start);
    let (hot_metrics, bg_metrics) = (hot.metrics(), background.metrics());
    bg_metrics.set_burst(burst_start, burst_start + options.bet_burst);
    tracker
        .burst_start
        .store(hot_metrics.nanos(burst_start), Ordering::SeqCst);
    tracker.end.store(hot_metrics.nanos(end), Ordering::SeqCst);
    let bg_running = background.start(start, end).await;
    let hot_running = hot.start(start, end).await;
    let used = UseStart::now(&options.base.server_pids);
    let bets_sent = if options.bets {
        burst(&watchers, &hot_slot, &options, burst_start).await
    } else {
        0
    };
    tokio::time::sleep_until(end).await;
    if options.bets {
        wait_for_balances(&tracker, &hot_metrics, bets_sent).await;
    }
    hot_metrics.set_measuring(false);
    bg_metrics.set_measuring(false);
    let server = used.end(&options.base.server_pids);
    let window_s = start.elapsed().as_secs_f64();
    let (bg_slots, bg_setup_s) = (bg_running.slots(), bg_running.setup_s());
    let hot_setup_s = hot_running.setup_s();
    let hot_connections = hot_running.wind_down().await;
    let bg_connections = bg_running.wind_down().await;
    let bg = scenario::results(
        &bg_metrics,
        options.duration,
        (bg_connections, bg_slots, bg_setup_s, window_s),
        server,
    );
    let delivered = Metrics::count(&hot_metrics.delivered_count) + bg.delivered;
    let (fan_out, fan_out_incomplete, fan_out_slowest) = tracker.fan_out(options.watchers as u64);
    let accepted = tracker.bets_accepted.load(Ordering::Relaxed);
    let end_nanos = tracker.end.load(Ordering::Relaxed);
    let last_balance = tracker.last_balance.load(Ordering::Relaxed);
    HotResults {
        watchers: hot_connections.saturating_sub(2),
        setup_s: hot_setup_s,
        fan_out,
        fan_out_incomplete,
        fan_out_slowest,
        watcher_event: hot_metrics.watcher_event.summary(),
        move_ack: hot_metrics.move_ack.summary(),
        bets_sent,
        bets_accepted: accepted,
        bets_after_close: Metrics::count(&hot_metrics.bets_after_close_count),
        bet_ack: hot_metrics.bet_ack.summary(),
        bets_per_s: accepted as f64 / options.bet_burst.as_secs_f64().max(0.001),
        pool_pushes_per_watcher_per_s: tracker.pool_pushes.load(Ordering::Relaxed) as f64
            / options.watchers.max(1) as f64
            / (window_s - (burst_start - start).as_secs_f64()).max(0.001),
        balance_pushes: tracker.balance_pushes.load(Ordering::Relaxed),
        end_to_last_balance_s: (last_balance > end_nanos)
            .then(|| (last_balance - end_nanos) as f64 / 1e9),
        errors: hot_metrics.errors(),
        background_move_ack_burst: bg_metrics.move_ack_burst.summary(),
        background: bg,
        delivered,
        server_rss_kib: server.rss_kib,
        server_cpu_s: server.cpu_s,
        server_cpu_us_per_delivered: server
            .cpu_s
            .filter(|_| delivered > 0)
            .map(|cpu| cpu * 1e6 / delivered as f64),
        cpu_pressure_percent: server.pressure_percent,
    }
}

/// Every watcher bets once, at an instant spread evenly over the burst, in a shuffled order: the
/// side is random per account (an account keeps to one side), the amount random in 1..=`bet_max`.
/// Returns how many bets were sent.
async fn burst(
    watchers: &[ClientHandle],
    slot: &Slot,
    options: &HotOptions,
    start: Instant,
) -> u64 {
    let mut rng = SeededRng::new(0x0be7_5000);
    let per_account = options.watchers_per_account.max(1);
    let sides: Vec<Color> = (0..watchers.len().div_ceil(per_account))
        .map(|_| {
            if rng.below(2) == 0 {
                Color::Black
            } else {
                Color::White
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..watchers.len()).collect();
    // Fisher-Yates: bettors of one account do not bet back to back.
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut sent = 0;
    let count = order.len().max(1);
    for (k, &w) in order.iter().enumerate() {
        let due = start + options.bet_burst.mul_f64(k as f64 / count as f64);
        tokio::time::sleep_until(due).await;
        let (Some(watcher), Some(&side)) = (watchers.get(w), sides.get(w / per_account)) else {
            continue;
        };
        let amount = 1 + rng.below(options.bet_max.max(1) as usize) as u64;
        let game = slot.game();
        let msg = MoneyMsg::Bet {
            game,
            side,
            amount: amount.into(),
            key: None,
        };
        watcher.send_at(msg, due, Kind::Bet);
        sent += 1;
    }
    sent
}

/// After the end: wait until every bettor's connection has heard its new balance (as many as bets
/// were accepted, each watcher betting once), or [`BALANCE_WAIT_MAX`].
async fn wait_for_balances(tracker: &HotTracker, metrics: &Metrics, bets_sent: u64) {
    let deadline = Instant::now() + BALANCE_WAIT_MAX;
    while Instant::now() < deadline {
        let answered = tracker.bets_accepted.load(Ordering::Relaxed)
            + Metrics::count(&metrics.bets_after_close_count)
            + metrics.errors().values().sum::<u64>();
        let accepted = tracker.bets_accepted.load(Ordering::Relaxed);
        if answered >= bets_sent && tracker.balance_pushes.load(Ordering::Relaxed) >= accepted {
            return;
        }
        tokio::time::sleep(BALANCE_POLL).await;
    }
}
