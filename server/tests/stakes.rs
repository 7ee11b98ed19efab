//! Player stakes (下棋者竞猜) over real WebSockets: the dialog (offer and OK, the other's OK, Agree or
//! Disagree), escrow during a game or held for the next one, raising, the winner taking both stakes
//! taxed, refunds for a draw and for a game never played (a player stands up, or the server
//! restarts), and paid coaching. Each test ends with the admin audit finding the book balanced.

mod common;

use common::money::{assert_audit_clean, balance, start_server, wait_settled, ADMIN_TOKEN, GRANT};

use common::{settings_9x9, start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};

fn offer(table: u64, left: u64, right: u64, terms: Value) -> Value {
    json!({"type": "stake_offer", "table": table, "left": left, "right": right, "terms": terms})
}

fn answer(table: u64, agree: bool) -> Value {
    json!({"type": "stake_answer", "table": table, "agree": agree})
}

fn normal() -> Value {
    json!({"kind": "normal"})
}

/// Both players OK `left`/`right` and agree; returns the last `stake_updated` the offerer saw.
async fn agree_stakes(
    left: &mut Client,
    right: &mut Client,
    table: u64,
    amounts: (u64, u64),
    terms: Value,
) -> Value {
    left.ok(offer(table, amounts.0, amounts.1, terms.clone()))
        .await;
    right.ok(offer(table, amounts.0, amounts.1, terms)).await;
    left.ok(answer(table, true)).await;
    right.ok(answer(table, true)).await;
    // The push for this agreement (earlier agreements' pushes may still be queued).
    left.wait_for(|f| {
        f["type"] == "stake_updated"
            && f["stake"]["agreed"] == true
            && f["stake"]["left"] == amounts.0
            && f["stake"]["right"] == amounts.1
    })
    .await
}

