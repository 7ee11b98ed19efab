//! `tengen-loadtest`: command-line parsing, starting the baseline server as a child process, and
//! printing the report. Subcommands: `run` (games, watchers and chat against a server, then the same
//! against the baseline), `hot-game` (one game with thousands of betting watchers beside the
//! everyday load, then the same against the baseline), `idle` (idle logged-in connections and RSS per connection),
//! `event` (a Swiss event of many rounds with watchers who bet, checked against a recomputation,
//! beside the baseline's `run` of as many games and watchers), and `baseline-server` (the baseline
//! on its own).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use clap::{Parser, Subcommand};
use tengen_loadtest::event::{self, EventOptions};
use tengen_loadtest::event_report::EventReport;
use tengen_loadtest::hot_report::{HotReport, HotSide};
use tengen_loadtest::report::{self, Report, Side};
use tengen_loadtest::scenario::{self, Options, Results};
use tengen_loadtest::{baseline, hot, idle, rss};

/// The longest the baseline server child lives, whatever happens to its parent.
const BASELINE_LIFETIME_MAX_S: u64 = 3 * 60 * 60;

/// Pause between the baseline's run and Tengen's, so the machine is quiet again.
const BETWEEN_SIDES: Duration = Duration::from_secs(3);

/// Password of every generated account (8..=128 characters, as the server requires).
const PASSWORD: &str = "loadtest-password";

#[derive(Debug, Parser)]
#[command(
    name = "tengen-loadtest",
    version,
    about = "Load generator for the Tengen Go server"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Games with watchers against a running server, then the same against the baseline.
    Run(RunArgs),
    /// The title match: one game with thousands of watchers who bet in its last minute, beside the
    /// everyday background; then the same watchers and moves (no bets) against the baseline.
    HotGame(HotArgs),
    /// Idle logged-in connections: the server's RSS per connection.
    Idle(IdleArgs),
    /// A Swiss event: entrants paired by the event's pushes play every round to the end, watchers
    /// bet; checked against a recomputation of the standings. The baseline runs `run`'s relay with
    /// as many games and watchers first.
    Event(EventArgs),
    /// Serve the baseline (a minimal broadcast server with no game logic) until stdin closes.
    BaselineServer {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
    },
}

#[derive(Debug, Clone, clap::Args)]
struct Target {
    /// A Tengen node (loopback only: 127.0.0.0/8). Repeat to spread clients over several nodes: a
    /// game's Black and White go to different nodes, watchers round-robin, the audit asks the first.
    #[arg(long = "server", default_value = "127.0.0.1:8080")]
    servers: Vec<SocketAddr>,
    /// A node's pid, for RSS and CPU (summed over the nodes); repeatable. When none is given, each
    /// node's pid is found from its listening port.
    #[arg(long = "server-pid")]
    server_pids: Vec<u32>,
    /// Client sockets bind to 127.0.0.1 ..= 127.0.0.N, round-robin.
    #[arg(long, default_value_t = 8)]
    source_ips: u8,
    /// Skip the baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Write the report as JSON here too.
    #[arg(long)]
    json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Debug, Clone, clap::Args)]
struct RunArgs {
    #[command(flatten)]
    target: Target,
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Watchers per game.
    #[arg(long, default_value_t = 10)]
    watchers: usize,
    /// Percent of games on 9x9; the rest are 19x19.
    #[arg(long, default_value_t = 0)]
    small_percent: u32,
    /// Moves per second per game.
    #[arg(long, default_value_t = 1.0)]
    move_rate: f64,
    /// Kibitz lines per second per watcher.
    #[arg(long, default_value_t = 0.1)]
    chat_rate: f64,
    /// One-point bets per second per watcher, into each game's spectator pool (Tengen only).
    #[arg(long, default_value_t = 0.05)]
    bet_rate: f64,
    /// The measurement window in seconds.
    #[arg(long, default_value_t = 30)]
    duration_s: u64,
    /// Slots (two players and their watchers) set up at once.
    #[arg(long, default_value_t = 32)]
    setup_concurrency: usize,
    #[command(flatten)]
    audit: AuditArgs,
}

