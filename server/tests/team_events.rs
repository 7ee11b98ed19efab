//! Team events over real sockets (SPEC §4, 团体赛): a relay between two teams of three played to its
//! end; a round robin of four teams on fixed boards ranked by match and board points as worked by
//! hand, with a drawn match; a free line-up set by a captain; an all-play-all in which everyone meets
//! everyone; rounds that start at their set times; an unrated event that leaves ratings alone; and
//! every bad team request refused with nothing changed. In every game the loser resigns at once.

mod common;

use std::collections::{BTreeMap, BTreeSet};

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

async fn players(server: &TestServer, count: usize) -> Vec<Client> {
    let mut clients = Vec::new();
    for n in 1..=count {
        clients.push(server.player(&format!("player{n}")).await);
    }
    clients
}

async fn create(director: &mut Client, spec: Value) -> u64 {
    let reply = director
        .ok(json!({"type": "create_event", "spec": spec}))
        .await;
    assert_eq!(reply["type"], "event", "{reply}");
    reply["event"]["summary"]["event"].as_u64().unwrap()
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

/// The player `loser` of the game on `board` resigns it.
async fn resign(clients: &mut [Client], loser: u64, game: u64) {
    let client = clients.iter_mut().find(|c| c.user == Some(loser)).unwrap();
    client
        .wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    client.ok(json!({"type": "resign", "game": game})).await;
}

/// In each game of the round just started, the player with the larger id resigns; returns the
/// event's push that shows every board of that round with its result.
async fn finish_round(director: &mut Client, clients: &mut [Client], view: &Value) -> Value {
    let event = view["summary"]["event"].clone();
    let round = view["rounds"].as_array().unwrap().last().unwrap().clone();
    for board in round["boards"].as_array().unwrap() {
        let game = board["game"].as_u64().expect("every board has its game");
        let loser = board["black"]
            .as_u64()
            .unwrap()
            .max(board["white"].as_u64().unwrap());
        resign(clients, loser, game).await;
    }
    let number = round["number"].clone();
    let done = director
        .wait_for(|f| {
            f["type"] == "event"
                && f["event"]["summary"]["event"] == event
                && f["event"]["rounds"]
                    .as_array()
                    .and_then(|r| r.last())
                    .is_some_and(|last| {
                        last["number"] == number
                            && last["boards"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .all(|b| !b["outcome"].is_null())
                    })
        })
        .await;
    done["event"].clone()
}

async fn play_round(director: &mut Client, clients: &mut [Client], event: u64) -> Value {
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    finish_round(director, clients, &started["event"]).await
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