/// Poll a balance that changes in the background (a refund after someone stood up).
async fn wait_balance(client: &mut Client, expected: u64) {
    for _ in 0..100 {
        if balance(client).await == expected {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(balance(client).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stakes_agreed_in_a_game_go_to_the_winner_taxed_and_can_be_raised() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    carol.ok(json!({"type": "join_table", "table": 1})).await;

    // The dialog: over a balance, a watcher, agreeing before both OK'd.
    alice
        .err(offer(1, 200, 1_001, normal()), "insufficient_points")
        .await;
    carol.err(offer(1, 1, 1, normal()), "not_seated").await;
    alice.ok(offer(1, 200, 100, normal())).await;
    let seen = carol
        .wait_for(|f| f["type"] == "stake_updated" && f["stake"]["ok_left"] == true)
        .await;
    assert_eq!(seen["stake"]["left"], 200);
    assert_eq!(seen["stake"]["ok_right"], false);
    assert_eq!(seen["tax_bp"], 500);
    bob.err(answer(1, true), "stake_not_ready").await;
    // Bob changes the amounts (only his OK now), then Alice accepts them, then Disagree and again.
    bob.ok(offer(1, 200, 150, normal())).await;
    alice.err(answer(1, true), "stake_not_ready").await;
    alice.ok(offer(1, 200, 150, normal())).await;
    alice.ok(answer(1, false)).await;
    bob.err(answer(1, true), "stake_not_ready").await;
    assert_eq!(
        balance(&mut alice).await,
        GRANT,
        "nothing moves before both agree"
    );
    let agreed = agree_stakes(&mut alice, &mut bob, 1, (200, 100), normal()).await;
    assert_eq!(agreed["stake"]["game"], game);
    assert_eq!(balance(&mut alice).await, GRANT - 200);
    assert_eq!(balance(&mut bob).await, GRANT - 100);

    // Edits after agreement are refused; raising one's own stake is not.
    alice
        .err(offer(1, 300, 300, normal()), "stake_agreed")
        .await;
    bob.err(answer(1, true), "stake_agreed").await;
    bob.ok(json!({"type": "stake_raise", "game": game, "amount": 50}))
        .await;
    bob.err(
        json!({"type": "stake_raise", "game": game, "amount": 0}),
        "bad_amount",
    )
    .await;
    bob.err(
        json!({"type": "stake_raise", "game": game, "amount": 5_000}),
        "insufficient_points",
    )
    .await;
    carol
        .err(
            json!({"type": "stake_raise", "game": game, "amount": 5}),
            "not_your_game",
        )
        .await;
    let pool = carol.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(
        (pool["stake_black"].as_u64(), pool["stake_white"].as_u64()),
        (Some(200), Some(150))
    );

    // Black resigns: White receives his stake back plus Black's, taxed 5%, rounded down.
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut bob, game).await;
    let bob_gets = 150 + 200 * 95 / 100;
    assert_eq!(balance(&mut bob).await, GRANT - 150 + bob_gets);
    assert_eq!(balance(&mut alice).await, GRANT - 200);
    let house = carol.ok(json!({"type": "house"})).await;
    assert_eq!(house["balance"], 10);
    let records = bob.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(
        records,
        json!([{"game": game, "kind": "stake", "side": "white", "staked": 150, "returned": bob_gets,
                "net": bob_gets - 150, "tax_bp": 500, "refund": null}])
    );
    // The stakes lapsed with their game.
    carol
        .wait_for(|f| f["type"] == "stake_updated" && f["stake"].is_null())
        .await;
    assert_audit_clean(&server).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stakes_agreed_before_a_game_are_held_for_it_and_refunded_if_it_is_never_played() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    alice
        .ok(json!({"type": "sit", "table": 1, "seat": "left"}))
        .await;
    bob.ok(json!({"type": "sit", "table": 1, "seat": "right"}))
        .await;

    // Agreed before the game: held, then in the next game's escrow; a draw refunds both.
    let agreed = agree_stakes(&mut alice, &mut bob, 1, (100, 100), normal()).await;
    assert!(agreed["stake"]["game"].is_null());
    assert_eq!(balance(&mut alice).await, GRANT - 100);
    let mut no_komi = settings_9x9();
    no_komi["komi_half_points"] = json!(0);
    bob.ok(json!({"type": "propose_settings", "table": 1, "settings": no_komi}))
        .await;
    alice
        .ok(json!({"type": "accept_settings", "table": 1, "settings": no_komi}))
        .await;
    let game = alice.wait_type("game_started").await["game"]
        .as_u64()
        .unwrap();
    let moved = alice
        .wait_for(|f| f["type"] == "stake_updated" && f["stake"]["game"] == game)
        .await;
    assert_eq!(moved["stake"]["agreed"], true);
    let pool = alice.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(
        (pool["stake_black"].as_u64(), pool["stake_white"].as_u64()),
        (Some(100), Some(100))
    );
    for player in [&mut alice, &mut bob] {
        player.ok(json!({"type": "pass", "game": game})).await;
    }
    for player in [&mut alice, &mut bob] {
        player
            .ok(json!({"type": "accept_score", "game": game}))
            .await;
    }
    wait_settled(&mut alice, game).await;
    assert_eq!(balance(&mut alice).await, GRANT);
    assert_eq!(balance(&mut bob).await, GRANT);
    let records = alice.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["refund"], "draw");

    // A hold moved into its game is that game's stake record, not one of its own.
    assert_eq!(records.as_array().map(Vec::len), Some(1), "{records}");

    // Agreed for the next game, then a player stands up: the game is never played, both refunded.
    agree_stakes(&mut alice, &mut bob, 1, (30, 70), normal()).await;
    assert_eq!(balance(&mut bob).await, GRANT - 70);
    let held = |staked: u64, back: bool| {
        json!({"game": null, "table": 1, "kind": "hold", "side": null, "staked": staked,
               "returned": if back { json!(staked) } else { Value::Null },
               "net": if back { json!(0) } else { Value::Null }, "tax_bp": 500,
               "refund": if back { json!("not_played") } else { Value::Null }})
    };
    let records = bob.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0], held(70, false), "{records}");
    bob.ok(json!({"type": "stand", "table": 1})).await;
    wait_balance(&mut bob, GRANT).await;
    wait_balance(&mut alice, GRANT).await;
    // The stake given back before any game is in both players' records, with why.
    let records = alice.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0], held(30, true), "{records}");
    assert_eq!(records.as_array().map(Vec::len), Some(2), "{records}");
    let records = bob.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0], held(70, true), "{records}");

    // Agreed for the next game, then the server restarts (tables start empty): refunded at start.
    bob.ok(json!({"type": "sit", "table": 1, "seat": "right"}))
        .await;
    agree_stakes(&mut alice, &mut bob, 1, (40, 60), normal()).await;
    assert_eq!(balance(&mut alice).await, GRANT - 40);
    let token = alice.token.clone().unwrap();
    assert_audit_clean(&server).await;
    server.stop().await;
    let server = start_server(dir.path()).await;
    let mut alice = server.client().await;
    alice.hello().await;
    alice.ok(json!({"type": "resume", "token": token})).await;
    assert_eq!(balance(&mut alice).await, GRANT);
    let report = assert_audit_clean(&server).await;
    assert_eq!(report["open_escrows_count"], 0, "{report}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paid_coaching_pays_the_coach_whatever_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let coaching = json!({"kind": "coaching", "coach": "left"});
    alice
        .err(offer(1, 10, 100, coaching.clone()), "bad_amount")
        .await;
    agree_stakes(&mut alice, &mut bob, 1, (0, 100), coaching).await;
    assert_eq!(balance(&mut bob).await, GRANT - 100);
    // Only the student may raise; the coach's stake stays 0.
    alice
        .err(
            json!({"type": "stake_raise", "game": game, "amount": 5}),
            "bad_amount",
        )
        .await;
    bob.ok(json!({"type": "stake_raise", "game": game, "amount": 20}))
        .await;
    // The coach (Black) resigns, but the lesson took place: the coach is paid, taxed.
    alice.ok(json!({"type": "resign", "game": game})).await;
    wait_settled(&mut alice, game).await;
    assert_eq!(balance(&mut alice).await, GRANT + 120 * 95 / 100);
    assert_eq!(balance(&mut bob).await, GRANT - 120);
    let records = bob.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(records[0]["staked"], 120);
    assert_eq!(records[0]["net"], -120);
    // The coach staked nothing: the fee is their record, on the colour they played.
    let fee = 120 * 95 / 100;
    let records = alice.ok(json!({"type": "my_bets"})).await["records"].clone();
    assert_eq!(
        records,
        json!([{"game": game, "kind": "coaching", "side": "black", "staked": 0, "returned": fee,
                "net": fee, "tax_bp": 500, "refund": null}])
    );
    assert_audit_clean(&server).await;
    server.stop().await;
}

