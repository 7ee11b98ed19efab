//! The Redis store against a real redis-server: the conformance suite, the durability check at
//! open, recovery after a restart or a lost function library, concurrency, and junk in Redis.

use super::testing::RedisProcess;
use super::*;
use crate::book::{Account, Applied, Batch, Transfer};
use crate::store::{Accounts, Bookkeeping, GameLog, NewGame};
use tengen_protocol::{GameId, UserId};

fn durable_redis() -> (tempfile::TempDir, RedisProcess) {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisProcess::start(dir.path(), &[]);
    (dir, server)
}

/// A game between users 1 and 2, away from any table.
fn untimed_game(started_at_ms: u64) -> NewGame {
    NewGame {
        black: UserId(1),
        white: UserId(2),
        table: None,
        settings_json: "{}".into(),
        nigiri_seed: None,
        started_at_ms,
    }
}

#[test]
fn redis_passes_the_conformance_suite() {
    let (_dir, server) = durable_redis();
    let store = RedisStore::open(&server.url(), false).unwrap();
    crate::store::conformance(&store);
    // Every applied transfer is in the audit stream, and only those: two grants, the bet, its
    // refund and two of the group commit's three.
    let mut conn = Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let audited: usize = ::redis::cmd("XLEN")
        .arg(keys::LEDGER_AUDIT)
        .query(&mut conn)
        .unwrap();
    assert_eq!(audited, 6);
}

/// Many threads spend from one account at once, each batch through its own pooled
/// connection: the function checks and writes atomically, so exactly the points there were are
/// spent, never more, and each game's events all land.
#[test]
fn concurrent_batches_never_overspend_and_concurrent_appends_all_land() {
    const THREADS: u64 = 8;
    const SPENDS_PER_THREAD: u64 = 20;
    const GRANTED: u64 = 100;
    let (_dir, server) = durable_redis();
    let store = std::sync::Arc::new(RedisStore::open(&server.url(), false).unwrap());
    let spender = Account::User(
        store
            .create_user(&crate::username::name("erin"), "h", 1)
            .unwrap(),
    );
    let transfer = |id: String, from: Account, to: Account, amount: u64| Batch {
        transfers: vec![Transfer {
            id,
            from,
            to,
            amount,
            kind: crate::book::TransferKind::Tax,
            game: None,
            side: None,
            at_ms: 1,
        }],
        settlements: Vec::new(),
    };
    store
        .apply_batch(&transfer("grant".into(), Account::Mint, spender, GRANTED))
        .unwrap();
    let threads: Vec<_> = (0..THREADS)
        .map(|thread| {
            let store = std::sync::Arc::clone(&store);
            let game = store.create_game(&untimed_game(thread)).unwrap();
            std::thread::spawn(move || {
                let mut spent = 0;
                for spend in 1..=SPENDS_PER_THREAD {
                    let id = format!("spend:{thread}:{spend}");
                    match store.apply_batch(&transfer(id, spender, Account::House, 1)) {
                        Ok(Applied::Applied) => spent += 1,
                        Err(StoreError::InsufficientPoints { .. }) => {}
                        other => panic!("{other:?}"),
                    }
                    store.append_event(game, spend, "{}").unwrap();
                }
                (game, spent)
            })
        })
        .collect();
    let mut spent_total = 0;
    for thread in threads {
        let (game, spent) = thread.join().unwrap();
        spent_total += spent;
        assert_eq!(
            crate::store::event_seqs(store.as_ref(), game),
            (1..=SPENDS_PER_THREAD).collect::<Vec<_>>()
        );
    }
    assert_eq!(spent_total, GRANTED);
    assert_eq!(store.balance(spender), Ok(0));
    assert_eq!(store.balance(Account::House), Ok(GRANTED as i64));
}

