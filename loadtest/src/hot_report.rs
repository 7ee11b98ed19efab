//! The report of a `hot-game` run: Tengen's figures beside the baseline's (same watchers and
//! moves, no bets), the ratios that matter, and PERFORMANCE.md's hot-game targets met or missed.

use std::fmt::Write as _;

use serde::Serialize;

use crate::hot::HotResults;
use crate::metrics::LatencySummary;
use crate::report::Target;

/// Move to the last of the hot game's watchers, p99.
pub const TARGET_FAN_OUT_P99_MS: f64 = 250.0;

/// The same, as a ratio of the baseline's in the same run.
pub const TARGET_FAN_OUT_RATIO: f64 = 1.5;

/// Bets accepted per second during the burst.
pub const TARGET_BETS_PER_S: f64 = 2_000.0;

/// Bet ack p99 during the burst.
pub const TARGET_BET_ACK_P99_MS: f64 = 50.0;

/// From the end to the last bettor's new balance.
pub const TARGET_BALANCE_S: f64 = 2.0;

/// The background games' move ack p99 during the burst.
pub const TARGET_BACKGROUND_ACK_P99_MS: f64 = 20.0;

/// Pool pushes per watcher per second: "at most a few", never one per bet.
pub const TARGET_POOL_PUSHES_PER_S: f64 = 2.0;

/// One side of a hot-game run.
#[derive(Debug, Clone, Serialize)]
pub struct HotSide {
    pub name: String,
    pub results: HotResults,
    /// The ledger audit's answer after the run, or why there is none.
    pub audit: String,
}

/// A whole hot-game run's report.
#[derive(Debug, Clone, Serialize)]
pub struct HotReport {
    pub scenario: String,
    pub tengen: HotSide,
    pub baseline: Option<HotSide>,
    pub targets: Vec<Target>,
}

fn lat(l: &LatencySummary) -> String {
    format!("{:.2}/{:.2}/{:.2}", l.p50_ms, l.p99_ms, l.max_ms)
}

fn lat999(l: &LatencySummary) -> String {
    format!("{:.2}/{:.2}/{:.2}", l.p50_ms, l.p99_ms, l.p999_ms)
}

fn opt(value: Option<f64>, digits: usize) -> String {
    value.map_or("-".into(), |v| format!("{v:.digits$}"))
}

impl HotReport {
    pub fn new(scenario: String, tengen: HotSide, baseline: Option<HotSide>) -> HotReport {
        let targets = targets(&tengen, baseline.as_ref());
        HotReport {
            scenario,
            tengen,
            baseline,
            targets,
        }
    }

    pub fn text(&self) -> String {
        let mut out = format!("scenario: {}\n", self.scenario);
        let sides: Vec<&HotSide> = std::iter::once(&self.tengen)
            .chain(self.baseline.as_ref())
            .collect();
        let _ = write!(out, "{:<46}", "");
        for side in &sides {
            let _ = write!(out, "{:>24}", side.name);
        }
        let _ = writeln!(out, "{:>8}", if sides.len() > 1 { "ratio" } else { "" });
        for (label, value, ratio) in rows() {
            let _ = write!(out, "{label:<46}");
            for side in &sides {
                let _ = write!(out, "{:>24}", value(&side.results));
            }
            match (ratio, self.baseline.as_ref()) {
                (Some(ratio), Some(base)) => {
                    let r = ratio(&self.tengen.results) / ratio(&base.results);
                    let _ = writeln!(out, "{r:>8.2}");
                }
                _ => out.push('\n'),
            }
        }
        for side in &sides {
            let errors = side
                .results
                .errors
                .iter()
                .map(|(c, n)| (format!("hot {c}"), n));
            let background = side.results.background.errors.iter();
            let background = background.map(|(c, n)| (format!("background {c}"), n));
            for (code, count) in errors.chain(background) {
                let _ = writeln!(out, "  {} error {code}: {count}", side.name);
            }
        }
        let _ = writeln!(out, "ledger audit: {}", self.tengen.audit);
        for target in &self.targets {
            let _ = writeln!(
                out,
                "target {:<40} goal {:<16} measured {:<30} {}",
                target.name,
                target.goal,
                target.measured,
                if target.met { "MET" } else { "MISSED" }
            );
        }
        out
    }
}

/// A row: its label, its text for one side, and the figure its ratio divides (if any).
type Row = (
    &'static str,
    fn(&HotResults) -> String,
    Option<fn(&HotResults) -> f64>,
);