/// Escape and no-show come from the game's lifecycle, not from a move: an escaper's stake and the
/// bets on them are lost as in any loss, and a game nobody starts is void and refunds everything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escape_settles_as_a_loss_and_a_no_show_refunds_everything() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.admin_token = Some(ADMIN_TOKEN.into());
    config.game_timing.disconnect_grace_ms = 500;
    config.game_timing.first_move_within_ms = 2_000;
    let server = TestServer::start_with(config).await;

    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    agree_stakes(&mut alice, &mut bob, 1, (200, 100), normal()).await;
    let mut carol = server.player("carol").await;
    let mut dave = server.player("dave").await;
    for (watcher, side) in [(&mut carol, "black"), (&mut dave, "white")] {
        watcher.ok(json!({"type": "watch", "game": game})).await;
        let bet = json!({"type": "bet", "game": game, "side": side, "amount": 100});
        assert_eq!(watcher.ok(bet).await["type"], "bet_placed");
    }
    alice
        .ok(json!({"type": "play", "game": game, "point": {"col": 4, "row": 4}}))
        .await;
    // Black closes the game and does not come back within the grace period: White wins by forfeit.
    alice.close().await;
    let ended = bob
        .wait_for(|f| f["type"] == "game_event" && f["game"] == game && f["event"] == "ended")
        .await;
    assert_eq!(ended["outcome"]["sgf"], "W+F", "{ended}");
    wait_settled(&mut dave, game).await;
    // Stakes: Bob keeps his 100 and wins Alice's 200 less 5% tax; the pool pays Dave 100 + 95.
    assert_eq!(balance(&mut bob).await, GRANT + 190);
    assert_eq!(balance(&mut dave).await, GRANT + 95);
    assert_eq!(balance(&mut carol).await, GRANT - 100);
    let mut alice = server.player_login("alice").await;
    assert_eq!(balance(&mut alice).await, GRANT - 200);
    assert_eq!(carol.ok(json!({"type": "house"})).await["balance"], 10 + 5);

    // A second table: stakes and a bet on a game whose first move never comes.
    let mut erin = server.player("erin").await;
    let mut frank = server.player("frank").await;
    let void_game = start_table_game(&mut erin, &mut frank, 2).await;
    agree_stakes(&mut erin, &mut frank, 2, (50, 50), normal()).await;
    carol.ok(json!({"type": "watch", "game": void_game})).await;
    let bet = json!({"type": "bet", "game": void_game, "side": "white", "amount": 10});
    carol.ok(bet).await;
    let ended = frank
        .wait_for(|f| f["type"] == "game_event" && f["game"] == void_game && f["event"] == "ended")
        .await;
    assert_eq!(ended["outcome"]["sgf"], "Void", "{ended}");
    wait_settled(&mut carol, void_game).await;
    assert_eq!(balance(&mut erin).await, GRANT);
    assert_eq!(balance(&mut frank).await, GRANT);
    assert_eq!(balance(&mut carol).await, GRANT - 100);
    assert_audit_clean(&server).await;
    server.stop().await;
}

