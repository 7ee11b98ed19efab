//! Accounts and sessions under abuse (items 8-10): login throttles per account and
//! address, per account, and per address, kept in the store across restarts; logout ending every
//! connection on its token, and logging out everywhere; registrations limited per address; and the
//! starting grant deferred to a new account's first finished game or a day.

mod common;

use common::{start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};
use tengen_server::config::{
    LOGIN_ACCOUNT_DELAY_MAX_MS, LOGIN_ACCOUNT_FAILURES_MAX, LOGIN_ADDRESS_FAILURES_MAX,
    LOGIN_FAILURES_MAX,
};

const PASSWORD: &str = "password123";

fn login(username: &str, password: &str) -> Value {
    json!({"type": "login", "username": username, "password": password})
}

fn register(username: &str) -> Value {
    json!({"type": "register", "username": username, "password": PASSWORD})
}

/// A throttled answer says how long to wait.
fn assert_says_wait(reply: &Value) {
    let message = reply["message"].as_str().unwrap_or_default();
    assert!(message.contains("try again in"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_logs_in_from_another_address_after_someone_elses_failures() {
    let server = TestServer::start().await;
    server.player("alice").await;
    let mut guesser = server.client_from(2).await;
    for _ in 0..LOGIN_FAILURES_MAX {
        guesser
            .err(login("alice", "wrong password"), "bad_credentials")
            .await;
    }
    // The guesser's address waits now, even with the right password.
    let throttled = guesser
        .err(login("alice", PASSWORD), "login_throttled")
        .await;
    assert_says_wait(&throttled);
    // The owner, from another address, is not locked out by them.
    let mut owner = server.client_from(3).await;
    let session = owner.ok(login("Alice", PASSWORD)).await;
    assert_eq!(session["type"], "session");
    server.stop().await;
}

/// The wait a throttled answer names, in seconds.
fn wait_seconds(reply: &Value) -> u64 {
    let message = reply["message"].as_str().unwrap_or_default();
    let after = message.split("try again in ").nth(1).unwrap_or_default();
    after.trim_end_matches(" s").parse().unwrap_or(u64::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guesses_spread_over_addresses_slow_the_account_but_never_for_long() {
    let server = TestServer::start().await;
    server.player("lena").await;
    // Each address stays within its own free failures; together they use up the account's.
    let per_address = LOGIN_FAILURES_MAX;
    let addresses = LOGIN_ACCOUNT_FAILURES_MAX.div_ceil(per_address);
    for n in 0..addresses {
        let mut guesser = server.client_from(30 + n as u8).await;
        for _ in 0..per_address {
            guesser
                .err(login("lena", "wrong password"), "bad_credentials")
                .await;
        }
    }
    // Now every address waits, the owner's new one too, but at most the account's cap (a minute),
    // however long the per-address waits have grown.
    let mut owner = server.client_from(60).await;
    let throttled = owner.err(login("lena", PASSWORD), "login_throttled").await;
    let cap_s = LOGIN_ACCOUNT_DELAY_MAX_MS / 1000;
    assert!(wait_seconds(&throttled) <= cap_s, "{throttled}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_clients() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    let server = TestServer::start_with(config).await;
    server.player("ken").await;
    let url = server.ws_url();
    let mut guesser = Client::connect_forwarded(&url, "198.51.100.1").await;
    guesser.hello().await;
    for _ in 0..LOGIN_FAILURES_MAX {
        guesser
            .err(login("ken", "wrong password"), "bad_credentials")
            .await;
    }
    guesser.err(login("ken", PASSWORD), "login_throttled").await;
    // Another client through the same proxy is another address.
    let mut owner = Client::connect_forwarded(&url, "198.51.100.2").await;
    owner.hello().await;
    owner.ok(login("ken", PASSWORD)).await;
    // A client that is not the proxy cannot pick its address: its own is used.
    let mut liar = Client::connect_from(
        &server.ws_url(),
        server.addr,
        std::net::IpAddr::from([127, 0, 0, 20]),
    )
    .await;
    liar.hello().await;
    for _ in 0..LOGIN_FAILURES_MAX {
        liar.err(login("ken", "wrong password"), "bad_credentials")
            .await;
    }
    liar.err(login("ken", PASSWORD), "login_throttled").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_guessing_many_accounts_is_throttled() {
    let server = TestServer::start().await;
    server.player("victim").await;
    let mut sprayer = server.client_from(4).await;
    // One password sprayed over many names, one guess each: no account sees repeated failures.
    for n in 0..LOGIN_ADDRESS_FAILURES_MAX {
        sprayer
            .err(login(&format!("name{n}"), "password1"), "bad_credentials")
            .await;
    }
    let throttled = sprayer
        .err(login("victim", "password1"), "login_throttled")
        .await;
    assert_says_wait(&throttled);
    // Other addresses log in as before.
    let mut owner = server.client_from(5).await;
    owner.ok(login("victim", PASSWORD)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_counters_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    server.player("carol").await;
    let mut guesser = server.client_from(6).await;
    for _ in 0..LOGIN_FAILURES_MAX {
        guesser
            .err(login("carol", "wrong password"), "bad_credentials")
            .await;
    }
    server.stop().await;

    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut guesser = server.client_from(6).await;
    guesser
        .err(login("carol", "wrong password"), "login_throttled")
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_from_one_address_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.throttles.register_address.free = 3;
    let server = TestServer::start_with(config).await;
    for n in 0..3 {
        let mut farmer = server.client_from(7).await;
        farmer.ok(register(&format!("farm{n}"))).await;
    }
    let mut farmer = server.client_from(7).await;
    let throttled = farmer
        .err(register("farm3"), "registration_throttled")
        .await;
    assert_says_wait(&throttled);
    // Nothing was made: the name is free for someone else, from another address.
    let mut other = server.client_from(8).await;
    other.ok(register("farm3")).await;
    server.stop().await;
}

/// A player registered from its own address, with the session reply it got.
async fn newcomer(server: &TestServer, name: &str, last: u8) -> (Client, Value) {
    let mut client = server.client_from(last).await;
    let session = client.ok(register(name)).await;
    client.user = session["user"].as_u64();
    client.token = session["token"].as_str().map(str::to_string);
    (client, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_accounts_grant_waits_for_its_first_finished_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.grant_delay_ms = tengen_server::config::GRANT_DELAY_MS;
    let server = TestServer::start_with(config).await;
    let (mut alice, session) = newcomer(&server, "alice", 9).await;
    // The grant is pending, shown with the session; the balance is 0 and betting needs points.
    assert_eq!(session["pending_grant"], 1000, "{session}");
    assert!(session["grant_due_at_ms"].as_u64().is_some(), "{session}");
    assert_eq!(alice.wait_type("balance").await["balance"], 0);
    let (mut bob, _) = newcomer(&server, "bob", 10).await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let (mut carol, _) = newcomer(&server, "carol", 11).await;
    carol.ok(json!({"type": "watch", "game": game})).await;
    carol
        .err(
            json!({"type": "bet", "game": game, "side": "black", "amount": 10}),
            "insufficient_points",
        )
        .await;
    // The game ends: both players' grants land and they hear it; the watcher's stays pending.
    alice.ok(json!({"type": "resign", "game": game})).await;
    for player in [&mut alice, &mut bob] {
        player
            .wait_for(|f| f["type"] == "balance" && f["balance"] == 1000)
            .await;
    }
    let mut again = server.client_from(9).await;
    let session = again.ok(login("alice", PASSWORD)).await;
    assert!(session.get("pending_grant").is_none(), "{session}");
    let session = carol_again(&server).await;
    assert_eq!(session["pending_grant"], 1000, "{session}");
    server.stop().await;
    // The book counts only what was granted: the audit holds.
    let report = offline_audit(dir.path());
    assert_eq!(report["granted"], 2000, "{report}");
}

async fn carol_again(server: &TestServer) -> Value {
    let mut client = server.client_from(11).await;
    client.ok(login("carol", PASSWORD)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_grant_lands_at_a_login_once_its_day_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.grant_delay_ms = tengen_server::config::GRANT_DELAY_MS;
    let server = TestServer::start_with(config).await;
    let (mut dave, session) = newcomer(&server, "dave", 12).await;
    assert_eq!(session["pending_grant"], 1000, "{session}");
    assert_eq!(dave.wait_type("balance").await["balance"], 0);
    let token = dave.token.clone().unwrap();
    server.stop().await;

    // The same account later: a server whose delay is over for it (0 stands for "a day later").
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut dave = server.client_from(12).await;
    let session = dave.ok(json!({"type": "resume", "token": token})).await;
    assert!(session.get("pending_grant").is_none(), "{session}");
    assert_eq!(dave.wait_type("balance").await["balance"], 1000);
    server.stop().await;
}

/// `tengen audit --data DIR`: its JSON report.
fn offline_audit(dir: &std::path::Path) -> Value {
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["audit", "--data"])
        .arg(dir)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    report
}

/// A second connection of `client`'s account resumed with its token.
async fn same_token(server: &TestServer, client: &Client) -> Client {
    let mut other = server.client().await;
    other.hello().await;
    let token = client.token.clone().unwrap();
    other.ok(json!({"type": "resume", "token": token})).await;
    other
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_ends_every_connection_on_that_token() {
    let server = TestServer::start().await;
    let mut erin = server.player("erin").await;
    let mut tab = same_token(&server, &erin).await;
    let mut phone = server.player_login("erin").await;
    let mut frank = server.player("frank").await;
    let mut grace = server.player("grace").await;
    let game = start_table_game(&mut frank, &mut grace, 1).await;
    tab.ok(json!({"type": "watch", "game": game})).await;
    tab.ok(json!({"type": "join_room", "room": 1})).await;

    erin.ok(json!({"type": "logout"})).await;
    let pushed = tab.wait_type("logged_out").await;
    assert_eq!(pushed["reason"], "logout");
    // The other tab is a watcher now: no chat, no bets, and its token is dead.
    tab.err(
        json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hi"}),
        "not_logged_in",
    )
    .await;
    tab.err(
        json!({"type": "bet", "game": game, "side": "black", "amount": 10}),
        "not_logged_in",
    )
    .await;
    tab.err(json!({"type": "balance"}), "not_logged_in").await;
    // Another token of the same account is not touched.
    phone.ok(json!({"type": "balance"})).await;
    assert!(!phone.backlog_has(|f| f["type"] == "logged_out"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_all_ends_every_token_of_the_account() {
    let server = TestServer::start().await;
    let mut heidi = server.player("heidi").await;
    let mut laptop = server.player_login("heidi").await;
    let laptop_token = laptop.token.clone().unwrap();
    let mut ivan = server.player("ivan").await;

    heidi.ok(json!({"type": "logout_all"})).await;
    let pushed = laptop.wait_type("logged_out").await;
    assert_eq!(pushed["reason"], "logout_all");
    laptop
        .err(
            json!({"type": "chat", "channel": {"kind": "room", "room": 1}, "text": "hi"}),
            "not_logged_in",
        )
        .await;
    heidi.err(json!({"type": "balance"}), "not_logged_in").await;
    for token in [heidi.token.clone().unwrap(), laptop_token] {
        let mut again = server.client().await;
        again.hello().await;
        again
            .err(json!({"type": "resume", "token": token}), "invalid_token")
            .await;
    }
    // Other accounts are not touched.
    ivan.ok(json!({"type": "balance"})).await;
    server.stop().await;
}
