//! Bad input over real sockets: malformed JSON, unknown types, bad fields, oversized frames, floods,
//! requests before `hello` or without an account, wrong passwords and throttling, foreign origins and
//! too many connections. Each gets a clear error with a code, changes nothing, and (for frames the
//! server can still read) leaves the socket open.

mod common;

use common::{test_config, TestServer};
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_frames_get_errors_and_the_socket_stays_open() {
    let server = TestServer::start().await;
    let mut client = server.client().await;

    client.send_text("{this is not json").await;
    let reply = client.read_socket().await.unwrap();
    assert_eq!(reply["type"], "error");
    assert_eq!(reply["code"], "bad_json");

    client.send_text(r#"{"type":"teleport","id":7}"#).await;
    let reply = client.read_socket().await.unwrap();
    assert_eq!(reply["code"], "unknown_type");
    assert_eq!(reply["id"], 7);

    client.send_text(r#"{"type":"play","id":8,"game":1}"#).await;
    let reply = client.read_socket().await.unwrap();
    assert_eq!(reply["code"], "bad_message");
    assert_eq!(reply["id"], 8);

    client.send_text(r#"[1, 2, 3]"#).await;
    let reply = client.read_socket().await.unwrap();
    assert_eq!(reply["code"], "bad_message");

    // 100 KiB of valid JSON is still too large to read.
    let big = json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "x".repeat(100 * 1024)});
    client.send_text(&big.to_string()).await;
    let reply = client.read_socket().await.unwrap();
    assert_eq!(reply["code"], "frame_too_large");

    // Before hello, nothing else is served.
    client
        .err(json!({"type": "enter_hall"}), "hello_required")
        .await;
    client
        .err(
            json!({"type": "hello", "version": 99}),
            "version_unsupported",
        )
        .await;
    // After all that, the connection works normally.
    client.hello().await;
    client.ok(json!({"type": "enter_hall"})).await;
    let hall = client.wait_type("hall").await;
    assert_eq!(hall["rooms"].as_array().unwrap().len(), 3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acting_needs_an_account_and_refusals_change_nothing() {
    let server = TestServer::start().await;
    let mut anon = server.client().await;
    anon.hello().await;
    anon.err(
        json!({"type": "sit", "table": 1, "seat": "left"}),
        "not_logged_in",
    )
    .await;
    anon.err(json!({"type": "pass", "game": 1}), "not_logged_in")
        .await;
    anon.err(json!({"type": "join_room", "room": 99}), "no_such_room")
        .await;
    anon.err(
        json!({"type": "join_table", "table": 9999}),
        "no_such_table",
    )
    .await;
    anon.err(json!({"type": "watch", "game": 42}), "no_such_game")
        .await;

    let mut alice = server.player("alice").await;
    alice
        .err(json!({"type": "pass", "game": 42}), "no_such_game")
        .await;
    alice
        .err(json!({"type": "stand", "table": 1}), "not_seated")
        .await;
    alice
        .ok(json!({"type": "sit", "table": 1, "seat": "left"}))
        .await;
    alice
        .err(
            json!({"type": "sit", "table": 2, "seat": "left"}),
            "already_seated",
        )
        .await;
    alice
        .err(
            json!({"type": "propose_settings", "table": 1, "settings": common::settings_9x9()}),
            "not_your_role",
        )
        .await;
    let mut bob = server.player("bob").await;
    bob.err(
        json!({"type": "sit", "table": 1, "seat": "left"}),
        "seat_taken",
    )
    .await;
    let mut bad = common::settings_9x9();
    bad["size"] = json!(10);
    bob.ok(json!({"type": "sit", "table": 1, "seat": "right"}))
        .await;
    bob.err(
        json!({"type": "propose_settings", "table": 1, "settings": bad}),
        "invalid_settings",
    )
    .await;
    alice
        .err(
            json!({"type": "accept_settings", "table": 1, "settings": common::settings_9x9()}),
            "proposal_mismatch",
        )
        .await;
    alice
        .err(
            json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hi"}),
            "not_there",
        )
        .await;
    alice.ok(json!({"type": "join_room", "room": 1})).await;
    alice
        .err(
            json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "x".repeat(501)}),
            "bad_chat",
        )
        .await;
    // The table is as it was: both seated, no proposal, no game.
    let mut watcher = server.client().await;
    watcher.hello().await;
    watcher.ok(json!({"type": "join_table", "table": 1})).await;
    let table = watcher.wait_type("table_updated").await["table"].clone();
    assert_eq!(table["left"]["username"], "alice");
    assert_eq!(table["right"]["username"], "bob");
    assert!(table["proposal"].is_null() && table["game"].is_null());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_reject_bad_names_passwords_and_guessing() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    client.hello().await;
    let register = |username: &str, password: &str| json!({"type": "register", "username": username, "password": password});
    client
        .err(register("x", "password123"), "invalid_username")
        .await;
    client
        .err(register("bad name", "password123"), "invalid_username")
        .await;
    client
        .err(register("erin", "short"), "invalid_password")
        .await;
    client
        .err(register("erin", &"p".repeat(129)), "invalid_password")
        .await;
    // A rank is the player's text: one ending inside a multi-byte character is refused, not split.
    for rank in ["\u{202e}\u{d7ff}", "3段", "1\u{301}d"] {
        let with_rank = json!({"type": "register", "username": "erin", "password": "password123", "rank": rank});
        client.err(with_rank, "bad_message").await;
    }
    let _frank = server.player("frank").await;
    client
        .err(register("FRANK", "password123"), "username_taken")
        .await;

    let login = |username: &str, password: &str| json!({"type": "login", "username": username, "password": password});
    // Unknown user and wrong password look the same.
    let unknown = client
        .err(login("nobody", "password123"), "bad_credentials")
        .await;
    let wrong = client
        .err(login("frank", "wrong password"), "bad_credentials")
        .await;
    assert_eq!(unknown["message"], wrong["message"]);
    client
        .err(json!({"type": "resume", "token": "00ff"}), "invalid_token")
        .await;
    // A correct login works, and logging out kills the token.
    let session = client.ok(login("Frank", "password123")).await;
    assert_eq!(session["username"], "frank");
    client
        .err(login("frank", "password123"), "already_logged_in")
        .await;
    let token = session["token"].as_str().unwrap().to_string();
    assert!(token.len() >= 32);
    client.ok(json!({"type": "logout"})).await;
    client
        .err(json!({"type": "resume", "token": token}), "invalid_token")
        .await;

    // Guessing: after a few failures the account is throttled, even for the right password. (The
    // successful login above reset the count.)
    for _ in 0..tengen_server::config::LOGIN_FAILURES_MAX {
        client
            .err(login("frank", "wrong password"), "bad_credentials")
            .await;
    }
    client
        .err(login("frank", "password123"), "login_throttled")
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_are_rate_limited_without_closing_the_socket() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    client.hello().await;
    for _ in 0..100 {
        client.send_text(r#"{"type":"leave_hall"}"#).await;
    }
    let mut limited = 0;
    for _ in 0..100 {
        let reply = client.read_socket().await.unwrap();
        if reply["code"] == "rate_limited" {
            limited += 1;
        }
    }
    assert!(limited >= 40, "only {limited} of 100 messages were limited");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    client.ok(json!({"type": "leave_hall"})).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_and_connection_floods_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.connections_per_ip_max = 2;
    let server = TestServer::start_with(config).await;

    let with_origin = |origin: &str| {
        let mut request = server.ws_url().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Origin", HeaderValue::from_str(origin).unwrap());
        request
    };
    let refused = tokio_tungstenite::connect_async(with_origin("https://evil.example")).await;
    let status = match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status(),
        other => panic!("a foreign origin was not refused: {:?}", other.map(|_| ())),
    };
    assert_eq!(status, 403);
    // Every connection holds a slot until the server sees it close, the refused one's too: until it
    // has, a connection may be answered 429, so these two try again (a bounded number of times).
    let mut local = None;
    for _ in 0..100 {
        match tokio_tungstenite::connect_async(with_origin("http://localhost:5173")).await {
            Ok((ws, _)) => {
                local = Some(ws);
                break;
            }
            Err(tokio_tungstenite::tungstenite::Error::Http(response))
                if response.status() == 429 =>
            {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await
            }
            Err(err) => panic!("localhost is allowed: {err}"),
        }
    }
    let local = local.expect("a slot was freed");
    let mut second = None;
    for _ in 0..100 {
        if let Ok((ws, _)) = tokio_tungstenite::connect_async(server.ws_url()).await {
            second = Some(ws);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut second = second.expect("a second slot was freed");

    // `local` and `second` hold both slots (so the refused connection is gone): the third is refused.
    match tokio_tungstenite::connect_async(server.ws_url()).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 429)
        }
        other => panic!(
            "a third connection was not refused: {:?}",
            other.map(|_| ())
        ),
    }
    // Closing one frees its slot.
    let _ = second.close(None).await;
    drop(local);
    let mut again = None;
    for _ in 0..50 {
        if let Ok((ws, _)) = tokio_tungstenite::connect_async(server.ws_url()).await {
            again = Some(ws);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(again.is_some(), "a freed slot was never reusable");
    server.stop().await;
}
