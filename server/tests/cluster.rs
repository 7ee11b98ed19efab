//! Several nodes on one Redis: players connected to different nodes play a whole game, watchers on
//! both nodes see every event in order, bets placed through both nodes settle exactly; and when the
//! node that owns the game (and the hall) is killed, the other node takes the game over from its log
//! with fair clocks and the game is played to its end there.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::money::{
    assert_audit_clean, balance, bet_placed, wait_settled, winner_receives, GRANT,
};
use common::redis::{node, raw_connection, two_nodes, RedisServer};
use common::{events_until_end, play, point, start_table_game, Client, TestServer};
use serde_json::{json, Value};

async fn watch(client: &mut Client, game: u64) {
    client.ok(json!({"type": "watch", "game": game})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_watchers_on_two_nodes_share_one_game_and_its_pool() {
    let redis = RedisServer::start();
    // The first node takes the hall.
    let (_dirs, a, b) = two_nodes(&redis).await;

    // Black is on `b`: the hall (on `a`) starts the game there; White plays through `a`.
    let mut alice = b.player("alice").await;
    let mut bob = a.player("bob").await;
    let mut carol = a.player("carol").await;
    let mut dave = b.player("dave").await;
    let mut erin = b.client().await;
    erin.hello().await;

    let game = start_table_game(&mut alice, &mut bob, 1).await;
    // The game runs on the node Black is connected to, not on the hall's.
    let mut conn = raw_connection(&redis);
    let owner_of = |conn: &mut redis::Connection, key: &str| -> String {
        let owner: String = redis::cmd("GET").arg(key).query(conn).unwrap();
        owner.split(' ').next().unwrap().to_string()
    };
    let game_node = owner_of(&mut conn, &format!("{{g:{game}}}:owner"));
    assert_ne!(game_node, owner_of(&mut conn, "tengen:lease:hall"));
    for watcher in [&mut carol, &mut dave, &mut erin] {
        watch(watcher, game).await;
    }
    // Both nodes' watchers are in the list everyone sees (the anonymous one counted, not named).
    // A push names them when the names changed, and only counts when they did not.
    let mut listed = Value::Null;
    loop {
        let push = alice.wait_for(|f| f["type"] == "watchers").await;
        if push.get("watchers").is_some() {
            listed = push.clone();
        }
        if push["watchers_count"] == 3 {
            break;
        }
    }
    let mut names: Vec<&str> = listed["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["username"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["carol", "dave"], "{listed}");
    // The hall (on `a`) lists the game run on `b` with the count `b` reports.
    let mut lobby = a.client().await;
    lobby.hello().await;
    lobby.ok(json!({"type": "enter_hall"})).await;
    lobby
        .wait_for(|f| {
            (f["type"] == "hall" && f["games"][0]["watchers_count"] == 3)
                || (f["type"] == "game_listed" && f["game"]["watchers_count"] == 3)
        })
        .await;

    // Bets through both nodes.
    bet_placed(&mut carol, game, "black", 100).await;
    bet_placed(&mut dave, game, "white", 300).await;
    let pool = erin
        .wait_for(|f| f["type"] == "pool" && f["pool"]["total"] == 400)
        .await;
    assert_eq!(pool["pool"]["bettors_count"], 2);

    // A short game with a capture and a refused ko recapture, moves sent to both nodes.
    let moves = [
        (3, 4), // 1
        (4, 4), // 2
        (4, 3), // 3
        (5, 3), // 4
        (4, 5), // 5
        (5, 5), // 6
        (0, 0), // 7
        (6, 4), // 8
        (5, 4), // 9: captures (4, 4)
    ];
    for (index, (col, row)) in moves.into_iter().enumerate() {
        let mover = if index % 2 == 0 { &mut alice } else { &mut bob };
        play(mover, game, col, row).await;
    }
    bob.err(
        json!({"type": "play", "game": game, "point": point(4, 4)}),
        "ko",
    )
    .await;
    bob.ok(json!({"type": "resign", "game": game})).await; // 10, then the end

    // Every watcher, on either node, saw every event in order, with no gap.
    for watcher in [&mut carol, &mut dave, &mut erin] {
        let events = events_until_end(watcher, game).await;
        let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<u64>>());
        assert_eq!(events[8]["captured"], json!([point(4, 4)]));
        assert_eq!(events.last().unwrap()["outcome"]["sgf"], "B+R");
    }

    // Black won: carol's bet takes dave's, less the tax; the book balances on both nodes.
    wait_settled(&mut carol, game).await;
    wait_settled(&mut dave, game).await;
    let carol_gets = winner_receives(400, 100, 100);
    // Her payout is pushed to her through the hall, from the game's node to hers.
    carol
        .wait_for(|f| f["type"] == "balance" && f["balance"] == GRANT - 100 + carol_gets)
        .await;
    assert_eq!(balance(&mut carol).await, GRANT - 100 + carol_gets);
    assert_eq!(balance(&mut dave).await, GRANT - 300);
    assert_eq!(balance(&mut alice).await, GRANT);
    for node in [&a, &b] {
        let report = assert_audit_clean(node).await;
        assert_eq!(report["house"], 400 - carol_gets);
    }
    // A challenge crosses nodes: bob on `a` (the hall's) challenges alice on `b`, who declines.
    let alice_id = alice.user.unwrap();
    let sent = bob
        .ok(json!({"type": "challenge", "user": alice_id, "settings": common::settings_9x9()}))
        .await;
    let challenged = alice.wait_type("challenged").await;
    assert_eq!(challenged["challenge"], sent["challenge"]);
    alice
        .ok(json!({"type": "decline_challenge", "challenge": challenged["challenge"]}))
        .await;
    bob.wait_type("challenge_declined").await;
    // Accounts are shared: alice logs in on the other node too.
    a.player_login("alice").await.close().await;
    // The record is there through either node.
    let sgf = common::http_get(b.addr, &format!("/api/games/{game}.sgf"), None).await;
    assert!(sgf.contains("RE[B+R]"), "{sgf}");
    b.stop().await;
    a.stop().await;
}

/// Moves refused while a game changes hands are retried, as a client does.
async fn play_through_a_handover(client: &mut Client, game: u64, col: u8, row: u8) {
    for _ in 0..100 {
        let reply = client
            .request(json!({"type": "play", "game": game, "point": point(col, row)}))
            .await;
        if reply["type"] == "ack" {
            return;
        }
        assert!(
            reply["code"] == "busy" || reply["code"] == "no_such_game",
            "{reply}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the game was never handed over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_loses_a_games_lease_stops_it_and_its_followers_carry_on() {
    let redis = RedisServer::start();
    let (_dirs, a, b) = two_nodes(&redis).await;
    let mut alice = a.player("alice").await;
    let mut bob = a.player("bob").await;
    let mut carol = a.player("carol").await;
    let mut dave = b.player("dave").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    watch(&mut carol, game).await;
    watch(&mut dave, game).await;
    play(&mut alice, game, 2, 2).await;
    play(&mut bob, game, 6, 6).await;

    // As after a long pause or a partition: the lease now names another node (one that is gone),
    // with a newer fence. The node running the game must stop logging it, and the game must go on.
    let mut conn = raw_connection(&redis);
    let owner_key = format!("{{g:{game}}}:owner");
    let _: () = redis::cmd("SET")
        .arg(&owner_key)
        .arg("00000000000000ff 999999999")
        .query(&mut conn)
        .unwrap();

    play_through_a_handover(&mut alice, game, 2, 6).await;
    play(&mut bob, game, 6, 2).await;
    let owner: String = redis::cmd("GET").arg(&owner_key).query(&mut conn).unwrap();
    assert!(
        !owner.starts_with("00000000000000ff"),
        "taken over: {owner}"
    );
    alice.ok(json!({"type": "resign", "game": game})).await;

    // Both watchers followed the game to its end: the one on the node that lost it through a fresh
    // snapshot, in order either way.
    for watcher in [&mut carol, &mut dave] {
        let events = events_until_end(watcher, game).await;
        let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        assert_eq!(events.last().unwrap()["outcome"]["sgf"], "W+R");
    }
    // The log holds each move once: the stopped actor wrote nothing after it lost the lease.
    let sgf = common::http_get(a.addr, &format!("/api/games/{game}.sgf"), None).await;
    assert_eq!(sgf.matches(";B[").count(), 2, "{sgf}");
    assert_eq!(sgf.matches(";W[").count(), 2, "{sgf}");
    b.stop().await;
    a.stop().await;
}

/// A `tengen serve` process on `redis`, listening on a free port.
struct NodeProcess {
    child: Child,
    url: String,
}

impl NodeProcess {
    fn start(redis: &RedisServer, dir: &std::path::Path) -> NodeProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--redis", &redis.url(), "--data"])
            .arg(dir)
            .args(["--argon2-memory-kib", "1024", "--argon2-passes", "1"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        NodeProcess {
            child,
            url: format!("ws://127.0.0.1:{port}/ws"),
        }
    }

    /// Connect once the node answers.
    async fn client(&self) -> Client {
        for _ in 0..100 {
            if let Ok((ws, _)) = tokio_tungstenite::connect_async(&self.url).await {
                drop(ws);
                return Client::connect(&self.url).await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("node at {} never answered", self.url);
    }

    fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn register(client: &mut Client, username: &str) {
    client.hello().await;
    let reply = client
        .ok(json!({"type": "register", "username": username, "password": "password123"}))
        .await;
    assert_eq!(reply["type"], "session", "{reply}");
    client.token = reply["token"].as_str().map(str::to_string);
    client.user = reply["user"].as_u64();
}

/// The mover's main time left, from a fresh `game_state`.
async fn black_main_left_ms(client: &mut Client, game: u64) -> u64 {
    client.ok(json!({"type": "unwatch", "game": game})).await;
    client.ok(json!({"type": "watch", "game": game})).await;
    let state = client
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    state["state"]["clocks"]["black"]["main_left_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("{state}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_owner_node_dies_the_other_takes_the_game_over_with_fair_clocks() {
    let redis = RedisServer::start();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut owner = NodeProcess::start(&redis, dirs[0].path());
    // The first node is up (and owns the hall) before the second starts.
    let mut first = owner.client().await;
    register(&mut first, "zed").await;
    let other = NodeProcess::start(&redis, dirs[1].path());

    // Black is on the first node, so the game starts there; White and the watcher on the other.
    let mut alice = owner.client().await;
    register(&mut alice, "alice").await;
    let mut bob = other.client().await;
    register(&mut bob, "bob").await;
    let mut carol = other.client().await;
    register(&mut carol, "carol").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    watch(&mut carol, game).await;
    play(&mut alice, game, 2, 2).await; // 1
    play(&mut bob, game, 6, 6).await; // 2: Black's clock runs from here
    let before_ms = black_main_left_ms(&mut carol, game).await;

    owner.kill();
    // Black's browser reconnects, through the load balancer, to the node still up.
    let token = alice.token.clone().unwrap();
    let mut alice = other.client().await;
    alice.hello().await;
    alice.ok(json!({"type": "resume", "token": token})).await;
    // Black does not lose the time the game had no owner: the takeover replays the log and game
    // time goes on from the last recorded instant.
    play_through_a_handover(&mut alice, game, 2, 6).await; // 3
                                                           // (The takeover may log the players away and back before it.)
    carol
        .wait_for(|f| {
            f["type"] == "game_event" && f["event"] == "played" && f["point"] == point(2, 6)
        })
        .await;
    play(&mut bob, game, 6, 2).await; // 4
    let after_ms = black_main_left_ms(&mut carol, game).await;
    assert!(
        after_ms + 2_000 >= before_ms,
        "black lost {} ms to the takeover",
        before_ms - after_ms
    );

    // The surviving node runs the hall now: it lists the game and the users logged in through it
    // (not zed, whose only connection died with the first node).
    carol.ok(json!({"type": "enter_hall"})).await;
    let hall = carol.wait_type("hall").await;
    let listed: Vec<&Value> = hall["games"].as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 1, "{hall}");
    assert_eq!(listed[0]["game"], game);
    let mut online: Vec<&str> = hall["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["username"].as_str().unwrap())
        .collect();
    online.sort_unstable();
    assert_eq!(online, ["alice", "bob", "carol"], "{hall}");

    // The game goes on to its end on the surviving node; the watcher saw every event in order.
    alice.ok(json!({"type": "resign", "game": game})).await;
    let events = events_until_end(&mut carol, game).await;
    assert_eq!(events.last().unwrap()["outcome"]["sgf"], "W+R");
    let sgf_url = format!("/api/games/{game}.sgf");
    let addr: std::net::SocketAddr = other.url[5..other.url.len() - 3].parse().unwrap();
    let sgf = common::http_get(addr, &sgf_url, None).await;
    assert!(sgf.contains("RE[W+R]"), "{sgf}");
}

fn keyed_play(game: u64, col: u8, row: u8, key: &str) -> Value {
    json!({"type": "play", "game": game, "point": point(col, row), "key": key})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_through_the_other_node_is_recognised() {
    let redis = RedisServer::start();
    let (_dirs, a, b) = two_nodes(&redis).await;
    // Black on `b`, so the game runs there; White and a watcher on `a`, forwarded to `b`.
    let mut alice = b.player("alice").await;
    let mut bob = a.player("bob").await;
    let mut carol = a.player("carol").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;

    // Sent on the owner, retried through the other node (as a client that reconnected there).
    alice.ok(keyed_play(game, 2, 2, "b-1")).await;
    let mut alice_on_a = a.player_login("alice").await;
    alice_on_a.ok(keyed_play(game, 2, 2, "b-1")).await;
    // Sent through the other node, retried on the owner.
    bob.ok(keyed_play(game, 6, 6, "w-1")).await;
    let mut bob_on_b = b.player_login("bob").await;
    bob_on_b.ok(keyed_play(game, 6, 6, "w-1")).await;
    bob_on_b
        .err(keyed_play(game, 5, 5, "w-1"), "key_reused")
        .await;
    // A bet through `a`, retried through `b`: placed once.
    let bet = json!({"type": "bet", "game": game, "side": "black", "amount": 100, "key": "bet-1"});
    assert_eq!(carol.ok(bet.clone()).await["type"], "bet_placed");
    let mut carol_on_b = b.player_login("carol").await;
    let again = carol_on_b.ok(bet).await;
    assert_eq!(again["type"], "bet_placed", "{again}");
    assert_eq!(again["total"], 100);
    assert_eq!(balance(&mut carol_on_b).await, GRANT - 100);

    let sgf = common::http_get(a.addr, &format!("/api/games/{game}.sgf"), None).await;
    assert_eq!(sgf.matches(";B[").count(), 1, "{sgf}");
    assert_eq!(sgf.matches(";W[").count(), 1, "{sgf}");
    assert_audit_clean(&a).await;
    b.stop().await;
    a.stop().await;
}

/// A node that is alive (its heartbeat is in Redis) and reads its channel, but answers only
/// `players` (so a stand-in can be made for its game) and never a move: the requests it got are
/// kept for the test to look at. It stops when `stop` is set.
fn silent_node(
    redis: &RedisServer,
    node: &str,
    players: [u64; 2],
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<Vec<Value>> {
    let mut conn = raw_connection(redis);
    let _: () = redis::cmd("SET")
        .arg(format!("tengen:node:{node}"))
        .arg("alive")
        .arg("PX")
        .arg(600_000)
        .query(&mut conn)
        .unwrap();
    let mut replies = raw_connection(redis);
    let mut listener = raw_connection(redis);
    let channel = format!("tengen:node:{node}");
    std::thread::spawn(move || {
        listener
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut pubsub = listener.as_pubsub();
        pubsub.subscribe(&channel).unwrap();
        let mut requests = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let Ok(message) = pubsub.get_message() else {
                continue;
            };
            let payload: String = message.get_payload().unwrap();
            let msg: Value = serde_json::from_str(&payload).unwrap();
            if msg["body"]["to"] == "game_players" {
                let reply = json!({"kind": "reply", "id": msg["id"],
                    "result": {"Ok": {"answer": "players", "players": players}}});
                let to = format!("tengen:node:{:016x}", msg["from"].as_u64().unwrap());
                let _: () = redis::cmd("PUBLISH")
                    .arg(to)
                    .arg(reply.to_string())
                    .query(&mut replies)
                    .unwrap();
            } else {
                requests.push(msg);
            }
        }
        requests
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forwarded_move_its_owner_never_answers_is_outcome_unknown() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let a = node(&redis, dir.path()).await;
    let mut alice = a.player("alice").await;
    let mut bob = a.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    play(&mut alice, game, 2, 2).await;
    // The players stop following the game, so no subscription here waits on the silent node.
    for player in [&mut alice, &mut bob] {
        player.ok(json!({"type": "unwatch", "game": game})).await;
    }

    // The game's lease now names a live node that takes requests and never answers them.
    let silent = "00000000000000fe";
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let players = [alice.user.unwrap(), bob.user.unwrap()];
    let listener = silent_node(&redis, silent, players, stop.clone());
    let mut conn = raw_connection(&redis);
    let _: () = redis::cmd("SET")
        .arg(format!("{{g:{game}}}:owner"))
        .arg(format!("{silent} 999999999"))
        .query(&mut conn)
        .unwrap();

    // Until this node notices it lost the game, its own actor refuses the move (`busy`: its log is
    // fenced, certainly not done); then the move goes to the silent owner, and nobody can say.
    let white = keyed_play(game, 6, 6, "w-1");
    let mut code = String::new();
    for _ in 0..10 {
        let reply = bob.request(white.clone()).await;
        code = reply["code"].as_str().unwrap_or_default().to_string();
        if code != "busy" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(code, "outcome_unknown");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let requests = listener.join().unwrap();
    let moves: Vec<&Value> = requests
        .iter()
        .filter(|msg| msg["body"]["request"]["cmd"] == "move")
        .collect();
    assert!(!moves.is_empty(), "{requests:?}");
    // The key went with the forwarded move, so the owner could have told a retry.
    assert!(moves
        .iter()
        .all(|msg| msg["body"]["request"]["key"] == "w-1"));
    a.stop().await;
}

/// A connection to `node` resumed with `token`.
async fn resumed(node: &TestServer, token: &str) -> Client {
    let mut client = node.client().await;
    client.hello().await;
    client.ok(json!({"type": "resume", "token": token})).await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_throttles_and_logouts_reach_every_node() {
    let redis = RedisServer::start();
    let (_dirs, a, b) = two_nodes(&redis).await;
    a.player("judy").await;
    // Guesses from one address spread over both nodes count together.
    let login = |password: &str| json!({"type": "login", "username": "judy", "password": password});
    let mut on_a = a.client_from(2).await;
    let mut on_b = b.client_from(2).await;
    for n in 0..tengen_server::config::LOGIN_FAILURES_MAX {
        let guesser = if n % 2 == 0 { &mut on_a } else { &mut on_b };
        guesser
            .err(login("wrong password"), "bad_credentials")
            .await;
    }
    on_a.err(login("password123"), "login_throttled").await;
    on_b.err(login("password123"), "login_throttled").await;

    // A logout on the hall's node ends the same token's connection on the other node, and only it.
    let mut judy = a.player_login("judy").await;
    let mut tab = resumed(&b, judy.token.as_deref().unwrap()).await;
    let mut phone = b.player_login("judy").await;
    judy.ok(json!({"type": "logout"})).await;
    assert_eq!(tab.wait_type("logged_out").await["reason"], "logout");
    tab.err(json!({"type": "balance"}), "not_logged_in").await;
    phone.ok(json!({"type": "balance"})).await;
    // Logging out everywhere from the other node reaches the hall's node.
    let mut laptop = resumed(&a, phone.token.as_deref().unwrap()).await;
    phone.ok(json!({"type": "logout_all"})).await;
    assert_eq!(laptop.wait_type("logged_out").await["reason"], "logout_all");
    laptop
        .err(json!({"type": "balance"}), "not_logged_in")
        .await;
    b.stop().await;
    a.stop().await;
}

/// An event's request, retried while the hall changes nodes (as a client does on `busy`).
async fn through_a_hall_handover(client: &mut Client, request: Value) -> Value {
    for _ in 0..100 {
        let reply = client.request(request.clone()).await;
        if reply["type"] != "error" {
            return reply;
        }
        assert_eq!(reply["code"], "busy", "{reply}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the hall was never handed over");
}

/// A competition is the hall's: run from the node that owns the hall, it carries on from the same
/// round when that node dies and the other takes the hall over (from the records in Redis).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_carries_on_when_the_halls_node_dies() {
    let redis = RedisServer::start();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut owner = NodeProcess::start(&redis, dirs[0].path());
    let mut first = owner.client().await;
    register(&mut first, "zed").await;
    let other = NodeProcess::start(&redis, dirs[1].path());
    // Everyone is on the other node; the hall (and the event) is on the first.
    let mut director = other.client().await;
    register(&mut director, "director").await;
    let mut alice = other.client().await;
    register(&mut alice, "alice").await;
    let mut bob = other.client().await;
    register(&mut bob, "bob").await;
    let spec = json!({"name": "Final", "format": {"kind": "match", "games": 3},
        "settings": common::settings_9x9(), "players_max": 2});
    let created = director
        .ok(json!({"type": "create_event", "spec": spec}))
        .await;
    let event = created["event"]["summary"]["event"].as_u64().unwrap();
    for player in [&mut alice, &mut bob] {
        player
            .ok(json!({"type": "join_event", "event": event}))
            .await;
    }
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let game = started["event"]["rounds"][0]["boards"][0]["game"]
        .as_u64()
        .unwrap();
    bob.wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    director
        .wait_for(|f| {
            f["type"] == "event" && !f["event"]["rounds"][0]["boards"][0]["outcome"].is_null()
        })
        .await;

    owner.kill();
    // The other node takes the hall over and reads the event back: round 1 played, round 2 next.
    let view =
        through_a_hall_handover(&mut director, json!({"type": "get_event", "event": event})).await;
    assert_eq!(
        view["event"]["summary"]["status"], "between_rounds",
        "{view}"
    );
    // Game 1's colours are drawn (nigiri from the event's seed): bob lost with whichever he had.
    let bob_was_black = started["event"]["rounds"][0]["boards"][0]["black"] == bob.user.unwrap();
    assert_eq!(
        view["event"]["rounds"][0]["boards"][0]["outcome"],
        if bob_was_black {
            "white_wins"
        } else {
            "black_wins"
        }
    );
    let second = through_a_hall_handover(
        &mut director,
        json!({"type": "start_round", "event": event}),
    )
    .await;
    let game = second["event"]["rounds"][1]["boards"][0]["game"]
        .as_u64()
        .unwrap();
    bob.wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    let done = director
        .wait_for(|f| f["type"] == "event" && f["event"]["summary"]["status"] == "finished")
        .await;
    assert_eq!(done["event"]["winner"], alice.user.unwrap());
}
