//! Team events over real sockets (docs/competitions.md, 团体赛): a relay between two teams of three played to its
//! end; a round robin of four teams on fixed boards ranked by match and board points as worked by
//! hand, with a drawn match; a free line-up set by a captain; an all-play-all in which everyone meets
//! everyone; withdrawals; a relay through a restart; and every bad team request refused with nothing
//! changed. Also the event settings that came with them: rounds that start at their set times, an
//! unrated event that leaves ratings alone, a game naming its event, and the list's pages. In every
//! game the loser resigns at once.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::events::{
    create_event, finish_round, join_all, play_round, players, resign_as as resign,
};
use common::{Client, TestServer};
use serde_json::{json, Value};

fn team_spec(name: &str, line_up: &str, players: u32, teams_max: u32) -> Value {
    json!({
        "name": name,
        "format": {"kind": "round_robin", "cycles": 1},
        "settings": common::settings_9x9(),
        "players_max": teams_max,
        "teams": {"players": players, "line_up": line_up},
    })
}

async fn create(director: &mut Client, spec: Value) -> u64 {
    create_event(director, spec).await.0
}

/// `members[0]` founds team `name`, the others join it; returns the team's id.
async fn team(clients: &mut [Client], members: &[usize], event: u64, name: &str) -> u64 {
    let founded = clients[members[0]]
        .ok(json!({"type": "create_team", "event": event, "name": name}))
        .await;
    let team = founded["event"]["teams"]["teams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap()["team"]
        .as_u64()
        .unwrap();
    for &member in &members[1..] {
        clients[member]
            .ok(json!({"type": "join_team", "event": event, "team": team}))
            .await;
    }
    team
}

fn user_ids(clients: &[Client]) -> Vec<u64> {
    clients.iter().map(|c| c.user.unwrap()).collect()
}

/// Waits for the event push in which board `board` of the last round has a game without a result,
/// or every board has a result (`None`).
async fn next_game(director: &mut Client, event: u64, played: usize) -> Option<Value> {
    let push = director
        .wait_for(|f| {
            f["type"] == "event"
                && f["event"]["summary"]["event"] == event
                && (f["event"]["summary"]["status"] == "finished"
                    || f["event"]["rounds"][0]["boards"]
                        .as_array()
                        .is_some_and(|b| b.len() > played && !b[played]["game"].is_null()))
        })
        .await;
    let board = &push["event"]["rounds"][0]["boards"][played];
    board["game"].is_u64().then(|| board.clone())
}

fn team_row(view: &Value, team: u64) -> &Value {
    view["teams"]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["team"] == team)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_between_two_teams_of_three_is_played_to_the_last_player() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 6).await;
    let mut director = server.player("director").await;
    let ids = user_ids(&clients);
    let event = create(&mut director, team_spec("Relay", "relay", 3, 2)).await;
    let red = team(&mut clients, &[0, 1, 2], event, "Red").await;
    let blue = team(&mut clients, &[3, 4, 5], event, "Blue").await;
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    assert_eq!(
        started["event"]["teams"]["relay"]["home"],
        json!(&ids[0..3])
    );
    assert_eq!(
        started["event"]["teams"]["relay"]["away"],
        json!(&ids[3..6])
    );
    // Who loses each game, and who must be playing it: p1 beats p4, loses to p5; p2 beats p5
    // and p6; Blue has nobody left. The newcomer plays Black.
    let script = [
        (ids[0], ids[3], ids[3]),
        (ids[4], ids[0], ids[0]),
        (ids[1], ids[4], ids[4]),
        (ids[5], ids[1], ids[5]),
    ];
    for (played, (black, white, loser)) in script.into_iter().enumerate() {
        let board = next_game(&mut director, event, played).await.unwrap();
        assert_eq!(
            (board["black"].as_u64(), board["white"].as_u64()),
            (Some(black), Some(white))
        );
        resign(&mut clients, loser, board["game"].as_u64().unwrap()).await;
    }
    assert!(next_game(&mut director, event, 4).await.is_none());
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await["event"]
        .clone();
    assert_eq!(view["summary"]["status"], "finished");
    assert_eq!(
        view["teams"]["relay"]["state"],
        json!({"state": "won", "side": "home"})
    );
    assert_eq!(view["teams"]["winner"], red);
    assert_eq!(team_row(&view, red)["match_points"], 2);
    assert_eq!(team_row(&view, blue)["match_points"], 0);
    // Each relay game is a board of the one match: Red won three (6), Blue one (2), as the match
    // line says too.
    assert_eq!(team_row(&view, red)["board_points"], 6);
    assert_eq!(team_row(&view, blue)["board_points"], 2);
    assert_eq!(view["teams"]["matches"][0]["board_points"], json!([6, 2]));
    assert_eq!(view["rounds"][0]["boards"].as_array().unwrap().len(), 4);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_teams_on_fixed_boards_rank_by_match_then_board_points() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 8).await;
    let mut director = server.player("director").await;
    let event = create(&mut director, team_spec("League", "fixed_boards", 2, 4)).await;
    // Equal ratings keep the joining order as the board order. The smaller id wins every game:
    // A = p1, p8; B = p2, p3; C = p4, p5; D = p6, p7.
    let a = team(&mut clients, &[0, 7], event, "A").await;
    let b = team(&mut clients, &[1, 2], event, "B").await;
    let c = team(&mut clients, &[3, 4], event, "C").await;
    let d = team(&mut clients, &[5, 6], event, "D").await;
    let mut view = Value::Null;
    for _ in 0..3 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    assert_eq!(view["summary"]["status"], "finished");
    // By hand, each match board 1 then board 2:
    //   A–B: p1 beats p2, p3 beats p8: 2–2, drawn (1–1). A–C and A–D: the same, drawn.
    //   B–C: p2 and p3 win, B 4–0. B–D: B 4–0. C–D: p4 and p5 win, C 4–0.
    // Match points: B 1+2+2 = 5, A 1+1+1 = 3, C 1+0+2 = 3, D 1+0+0 = 1.
    // Board points: B 2+4+4 = 10, A 2+2+2 = 6, C 2+0+4 = 6, D 2+0+0 = 2.
    let expected = [(b, 5, 10), (a, 3, 6), (c, 3, 6), (d, 1, 2)];
    for (team, match_points, board_points) in expected {
        let row = team_row(&view, team);
        assert_eq!(row["match_points"], match_points, "{row}");
        assert_eq!(row["board_points"], board_points, "{row}");
    }
    // A and C tie on match and board points; board 1 decides: A won board 1 in all three matches
    // (6), C in one (p4 beat p6: 2).
    assert_eq!(team_row(&view, a)["board_points_by_board"], json!([6, 0]));
    assert_eq!(team_row(&view, c)["board_points_by_board"], json!([2, 4]));
    let ranks: Vec<(u64, u64)> = view["teams"]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["team"].as_u64().unwrap(), r["rank"].as_u64().unwrap()))
        .collect();
    assert_eq!(ranks, vec![(b, 1), (a, 2), (c, 3), (d, 4)]);
    let matches = view["teams"]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 6);
    assert!(matches.iter().any(|m| m["match_points"] == json!([1, 1])));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_captains_line_up_is_used_for_the_next_match_only() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let ids = user_ids(&clients);
    let mut spec = team_spec("Free", "free_line_up", 2, 2);
    spec["format"] = json!({"kind": "round_robin", "cycles": 2});
    let event = create(&mut director, spec).await;
    let home = team(&mut clients, &[0, 1], event, "Home").await;
    team(&mut clients, &[2, 3], event, "Away").await;
    // Only the captain, naming each of the team's players once.
    clients[1]
        .err(
            json!({"type": "set_line_up", "event": event, "players": [ids[1], ids[0]]}),
            "not_captain",
        )
        .await;
    clients[0]
        .err(
            json!({"type": "set_line_up", "event": event, "players": [ids[1]]}),
            "team_size",
        )
        .await;
    clients[0]
        .err(
            json!({"type": "set_line_up", "event": event, "players": [ids[1], ids[2]]}),
            "team_size",
        )
        .await;
    let set = clients[0]
        .ok(json!({"type": "set_line_up", "event": event, "players": [ids[1], ids[0]]}))
        .await;
    let teams = &set["event"]["teams"]["teams"];
    assert_eq!(teams[0]["team"], home);
    assert_eq!(teams[0]["next_line_up"], json!([ids[1], ids[0]]));
    // Round 1: p2 on board 1 against p3; round 2 (no line-up given): the team's own order.
    let first = play_round(&mut director, &mut clients, event).await;
    let pairs = |view: &Value, round: usize| -> BTreeSet<(u64, u64)> {
        view["rounds"][round]["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let (x, y) = (b["black"].as_u64().unwrap(), b["white"].as_u64().unwrap());
                (x.min(y), x.max(y))
            })
            .collect()
    };
    assert_eq!(
        pairs(&first, 0),
        BTreeSet::from([(ids[1], ids[2]), (ids[0], ids[3])])
    );
    assert!(first["teams"]["teams"][0]["next_line_up"].is_null());
    let second = play_round(&mut director, &mut clients, event).await;
    assert_eq!(
        pairs(&second, 1),
        BTreeSet::from([(ids[0], ids[2]), (ids[1], ids[3])])
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_an_all_play_all_everyone_meets_everyone_of_the_other_team_once() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 6).await;
    let mut director = server.player("director").await;
    let event = create(
        &mut director,
        team_spec("All play all", "all_play_all", 3, 2),
    )
    .await;
    team(&mut clients, &[0, 1, 2], event, "East").await;
    team(&mut clients, &[3, 4, 5], event, "West").await;
    let mut view = Value::Null;
    for _ in 0..3 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    assert_eq!(view["summary"]["status"], "finished");
    let mut met = BTreeMap::new();
    for round in view["rounds"].as_array().unwrap() {
        for board in round["boards"].as_array().unwrap() {
            let (b, w) = (
                board["black"].as_u64().unwrap(),
                board["white"].as_u64().unwrap(),
            );
            *met.entry((b.min(w), b.max(w))).or_insert(0) += 1;
        }
    }
    // 3 × 3 pairs, each once, each across the teams.
    assert_eq!(met.len(), 9, "{met:?}");
    assert!(met.values().all(|&n| n == 1));
    let ids = user_ids(&clients);
    assert!(met
        .keys()
        .all(|&(x, y)| ids[0..3].contains(&x) && ids[3..6].contains(&y)));
    // East's players have the smaller ids and win all nine: 3 matches won 6–0.
    let east = view["teams"]["standings"][0].clone();
    assert_eq!(
        (east["match_points"].as_u64(), east["board_points"].as_u64()),
        (Some(6), Some(18))
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_team_requests_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 5).await;
    let mut director = server.player("director").await;
    let event = create(
        &mut director,
        team_spec("Teams of three", "fixed_boards", 3, 2),
    )
    .await;
    // Joining a team event as a player alone.
    clients[0]
        .err(
            json!({"type": "join_event", "event": event}),
            "invalid_settings",
        )
        .await;
    let red = team(&mut clients, &[0, 1, 2], event, "Red").await;
    // A full team, a team that is not there, a second team for one player, a name taken.
    clients[3]
        .err(
            json!({"type": "join_team", "event": event, "team": red}),
            "event_full",
        )
        .await;
    clients[3]
        .err(
            json!({"type": "join_team", "event": event, "team": 99}),
            "bad_message",
        )
        .await;
    clients[0]
        .err(
            json!({"type": "create_team", "event": event, "name": "Again"}),
            "invalid_settings",
        )
        .await;
    clients[3]
        .err(
            json!({"type": "create_team", "event": event, "name": "Red"}),
            "invalid_settings",
        )
        .await;
    team(&mut clients, &[3, 4], event, "Blue").await;
    // A team of the wrong size: round 1 does not start.
    let before = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    director
        .err(json!({"type": "start_round", "event": event}), "team_size")
        .await;
    // A third team in a two-team event; a line-up in a fixed-boards event.
    let mut late = server.player("late").await;
    late.err(
        json!({"type": "create_team", "event": event, "name": "Green"}),
        "event_full",
    )
    .await;
    clients[0]
        .err(
            json!({"type": "set_line_up", "event": event, "players": []}),
            "invalid_settings",
        )
        .await;
    let after = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(before["event"], after["event"]);
    assert_eq!(after["event"]["summary"]["status"], "open");
    // Team events' own settings: a relay of three teams, teams of nine.
    let mut relay_of_three = team_spec("Relay", "relay", 3, 3);
    director
        .err(
            json!({"type": "create_event", "spec": relay_of_three.clone()}),
            "invalid_settings",
        )
        .await;
    relay_of_three["players_max"] = json!(2);
    relay_of_three["teams"]["players"] = json!(9);
    director
        .err(
            json!({"type": "create_event", "spec": relay_of_three}),
            "invalid_settings",
        )
        .await;
    server.stop().await;
}

