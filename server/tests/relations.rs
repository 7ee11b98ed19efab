//! Friends, blocks and mutes over real WebSockets, on SQLite, on Redis and across two nodes sharing
//! one Redis: a friend's presence and the notice of their new game; a blocked or muted player's chat
//! hidden in the room, table, kibitz and game channels; a blocked player's challenge, seat and stake
//! offer refused; a blocker not seen online; bad input refused with nothing changed; and all of it
//! still so after the server restarts.

mod common;

use common::redis::{two_nodes, RedisServer};
use common::{settings_9x9, test_config, Client, TestServer};
use serde_json::{json, Value};
use tengen_protocol::UserId;
use tengen_server::config::RELATIONS_PER_LIST_MAX;
use tengen_server::store::sqlite::SqliteStore;
use tengen_server::store::{Accounts, RelationKind, Relations};
use tengen_server::username::Username;

/// The usernames in a `relations` reply's list (`friends` hold `player`s).
fn names(relations: &Value, list: &str) -> Vec<String> {
    relations["relations"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let player = if list == "friends" {
                &entry["player"]
            } else {
                entry
            };
            player["username"].as_str().unwrap().to_string()
        })
        .collect()
}

/// The usernames a `followers` reply names, in its order.
fn follower_names(reply: &Value) -> Vec<String> {
    reply["followers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|player| player["username"].as_str().unwrap().to_string())
        .collect()
}

fn relation(kind: &str, username: &str) -> Value {
    json!({"type": kind, "username": username})
}

/// `client` says `text` on `channel`, and reads its own line back: every line said before it on that
/// channel has reached the client by then (one hall, or one game, orders them).
async fn say_and_hear(client: &mut Client, channel: Value, text: &str) {
    client
        .ok(json!({"type": "chat", "channel": channel, "text": text}))
        .await;
    client
        .wait_for(|f| f["type"] == "chat" && f["text"] == text)
        .await;
}

fn heard(client: &Client, text: &str) -> bool {
    client.backlog_has(|f| f["type"] == "chat" && f["text"] == text)
}

/// Everything but durability, with `alice` on `here` and the others on `there` (the same server, or
/// two nodes).
async fn relations_take_effect(here: &TestServer, there: &TestServer) {
    let mut alice = here.player("alice").await;
    let mut bob = there.player("bob").await;
    let mut carol = there.player("carol").await;
    let mut mallory = there.player("mallory").await;
    let mallory_id = mallory.user.unwrap();
    refuses_bad_input(here, &mut alice).await;

    // A friend: online, then their new game pushed with a notice.
    let reply = alice.ok(relation("follow", "BOB")).await;
    assert_eq!(names(&reply, "friends"), ["bob"]);
    assert_eq!(reply["relations"]["friends"][0]["online"], true);
    for client in [&mut alice, &mut bob, &mut carol, &mut mallory] {
        client.ok(json!({"type": "join_room", "room": 1})).await;
    }
    // Seated together before any block: the block refuses their stakes later.
    alice
        .ok(json!({"type": "sit", "table": 6, "seat": "left"}))
        .await;
    mallory
        .ok(json!({"type": "sit", "table": 6, "seat": "right"}))
        .await;
    let game = common::start_table_game(&mut bob, &mut carol, 2).await;
    let notice = alice.wait_type("friend_started_game").await;
    assert_eq!(notice["friend"]["username"], "bob");
    assert_eq!(notice["opponent"]["username"], "carol");
    assert_eq!(notice["game"], game);
    let presence = alice
        .wait_for(|f| f["type"] == "friend_presence" && f["friend"]["playing"] == json!([game]))
        .await;
    assert_eq!(presence["friend"]["online"], true);
    let reply = alice.ok(json!({"type": "relations"})).await;
    assert_eq!(reply["relations"]["friends"][0]["playing"], json!([game]));

    // Mallory enters the hall and sees alice; alice blocks her: alice leaves her lists.
    mallory.ok(json!({"type": "enter_hall"})).await;
    let snapshot = mallory.wait_type("hall").await;
    assert!(lists(&snapshot["players"], "alice"));
    mallory.ok(relation("follow", "alice")).await;
    carol.ok(relation("follow", "alice")).await;
    let followers = alice.ok(json!({"type": "followers"})).await;
    assert_eq!(followers["followers_count"], 2);
    assert_eq!(follower_names(&followers), ["carol", "mallory"]);
    let reply = alice.ok(relation("block", "mallory")).await;
    assert_eq!(names(&reply, "blocked"), ["mallory"]);
    // Blocked, mallory is left out of alice's followers, named and counted.
    let followers = alice.ok(json!({"type": "followers"})).await;
    assert_eq!(followers["followers_count"], 1);
    assert_eq!(follower_names(&followers), ["carol"]);
    mallory
        .wait_for(|f| f["type"] == "player_offline" && f["user"] == alice.user.unwrap())
        .await;
    blocked_is_refused(&mut alice, &mut mallory, mallory_id).await;
    automatch_keeps_them_apart(&mut alice, &mut mallory).await;
    blocked_chat_is_hidden(&mut alice, &mut mallory, game).await;
    muted_chat_is_hidden(&mut alice, &mut carol, &mut bob, game).await;
    blocker_is_not_seen_online(there, &mut mallory).await;

    // Unblocked: seen again, and heard again.
    alice.ok(relation("unblock", "mallory")).await;
    mallory
        .wait_for(|f| f["type"] == "player_online" && f["player"]["username"] == "alice")
        .await;
    mallory
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "sorry"}))
        .await;
    alice
        .wait_for(|f| f["type"] == "chat" && f["text"] == "sorry")
        .await;
}

