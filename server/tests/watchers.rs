//! Who watches a game: people, not sockets. Watchers join and leave a live game; its players and its
//! watchers are told the list and the exact count, a user on two connections is one watcher, a guest
//! is counted without a name, a player's own connections are never watching, and the hall's listing
//! agrees.

mod common;

use common::{play, start_table_game, Client, TestServer};
use serde_json::{json, Value};

/// The names a `watchers` frame or a game state lists, in order.
fn names(msg: &Value) -> Vec<String> {
    msg["watchers"]
        .as_array()
        .expect("a watchers list")
        .iter()
        .map(|p| p["username"].as_str().unwrap().to_string())
        .collect()
}

/// (count, anonymous count, names) of a `watchers` frame or a game state.
fn seen(msg: &Value) -> (u64, u64, Vec<String>) {
    (
        msg["watchers_count"].as_u64().unwrap(),
        msg["anonymous_watchers_count"].as_u64().unwrap(),
        names(msg),
    )
}

fn list(count: u64, anonymous: u64, names: &[&str]) -> (u64, u64, Vec<String>) {
    (
        count,
        anonymous,
        names.iter().map(|name| name.to_string()).collect(),
    )
}

/// `client` watches `game`; the snapshot it gets first.
async fn watch(client: &mut Client, game: u64) -> Value {
    client.ok(json!({"type": "watch", "game": game})).await;
    let state = client
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    state["state"].clone()
}

/// The next `watchers` push of `game` that `client` receives, checked to be no game event.
async fn next_watchers(client: &mut Client, game: u64) -> Value {
    let frame = client
        .wait_for(|f| f["type"] == "watchers" && f["game"] == game)
        .await;
    assert!(frame.get("seq").is_none(), "not a game event: {frame}");
    frame
}

