//! What a run measures, shared by every client task of one run: latency histograms (HdrHistogram, in
//! microseconds), counters, and errors by code. Recording happens only inside the measurement window,
//! so setup (accounts, pairing) never pollutes the figures. Each histogram sits behind its own mutex:
//! a record is tens of nanoseconds and tens of thousands a second at most, so contention is negligible,
//! while one shared histogram instead of one per connection keeps the generator's memory small.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::time::Instant;

/// Largest latency a histogram tracks: one minute, far beyond any timeout of the run; larger values
/// are clamped to it (and would show as a p99.9 of a minute, which no one could miss).
const LATENCY_MAX_US: u64 = 60_000_000;

/// Significant decimal digits the histograms keep: 0.1% resolution at any magnitude.
const LATENCY_SIGFIGS: u8 = 3;

/// A latency histogram in microseconds.
#[derive(Debug)]
pub struct Latency(Mutex<Histogram<u64>>);

impl Default for Latency {
    fn default() -> Self {
        Latency::new()
    }
}

impl Latency {
    pub fn new() -> Latency {
        let histogram = Histogram::new_with_bounds(1, LATENCY_MAX_US, LATENCY_SIGFIGS)
            .expect("valid histogram bounds");
        Latency(Mutex::new(histogram))
    }

    pub fn record(&self, latency: Duration) {
        let us = (latency.as_micros() as u64).clamp(1, LATENCY_MAX_US);
        let mut histogram = self.0.lock().unwrap_or_else(|p| p.into_inner());
        histogram.saturating_record(us);
    }

    /// Count, p50, p99, p99.9 and max, in milliseconds.
    pub fn summary(&self) -> LatencySummary {
        let histogram = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let ms = |us: u64| us as f64 / 1000.0;
        LatencySummary {
            count: histogram.len(),
            p50_ms: ms(histogram.value_at_quantile(0.5)),
            p99_ms: ms(histogram.value_at_quantile(0.99)),
            p999_ms: ms(histogram.value_at_quantile(0.999)),
            max_ms: ms(histogram.max()),
        }
    }
}

/// Percentiles of one latency histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

/// Everything one run counts.
#[derive(Debug)]
pub struct Metrics {
    /// The run's time origin: intended send times travel between tasks as nanoseconds since it.
    pub epoch: Instant,
    measuring: AtomicBool,
    /// From a move's intended send time to the mover's `ack`.
    pub move_ack: Latency,
    /// From a move's intended send time to the opponent receiving its `game_event`.
    pub move_opponent: Latency,
    /// From a move's intended send time to each watcher receiving its `game_event`.
    pub watcher_event: Latency,
    /// From a chat line's intended send time to each watcher receiving it.
    pub watcher_chat: Latency,
    /// From a bet's intended send time to its `bet_placed`.
    pub bet_ack: Latency,
    /// [`Metrics::move_ack`] of the moves meant to be sent inside the burst window (see
    /// [`Metrics::set_burst`]): what a bet burst elsewhere does to everyone else's games.
    pub move_ack_burst: Latency,
    /// The burst window, as nanoseconds since the epoch (start, end); 0, 0 for none.
    burst: (AtomicU64, AtomicU64),
    /// Moves acknowledged.
    pub moves_count: AtomicU64,
    /// Chat lines acknowledged.
    pub chats_count: AtomicU64,
    /// Chat lines that reached their game just after it ended (answered `no_such_game`): a race every
    /// real client has too, so not an error.
    pub chats_after_end_count: AtomicU64,
    /// Bets acknowledged (`bet_placed`).
    pub bets_count: AtomicU64,
    /// Bets that reached a game whose play had just ended: refused as `betting_closed`, as for a
    /// person clicking at that moment; counted apart, not as errors.
    pub bets_after_close_count: AtomicU64,
    /// Frames received by all clients.
    pub delivered_count: AtomicU64,
    /// Games finished and started again during the window.
    pub games_restarted_count: AtomicU64,
    /// Errors by code: the server's `error` codes, and the generator's own (`timeout`, `closed`, ...).
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics {
            epoch: Instant::now(),
            measuring: AtomicBool::new(false),
            move_ack: Latency::new(),
            move_opponent: Latency::new(),
            watcher_event: Latency::new(),
            watcher_chat: Latency::new(),
            bet_ack: Latency::new(),
            move_ack_burst: Latency::new(),
            burst: (AtomicU64::new(0), AtomicU64::new(0)),
            moves_count: AtomicU64::new(0),
            chats_count: AtomicU64::new(0),
            chats_after_end_count: AtomicU64::new(0),
            bets_count: AtomicU64::new(0),
            bets_after_close_count: AtomicU64::new(0),
            delivered_count: AtomicU64::new(0),
            games_restarted_count: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn set_measuring(&self, on: bool) {
        self.measuring.store(on, Ordering::SeqCst);
    }

    pub fn measuring(&self) -> bool {
        self.measuring.load(Ordering::Relaxed)
    }

    /// Moves meant to be sent from `start` until `end` also count in [`Metrics::move_ack_burst`].
    pub fn set_burst(&self, start: Instant, end: Instant) {
        self.burst.0.store(self.nanos(start), Ordering::SeqCst);
        self.burst.1.store(self.nanos(end), Ordering::SeqCst);
    }

    /// Whether `at` falls in the burst window.
    pub fn in_burst(&self, at: Instant) -> bool {
        let nanos = self.nanos(at);
        nanos >= self.burst.0.load(Ordering::Relaxed)
            && nanos < self.burst.1.load(Ordering::Relaxed)
    }

    /// Nanoseconds since the epoch, the form in which intended times are shared (0 means "unknown").
    pub fn nanos(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_nanos() as u64 + 1
    }

    /// The instant `nanos` stands for.
    pub fn instant(&self, nanos: u64) -> Instant {
        self.epoch + Duration::from_nanos(nanos.saturating_sub(1))
    }

    /// Count an error. Errors count whether or not the window is open: a setup that fails is a failure.
    pub fn error(&self, code: &str) {
        let mut errors = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        *errors.entry(code.to_string()).or_insert(0) += 1;
    }

    pub fn errors(&self) -> BTreeMap<String, u64> {
        self.errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn count(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}
