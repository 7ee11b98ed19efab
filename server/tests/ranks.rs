//! Ranks that are right everywhere, over real sockets: a declared rank is shown provisional from the
//! start ("5k?"), a player with no rating at all is "?", and when a rated game ends, both players'
//! new ranks reach a third user's hall at once, on the embedded store and across two nodes on Redis;
//! the record keeps the ranks at the game's start, and a table the winner sits at next shows the
//! new rank.

mod common;

use std::time::Instant;

use common::redis::{two_nodes, RedisServer};
use common::{start_table_game, Client, TestServer};
use serde_json::{json, Value};

/// A client that said hello and registered `username`, declaring `rank` when given.
async fn register(server: &TestServer, username: &str, rank: Option<&str>) -> Client {
    let mut client = server.client().await;
    client.hello().await;
    let mut register = json!({"type": "register", "username": username, "password": "password123"});
    if let Some(rank) = rank {
        register["rank"] = json!(rank);
    }
    let reply = client.ok(register).await;
    client.user = reply["user"].as_u64();
    client
}

/// The `hall` frame sent on entering the hall.
async fn enter_hall(client: &mut Client) -> Value {
    let reply = client.ok(json!({"type": "enter_hall"})).await;
    if reply["type"] == "hall" {
        return reply;
    }
    client.wait_type("hall").await
}

/// A player's listing in a `hall` frame's players.
fn listed(hall: &Value, username: &str) -> Value {
    hall["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["username"] == username)
        .cloned()
        .unwrap_or_else(|| panic!("{username} is not listed: {hall}"))
}

/// The next `player_online` push for `username`.
async fn relisted(client: &mut Client, username: &str) -> Value {
    let frame = client
        .wait_for(|f| f["type"] == "player_online" && f["player"]["username"] == username)
        .await;
    frame["player"].clone()
}

/// Alice (declared 5k) and Bob (no rank) play at table 1 of `players_node`; Carol watches the hall
/// from `hall_node`. Bob resigns: Carol hears both new ranks, the record has the ranks at the start,
/// and Alice's next seat shows her new rank.
async fn new_ranks_reach_a_third_users_hall(players_node: &TestServer, hall_node: &TestServer) {
    let mut alice = register(players_node, "alice", Some("5k")).await;
    let mut bob = register(players_node, "bob", None).await;
    let mut carol = register(hall_node, "carol", None).await;
    let hall = enter_hall(&mut carol).await;
    assert_eq!(
        listed(&hall, "alice")["rank"],
        "5k?",
        "declared: provisional"
    );
    assert_eq!(listed(&hall, "bob")["rank"], "?", "no rating at all");
    let alice_before = listed(&hall, "alice")["rating"].as_i64().unwrap();

    let game = start_table_game(&mut alice, &mut bob, 1).await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    let ended = Instant::now();
    let alice_now = relisted(&mut carol, "alice").await;
    let bob_now = relisted(&mut carol, "bob").await;
    let elapsed = ended.elapsed();
    println!("both new ranks reached the hall {elapsed:?} after the resignation");
    assert!(alice_now["rating"].as_i64().unwrap() > alice_before);
    assert!(bob_now["rating"].as_i64().unwrap() < 1500);
    for player in [&alice_now, &bob_now] {
        let rank = player["rank"].as_str().unwrap();
        assert!(rank.len() > 1 && rank.ends_with('?'), "one game: {player}");
    }
    // The pushed listings are the ones the store now holds (a profile reads them from there).
    for (name, pushed) in [("alice", &alice_now), ("bob", &bob_now)] {
        let profile = carol.ok(json!({"type": "profile", "username": name})).await;
        assert_eq!(&profile["profile"]["player"], pushed, "{name}");
    }
    // A hall entered afresh agrees with the pushes.
    let hall = enter_hall(&mut carol).await;
    assert_eq!(listed(&hall, "alice"), alice_now);
    assert_eq!(listed(&hall, "bob"), bob_now);

    let record = alice.ok(json!({"type": "get_record", "game": game})).await;
    let sgf = record["sgf"].as_str().unwrap();
    assert!(sgf.contains("BR[5k?]"), "{sgf}");
    assert!(!sgf.contains("WR["), "no rank at the start: {sgf}");

    // Alice's own connection carries her new listing: the table she sits at next shows it.
    alice.ok(json!({"type": "leave_table", "table": 1})).await;
    let table = alice
        .ok(json!({"type": "sit", "table": 2, "seat": "left"}))
        .await;
    assert_ne!(table["type"], "error");
    let seated = alice
        .wait_for(|f| f["type"] == "table_updated" && f["table"]["table"] == 2)
        .await;
    assert_eq!(seated["table"]["left"], alice_now, "{seated}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_ranks_reach_the_hall_on_the_embedded_store() {
    let server = TestServer::start().await;
    new_ranks_reach_a_third_users_hall(&server, &server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_ranks_reach_the_hall_on_another_node() {
    let redis = RedisServer::start();
    let (_dirs, a, b) = two_nodes(&redis).await;
    // The players on the node that does not run the hall, the watcher on the one that does, and
    // the other way round.
    new_ranks_reach_a_third_users_hall(&b, &a).await;
}
