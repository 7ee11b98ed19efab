//! Stores written by the first version of the server (`tests/fixtures/stores-v0`: ASCII usernames
//! keyed by their ASCII lowercase, no confusable skeletons, no schema version) opened by today's:
//! each store is brought to the current schema at start, every old account is still found and logs
//! in (by any case or width of its name), old accounts whose names look alike ("corn" and "com")
//! are both kept, and a new name that looks like any of them is refused.

mod common;

use std::path::Path;

use common::{http_get, Client, TestServer};
use serde_json::{json, Value};

/// The fixture's accounts, all with this password.
const OLD_NAMES: [&str; 6] = ["alice", "Bob_2", "corn", "com", "bill", "bi11"];
const PASSWORD: &str = "password123";

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stores-v0");

async fn login(server: &TestServer, username: &str) -> Value {
    let mut client = server.client().await;
    client.hello().await;
    client
        .request(json!({"type": "login", "username": username, "password": PASSWORD}))
        .await
}

async fn register(client: &mut Client, username: &str) -> Value {
    client
        .request(json!({"type": "register", "username": username, "password": PASSWORD}))
        .await
}

/// What a store migrated from the fixture must show, on whichever backend.
async fn old_accounts_are_found(server: &TestServer) {
    for (id, name) in (1..).zip(OLD_NAMES) {
        let session = login(server, name).await;
        assert_eq!(session["type"], "session", "{name}: {session}");
        assert_eq!(session["user"], id, "{name}");
        assert_eq!(session["username"], name);
        // Migrated to version 4, an old account is a user (no role) and not muted.
        assert_eq!(session.get("role"), None, "{session}");
        assert_eq!(session.get("muted_until_ms"), None, "{session}");
    }
    // Any case or width of an old name finds its account.
    for (variant, id) in [("ALICE", 1), ("ｂｏｂ＿２", 2), ("CoRn", 3), ("COM", 4)] {
        let session = login(server, variant).await;
        assert_eq!(session["user"], id, "{variant}: {session}");
    }
    // The account's page of games is found by any spelling of the name too.
    let games = http_get(server.addr, "/api/users/ALICE/games", None).await;
    assert!(games.starts_with("HTTP/1.1 200"), "{games}");

    // New names: the same in another case is taken; a lookalike of any old account is refused,
    // naming it; anything else is free.
    let mut client = server.client().await;
    client.hello().await;
    let taken = register(&mut client, "BILL").await;
    assert_eq!(taken["code"], "username_taken", "{taken}");
    // "аӏісе" is all Cyrillic, and passes for "alice".
    for (lookalike, existing) in [("аӏісе", "alice"), ("c0rn", "corn"), ("biII", "bill")] {
        let refused = register(&mut client, lookalike).await;
        assert_eq!(
            refused["code"], "username_confusable",
            "{lookalike}: {refused}"
        );
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(message.contains(existing), "{lookalike}: {refused}");
    }
    // Cyrillic а among Latin letters is refused for mixing scripts, whoever is registered.
    let mixed = register(&mut client, "аlice").await;
    assert_eq!(mixed["code"], "invalid_username", "{mixed}");
    let fresh = register(&mut client, "棋圣").await;
    assert_eq!(fresh["type"], "session", "{fresh}");
    // Every old account is found by the start of its name (the index of names the migration made),
    // the new one too.
    for (prefix, names) in [
        ("CO", vec!["com", "corn"]),
        ("b", vec!["bi11", "bill", "Bob_2"]),
        ("棋", vec!["棋圣"]),
    ] {
        let found = client
            .request(json!({"type": "find_players", "prefix": prefix}))
            .await;
        let found: Vec<&str> = found["players"]
            .as_array()
            .unwrap_or_else(|| panic!("{prefix}: {found}"))
            .iter()
            .map(|p| p["username"].as_str().unwrap())
            .collect();
        assert_eq!(found, names, "{prefix}");
    }
    // Past the old ids (Redis spends an id on each refused name, SQLite does not).
    assert!(fresh["user"].as_u64() > Some(6), "{fresh}");
    // Relations (schema version 4) between old accounts and new.
    let followed = client
        .request(json!({"type": "follow", "username": "bob_2"}))
        .await;
    assert_eq!(
        followed["relations"]["friends"][0]["player"]["username"], "Bob_2",
        "{followed}"
    );
}

