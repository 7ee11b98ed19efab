//! The report of an `event` run: the event's checks (pairings, results, standings against a
//! recomputation, no pair twice, entrants' bets refused, errors, the audit) and its timings, beside
//! the baseline's figures for the same number of concurrent games and watchers where they compare
//! (the baseline is the `run` scenario's relay, which has no events: move ack and fan-out, delivered
//! messages, CPU and memory); as text for people and JSON for tools.

use std::fmt::Write as _;

use serde::Serialize;

use crate::event::EventResults;
use crate::metrics::LatencySummary;
use crate::report::Target;
use crate::scenario::Results;

/// A whole event run's report.
#[derive(Debug, Clone, Serialize)]
pub struct EventReport {
    pub scenario: String,
    pub tengen: EventResults,
    /// The ledger audit's answer after the run, or why there is none.
    pub audit: String,
    /// The `run` scenario against the baseline: the same games and watchers, no events, no bets.
    pub baseline: Option<Results>,
    pub checks: Vec<Target>,
}

fn lat(l: &LatencySummary) -> String {
    format!("{:.2}/{:.2}/{:.2}", l.p50_ms, l.p99_ms, l.p999_ms)
}

fn lat_max(l: &LatencySummary) -> String {
    format!("{:.2}/{:.2}/{:.2}", l.p50_ms, l.p99_ms, l.max_ms)
}

fn opt(value: Option<f64>, digits: usize) -> String {
    value.map_or("-".into(), |v| format!("{v:.digits$}"))
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// Whether the audit's answer says the ledger balances.
pub fn audit_ok(audit: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(audit).is_ok_and(|v| v["ok"] == true)
}

fn check(name: &str, goal: &str, measured: String, met: bool) -> Target {
    Target {
        name: name.into(),
        goal: goal.into(),
        measured,
        met,
    }
}

/// The run's checks: each must pass for the run to succeed. `bets_expected` when watchers bet.
pub fn checks(r: &EventResults, audit: &str, bets_expected: bool) -> Vec<Target> {
    let mut checks = play_checks(r);
    checks.extend(outcome_checks(r, audit));
    if bets_expected {
        checks.push(check(
            "watchers' bets placed",
            "> 0",
            r.bets.to_string(),
            r.bets > 0,
        ));
    }
    checks
}

/// The event was set up and played: every round, every pairing heard, every game ended and in it.
fn play_checks(r: &EventResults) -> Vec<Target> {
    let c = &r.checked;
    vec![
        check(
            "setup",
            "complete",
            r.setup_error.clone().unwrap_or_else(|| "complete".into()),
            r.setup_error.is_none(),
        ),
        check(
            "rounds played",
            &format!("{}, finished", r.rounds),
            format!("{}, {}", r.rounds_played, c.final_status),
            r.rounds_played == r.rounds && c.final_status == "finished",
        ),
        check(
            "pairings received",
            "every entrant, every round",
            format!(
                "{} of {}, {} missing",
                r.pairings_received, r.pairings_expected, r.pairings_missing
            ),
            r.pairings_missing == 0
                && r.pairings_expected == r.players as u64 * u64::from(r.rounds),
        ),
        check(
            "games ended",
            "every game",
            format!(
                "{} of {}, {} unfinished",
                c.games_ended, c.games, r.games_unfinished
            ),
            c.games > 0 && c.games_ended == c.games && r.games_unfinished == 0,
        ),
        check(
            "results in the event",
            "every result, as its players saw it",
            format!(
                "{} of {}, {} disagreeing, {} pushes missing",
                c.results_in_event, c.games, c.results_disagreeing, r.standings_missing
            ),
            c.results_in_event == c.games && c.results_disagreeing == 0 && r.standings_missing == 0,
        ),
    ]
}

/// What came of it: the standings, the pairs, the entrants' bets, errors and the ledger.
fn outcome_checks(r: &EventResults, audit: &str) -> Vec<Target> {
    let c = &r.checked;
    vec![
        check(
            "standings vs recomputation",
            "equal, figure by figure",
            match &c.rebuild_error {
                Some(err) => err.clone(),
                None => format!("{} differences", c.standings_differences),
            },
            c.rebuild_error.is_none() && c.standings_match,
        ),
        check(
            "pairs met twice",
            "0",
            c.repeated_pairs.to_string(),
            c.repeated_pairs == 0,
        ),
        check(
            "entrants' bets refused",
            "players_cannot_bet, once a round",
            format!(
                "{} of {} tried{}",
                r.entrant_bets_refused,
                r.entrant_bets_tried,
                others(&r.entrant_bets_other)
            ),
            r.entrant_bets_tried == u64::from(r.rounds)
                && r.entrant_bets_refused == r.entrant_bets_tried,
        ),
        check(
            "errors",
            "0",
            r.errors_count().to_string(),
            r.errors_count() == 0,
        ),
        check(
            "ledger audit",
            "ok",
            if audit_ok(audit) {
                "ok".into()
            } else {
                audit.into()
            },
            audit_ok(audit),
        ),
    ]
}

fn others(list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!(" ({})", list.join("; "))
    }
}

