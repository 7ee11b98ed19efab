//! A burst of bets from many watchers of one game at once (the title match in miniature),
//! over real WebSockets: every bet is placed (none refused `busy` because the game's actor waited
//! for each write before reading the next), the pool pushes each watcher hears are coalesced (far
//! fewer than the bets), the game settles every bet exactly once by the formula, each bettor hears
//! their new balance, and the audit finds the book balanced. Counts only, no timing: the bound on
//! pool pushes holds unless the burst lasts tens of seconds.

mod common;

use common::money::{assert_audit_clean, balance, start_server, winner_receives, GRANT};
use common::{start_table_game, Client};
use serde_json::{json, Value};

/// Watchers betting at once: more than the 64 commands a game's inbox held when its actor waited
/// for each bet's write (a session has one request in flight at a time, so a burst of bets needs
/// many watchers to fill it).
const WATCHERS: usize = 120;

/// Watchers per loopback source address (the server takes 64 connections per address).
const WATCHERS_PER_ADDRESS: usize = 50;

/// Bets each watcher sends back to back, without waiting for a reply.
const BETS_EACH: u64 = 2;

/// The first request id of a watcher's bets.
const FIRST_ID: u64 = 1_000;

/// Watcher `n`'s side and the points of each of its bets.
fn stake_of(n: usize) -> (&'static str, u64) {
    let side = if n % 2 == 0 { "black" } else { "white" };
    (side, 1 + (n % 3) as u64)
}

/// Send every bet of one watcher at once, then read until each is answered; returns the replies
/// and how many pool pushes (frames without a request id) arrived meanwhile.
async fn bet_burst(watcher: &mut Client, game: u64, n: usize) -> (Vec<Value>, usize) {
    let (side, amount) = stake_of(n);
    for k in 0..BETS_EACH {
        let bet = json!({"type": "bet", "id": FIRST_ID + k, "game": game, "side": side, "amount": amount});
        watcher.send_text(&bet.to_string()).await;
    }
    let mut replies = Vec::new();
    let mut pushes = 0;
    while replies.len() < BETS_EACH as usize {
        let frame = watcher.read_socket().await.expect("the socket is open");
        if frame["id"].as_u64().is_some_and(|id| id >= FIRST_ID) {
            replies.push(frame);
        } else if frame["type"] == "pool" {
            pushes += 1;
        } else {
            watcher.backlog.push_back(frame);
        }
    }
    (replies, pushes)
}

/// Read until the settled pool of `game`; how many pool pushes came before it.
async fn pushes_until_settled(watcher: &mut Client, game: u64) -> usize {
    let mut pushes = watcher
        .backlog
        .iter()
        .filter(|f| f["type"] == "pool")
        .count();
    watcher.backlog.retain(|f| f["type"] != "pool");
    loop {
        let frame = watcher.read_socket().await.expect("the socket is open");
        if frame["type"] == "pool" && frame["pool"]["game"] == game {
            if frame["pool"]["settled"] == true {
                return pushes;
            }
            pushes += 1;
        } else {
            // The balance push may come first (it goes through the hall): kept for later.
            watcher.backlog.push_back(frame);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_bets_is_placed_its_pool_pushes_coalesced_and_settled_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut watchers = Vec::new();
    for n in 0..WATCHERS {
        let mut watcher = server
            .client_from(2 + (n / WATCHERS_PER_ADDRESS) as u8)
            .await;
        let name = format!("watcher{n}");
        watcher
            .ok(json!({"type": "register", "username": name, "password": "password123"}))
            .await;
        watcher.ok(json!({"type": "watch", "game": game})).await;
        watchers.push(watcher);
    }

    // Every watcher fires its bets at the same moment.
    let mut fliers = Vec::new();
    for (n, mut watcher) in watchers.into_iter().enumerate() {
        fliers.push(tokio::spawn(async move {
            let (replies, pushes) = bet_burst(&mut watcher, game, n).await;
            (watcher, replies, pushes)
        }));
    }
    let mut watchers = Vec::new();
    for (n, flier) in fliers.into_iter().enumerate() {
        let (watcher, replies, pushes) = flier.await.unwrap();
        for reply in &replies {
            assert_eq!(reply["type"], "bet_placed", "watcher {n}: {reply}");
        }
        watchers.push((watcher, pushes));
    }
    let bets = WATCHERS as u64 * BETS_EACH;
    let side_total = |side: &str| -> u64 {
        (0..WATCHERS)
            .map(stake_of)
            .filter(|(s, _)| *s == side)
            .map(|(_, amount)| amount * BETS_EACH)
            .sum()
    };
    let (black, white) = (side_total("black"), side_total("white"));
    let pool = alice.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(
        (pool["black"].as_u64(), pool["white"].as_u64()),
        (Some(black), Some(white)),
        "the pool holds every bet once: {pool}"
    );

    // Black resigns: White's bettors win. Each watcher hears the pool a few times, not per bet.
    alice.ok(json!({"type": "resign", "game": game})).await;
    for (n, (watcher, during)) in watchers.iter_mut().enumerate() {
        let pushes = *during + pushes_until_settled(watcher, game).await;
        assert!(
            (pushes as u64) < bets / 10,
            "watcher {n} heard {pushes} pool pushes for {bets} bets"
        );
    }

    // Settled once, by the formula; every bettor hears the new balance pushed, and reads it back.
    for (n, (watcher, _)) in watchers.iter_mut().enumerate() {
        let (side, amount) = stake_of(n);
        let staked = amount * BETS_EACH;
        let expected = if side == "white" {
            GRANT - staked + winner_receives(black + white, white, staked)
        } else {
            GRANT - staked
        };
        // The first push (at login) showed the grant; the next is the settlement's.
        let pushed = watcher
            .wait_for(|f| f["type"] == "balance" && f["id"].is_null() && f["balance"] != GRANT)
            .await;
        assert_eq!(pushed["balance"], expected, "watcher {n}: {pushed}");
        assert_eq!(balance(watcher).await, expected, "watcher {n}");
    }
    let audit = assert_audit_clean(&server).await;
    assert_eq!(audit["settled_games_count"], 1, "{audit}");
    server.stop().await;
}
