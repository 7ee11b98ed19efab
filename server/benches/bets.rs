//! Bets per second through the embedded store with durability on (SQLite in WAL mode with
//! `synchronous=FULL`, so every commit is fsynced before it returns), then every game settled and
//! the audit run: it must find the book balanced.
//!
//! Three figures: bets grouped into big batches (one all-or-nothing batch, one fsync, per group); one
//! bet per transaction (bounded by fsync latency); and the server's own path, `Ledger::place_bet`
//! from many games at once (each game's bets one after another, as its actor sends them), which the
//! ledger's group-commit writer gathers into shared commits.
//!
//! `cargo bench -p tengen-server --bench bets` prints both; under `cargo test --all-targets` (no
//! `--bench` flag) it runs a small quick check instead.

use std::sync::Arc;
use std::time::Instant;

use tengen_protocol::{GameId, Points, UserId};
use tengen_rules::Color;
use tengen_server::ledger::book::{Account, Batch, Transfer, TransferKind};
use tengen_server::ledger::pool::Tally;
use tengen_server::ledger::settle::MoneyOutcome;
use tengen_server::ledger::{audit, Ledger};
use tengen_server::store::sqlite::SqliteStore;
use tengen_server::store::{Bookkeeping, StoreHandle};

/// Bettors: each has the starting grant and bets 1 point at a time, so nobody runs out.
const USERS: u64 = 1_000;

/// Every bet is one point, so no bettor runs out.
const ONE_POINT: Points = match Points::new(1) {
    Some(points) => points,
    None => panic!("1 is a number of points"),
};
/// Games the bets are spread over (each settled at the end).
const GAMES: u64 = 100;
/// Bets in one group commit: big enough to amortize the fsync, far under `BATCH_TRANSFERS_MAX`.
const GROUP_COMMIT_BETS: usize = 1_000;

/// Games betting at once through the ledger's writer, and bets each game places one after another.
const CONCURRENT_GAMES: u64 = 500;

struct Sizes {
    grouped_bets: usize,
    single_bets: usize,
    bets_per_concurrent_game: u64,
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
            Color::Black
        } else {
            Color::White
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
            bets_per_concurrent_game: 40,
        }
    } else {
        Sizes {
            grouped_bets: 2_000,
            single_bets: 20,
            bets_per_concurrent_game: 2,
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(dir.path()).unwrap());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _runtime_context = runtime.enter();
    let ledger = Ledger::new(StoreHandle::new(store.clone()), 1_000, 500);
    runtime.block_on(async {
        for user in 1..=USERS {
            ledger.open_account(UserId(user), 0, 0).await.unwrap();
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

    // The server's path: every game places its bets in turn through the ledger, all games at once.
    let started = Instant::now();
    let per_game = sizes.bets_per_concurrent_game;
    let concurrent_bets = runtime.block_on(async {
        let mut games = Vec::new();
        for game in GAMES + 1..=GAMES + CONCURRENT_GAMES {
            let ledger = ledger.clone();
            games.push(tokio::spawn(async move {
                let mut tally = Tally::default();
                for n in 0..per_game {
                    let user = UserId(1 + (game * per_game + n) % USERS);
                    let side = if n % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    if tally
                        .bettor(user)
                        .is_some_and(|backing| backing.side != side)
                    {
                        continue;
                    }
                    ledger
                        .place_bet(GameId(game), &tally, user, side, ONE_POINT)
                        .await
                        .unwrap();
                    tally.add_bet(user, side, 1);
                }
                tally.bets_count()
            }));
        }
        let mut placed = 0;
        for game in games {
            placed += game.await.unwrap();
        }
        placed
    });
    let concurrent_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    runtime.block_on(async {
        for game in 1..=GAMES + CONCURRENT_GAMES {
            let players = [UserId(USERS + 1), UserId(USERS + 2)];
            ledger
                .settle_game(GameId(game), players, MoneyOutcome::Win(Color::Black))
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
        "bets (Ledger::place_bet from {CONCURRENT_GAMES} games at once, group-commit writer): {concurrent_bets} bets in {concurrent_secs:.3} s = {:.0} bets/s",
        concurrent_bets as f64 / concurrent_secs
    );
    println!(
        "settled {} games in {settle_secs:.3} s; audit ok: {} points granted, house {}",
        GAMES + CONCURRENT_GAMES,
        report.granted,
        report.house
    );
}
