//! Competitions over real sockets: events created, entered and played to the end by test clients
//! (a 4-player round robin, an 8-player Swiss of 3 rounds, a knockout with a bye, a best-of-3 match
//! decided in two games), their standings checked against tables worked by hand; a server restarted
//! between rounds and during one carries on; and every bad request is refused with nothing changed.
//! In every game here the player with the smaller user id wins: the other resigns at once.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::events::{create_event as create, finish_round, join_all, play_round, players};
use common::{start_table_game, test_config, Client, TestServer};
use serde_json::{json, Value};

fn spec(name: &str, format: Value, players_max: u32) -> Value {
    json!({"name": name, "format": format, "settings": common::settings_9x9(), "players_max": players_max})
}

fn by_user(clients: &mut [Client]) -> BTreeMap<u64, &mut Client> {
    clients
        .iter_mut()
        .map(|client| (client.user.unwrap(), client))
        .collect()
}

fn standing(view: &Value, user: u64) -> &Value {
    view["standings"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["player"] == user)
        .unwrap()
}

fn fraction(value: &Value) -> (i64, u64) {
    (
        value["num"].as_i64().unwrap(),
        value["den"].as_u64().unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_player_round_robin_is_played_to_the_end_and_ranked_by_hand() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "round_robin", "cycles": 1});
    let (event, created) = create(&mut director, spec("Autumn round robin", format, 8)).await;
    assert_eq!(created["event"]["summary"]["status"], "open");
    join_all(&mut clients, event).await;
    let mut view = Value::Null;
    for _ in 0..3 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    assert_eq!(view["summary"]["status"], "finished");
    let ids: Vec<u64> = clients.iter().map(|c| c.user.unwrap()).collect();
    // Every pair met once: 6 games over 3 rounds.
    let mut pairs = BTreeSet::new();
    for round in view["rounds"].as_array().unwrap() {
        for board in round["boards"].as_array().unwrap() {
            let (b, w) = (
                board["black"].as_u64().unwrap(),
                board["white"].as_u64().unwrap(),
            );
            assert!(pairs.insert((b.min(w), b.max(w))), "{b} and {w} met twice");
        }
    }
    assert_eq!(pairs.len(), 6);
    // By hand: p1 beat everyone (6 points), p2 beat p3 and p4 (4), p3 beat p4 (2), p4 nothing.
    // 胜者小分 (the scores of the players one beat): p1 4 + 2 + 0 = 6, p2 2 + 0 = 2, p3 0, p4 0.
    let expected = [(1, 6, 6), (2, 4, 2), (3, 2, 0), (4, 0, 0)];
    for (index, (rank, score, sos)) in expected.into_iter().enumerate() {
        let row = standing(&view, ids[index]);
        assert_eq!(row["rank"], rank, "{row}");
        assert_eq!(row["score"], score, "{row}");
        assert_eq!(fraction(&row["beaten_opponents_score"]), (sos, 1), "{row}");
    }
    assert_eq!(view["winner"], ids[0]);
    // The hall's list shows it finished.
    let list = director.ok(json!({"type": "list_events"})).await;
    assert_eq!(list["events"][0]["status"], "finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eight_player_swiss_of_three_rounds_never_repeats_a_pair() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 8).await;
    let mut director = server.player("director").await;
    let format =
        json!({"kind": "swiss", "rounds": 3, "out_after_losses": null, "ranking": "total_score"});
    let (event, _) = create(&mut director, spec("Swiss", format, 8)).await;
    join_all(&mut clients, event).await;
    // An entrant may not bet on another board of the event; anyone else may.
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let boards = started["event"]["rounds"][0]["boards"].clone();
    let game = boards[0]["game"].as_u64().unwrap();
    let elsewhere = boards[1]["black"].as_u64().unwrap();
    let bet = json!({"type": "bet", "game": game, "side": "white", "amount": 5});
    by_user(&mut clients)
        .get_mut(&elsewhere)
        .unwrap()
        .err(bet.clone(), "players_cannot_bet")
        .await;
    let mut watcher = server.player("watcher").await;
    assert_eq!(watcher.ok(bet).await["type"], "bet_placed");
    finish_round(&mut director, &mut clients, &started["event"]).await;
    let mut view = Value::Null;
    for _ in 1..3 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    assert_eq!(view["summary"]["status"], "finished");
    let mut pairs = BTreeSet::new();
    let mut wins: BTreeMap<u64, u64> = BTreeMap::new();
    for round in view["rounds"].as_array().unwrap() {
        assert_eq!(round["boards"].as_array().unwrap().len(), 4);
        for board in round["boards"].as_array().unwrap() {
            let (b, w) = (
                board["black"].as_u64().unwrap(),
                board["white"].as_u64().unwrap(),
            );
            assert!(pairs.insert((b.min(w), b.max(w))), "{b} and {w} met twice");
            *wins.entry(b.min(w)).or_default() += 1;
        }
    }
    // Scores recomputed from the boards: two points a win.
    for client in &clients {
        let user = client.user.unwrap();
        let row = standing(&view, user);
        assert_eq!(
            row["score"],
            2 * wins.get(&user).copied().unwrap_or(0),
            "{row}"
        );
        assert_eq!(row["games"], 3);
    }
    // p1 won all three and leads; the standings rank by 总得分.
    let first = &view["standings"]["rows"][0];
    assert_eq!(first["player"], clients[0].user.unwrap());
    assert_eq!(first["score"], 6);
    assert_eq!(view["standings"]["criteria"][0], "total_score");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_knockout_gives_the_top_seed_a_bye_and_ends_with_one_winner() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 3).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "knockout", "out_after_losses": 1});
    let (event, _) = create(&mut director, spec("Cup", format, 16)).await;
    join_all(&mut clients, event).await;
    let first = play_round(&mut director, &mut clients, event).await;
    let round = &first["rounds"][0];
    assert_eq!(round["byes"], json!([clients[0].user.unwrap()]));
    assert_eq!(round["boards"].as_array().unwrap().len(), 1);
    let last = play_round(&mut director, &mut clients, event).await;
    assert_eq!(last["summary"]["status"], "finished");
    assert_eq!(last["winner"], clients[0].user.unwrap());
    director
        .err(json!({"type": "start_round", "event": event}), "event_over")
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_best_of_three_match_stops_when_one_player_has_won_two() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 2).await;
    let mut director = server.player("director").await;
    let (event, _) = create(
        &mut director,
        spec("Title match", json!({"kind": "match", "games": 3}), 2),
    )
    .await;
    join_all(&mut clients, event).await;
    let one = play_round(&mut director, &mut clients, event).await;
    let two = play_round(&mut director, &mut clients, event).await;
    assert_eq!(two["summary"]["status"], "finished");
    assert_eq!(two["rounds"].as_array().unwrap().len(), 2);
    assert_eq!(two["winner"], clients[0].user.unwrap());
    // Colours alternate.
    assert_eq!(
        one["rounds"][0]["boards"][0]["black"],
        two["rounds"][1]["boards"][0]["white"]
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_carries_on_after_restarts_between_and_during_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "round_robin", "cycles": 1});
    let (event, _) = create(&mut director, spec("Restarts", format, 4)).await;
    join_all(&mut clients, event).await;
    play_round(&mut director, &mut clients, event).await;
    server.stop().await;

    // Between rounds: the event is as it was, and round 2 starts.
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = relogin(&server, 4).await;
    let mut director = server.player_login("director").await;
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(view["event"]["summary"]["status"], "between_rounds");
    assert_eq!(view["event"]["rounds"].as_array().unwrap().len(), 1);
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let boards = started["event"]["rounds"][1]["boards"].clone();
    // One game of round 2 ends before the restart, the other is cut off by it.
    let board = &boards[0];
    let (black, white) = (
        board["black"].as_u64().unwrap(),
        board["white"].as_u64().unwrap(),
    );
    let game = board["game"].as_u64().unwrap();
    let mut players = by_user(&mut clients);
    let loser = players.get_mut(&black.max(white)).unwrap();
    loser
        .wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    loser.ok(json!({"type": "resign", "game": game})).await;
    director
        .wait_for(|f| {
            f["type"] == "event" && !f["event"]["rounds"][1]["boards"][0]["outcome"].is_null()
        })
        .await;
    server.stop().await;

    // During the round: the cut-off game is restored, and its result still reaches the event.
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = relogin(&server, 4).await;
    let mut director = server.player_login("director").await;
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(view["event"]["summary"]["status"], "playing");
    director
        .err(
            json!({"type": "start_round", "event": event}),
            "round_in_play",
        )
        .await;
    let board = &view["event"]["rounds"][1]["boards"][1];
    assert!(board["outcome"].is_null());
    let (black, white) = (
        board["black"].as_u64().unwrap(),
        board["white"].as_u64().unwrap(),
    );
    let game = board["game"].as_u64().unwrap();
    // The restored game still bars the event's entrants from its pool; the director may bet.
    let other = view["event"]["rounds"][1]["boards"][0]["black"]
        .as_u64()
        .unwrap();
    let bet = json!({"type": "bet", "game": game, "side": "black", "amount": 10});
    by_user(&mut clients)
        .get_mut(&other)
        .unwrap()
        .err(bet.clone(), "players_cannot_bet")
        .await;
    assert_eq!(director.ok(bet).await["type"], "bet_placed");
    let mut players = by_user(&mut clients);
    players
        .get_mut(&black.max(white))
        .unwrap()
        .ok(json!({"type": "resign", "game": game}))
        .await;
    let done = director
        .wait_for(|f| f["type"] == "event" && f["event"]["summary"]["status"] == "between_rounds")
        .await;
    assert_eq!(
        done["event"]["rounds"][1]["boards"][1]["outcome"],
        if black < white {
            "black_wins"
        } else {
            "white_wins"
        }
    );
    let last = play_round(&mut director, &mut clients, event).await;
    assert_eq!(last["summary"]["status"], "finished");
    assert_eq!(last["winner"], clients[0].user.unwrap());
    server.stop().await;
}

