//! Fortune points over real WebSockets: watchers bet, games end, and every balance is exactly what the
//! docs/wagering.md formula gives; each refund path; bad bets refused without moving a point; a flood of bets
//! at the moment play ends; and a crash between a game's end and its payout settled once on restart.
//! Every test ends with the audit (over HTTP or the `tengen audit` binary) finding the book balanced.

mod common;

use common::money::{
    assert_audit_clean, balance, bet, bet_placed, http_get, start_server, wait_settled,
    winner_receives, GRANT, TAX_BP,
};

use common::{settings_9x9, start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};

async fn watch(client: &mut Client, game: u64) {
    client.ok(json!({"type": "watch", "game": game})).await;
}

/// `tengen audit --data DIR`: its JSON report; the exit status must match its verdict.
fn offline_audit(dir: &std::path::Path) -> Value {
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["audit", "--data"])
        .arg(dir)
        .output()
        .unwrap();
    let report: Value =
        serde_json::from_slice(&audit.stdout).unwrap_or_else(|_| panic!("{audit:?}"));
    assert_eq!(audit.status.success(), report["ok"] == true, "{report}");
    report
}

/// Both seated players agree `settings` at `table`; returns the game id.
async fn agree(black: &mut Client, white: &mut Client, table: u64, settings: Value) -> u64 {
    white
        .ok(json!({"type": "propose_settings", "table": table, "settings": settings}))
        .await;
    black
        .ok(json!({"type": "accept_settings", "table": table, "settings": settings}))
        .await;
    let game = black.wait_type("game_started").await["game"]
        .as_u64()
        .unwrap();
    white.wait_type("game_started").await;
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_watchers_bet_and_the_pool_pays_by_the_formula() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    // The starting grant is shown with the session.
    let granted = alice.wait_for(|f| f["type"] == "balance").await;
    assert_eq!(granted["balance"], GRANT);
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    let mut erin = server.player("erin").await;
    for watcher in [&mut carol, &mut dave, &mut erin] {
        watch(watcher, game).await;
    }

    let placed = bet_placed(&mut carol, game, "black", 100).await;
    assert_eq!(
        (placed["total"].as_u64(), placed["balance"].as_u64()),
        (Some(100), Some(GRANT - 100))
    );
    assert_eq!(placed["tax_bp"], TAX_BP);
    bet_placed(&mut dave, game, "white", 300).await;
    bet_placed(&mut erin, game, "black", 50).await;
    // Adding to one's own bet on the same side.
    let added = bet(&mut carol, game, "black", 20).await;
    assert_eq!(added["total"], 120, "{added}");

    // Everyone watching saw the pool grow to its final shape, live.
    let pool = erin
        .wait_for(|f| f["type"] == "pool" && f["pool"]["total"] == 470)
        .await;
    assert_eq!(pool["pool"]["black"], 170);
    assert_eq!(pool["pool"]["white"], 300);
    assert_eq!(pool["pool"]["bettors_count"], 3);
    assert_eq!(pool["pool"]["open"], true);
    let asked = alice.ok(json!({"type": "pool", "game": game})).await;
    assert_eq!(asked["pool"], pool["pool"]);

    // Dave also has a connection that never opened the game.
    let mut dave_elsewhere = server.player_login("dave").await;

    // Black resigns: White's backers win.
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut carol, game).await;
    let dave_gets = winner_receives(470, 300, 300);
    assert_eq!(dave_gets, 461);
    // The payout is pushed to every connection of the bettor, watching or not.
    let pushed = dave_elsewhere
        .wait_for(|f| f["type"] == "balance" && f["balance"] == GRANT - 300 + dave_gets)
        .await;
    assert!(pushed.get("id").is_none(), "a push, not a reply: {pushed}");
    assert_eq!(balance(&mut dave).await, GRANT - 300 + dave_gets);
    assert_eq!(balance(&mut carol).await, GRANT - 120);
    assert_eq!(balance(&mut erin).await, GRANT - 50);
    assert_eq!(balance(&mut alice).await, GRANT);
    let house = carol.ok(json!({"type": "house"})).await;
    assert_eq!(house["balance"], 470 - dave_gets, "tax plus breakage");

    // Records: staked, returned, net and tax rate.
    let records = dave.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(
        records,
        json!([{"game": game, "kind": "bet", "side": "white", "staked": 300, "returned": dave_gets,
                "net": dave_gets - 300, "tax_bp": TAX_BP, "refund": null}])
    );
    // The account's history: the grant, the bet out, the payout in, newest first.
    let history = dave.ok(json!({"type": "history"})).await["entries"].clone();
    let moves: Vec<(String, i64)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["amount"].as_i64().unwrap(),
            )
        })
        .collect();
    let paid = i64::try_from(dave_gets).unwrap();
    assert_eq!(
        moves,
        [
            ("payout".to_string(), paid),
            ("bet".to_string(), -300),
            ("grant".to_string(), 1000)
        ]
    );
    let records = carol.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["staked"], 120);
    assert_eq!(records[0]["returned"], 0);
    assert_eq!(records[0]["net"], -120);

    // The finished game's pool is still there to see, closed and settled; betting on it is refused.
    let finished = erin.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(
        (finished["open"].clone(), finished["settled"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(finished["total"], 470);
    let late = bet(&mut erin, game, "black", 5).await;
    assert_eq!(late["code"], "betting_closed", "{late}");

    // The audit is guarded and finds the book balanced.
    assert_eq!(http_get(&server, "/api/admin/audit", None).await.0, 401);
    assert_eq!(
        http_get(&server, "/api/admin/audit", Some("wrong")).await.0,
        401
    );
    let report = assert_audit_clean(&server).await;
    assert_eq!(report["granted"], 5 * GRANT);
    assert_eq!(report["house"], 470 - dave_gets);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refunds_for_one_bettor_no_winning_bets_and_a_draw() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;

    // Only one watcher bets: refunded although their side won.
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    watch(&mut carol, game).await;
    bet_placed(&mut carol, game, "white", 70).await;
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut carol, game).await;
    assert_eq!(balance(&mut carol).await, GRANT);
    let records = carol.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["returned"], 70);
    assert_eq!(records[0]["net"], 0);
    assert_eq!(records[0]["refund"], "too_few_bettors");

    // Nobody bet on the winner: everyone refunded.
    let game = common::agree_and_start(&mut alice, &mut bob, 1).await;
    watch(&mut carol, game).await;
    watch(&mut dave, game).await;
    bet_placed(&mut carol, game, "black", 40).await;
    bet_placed(&mut dave, game, "black", 60).await;
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut carol, game).await;
    assert_eq!(balance(&mut carol).await, GRANT);
    assert_eq!(balance(&mut dave).await, GRANT);
    let records = dave.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["refund"], "no_winning_bets");

    // A draw (no komi, an empty board counted): everyone refunded. Betting closes at the second pass.
    let mut no_komi = settings_9x9();
    no_komi["komi_half_points"] = json!(0);
    let game = agree(&mut alice, &mut bob, 1, no_komi).await;
    watch(&mut carol, game).await;
    watch(&mut dave, game).await;
    bet_placed(&mut carol, game, "black", 10).await;
    bet_placed(&mut dave, game, "white", 30).await;
    alice.ok(json!({"type": "pass", "game": game})).await;
    bob.ok(json!({"type": "pass", "game": game})).await;
    // Watchers hear that the pool closed when play ended.
    let closing = carol
        .wait_for(|f| {
            f["type"] == "pool" && f["pool"]["game"] == game && f["pool"]["open"] == false
        })
        .await;
    assert_eq!(closing["pool"]["total"], 40);
    let closed = bet(&mut dave, game, "white", 1).await;
    assert_eq!(closed["code"], "betting_closed", "{closed}");
    let pool = dave.ok(json!({"type": "pool", "game": game})).await;
    assert_eq!(pool["pool"]["open"], false);
    assert_eq!(pool["pool"]["total"], 40);
    alice
        .ok(json!({"type": "accept_score", "game": game}))
        .await;
    bob.ok(json!({"type": "accept_score", "game": game})).await;
    wait_settled(&mut carol, game).await;
    assert_eq!(balance(&mut carol).await, GRANT);
    assert_eq!(balance(&mut dave).await, GRANT);
    let records = carol.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["refund"], "draw");
    assert_eq!(records.as_array().unwrap().len(), 3, "one record per game");

    let report = assert_audit_clean(&server).await;
    assert_eq!(report["house"], 0, "refunds are never taxed");
    assert_eq!(report["settled_games_count"], 3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bets_get_clear_errors_and_move_no_point() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    watch(&mut carol, game).await;
    bet_placed(&mut carol, game, "black", 10).await;

    let cases: Vec<(Value, &str)> = vec![
        (json!(-5), "bad_message"),
        (json!(1.5), "bad_message"),
        (json!("10"), "bad_message"),
        (json!(0), "bad_amount"),
        (json!(1u64 << 60), "bad_amount"),
        (json!(u64::MAX), "bad_amount"),
        (json!(GRANT), "insufficient_points"),
    ];
    for (amount, code) in cases {
        carol
            .err(
                json!({"type": "bet", "game": game, "side": "black", "amount": amount}),
                code,
            )
            .await;
    }
    // Changing sides, betting on one's own game, on no game, and without an account.
    carol
        .err(
            json!({"type": "bet", "game": game, "side": "white", "amount": 5}),
            "side_change",
        )
        .await;
    alice
        .err(
            json!({"type": "bet", "game": game, "side": "black", "amount": 5}),
            "players_cannot_bet",
        )
        .await;
    bob.err(
        json!({"type": "bet", "game": game, "side": "black", "amount": 5}),
        "players_cannot_bet",
    )
    .await;
    carol
        .err(
            json!({"type": "bet", "game": 9999, "side": "black", "amount": 5}),
            "no_such_game",
        )
        .await;
    let mut anonymous = server.client().await;
    anonymous.hello().await;
    anonymous
        .err(
            json!({"type": "bet", "game": game, "side": "black", "amount": 5}),
            "not_logged_in",
        )
        .await;
    anonymous
        .err(json!({"type": "balance"}), "not_logged_in")
        .await;

    // Nothing moved: balances and the pool are as after the one good bet.
    assert_eq!(balance(&mut carol).await, GRANT - 10);
    assert_eq!(balance(&mut alice).await, GRANT);
    let pool = carol.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(
        (pool["total"].clone(), pool["bettors_count"].clone()),
        (json!(10), json!(1))
    );

    // After the game ends: closed, still nothing moved by the refusal.
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut carol, game).await;
    carol
        .err(
            json!({"type": "bet", "game": game, "side": "black", "amount": 5}),
            "betting_closed",
        )
        .await;
    assert_eq!(balance(&mut carol).await, GRANT, "one bettor: refunded");
    assert_audit_clean(&server).await;
    server.stop().await;
}

