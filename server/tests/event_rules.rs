//! The competition rules inside an event's games, over real sockets: a late player charged twice
//! their lateness, then forfeited at the event's limit in another game; both players missing, both
//! lose; a warning costing a point in a counted game; a pause (moves refused, clocks unchanged
//! across it, resumed by the director and by itself at the set time); an adjournment whose sealed
//! move nobody sees, that survives a server restart and is played at the resumption; and bad input
//! refused with nothing changed.
//!
//! Clocks run in real time here, as in the other socket tests: every assertion compares figures the
//! server reported at one instant (the lateness it measured and what it charged, the clocks in the
//! events before and after a pause), never the time a test took.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{test_config, Client, TestServer};
use serde_json::{json, Value};

/// Main time of every game here: long enough that nobody runs out.
const MAIN_TIME_MS: u64 = 600_000;

/// A two-player event (one game per round) with the given lateness limit; `players` joined.
async fn event_of_two(
    director: &mut Client,
    players: &mut [Client],
    name: &str,
    lateness_limit_ms: Option<u64>,
) -> u64 {
    let mut spec = json!({
        "name": name,
        "format": {"kind": "round_robin", "cycles": 1},
        "settings": common::settings_9x9(),
        "players_max": 2,
    });
    if let Some(limit_ms) = lateness_limit_ms {
        spec["lateness_limit_ms"] = json!(limit_ms);
    }
    let created = director
        .ok(json!({"type": "create_event", "spec": spec}))
        .await;
    let event = created["event"]["summary"]["event"].as_u64().unwrap();
    for player in players.iter_mut() {
        player
            .ok(json!({"type": "join_event", "event": event}))
            .await;
    }
    event
}

/// The round's only board: its game, Black and White.
struct Board {
    game: u64,
    black: u64,
    white: u64,
}

impl Board {
    fn colour_of(&self, user: u64) -> &'static str {
        if user == self.black {
            "black"
        } else {
            "white"
        }
    }
}

async fn start_round(director: &mut Client, event: u64) -> Board {
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    let board = &started["event"]["rounds"][0]["boards"][0];
    Board {
        game: board["game"].as_u64().unwrap(),
        black: board["black"].as_u64().unwrap(),
        white: board["white"].as_u64().unwrap(),
    }
}

/// The game event `kind` of `game` (with `color`, when given).
async fn game_event(client: &mut Client, game: u64, kind: &str, color: Option<&str>) -> Value {
    client
        .wait_for(|f| {
            f["type"] == "game_event"
                && f["game"] == game
                && f["event"] == kind
                && color.is_none_or(|c| f["color"] == c)
        })
        .await
}

/// The client's game state of `game`, freshly asked for.
async fn state_of(client: &mut Client, game: u64) -> Value {
    // Players follow their games from the start; anyone else may not watch it yet.
    client
        .request(json!({"type": "unwatch", "game": game}))
        .await;
    watch(client, game).await
}

/// Watch `game` and take the state it sends (older states still queued are dropped).
async fn watch(client: &mut Client, game: u64) -> Value {
    let state = |f: &Value| f["type"] == "game_state" && f["state"]["game"] == game;
    while client.backlog_has(state) {
        client.wait_for(state).await;
    }
    client.ok(json!({"type": "watch", "game": game})).await;
    client
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await["state"]
        .clone()
}

fn unix_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The director's push of event `event` once `done` holds for its view.
async fn event_push(director: &mut Client, event: u64, done: impl Fn(&Value) -> bool) -> Value {
    director
        .wait_for(|f| {
            f["type"] == "event" && f["event"]["summary"]["event"] == event && done(&f["event"])
        })
        .await["event"]
        .clone()
}

