//! Profiles over real sockets, on the embedded store and on Redis: a player's profile (the `profile`
//! message and `GET /api/users/{name}`, the same data) equals the games they played: the rating after
//! each rated game, wins and losses by board size, the newest games with their results (and the next
//! page), the events they entered with their place, member since, online or last seen, and the game
//! they are playing now. An unknown name is refused, the same over HTTP.

mod common;

use common::events::{create_event, join_all, play_round};
use common::redis::RedisServer;
use common::{agree_and_start, http_get, start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};

async fn profile(client: &mut Client, username: &str) -> Value {
    let reply = client
        .ok(json!({"type": "profile", "username": username}))
        .await;
    assert_eq!(reply["type"], "profile", "{reply}");
    reply["profile"].clone()
}

/// A game at table 1 between `black` (left) and `white` (right), seated already unless `sit`, that
/// Black resigns when `black_loses`, else White; its id.
async fn resigned_game(
    black: &mut Client,
    white: &mut Client,
    sit: bool,
    black_loses: bool,
) -> u64 {
    let game = if sit {
        start_table_game(black, white, 1).await
    } else {
        agree_and_start(black, white, 1).await
    };
    let loser = if black_loses {
        &mut *black
    } else {
        &mut *white
    };
    loser.ok(json!({"type": "resign", "game": game})).await;
    for client in [black, white] {
        client
            .wait_for(|f| f["game"] == game && f["event"] == "ended")
            .await;
    }
    game
}

/// The profile of `username` once its rating history holds `games` points (the rating is written
/// just after the result is sent).
async fn profile_after(client: &mut Client, username: &str, games: usize) -> Value {
    for _ in 0..200 {
        let profile = profile(client, username).await;
        if profile["rating_history"].as_array().unwrap().len() >= games {
            return profile;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{username}'s rating history never reached {games} games");
}

async fn profiles_equal_the_games_played(server: &TestServer) {
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut carol = server.client().await;
    carol.hello().await;

    let first = resigned_game(&mut alice, &mut bob, true, false).await;
    let second = resigned_game(&mut alice, &mut bob, false, true).await;
    let third = resigned_game(&mut alice, &mut bob, false, false).await;
    let alice_profile = profile_after(&mut carol, "alice", 3).await;
    let bob_profile = profile_after(&mut carol, "bob", 3).await;

    // Two wins and a loss on 9x9, the rating after each, newest game first in the list.
    assert_eq!(
        alice_profile["record"],
        json!([{"size": 9, "wins": 2, "losses": 1, "draws": 0}])
    );
    assert_eq!(
        bob_profile["record"],
        json!([{"size": 9, "wins": 1, "losses": 2, "draws": 0}])
    );
    let history = alice_profile["rating_history"].as_array().unwrap();
    let games: Vec<u64> = history
        .iter()
        .map(|p| p["game"].as_u64().unwrap())
        .collect();
    assert_eq!(games, vec![first, second, third]);
    let ratings: Vec<i64> = history
        .iter()
        .map(|p| p["rating"].as_i64().unwrap())
        .collect();
    assert!(
        ratings[0] > 1500 && ratings[1] < ratings[0] && ratings[2] > ratings[1],
        "{ratings:?}"
    );
    assert_eq!(alice_profile["player"]["rating"], json!(ratings[2]));
    let listed: Vec<(u64, &str)> = alice_profile["recent_games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["game"].as_u64().unwrap(), g["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        vec![(third, "B+R"), (second, "W+R"), (first, "B+R")]
    );
    assert_eq!(alice_profile["player"]["username"], "alice");
    assert!(alice_profile["member_since_ms"].as_u64().unwrap() > 0);
    assert_eq!(alice_profile["online"], true);
    assert_eq!(alice_profile["playing"], json!([]));
    // The next page of the list: the games before the second.
    let page = carol
        .ok(json!({"type": "list_games", "username": "alice", "before": second}))
        .await;
    let page: Vec<u64> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    assert_eq!(page, vec![first]);

    // Found by the start of the name, in any case or width; a name in Chinese by its first character.
    let qisheng = server.player("棋圣").await;
    let found = |reply: Value| -> Vec<String> {
        let players = reply["players"].as_array().unwrap();
        players
            .iter()
            .map(|p| p["username"].as_str().unwrap().to_string())
            .collect()
    };
    let reply = carol
        .ok(json!({"type": "find_players", "prefix": "AL"}))
        .await;
    assert_eq!(found(reply), ["alice"]);
    let reply = carol
        .ok(json!({"type": "find_players", "prefix": "ｂ"}))
        .await;
    assert_eq!(found(reply), ["bob"]);
    let reply = carol
        .ok(json!({"type": "find_players", "prefix": "棋"}))
        .await;
    assert_eq!(found(reply), ["棋圣"]);
    let reply = carol
        .ok(json!({"type": "find_players", "prefix": "zz"}))
        .await;
    assert_eq!(found(reply), Vec::<String>::new());
    assert_eq!(
        profile(&mut carol, "棋圣").await["player"]["username"],
        "棋圣"
    );
    qisheng.close().await;

    // HTTP answers the same data.
    let body = http_get(server.addr, "/api/users/alice", None).await;
    let over_http: Value = serde_json::from_str(body.split("\r\n\r\n").last().unwrap()).unwrap();
    assert_eq!(over_http, profile(&mut carol, "alice").await);
    let missing = http_get(server.addr, "/api/users/nobody-here", None).await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    carol
        .err(
            json!({"type": "profile", "username": "nobody-here"}),
            "no_such_user",
        )
        .await;

    // A game in play shows on the profile; gone, a player is last seen when they left.
    let live = agree_and_start(&mut alice, &mut bob, 1).await;
    assert_eq!(profile(&mut carol, "bob").await["playing"], json!([live]));
    alice.ok(json!({"type": "resign", "game": live})).await;
    bob.close().await;
    let mut seen = Value::Null;
    for _ in 0..200 {
        seen = profile(&mut carol, "bob").await;
        if seen["online"] == false && seen["last_seen_ms"].is_u64() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(seen["online"], false, "{seen}");
    assert!(seen["last_seen_ms"].as_u64().unwrap() >= seen["member_since_ms"].as_u64().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_equals_the_games_played_on_the_embedded_store() {
    let server = TestServer::start().await;
    profiles_equal_the_games_played(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_equals_the_games_played_on_redis() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(redis.config(dir.path())).await;
    profiles_equal_the_games_played(&server).await;
}

/// A round robin of three played to its end: each entrant's profile lists it, finished, with the
/// place its standings give them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_lists_the_events_entered_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = common::events::players(&server, 3).await;
    let spec = json!({"name": "Autumn cup", "format": {"kind": "round_robin", "cycles": 1},
        "settings": common::settings_9x9(), "players_max": 3});
    let (event, _) = create_event(&mut clients[0], spec).await;
    join_all(&mut clients, event).await;
    let open = profile(&mut clients[0], "player2").await;
    assert_eq!(
        open["events"],
        json!([{"event": event, "name": "Autumn cup", "status": "open", "entrants_count": 3}])
    );
    let mut director = server.player_login("player1").await;
    let mut view = Value::Null;
    for _ in 0..3 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    // The player with the larger id resigns every game: player1 first, player3 last.
    assert_eq!(view["summary"]["status"], "finished", "{view}");
    for (name, place) in [("player1", 1), ("player2", 2), ("player3", 3)] {
        let profile = profile(&mut clients[0], name).await;
        assert_eq!(profile["events"][0]["place"], place, "{name}: {profile}");
        assert_eq!(profile["events"][0]["status"], "finished");
    }
}