/// The ledger audit asked after a run (`run`, `hot-game`, `event`).
#[derive(Debug, Clone, clap::Args)]
struct AuditArgs {
    /// The ledger audit endpoint asked after the run.
    #[arg(long, default_value = "/api/admin/audit")]
    audit_path: String,
    /// The server's admin token (its `--admin-token`), which the audit endpoint requires.
    #[arg(long, env = "TENGEN_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
struct HotArgs {
    #[command(flatten)]
    target: Target,
    /// Watchers of the hot game.
    #[arg(long, default_value_t = 20_000)]
    watchers: usize,
    /// Hot watchers' connections per account (1: every watcher is a person of their own).
    #[arg(long, default_value_t = 1)]
    watchers_per_account: usize,
    /// Everyday games beside it (19x19, a move a second, chat and bets as in `run`).
    #[arg(long, default_value_t = 500)]
    background_games: usize,
    /// Watchers per background game.
    #[arg(long, default_value_t = 5)]
    background_watchers: usize,
    /// Seconds between two moves of the hot game.
    #[arg(long, default_value_t = 2.0)]
    move_every_s: f64,
    /// The window; the hot game resigns at its end and settles.
    #[arg(long, default_value_t = 60)]
    duration_s: u64,
    /// The bet burst starts this many seconds before the hot game ends.
    #[arg(long, default_value_t = 30.0)]
    bet_burst_at: f64,
    /// Every hot watcher bets once within this many seconds.
    #[arg(long, default_value_t = 10.0)]
    bet_burst_s: f64,
    /// Bets are 1 to this many points.
    #[arg(long, default_value_t = 10)]
    bet_max: u64,
    /// Kibitz lines per second per background watcher.
    #[arg(long, default_value_t = 0.1)]
    chat_rate: f64,
    /// One-point bets per second per background watcher (Tengen only).
    #[arg(long, default_value_t = 0.05)]
    bet_rate: f64,
    #[arg(long, default_value_t = 32)]
    setup_concurrency: usize,
    #[command(flatten)]
    audit: AuditArgs,
}

#[derive(Debug, Clone, clap::Args)]
struct EventArgs {
    #[command(flatten)]
    target: Target,
    /// Entrants (2 to 512).
    #[arg(long, default_value_t = 64)]
    players: usize,
    /// Swiss rounds (1 to 64, fewer than the players).
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Watchers per board (0 to 1000), who follow its game each round and bet.
    #[arg(long, default_value_t = 10)]
    watchers: usize,
    /// Watcher connections per account (each account bets on one side of a game).
    #[arg(long, default_value_t = 5)]
    watchers_per_account: usize,
    /// Board size: 9, 13 or 19.
    #[arg(long, default_value_t = 19)]
    size: u8,
    /// The longest game in moves (4 to 400); each game's length is drawn from half that up.
    #[arg(long, default_value_t = 60)]
    moves: usize,
    /// Moves per second per game (0.1 to 20).
    #[arg(long, default_value_t = 2.0)]
    move_rate: f64,
    /// One-point bets per second per watcher (0 to 10).
    #[arg(long, default_value_t = 0.05)]
    bet_rate: f64,
    /// Percent of games ended by two passes and a count; the rest by a drawn loser's resignation.
    #[arg(long, default_value_t = 30)]
    count_percent: u32,
    /// Seeds every game's length, ending, loser and moves: the same seed plays the same event.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 32)]
    setup_concurrency: usize,
    /// The baseline's window in seconds (`run` against the baseline: as many games and watchers).
    #[arg(long, default_value_t = 30)]
    baseline_s: u64,
    #[command(flatten)]
    audit: AuditArgs,
}

#[derive(Debug, Clone, clap::Args)]
struct IdleArgs {
    #[command(flatten)]
    target: Target,
    #[arg(long, default_value_t = 10_000)]
    connections: usize,
    /// Connections logged in to each account (one registers, the rest resume).
    #[arg(long, default_value_t = 10)]
    per_account: usize,
    /// Seconds the connections stay idle before the RSS is read.
    #[arg(long, default_value_t = 5)]
    hold_s: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tengen-loadtest: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Cmd::Run(args) => run(args).await,
            Cmd::HotGame(args) => hot_game(args).await,
            Cmd::Idle(args) => idle_run(args).await,
            Cmd::Event(args) => event_run(args).await,
            Cmd::BaselineServer { listen } => serve_baseline(listen).await,
        }
    });
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("tengen-loadtest: {err}");
            ExitCode::from(2)
        }
    }
}

/// A tag unique to this run (hex seconds), so usernames never collide with an earlier run's.
fn run_tag() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{:06x}", secs & 0xff_ffff)
}

