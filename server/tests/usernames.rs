//! Usernames in any script over real sockets: registered in their NFKC form, found by any case or
//! width, refused when they pass for another user's (a clear message naming who) or hold what a name
//! may not (spaces, controls, invisible and direction-changing characters); and written safely
//! where they go: the hall, the SGF record (`PB`/`PW`) and the HTTP routes that name a user.

mod common;

use common::{http_get, start_table_game, TestServer};
use serde_json::{json, Value};

const PASSWORD: &str = "password123";

fn register(username: &str) -> Value {
    json!({"type": "register", "username": username, "password": PASSWORD})
}

fn login(username: &str) -> Value {
    json!({"type": "login", "username": username, "password": PASSWORD})
}

/// `text` percent-encoded for a URL path segment (every byte outside the unreserved ASCII set).
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_in_any_script_register_log_in_and_show_in_the_hall() {
    let server = TestServer::start().await;
    let mut master = server.player("棋圣").await;
    master.ok(json!({"type": "enter_hall"})).await;
    let hall = master.wait_type("hall").await;
    let listed = hall["players"].as_array().unwrap();
    assert!(listed.iter().any(|p| p["username"] == "棋圣"), "{hall}");

    let mut client = server.client().await;
    client.hello().await;
    // Kept in NFKC form: full-width letters become ordinary ones, accents compose.
    let wide = client.ok(register("Ｌｅｅ＿Ｓｅｄｏｌ")).await;
    assert_eq!(wide["username"], "Lee_Sedol");
    let online = master
        .wait_for(|f| f["type"] == "player_online" && f["player"]["username"] == "Lee_Sedol")
        .await;
    assert_eq!(online["player"]["user"], wide["user"]);
    for (name, stored) in [
        ("이세돌", "이세돌"),
        ("Đặng", "Đặng"),
        ("e\u{301}lodie", "élodie"),
    ] {
        let mut other = server.client().await;
        other.hello().await;
        let session = other.ok(register(name)).await;
        assert_eq!(session["username"], stored);
    }
    // Any case or width of one's name logs in.
    for variant in ["lee_sedol", "LEE_SEDOL", "ｌｅｅ＿ｓｅｄｏｌ", "Lee_Sedol"] {
        let mut again = server.client().await;
        again.hello().await;
        let session = again.ok(login(variant)).await;
        assert_eq!(session["user"], wide["user"], "{variant}");
        assert_eq!(session["username"], "Lee_Sedol");
    }
    let mut again = server.client().await;
    again.hello().await;
    assert_eq!(again.ok(login("棋圣")).await["user"], master.user.unwrap());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookalike_names_are_taken_and_unsafe_ones_invalid() {
    let server = TestServer::start().await;
    server.player("alice").await;
    server.player("bill").await;
    let mut client = server.client().await;
    client.hello().await;
    // The same name in another case or width.
    for same in ["ALICE", "ａｌｉｃｅ"] {
        let taken = client.err(register(same), "username_taken").await;
        assert_eq!(taken["message"], "that username is taken", "{same}");
    }
    // A name that passes for another: all-Cyrillic "аӏісе", digits for letters, "I" for "l". The
    // message names the account it passes for.
    for (lookalike, holder) in [
        ("аӏісе", "alice"),
        ("aIice", "alice"),
        ("a1ice", "alice"),
        ("bi11", "bill"),
        ("BiII", "bill"),
    ] {
        let refused = client.err(register(lookalike), "username_confusable").await;
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("looks too much like"), "{refused}");
        assert!(
            message.contains(&format!("\"{holder}\"")),
            "{lookalike}: {refused}"
        );
    }
    // What a name may not hold, each with its reason.
    for (bad, says) in [
        ("a", "2 to 20 characters"),
        (&"棋".repeat(21), "2 to 20 characters"),
        (" carol", "no spaces"),
        ("carol ", "no spaces"),
        ("li wei", "no spaces"),
        ("car\u{200b}ol", "invisible"),
        ("car\u{202e}lo", "invisible"),
        ("\u{2067}carol\u{2069}", "invisible"),
        ("car\u{0}ol", "invisible"),
        ("carol\u{7}", "invisible"),
        ("ca\u{d7ff}rol", "cannot be in a username"),
        ("<b>carol", "cannot be in a username"),
        ("carol]", "cannot be in a username"),
        ("go😀", "cannot be in a username"),
        ("1carol", "starts with a letter"),
        ("\u{301}carol", "starts with a letter"),
        ("аlice", "mix scripts"),
        (
            "ca\u{300}\u{301}\u{302}\u{303}\u{304}rol",
            "accents or marks",
        ),
    ] {
        let refused = client.err(register(bad), "invalid_username").await;
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains(says), "{bad:?}: {refused}");
    }
    // Nothing above made an account: each is still free to log in to nobody.
    client.err(login("a1ice"), "bad_credentials").await;
    client.ok(register("carol")).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_are_escaped_in_the_sgf_and_found_by_encoded_urls() {
    let server = TestServer::start().await;
    let mut black = server.player("棋圣").await;
    let mut white = server.player("O'Neil").await;
    let game = start_table_game(&mut black, &mut white, 1).await;
    common::play(&mut black, game, 4, 4).await;
    black.ok(json!({"type": "resign", "game": game})).await;

    let sgf = http_get(server.addr, &format!("/api/games/{game}.sgf"), None).await;
    assert!(sgf.starts_with("HTTP/1.1 200"), "{sgf}");
    assert!(
        sgf.contains("CA[UTF-8]") && sgf.contains("PB[棋圣]"),
        "{sgf}"
    );
    assert!(sgf.contains("PW[O'Neil]"), "{sgf}");

    // A user's games by their name, percent-encoded in the path as browsers send it.
    let path = format!("/api/users/{}/games", percent_encoded("棋圣"));
    let games = http_get(server.addr, &path, None).await;
    assert!(games.starts_with("HTTP/1.1 200"), "{games}");
    assert!(
        games.contains(r#""black":"棋圣","white":"O'Neil""#),
        "{games}"
    );
    let path = format!("/api/users/{}/games", percent_encoded("o'neil"));
    assert!(http_get(server.addr, &path, None).await.contains("棋圣"));
    // An unknown name is a plain-text 404: what was asked for is never served as a page.
    let path = format!("/api/users/{}/games", percent_encoded("<script>x</script>"));
    let missing = http_get(server.addr, &path, None).await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    let headers = missing.to_ascii_lowercase();
    assert!(headers.contains("content-type: text/plain"), "{missing}");
    assert!(
        headers.contains("x-content-type-options: nosniff"),
        "{missing}"
    );
    server.stop().await;
}
