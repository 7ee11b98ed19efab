//! The report of a run: Tengen's figures, the baseline's, Tengen as a ratio of the baseline, and the
//! targets met or missed; as text for people and as JSON for tools (and PERFORMANCE.md's tables).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use serde::Serialize;

use crate::metrics::LatencySummary;
use crate::scenario::{Options, Results};

/// Move round trip p99 the server must stay under (mover's ack and opponent's event alike).
pub const TARGET_MOVE_P99_MS: f64 = 10.0;

/// Share of the baseline's delivered messages per second Tengen must reach under the same fan-out.
pub const TARGET_DELIVERED_RATIO: f64 = 0.5;

/// Idle logged-in connections one GiB of server RSS must hold (100,000 on one node).
pub const TARGET_IDLE_PER_GIB: f64 = 60_000.0;

/// How long the audit request may take.
const AUDIT_TIMEOUT: Duration = Duration::from_secs(10);

/// One server's side of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub name: String,
    pub results: Results,
    /// Server RSS with every connection open, at the end of the window.
    pub rss_kib: Option<u64>,
    pub rss_per_connection_kib: Option<f64>,
    /// The ledger audit's answer after the run, or why there is none.
    pub audit: String,
}

/// A target and whether it was met.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub name: String,
    pub goal: String,
    pub measured: String,
    pub met: bool,
}

/// The run's parameters as the report shows them.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    pub games: usize,
    pub watchers_per_game: usize,
    pub small_percent: u32,
    pub move_rate_per_s: f64,
    pub chat_rate_per_s: f64,
    pub duration_s: f64,
}

impl From<&Options> for Scenario {
    fn from(options: &Options) -> Scenario {
        Scenario {
            games: options.games,
            watchers_per_game: options.watchers,
            small_percent: options.small_percent,
            move_rate_per_s: options.move_rate_per_s,
            chat_rate_per_s: options.chat_rate_per_s,
            duration_s: options.duration.as_secs_f64(),
        }
    }
}

/// A whole run's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub scenario: Scenario,
    pub tengen: Side,
    pub baseline: Option<Side>,
    /// Tengen divided by the baseline, figure by figure.
    pub ratios: Vec<(String, f64)>,
    pub targets: Vec<Target>,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        f64::NAN
    } else {
        a / b
    }
}

