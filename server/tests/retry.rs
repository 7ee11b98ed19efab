//! Retry-safe requests over real WebSockets (SQLite store): a move, a pass, a resignation, a bet and
//! a stake raise sent twice with the same `key` take effect once, and both sends are answered as the
//! first was; the same key for another request is refused `key_reused`; a retry is still recognised
//! after the server restarts, and after the game ended. Each money test ends with the audit clean.

mod common;

use common::money::{assert_audit_clean, balance, start_server, GRANT};
use common::{point, start_table_game, Client};
use serde_json::{json, Value};

fn play_keyed(game: u64, col: u8, row: u8, key: &str) -> Value {
    json!({"type": "play", "game": game, "point": point(col, row), "key": key})
}

fn bet_keyed(game: u64, side: &str, amount: u64, key: &str) -> Value {
    json!({"type": "bet", "game": game, "side": side, "amount": amount, "key": key})
}

/// The game's moves as its record lists them (`;B[..]` and `;W[..]` nodes).
async fn record_moves(client: &mut Client, game: u64) -> usize {
    let record = client.ok(json!({"type": "get_record", "game": game})).await;
    let sgf = record["sgf"].as_str().unwrap();
    sgf.matches(";B[").count() + sgf.matches(";W[").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_and_a_pass_sent_twice_are_played_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;

    // The retry is answered as the first send was, though the point is now taken and it is Bob's
    // turn: Alice's client never hears `occupied` for its own move.
    alice.ok(play_keyed(game, 2, 2, "move-1")).await;
    alice.ok(play_keyed(game, 2, 2, "move-1")).await;
    assert_eq!(record_moves(&mut alice, game).await, 1);
    // The same key for another point is refused and changes nothing.
    alice
        .err(play_keyed(game, 3, 3, "move-1"), "key_reused")
        .await;
    // Keys are per player: Bob's "move-1" is his own.
    bob.ok(play_keyed(game, 6, 6, "move-1")).await;
    bob.ok(play_keyed(game, 6, 6, "move-1")).await;
    alice
        .ok(json!({"type": "pass", "game": game, "key": "pass-1"}))
        .await;
    alice
        .ok(json!({"type": "pass", "game": game, "key": "pass-1"}))
        .await;
    assert_eq!(record_moves(&mut alice, game).await, 3);
    // Bob still has the move: nothing Alice sent twice was played twice.
    bob.ok(play_keyed(game, 5, 5, "move-2")).await;
    let seq_of =
        |f: &Value, seq: u64| f["type"] == "game_event" && f["game"] == game && f["seq"] == seq;
    let fourth = alice.wait_for(|f| seq_of(f, 4)).await;
    assert_eq!(fourth["color"], "white");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resignation_and_a_bet_sent_again_after_the_game_ended_are_answered_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    let placed = carol.ok(bet_keyed(game, "black", 40, "bet-1")).await;
    assert_eq!(placed["type"], "bet_placed");

    bob.ok(json!({"type": "resign", "game": game, "key": "resign-1"}))
        .await;
    alice
        .wait_for(|f| f["game"] == game && f["event"] == "ended")
        .await;
    // The game is over and its actor gone: the retries are answered from its log and its book.
    bob.ok(json!({"type": "resign", "game": game, "key": "resign-1"}))
        .await;
    bob.err(
        json!({"type": "pass", "game": game, "key": "resign-1"}),
        "key_reused",
    )
    .await;
    let again = carol.ok(bet_keyed(game, "black", 40, "bet-1")).await;
    assert_eq!(again["type"], "bet_placed", "{again}");
    assert_eq!(again["amount"], 40);
    assert_eq!(again["total"], 40);
    carol
        .err(bet_keyed(game, "black", 41, "bet-1"), "key_reused")
        .await;
    // A bet never placed is still refused as betting closed.
    carol
        .err(bet_keyed(game, "black", 40, "bet-2"), "betting_closed")
        .await;
    assert_audit_clean(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bet_and_a_stake_raise_sent_twice_move_points_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;

    let first = carol.ok(bet_keyed(game, "black", 100, "bet-1")).await;
    let second = carol.ok(bet_keyed(game, "black", 100, "bet-1")).await;
    for placed in [&first, &second] {
        assert_eq!(placed["type"], "bet_placed");
        assert_eq!(placed["amount"], 100);
        assert_eq!(placed["total"], 100);
        assert_eq!(placed["balance"], GRANT - 100);
    }
    assert_eq!(balance(&mut carol).await, GRANT - 100);
    carol
        .err(bet_keyed(game, "black", 300, "bet-1"), "key_reused")
        .await;
    carol
        .err(bet_keyed(game, "white", 100, "bet-1"), "key_reused")
        .await;
    // A fresh key is a new bet.
    let added = carol.ok(bet_keyed(game, "black", 10, "bet-2")).await;
    assert_eq!(added["total"], 110);
    let pool = carol.ok(json!({"type": "pool", "game": game})).await;
    assert_eq!(pool["pool"]["total"], 110);

    // Stakes agreed in the game, then one raise sent twice.
    let offer = json!({"type": "stake_offer", "table": 1, "left": 100, "right": 100, "terms": {"kind": "normal"}});
    alice.ok(offer.clone()).await;
    bob.ok(offer).await;
    alice
        .ok(json!({"type": "stake_answer", "table": 1, "agree": true}))
        .await;
    bob.ok(json!({"type": "stake_answer", "table": 1, "agree": true}))
        .await;
    let raise = json!({"type": "stake_raise", "game": game, "amount": 50, "key": "raise-1"});
    bob.ok(raise.clone()).await;
    bob.ok(raise).await;
    bob.err(
        json!({"type": "stake_raise", "game": game, "amount": 60, "key": "raise-1"}),
        "key_reused",
    )
    .await;
    assert_eq!(balance(&mut bob).await, GRANT - 150);
    let pool = bob.ok(json!({"type": "pool", "game": game})).await;
    assert_eq!(pool["pool"]["stake_white"], 150);
    assert_audit_clean(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_is_recognised_after_the_server_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    alice.ok(play_keyed(game, 2, 2, "move-1")).await;
    carol.ok(bet_keyed(game, "white", 70, "bet-1")).await;
    server.stop().await;

    // The answers were lost with the server; the clients send the same requests again.
    let server = start_server(dir.path()).await;
    let mut alice = server.player_login("alice").await;
    alice.wait_type("game_state").await;
    alice.ok(play_keyed(game, 2, 2, "move-1")).await;
    alice
        .err(play_keyed(game, 4, 4, "move-1"), "key_reused")
        .await;
    assert_eq!(record_moves(&mut alice, game).await, 1);
    let mut carol = server.player_login("carol").await;
    let again = carol.ok(bet_keyed(game, "white", 70, "bet-1")).await;
    assert_eq!(again["type"], "bet_placed");
    assert_eq!(again["total"], 70);
    assert_eq!(again["balance"], GRANT - 70);
    assert_eq!(balance(&mut carol).await, GRANT - 70);
    assert_audit_clean(&server).await;
    server.stop().await;
}