/// An entrant's listing in an event's view, once they entered.
fn entrant(view: &Value, user: u64) -> Option<&Value> {
    let entrants = view["entrants"].as_array()?;
    let found = entrants.iter().find(|e| e["player"]["user"] == user)?;
    Some(&found["player"])
}

/// A rated game outside an event moves its entrants' ranks: the event shows the new ones at once
/// and still shows them after a restart (they were saved with it, not kept in memory only).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrants_new_rank_is_kept_by_the_event_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut clients = players(&server, 2).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "round_robin", "cycles": 1});
    let (event, _) = create(&mut director, spec("Ranks", format, 4)).await;
    join_all(&mut clients, event).await;
    let winner = clients[0].user.unwrap();
    let [first, second] = &mut clients[..] else {
        unreachable!("two players")
    };
    let game = start_table_game(first, second, 1).await;
    second.ok(json!({"type": "resign", "game": game})).await;
    let pushed = director
        .wait_for(|f| {
            f["type"] == "event"
                && entrant(&f["event"], winner).is_some_and(|listed| listed["rating"] != 1500)
        })
        .await;
    let now = entrant(&pushed["event"], winner).unwrap().clone();
    assert!(now["rating"].as_i64().unwrap() > 1500, "{now}");
    server.stop().await;

    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut director = server.player_login("director").await;
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(entrant(&view["event"], winner), Some(&now), "{view}");
    server.stop().await;
}