/// The time the machine's wall clock says, in Unix milliseconds.
fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_start_at_their_set_times_and_an_unrated_event_leaves_ratings_alone() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let ids = user_ids(&clients);
    // p1 and p2 play an unrated event of two rounds: round 1 starts by itself in half a second,
    // round 2's time comes while round 1 is still in play (it waits for p2's resignation), and
    // the director starts neither.
    let at = unix_now_ms() + 500;
    let spec = json!({
        "name": "Friendly", "format": {"kind": "round_robin", "cycles": 2},
        "settings": common::settings_9x9(), "players_max": 2, "rated": false,
        "round_starts_ms": [at, at + 1],
    });
    let event = create(&mut director, spec).await;
    join_all(&mut clients[0..2], event).await;
    for round in 0..2 {
        let started = director
            .wait_for(|f| {
                f["type"] == "event" && f["event"]["rounds"][round]["boards"][0]["game"].is_u64()
            })
            .await;
        assert!(unix_now_ms() >= at);
        let log = started["event"]["log"].as_array().unwrap();
        let by_time = log
            .iter()
            .filter(|l| l["action"] == "round_started" && l["user"].is_null());
        assert_eq!(by_time.count(), round + 1);
        finish_round(&mut director, &mut clients, &started["event"]).await;
    }
    // Then rated games: p1 beats p2 again, p3 beats p4. p1 and p3 each have one rated win over
    // a fresh account, so their ratings must be equal if the first game counted for nothing.
    let mut pairs = Vec::new();
    for (winner, loser) in [(0, 1), (2, 3)] {
        let spec = json!({
            "name": format!("Rated {winner}"), "format": {"kind": "round_robin", "cycles": 1},
            "settings": common::settings_9x9(), "players_max": 2,
        });
        let event = create(&mut director, spec).await;
        clients[winner]
            .ok(json!({"type": "join_event", "event": event}))
            .await;
        clients[loser]
            .ok(json!({"type": "join_event", "event": event}))
            .await;
        pairs.push(event);
    }
    for event in pairs {
        play_round(&mut director, &mut clients, event).await;
    }
    let ratings = rated_entries(&server, &mut director, &ids).await;
    assert_eq!(ratings[0], ratings[2], "{ratings:?}");
    assert_eq!(ratings[1], ratings[3], "{ratings:?}");
    assert!(ratings[0] > 1500 && ratings[1] < 1500, "{ratings:?}");
    server.stop().await;
}

