//! Moderation over real sockets, on SQLite, on Redis, and across two nodes on one Redis: reports of
//! a chat line, a user and a game handled by a moderator (a line removed for a watcher already
//! showing it, a mute refused everywhere, a game voided with every point refunded and the audit
//! clean, a ban that ends the user's sockets on the other node and refuses their login); the
//! moderation log lists each act; and every bad request is refused with nothing changed.

mod common;

use common::money::{
    assert_audit_clean, balance, bet_placed, http_get, start_server, ADMIN_TOKEN, GRANT,
};
use common::redis::{two_nodes, RedisServer};
use common::{start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};

/// `PUT path` with the admin token and `body`; the status code and the body.
async fn http_put(server: &TestServer, path: &str, body: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "PUT {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {ADMIN_TOKEN}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    (status, body.to_string())
}

/// `tengen admin <args>` on the SQLite store in `dir`: its exit status and what it printed.
fn tengen_admin(dir: &std::path::Path, args: &[&str]) -> (bool, String) {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("admin")
        .args(args)
        .arg("--data")
        .arg(dir)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr);
    (run.status.success(), said)
}

/// Give `name` a role through the admin API.
async fn grant(server: &TestServer, name: &str, role: &str) {
    let (status, body) = http_put(server, &format!("/api/admin/users/{name}/role"), role).await;
    assert_eq!(status, 200, "{body}");
    let granted: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(granted["role"], role);
}

/// A moderator's act, answered however the server answers it.
async fn moderate(moderator: &mut Client, mut act: Value) -> Value {
    act["type"] = json!("moderate");
    moderator.request(act).await
}

async fn log(moderator: &mut Client) -> Vec<Value> {
    let page = moderator.ok(json!({"type": "moderation_log"})).await;
    page["entries"].as_array().unwrap().clone()
}

async fn reports(moderator: &mut Client) -> Vec<Value> {
    let listed = moderator.ok(json!({"type": "list_reports"})).await;
    listed["reports"].as_array().unwrap().clone()
}

/// `client` says `text` in room 1; the line id its `chat` frame carries, as `watcher` receives it.
async fn say_in_room(client: &mut Client, watcher: &mut Client, text: &str) -> u64 {
    client
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": text}))
        .await;
    let heard = watcher
        .wait_for(|f| f["type"] == "chat" && f["text"] == text)
        .await;
    heard["line"].as_u64().expect("a chat line carries its id")
}

/// The moderators and the users of a scenario, on node `a` or `b`.
struct Cast {
    carol: Client,
    alice: Client,
    alice_b: Client,
    bob: Client,
    dave: Client,
}

async fn cast(a: &TestServer, b: &TestServer) -> Cast {
    let mut carol = a.player("carol").await;
    let alice = a.player("alice").await;
    let alice_b = b.player_login("alice").await;
    let bob = a.player("bob").await;
    let dave = b.player("dave").await;
    grant(a, "carol", "moderator").await;
    // A role holds at once: the next request reads it.
    assert_eq!(reports(&mut carol).await, Vec::<Value>::new());
    Cast {
        carol,
        alice,
        alice_b,
        bob,
        dave,
    }
}