fn check_loopback(addr: SocketAddr) -> Result<(), String> {
    if addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "{addr} is not a loopback address; load tests stay on 127.0.0.0/8"
        ))
    }
}

/// The baseline server as a child process of this one (so its CPU and memory are its own, as the
/// Tengen server's are); it exits when our end of its stdin closes.
struct BaselineChild {
    child: Child,
    addr: SocketAddr,
}

impl BaselineChild {
    fn start() -> Result<BaselineChild, String> {
        let exe = std::env::current_exe().map_err(|err| err.to_string())?;
        let mut child = Command::new(exe)
            .args(["baseline-server", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|err| format!("cannot start the baseline: {err}"))?;
        let stdout = child.stdout.take().ok_or("no baseline stdout")?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|err| err.to_string())?;
        let addr = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| format!("the baseline said {line:?}"))?;
        Ok(BaselineChild { child, addr })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for BaselineChild {
    fn drop(&mut self) {
        // Closing stdin asks it to stop; kill is the backstop (our own child, by its handle).
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn serve_baseline(listen: SocketAddr) -> Result<bool, String> {
    check_loopback(listen)?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|err| err.to_string())?;
    let addr = listener.local_addr().map_err(|err| err.to_string())?;
    println!("listening {addr}");
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        // Stop when the parent closes our stdin (or goes away), or after the lifetime bound.
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let mut sink = String::new();
            while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        let _ =
            tokio::time::timeout(Duration::from_secs(BASELINE_LIFETIME_MAX_S), stdin_closed).await;
        let _ = stop_tx.send(true);
    });
    baseline::serve(listener, stop).await;
    Ok(true)
}

/// The nodes' pids: as given, or each found from its listening port (a node not found is left out,
/// and then the summed figures are absent rather than short).
fn server_pids(target: &Target) -> Vec<u32> {
    if !target.server_pids.is_empty() {
        return target.server_pids.clone();
    }
    let found: Vec<u32> = target
        .servers
        .iter()
        .filter_map(|server| rss::pid_listening_on(server.port()))
        .collect();
    // Two ports served by one process count it once.
    let mut unique = found.clone();
    unique.sort_unstable();
    unique.dedup();
    if found.len() < target.servers.len() {
        eprintln!("not every node's pid was found; give --server-pid for each");
        return Vec::new();
    }
    unique
}

/// Every node is on loopback.
fn check_targets(target: &Target) -> Result<(), String> {
    target
        .servers
        .iter()
        .try_for_each(|&server| check_loopback(server))
}

/// The audit endpoint and the admin token for it.
type Audit<'a> = Option<(&'a str, Option<&'a str>)>;

async fn side(name: &str, servers: &[SocketAddr], options: Options, audit: Audit<'_>) -> Side {
    let results: Results = scenario::run(servers, options).await;
    let rss_kib = results.server_rss_kib;
    let rss_per_connection_kib = rss_kib
        .filter(|_| results.connections > 0)
        .map(|kib| kib as f64 / results.connections as f64);
    let audit = match audit {
        // The ledger is one book however many nodes share it: the first node answers for it.
        Some((path, token)) => report::audit(servers[0], path, token).await,
        None => "not applicable".into(),
    };
    Side {
        name: name.into(),
        results,
        rss_kib,
        rss_per_connection_kib,
        audit,
    }
}

