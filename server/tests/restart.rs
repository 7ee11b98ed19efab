//! Durability across a restart: accounts, session tokens and a live game's event log are in the store
//! before anyone is told, so a stopped and restarted server resumes the game where it was.

mod common;

use common::{point, start_table_game, test_config, TestServer};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_game_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    alice
        .ok(json!({"type": "play", "game": game, "point": point(2, 2)}))
        .await;
    bob.ok(json!({"type": "play", "game": game, "point": point(6, 6)}))
        .await;
    alice.ok(json!({"type": "pass", "game": game})).await;
    let (alice_token, bob_token) = (alice.token.clone().unwrap(), bob.token.clone().unwrap());
    server.stop().await;

    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut alice = server.client().await;
    alice.hello().await;
    alice
        .ok(json!({"type": "resume", "token": alice_token}))
        .await;
    // The restored game announced both players away (nobody is connected after a restart); alice
    // got the state as she came back, then sees her own return.
    let state = alice.wait_type("game_state").await["state"].clone();
    assert_eq!(state["seq"], 5);
    assert_eq!(state["away"].as_array().unwrap().len(), 2);
    assert_eq!(state["moves_count"], 3);
    assert_eq!(state["to_move"], "white");
    assert_eq!(state["board"][2], "..X......");
    assert_eq!(state["board"][6], "......O..");

    // The table shows the game and its players again.
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    let room = alice.wait_type("room").await;
    assert_eq!(room["tables"][0]["game"], game);
    assert_eq!(room["tables"][0]["left"]["username"], "alice");

    // Play goes on from the next seq; a pass now ends play (two in a row across the restart).
    let mut bob = server.client().await;
    bob.hello().await;
    assert_eq!(alice.wait_event(game, 6).await["event"], "player_returned");
    bob.ok(json!({"type": "resume", "token": bob_token})).await;
    let back = alice.wait_event(game, 7).await;
    assert_eq!(
        (&back["event"], &back["color"]),
        (&json!("player_returned"), &json!("white"))
    );
    bob.ok(json!({"type": "pass", "game": game})).await;
    let passed = alice.wait_event(game, 8).await;
    assert_eq!(passed["event"], "passed");
    let scoring = alice.wait_event(game, 9).await;
    assert_eq!(scoring["event"], "scoring_started");
    server.stop().await;
}