/// A line reported by bob is removed by carol: dave, on node `b`, who shows it, is told to drop
/// it, and the room's recent chat forgets it.
async fn removes_a_reported_line(c: &mut Cast) -> u64 {
    for client in [&mut c.alice, &mut c.bob, &mut c.dave] {
        client.ok(json!({"type": "join_room", "room": 1})).await;
    }
    say_in_room(&mut c.bob, &mut c.dave, "hello all").await;
    let line = say_in_room(&mut c.alice, &mut c.dave, "you play like a beginner, idiot").await;
    say_in_room(&mut c.bob, &mut c.dave, "that was rude").await;
    let filed = c
        .bob
        .ok(
            json!({"type": "report", "target": {"kind": "chat_line", "line": line},
                   "reason": "insults in the room"}),
        )
        .await;
    let report = filed["report"].as_u64().unwrap();
    let queue = reports(&mut c.carol).await;
    assert_eq!(queue.len(), 1, "{queue:?}");
    assert_eq!(queue[0]["report"], report);
    assert_eq!(queue[0]["reporter"], "bob");
    let reported = &queue[0]["reported"];
    assert_eq!(reported["kind"], "chat_line");
    assert_eq!(reported["line"]["username"], "alice");
    let context: Vec<&str> = reported["context"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kept| kept["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        context,
        [
            "hello all",
            "you play like a beginner, idiot",
            "that was rude"
        ]
    );
    let removed = moderate(
        &mut c.carol,
        json!({"action": "remove_chat", "line": line, "reason": "insult", "report": report}),
    )
    .await;
    assert_eq!(removed["type"], "ack", "{removed}");
    let dropped = c.dave.wait_for(|f| f["type"] == "chat_removed").await;
    assert_eq!(dropped["line"], line);
    assert_eq!(dropped["channel"], json!({"kind": "room", "room": 1}));
    c.dave.backlog.retain(|f| f["type"] != "room");
    c.dave.ok(json!({"type": "join_room", "room": 1})).await;
    let room = c.dave.wait_for(|f| f["type"] == "room").await;
    let kept: Vec<&Value> = room["recent_chat"].as_array().unwrap().iter().collect();
    assert_eq!(kept.len(), 2, "{room}");
    assert!(kept.iter().all(|l| l["line"] != line));
    assert_eq!(reports(&mut c.carol).await, Vec::<Value>::new());
    line
}

/// A reported user is muted: told so on both nodes, and their chat is refused on both.
async fn mutes_a_reported_user(c: &mut Cast) {
    let filed = c
        .bob
        .ok(
            json!({"type": "report", "target": {"kind": "user", "username": "ALICE"},
                   "reason": "keeps insulting"}),
        )
        .await;
    let report = filed["report"].as_u64().unwrap();
    let queue = reports(&mut c.carol).await;
    assert_eq!(queue[0]["reported"]["username"], "alice", "{queue:?}");
    let muted = moderate(
        &mut c.carol,
        json!({"action": "mute", "username": "alice", "minutes": 60,
               "reason": "insults in the room", "report": report}),
    )
    .await;
    assert_eq!(muted["type"], "ack", "{muted}");
    c.alice_b.ok(json!({"type": "join_room", "room": 1})).await;
    for alice in [&mut c.alice, &mut c.alice_b] {
        let told = alice.wait_type("muted").await;
        assert_eq!(told["reason"], "insults in the room");
        let refused = alice
            .err(
                json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hey"}),
                "muted",
            )
            .await;
        let message = refused["message"].as_str().unwrap();
        assert!(
            message.contains("until 20") && message.contains("UTC"),
            "{message}"
        );
        assert!(message.contains("insults in the room"), "{message}");
    }
}

/// A reported live game is voided: it ends void, every stake and bet comes back, the audit is
/// clean, and the watcher's kibitz line is removed for another watcher.
async fn voids_a_reported_game(a: &TestServer, c: &mut Cast) -> u64 {
    let game = start_table_game(&mut c.alice, &mut c.bob, 2).await;
    c.dave.ok(json!({"type": "watch", "game": game})).await;
    c.carol.ok(json!({"type": "watch", "game": game})).await;
    bet_placed(&mut c.dave, game, "white", 300).await;
    let kibitz = json!({"type": "chat", "channel": {"kind": "kibitz", "game": game},
                        "text": "black is throwing this game"});
    c.dave.ok(kibitz).await;
    let heard = c
        .carol
        .wait_for(|f| f["type"] == "chat" && f["channel"]["kind"] == "kibitz")
        .await;
    let line = heard["line"].as_u64().unwrap();
    let removed = moderate(
        &mut c.carol,
        json!({"action": "remove_chat", "line": line, "reason": "accusation"}),
    )
    .await;
    assert_eq!(removed["type"], "ack", "{removed}");
    let dropped = c.carol.wait_type("chat_removed").await;
    assert_eq!(dropped["line"], line);
    let filed = c
        .dave
        .ok(
            json!({"type": "report", "target": {"kind": "game", "game": game},
                   "reason": "sandbagging"}),
        )
        .await;
    let report = filed["report"].as_u64().unwrap();
    let queue = reports(&mut c.carol).await;
    let reported = &queue[0]["reported"];
    assert_eq!(reported["black"], "alice", "{queue:?}");
    assert_eq!(reported["white"], "bob");
    c.dave.backlog.retain(|f| f["type"] != "balance");
    let voided = moderate(
        &mut c.carol,
        json!({"action": "void_game", "game": game, "reason": "sandbagging", "report": report}),
    )
    .await;
    assert_eq!(voided["type"], "ack", "{voided}");
    let ended = c
        .dave
        .wait_for(|f| f["type"] == "game_event" && f["game"] == game && f["event"] == "ended")
        .await;
    assert_eq!(ended["outcome"]["reason"], "void", "{ended}");
    let refunded = c
        .dave
        .wait_for(|f| f["type"] == "balance" && f["balance"] == GRANT)
        .await;
    assert_eq!(refunded["balance"], GRANT);
    assert_eq!(balance(&mut c.dave).await, GRANT);
    assert_audit_clean(a).await;
    game
}

/// Alice's mute is lifted early: she is told on both nodes and talks again on both; lifting it
/// again is refused, since none holds.
async fn lifts_the_mute(c: &mut Cast) {
    let lifted = moderate(
        &mut c.carol,
        json!({"action": "unmute", "username": "alice", "reason": "apologised"}),
    )
    .await;
    assert_eq!(lifted["type"], "ack", "{lifted}");
    for alice in [&mut c.alice, &mut c.alice_b] {
        let told = alice.wait_type("unmuted").await;
        assert_eq!(told["reason"], "apologised");
        let said = json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "sorry"});
        alice.ok(said).await;
    }
    let again = moderate(
        &mut c.carol,
        json!({"action": "unmute", "username": "alice", "reason": "twice"}),
    )
    .await;
    assert_eq!(again["code"], "not_allowed", "{again}");
    assert_eq!(again["message"], "alice is not muted");
}