/// Logs p1..p`count` in again after a restart.
async fn relogin(server: &TestServer, count: usize) -> Vec<Client> {
    let mut clients = Vec::new();
    for n in 1..=count {
        clients.push(server.player_login(&format!("player{n}")).await);
    }
    clients
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_event_requests_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 3).await;
    let mut director = server.player("director").await;
    let mut guest = server.client().await;
    guest.hello().await;
    let format = json!({"kind": "round_robin", "cycles": 1});
    guest
        .err(
            json!({"type": "create_event", "spec": spec("x", format.clone(), 4)}),
            "not_logged_in",
        )
        .await;
    for bad in [
        spec("", format.clone(), 4),
        spec("too many", format.clone(), 1),
        spec("a match of 2", json!({"kind": "match", "games": 2}), 2),
        spec("rounds", json!({"kind": "round_robin", "cycles": 0}), 4),
    ] {
        director
            .err(
                json!({"type": "create_event", "spec": bad}),
                "invalid_settings",
            )
            .await;
    }
    director
        .err(json!({"type": "get_event", "event": 99}), "no_such_event")
        .await;
    // Entry by rank: a new player (1500, 6k) may not enter a dan event; bad ranks are refused.
    let mut dans = spec("Dan players", format.clone(), 4);
    dans["ranks"] = json!({"weakest": "1d", "strongest": "9d"});
    let (dan_event, _) = create(&mut director, dans).await;
    clients[0]
        .err(
            json!({"type": "join_event", "event": dan_event}),
            "rank_out_of_range",
        )
        .await;
    for ranks in [
        json!({"weakest": "1d", "strongest": "5k"}),
        json!({"weakest": "0k", "strongest": "1d"}),
    ] {
        let mut bad = spec("Bad ranks", format.clone(), 4);
        bad["ranks"] = ranks;
        director
            .err(
                json!({"type": "create_event", "spec": bad}),
                "invalid_settings",
            )
            .await;
    }
    // A player who says at registration that they are 1 dan starts at that rank's rating, and enters.
    let mut dan = server.client().await;
    dan.hello().await;
    dan.err(
        json!({"type": "register", "username": "shodan", "password": "password123", "rank": "0k"}),
        "bad_message",
    )
    .await;
    dan.ok(
        json!({"type": "register", "username": "shodan", "password": "password123", "rank": "1d"}),
    )
    .await;
    let entered = dan
        .ok(json!({"type": "join_event", "event": dan_event}))
        .await;
    assert_eq!(entered["event"]["entrants"][0]["player"]["rating"], 2150);
    let mut kyus = spec("Kyu players", format.clone(), 4);
    kyus["ranks"] = json!({"weakest": "10k", "strongest": "1k"});
    let (kyu_event, _) = create(&mut director, kyus).await;
    let joined = clients[0]
        .ok(json!({"type": "join_event", "event": kyu_event}))
        .await;
    assert_eq!(joined["event"]["summary"]["ranks"]["weakest"], "10k");
    let (event, _) = create(&mut director, spec("Two only", format, 2)).await;
    join_all(&mut clients[..2], event).await;
    clients[2]
        .err(json!({"type": "join_event", "event": event}), "event_full")
        .await;
    clients[2]
        .err(
            json!({"type": "leave_event", "event": event}),
            "not_entered",
        )
        .await;
    clients[0]
        .err(
            json!({"type": "start_round", "event": event}),
            "not_director",
        )
        .await;
    director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    director
        .err(
            json!({"type": "start_round", "event": event}),
            "round_in_play",
        )
        .await;
    clients[0]
        .err(
            json!({"type": "leave_event", "event": event}),
            "event_started",
        )
        .await;
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(view["event"]["entrants"].as_array().unwrap().len(), 2);
    assert_eq!(view["event"]["rounds"].as_array().unwrap().len(), 1);
    server.stop().await;
}