/// Redis 7.0 has no WAITAOF, so only `appendfsync always` makes an acknowledged write durable.
#[test]
fn open_refuses_a_redis_that_may_lose_writes_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisProcess::start(
        dir.path(),
        &[
            "--appendfsync",
            "everysec",
            "--maxmemory-policy",
            "allkeys-lru",
        ],
    );
    let refusal = RedisStore::open(&server.url(), false)
        .unwrap_err()
        .to_string();
    assert!(refusal.contains("appendfsync is \"everysec\""), "{refusal}");
    assert!(refusal.contains("maxmemory-policy"), "{refusal}");
    assert!(!refusal.contains("appendonly is"), "{refusal}");
    assert!(refusal.contains("--redis-allow-unsafe"), "{refusal}");
    RedisStore::open(&server.url(), true).unwrap();
}

#[test]
fn open_refuses_a_redis_whose_config_command_is_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisProcess::start(dir.path(), &["--rename-command", "CONFIG", ""]);
    let refusal = RedisStore::open(&server.url(), false)
        .unwrap_err()
        .to_string();
    assert!(refusal.contains("CONFIG is probably disabled"), "{refusal}");
    RedisStore::open(&server.url(), true).unwrap();
}

/// The store keeps working across a Redis crash and restart: reads retry on a fresh
/// connection, and the data acknowledged before the crash is there.
#[test]
fn the_store_reconnects_after_redis_restarts() {
    let (_dir, mut server) = durable_redis();
    let store = RedisStore::open(&server.url(), false).unwrap();
    let user = store
        .create_user(&crate::username::name("carol"), "h", 1)
        .unwrap();
    let grant = Batch {
        transfers: vec![Transfer {
            id: "grant:carol".into(),
            from: Account::Mint,
            to: Account::User(user),
            amount: 5,
            kind: crate::book::TransferKind::Grant,
            game: None,
            side: None,
            at_ms: 1,
        }],
        settlements: Vec::new(),
    };
    server.kill();
    // Redis down: a read, and a write that finds no connection, certainly did nothing.
    assert!(matches!(
        store.user_by_id(user),
        Err(StoreError::Unavailable(_))
    ));
    assert!(matches!(
        store.apply_batch(&grant),
        Err(StoreError::Unavailable(_))
    ));
    server.restart();
    assert_eq!(store.user_by_name("carol").unwrap().unwrap().id, user);
    // Writes work too, and the library of functions is there again.
    assert_eq!(store.apply_batch(&grant), Ok(Applied::Applied));
    // After a quiet spell the idle connection is checked before use; the write does not fail.
    server.restart();
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    assert_eq!(store.apply_batch(&grant), Ok(Applied::AlreadyApplied));
    assert_eq!(store.balance(Account::User(user)), Ok(5));
}