/// Alice's ban is lifted: she logs in again on either node; lifting it again is refused.
async fn lifts_the_ban(b: &TestServer, carol: &mut Client) {
    let lifted = moderate(
        carol,
        json!({"action": "unban", "username": "alice", "reason": "appeal granted"}),
    )
    .await;
    assert_eq!(lifted["type"], "ack", "{lifted}");
    let mut alice = b.client().await;
    alice.hello().await;
    let session = alice
        .ok(json!({"type": "login", "username": "alice", "password": "password123"}))
        .await;
    assert_eq!(session["type"], "session", "{session}");
    let again = moderate(
        carol,
        json!({"action": "unban", "username": "alice", "reason": "twice"}),
    )
    .await;
    assert_eq!(again["code"], "not_allowed", "{again}");
}

/// A ban ends alice's connections on both nodes and refuses her login with its reason and end.
async fn bans_a_user(a: &TestServer, b: &TestServer, c: Cast) -> Client {
    let Cast {
        mut carol,
        alice,
        alice_b,
        ..
    } = c;
    let banned = moderate(
        &mut carol,
        json!({"action": "ban", "username": "alice", "days": 7, "reason": "insults after a mute"}),
    )
    .await;
    assert_eq!(banned["type"], "ack", "{banned}");
    for mut alice in [alice, alice_b] {
        let told = alice.wait_type("logged_out").await;
        assert_eq!(told["reason"], "banned");
        assert_eq!(told["ban_reason"], "insults after a mute");
        assert!(told["banned_until_ms"].as_u64().is_some(), "{told}");
        // Then the socket closes.
        while let Some(frame) = alice.read_socket().await {
            assert_ne!(frame["type"], "ack", "{frame}");
        }
    }
    for server in [a, b] {
        let mut again = server.client().await;
        again.hello().await;
        let refused = again
            .err(
                json!({"type": "login", "username": "alice", "password": "password123"}),
                "banned",
            )
            .await;
        let message = refused["message"].as_str().unwrap();
        assert!(
            message.contains("insults after a mute") && message.contains("UTC"),
            "{message}"
        );
    }
    carol
}

