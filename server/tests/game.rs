//! A whole 9x9 game over real sockets: seating and settings, moves with a capture, a refused ko
//! recapture, refused moves out of turn and in someone else's game, a player reconnecting mid-game,
//! kibitz that never reaches the players, passes, the scoring phase, and the result; a watcher sees
//! every event in order with no gaps.

mod common;

use common::{
    agree_and_start, events_until_end, http_get, play, point, start_table_game, TestServer,
};
use serde_json::{json, Value};

/// Every `game_event` of `game` the client received, reading until the `ended` event.
fn is_kibitz(frame: &Value) -> bool {
    frame["type"] == "chat" && frame["channel"]["kind"] == "kibitz"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_reaches_a_result_and_watchers_see_every_event() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut dave = server.player("dave").await;
    let mut carol = server.client().await;
    carol.hello().await;
    // Watchers at the table are subscribed to its game when it starts; carol has no account.
    carol.ok(json!({"type": "join_table", "table": 1})).await;
    dave.ok(json!({"type": "join_table", "table": 1})).await;

    let game = start_table_game(&mut alice, &mut bob, 1).await;
    for watcher in [&mut carol, &mut dave] {
        let state = watcher
            .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
            .await;
        assert_eq!(state["state"]["phase"], "playing");
        assert_eq!(state["state"]["to_move"], "black");
    }

    // Refusals change nothing.
    bob.err(
        json!({"type": "play", "game": game, "point": point(4, 4)}),
        "not_your_turn",
    )
    .await;
    dave.err(
        json!({"type": "play", "game": game, "point": point(4, 4)}),
        "not_your_game",
    )
    .await;
    dave.err(
        json!({"type": "sit", "table": 1, "seat": "left"}),
        "seat_taken",
    )
    .await;
    alice
        .err(json!({"type": "accept_score", "game": game}), "wrong_phase")
        .await;

    // Build a ko: Black surrounds (4,4) on three sides, White on the other side of (5,4).
    play(&mut alice, game, 4, 3).await; // 1
    play(&mut bob, game, 5, 3).await; // 2
    play(&mut alice, game, 3, 4).await; // 3
    alice
        .err(
            json!({"type": "play", "game": game, "point": point(5, 5)}),
            "not_your_turn",
        )
        .await;
    play(&mut bob, game, 6, 4).await; // 4
    bob.err(
        json!({"type": "play", "game": game, "point": point(4, 3)}),
        "not_your_turn",
    )
    .await;
    alice
        .err(
            json!({"type": "play", "game": game, "point": point(4, 3)}),
            "occupied",
        )
        .await;
    alice
        .err(
            json!({"type": "play", "game": game, "point": point(9, 0)}),
            "off_board",
        )
        .await;
    play(&mut alice, game, 4, 5).await; // 5
    play(&mut bob, game, 5, 5).await; // 6

    // Kibitz: watchers talk; players may not, and never hear it.
    dave.ok(json!({"type": "chat", "channel": {"kind": "kibitz", "game": game}, "text": "white is in trouble"}))
        .await;
    alice
        .err(
            json!({"type": "chat", "channel": {"kind": "kibitz", "game": game}, "text": "am I?"}),
            "not_allowed",
        )
        .await;
    carol
        .err(
            json!({"type": "chat", "channel": {"kind": "kibitz", "game": game}, "text": "hi"}),
            "not_logged_in",
        )
        .await;
    let heard = carol.wait_for(is_kibitz).await;
    assert_eq!(heard["text"], "white is in trouble");
    assert_eq!(heard["from"]["username"], "dave");

    // Bob drops: everyone sees him leave with his forfeit countdown (the 60 s grace, within his
    // clock). He comes back with his token: he gets the whole state, and everyone sees him return.
    let token = bob.token.clone().unwrap();
    let bob_backlog: Vec<Value> = bob.backlog.drain(..).collect();
    bob.close().await;
    let left = carol.peek_event(game, 7).await;
    assert_eq!(left["event"], "player_left");
    assert_eq!(left["color"], "white");
    assert_eq!(left["forfeit_in_ms"], 60_000);
    let mut bob = server.client().await;
    bob.hello().await;
    let session = bob.ok(json!({"type": "resume", "token": token})).await;
    assert_eq!(session["username"], "bob");
    // The state of his game came before the reply, unasked.
    let state = bob.backlog.pop_front().expect("game_state before session");
    assert_eq!(state["type"], "game_state");
    let state = state["state"].clone();
    assert_eq!(state["seq"], 7);
    assert_eq!(state["away"][0]["color"], "white");
    let countdown_ms = state["away"][0]["forfeit_in_ms"].as_u64().unwrap();
    assert!(countdown_ms > 0 && countdown_ms <= 60_000, "{countdown_ms}");
    assert_eq!(state["moves_count"], 6);
    assert_eq!(state["to_move"], "black");
    let board: Vec<&str> = state["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(board[3], "....XO...");
    assert_eq!(board[4], "...X..O..");
    assert_eq!(board[5], "....XO...");

    let back = carol.peek_event(game, 8).await;
    assert_eq!(back["event"], "player_returned");
    play(&mut alice, game, 0, 0).await; // 9
    play(&mut bob, game, 4, 4).await; // 10: White into the ko mouth
    play(&mut alice, game, 5, 4).await; // 11: Black takes the ko
    let capture = carol.peek_event(game, 11).await;
    assert_eq!(capture["event"], "played");
    assert_eq!(capture["captured"], json!([point(4, 4)]));
    // White may not retake at once.
    bob.err(
        json!({"type": "play", "game": game, "point": point(4, 4)}),
        "ko",
    )
    .await;
    play(&mut bob, game, 8, 8).await; // 12: a ko threat elsewhere
    play(&mut alice, game, 4, 4).await; // 13: Black connects
    bob.ok(json!({"type": "pass", "game": game})).await; // 14
    alice.ok(json!({"type": "pass", "game": game})).await; // 15
    let scoring = carol.peek_event(game, 16).await;
    assert_eq!(scoring["event"], "scoring_started");

    // Bob toggles his lone stone; any change clears acceptances; both accept the same marking.
    alice
        .ok(json!({"type": "accept_score", "game": game}))
        .await; // 17
    bob.ok(json!({"type": "toggle_dead", "game": game, "point": point(8, 8)}))
        .await; // 18
    bob.err(
        json!({"type": "toggle_dead", "game": game, "point": point(7, 7)}),
        "not_allowed",
    )
    .await;
    let marked = carol.peek_event(game, 18).await;
    assert_eq!(marked["event"], "dead_marked");
    assert_eq!(marked["by"], "white");
    // An accept of the marking from before the toggle is refused and records nothing: nobody
    // accepts a marking they have not seen. The marking as it now stands is accepted.
    assert_ne!(scoring["dead"], marked["dead"]);
    alice
        .err(
            json!({"type": "accept_score", "game": game, "dead": scoring["dead"]}),
            "marking_changed",
        )
        .await;
    alice
        .ok(json!({"type": "accept_score", "game": game, "dead": marked["dead"]}))
        .await; // 19
    bob.ok(json!({"type": "accept_score", "game": game})).await; // 20, then 21: ended

    // The watcher saw every event, in order, with no gap, ending with the result.
    let events = events_until_end(&mut carol, game).await;
    let all: Vec<Value> = events;
    let seqs: Vec<u64> = all.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=21).collect::<Vec<u64>>());
    let ended = all.last().unwrap();
    let outcome = &ended["outcome"];
    assert_eq!(outcome["reason"], "score");
    let black = outcome["black_count_half_points"].as_u64().unwrap();
    let white = outcome["white_count_half_points"].as_u64().unwrap();
    assert_eq!(black + white, 2 * 81, "area counts cover the board");
    let margin = black as i64 - white as i64 - 15;
    let expected = if margin > 0 {
        format!("B+{}", margin as f64 / 2.0)
    } else {
        format!("W+{}", -margin as f64 / 2.0)
    };
    assert_eq!(outcome["sgf"], expected);

    // Both players got the result; neither ever received kibitz.
    let alice_events = events_until_end(&mut alice, game).await;
    assert_eq!(alice_events.last().unwrap()["outcome"], *outcome);
    let bob_events = events_until_end(&mut bob, game).await;
    assert_eq!(bob_events.last().unwrap()["outcome"], *outcome);
    for frames in [&alice.backlog, &bob.backlog] {
        assert!(!frames.iter().any(is_kibitz));
    }
    assert!(!bob_backlog.iter().any(is_kibitz));
    assert!(!alice_events.iter().any(is_kibitz));

    // The finished game is gone from play and its record can be downloaded.
    alice
        .err(json!({"type": "pass", "game": game}), "no_such_game")
        .await;
    let response = http_get(server.addr, &format!("/api/games/{game}/sgf"), None).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("FF[4]"), "{response}");
    assert!(response.contains(&format!("RE[{}]", outcome["sgf"].as_str().unwrap())));
    assert!(response.contains("PB[alice]") && response.contains("PW[bob]"));
    // The first move (col 4, row 3) and White's stone at (8, 8), in SGF letters.
    assert!(
        response.contains(";B[ed]") && response.contains(";W[ii]"),
        "{response}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_ends_the_game_and_frees_the_table_for_the_next() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 3).await;
    play(&mut alice, game, 2, 2).await;
    // Someone joining the table mid-game is shown the game as it stands.
    let mut late = server.client().await;
    late.hello().await;
    late.ok(json!({"type": "join_table", "table": 3})).await;
    let state = late.wait_type("game_state").await["state"].clone();
    assert_eq!(
        (state["game"].as_u64(), state["seq"].as_u64()),
        (Some(game), Some(1))
    );
    assert_eq!(state["board"][2], "..X......");
    bob.ok(json!({"type": "resign", "game": game})).await;
    let ended = late.wait_event(game, 2).await;
    assert_eq!(ended["event"], "ended");
    let events = events_until_end(&mut alice, game).await;
    let ended = events.last().unwrap();
    assert_eq!(ended["seq"], 2);
    assert_eq!(ended["outcome"]["winner"], "black");
    assert_eq!(ended["outcome"]["reason"], "resignation");
    assert_eq!(ended["outcome"]["sgf"], "B+R");
    assert_eq!(ended["outcome"]["chinese"], "黑中盘胜");
    // The table is free for another game between the same players. (`late` joined during the game,
    // so any update it has without a game came after the end.)
    late.wait_for(|f| {
        f["type"] == "table_updated" && f["table"]["table"] == 3 && f["table"]["game"].is_null()
    })
    .await;
    let second = agree_and_start(&mut alice, &mut bob, 3).await;
    assert_ne!(second, game);
    server.stop().await;
}