fn lists(players: &Value, username: &str) -> bool {
    players
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["username"] == username)
}

/// Oneself, unknown names in any script, a name that is no string, and a guest: each refused,
/// nothing changed.
async fn refuses_bad_input(server: &TestServer, alice: &mut Client) {
    let mut guest = server.client().await;
    guest.hello().await;
    guest
        .err(relation("follow", "alice"), "not_logged_in")
        .await;
    guest
        .err(json!({"type": "relations"}), "not_logged_in")
        .await;
    for kind in ["follow", "block", "mute"] {
        alice.err(relation(kind, "alice"), "bad_relation").await;
    }
    // The same name in full width is still alice.
    alice
        .err(relation("block", "ａｌｉｃｅ"), "bad_relation")
        .await;
    let long = "x".repeat(1000);
    let unknown = ["nobody", "", "\u{202e}bob", "无名氏", long.as_str()];
    for (name, kind) in unknown
        .into_iter()
        .zip(["follow", "block", "mute", "follow", "mute"])
    {
        alice.err(relation(kind, name), "no_such_user").await;
    }
    alice
        .err(json!({"type": "follow", "username": 7}), "bad_message")
        .await;
    let reply = alice.ok(json!({"type": "relations"})).await;
    assert_eq!(
        reply["relations"],
        json!({"friends": [], "blocked": [], "muted": []})
    );
}

async fn blocked_is_refused(alice: &mut Client, mallory: &mut Client, mallory_id: u64) {
    let alice_id = alice.user.unwrap();
    let challenge = |to: u64| json!({"type": "challenge", "user": to, "settings": settings_9x9()});
    mallory.err(challenge(alice_id), "blocked").await;
    alice.err(challenge(mallory_id), "blocked").await;
    // Seated before the block: no stakes between them.
    let offer = json!({"type": "stake_offer", "table": 6, "left": 10, "right": 10,
        "terms": {"kind": "normal"}});
    mallory.err(offer.clone(), "blocked").await;
    alice.err(offer, "blocked").await;
    // Table chat from her is hidden (read after alice's own line).
    mallory
        .ok(json!({"type": "chat", "channel": {"kind": "table", "table": 6}, "text": "psst"}))
        .await;
    say_and_hear(alice, json!({"kind": "table", "table": 6}), "alice at 6").await;
    assert!(!heard(alice, "psst"));
    for client in [&mut *alice, &mut *mallory] {
        client.ok(json!({"type": "stand", "table": 6})).await;
    }
    // No seat beside her, either way round.
    mallory
        .ok(json!({"type": "sit", "table": 7, "seat": "left"}))
        .await;
    alice
        .err(
            json!({"type": "sit", "table": 7, "seat": "right"}),
            "blocked",
        )
        .await;
    mallory.ok(json!({"type": "stand", "table": 7})).await;
    alice
        .ok(json!({"type": "sit", "table": 7, "seat": "left"}))
        .await;
    mallory
        .err(
            json!({"type": "sit", "table": 7, "seat": "right"}),
            "blocked",
        )
        .await;
    alice.ok(json!({"type": "stand", "table": 7})).await;
    // Following a player one blocks is refused until unblocked.
    alice
        .err(relation("follow", "mallory"), "bad_relation")
        .await;
}

/// Both seek the same game: no game between them; each waits until they cancel.
async fn automatch_keeps_them_apart(alice: &mut Client, mallory: &mut Client) {
    let seek = json!({"type": "automatch", "size": 9, "time_class": "blitz", "rank_range": 9});
    mallory.ok(seek.clone()).await;
    alice.ok(seek).await;
    for client in [&mut *alice, &mut *mallory] {
        client.ok(json!({"type": "cancel_automatch"})).await;
    }
    assert!(!alice.backlog_has(|f| f["type"] == "game_started"));
}

