//! The event scenario, small, against a real Tengen server on 127.0.0.1:0: 8 entrants, a Swiss
//! event of 3 rounds, 2 watchers a board who bet, short 9x9 games played fast, half of them
//! counted. It asserts that the run completes with every check passing (every pairing heard, every
//! game ended with its result in the event, the standings equal to a recomputation, no pair twice,
//! the entrants' bets refused, no error, a clean ledger audit), never a timing.

use tengen_loadtest::event::{self, EventOptions};
use tengen_loadtest::event_report::EventReport;
use tengen_server::config::{Argon2Params, Config};

/// The admin token the server is started with, for its ledger audit.
const ADMIN_TOKEN: &str = "event-admin";

fn options() -> EventOptions {
    EventOptions {
        players: 8,
        rounds: 3,
        watchers: 2,
        // Each board's two watchers are two bettors on opposite sides, so pools really settle.
        watchers_per_account: 1,
        size: 9,
        moves: 12,
        move_rate_per_s: 20.0,
        bet_rate_per_s: 4.0,
        count_percent: 50,
        seed: 7,
        setup_concurrency: 8,
        source_ips: 2,
        progress: false,
        run_tag: "ev".into(),
        password: "event-password".into(),
        server_pids: vec![std::process::id()],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_swiss_event_runs_to_the_end_with_every_check_passing() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path().to_path_buf());
    // As the smoke test: cheap hashing, every account from loopback, points granted at once.
    config.argon2 = Argon2Params {
        memory_kib: 64,
        passes: 1,
        lanes: 1,
    };
    config.grant_delay_ms = 0;
    config.throttles.register_address.free = u32::MAX;
    config.admin_token = Some(ADMIN_TOKEN.into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (trigger, shutdown) = tengen_server::Shutdown::new();
    let server = tokio::spawn(tengen_server::run(config, listener, shutdown));

    let options = options();
    options.validate().unwrap();
    let results = event::run(&[addr], options).await;
    let audit = tengen_loadtest::report::audit(addr, "/api/admin/audit", Some(ADMIN_TOKEN)).await;
    let report = EventReport::new("small".into(), results, audit, None, true);
    assert!(report.passed(), "{}", report.text());
    let results = &report.tengen;
    assert_eq!(results.checked.games, 12, "{}", report.text());
    assert_eq!(results.pairings_received, 24);
    assert!(results.checked.counted_ends > 0, "{}", report.text());
    assert!(results.move_ack.count > 0 && results.watcher_event.count > 0);
    trigger.trigger();
    server.await.unwrap().unwrap();
}

#[test]
fn options_out_of_bounds_are_refused() {
    let mut options = options();
    options.rounds = 8;
    assert!(
        options.validate().is_err(),
        "8 rounds need more than 8 players"
    );
    let mut options = self::options();
    options.players = 513;
    assert!(options.validate().is_err());
    let mut options = self::options();
    options.size = 10;
    assert!(options.validate().is_err());
    let mut options = self::options();
    options.move_rate_per_s = 0.0;
    assert!(options.validate().is_err());
}

#[tokio::test]
async fn a_run_with_options_out_of_bounds_or_no_server_sets_nothing_up() {
    let mut bad = options();
    bad.players = 1;
    let results = event::run(&["127.0.0.1:9".parse().unwrap()], bad).await;
    assert!(results.setup_error.is_some());
    assert_eq!(results.connections, 0);
    let results = event::run(&[], options()).await;
    assert_eq!(
        results.setup_error.as_deref(),
        Some("no server to run against")
    );
}