/// Read `game`'s `watchers` pushes until one matches `pred`; every push on the way must satisfy
/// `always`. `names` is what the client holds (from its snapshot and the pushes before): a push
/// that leaves the names out (only the counts changed) is checked as if it repeated them.
async fn watchers_until(
    client: &mut Client,
    game: u64,
    names: &mut Vec<String>,
    pred: impl Fn(&Value) -> bool,
    always: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        let mut frame = next_watchers(client, game).await;
        match frame.get("watchers") {
            Some(_) => *names = self::names(&frame),
            None => {
                frame["watchers"] = json!(names
                    .iter()
                    .map(|name| json!({ "username": name }))
                    .collect::<Vec<_>>())
            }
        }
        assert!(always(&frame), "unexpected list on the way: {frame}");
        if pred(&frame) {
            return frame;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_watchers_see_who_watches_counted_once_each() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;

    // Carol watches: her own snapshot already lists her, and the players are told.
    let mut carol = server.player("carol").await;
    let state = watch(&mut carol, game).await;
    assert_eq!(seen(&state), list(1, 0, &["carol"]));
    let mut alice_names = Vec::new();
    let pushed = watchers_until(&mut alice, game, &mut alice_names, |_| true, |_| true).await;
    assert_eq!(seen(&pushed), list(1, 0, &["carol"]));

    // Carol again on a second connection: still one watcher.
    let mut carol2 = server.player_login("carol").await;
    let carol2_state = watch(&mut carol2, game).await;
    assert_eq!(seen(&carol2_state), list(1, 0, &["carol"]));
    // Alice on a second connection (her login follows her game at once): a player never watches.
    let mut alice2 = server.player_login("alice").await;
    let state = alice2
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    assert_eq!(seen(&state["state"]), list(1, 0, &["carol"]));
    // A guest is counted, without a name.
    let mut guest = server.client().await;
    guest.hello().await;
    let guest_state = watch(&mut guest, game).await;
    assert_eq!(seen(&guest_state), list(2, 1, &["carol"]));
    let mut dave = server.player("dave").await;
    let dave_state = watch(&mut dave, game).await;
    assert_eq!(seen(&dave_state), list(3, 1, &["carol", "dave"]));

    // The players and the watchers are told the same, once it settles.
    let settled = |f: &Value| seen(f) == list(3, 1, &["carol", "dave"]);
    let mut bob_names = Vec::new();
    let mut carol2_names = names(&carol2_state);
    let mut guest_names = names(&guest_state);
    for (client, names) in [
        (&mut alice, &mut alice_names),
        (&mut bob, &mut bob_names),
        (&mut carol2, &mut carol2_names),
        (&mut guest, &mut guest_names),
    ] {
        watchers_until(client, game, names, settled, |_| true).await;
    }
    // The hall lists the game with the same count.
    dave.ok(json!({"type": "enter_hall"})).await;
    let hall = dave.wait_type("hall").await;
    let listed = &hall["games"].as_array().unwrap()[0];
    assert_eq!(
        (&listed["game"], &listed["watchers_count"]),
        (&json!(game), &json!(3))
    );

    // Carol's first connection and the guest go: Carol still watches on her other connection.
    carol.close().await;
    guest.close().await;
    let with_carol = |f: &Value| names(f).contains(&"carol".to_string());
    let gone = watchers_until(
        &mut alice,
        game,
        &mut alice_names,
        |f| f["anonymous_watchers_count"] == 0,
        with_carol,
    )
    .await;
    assert_eq!(seen(&gone), list(2, 0, &["carol", "dave"]));
    // Carol's last connection stops watching; Dave, still watching, is told.
    carol2.ok(json!({"type": "unwatch", "game": game})).await;
    let mut dave_names = names(&dave_state);
    let last = watchers_until(
        &mut dave,
        game,
        &mut dave_names,
        |f| !with_carol(f),
        |_| true,
    )
    .await;
    assert_eq!(seen(&last), list(1, 0, &["dave"]));
    // Dave, in the hall, sees the game re-listed with the count as it is now.
    let relisted = dave
        .wait_for(|f| {
            f["type"] == "game_listed"
                && f["game"]["game"] == game
                && f["game"]["watchers_count"] == 1
        })
        .await;
    assert_eq!(relisted["game"]["black"]["username"], "alice");
    // And with its move count once a move is played.
    play(&mut alice, game, 2, 2).await;
    dave.wait_for(|f| {
        f["type"] == "game_listed" && f["game"]["game"] == game && f["game"]["moves_count"] == 1
    })
    .await;
    watchers_until(
        &mut bob,
        game,
        &mut bob_names,
        |f| seen(f) == list(1, 0, &["dave"]),
        |_| true,
    )
    .await;
    // A resync or a late snapshot has the list as it is now.
    let mut erin = server.player("erin").await;
    assert_eq!(
        seen(&watch(&mut erin, game).await),
        list(2, 0, &["dave", "erin"])
    );
    server.stop().await;
}

/// A push names the watchers only when some follower may hold other names: a guest arriving
/// changes the counts alone (no names in the push), while a follower whose snapshot named someone
/// who left before the next push is sent the names again, though they are back to the pushed ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_names_the_watchers_only_when_a_follower_may_hold_others() {
    let server = TestServer::start().await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    watch(&mut carol, game).await;
    let pushed = next_watchers(&mut alice, game).await;
    assert_eq!(seen(&pushed), list(1, 0, &["carol"]));

    // A guest: the counts change, the names do not, and the push leaves them out.
    let mut guest = server.client().await;
    guest.hello().await;
    assert_eq!(seen(&watch(&mut guest, game).await), list(2, 1, &["carol"]));
    let counts_only = next_watchers(&mut alice, game).await;
    assert_eq!(
        (
            &counts_only["watchers_count"],
            &counts_only["anonymous_watchers_count"]
        ),
        (&json!(2), &json!(1))
    );
    assert!(counts_only.get("watchers").is_none(), "{counts_only}");

    // Dave comes and goes while a second guest subscribes: the guest's snapshot names Dave, so
    // the push after names the watchers again (Carol alone), which the guest must hear.
    let mut dave = server.player("dave").await;
    watch(&mut dave, game).await;
    let mut guest2 = server.client().await;
    guest2.hello().await;
    let snapshot = watch(&mut guest2, game).await;
    dave.ok(json!({"type": "unwatch", "game": game})).await;
    let mut guest2_names = names(&snapshot);
    watchers_until(
        &mut guest2,
        game,
        &mut guest2_names,
        |f| f["watchers_count"] == 3,
        |_| true,
    )
    .await;
    assert_eq!(guest2_names, ["carol"]);
    server.stop().await;
}