/// Bets sent back to back by each watcher without waiting for replies: how many go out.
const FLOOD_BETS_PER_WATCHER: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_bets_as_play_ends_is_each_in_the_pool_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut watchers = Vec::new();
    for name in ["carol", "dave", "erin", "frank"] {
        let mut watcher = server.player(name).await;
        watch(&mut watcher, game).await;
        watchers.push(watcher);
    }
    // Each watcher fires its bets at once (ids 1000..), and Black resigns in the middle of them.
    let sides = ["black", "white", "black", "white"];
    let mut fliers = Vec::new();
    for (index, mut watcher) in watchers.into_iter().enumerate() {
        let side = sides[index];
        fliers.push(tokio::spawn(async move {
            for n in 0..FLOOD_BETS_PER_WATCHER {
                let frame =
                    json!({"type": "bet", "id": 1000 + n, "game": game, "side": side, "amount": 3});
                watcher.send_text(&frame.to_string()).await;
            }
            let mut accepted = 0;
            for n in 0..FLOOD_BETS_PER_WATCHER {
                let reply = watcher.wait_for(|f| f["id"] == 1000 + n).await;
                match reply["type"].as_str() {
                    Some("bet_placed") => accepted += 3,
                    _ => assert_eq!(reply["code"], "betting_closed", "{reply}"),
                }
            }
            (watcher, side, accepted)
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    alice.ok(json!({"type": "resign", "game": game})).await;
    let mut results = Vec::new();
    for flier in fliers {
        results.push(flier.await.unwrap());
    }

    // The pool holds exactly the accepted bets, and each was settled by the formula.
    let pool = alice.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    let black: u64 = results.iter().filter(|r| r.1 == "black").map(|r| r.2).sum();
    let white: u64 = results.iter().filter(|r| r.1 == "white").map(|r| r.2).sum();
    assert_eq!(
        (pool["black"].as_u64(), pool["white"].as_u64()),
        (Some(black), Some(white))
    );
    let flood_total = 4 * 3 * FLOOD_BETS_PER_WATCHER;
    assert!(
        black + white < flood_total,
        "play ended amid the flood, so some bets were refused"
    );
    let bettors = results.iter().filter(|r| r.2 > 0).count();
    let refunded = bettors < 2 || white == 0;
    for (mut watcher, side, accepted) in results {
        // The pool settles before the actor stops; a watcher sees the settled pool or asks for it.
        let settled = watcher.ok(json!({"type": "pool", "game": game})).await;
        assert_eq!(settled["pool"]["settled"], true, "{settled}");
        let expected = if refunded || accepted == 0 {
            GRANT
        } else if side == "white" {
            GRANT - accepted + winner_receives(black + white, white, accepted)
        } else {
            GRANT - accepted
        };
        assert_eq!(
            balance(&mut watcher).await,
            expected,
            "{side} bet {accepted}"
        );
    }
    assert_audit_clean(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_the_end_and_the_payout_is_settled_once_on_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.fault_stop_before_settlement = true;
    let server = TestServer::start_with(config).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    watch(&mut carol, game).await;
    watch(&mut dave, game).await;
    bet_placed(&mut carol, game, "white", 200).await;
    bet_placed(&mut dave, game, "black", 100).await;
    bob.ok(json!({"type": "resign", "game": game})).await;
    carol
        .wait_for(|f| f["type"] == "game_event" && f["event"] == "ended")
        .await;
    // The "crash": the end is stored, the payout never happened.
    assert_eq!(balance(&mut carol).await, GRANT - 200);
    let tokens = [carol.token.clone().unwrap(), dave.token.clone().unwrap()];
    server.stop().await;
    let report = offline_audit(dir.path());
    assert_eq!(report["settled_games_count"], 0, "{report}");
    assert_eq!(
        report["open_escrows_count"], 1,
        "the escrow still holds the bets: {report}"
    );

    // Two restarts on the same data: settled by the first, untouched by the second.
    let dave_gets = winner_receives(300, 100, 100);
    for _ in 0..2 {
        let server = start_server(dir.path()).await;
        let mut balances = Vec::new();
        for token in &tokens {
            let mut client = server.client().await;
            client.hello().await;
            client.ok(json!({"type": "resume", "token": token})).await;
            balances.push(balance(&mut client).await);
        }
        assert_eq!(balances, vec![GRANT - 200, GRANT - 100 + dave_gets]);
        let mut anyone = server.client().await;
        anyone.hello().await;
        let house = anyone.ok(json!({"type": "house"})).await;
        assert_eq!(house["balance"], 300 - dave_gets);
        let report = assert_audit_clean(&server).await;
        assert_eq!(report["settled_games_count"], 1);
        server.stop().await;
    }

    // The offline audit agrees.
    let report = offline_audit(dir.path());
    assert_eq!(report["ok"], true);
    assert_eq!(report["granted"], 4 * GRANT);
    assert_eq!(report["house"], 300 - dave_gets);
}

/// The `pool` of a game that has just ended is answered at once, from the moment of `ended` to its
/// settlement and after: while the actor still answers, when a request meets the actor closing its
/// inbox (answered `no_such_game` before the fallback to the book), and once it is gone. Two
/// watchers (whose sessions follow the game) and a user who never opened it each send a burst of
/// `pool` requests right behind the resignation and read the answers: every one must be the pool.
/// The closing moment is short, so three games are ended this way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_of_a_game_that_just_ended_is_answered_at_once() {
    const BURST: u64 = 500;
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    // The bursts below come all at once; the rate limit is not under test.
    config.messages_per_second = 1_000_000;
    config.messages_burst = 1_000_000;
    let server = TestServer::start_with(config).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    let mut erin = server.player("erin").await;
    for round in 0..3 {
        let game = if round == 0 {
            start_table_game(&mut alice, &mut bob, 1).await
        } else {
            common::agree_and_start(&mut alice, &mut bob, 1).await
        };
        watch(&mut carol, game).await;
        watch(&mut dave, game).await;
        bet_placed(&mut carol, game, "black", 10).await;
        bet_placed(&mut dave, game, "white", 10).await;
        let pool = |id: u64| json!({"type": "pool", "id": id, "game": game}).to_string();
        let first = 1_000_000 * (round + 1);
        alice
            .send_text(&json!({"type": "resign", "game": game}).to_string())
            .await;
        for asker in [&mut carol, &mut dave, &mut erin] {
            for id in first..first + BURST {
                asker.send_text(&pool(id)).await;
            }
        }
        for asker in [&mut carol, &mut dave, &mut erin] {
            for id in first..first + BURST {
                let reply = asker.wait_for(|f| f["id"] == id).await;
                assert_eq!(reply["type"], "pool", "game {game}, answer {id}: {reply}");
                assert_eq!(reply["pool"]["total"], 20, "{reply}");
            }
            let mut asked = 0;
            while asker.ok(json!({"type": "pool", "game": game})).await["pool"]["settled"] != true {
                asked += 1;
                assert!(asked < 100_000, "game {game} was never settled");
            }
        }
    }
    server.stop().await;
}
