//! The whole server on the Redis store, against a real redis-server: a live game resumes after the
//! server restarts, and every fortune-point transfer the server acknowledged survives redis-server
//! being killed with SIGKILL (the store then reconnects on its own and the book still balances).

mod common;

use common::money::{assert_audit_clean, balance, bet_placed, wait_settled, ADMIN_TOKEN, GRANT};
use common::redis::RedisServer;
use common::{play, start_table_game, Client, TestServer};
use serde_json::{json, Value};
use tengen_protocol::GameId;
use tengen_server::ledger::book::TransferKind;
use tengen_server::store::redis::RedisStore;
use tengen_server::store::Bookkeeping;

/// A server on `redis` whose admin routes (the audit) answer to [`ADMIN_TOKEN`].
async fn start_server(redis: &RedisServer, dir: &std::path::Path) -> TestServer {
    let mut config = redis.config(dir);
    config.admin_token = Some(ADMIN_TOKEN.into());
    TestServer::start_with(config).await
}

/// A new connection that resumes the session of `token`.
async fn resume(server: &TestServer, token: &str) -> Client {
    let mut client = server.client().await;
    client.hello().await;
    client.ok(json!({"type": "resume", "token": token})).await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_game_on_redis_resumes_after_a_server_restart() {
    let redis = RedisServer::start();
    // The data directory stays empty: everything is in Redis.
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&redis, dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    play(&mut alice, game, 2, 2).await;
    play(&mut bob, game, 6, 6).await;
    let (alice_token, bob_token) = (alice.token.clone().unwrap(), bob.token.clone().unwrap());
    server.stop().await;
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());

    let server = start_server(&redis, dir.path()).await;
    let mut alice = resume(&server, &alice_token).await;
    let state = alice.wait_type("game_state").await["state"].clone();
    assert_eq!(state["game"], game);
    assert_eq!(state["moves_count"], 2);
    assert_eq!(state["to_move"], "black");
    assert_eq!(state["board"][2], "..X......");
    assert_eq!(state["board"][6], "......O..");
    let mut bob = resume(&server, &bob_token).await;
    bob.wait_type("game_state").await;

    // Play goes on from where it was, and the game ends with its record stored.
    play(&mut alice, game, 4, 4).await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    let end = alice
        .wait_for(|f| f["game"] == game && f["event"] == "ended")
        .await;
    assert_eq!(end["outcome"]["sgf"], "B+R");
    let record = alice.ok(json!({"type": "get_record", "game": game})).await;
    let sgf = record["sgf"].as_str().unwrap();
    assert!(sgf.contains("RE[B+R]") && sgf.contains(";B[ee]"), "{sgf}");
    assert_audit_clean(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_points_survive_redis_being_killed() {
    let mut redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&redis, dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    for watcher in [&mut carol, &mut dave] {
        watcher.ok(json!({"type": "watch", "game": game})).await;
    }
    // Every bet below was acknowledged, so each must survive the crash.
    let bets = [(100, "black"), (300, "white"), (20, "black")];
    bet_placed(&mut carol, game, "black", 100).await;
    bet_placed(&mut dave, game, "white", 300).await;
    bet_placed(&mut carol, game, "black", 20).await;

    // A crash: nothing is flushed on the way out. The append-only file is replayed on restart.
    redis.kill();
    redis.restart();

    // The server finds Redis again by itself; every grant and bet is there.
    assert_eq!(balance(&mut carol).await, GRANT - 120);
    assert_eq!(balance(&mut dave).await, GRANT - 300);
    let report = assert_audit_clean(&server).await;
    assert_eq!(report["granted"], 4 * GRANT);
    let store = RedisStore::open(&redis.url(), false).unwrap();
    let stored: Vec<(u64, String)> = store
        .game_transfers(GameId(game))
        .unwrap()
        .into_iter()
        .filter(|transfer| transfer.kind == TransferKind::Bet)
        .map(|transfer| {
            let side = transfer.side.unwrap();
            (transfer.amount, format!("{side:?}").to_lowercase())
        })
        .collect();
    let acknowledged: Vec<(u64, String)> = bets
        .iter()
        .map(|&(amount, side)| (amount, side.to_string()))
        .collect();
    assert_eq!(stored, acknowledged);

    // And it goes on writing: the game ends and the pool is paid out after the crash.
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut carol, game).await;
    assert_eq!(balance(&mut carol).await, GRANT - 120);
    assert!(balance(&mut dave).await > GRANT);
    assert_audit_clean(&server).await;
    server.stop().await;
}

/// The code of a refused request.
async fn refused(client: &mut common::Client, msg: Value) -> String {
    let reply = client.request(msg.clone()).await;
    assert_eq!(reply["type"], "error", "{msg} should be refused: {reply}");
    reply["code"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_game_waits_out_a_redis_outage_and_goes_on() {
    let mut redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&redis, dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    play(&mut alice, game, 2, 2).await;

    redis.kill();
    let white = json!({"type": "play", "game": game, "point": {"col": 6, "row": 6}, "key": "w-1"});
    // The first write may have gone out on a connection Redis just dropped (its outcome unknown);
    // after that the store is known to be down: nothing is done, and the game says so.
    let first = refused(&mut bob, white.clone()).await;
    assert!(
        first == "unavailable" || first == "outcome_unknown",
        "{first}"
    );
    assert_eq!(refused(&mut bob, white.clone()).await, "unavailable");
    let bet = json!({"type": "bet", "game": game, "side": "black", "amount": 10, "key": "b-1"});
    assert_eq!(refused(&mut carol, bet.clone()).await, "unavailable");
    // The game is still there for whoever watches it.
    let state = carol.ok(json!({"type": "watch", "game": game})).await;
    assert_eq!(state["type"], "ack");
    let watched = carol.wait_type("game_state").await;
    assert_eq!(watched["state"]["moves_count"], 1);

    // Redis is back: the same requests go through, once, and play goes on.
    redis.restart();
    bob.ok(white.clone()).await;
    bob.ok(white).await;
    assert_eq!(carol.ok(bet.clone()).await["balance"], GRANT - 10);
    assert_eq!(carol.ok(bet).await["balance"], GRANT - 10);
    play(&mut alice, game, 4, 4).await;
    let record = alice.ok(json!({"type": "get_record", "game": game})).await;
    let sgf = record["sgf"].as_str().unwrap();
    assert!(sgf.contains(";B[cc];W[gg];B[ee]"), "{sgf}");
    alice.ok(json!({"type": "resign", "game": game})).await;
    // One bettor: her bet comes back when the game is settled.
    wait_settled(&mut carol, game).await;
    assert_eq!(balance(&mut carol).await, GRANT);
    assert_audit_clean(&server).await;
    server.stop().await;
}