/// Mallory's lines in the room and the kibitz are hidden from alice, her room's recent chat too.
async fn blocked_chat_is_hidden(alice: &mut Client, mallory: &mut Client, game: u64) {
    mallory
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "spam"}))
        .await;
    say_and_hear(alice, json!({"kind": "room", "room": 1}), "alice here").await;
    assert!(!heard(alice, "spam"));
    alice.backlog.retain(|f| f["type"] != "room");
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    let snapshot = alice
        .wait_for(|f| f["type"] == "room" && f["room"] == 1)
        .await;
    let recent = snapshot["recent_chat"].as_array().unwrap();
    assert!(recent.iter().any(|line| line["text"] == "alice here"));
    assert!(!recent.iter().any(|line| line["text"] == "spam"));
    alice.ok(json!({"type": "watch", "game": game})).await;
    mallory.ok(json!({"type": "watch", "game": game})).await;
    // Alice watches too, but not in the names mallory is sent.
    let state = mallory
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    assert!(!lists(&state["state"]["watchers"], "alice"), "{state}");
    let kibitz = json!({"kind": "kibitz", "game": game});
    mallory
        .ok(json!({"type": "chat", "channel": kibitz, "text": "boo"}))
        .await;
    say_and_hear(alice, kibitz, "nice move").await;
    assert!(!heard(alice, "boo"));
}

/// Alice mutes carol: carol's game chat is hidden from alice (a watcher), bob's is not; unmuted,
/// carol is heard again.
async fn muted_chat_is_hidden(alice: &mut Client, carol: &mut Client, bob: &mut Client, game: u64) {
    let reply = alice.ok(relation("mute", "Carol")).await;
    assert_eq!(names(&reply, "muted"), ["carol"]);
    let channel = json!({"kind": "game", "game": game});
    carol
        .ok(json!({"type": "chat", "channel": channel, "text": "gg?"}))
        .await;
    bob.ok(json!({"type": "chat", "channel": channel, "text": "not yet"}))
        .await;
    alice
        .wait_for(|f| f["type"] == "chat" && f["text"] == "not yet")
        .await;
    assert!(!heard(alice, "gg?"));
    let reply = alice.ok(relation("unmute", "carol")).await;
    assert_eq!(names(&reply, "muted"), Vec::<String>::new());
    carol
        .ok(json!({"type": "chat", "channel": channel, "text": "now?"}))
        .await;
    alice
        .wait_for(|f| f["type"] == "chat" && f["text"] == "now?")
        .await;
}

/// Alice (online) blocks mallory: not in mallory's hall list, offline on her profile and in her
/// friends list.
async fn blocker_is_not_seen_online(server: &TestServer, mallory: &mut Client) {
    mallory.ok(json!({"type": "enter_hall"})).await;
    let snapshot = mallory.wait_type("hall").await;
    assert!(!lists(&snapshot["players"], "alice"));
    assert!(lists(&snapshot["players"], "bob"));
    let profile = mallory
        .ok(json!({"type": "profile", "username": "alice"}))
        .await;
    assert_eq!(profile["profile"]["online"], false);
    let friends = mallory.ok(json!({"type": "relations"})).await;
    assert_eq!(names(&friends, "friends"), ["alice"]);
    assert_eq!(friends["relations"]["friends"][0]["online"], false);
    // A new connection of hers sees the same.
    let mut again = server.player_login("mallory").await;
    again.ok(json!({"type": "enter_hall"})).await;
    let snapshot = again.wait_type("hall").await;
    assert!(!lists(&snapshot["players"], "alice"));
}

/// Before a restart: alice follows bob, blocks mallory, mutes carol.
async fn make_relations(server: &TestServer) {
    let mut alice = server.player("alice").await;
    for name in ["bob", "carol", "mallory"] {
        server.player(name).await;
    }
    alice.ok(relation("follow", "bob")).await;
    alice.ok(relation("block", "mallory")).await;
    alice.ok(relation("mute", "carol")).await;
}

