//! Bets per second through the embedded store with durability on (SQLite in WAL mode with
//! `synchronous=FULL`, so every commit is fsynced before it returns), then every game settled and
//! the audit run: it must find the book balanced.
//!
//! Two figures: group commit (many bets in one all-or-nothing batch, one fsync each), and one bet per
//! transaction (what a single game actor does per bet today, bounded by fsync latency).
//!
//! `cargo bench -p tengen-server --bench bets` prints both; under `cargo test --all-targets` (no
//! `--bench` flag) it runs a small quick check instead.

use std::sync::Arc;
use std::time::Instant;

use tengen_protocol::{GameId, UserId};
use tengen_server::ledger::book::{Account, Batch, Transfer, TransferKind};
use tengen_server::ledger::settle::Outcome;
use tengen_server::ledger::{audit, Ledger};
use tengen_server::side::Side;
use tengen_server::store::sqlite::SqliteStore;
use tengen_server::store::{Store, StoreHandle};

/// Bettors: each has the starting grant and bets 1 point at a time, so nobody runs out.
const USERS: u64 = 1_000;
/// Games the bets are spread over (each settled at the end).
const GAMES: u64 = 100;
/// Bets in one group commit: big enough to amortize the fsync, far under `BATCH_TRANSFERS_MAX`.
const GROUP_COMMIT_BETS: usize = 1_000;

struct Sizes {
    grouped_bets: usize,
    single_bets: usize,
}

fn bet(game: u64, n: usize, user: u64) -> Transfer {
    Transfer {
        id: format!("bet:{game}:{n}"),
        from: Account::User(UserId(user)),
        to: Account::Escrow(GameId(game)),
        amount: 1,
        kind: TransferKind::Bet,
        game: Some(GameId(game)),
        side: Some(if user % 2 == 0 {
            Side::Black
        } else {
            Side::White
        }),
        at_ms: 0,
    }
}

/// The `i`-th bet of the run: users and games in rotation, numbered per game.
fn nth_bet(i: usize) -> Transfer {
    let game = 1 + (i as u64 % GAMES);
    let user = 1 + (i as u64 / GAMES) % USERS;
    bet(game, i / GAMES as usize + 1, user)
}

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let sizes = if benchmarking {
        Sizes {
            grouped_bets: 200_000,
            single_bets: 500,
        }
    } else {
        Sizes {
            grouped_bets: 2_000,
            single_bets: 20,
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path()).unwrap());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ledger = Ledger::new(StoreHandle::new(store.clone()), 1_000, 500);
    runtime.block_on(async {
        for user in 1..=USERS {
            ledger.open_account(UserId(user)).await.unwrap();
        }
    });

    let started = Instant::now();
    let mut placed = 0;
    while placed < sizes.grouped_bets {
        let end = (placed + GROUP_COMMIT_BETS).min(sizes.grouped_bets);
        let batch = Batch {
            transfers: (placed..end).map(nth_bet).collect(),
            settlements: Vec::new(),
        };
        store.apply_batch(&batch).unwrap();
        placed = end;
    }
    let grouped_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    for i in placed..placed + sizes.single_bets {
        let batch = Batch {
            transfers: vec![nth_bet(i)],
            settlements: Vec::new(),
        };
        store.apply_batch(&batch).unwrap();
    }
    let single_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    runtime.block_on(async {
        for game in 1..=GAMES {
            let players = [UserId(USERS + 1), UserId(USERS + 2)];
            ledger
                .settle_game(GameId(game), players, Outcome::Win(Side::Black))
                .await
                .unwrap();
        }
    });
    let settle_secs = started.elapsed().as_secs_f64();
    let report = audit(store.as_ref()).unwrap();
    assert!(report.ok, "the audit failed: {report:?}");

    println!(
        "bets (group commit of {GROUP_COMMIT_BETS}, synchronous=FULL): {} bets in {grouped_secs:.3} s = {:.0} bets/s",
        sizes.grouped_bets,
        sizes.grouped_bets as f64 / grouped_secs
    );
    println!(
        "bets (one transaction each, synchronous=FULL): {} bets in {single_secs:.3} s = {:.0} bets/s",
        sizes.single_bets,
        sizes.single_bets as f64 / single_secs
    );
    println!(
        "settled {GAMES} games in {settle_secs:.3} s; audit ok: {} points granted, house {}",
        report.granted, report.house
    );
}