/// Every amount a client sends (a bet, either stake of an offer, a raise) is checked alike where it
/// comes in: 0 (where 0 means nothing), 2^53 and anything past it, however far and however written,
/// is `bad_amount`; what is no whole number is `bad_message`; neither changes anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_amount_field_refuses_out_of_range_alike_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path()).await;
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut carol = server.player("carol").await;
    carol.ok(json!({"type": "watch", "game": game})).await;
    alice.ok(offer(1, 10, 20, normal())).await;

    let out_of_range = [
        "9007199254740992",
        "9007199254740993",
        "18446744073709551615",
        "18446744073709551616",
        "1e20",
        "1e308",
        "9007199254740992.0",
    ];
    let not_whole = ["-1", "1.5", "-0.5", "\"7\"", "null"];
    // Who sends each message, with `AMOUNT` where the amount goes, and whether 0 is allowed there.
    let fields = [
        (
            2,
            format!(r#"{{"type":"bet","game":{game},"side":"black","amount":AMOUNT}}"#),
            false,
        ),
        (
            0,
            r#"{"type":"stake_offer","table":1,"left":AMOUNT,"right":20,"terms":{"kind":"normal"}}"#
                .to_string(),
            true,
        ),
        (
            1,
            r#"{"type":"stake_offer","table":1,"left":10,"right":AMOUNT,"terms":{"kind":"normal"}}"#
                .to_string(),
            true,
        ),
        (
            1,
            format!(r#"{{"type":"stake_raise","game":{game},"amount":AMOUNT}}"#),
            false,
        ),
    ];
    let mut clients = [alice, bob, carol];
    for (who, template, zero_allowed) in fields {
        let client = &mut clients[who];
        let zero = (!zero_allowed).then_some("0");
        for amount in out_of_range.iter().copied().chain(zero) {
            let msg: Value = serde_json::from_str(&template.replace("AMOUNT", amount)).unwrap();
            let refused = client.err(msg, "bad_amount").await;
            let message = refused["message"].as_str().unwrap();
            assert!(message.contains("9007199254740991"), "{amount}: {refused}");
        }
        for amount in not_whole {
            let msg: Value = serde_json::from_str(&template.replace("AMOUNT", amount)).unwrap();
            client.err(msg, "bad_message").await;
        }
    }
    // Nothing moved or changed: balances, the pool, and the offer as Alice made it (Bob's OK on
    // the same amounts makes both, so an answer is taken).
    for client in clients.iter_mut() {
        assert_eq!(balance(client).await, GRANT);
    }
    let [mut alice, mut bob, mut carol] = clients;
    let pool = carol.ok(json!({"type": "pool", "game": game})).await["pool"].clone();
    assert_eq!(pool["total"], 0);
    bob.ok(offer(1, 10, 20, normal())).await;
    alice.ok(answer(1, false)).await;
    // A stake of 0 for one seat is an offer like any other.
    bob.ok(offer(1, 0, 20, normal())).await;
    let updated = alice
        .wait_for(|f| f["type"] == "stake_updated" && f["stake"]["left"] == 0)
        .await;
    assert_eq!(updated["stake"]["right"], 20);
    assert_audit_clean(&server).await;
    server.stop().await;
}