fn rows() -> Vec<Row> {
    vec![
        (
            "hot watchers (setup s)",
            |r| format!("{} ({:.1})", r.watchers, r.setup_s),
            None,
        ),
        ("hot move ack ms p50/p99/max", |r| lat(&r.move_ack), None),
        (
            "move -> last watcher ms p50/p99/max",
            |r| lat(&r.fan_out),
            Some(|r| r.fan_out.p99_ms),
        ),
        (
            "  moves measured (some watcher missing)",
            |r| format!("{} ({})", r.fan_out.count, r.fan_out_incomplete),
            None,
        ),
        (
            "  slowest ms (seq, s before the end)",
            |r| {
                let slow = r
                    .fan_out_slowest
                    .iter()
                    .map(|e| format!("{:.0} ({},{:.0})", e.took_ms, e.seq, e.before_end_s));
                slow.collect::<Vec<_>>().join(", ")
            },
            None,
        ),
        (
            "hot watcher event lag ms p50/p99/p99.9",
            |r| lat999(&r.watcher_event),
            Some(|r| r.watcher_event.p99_ms),
        ),
        (
            "bets sent / accepted / after close",
            |r| format!("{}/{}/{}", r.bets_sent, r.bets_accepted, r.bets_after_close),
            None,
        ),
        ("bet ack ms p50/p99/p99.9", |r| lat999(&r.bet_ack), None),
        (
            "bets/s accepted in the burst",
            |r| format!("{:.0}", r.bets_per_s),
            None,
        ),
        (
            "pool pushes per watcher per s",
            |r| format!("{:.2}", r.pool_pushes_per_watcher_per_s),
            None,
        ),
        (
            "balance pushes after the end",
            |r| r.balance_pushes.to_string(),
            None,
        ),
        (
            "end -> last balance push s",
            |r| opt(r.end_to_last_balance_s, 3),
            None,
        ),
        (
            "background games (connections)",
            |r| format!("{} ({})", r.background.games, r.background.connections),
            None,
        ),
        (
            "background move ack ms p50/p99/p99.9",
            |r| lat999(&r.background.move_ack),
            Some(|r| r.background.move_ack.p99_ms),
        ),
        (
            "  during the burst",
            |r| lat999(&r.background_move_ack_burst),
            Some(|r| r.background_move_ack_burst.p99_ms),
        ),
        (
            "delivered messages (hot and background)",
            |r| r.delivered.to_string(),
            Some(|r| r.delivered as f64),
        ),
        (
            "server RSS MiB",
            |r| opt(r.server_rss_kib.map(|k| k as f64 / 1024.0), 1),
            Some(|r| r.server_rss_kib.unwrap_or(0) as f64),
        ),
        (
            "server CPU s",
            |r| opt(r.server_cpu_s, 2),
            Some(|r| r.server_cpu_s.unwrap_or(f64::NAN)),
        ),
        (
            "server CPU us per delivered msg",
            |r| opt(r.server_cpu_us_per_delivered, 1),
            Some(|r| r.server_cpu_us_per_delivered.unwrap_or(f64::NAN)),
        ),
        (
            "machine CPU pressure (some) %",
            |r| opt(r.cpu_pressure_percent, 0),
            None,
        ),
        (
            "errors (hot + background)",
            |r| (r.errors.values().sum::<u64>() + r.background.errors_count()).to_string(),
            None,
        ),
    ]
}

fn target(name: &str, goal: String, measured: String, met: bool) -> Target {
    Target {
        name: name.into(),
        goal,
        measured,
        met,
    }
}

/// The hot-game targets (PERFORMANCE.md).
fn targets(tengen: &HotSide, baseline: Option<&HotSide>) -> Vec<Target> {
    let t = &tengen.results;
    let errors = t.errors.values().sum::<u64>() + t.background.errors_count();
    let mut targets = vec![
        target(
            "move -> last watcher p99",
            format!("<= {TARGET_FAN_OUT_P99_MS} ms"),
            format!("{:.2} ms", t.fan_out.p99_ms),
            t.fan_out.count > 0
                && t.fan_out_incomplete == 0
                && t.fan_out.p99_ms <= TARGET_FAN_OUT_P99_MS,
        ),
        target(
            "bets/s in the burst",
            format!(">= {TARGET_BETS_PER_S}"),
            format!("{:.0}", t.bets_per_s),
            t.bets_per_s >= TARGET_BETS_PER_S,
        ),
        target(
            "bet ack p99",
            format!("<= {TARGET_BET_ACK_P99_MS} ms"),
            format!("{:.2} ms", t.bet_ack.p99_ms),
            t.bet_ack.count > 0 && t.bet_ack.p99_ms <= TARGET_BET_ACK_P99_MS,
        ),
        target(
            "pool pushes per watcher per s",
            format!("<= {TARGET_POOL_PUSHES_PER_S}"),
            format!("{:.2}", t.pool_pushes_per_watcher_per_s),
            t.pool_pushes_per_watcher_per_s <= TARGET_POOL_PUSHES_PER_S,
        ),
        target(
            "end -> last balance push",
            format!("<= {TARGET_BALANCE_S} s"),
            format!(
                "{} s, {} of {} bettors",
                opt(t.end_to_last_balance_s, 3),
                t.balance_pushes,
                t.bets_accepted
            ),
            t.balance_pushes >= t.bets_accepted
                && t.end_to_last_balance_s
                    .is_some_and(|s| s <= TARGET_BALANCE_S),
        ),
        target(
            "background move ack p99 in the burst",
            format!("<= {TARGET_BACKGROUND_ACK_P99_MS} ms"),
            format!("{:.2} ms", t.background_move_ack_burst.p99_ms),
            t.background_move_ack_burst.count > 0
                && t.background_move_ack_burst.p99_ms <= TARGET_BACKGROUND_ACK_P99_MS,
        ),
        target(
            "errors (betting_closed apart)",
            "0".into(),
            errors.to_string(),
            errors == 0,
        ),
        target(
            "ledger audit",
            "ok".into(),
            if tengen.audit.contains("\"ok\":true") {
                "ok"
            } else {
                "not ok or absent"
            }
            .into(),
            tengen.audit.contains("\"ok\":true"),
        ),
    ];
    if let Some(base) = baseline {
        let ratio = t.fan_out.p99_ms / base.results.fan_out.p99_ms;
        targets.push(target(
            "fan-out p99 vs the baseline's",
            format!("<= {TARGET_FAN_OUT_RATIO}x"),
            format!("{ratio:.2}x"),
            ratio <= TARGET_FAN_OUT_RATIO,
        ));
    }
    targets
}