impl Report {
    pub fn new(scenario: Scenario, tengen: Side, baseline: Option<Side>) -> Report {
        let t = &tengen.results;
        let mut ratios = Vec::new();
        if let Some(base) = &baseline {
            let b = &base.results;
            ratios = vec![
                ("moves_per_s".into(), ratio(t.moves_per_s, b.moves_per_s)),
                (
                    "delivered_per_s".into(),
                    ratio(t.delivered_per_s, b.delivered_per_s),
                ),
                (
                    "move_ack_p99".into(),
                    ratio(t.move_ack.p99_ms, b.move_ack.p99_ms),
                ),
                (
                    "move_opponent_p99".into(),
                    ratio(t.move_opponent.p99_ms, b.move_opponent.p99_ms),
                ),
                (
                    "watcher_event_p99".into(),
                    ratio(t.watcher_event.p99_ms, b.watcher_event.p99_ms),
                ),
                (
                    "watcher_chat_p99".into(),
                    ratio(t.watcher_chat.p99_ms, b.watcher_chat.p99_ms),
                ),
            ];
            if let (Some(a), Some(b)) = (tengen.rss_per_connection_kib, base.rss_per_connection_kib)
            {
                ratios.push(("rss_per_connection".into(), ratio(a, b)));
            }
        }
        let move_p99 = t.move_ack.p99_ms.max(t.move_opponent.p99_ms);
        let mut targets = vec![
            Target {
                name: "move round trip p99".into(),
                goal: format!("<= {TARGET_MOVE_P99_MS} ms"),
                measured: format!(
                    "ack {:.2} ms, opponent {:.2} ms",
                    t.move_ack.p99_ms, t.move_opponent.p99_ms
                ),
                met: move_p99 <= TARGET_MOVE_P99_MS && t.move_ack.count > 0,
            },
            Target {
                name: "errors".into(),
                goal: "0".into(),
                measured: t.errors_count().to_string(),
                met: t.errors_count() == 0,
            },
        ];
        if let Some(base) = &baseline {
            let share = ratio(t.delivered_per_s, base.results.delivered_per_s);
            targets.push(Target {
                name: "delivered messages/s vs baseline".into(),
                goal: format!(">= {:.0}%", TARGET_DELIVERED_RATIO * 100.0),
                measured: format!("{:.1}%", share * 100.0),
                met: share >= TARGET_DELIVERED_RATIO,
            });
        }
        Report {
            scenario,
            tengen,
            baseline,
            ratios,
            targets,
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        let s = &self.scenario;
        let _ = writeln!(
            out,
            "scenario: {} games ({}% 9x9, the rest 19x19), {} watchers each, {} moves/s per game, {} chat lines/s per watcher, {} s",
            s.games, s.small_percent, s.watchers_per_game, s.move_rate_per_s, s.chat_rate_per_s, s.duration_s
        );
        let sides: Vec<&Side> = std::iter::once(&self.tengen)
            .chain(self.baseline.as_ref())
            .collect();
        let _ = write!(out, "{:<36}", "");
        for side in &sides {
            let _ = write!(out, "{:>22}", side.name);
        }
        if self.baseline.is_some() {
            let _ = write!(out, "{:>10}", "ratio");
        }
        out.push('\n');
        let row =
            |out: &mut String, label: &str, value: &dyn Fn(&Side) -> String, ratio: Option<f64>| {
                let _ = write!(out, "{label:<36}");
                for side in &sides {
                    let _ = write!(out, "{:>22}", value(side));
                }
                if let Some(ratio) = ratio {
                    let _ = write!(out, "{ratio:>10.2}");
                }
                out.push('\n');
            };
        let r = |name: &str| self.ratios.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        row(
            &mut out,
            "connections",
            &|x| x.results.connections.to_string(),
            None,
        );
        row(
            &mut out,
            "games (restarted in window)",
            &|x| format!("{} ({})", x.results.games, x.results.games_restarted),
            None,
        );
        row(
            &mut out,
            "setup s",
            &|x| format!("{:.1}", x.results.setup_s),
            None,
        );
        row(
            &mut out,
            "moves/s",
            &|x| format!("{:.1}", x.results.moves_per_s),
            r("moves_per_s"),
        );
        let lat = |l: &LatencySummary| format!("{:.2}/{:.2}/{:.2}", l.p50_ms, l.p99_ms, l.p999_ms);
        row(
            &mut out,
            "move ack ms p50/p99/p99.9",
            &|x| lat(&x.results.move_ack),
            r("move_ack_p99"),
        );
        row(
            &mut out,
            "move opponent ms p50/p99/p99.9",
            &|x| lat(&x.results.move_opponent),
            r("move_opponent_p99"),
        );
        row(
            &mut out,
            "watcher event lag ms p50/p99/p99.9",
            &|x| lat(&x.results.watcher_event),
            r("watcher_event_p99"),
        );
        row(
            &mut out,
            "watcher chat lag ms p50/p99/p99.9",
            &|x| lat(&x.results.watcher_chat),
            r("watcher_chat_p99"),
        );
        row(
            &mut out,
            "delivered messages/s",
            &|x| format!("{:.0}", x.results.delivered_per_s),
            r("delivered_per_s"),
        );
        row(
            &mut out,
            "chat lines/s",
            &|x| format!("{:.1}", x.results.chats_per_s),
            None,
        );
        row(
            &mut out,
            "chat lines after their game ended",
            &|x| x.results.chats_after_end.to_string(),
            None,
        );
        row(
            &mut out,
            "bets/s",
            &|x| format!("{:.1}", x.results.bets_per_s),
            None,
        );
        row(
            &mut out,
            "server RSS MiB",
            &|x| {
                x.rss_kib
                    .map_or("-".into(), |kib| format!("{:.1}", kib as f64 / 1024.0))
            },
            None,
        );
        row(
            &mut out,
            "server RSS KiB per connection",
            &|x| {
                x.rss_per_connection_kib
                    .map_or("-".into(), |kib| format!("{kib:.1}"))
            },
            r("rss_per_connection"),
        );
        row(
            &mut out,
            "server CPU (cores busy)",
            &|x| {
                x.results
                    .server_cpu_per_s
                    .map_or("-".into(), |c| format!("{c:.2}"))
            },
            r("server_cpu"),
        );
        row(
            &mut out,
            "server CPU us per delivered msg",
            &|x| {
                x.results
                    .server_cpu_us_per_delivered
                    .map_or("-".into(), |c| format!("{c:.1}"))
            },
            r("server_cpu_per_delivered"),
        );
        row(
            &mut out,
            "machine CPU pressure (some) %",
            &|x| {
                x.results
                    .cpu_pressure_percent
                    .map_or("-".into(), |p| format!("{p:.0}"))
            },
            None,
        );
        row(
            &mut out,
            "errors",
            &|x| x.results.errors_count().to_string(),
            None,
        );
        for side in &sides {
            for (code, count) in &side.results.errors {
                let _ = writeln!(out, "  {} error {code}: {count}", side.name);
            }
        }
        let _ = writeln!(out, "ledger audit: {}", self.tengen.audit);
        let _ = writeln!(
            out,
            "bets: {:.1}/s placed; {} refused because play had just ended (not errors)",
            self.tengen.results.bets_per_s, self.tengen.results.bets_after_close
        );
        for target in &self.targets {
            let _ = writeln!(
                out,
                "target {:<34} goal {:<10} measured {:<28} {}",
                target.name,
                target.goal,
                target.measured,
                if target.met { "MET" } else { "MISSED" }
            );
        }
        out
    }
}

/// The report of an idle-connections run.
#[derive(Debug, Clone, Serialize)]
pub struct IdleReport {
    pub name: String,
    pub connections: usize,
    /// From the first connect to the last login answered: the time to accept them all.
    pub setup_s: f64,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub rss_before_kib: Option<u64>,
    pub rss_after_kib: Option<u64>,
    /// (after − before) / connections.
    pub rss_per_connection_kib: Option<f64>,
    /// Connections per GiB of the server's whole RSS with them open.
    pub connections_per_gib: Option<f64>,
    pub target_met: Option<bool>,
}

impl IdleReport {
    pub fn text(&self) -> String {
        let mib =
            |kib: Option<u64>| kib.map_or("-".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
        format!(
            "{}: {} idle logged-in connections, opened and logged in in {:.1} s; server RSS {} before, {} after; {} KiB per connection; {} connections per GiB of RSS (target {}: {}); errors {:?}\n",
            self.name,
            self.connections,
            self.setup_s,
            mib(self.rss_before_kib),
            mib(self.rss_after_kib),
            self.rss_per_connection_kib.map_or("-".into(), |k| format!("{k:.1}")),
            self.connections_per_gib.map_or("-".into(), |c| format!("{c:.0}")),
            TARGET_IDLE_PER_GIB,
            match self.target_met {
                Some(true) => "MET",
                Some(false) => "MISSED",
                None => "unknown",
            },
            self.errors
        )
    }
}

/// Ask the server's ledger audit endpoint (with the admin token); its JSON verdict, or why there is none.
pub async fn audit(server: SocketAddr, path: &str, token: Option<&str>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let get = async {
        let mut stream = tokio::net::TcpStream::connect(server).await?;
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: {server}\r\n{auth}Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let mut response = String::new();
        stream.read_to_string(&mut response).await?;
        Ok::<String, std::io::Error>(response)
    };
    match tokio::time::timeout(AUDIT_TIMEOUT, get).await {
        Ok(Ok(response)) => {
            let status = response.lines().next().unwrap_or_default().to_string();
            if status.contains(" 200 ") {
                let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
                body.trim().to_string()
            } else {
                format!("not available ({path} answered {status:?}; start the server with --admin-token and pass the same --admin-token here)")
            }
        }
        Ok(Err(err)) => format!("not available ({err})"),
        Err(_) => "not available (timed out)".into(),
    }
}
