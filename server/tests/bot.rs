//! `tengen bot` end to end: the real binary bridges a GTP engine to a real server, and a scripted
//! player challenges it over WebSocket. GNU Go plays a whole 9x9 game to a counted result; fake
//! engines that answer an illegal move, garbage, hang or exit each lose their game cleanly by
//! resignation, and the bridge starts a fresh engine for the next game.

mod common;

use common::{Client, TestServer};
use serde_json::{json, Value};
use std::process::Stdio;
use tengen_rules::random::{random_move, SeededRng};
use tengen_rules::{Color, Game, Move, Point, Rules};
use tokio::process::{Child, Command};

const GNUGO: &str = "/usr/games/gnugo";
/// Frames a scripted game may take before the test calls it stuck (a 9x9 game has a few hundred).
const GAME_FRAMES_MAX: usize = 2_000;

fn start_bot(
    server: &TestServer,
    engine: &str,
    user: &str,
    games: u32,
    move_timeout_ms: u64,
) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "bot",
            "--engine",
            engine,
            "--server",
            &server.ws_url(),
            "--user",
            user,
        ])
        .args(["--password", "bot password", "--register", "--sizes", "9"])
        .args([
            "--games",
            &games.to_string(),
            "--move-timeout-ms",
            &move_timeout_ms.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start tengen bot")
}

/// Waits until `name` is online, checks that the hall lists them as a computer player, and returns
/// their user id.
async fn find_online(client: &mut Client, name: &str) -> u64 {
    client.ok(json!({"type": "enter_hall"})).await;
    let named = |p: &Value| p["username"] == name;
    let listed = client
        .backlog
        .iter()
        .find(|f| f["type"] == "hall")
        .and_then(|hall| {
            hall["players"]
                .as_array()?
                .iter()
                .find(|p| named(p))
                .cloned()
        });
    let player = match listed {
        Some(player) => player,
        None => {
            let online = client
                .wait_for(|f| f["type"] == "player_online" && named(&f["player"]))
                .await;
            online["player"].clone()
        }
    };
    assert_eq!(player["computer"], true, "{player}");
    player["user"].as_u64().unwrap()
}

fn untimed() -> Value {
    json!({"kind": "none"})
}

/// Challenges `bot` to a 9x9 game with `clock` (the challenger plays Black) and returns the game id.
async fn challenge(human: &mut Client, bot: u64, clock: Value) -> u64 {
    let settings = json!({
        "size": 9, "komi_half_points": 15, "handicap": 0, "ko_rule": "positional",
        "clock": clock, "nigiri": false
    });
    human
        .ok(json!({"type": "challenge", "user": bot, "settings": settings}))
        .await;
    let started = human.wait_type("game_started").await;
    started["game"].as_u64().unwrap()
}

fn point_of(value: &Value) -> Point {
    Point::new(
        value["col"].as_u64().unwrap() as u8,
        value["row"].as_u64().unwrap() as u8,
    )
}

/// Plays Black against the bot: random legal moves for `moves_before_passing` moves, then passes,
/// accepting every marking in the scoring phase. Returns the `outcome` of the `ended` event.
async fn play_out(human: &mut Client, game: u64, moves_before_passing: u32, seed: u64) -> Value {
    let mut mirror = Game::new(Rules {
        size: 9,
        ..Rules::default()
    })
    .unwrap();
    continue_play(human, game, &mut mirror, moves_before_passing, seed).await
}

/// `play_out` from the position in `mirror`.
async fn continue_play(
    human: &mut Client,
    game: u64,
    mirror: &mut Game,
    moves_before_passing: u32,
    seed: u64,
) -> Value {
    let mut rng = SeededRng::new(seed);
    let mut moved = 0;
    for _ in 0..GAME_FRAMES_MAX {
        if mirror.phase() == tengen_rules::Phase::Play && mirror.to_move() == Color::Black {
            let mv = if moved < moves_before_passing {
                random_move(mirror, Color::Black, &mut rng)
            } else {
                Move::Pass
            };
            moved += 1;
            let msg = match mv {
                Move::Play(p) => {
                    json!({"type": "play", "game": game, "point": {"col": p.col, "row": p.row}})
                }
                _ => json!({"type": "pass", "game": game}),
            };
            human.ok(msg).await;
        }
        let event = human
            .wait_for(|f| f["type"] == "game_event" && f["game"] == game)
            .await;
        let color = if event["color"] == "black" {
            Color::Black
        } else {
            Color::White
        };
        match event["event"].as_str().unwrap() {
            "played" => mirror
                .play_as(color, Move::Play(point_of(&event["point"])))
                .unwrap(),
            "passed" => mirror.play_as(color, Move::Pass).unwrap(),
            "scoring_started" | "dead_marked" => {
                // The marking may change again, or the game end, before this accept arrives: an
                // earlier accept and the bot's may already have agreed on the later marking.
                let reply = human
                    .request(json!({"type": "accept_score", "game": game}))
                    .await;
                let superseded = reply["code"] == "wrong_phase"
                    || (reply["code"] == "no_such_game"
                        && reply["message"] == "the game has ended");
                assert!(
                    reply["type"] == "ack" || superseded,
                    "accept_score: {reply}"
                );
            }
            "ended" => return event["outcome"].clone(),
            _ => {}
        }
    }
    panic!("game {game} did not end within {GAME_FRAMES_MAX} frames");
}

#[tokio::test]
async fn gnu_go_plays_a_whole_9x9_game_to_a_counted_result() {
    assert!(
        std::path::Path::new(GNUGO).exists(),
        "GNU Go is missing: scripts/test.sh installs it (apt-get install gnugo)"
    );
    let server = TestServer::start().await;
    let mut bot = start_bot(
        &server,
        &format!("{GNUGO} --mode gtp --chinese-rules --level 1"),
        "gnugo",
        1,
        60_000,
    );
    let mut human = server.player("human").await;
    let bot_id = find_online(&mut human, "gnugo").await;
    // Untimed: GNU Go thinks longer when told it has time, and the suite must stay quick.
    let game = challenge(&mut human, bot_id, untimed()).await;
    // The bot declines to take anything back.
    let mut mirror = Game::new(Rules {
        size: 9,
        ..Rules::default()
    })
    .unwrap();
    human
        .ok(json!({"type": "play", "game": game, "point": {"col": 4, "row": 4}}))
        .await;
    mirror
        .play(Color::Black, Move::Play(Point::new(4, 4)))
        .unwrap();
    let played = |color: &'static str| {
        move |f: &Value| f["type"] == "game_event" && f["event"] == "played" && f["color"] == color
    };
    human.wait_for(played("black")).await;
    let reply = human.wait_for(played("white")).await;
    mirror
        .play(Color::White, Move::Play(point_of(&reply["point"])))
        .unwrap();
    human.ok(json!({"type": "undo", "game": game})).await;
    human
        .wait_for(|f| f["type"] == "game_event" && f["event"] == "undo_requested")
        .await;
    human
        .wait_for(|f| f["type"] == "game_event" && f["event"] == "undo_declined")
        .await;
    let outcome = continue_play(&mut human, game, &mut mirror, 15, 42).await;
    println!("GNU Go game {game}: {outcome}");
    assert_eq!(outcome["reason"], "score", "{outcome}");
    assert!(
        outcome["black_count_half_points"].as_u64().is_some(),
        "{outcome}"
    );
    let sgf = outcome["sgf"].as_str().unwrap();
    assert!(
        sgf.starts_with("B+") || sgf.starts_with("W+") || sgf == "0",
        "{outcome}"
    );
    let status = tokio::time::timeout(common::FRAME_TIMEOUT, bot.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(
        status.success(),
        "the bridge stops cleanly after its one game"
    );
}

/// A fake engine misbehaves on its first `genmove` in every game: the bot resigns each game, and the
/// second game proves a fresh engine was started.
async fn misbehaving_engine_loses_cleanly(mode: &str, move_timeout_ms: u64) {
    let server = TestServer::start().await;
    let engine = format!(
        "{}/tests/engines/fake-gtp.sh {mode}",
        env!("CARGO_MANIFEST_DIR")
    );
    let user = format!("fake{mode}");
    let mut bot = start_bot(&server, &engine, &user, 2, move_timeout_ms);
    let mut human = server.player(&format!("human{mode}")).await;
    let bot_id = find_online(&mut human, &user).await;
    for round in 0..2 {
        let game = challenge(&mut human, bot_id, untimed()).await;
        let outcome = play_out(&mut human, game, 40, round).await;
        assert_eq!(outcome["reason"], "resignation", "{mode}: {outcome}");
        assert_eq!(outcome["winner"], "black", "{mode}: {outcome}");
    }
    let status = tokio::time::timeout(common::FRAME_TIMEOUT, bot.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(
        status.success(),
        "{mode}: the bridge itself survives its engine"
    );
}

#[tokio::test]
async fn an_engine_answering_an_illegal_move_resigns() {
    misbehaving_engine_loses_cleanly("illegal", 10_000).await;
}

#[tokio::test]
async fn an_engine_answering_garbage_resigns() {
    misbehaving_engine_loses_cleanly("garbage", 10_000).await;
}

#[tokio::test]
async fn an_engine_that_hangs_past_its_time_resigns() {
    misbehaving_engine_loses_cleanly("hang", 500).await;
}

#[tokio::test]
async fn an_engine_that_exits_resigns() {
    misbehaving_engine_loses_cleanly("exit", 10_000).await;
}