/// A copy of the SQLite fixture in a fresh data directory (the server writes into it).
fn sqlite_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let db = tengen_server::store::sqlite::DB_FILE;
    std::fs::copy(Path::new(FIXTURES).join(db), dir.path().join(db)).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_sqlite_store_is_migrated_and_its_accounts_found() {
    let dir = sqlite_fixture();
    let db = dir.path().join(tengen_server::store::sqlite::DB_FILE);
    let version = |db: &Path| -> i64 {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap()
    };
    assert_eq!(version(&db), 0);
    let server = TestServer::start_with(common::test_config(dir.path())).await;
    old_accounts_are_found(&server).await;
    // The SQLite fixture holds a game too (the Redis one only the accounts): listed as before, and
    // counted in both players' rated records, with no point on their rating graphs (the rating after
    // it was never kept).
    let games = http_get(server.addr, "/api/users/bob_2/games", None).await;
    assert!(
        games.contains(r#""black":"alice","white":"Bob_2""#),
        "{games}"
    );
    let profile = |name: &'static str| async move {
        let body = http_get(server.addr, &format!("/api/users/{name}"), None).await;
        let body = body
            .split("\r\n\r\n")
            .last()
            .unwrap_or_default()
            .to_string();
        serde_json::from_str::<Value>(&body).unwrap_or_else(|err| panic!("{err}: {body}"))
    };
    let alice = profile("alice").await;
    let bob = profile("bob_2").await;
    assert_eq!(
        alice["record"],
        json!([{"size": 9, "wins": 0, "losses": 1, "draws": 0}])
    );
    assert_eq!(
        bob["record"],
        json!([{"size": 9, "wins": 1, "losses": 0, "draws": 0}])
    );
    assert_eq!(alice["rating_history"], json!([]));
    server.stop().await;
    assert_eq!(version(&db), 4);
    let conn = rusqlite::Connection::open(&db).unwrap();
    // Version 3's moderation tables start empty: every old account is a user, free to talk.
    for table in [
        "roles",
        "sanctions",
        "chat_lines",
        "reports",
        "moderation_log",
    ] {
        let rows: i64 = conn
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(rows, 0, "{table}");
    }
    let lookalikes: Vec<(String, String)> = conn
        .prepare(
            "SELECT u.username, v.username FROM users u JOIN users v
             ON u.username_skeleton = v.username_skeleton AND u.id < v.id ORDER BY u.id",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let pairs = [("corn", "com"), ("bill", "bi11")].map(|(a, b)| (a.to_string(), b.to_string()));
    assert_eq!(lookalikes, pairs);
    drop(conn);

    // Opened again, the store is not migrated twice and still finds everyone.
    let server = TestServer::start_with(common::test_config(dir.path())).await;
    for name in OLD_NAMES {
        assert_eq!(login(&server, name).await["type"], "session", "{name}");
    }
    assert_eq!(login(&server, "棋圣").await["user"], 7);
    server.stop().await;
    assert_eq!(version(&db), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_a_newer_server_is_refused() {
    let dir = sqlite_fixture();
    let db = dir.path().join(tengen_server::store::sqlite::DB_FILE);
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let opened = tengen_server::store::sqlite::SqliteStore::open(dir.path());
    let err = opened.err().map(|err| err.to_string()).unwrap_or_default();
    assert!(err.contains("newer"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_redis_store_is_migrated_and_its_accounts_found() {
    let redis = common::redis::RedisServer::start();
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let fixture = std::fs::read_to_string(Path::new(FIXTURES).join("redis.jsonl")).unwrap();
    for line in fixture.lines() {
        let words: Vec<String> = serde_json::from_str(line).unwrap();
        let (command, args) = words.split_first().unwrap();
        redis::cmd(command).arg(args).exec(&mut conn).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(redis.config(dir.path())).await;
    old_accounts_are_found(&server).await;
    server.stop().await;
    let version: String = redis::cmd("GET")
        .arg("{users}:schema")
        .query(&mut conn)
        .unwrap();
    assert_eq!(version, "4");
    // The oldest of each pair of lookalikes holds the skeleton; the other keeps its account.
    let skeletons: std::collections::HashMap<String, String> = redis::cmd("HGETALL")
        .arg("{users}:by_skeleton")
        .query(&mut conn)
        .unwrap();
    assert_eq!(skeletons.get("corn").map(String::as_str), Some("3"));
    assert_eq!(skeletons.get("bill").map(String::as_str), Some("5"));
    assert_eq!(skeletons.len(), 5, "{skeletons:?}");

    // Opened again: nothing changes, and everyone still logs in.
    let server = TestServer::start_with(redis.config(dir.path())).await;
    for name in OLD_NAMES {
        assert_eq!(login(&server, name).await["type"], "session", "{name}");
    }
    server.stop().await;
}