/// The players' ratings now, as a new event's entry shows them (read until all four have moved:
/// a rating is stored just after the result is sent; a bounded number of looks).
async fn rated_entries(server: &TestServer, director: &mut Client, ids: &[u64]) -> Vec<i64> {
    let mut ratings = Vec::new();
    for look in 0..100 {
        let spec = json!({
            "name": format!("Look {look}"), "format": {"kind": "round_robin", "cycles": 1},
            "settings": common::settings_9x9(), "players_max": 8,
        });
        let event = create(director, spec).await;
        let mut view = Value::Null;
        for n in 1..=ids.len() {
            let mut client = server.player_login(&format!("player{n}")).await;
            view = client
                .ok(json!({"type": "join_event", "event": event}))
                .await;
        }
        ratings = ids
            .iter()
            .map(|id| {
                view["event"]["entrants"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["player"]["user"] == *id)
                    .unwrap()["player"]["rating"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        if ratings.iter().all(|&r| r != 1500) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    ratings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_carries_on_after_a_restart_during_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(common::test_config(dir.path())).await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let ids = user_ids(&clients);
    let event = create(&mut director, team_spec("Relay", "relay", 2, 2)).await;
    team(&mut clients, &[0, 1], event, "Red").await;
    team(&mut clients, &[2, 3], event, "Blue").await;
    director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    // p1 beats p3; the second game (p4 against p1) is cut off by the restart.
    let first = next_game(&mut director, event, 0).await.unwrap();
    resign(&mut clients, ids[2], first["game"].as_u64().unwrap()).await;
    let second = next_game(&mut director, event, 1).await.unwrap();
    assert_eq!(second["black"], ids[3]);
    server.stop().await;

    let server = TestServer::start_with(common::test_config(dir.path())).await;
    let mut clients = Vec::new();
    for n in 1..=4 {
        clients.push(server.player_login(&format!("player{n}")).await);
    }
    let mut director = server.player_login("director").await;
    let view = director
        .ok(json!({"type": "get_event", "event": event}))
        .await;
    assert_eq!(view["event"]["summary"]["status"], "playing");
    assert_eq!(
        view["event"]["rounds"][0]["boards"][1]["game"],
        second["game"]
    );
    // p4 loses too: Blue is out, Red has won.
    clients[3]
        .ok(json!({"type": "resign", "game": second["game"]}))
        .await;
    let done = director
        .wait_for(|f| f["type"] == "event" && f["event"]["summary"]["status"] == "finished")
        .await;
    assert_eq!(done["event"]["teams"]["relay"]["state"]["side"], "home");
    assert_eq!(
        done["event"]["rounds"][0]["boards"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_players_later_boards_are_forfeits_and_their_results_stand() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 4).await;
    let mut director = server.player("director").await;
    let ids = user_ids(&clients);
    let mut spec = team_spec("Withdrawals", "fixed_boards", 2, 2);
    spec["format"] = json!({"kind": "round_robin", "cycles": 2});
    let event = create(&mut director, spec).await;
    let red = team(&mut clients, &[0, 1], event, "Red").await;
    let blue = team(&mut clients, &[2, 3], event, "Blue").await;
    play_round(&mut director, &mut clients, event).await;
    director
        .err(
            json!({"type": "event_withdraw", "event": event, "user": 424242}),
            "not_entered",
        )
        .await;
    director
        .ok(json!({"type": "event_withdraw", "event": event, "user": ids[1]}))
        .await;
    // Round 2: p2's board is lost by forfeit without a game; p1 against p3 is played.
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let boards = started["event"]["rounds"][1]["boards"]
        .as_array()
        .unwrap()
        .clone();
    let forfeited = boards
        .iter()
        .find(|b| b["black"] == ids[1] || b["white"] == ids[1])
        .unwrap();
    assert!(forfeited["game"].is_null(), "{forfeited}");
    let p2_black = forfeited["black"] == ids[1];
    assert_eq!(
        forfeited["outcome"],
        if p2_black { "white_wins" } else { "black_wins" }
    );
    let played = boards
        .iter()
        .find(|b| b["black"] == ids[0] || b["white"] == ids[0])
        .unwrap();
    // A warning in a team event's game counts against that player (on the entrants' list).
    let warned = director
        .ok(json!({"type": "event_warn", "event": event, "user": ids[0]}))
        .await;
    let entrant = |view: &Value, user: u64| {
        view["entrants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["player"]["user"] == user)
            .unwrap()["warnings"]
            .clone()
    };
    assert_eq!(entrant(&warned["event"], ids[0]), 1);
    resign(&mut clients, ids[2], played["game"].as_u64().unwrap()).await;
    let done = director
        .wait_for(|f| f["type"] == "event" && f["event"]["summary"]["status"] == "finished")
        .await;
    // Round 1: Red won both boards (4–0). Round 2: 2–2, drawn. Red 3 match points, Blue 1.
    assert_eq!(team_row(&done["event"], red)["match_points"], 3);
    assert_eq!(team_row(&done["event"], blue)["match_points"], 1);
    let log = done["event"]["log"].as_array().unwrap();
    assert!(log
        .iter()
        .any(|l| l["action"] == "withdrew" && l["user"] == ids[1]));
    server.stop().await;
}

/// An event's game says which event it belongs to (its page links back); a client may not claim an
/// event for its own game; the hall's list of events comes in pages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_events_game_names_its_event_and_the_list_comes_in_pages() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 2).await;
    let mut director = server.player("director").await;
    let spec = |n: u32| {
        json!({
            "name": format!("Event {n}"), "format": {"kind": "round_robin", "cycles": 1},
            "settings": common::settings_9x9(), "players_max": 2,
        })
    };
    // 105 events from seven creators, 15 each, within each connection's message rate.
    let mut ids = Vec::new();
    for creator in 0..7 {
        let mut creator = server.player(&format!("creator{creator}")).await;
        for _ in 0..15 {
            ids.push(create(&mut creator, spec(ids.len() as u32)).await);
        }
    }
    // And the one played here, the newest.
    let event = create(&mut director, spec(105)).await;
    ids.push(event);
    let first = director.ok(json!({"type": "list_events"})).await;
    let page: Vec<u64> = first["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_u64().unwrap())
        .collect();
    assert_eq!(page.len(), 100);
    assert_eq!(page[0], event);
    let next = director
        .ok(json!({"type": "list_events", "before": page[99]}))
        .await;
    let rest: Vec<u64> = next["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_u64().unwrap())
        .collect();
    assert_eq!(rest, ids[0..6].iter().rev().copied().collect::<Vec<_>>());

    join_all(&mut clients, event).await;
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let game = started["event"]["rounds"][0]["boards"][0]["game"]
        .as_u64()
        .unwrap();
    director.ok(json!({"type": "watch", "game": game})).await;
    let state = director.wait_type("game_state").await;
    assert_eq!(state["state"]["settings"]["event"], event, "{state}");
    // A table game claiming an event is refused.
    let mut settings = common::settings_9x9();
    settings["event"] = json!(event);
    director
        .ok(json!({"type": "sit", "table": 9, "seat": "left"}))
        .await;
    clients[0]
        .ok(json!({"type": "sit", "table": 9, "seat": "right"}))
        .await;
    clients[0]
        .err(
            json!({"type": "propose_settings", "table": 9, "settings": settings}),
            "invalid_settings",
        )
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_bye_in_a_swiss_counts_as_a_match_won_on_every_board() {
    let server = TestServer::start().await;
    let mut clients = players(&server, 6).await;
    let mut director = server.player("director").await;
    let mut spec = team_spec("Three teams", "fixed_boards", 2, 3);
    spec["format"] = json!({"kind": "swiss", "rounds": 2, "ranking": "total_score"});
    let event = create(&mut director, spec).await;
    let teams = [
        team(&mut clients, &[0, 1], event, "One").await,
        team(&mut clients, &[2, 3], event, "Two").await,
        team(&mut clients, &[4, 5], event, "Three").await,
    ];
    let mut view = Value::Null;
    for _ in 0..2 {
        view = play_round(&mut director, &mut clients, event).await;
    }
    assert_eq!(view["summary"]["status"], "finished");
    // Every team's figures from its matches and byes: a bye is a match won 4–0 on two boards.
    let mut expected: BTreeMap<u64, (u64, u64, u64)> =
        teams.iter().map(|&t| (t, (0, 0, 0))).collect();
    for m in view["teams"]["matches"].as_array().unwrap() {
        for (side, index) in [("home", 0), ("away", 1)] {
            let entry = expected.get_mut(&m[side].as_u64().unwrap()).unwrap();
            entry.0 += 1;
            entry.1 += m["match_points"][index].as_u64().unwrap();
            entry.2 += m["board_points"][index].as_u64().unwrap();
        }
    }
    let mut byes = 0;
    for round in view["rounds"].as_array().unwrap() {
        for bye in round["byes"].as_array().unwrap() {
            let entry = expected.get_mut(&bye.as_u64().unwrap()).unwrap();
            *entry = (entry.0 + 1, entry.1 + 2, entry.2 + 4);
            byes += 1;
        }
    }
    assert_eq!(byes, 2);
    for (team, (matches, match_points, board_points)) in expected {
        let row = team_row(&view, team);
        assert_eq!(row["matches"], matches, "{row}");
        assert_eq!(row["match_points"], match_points, "{row}");
        assert_eq!(row["board_points"], board_points, "{row}");
    }
    server.stop().await;
}