/// After a restart: the lists are as they were, and still take effect.
async fn relations_survived(server: &TestServer) {
    let mut alice = server.player_login("alice").await;
    let reply = alice.ok(json!({"type": "relations"})).await;
    assert_eq!(names(&reply, "friends"), ["bob"]);
    assert_eq!(names(&reply, "blocked"), ["mallory"]);
    assert_eq!(names(&reply, "muted"), ["carol"]);
    let mut mallory = server.player_login("mallory").await;
    let mut carol = server.player_login("carol").await;
    for client in [&mut alice, &mut mallory, &mut carol] {
        client.ok(json!({"type": "join_room", "room": 1})).await;
    }
    for (client, text) in [(&mut mallory, "spam"), (&mut carol, "chatter")] {
        client
            .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": text}))
            .await;
    }
    say_and_hear(&mut alice, json!({"kind": "room", "room": 1}), "back").await;
    assert!(!heard(&alice, "spam") && !heard(&alice, "chatter"));
    let challenge =
        json!({"type": "challenge", "user": alice.user.unwrap(), "settings": settings_9x9()});
    mallory.err(challenge, "blocked").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_on_sqlite() {
    let server = TestServer::start().await;
    relations_take_effect(&server, &server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_on_redis_across_two_nodes() {
    let redis = RedisServer::start();
    // Alice on the hall's node, everyone else on the other.
    let (_dirs, a, b) = two_nodes(&redis).await;
    relations_take_effect(&a, &b).await;
    b.stop().await;
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_survive_a_restart_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    make_relations(&server).await;
    server.stop().await;
    let server = TestServer::start_with(test_config(dir.path())).await;
    relations_survived(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relations_survive_a_restart_on_redis() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(redis.config(dir.path())).await;
    make_relations(&server).await;
    server.stop().await;
    let server = TestServer::start_with(redis.config(dir.path())).await;
    relations_survived(&server).await;
    server.stop().await;
}

/// A full list refuses one more, and nothing changes; the other lists have their own room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_list_refuses_one_more() {
    let dir = tempfile::tempdir().unwrap();
    {
        // Accounts made straight in the store: registering hundreds over sockets proves nothing more.
        let store = SqliteStore::open(dir.path()).unwrap();
        for n in 0..=RELATIONS_PER_LIST_MAX {
            let name = Username::parse(&format!("fan{n}")).unwrap();
            store.create_user(&name, "unused", 1).unwrap();
        }
    }
    let mut config = test_config(dir.path());
    // Hundreds of follows in a row, faster than any person sends them.
    config.messages_per_second = 100_000;
    config.messages_burst = 100_000;
    let server = TestServer::start_with(config).await;
    let mut alice = server.player("alice").await;
    for n in 0..RELATIONS_PER_LIST_MAX {
        alice.ok(relation("follow", &format!("fan{n}"))).await;
    }
    let last = format!("fan{RELATIONS_PER_LIST_MAX}");
    alice.err(relation("follow", &last), "relations_full").await;
    let reply = alice.ok(json!({"type": "relations"})).await;
    assert_eq!(
        reply["relations"]["friends"].as_array().unwrap().len(),
        RELATIONS_PER_LIST_MAX
    );
    assert!(!names(&reply, "friends").contains(&last));
    // Following one already followed is no change, full or not; muting has its own list.
    alice.ok(relation("follow", "fan0")).await;
    alice.ok(relation("mute", &last)).await;
    server.stop().await;
}

/// However many follow a player, one `followers` answer names as many as a list holds, strongest
/// first, and counts them all; a follower blocked is left out of both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_popular_players_followers_are_counted_and_some_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let star = server.player("star").await.user.map(UserId).unwrap();
    server.stop().await;
    {
        // Followers made straight in the store: hundreds of sockets prove nothing more.
        let store = SqliteStore::open(dir.path()).unwrap();
        for n in 0..=RELATIONS_PER_LIST_MAX {
            let name = Username::parse(&format!("fan{n:03}")).unwrap();
            let fan = store.create_user(&name, "unused", 1).unwrap();
            store
                .add_relation(fan, RelationKind::Follow, star, RELATIONS_PER_LIST_MAX, 1)
                .unwrap();
        }
        // One stronger than the rest comes first.
        let strong = store.user_by_name("fan150").unwrap().unwrap().id;
        store.set_starting_rating(strong, 2400.0).unwrap();
    }
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut star = server.player_login("star").await;
    let reply = star.ok(json!({"type": "followers"})).await;
    assert_eq!(reply["followers_count"], RELATIONS_PER_LIST_MAX + 1);
    let named = follower_names(&reply);
    assert_eq!(named.len(), RELATIONS_PER_LIST_MAX);
    assert_eq!(named[..3], ["fan150", "fan000", "fan001"]);
    star.ok(relation("block", "fan000")).await;
    let reply = star.ok(json!({"type": "followers"})).await;
    assert_eq!(reply["followers_count"], RELATIONS_PER_LIST_MAX);
    assert_eq!(follower_names(&reply)[..2], ["fan150", "fan001"]);
    // A guest follows nobody and is followed by nobody: asked, it is told to log in.
    let mut guest = server.client().await;
    guest.hello().await;
    guest
        .err(json!({"type": "followers"}), "not_logged_in")
        .await;
    server.stop().await;
}