/// The event's push whose round `number` has every result in.
async fn round_done(director: &mut Client, number: usize) -> Value {
    director
        .wait_for(|f| {
            f["type"] == "event"
                && f["event"]["rounds"]
                    .as_array()
                    .and_then(|rounds| rounds.get(number - 1))
                    .is_some_and(|round| {
                        round["boards"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|b| !b["outcome"].is_null())
                    })
        })
        .await["event"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_warnings_in_a_game_lose_it_and_count_in_the_standings() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 2).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "round_robin", "cycles": 2});
    let (event, _) = create(&mut director, spec("Warnings", format, 2)).await;
    join_all(&mut clients, event).await;
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let board = started["event"]["rounds"][0]["boards"][0].clone();
    let warned = clients[0].user.unwrap();
    let warn = json!({"type": "event_warn", "event": event, "user": warned});
    clients[1].err(warn.clone(), "not_director").await;
    let once = director.ok(warn.clone()).await;
    assert!(once["event"]["rounds"][0]["boards"][0]["outcome"].is_null());
    director.ok(warn).await;
    let view = round_done(&mut director, 1).await;
    let loser_is_black = board["black"] == warned;
    let expected = if loser_is_black {
        "white_wins"
    } else {
        "black_wins"
    };
    assert_eq!(view["rounds"][0]["boards"][0]["outcome"], expected);
    assert_eq!(standing(&view, warned)["warnings"], 2);
    assert_eq!(standing(&view, clients[1].user.unwrap())["score"], 2);
    let warnings = view["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["action"] == "warned")
        .count();
    assert_eq!(warnings, 2);
    // The game's record says how it ended: a forfeit.
    let game = board["game"].as_u64().unwrap();
    let record = director
        .ok(json!({"type": "get_record", "game": game}))
        .await;
    assert!(record["sgf"].as_str().unwrap().contains("+F]"), "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawal_before_half_the_games_voids_a_round_robin_players_results() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let format = json!({"kind": "round_robin", "cycles": 1});
    let (event, _) = create(&mut director, spec("Withdrawal", format, 4)).await;
    join_all(&mut clients, event).await;
    let first = play_round(&mut director, &mut clients, event).await;
    let last = clients[3].user.unwrap();
    // Round 2 starts; the last player withdraws after 1 of 3 games: their results are void, and
    // their game in play is lost by forfeit.
    director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let withdrawn = director
        .ok(json!({"type": "event_withdraw", "event": event, "user": last}))
        .await;
    let row = standing(&withdrawn["event"], last);
    assert_eq!(row["withdrawn"], true);
    assert_eq!(row["results_void"], true);
    // The round's other game is played out as usual.
    let other = withdrawn["event"]["rounds"][1]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["black"] != last && b["white"] != last)
        .unwrap()
        .clone();
    let loser = other["black"]
        .as_u64()
        .unwrap()
        .max(other["white"].as_u64().unwrap());
    let game = other["game"].as_u64().unwrap();
    let mut players = by_user(&mut clients);
    let loser = players.get_mut(&loser).unwrap();
    loser
        .wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    loser.ok(json!({"type": "resign", "game": game})).await;
    let second = round_done(&mut director, 2).await;
    let forfeited = second["rounds"][1]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["black"] == last || b["white"] == last)
        .unwrap()
        .clone();
    let winner = if forfeited["black"] == last {
        "white_wins"
    } else {
        "black_wins"
    };
    assert_eq!(forfeited["outcome"], winner);
    // Whoever beat the last player in round 1 has no points for it.
    let beaten_by = first["rounds"][0]["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["black"] == last || b["white"] == last)
        .map(|b| {
            if b["black"] == last {
                b["white"].as_u64().unwrap()
            } else {
                b["black"].as_u64().unwrap()
            }
        })
        .unwrap();
    let wins_not_against_last: u64 = second["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["boards"].as_array().unwrap().clone())
        .filter(|b| b["black"] != last && b["white"] != last)
        .filter(|b| {
            b["black"]
                .as_u64()
                .unwrap()
                .min(b["white"].as_u64().unwrap())
                == beaten_by
        })
        .count() as u64;
    assert_eq!(
        standing(&second, beaten_by)["score"],
        2 * wins_not_against_last
    );
    clients[3]
        .err(
            json!({"type": "leave_event", "event": event}),
            "event_started",
        )
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_director_adjudicates_a_game_with_a_reason_in_the_log() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 2).await;
    let mut director = server.player("director").await;
    let (event, _) = create(
        &mut director,
        spec("Adjudication", json!({"kind": "match", "games": 3}), 2),
    )
    .await;
    join_all(&mut clients, event).await;
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let game = started["event"]["rounds"][0]["boards"][0]["game"]
        .as_u64()
        .unwrap();
    let decide = |reason: &str| json!({"type": "event_adjudicate", "event": event, "game": game, "outcome": "white_wins", "reason": reason});
    clients[0].err(decide("mine"), "not_director").await;
    director.err(decide("  "), "bad_message").await;
    director
        .err(json!({"type": "event_adjudicate", "event": event, "game": 999, "outcome": "draw", "reason": "x"}), "no_such_game")
        .await;
    director
        .ok(decide("the clock failed; both agreed White was winning"))
        .await;
    let view = round_done(&mut director, 1).await;
    assert_eq!(view["rounds"][0]["boards"][0]["outcome"], "white_wins");
    let entry = view["log"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["action"] == "adjudicated")
        .unwrap()
        .clone();
    assert_eq!(
        entry["detail"], "the clock failed; both agreed White was winning",
        "{entry}"
    );
    assert_eq!(entry["game"], game, "{entry}");
    server.stop().await;
}