/// The whole story on nodes `a` and `b` (the same server, on one node).
async fn reports_handled_by_a_moderator(a: &TestServer, b: &TestServer) {
    let mut cast = cast(a, b).await;
    let line = removes_a_reported_line(&mut cast).await;
    mutes_a_reported_user(&mut cast).await;
    let game = voids_a_reported_game(a, &mut cast).await;
    lifts_the_mute(&mut cast).await;
    let mut carol = bans_a_user(a, b, cast).await;
    lifts_the_ban(b, &mut carol).await;
    let entries = log(&mut carol).await;
    let acts: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    let story = [
        "unban",
        "ban",
        "unmute",
        "void_game",
        "remove_chat",
        "mute",
        "remove_chat",
    ];
    assert_eq!(acts, story);
    assert!(entries.iter().all(|e| e["moderator"] == "carol"));
    assert_eq!(entries[0]["reason"], "appeal granted");
    assert_eq!(entries[2]["username"], "alice");
    assert_eq!(entries[3]["game"], game);
    assert_eq!(entries[6]["line"], line);
    assert_eq!(entries[5]["username"], "alice");
    assert!(entries[5]["until_ms"].as_u64().is_some());
    let older = carol
        .ok(json!({"type": "moderation_log", "before": entries[3]["entry"]}))
        .await;
    assert_eq!(older["entries"].as_array().unwrap().len(), 3);
    let (status, body) = http_get(a, "/api/admin/moderation", Some(ADMIN_TOKEN)).await;
    assert_eq!(status, 200, "{body}");
    let counters: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(counters["open_reports_count"], 0, "{counters}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_handles_reports_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    reports_handled_by_a_moderator(&server, &server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_handles_reports_on_redis() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let mut config = redis.config(dir.path());
    config.admin_token = Some(ADMIN_TOKEN.into());
    let server = TestServer::start_with(config).await;
    reports_handled_by_a_moderator(&server, &server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_handles_reports_across_two_nodes() {
    let redis = RedisServer::start();
    let (_dirs, a, b) = two_nodes(&redis).await;
    reports_handled_by_a_moderator(&a, &b).await;
    b.stop().await;
    a.stop().await;
}

/// A game whose end was stored but whose points were not settled (the node stopped in between) is
/// settled void once: every bet back, the audit clean; a second void is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_unsettled_game_is_voided_through_settlement_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.admin_token = Some(ADMIN_TOKEN.into());
    config.fault_stop_before_settlement = true;
    let server = TestServer::start_with(config).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut dave = server.player("dave").await;
    let mut carol = server.player("carol").await;
    // The operator's command line, on the store the running server uses.
    let (granted, said) = tengen_admin(dir.path(), &["grant-moderator", "carol"]);
    assert!(granted, "{said}");
    assert!(
        said.contains("carol") && said.contains("moderator"),
        "{said}"
    );
    let (granted, said) = tengen_admin(dir.path(), &["grant-moderator", "nobody"]);
    assert!(!granted && said.contains("no user nobody"), "{said}");
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    dave.ok(json!({"type": "watch", "game": game})).await;
    bet_placed(&mut dave, game, "white", 200).await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    dave.wait_for(|f| f["type"] == "game_event" && f["event"] == "ended")
        .await;
    assert_eq!(balance(&mut dave).await, GRANT - 200);
    dave.backlog.retain(|f| f["type"] != "balance");
    let act = json!({"action": "void_game", "game": game, "reason": "collusion"});
    let voided = moderate(&mut carol, act.clone()).await;
    assert_eq!(voided["type"], "ack", "{voided}");
    dave.wait_for(|f| f["type"] == "balance" && f["balance"] == GRANT)
        .await;
    assert_eq!(balance(&mut dave).await, GRANT);
    let report = assert_audit_clean(&server).await;
    assert_eq!(report["settled_games_count"], 1, "{report}");
    let again = moderate(&mut carol, act).await;
    assert_eq!(again["code"], "already_settled", "{again}");
    assert_eq!(log(&mut carol).await.len(), 1);
    let token = dave.token.clone().unwrap();
    server.stop().await;

    // A restart finds the game settled (void) and settles nothing again.
    let server = start_server(dir.path()).await;
    let mut dave = server.client().await;
    dave.hello().await;
    dave.ok(json!({"type": "resume", "token": token})).await;
    assert_eq!(balance(&mut dave).await, GRANT);
    let report = assert_audit_clean(&server).await;
    assert_eq!(report["settled_games_count"], 1, "{report}");
    // Taken back by the command line, the role is gone at once.
    let (revoked, said) = tengen_admin(dir.path(), &["revoke-moderator", "carol"]);
    assert!(revoked, "{said}");
    let mut carol = server.player_login("carol").await;
    carol
        .err(json!({"type": "moderation_log"}), "not_moderator")
        .await;
    server.stop().await;
}

/// Every bad request is refused with a clear error and changes nothing: reports and acts on an
/// unknown user, line or game, a moderator acting on another moderator without being an admin, a
/// ban of oneself, mutes of 0 minutes and of 10 years, acts by a user, a settled game voided.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_reports_and_acts_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut carol = server.player("carol").await;
    let mut erin = server.player("erin").await;
    let mut root = server.player("root").await;
    let mut bob = server.player("bob").await;
    let mut alice = server.player("alice").await;
    grant(&server, "carol", "moderator").await;
    grant(&server, "erin", "moderator").await;
    grant(&server, "root", "admin").await;
    let (status, _) = http_put(&server, "/api/admin/users/nobody/role", "moderator").await;
    assert_eq!(status, 404);
    let (status, _) = http_put(&server, "/api/admin/users/bob/role", "king").await;
    assert_eq!(status, 400);

    let report =
        |target: Value, reason: &str| json!({"type": "report", "target": target, "reason": reason});
    bob.err(
        report(json!({"kind": "user", "username": "nobody"}), "spam"),
        "no_such_user",
    )
    .await;
    bob.err(
        report(json!({"kind": "chat_line", "line": 999_999}), "spam"),
        "no_such_chat_line",
    )
    .await;
    bob.err(
        report(json!({"kind": "game", "game": 999_999}), "spam"),
        "no_such_game",
    )
    .await;
    bob.err(
        report(json!({"kind": "user", "username": "alice"}), "   "),
        "bad_reason",
    )
    .await;
    bob.err(report(json!({"kind": "user"}), "spam"), "bad_message")
        .await;
    assert_eq!(reports(&mut carol).await, Vec::<Value>::new());

    let refused = [
        (
            json!({"action": "mute", "username": "nobody", "minutes": 5}),
            "no_such_user",
        ),
        (
            json!({"action": "remove_chat", "line": 999_999}),
            "no_such_chat_line",
        ),
        (
            json!({"action": "void_game", "game": 999_999}),
            "no_such_game",
        ),
        (
            json!({"action": "mute", "username": "erin", "minutes": 5}),
            "not_moderator",
        ),
        (
            json!({"action": "ban", "username": "erin"}),
            "not_moderator",
        ),
        (
            json!({"action": "ban", "username": "carol", "days": 1}),
            "not_allowed",
        ),
        (
            json!({"action": "mute", "username": "alice", "minutes": 0}),
            "bad_duration",
        ),
        (
            json!({"action": "mute", "username": "alice", "minutes": 5_256_000}),
            "bad_duration",
        ),
        (
            json!({"action": "ban", "username": "alice", "days": 3650}),
            "bad_duration",
        ),
        (
            json!({"action": "dismiss", "report": 999_999}),
            "no_such_report",
        ),
        (json!({"action": "dismiss"}), "bad_message"),
    ];
    for (mut act, code) in refused {
        act["reason"] = json!("testing");
        let answer = moderate(&mut carol, act.clone()).await;
        assert_eq!(answer["code"], code, "{act}: {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let no_reason = json!({"action": "mute", "username": "alice", "minutes": 5, "reason": ""});
    assert_eq!(moderate(&mut carol, no_reason).await["code"], "bad_reason");
    // A user may do none of it.
    let act = json!({"action": "mute", "username": "alice", "minutes": 5, "reason": "x"});
    assert_eq!(moderate(&mut bob, act).await["code"], "not_moderator");
    bob.err(json!({"type": "list_reports"}), "not_moderator")
        .await;
    bob.err(json!({"type": "moderation_log"}), "not_moderator")
        .await;
    // Nothing changed: no entry, alice still talks and logs in.
    assert_eq!(log(&mut carol).await, Vec::<Value>::new());
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    alice
        .ok(json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "still here"}))
        .await;
    server.player_login("alice").await;

    // An admin acts on a moderator.
    let act = json!({"action": "mute", "username": "erin", "minutes": 1, "reason": "test"});
    assert_eq!(moderate(&mut root, act).await["type"], "ack");
    erin.err(
        json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hi"}),
        "not_there",
    )
    .await;
    erin.ok(json!({"type": "join_room", "room": 1})).await;
    erin.err(
        json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hi"}),
        "muted",
    )
    .await;

    // A settled game cannot be voided.
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    let mut settled = false;
    for _ in 0..100 {
        let act = json!({"action": "void_game", "game": game, "reason": "late"});
        let answer = moderate(&mut carol, act).await;
        if answer["code"] == "already_settled" {
            settled = true;
            break;
        }
        // The game's actor is still settling it: its own ending comes first.
        assert_ne!(answer["type"], "ack", "{answer}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(settled);
    assert_eq!(log(&mut carol).await.len(), 1);
    assert_audit_clean(&server).await;
    server.stop().await;
}

/// Reports beyond the first few wait, counted in the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_are_rate_limited() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut bob = server.player("bob").await;
    server.player("alice").await;
    let report = json!({"type": "report", "target": {"kind": "user", "username": "alice"},
                        "reason": "spam"});
    for _ in 0..5 {
        bob.ok(report.clone()).await;
    }
    let refused = bob.err(report, "rate_limited").await;
    assert!(refused["message"].as_str().unwrap().contains(" s"));
    server.stop().await;
}
