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

/// Two timed games are cut off by a shutdown in the middle of play; after the restart the players
/// resume, their clocks are where they were (both sides' main time intact: the downtime was charged
/// to no one), and both games finish with the right results and stored records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_cut_off_by_a_restart_finish_with_the_right_results() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    let first = start_table_game(&mut alice, &mut bob, 1).await;
    let second = start_table_game(&mut carol, &mut dave, 2).await;
    alice
        .ok(json!({"type": "play", "game": first, "point": point(4, 4)}))
        .await;
    bob.ok(json!({"type": "play", "game": first, "point": point(2, 2)}))
        .await;
    carol
        .ok(json!({"type": "play", "game": second, "point": point(3, 3)}))
        .await;
    let tokens: Vec<String> = [&alice, &bob, &carol, &dave]
        .iter()
        .map(|c| c.token.clone().unwrap())
        .collect();
    server.stop().await;

    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = Vec::new();
    for token in &tokens {
        let mut client = server.client().await;
        client.hello().await;
        client.ok(json!({"type": "resume", "token": token})).await;
        clients.push(client);
    }
    let [alice, bob, carol, dave] = &mut clients[..] else {
        unreachable!("four clients")
    };
    // The state each player got on resuming: the position and clocks as they were (10 minutes of
    // main time, less at most the seconds this test has run).
    let state = alice.wait_type("game_state").await["state"].clone();
    assert_eq!(
        (state["game"].as_u64(), state["moves_count"].as_u64()),
        (Some(first), Some(2))
    );
    assert_eq!(state["to_move"], "black");
    for color in ["black", "white"] {
        let left = state["clocks"][color]["main_left_ms"].as_u64().unwrap();
        assert!(left > 540_000 && left <= 600_000, "{color}: {left}");
    }
    let state = dave.wait_type("game_state").await["state"].clone();
    assert_eq!(
        (state["game"].as_u64(), state["to_move"].as_str()),
        (Some(second), Some("white"))
    );

    // Game one goes to a count; game two ends by resignation.
    alice.ok(json!({"type": "pass", "game": first})).await;
    bob.ok(json!({"type": "pass", "game": first})).await;
    alice
        .wait_for(|f| f["game"] == first && f["event"] == "scoring_started")
        .await;
    alice
        .ok(json!({"type": "accept_score", "game": first}))
        .await;
    bob.ok(json!({"type": "accept_score", "game": first})).await;
    let end = alice
        .wait_for(|f| f["game"] == first && f["event"] == "ended")
        .await;
    assert_eq!(end["outcome"]["reason"], "score");
    dave.ok(json!({"type": "resign", "game": second})).await;
    let end = carol
        .wait_for(|f| f["game"] == second && f["event"] == "ended")
        .await;
    assert_eq!(end["outcome"]["sgf"], "B+R");
    let record = carol
        .ok(json!({"type": "get_record", "game": second}))
        .await;
    let sgf = record["sgf"].as_str().unwrap();
    assert!(sgf.contains("RE[B+R]") && sgf.contains(";B[dd]"), "{sgf}");
    server.stop().await;
}
