//! The hall over real sockets: live lists (players online, rooms, live games), direct challenges with
//! nigiri, room chat and the players' table chat reaching exactly who they should.

mod common;

use common::{settings_9x9, TestServer};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hall_lists_update_live_and_challenges_start_games() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    alice.ok(json!({"type": "enter_hall"})).await;
    let hall = alice.wait_type("hall").await;
    assert_eq!(hall["players"][0]["username"], "alice");
    assert_eq!(hall["players"][0]["rank"], "?");

    let mut bob = server.player("bob").await;
    let online = alice
        .wait_for(|f| f["type"] == "player_online" && f["player"]["username"] == "bob")
        .await;
    let bob_id = online["player"]["user"].as_u64().unwrap();
    assert_eq!(Some(bob_id), bob.user);

    // A declined challenge is reported to the challenger under its id.
    let mut settings = settings_9x9();
    settings["nigiri"] = json!(true);
    let sent = alice
        .ok(json!({"type": "challenge", "user": bob_id, "settings": settings}))
        .await;
    assert_eq!(sent["type"], "challenge_sent");
    let challenged = bob.wait_type("challenged").await;
    assert_eq!(challenged["from"]["username"], "alice");
    assert_eq!(challenged["challenge"], sent["challenge"]);
    bob.ok(json!({"type": "decline_challenge", "challenge": challenged["challenge"]}))
        .await;
    let declined = alice.wait_type("challenge_declined").await;
    assert_eq!(declined["challenge"], sent["challenge"]);
    bob.err(
        json!({"type": "accept_challenge", "challenge": challenged["challenge"]}),
        "no_such_challenge",
    )
    .await;
    alice
        .err(
            json!({"type": "challenge", "user": 999, "settings": settings}),
            "no_such_user",
        )
        .await;

    // An accepted one starts a game with colours drawn from a recorded seed.
    alice
        .ok(json!({"type": "challenge", "user": bob_id, "settings": settings}))
        .await;
    let challenged = bob.wait_type("challenged").await;
    bob.ok(json!({"type": "accept_challenge", "challenge": challenged["challenge"]}))
        .await;
    let started = alice.wait_type("game_started").await;
    bob.wait_type("game_started").await;
    let game = started["game"].as_u64().unwrap();
    let listed = alice
        .wait_for(|f| f["type"] == "game_listed" && f["game"]["game"] == game)
        .await;
    assert!(listed["game"]["table"].is_null());
    let state = alice
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await["state"]
        .clone();
    let seed = state["nigiri_seed"]
        .as_u64()
        .expect("nigiri records its seed");
    let alice_black = tengen_server::hall::first_takes_black(seed);
    let black = if alice_black { "alice" } else { "bob" };
    assert_eq!(state["black"]["username"], black);
    assert_eq!(started["black"]["username"], black);

    // Whoever is White resigns; the game leaves the list.
    let white = if alice_black { &mut bob } else { &mut alice };
    white.ok(json!({"type": "resign", "game": game})).await;
    alice
        .wait_for(|f| f["type"] == "game_unlisted" && f["game"] == game)
        .await;

    // Going offline is pushed too.
    bob.close().await;
    alice
        .wait_for(|f| f["type"] == "player_offline" && f["user"] == bob_id)
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn room_and_table_chat_reach_exactly_their_audience() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    let room = alice.wait_type("room").await;
    assert_eq!(room["tables"].as_array().unwrap().len(), 20);
    bob.ok(json!({"type": "join_room", "room": 1})).await;
    alice
        .wait_for(|f| f["type"] == "room_joined" && f["player"]["username"] == "bob")
        .await;
    carol.ok(json!({"type": "join_room", "room": 2})).await;
    dave.ok(json!({"type": "join_room", "room": 1})).await;

    alice
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "  anyone for a 9x9?  "}))
        .await;
    let line = bob.wait_type("chat").await;
    assert_eq!(line["text"], "anyone for a 9x9?");
    assert_eq!(line["from"]["username"], "alice");
    dave.wait_type("chat").await;
    // Whoever enters later reads the room's recent lines; another room's are not there.
    let mut erin = server.player("erin").await;
    let entered = erin.ok(json!({"type": "join_room", "room": 1})).await;
    assert_eq!(entered["type"], "ack");
    let room = erin.wait_type("room").await;
    assert_eq!(room["recent_chat"][0]["text"], "anyone for a 9x9?");
    assert_eq!(room["recent_chat"][0]["from"]["username"], "alice");
    let other = carol.wait_type("room").await;
    assert!(other["recent_chat"].is_null(), "{other}");

    // Table chat: only the two seated players; dave watches the table and does not hear it.
    alice
        .ok(json!({"type": "sit", "table": 2, "seat": "left"}))
        .await;
    bob.ok(json!({"type": "sit", "table": 2, "seat": "right"}))
        .await;
    dave.ok(json!({"type": "join_table", "table": 2})).await;
    dave.err(
        json!({"type": "chat", "channel": {"kind": "table", "table": 2}, "text": "hello"}),
        "not_seated",
    )
    .await;
    bob.ok(json!({"type": "chat", "channel": {"kind": "table", "table": 2}, "text": "have a nice game"}))
        .await;
    let line = alice
        .wait_for(|f| f["type"] == "chat" && f["channel"]["kind"] == "table")
        .await;
    assert_eq!(line["text"], "have a nice game");

    // A last room line proves ordering: by the time it arrives, any earlier line would have too.
    alice
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "last"}))
        .await;
    dave.wait_for(|f| f["type"] == "chat" && f["text"] == "last")
        .await;
    assert!(!dave.backlog_has(|f| f["type"] == "chat" && f["channel"]["kind"] == "table"));
    // Carol (room 2) hears her own line, published after all of the above on the same channel.
    carol
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 2}, "text": "room two"}))
        .await;
    let own = carol.wait_type("chat").await;
    assert_eq!(own["text"], "room two");
    assert!(!carol.backlog_has(|f| f["type"] == "chat"));

    // Standing up clears the seat for everyone in the room.
    bob.ok(json!({"type": "stand", "table": 2})).await;
    dave.wait_for(|f| {
        f["type"] == "table_updated" && f["table"]["table"] == 2 && f["table"]["right"].is_null()
    })
    .await;
    server.stop().await;
}