async fn run(args: RunArgs) -> Result<bool, String> {
    let target = &args.target;
    check_targets(target)?;
    let options = Options {
        games: args.games,
        watchers: args.watchers,
        small_percent: args.small_percent,
        move_rate_per_s: args.move_rate,
        chat_rate_per_s: args.chat_rate,
        bet_rate_per_s: args.bet_rate,
        duration: Duration::from_secs(args.duration_s),
        setup_concurrency: args.setup_concurrency,
        source_ips: target.source_ips,
        progress: !target.quiet,
        run_tag: run_tag(),
        password: PASSWORD.into(),
        server_pids: Vec::new(),
        moves_max_9: scenario::MAX_MOVES_9,
        moves_max_19: scenario::MAX_MOVES_19,
        watchers_per_account: 0,
        resign_at_end: false,
        hot: None,
    };
    let pids = server_pids(target);
    eprintln!("tengen at {:?} (pids {pids:?})", target.servers);
    // The baseline goes first: after a run the Tengen server still has work to do (every session that
    // closed leaves the hall, which tells the others), and that must not land in the baseline's window.
    let baseline = if target.no_baseline {
        None
    } else {
        let child = BaselineChild::start()?;
        eprintln!("baseline at {} (pid {})", child.addr, child.pid());
        // The baseline has no spectator pool: the same fan-out, without bets.
        let baseline_options = Options {
            server_pids: vec![child.pid()],
            bet_rate_per_s: 0.0,
            ..options.clone()
        };
        // The baseline is always one process: the reference a node is compared with.
        let side = side("baseline", &[child.addr], baseline_options, None).await;
        drop(child);
        tokio::time::sleep(BETWEEN_SIDES).await;
        Some(side)
    };
    let tengen_options = Options {
        server_pids: pids,
        ..options.clone()
    };
    let tengen = side(
        "tengen",
        &target.servers,
        tengen_options,
        Some((&args.audit.audit_path, args.audit.admin_token.as_deref())),
    )
    .await;
    let report = Report::new((&options).into(), tengen, baseline);
    print!("{}", report.text());
    if let Some(path) = &target.json {
        let json = serde_json::to_string_pretty(&report).map_err(|err| err.to_string())?;
        std::fs::write(path, json).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(report.targets.iter().all(|t| t.met))
}

async fn hot_game(args: HotArgs) -> Result<bool, String> {
    let target = &args.target;
    check_targets(target)?;
    let base = Options {
        move_rate_per_s: 1.0,
        chat_rate_per_s: args.chat_rate,
        bet_rate_per_s: args.bet_rate,
        setup_concurrency: args.setup_concurrency,
        source_ips: target.source_ips,
        progress: !target.quiet,
        run_tag: run_tag(),
        password: PASSWORD.into(),
        ..Options::everyday(
            args.background_games,
            args.background_watchers,
            Duration::from_secs(args.duration_s),
        )
    };
    let options = hot::HotOptions {
        watchers: args.watchers,
        watchers_per_account: args.watchers_per_account.max(1),
        background_games: args.background_games,
        background_watchers: args.background_watchers,
        move_every_s: args.move_every_s,
        duration: Duration::from_secs(args.duration_s),
        bet_burst_at: Duration::from_secs_f64(args.bet_burst_at.max(0.0)),
        bet_burst: Duration::from_secs_f64(args.bet_burst_s.max(0.0)),
        bet_max: args.bet_max,
        bets: true,
        base,
    };
    let scenario = format!(
        "hot game: {} watchers ({} per account), a move every {} s, {} s; bets from {} s before the end within {} s, 1..={} points; background {} games x {} watchers",
        args.watchers, options.watchers_per_account, args.move_every_s, args.duration_s,
        args.bet_burst_at, args.bet_burst_s, args.bet_max, args.background_games, args.background_watchers
    );
    let pids = server_pids(target);
    eprintln!("tengen at {:?} (pids {pids:?})", target.servers);
    // The baseline first, as in `run`: the same watchers and moves, without bets.
    let baseline = if target.no_baseline {
        None
    } else {
        let child = BaselineChild::start()?;
        eprintln!("baseline at {} (pid {})", child.addr, child.pid());
        let mut base_options = options.clone();
        base_options.bets = false;
        base_options.base.bet_rate_per_s = 0.0;
        base_options.base.server_pids = vec![child.pid()];
        base_options.base.run_tag = format!("{}b", options.base.run_tag);
        let results = hot::run(&[child.addr], base_options).await;
        drop(child);
        tokio::time::sleep(BETWEEN_SIDES).await;
        Some(HotSide {
            name: "baseline".into(),
            results,
            audit: "not applicable".into(),
        })
    };
    let mut tengen_options = options;
    tengen_options.base.server_pids = pids;
    let results = hot::run(&target.servers, tengen_options).await;
    let audit = report::audit(
        target.servers[0],
        &args.audit.audit_path,
        args.audit.admin_token.as_deref(),
    )
    .await;
    let tengen = HotSide {
        name: "tengen".into(),
        results,
        audit,
    };
    let report = HotReport::new(scenario, tengen, baseline);
    print!("{}", report.text());
    if let Some(path) = &target.json {
        let json = serde_json::to_string_pretty(&report).map_err(|err| err.to_string())?;
        std::fs::write(path, json).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(report.targets.iter().all(|t| t.met))
}

async fn idle_run(args: IdleArgs) -> Result<bool, String> {
    let target = &args.target;
    check_targets(target)?;
    let options = idle::IdleOptions {
        connections: args.connections,
        per_account: args.per_account,
        hold: Duration::from_secs(args.hold_s),
        source_ips: target.source_ips,
        progress: !target.quiet,
        run_tag: run_tag(),
        password: PASSWORD.into(),
    };
    let pids = server_pids(target);
    let tengen = idle::run("tengen", &target.servers, &pids, options.clone()).await;
    print!("{}", tengen.text());
    let mut reports = vec![tengen];
    if !target.no_baseline {
        let child = BaselineChild::start()?;
        let base = idle::run("baseline", &[child.addr], &[child.pid()], options).await;
        drop(child);
        print!("{}", base.text());
        reports.push(base);
    }
    if let Some(path) = &target.json {
        let json = serde_json::to_string_pretty(&reports).map_err(|err| err.to_string())?;
        std::fs::write(path, json).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(reports[0].target_met.unwrap_or(false) && reports[0].errors.is_empty())
}

fn event_options(args: &EventArgs) -> EventOptions {
    EventOptions {
        players: args.players,
        rounds: args.rounds,
        watchers: args.watchers,
        watchers_per_account: args.watchers_per_account.max(1),
        size: args.size,
        moves: args.moves,
        move_rate_per_s: args.move_rate,
        bet_rate_per_s: args.bet_rate,
        count_percent: args.count_percent,
        seed: args.seed,
        setup_concurrency: args.setup_concurrency.max(1),
        source_ips: args.target.source_ips,
        progress: !args.target.quiet,
        run_tag: run_tag(),
        password: PASSWORD.into(),
        server_pids: Vec::new(),
    }
}

/// The baseline's side of an event run: `run` with as many games (boards) and watchers, moving at
/// the same rate, without chat or bets (the relay has neither events nor pools).
fn event_baseline_options(options: &EventOptions, seconds: u64, pid: u32) -> Options {
    Options {
        small_percent: if options.size == 9 { 100 } else { 0 },
        move_rate_per_s: options.move_rate_per_s,
        chat_rate_per_s: 0.0,
        bet_rate_per_s: 0.0,
        setup_concurrency: options.setup_concurrency,
        source_ips: options.source_ips,
        progress: options.progress,
        run_tag: format!("{}b", options.run_tag),
        password: options.password.clone(),
        server_pids: vec![pid],
        moves_max_9: options.moves,
        moves_max_19: options.moves,
        watchers_per_account: options.watchers_per_account,
        ..Options::everyday(
            options.boards(),
            options.watchers,
            Duration::from_secs(seconds),
        )
    }
}

async fn event_run(args: EventArgs) -> Result<bool, String> {
    let target = &args.target;
    check_targets(target)?;
    let mut options = event_options(&args);
    options.validate()?;
    let scenario = format!(
        "Swiss event: {} players, {} rounds, {} watchers a board ({} per account), {}x{}, games of {}..={} moves at {} moves/s, {}% counted, bets {}/s per watcher, seed {}",
        options.players, options.rounds, options.watchers, options.watchers_per_account,
        options.size, options.size, (options.moves / 2).max(1), options.moves,
        options.move_rate_per_s, options.count_percent, options.bet_rate_per_s, options.seed
    );
    options.server_pids = server_pids(target);
    eprintln!(
        "tengen at {:?} (pids {:?})",
        target.servers, options.server_pids
    );
    // The baseline first, as in `run`.
    let baseline = if target.no_baseline {
        None
    } else {
        let child = BaselineChild::start()?;
        eprintln!("baseline at {} (pid {})", child.addr, child.pid());
        let base = event_baseline_options(&options, args.baseline_s, child.pid());
        let results = scenario::run(&[child.addr], base).await;
        drop(child);
        tokio::time::sleep(BETWEEN_SIDES).await;
        Some(results)
    };
    let bets_expected = options.watchers > 0 && options.bet_rate_per_s > 0.0;
    let results = event::run(&target.servers, options).await;
    let audit = report::audit(
        target.servers[0],
        &args.audit.audit_path,
        args.audit.admin_token.as_deref(),
    )
    .await;
    let report = EventReport::new(scenario, results, audit, baseline, bets_expected);
    print!("{}", report.text());
    if let Some(path) = &target.json {
        let json = serde_json::to_string_pretty(&report).map_err(|err| err.to_string())?;
        std::fs::write(path, json).map_err(|err| format!("{}: {err}", path.display()))?;
    }
    Ok(report.passed())
}