impl EventReport {
    pub fn new(
        scenario: String,
        tengen: EventResults,
        audit: String,
        baseline: Option<Results>,
        bets_expected: bool,
    ) -> EventReport {
        let checks = checks(&tengen, &audit, bets_expected);
        EventReport {
            scenario,
            tengen,
            audit,
            baseline,
            checks,
        }
    }

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.met)
    }

    pub fn text(&self) -> String {
        let mut out = format!("scenario: {}\n", self.scenario);
        let _ = writeln!(
            out,
            "{:<46}{:>24}{:>24}{:>8}",
            "", "tengen (event)", "baseline (run)", "ratio"
        );
        self.event_rows(&mut out);
        self.compared_rows(&mut out);
        for (code, count) in &self.tengen.errors {
            let _ = writeln!(out, "  error {code}: {count}");
        }
        for difference in &self.tengen.checked.differences_shown {
            let _ = writeln!(out, "  standings difference: {difference}");
        }
        let _ = writeln!(out, "ledger audit: {}", self.audit);
        for check in &self.checks {
            let _ = writeln!(
                out,
                "check {:<30} goal {:<36} measured {:<40} {}",
                check.name,
                check.goal,
                check.measured,
                if check.met { "PASS" } else { "FAIL" }
            );
        }
        out
    }

    /// The rows only the event has.
    fn event_rows(&self, out: &mut String) {
        let (t, c) = (&self.tengen, &self.tengen.checked);
        let mut row = |label: &str, value: String| {
            let _ = writeln!(out, "{label:<46}{value:>24}");
        };
        row(
            "connections (setup s)",
            format!("{} ({:.1})", t.connections, t.setup_s),
        );
        row(
            "rounds played (window s)",
            format!("{} ({:.1})", t.rounds_played, t.window_s),
        );
        row(
            "pairings received / expected",
            format!("{}/{}", t.pairings_received, t.pairings_expected),
        );
        row(
            "round start -> pairing ms p50/p99/max",
            lat_max(&t.pairing_delay),
        );
        row(
            "round start -> last pairing ms p50/p99/max",
            lat_max(&t.round_last_pairing),
        );
        row(
            "games ended / paired",
            format!("{}/{}", c.games_ended, c.games),
        );
        row(
            "  counted / black wins / white wins / draws",
            format!(
                "{}/{}/{}/{}",
                c.counted_ends, c.black_wins, c.white_wins, c.draws
            ),
        );
        row(
            "game end -> standings push ms p50/p99/max",
            lat_max(&t.end_to_standings),
        );
        row(
            "standings differences (pairs met twice)",
            format!("{} ({})", c.standings_differences, c.repeated_pairs),
        );
        row(
            "entrants' bets refused / tried",
            format!("{}/{}", t.entrant_bets_refused, t.entrant_bets_tried),
        );
        row(
            "bets placed (after close)",
            format!("{} ({})", t.bets, t.bets_after_close),
        );
        row("bet ack ms p50/p99/p99.9", lat(&t.bet_ack));
        row("moves", t.moves.to_string());
        row(
            "event push at the end, bytes",
            t.event_bytes.map_or("-".into(), |b| b.to_string()),
        );
    }

    /// The rows the baseline has too, with Tengen's ratio to it.
    fn compared_rows(&self, out: &mut String) {
        let t = &self.tengen;
        let b = self.baseline.as_ref();
        let per_s = |count: u64, s: f64| count as f64 / s.max(0.001);
        let delivered_s = per_s(t.delivered, t.window_s);
        let mut row = |label: &str, tengen: String, base: Option<String>, ratio: Option<f64>| {
            let base = base.unwrap_or_else(|| "-".into());
            let ratio = ratio.map_or(String::new(), |r| format!("{r:.2}"));
            let _ = writeln!(out, "{label:<46}{tengen:>24}{base:>24}{ratio:>8}");
        };
        row(
            "move ack ms p50/p99/p99.9",
            lat(&t.move_ack),
            b.map(|b| lat(&b.move_ack)),
            b.and_then(|b| ratio(t.move_ack.p99_ms, b.move_ack.p99_ms)),
        );
        row(
            "watcher event lag ms p50/p99/p99.9",
            lat(&t.watcher_event),
            b.map(|b| lat(&b.watcher_event)),
            b.and_then(|b| ratio(t.watcher_event.p99_ms, b.watcher_event.p99_ms)),
        );
        row(
            "delivered messages/s",
            format!("{delivered_s:.0}"),
            b.map(|b| format!("{:.0}", b.delivered_per_s)),
            b.and_then(|b| ratio(delivered_s, b.delivered_per_s)),
        );
        self.use_rows(out);
    }

    /// The servers' memory and CPU, the machine's pressure, and errors.
    fn use_rows(&self, out: &mut String) {
        let t = &self.tengen;
        let b = self.baseline.as_ref();
        let mut row = |label: &str, tengen: String, base: Option<String>, ratio: Option<f64>| {
            let base = base.unwrap_or_else(|| "-".into());
            let ratio = ratio.map_or(String::new(), |r| format!("{r:.2}"));
            let _ = writeln!(out, "{label:<46}{tengen:>24}{base:>24}{ratio:>8}");
        };
        row(
            "server RSS MiB",
            opt(t.server_rss_kib.map(|k| k as f64 / 1024.0), 1),
            b.map(|b| opt(b.server_rss_kib.map(|k| k as f64 / 1024.0), 1)),
            None,
        );
        row(
            "server CPU s (cores busy)",
            format!(
                "{} ({})",
                opt(t.server_cpu_s, 2),
                opt(t.server_cpu_s.map(|s| s / t.window_s.max(0.001)), 2)
            ),
            b.map(|b| {
                format!(
                    "{} ({})",
                    opt(b.server_cpu_s, 2),
                    opt(b.server_cpu_per_s, 2)
                )
            }),
            None,
        );
        row(
            "server CPU us per delivered msg",
            opt(t.server_cpu_us_per_delivered, 1),
            b.map(|b| opt(b.server_cpu_us_per_delivered, 1)),
            b.and_then(|b| {
                t.server_cpu_us_per_delivered
                    .zip(b.server_cpu_us_per_delivered)
                    .and_then(|(x, y)| ratio(x, y))
            }),
        );
        row(
            "machine CPU pressure (some) %",
            opt(t.cpu_pressure_percent, 0),
            b.map(|b| opt(b.cpu_pressure_percent, 0)),
            None,
        );
        row(
            "errors",
            t.errors_count().to_string(),
            b.map(|b| b.errors_count().to_string()),
            None,
        );
    }
}