/// The players' chat of a game with no table (a direct challenge): both players write and read it,
/// a watcher reads it and may not write in it, and the watchers' kibitz still never reaches the
/// players.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_of_a_challenge_game_chat_and_watchers_read_along() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut dave = server.player("dave").await;
    let bob_id = bob.user.unwrap();
    let settings = common::settings_9x9();
    alice
        .ok(json!({"type": "challenge", "user": bob_id, "settings": settings}))
        .await;
    let challenged = bob.wait_type("challenged").await;
    bob.ok(json!({"type": "accept_challenge", "challenge": challenged["challenge"]}))
        .await;
    let game = alice.wait_type("game_started").await["game"]
        .as_u64()
        .unwrap();
    dave.ok(json!({"type": "watch", "game": game})).await;

    let said = |text: &str| json!({"type": "chat", "channel": {"kind": "game", "game": game}, "text": text});
    let is_players_chat = |f: &Value| f["type"] == "chat" && f["channel"]["kind"] == "game";
    alice.ok(said("have a good game")).await;
    bob.ok(said("you too")).await;
    for client in [&mut alice, &mut bob, &mut dave] {
        let first = client.wait_for(is_players_chat).await;
        assert_eq!(first["text"], "have a good game");
        assert_eq!(first["from"]["username"], "alice");
        let second = client.wait_for(is_players_chat).await;
        assert_eq!(second["text"], "you too");
        assert_eq!(second["from"]["username"], "bob");
    }
    // A watcher reads it but writes in kibitz, which the players never receive.
    dave.err(said("may I?"), "not_your_game").await;
    dave.ok(json!({"type": "chat", "channel": {"kind": "kibitz", "game": game}, "text": "hm"}))
        .await;
    assert_eq!(dave.wait_for(is_kibitz).await["text"], "hm");
    alice.err(said(""), "bad_chat").await;
    // A game's chat never goes through the hall's rooms: an unknown game is refused there.
    alice
        .err(
            json!({"type": "chat", "channel": {"kind": "game", "game": 999}, "text": "hi"}),
            "no_such_game",
        )
        .await;
    alice.ok(json!({"type": "resign", "game": game})).await;
    for client in [&mut alice, &mut bob] {
        events_until_end(client, game).await;
        assert!(!client.backlog.iter().any(is_kibitz));
    }
}