fn logged(view: &Value, action: &str) -> Vec<Value> {
    view["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["action"] == action)
        .cloned()
        .collect()
}

fn first_outcome(view: &Value) -> &Value {
    &view["rounds"][0]["boards"][0]["outcome"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_player_is_charged_double_and_forfeited_at_the_limit() {
    let server = TestServer::start().await;
    let mut director = server.player("director").await;
    let mut players = vec![server.player("early").await, server.player("late").await];
    let late = players[1].user.unwrap();
    let event = event_of_two(&mut director, &mut players, "Late", Some(60_000)).await;
    // The late player is not connected when the round starts.
    let mut early = players.remove(0);
    players.remove(0).close().await;
    let board = start_round(&mut director, event).await;
    let (game, late_colour) = (board.game, board.colour_of(late));
    let snapshot = early
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    let awaited = snapshot["state"]["awaited"].as_array().unwrap().clone();
    let waiting = awaited.iter().find(|a| a["color"] == late_colour).unwrap();
    assert!(waiting["forfeit_in_ms"].as_u64().unwrap() <= 60_000);
    assert!(waiting["forfeit_at_ms"].as_u64().unwrap() > unix_now_ms() - 60_000);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut late_client = server.player_login("late").await;
    let arrived = game_event(&mut late_client, game, "arrived", Some(late_colour)).await;
    let late_ms = arrived["late_ms"].as_u64().unwrap();
    let charged_ms = arrived["charged_ms"].as_u64().unwrap();
    assert!(late_ms >= 300, "{arrived}");
    let main_left_ms = arrived["clocks"][late_colour]["main_left_ms"]
        .as_u64()
        .unwrap();
    if late_colour == "white" {
        // White's clock did not run: the whole double lateness is taken at arrival.
        assert_eq!(charged_ms, 2 * late_ms, "{arrived}");
        assert_eq!(main_left_ms, MAIN_TIME_MS - 2 * late_ms, "{arrived}");
    } else {
        // Black's clock ran all along: once more what it ran.
        assert_eq!(charged_ms, late_ms, "{arrived}");
        assert!(main_left_ms <= MAIN_TIME_MS - 2 * late_ms, "{arrived}");
    }
    // Nobody is awaited any more.
    assert!(state_of(&mut director, game).await["awaited"].is_null());

    // Another game: the same player does not come, and loses it at the limit.
    let mut director2 = server.player("director2").await;
    let mut players = vec![late_client, server.player("present").await];
    // Long enough for the present player to arrive however slow the machine.
    let event = event_of_two(&mut director2, &mut players, "Later", Some(3_000)).await;
    let mut present = players.remove(1);
    players.remove(0).close().await;
    let board = start_round(&mut director2, event).await;
    let present_colour = board.colour_of(present.user.unwrap());
    let ended = game_event(&mut present, board.game, "ended", None).await;
    assert_eq!(ended["outcome"]["winner"], present_colour, "{ended}");
    assert_eq!(ended["outcome"]["reason"], "forfeit", "{ended}");
    let view = event_push(&mut director2, event, |v| !first_outcome(v).is_null()).await;
    let expected = format!("{present_colour}_wins");
    assert_eq!(first_outcome(&view), expected.as_str());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_players_missing_at_the_limit_both_lose() {
    let server = TestServer::start().await;
    let mut director = server.player("director").await;
    let mut players = vec![
        server.player("absent1").await,
        server.player("absent2").await,
    ];
    let ids: Vec<u64> = players.iter().map(|p| p.user.unwrap()).collect();
    let event = event_of_two(&mut director, &mut players, "Nobody", Some(1_000)).await;
    for player in players {
        player.close().await;
    }
    start_round(&mut director, event).await;
    let view = event_push(&mut director, event, |v| !first_outcome(v).is_null()).await;
    assert_eq!(first_outcome(&view), "both_lose");
    for id in ids {
        let row = view["standings"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["player"] == id)
            .unwrap();
        assert_eq!(
            (row["losses"].as_u64(), row["score"].as_u64()),
            (Some(1), Some(0)),
            "{row}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warning_costs_its_player_a_point_of_the_count() {
    let server = TestServer::start().await;
    let mut director = server.player("director").await;
    let mut players = vec![server.player("one").await, server.player("two").await];
    let event = event_of_two(&mut director, &mut players, "Warned", None).await;
    let board = start_round(&mut director, event).await;
    let game = board.game;
    let (mut black, mut white) = if players[0].user == Some(board.black) {
        (players.remove(0), players.remove(0))
    } else {
        let white = players.remove(0);
        (players.remove(0), white)
    };
    black
        .wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    black.ok(json!({"type": "pass", "game": game})).await;
    game_event(&mut white, game, "passed", Some("black")).await;
    director
        .ok(json!({"type": "event_warn", "event": event, "user": board.white}))
        .await;
    let warned = game_event(&mut white, game, "warned", Some("white")).await;
    assert_eq!(warned["warnings"], 1);
    let state = state_of(&mut director, game).await;
    // Absent when none.
    assert!(state["warnings_black"].is_null(), "{state}");
    assert_eq!(state["warnings_white"], 1, "{state}");
    white.ok(json!({"type": "pass", "game": game})).await;
    game_event(&mut black, game, "scoring_started", None).await;
    black
        .ok(json!({"type": "accept_score", "game": game}))
        .await;
    white
        .ok(json!({"type": "accept_score", "game": game}))
        .await;
    let ended = game_event(&mut black, game, "ended", None).await;
    let outcome = &ended["outcome"];
    // An empty board is 81 dame, 40.5 points each; White's warning takes one point off White's,
    // so with 7.5 komi White wins by 6.5 instead of 7.5.
    assert_eq!(outcome["black_count_half_points"], 81, "{outcome}");
    assert_eq!(outcome["white_count_half_points"], 79, "{outcome}");
    assert_eq!(outcome["sgf"], "W+6.5", "{outcome}");
    let record = black.ok(json!({"type": "get_record", "game": game})).await;
    let sgf = record["sgf"].as_str().unwrap();
    assert!(sgf.contains("RE[W+6.5]"), "{sgf}");
    // The warning is a comment on the move it came after (Black's pass).
    assert!(sgf.contains(";B[]C[White warned"), "{sgf}");
    server.stop().await;
}

/// A started two-player event game with Black's first move played: (director, black, white,
/// event, game).
async fn game_in_play(server: &TestServer, prefix: &str) -> (Client, Client, Client, u64, u64) {
    let mut director = server.player(&format!("{prefix}director")).await;
    let mut players = vec![
        server.player(&format!("{prefix}one")).await,
        server.player(&format!("{prefix}two")).await,
    ];
    let event = event_of_two(&mut director, &mut players, prefix, None).await;
    let board = start_round(&mut director, event).await;
    let (mut black, white) = if players[0].user == Some(board.black) {
        (players.remove(0), players.remove(0))
    } else {
        let white = players.remove(0);
        (players.remove(0), white)
    };
    black
        .wait_for(|f| f["type"] == "game_started" && f["game"] == board.game)
        .await;
    common::play(&mut black, board.game, 2, 2).await;
    (director, black, white, event, board.game)
}

/// Main time, periods and the period left of both sides, as an event's `clocks` shows them.
fn clock_figures(event: &Value) -> Vec<Value> {
    ["black", "white"]
        .iter()
        .flat_map(|side| {
            let clock = &event["clocks"][side];
            [
                clock["main_left_ms"].clone(),
                clock["periods_left"].clone(),
                clock["period_left_ms"].clone(),
            ]
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_game_refuses_moves_keeps_its_clocks_and_resumes() {
    let server = TestServer::start().await;
    let (mut director, mut black, mut white, event, game) = game_in_play(&server, "p").await;
    let resume_at_ms = unix_now_ms() + 600_000;
    let pause =
        json!({"type": "event_pause", "event": event, "game": game, "resume_at_ms": resume_at_ms});
    director.ok(pause).await;
    let paused = game_event(&mut white, game, "paused", None).await;
    assert_eq!(paused["resume_at_ms"], resume_at_ms);
    assert_eq!(paused["clocks"]["white"]["running"], false);
    for msg in [
        json!({"type": "play", "game": game, "point": common::point(6, 6)}),
        json!({"type": "pass", "game": game}),
        json!({"type": "resign", "game": game}),
    ] {
        white.err(msg, "wrong_phase").await;
    }
    let state = state_of(&mut black, game).await;
    assert_eq!(state["halt"]["kind"], "pause");
    assert_eq!(state["halt"]["resume_at_ms"], resume_at_ms);
    director
        .ok(json!({"type": "event_resume", "event": event, "game": game}))
        .await;
    let resumed = game_event(&mut white, game, "resumed", None).await;
    assert_eq!(clock_figures(&paused), clock_figures(&resumed));
    common::play(&mut white, game, 6, 6).await;

    // Paused again, it resumes by itself at the set time.
    let resume_at_ms = unix_now_ms() + 2_000;
    let pause =
        json!({"type": "event_pause", "event": event, "game": game, "resume_at_ms": resume_at_ms});
    director.ok(pause).await;
    let paused = game_event(&mut white, game, "paused", None).await;
    black
        .err(json!({"type": "pass", "game": game}), "wrong_phase")
        .await;
    let resumed = game_event(&mut white, game, "resumed", None).await;
    assert_eq!(clock_figures(&paused), clock_figures(&resumed));
    common::play(&mut black, game, 4, 4).await;
    // Each pause and resumption is in the event's log, naming the game.
    let view = event_push(&mut director, event, |v| logged(v, "resumed").len() == 2).await;
    for entry in logged(&view, "paused")
        .iter()
        .chain(&logged(&view, "resumed"))
    {
        assert_eq!(entry["game"], game, "{entry}");
    }
    assert!(logged(&view, "paused")
        .iter()
        .all(|e| e["until_ms"].is_u64()));
    assert_eq!(logged(&view, "paused").len(), 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_move_is_hidden_survives_a_restart_and_is_played_at_the_resumption() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(test_config(dir.path())).await;
    let (mut director, mut black, mut white, event, game) = game_in_play(&server, "a").await;
    let mut watcher = server.player("watcher").await;
    watch(&mut watcher, game).await;
    let resume_at_ms = unix_now_ms() + 600_000;
    let adjourn = json!({"type": "event_adjourn", "event": event, "game": game, "resume_at_ms": resume_at_ms});
    director.ok(adjourn).await;
    let adjourned = game_event(&mut watcher, game, "adjourned", None).await;
    assert_eq!(adjourned["to_move"], "white");
    // White's clock runs until the seal; White seals instead of playing.
    white
        .err(
            json!({"type": "play", "game": game, "point": common::point(6, 6)}),
            "wrong_phase",
        )
        .await;
    let seal =
        |col, row| json!({"type": "seal_move", "game": game, "point": common::point(col, row)});
    black.err(seal(5, 5), "not_your_turn").await;
    watcher.err(seal(5, 5), "not_your_game").await;
    white.err(seal(2, 2), "occupied").await;
    white.ok(seal(6, 6)).await;
    for client in [&mut black, &mut watcher] {
        let sealed = game_event(client, game, "sealed", Some("white")).await;
        assert!(sealed.get("point").is_none(), "{sealed}");
        assert!(!sealed.to_string().contains("\"col\":6"), "{sealed}");
    }
    white.err(seal(5, 5), "wrong_phase").await;
    let state = state_of(&mut watcher, game).await;
    assert_eq!(state["halt"]["sealed"], true);
    assert_eq!(state["halt"]["sealer"], "white");
    assert_eq!(state["moves_count"], 1);
    assert_eq!(&state["board"][6].as_str().unwrap()[6..7], ".");
    let sgf = black.ok(json!({"type": "get_record", "game": game})).await["sgf"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!sgf.contains("W[gg]"), "{sgf}");
    // The event's log has the seal (never the move) before the server stops.
    let view = event_push(&mut director, event, |v| !logged(v, "sealed").is_empty()).await;
    assert_eq!(logged(&view, "sealed")[0]["user"], white.user.unwrap());
    server.stop().await;

    let server = TestServer::start_with(test_config(dir.path())).await;
    let mut both = vec![
        server.player_login("aone").await,
        server.player_login("atwo").await,
    ];
    if both[0].user == white.user {
        both.swap(0, 1);
    }
    let (mut black, _white) = (both.remove(0), both.remove(0));
    let mut watcher = server.player_login("watcher").await;
    let state = watch(&mut watcher, game).await;
    assert_eq!(state["halt"]["sealed"], true, "{state}");
    assert_eq!(&state["board"][6].as_str().unwrap()[6..7], ".");
    let mut director = server.player_login("adirector").await;
    director
        .ok(json!({"type": "event_resume", "event": event, "game": game}))
        .await;
    for client in [&mut black, &mut watcher] {
        game_event(client, game, "resumed", None).await;
        let played = game_event(client, game, "played", Some("white")).await;
        assert_eq!(played["point"], common::point(6, 6));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adjourned_game_resumes_by_itself_with_its_sealed_pass() {
    let server = TestServer::start().await;
    let (mut director, mut black, mut white, event, game) = game_in_play(&server, "s").await;
    let resume_at_ms = unix_now_ms() + 2_000;
    let adjourn = json!({"type": "event_adjourn", "event": event, "game": game, "resume_at_ms": resume_at_ms});
    director.ok(adjourn).await;
    white
        .ok(json!({"type": "seal_move", "game": game, "point": null}))
        .await;
    let sealed = game_event(&mut black, game, "sealed", Some("white")).await;
    game_event(&mut black, game, "resumed", None).await;
    let passed = game_event(&mut black, game, "passed", Some("white")).await;
    // Both clocks stood still from the seal to the resumption.
    assert_eq!(clock_figures(&sealed), clock_figures(&passed));
    common::play(&mut black, game, 4, 4).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_director_actions_and_seals_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let (mut director, mut black, mut white, event, game) = game_in_play(&server, "b").await;
    let before = state_of(&mut director, game).await;
    let later_ms = unix_now_ms() + 600_000;
    let pause =
        json!({"type": "event_pause", "event": event, "game": game, "resume_at_ms": later_ms});
    let adjourn =
        json!({"type": "event_adjourn", "event": event, "game": game, "resume_at_ms": later_ms});
    let resume = json!({"type": "event_resume", "event": event, "game": game});
    for msg in [&pause, &adjourn, &resume] {
        black.err(msg.clone(), "not_director").await;
    }
    // A game that is not in this event's round.
    let other = director
        .ok(json!({"type": "create_event", "spec": {
            "name": "Other", "format": {"kind": "round_robin", "cycles": 1},
            "settings": common::settings_9x9(), "players_max": 2}}))
        .await["event"]["summary"]["event"]
        .as_u64()
        .unwrap();
    let elsewhere =
        json!({"type": "event_pause", "event": other, "game": game, "resume_at_ms": later_ms});
    director.err(elsewhere, "no_such_game").await;
    let missing =
        json!({"type": "event_adjourn", "event": event, "game": 999_999, "resume_at_ms": later_ms});
    director.err(missing, "no_such_game").await;
    let past = json!({"type": "event_pause", "event": event, "game": game, "resume_at_ms": 1});
    director.err(past, "bad_message").await;
    director.err(resume, "wrong_phase").await;
    // No adjournment is called: nothing to seal.
    let seal = json!({"type": "seal_move", "game": game, "point": common::point(6, 6)});
    white.err(seal.clone(), "wrong_phase").await;
    black.err(seal, "wrong_phase").await;
    let after = state_of(&mut director, game).await;
    assert_eq!(after["seq"], before["seq"]);
    assert!(after["halt"].is_null());
    assert_eq!(after["board"], before["board"]);
    // An event's lateness limit is bounded, and tables cannot set one.
    let too_long = json!({"type": "create_event", "spec": {
        "name": "Slow", "format": {"kind": "round_robin", "cycles": 1},
        "settings": common::settings_9x9(), "players_max": 2, "lateness_limit_ms": 3_600_001u64}});
    director.err(too_long, "invalid_settings").await;
    let mut settings = common::settings_9x9();
    settings["lateness_limit_ms"] = json!(60_000);
    let (mut left, mut right) = (server.player("left").await, server.player("right").await);
    left.ok(json!({"type": "sit", "table": 5, "seat": "left"}))
        .await;
    right
        .ok(json!({"type": "sit", "table": 5, "seat": "right"}))
        .await;
    right
        .err(
            json!({"type": "propose_settings", "table": 5, "settings": settings}),
            "invalid_settings",
        )
        .await;
    server.stop().await;
}