/// A library lost by Redis (FUNCTION FLUSH, or a restart without persistence) is loaded again
/// on the next call instead of failing every call until the server restarts.
#[test]
fn lost_functions_are_loaded_again() {
    let (_dir, server) = durable_redis();
    let store = RedisStore::open(&server.url(), false).unwrap();
    let game = store.create_game(&untimed_game(1)).unwrap();
    let client = Client::open(server.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    ::redis::cmd("FUNCTION")
        .arg("FLUSH")
        .exec(&mut conn)
        .unwrap();
    store.append_event(game, 1, "first").unwrap();
    ::redis::cmd("FUNCTION")
        .arg("FLUSH")
        .exec(&mut conn)
        .unwrap();
    assert_eq!(
        store.apply_batches(&[Batch::default()]).unwrap(),
        vec![Ok(Applied::AlreadyApplied)]
    );
    assert_eq!(store.game_events(game).unwrap(), vec![(1, "first".into())]);
}

/// Scaled out, a node logs a game's events only while the game's owner is still the lease it holds:
/// once another node has claimed the game, its appends are refused and the log is left alone.
#[test]
fn an_append_under_a_lost_lease_is_refused() {
    let (_dir, server) = durable_redis();
    let fences = Fences::default();
    let store = RedisStore::open(&server.url(), false)
        .unwrap()
        .with_fences(fences.clone());
    let game = store.create_game(&untimed_game(1)).unwrap();
    let mut conn = Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let set_owner = |conn: &mut Connection, owner: &str| {
        ::redis::cmd("SET")
            .arg(keys::game_owner(game))
            .arg(owner)
            .exec(conn)
            .unwrap();
    };
    set_owner(&mut conn, "00000000000000aa 1");
    fences.set(game, "00000000000000aa 1".into());
    store.append_event(game, 1, "first").unwrap();
    // Another node takes the game over (a new owner and a larger fence).
    set_owner(&mut conn, "00000000000000bb 2");
    let refused = store.append_event(game, 2, "stale").unwrap_err();
    assert_eq!(refused, StoreError::NotOwner(game));
    assert_eq!(store.game_events(game).unwrap(), vec![(1, "first".into())]);
    // Without a fence (one node, or the store used by the audit) appends are not checked.
    fences.clear(game);
    store.append_event(game, 2, "second").unwrap();
}

/// Junk where the store expects its own records is a backend error, never a panic.
#[test]
fn junk_in_redis_is_a_backend_error() {
    let (_dir, server) = durable_redis();
    let store = RedisStore::open(&server.url(), false).unwrap();
    let client = Client::open(server.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let junk = |key: &str, fields: &[(&str, &str)]| {
        let mut conn = client.get_connection().unwrap();
        ::redis::cmd("HSET")
            .arg(key)
            .arg(fields)
            .exec(&mut conn)
            .unwrap();
    };
    junk(&keys::game(GameId(7)), &[("black", "x"), ("white", "2")]);
    ::redis::cmd("ZADD")
        .arg(keys::LIVE_GAMES)
        .arg(7)
        .arg(7)
        .exec(&mut conn)
        .unwrap();
    assert!(matches!(store.live_games(), Err(StoreError::Backend(_))));
    junk(&keys::game_events(GameId(8)), &[("one", "{}")]);
    assert!(matches!(
        store.game_events(GameId(8)),
        Err(StoreError::Backend(_))
    ));
    junk(keys::LEDGER_BALANCES, &[("user:1", "lots")]);
    assert!(matches!(
        store.balance(Account::User(UserId(1))),
        Err(StoreError::Backend(_))
    ));
    assert!(matches!(
        store.account_balances(),
        Err(StoreError::Backend(_))
    ));
    junk(keys::GLICKO, &[("3", "1500 350")]);
    junk(
        &keys::user(UserId(3)),
        &[("username", "dora"), ("password_hash", "h")],
    );
    assert!(matches!(
        store.user_by_id(UserId(3)),
        Err(StoreError::Backend(_))
    ));
    ::redis::cmd("SET")
        .arg(keys::LEDGER_GRANTED)
        .arg("many")
        .exec(&mut conn)
        .unwrap();
    assert!(matches!(store.granted_total(), Err(StoreError::Backend(_))));
    // A key of the wrong type: Redis refuses the command, which is a backend error too.
    ::redis::cmd("SET")
        .arg(keys::game_events(GameId(9)))
        .arg("x")
        .exec(&mut conn)
        .unwrap();
    assert!(matches!(
        store.game_events(GameId(9)),
        Err(StoreError::Backend(_))
    ));
}

/// A user's set of session digests (kept for "log out everywhere") loses each session as it is
/// logged out or purged, so it never grows with sessions long gone.
#[test]
fn a_users_session_set_forgets_logged_out_and_expired_sessions() {
    let (_dir, server) = durable_redis();
    let store = RedisStore::open(&server.url(), false).unwrap();
    let user = store
        .create_user(&crate::username::name("kate"), "hash", 1)
        .unwrap();
    store.create_session("gone", user, 100).unwrap();
    store.create_session("out", user, 5000).unwrap();
    store.create_session("kept", user, 5000).unwrap();
    store.delete_session("out").unwrap();
    assert_eq!(store.purge_sessions(200), Ok(1));
    let client = Client::open(server.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let left: Vec<String> = ::redis::cmd("SMEMBERS")
        .arg(keys::user_sessions(user))
        .query(&mut conn)
        .unwrap();
    assert_eq!(left, vec!["kept".to_string()]);
}
