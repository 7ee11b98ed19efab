//! Crashes users could cause: what a panicking connection leaves behind, and an undo
//! after a scoring dispute, over real sockets. The panics are injected through the config's test
//! faults; the rest is the real server.

mod common;

use common::{play, start_table_game, Client, TestServer};
use serde_json::json;

/// The frame that makes a connection's task panic in these tests.
const PANIC_FRAME: &str = "fault: panic this connection";

async fn server_with_faults() -> (TestServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::test_config(dir.path());
    config.fault_panic_on_frame = Some(PANIC_FRAME.to_string());
    (TestServer::start_with(config).await, dir)
}

/// Read until the server closes the socket.
async fn until_closed(client: &mut Client) {
    while client.read_socket().await.is_some() {}
}

/// A connection whose task panics used to leave its user online, in the room and
/// seated (another user got `seat_taken` long after). Its cleanup now runs on the unwind.
#[tokio::test]
async fn a_connection_that_panics_leaves_no_ghost() {
    let (server, _dir) = server_with_faults().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    bob.ok(json!({"type": "enter_hall"})).await;
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    alice
        .ok(json!({"type": "sit", "table": 1, "seat": "left"}))
        .await;
    bob.ok(json!({"type": "join_room", "room": 1})).await;
    bob.err(
        json!({"type": "sit", "table": 1, "seat": "left"}),
        "seat_taken",
    )
    .await;

    alice.send_text(PANIC_FRAME).await;
    until_closed(&mut alice).await;
    // The hall tells everyone in it that Alice went offline, and frees her seat in the same step.
    let alice_id = alice.user;
    bob.wait_for(|f| f["type"] == "player_offline" && f["user"].as_u64() == alice_id)
        .await;
    bob.ok(json!({"type": "sit", "table": 1, "seat": "left"}))
        .await;
    // The server goes on: a new connection works.
    let mut carol = server.player("carol").await;
    carol.ok(json!({"type": "join_room", "room": 1})).await;
    server.stop().await;
}

/// Pass, pass, `resume_play`, three moves, `undo`, `accept_undo`
/// used to kill the game (the players then got `no_such_game`); the move is now taken back and
/// the game goes on.
#[tokio::test]
async fn an_undo_after_a_scoring_dispute_is_taken_back_and_play_goes_on() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    play(&mut alice, game, 4, 4).await;
    bob.ok(json!({"type": "pass", "game": game})).await;
    alice.ok(json!({"type": "pass", "game": game})).await;
    bob.ok(json!({"type": "resume_play", "game": game})).await;
    play(&mut alice, game, 2, 2).await;
    play(&mut bob, game, 6, 6).await;
    play(&mut alice, game, 2, 6).await;
    alice.ok(json!({"type": "undo", "game": game})).await;
    bob.ok(json!({"type": "accept_undo", "game": game})).await;
    let undone = bob
        .wait_for(|f| f["type"] == "game_event" && f["event"] == "undo_accepted")
        .await;
    assert_eq!(undone["to_move"], "black");
    assert_eq!(undone["moves_count"], 5);
    play(&mut alice, game, 6, 2).await;
    play(&mut bob, game, 2, 6).await;
    server.stop().await;
}
