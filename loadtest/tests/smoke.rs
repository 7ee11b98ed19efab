//! A small run of the whole generator against a real Tengen server on 127.0.0.1:0 (and then against the
//! baseline): 20 games, half 9x9, three watchers each, for a few seconds. It asserts that everything
//! worked (no errors, moves acknowledged, games ended and restarted, events, chat and bets delivered, the
//! ledger audit clean afterwards), never a timing: timings belong to
//! PERFORMANCE.md runs on a quiet machine.

use std::time::Duration;

use tengen_loadtest::scenario::{self, Options, Results};
use tengen_server::config::{Argon2Params, Config};

/// Games in the smoke run: enough for several at once on both board sizes.
const GAMES: usize = 20;

/// Watchers per game.
const WATCHERS: usize = 3;

/// The measurement window: long enough for a few moves per game and a few chat lines per watcher.
const WINDOW: Duration = Duration::from_secs(3);

/// The admin token the smoke server is started with, for its ledger audit.
const ADMIN_TOKEN: &str = "smoke-admin";

fn options(bet_rate_per_s: f64) -> Options {
    Options {
        games: GAMES,
        watchers: WATCHERS,
        small_percent: 50,
        move_rate_per_s: 4.0,
        chat_rate_per_s: 1.0,
        bet_rate_per_s,
        duration: WINDOW,
        setup_concurrency: 8,
        source_ips: 2,
        progress: false,
        run_tag: "smoke".into(),
        password: "smoke-password".into(),
        server_pids: vec![std::process::id()],
        // Short games, so that in a few seconds games end and their players start new ones.
        moves_max_9: 6,
        moves_max_19: scenario::MAX_MOVES_19,
        watchers_per_account: 0,
        resign_at_end: false,
        hot: None,
    }
}

fn assert_clean(results: &Results) {
    assert!(results.errors.is_empty(), "errors: {:?}", results.errors);
    assert_eq!(results.games, GAMES);
    assert_eq!(results.connections, GAMES * (2 + WATCHERS));
    assert!(results.moves > 0, "{results:?}");
    assert!(results.games_restarted > 0, "{results:?}");
    assert!(results.move_ack.count > 0, "{results:?}");
    assert!(results.move_opponent.count > 0, "{results:?}");
    assert!(results.watcher_event.count > 0, "{results:?}");
    assert!(results.watcher_chat.count > 0, "{results:?}");
    assert!(results.server_rss_kib.is_some_and(|kib| kib > 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_run_against_tengen_and_the_baseline_has_no_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path().to_path_buf());
    // Cheap hashing, as in the server's own tests: registering must not dominate a smoke run.
    config.argon2 = Argon2Params {
        memory_kib: 64,
        passes: 1,
        lanes: 1,
    };
    config.connections_per_ip_max = GAMES * (2 + WATCHERS);
    // As the load runs start the server (`--grant-at-once`, `--registrations-per-ip`): every player
    // registers from loopback and bets at once.
    config.grant_delay_ms = 0;
    config.throttles.register_address.free = u32::MAX;
    config.admin_token = Some(ADMIN_TOKEN.into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (trigger, shutdown) = tengen_server::Shutdown::new();
    let server = tokio::spawn(tengen_server::run(config, listener, shutdown));

    let results = scenario::run(&[addr], options(2.0)).await;
    assert_clean(&results);
    assert!(results.bets_per_s > 0.0, "watchers bet: {results:?}");
    // Every bet, every settlement of the games that ended: the book balances.
    let audit = tengen_loadtest::report::audit(addr, "/api/admin/audit", Some(ADMIN_TOKEN)).await;
    let verdict: serde_json::Value =
        serde_json::from_str(&audit).unwrap_or_else(|_| panic!("{audit}"));
    assert_eq!(verdict["ok"], true, "{verdict}");
    trigger.trigger();
    server.await.unwrap().unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let baseline = tokio::spawn(tengen_loadtest::baseline::serve(listener, stop));
    // The baseline has no spectator pool: the same run without bets.
    let results = scenario::run(&[addr], options(0.0)).await;
    assert_clean(&results);
    stop_tx.send(true).unwrap();
    baseline.await.unwrap();
}
