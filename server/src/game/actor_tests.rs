//! The game actor under tokio's paused clock: each time system to the millisecond at its edges, a
//! timeout with nobody sending anything, a forced pass, the scoring phase's time limit, escape after
//! the grace period, a no-show, and a crash in the middle of a timed game. These talk to the real
//! actor (real SQLite store, real hall) through its inbox and broadcast, so every instant is exact;
//! the socket-level paths are in `server/tests/`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tengen_protocol::{
    ClockSettings, GameId, GameSettings, KoRule, PlayerInfo, Point, Points, UserId,
};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::*;
use crate::config::{Config, GameTiming};
use crate::store::sqlite::SqliteStore;
use crate::store::Accounts;
use crate::{Shutdown, ShutdownTrigger};

/// Generous limits for tests that are about something else; each test sets the one it checks.
const LONG_MS: u64 = 3_600_000;

struct Harness {
    store: StoreHandle,
    games: Games,
    ctx: GameContext,
    trigger: ShutdownTrigger,
    black: UserId,
    white: UserId,
    /// The instant the game's actor started (game time 0).
    t0: Instant,
    game: GameId,
    frames: broadcast::Receiver<GameFrame>,
    _alive: mpsc::Receiver<()>,
    _dir: tempfile::TempDir,
}

fn timing(
    disconnect_grace_ms: u64,
    first_move_within_ms: u64,
    scoring_phase_ms: u64,
) -> GameTiming {
    GameTiming {
        disconnect_grace_ms,
        first_move_within_ms,
        scoring_phase_ms,
    }
}

fn settings(clock: ClockSettings) -> GameSettings {
    GameSettings {
        size: 9,
        komi_half_points: 15,
        handicap: 0,
        ko_rule: KoRule::Positional,
        clock,
        nigiri: false,
        lateness_limit_ms: None,
        unrated: false,
        event: None,
    }
}

pub(super) fn context(
    store: &StoreHandle,
    games: &Games,
    timing: GameTiming,
) -> (GameContext, ShutdownTrigger, mpsc::Receiver<()>) {
    let (trigger, shutdown) = Shutdown::new();
    let (alive, alive_rx) = mpsc::channel(1);
    let tasks = TaskGuard::new(alive);
    let config = Config::new(std::path::PathBuf::from("unused"));
    let ledger = crate::ledger::Ledger::new(store.clone(), config.grant_points, config.tax_bp);
    let hall = crate::hall::spawn(
        &config,
        store.clone(),
        ledger.clone(),
        games.clone(),
        shutdown.clone(),
        tasks.clone(),
    );
    let ctx = GameContext {
        store: store.clone(),
        ledger,
        fault_stop_before_settlement: false,
        hall: std::sync::Arc::new(hall),
        shutdown,
        tasks,
        timing,
    };
    (ctx, trigger, alive_rx)
}

/// The game's stored record, waiting for the actor to write it: the end is broadcast first, then
/// the game is settled and its record stored.
async fn stored_sgf(h: &Harness) -> String {
    for _ in 0..1_000 {
        let game = h.game;
        if let Some(sgf) = h.store.call(move |s| s.game_sgf(game)).await.unwrap() {
            return sgf;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("the record of game {} was never stored", h.game);
}

/// A player's listing as their session would subscribe with it.
fn listing(user: UserId) -> PlayerInfo {
    PlayerInfo {
        user,
        username: format!("user{}", user.0),
        rank: "?".into(),
        rating: 1500,
        computer: false,
    }
}

async fn harness(clock: ClockSettings, timing: GameTiming) -> Harness {
    harness_with(settings(clock), timing).await
}

async fn harness_with(settings: GameSettings, timing: GameTiming) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(dir.path()).unwrap();
    let black = sqlite
        .create_user(&crate::username::name("alice"), "h", 1)
        .unwrap();
    let white = sqlite
        .create_user(&crate::username::name("bob"), "h", 1)
        .unwrap();
    let store = StoreHandle::for_paused_time(Arc::new(sqlite));
    let games = Games::new();
    let (ctx, trigger, alive) = context(&store, &games, timing);
    let info = |user: UserId, name: &str| PlayerInfo {
        user,
        username: name.into(),
        rank: "?".into(),
        rating: 1500,
        computer: false,
    };
    let start = StartGame {
        bettors_barred: Vec::new(),
        table: None,
        black: info(black, "alice"),
        white: info(white, "bob"),
        settings,
        nigiri_seed: None,
    };
    let summary = games.start(start, &ctx).await.unwrap();
    let t0 = Instant::now();
    let handle = games.get(summary.game).await.unwrap();
    let frames = subscribe(&handle, None).await.unwrap().frames;
    Harness {
        store,
        games,
        ctx,
        trigger,
        black,
        white,
        t0,
        game: summary.game,
        frames,
        _alive: alive,
        _dir: dir,
    }
}

impl Harness {
    /// Move paused time to exactly `at_ms` after the game started.
    async fn at(&self, at_ms: u64) {
        let target = self.t0 + Duration::from_millis(at_ms);
        let now = Instant::now();
        assert!(target >= now, "time only goes forward: {at_ms} ms");
        tokio::time::advance(target - now).await;
    }

    async fn send(&self, user: UserId, mv: PlayerMove) -> Result<(), Refusal> {
        let handle = self.games.get(self.game).await?;
        let key = None;
        handle
            .ask(GameRequest::Move { user, mv, key })
            .await
            .and_then(GameReply::done)
    }

    async fn play(&self, user: UserId, col: u8, row: u8) {
        self.send(user, PlayerMove::Play(Point { col, row }))
            .await
            .unwrap();
    }

    /// The next event frame, as JSON.
    async fn event(&mut self) -> Value {
        loop {
            let frame = self.frames.recv().await.unwrap();
            if frame.seq.is_some() {
                return serde_json::from_str(frame.text.as_str()).unwrap();
            }
        }
    }

    /// No event is waiting (after the actor had every chance to act at this instant).
    async fn quiet(&mut self) {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        // Pushes that are not game events (the pool closing at the end of play) may be waiting.
        loop {
            match self.frames.try_recv() {
                Err(broadcast::error::TryRecvError::Empty) => return,
                Ok(frame) if frame.seq.is_none() => continue,
                other => panic!("expected no event, got {other:?}"),
            }
        }
    }

    /// The game-time instants of the stored events, in order.
    async fn logged_at_ms(&self) -> Vec<(String, u64)> {
        let game = self.game;
        let events = self.store.call(move |s| s.game_events(game)).await.unwrap();
        events
            .iter()
            .map(|(_, text)| {
                let value: Value = serde_json::from_str(text).unwrap();
                (
                    value["event"].as_str().unwrap().to_string(),
                    value["at_ms"].as_u64().unwrap(),
                )
            })
            .collect()
    }
}

fn side<'a>(event: &'a Value, color: &str) -> &'a Value {
    &event["clocks"][color]
}

/// Wait for the game's end (whatever the time) and return the `ended` event.
async fn ended(h: &mut Harness) -> Value {
    loop {
        let event = h.event().await;
        if event["event"] == "ended" {
            return event;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn absolute_time_flags_at_the_exact_millisecond_with_nobody_sending() {
    let mut h = harness(
        ClockSettings::Absolute {
            main_time_ms: 10_000,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.at(9_999).await;
    h.play(black, 4, 4).await;
    let played = h.event().await;
    assert_eq!(side(&played, "black")["main_left_ms"], 1);
    assert_eq!(side(&played, "white")["running"], true);
    assert!(played["server_time_ms"].as_u64().is_some());
    h.at(19_998).await;
    h.play(white, 2, 2).await;
    assert_eq!(side(&h.event().await, "white")["main_left_ms"], 1);
    // Black has 1 ms: nothing at 19_998, the loss at 19_999, with nobody sending anything.
    h.quiet().await;
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "W+T");
    assert_eq!(end["outcome"]["reason"], "time");
    assert_eq!(side(&end, "black")["main_left_ms"], 0);
    let log = h.logged_at_ms().await;
    assert_eq!(log.last().unwrap(), &("ended".to_string(), 19_999));
    // The record is stored with the result (after the settlement, which follows the end).
    let sgf = stored_sgf(&h).await;
    assert!(sgf.contains("RE[W+T]") && sgf.contains("TM[10]"), "{sgf}");
    assert!(h.send(black, PlayerMove::Pass).await.is_err());
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn byo_yomi_periods_are_free_inside_and_consumed_when_used_up() {
    let mut h = harness(
        ClockSettings::ByoYomi {
            main_time_ms: 5_000,
            periods: 2,
            period_ms: 1_000,
            timeout_is_pass: false,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    // 999 ms into the first period: it costs nothing.
    h.at(5_999).await;
    h.play(black, 4, 4).await;
    let played = h.event().await;
    assert_eq!(side(&played, "black")["main_left_ms"], 0);
    assert_eq!(side(&played, "black")["periods_left"], 2);
    assert_eq!(side(&played, "black")["period_left_ms"], 1_000);
    h.play(white, 2, 2).await;
    h.event().await;
    // 1 999 ms: the first period is used up, the move is made in the second (last) one.
    h.at(7_998).await;
    h.play(black, 6, 6).await;
    assert_eq!(side(&h.event().await, "black")["periods_left"], 1);
    h.play(white, 2, 6).await;
    h.event().await;
    h.at(8_997).await;
    h.quiet().await;
    h.at(8_998).await;
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "W+T");
    assert_eq!(h.logged_at_ms().await.last().unwrap().1, 8_998);
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn byo_yomi_timeout_as_pass_then_the_scoring_limit_counts_the_board() {
    let mut h = harness(
        ClockSettings::ByoYomi {
            main_time_ms: 0,
            periods: 1,
            period_ms: 1_000,
            timeout_is_pass: true,
        },
        timing(LONG_MS, LONG_MS, 60_000),
    )
    .await;
    let white = h.white;
    // Black never moves: a forced pass at 1 000 ms; the first move counts as made, so no no-show.
    let pass = h.event().await;
    assert_eq!(
        (&pass["event"], &pass["color"], &pass["forced"]),
        (&"passed".into(), &"black".into(), &true.into())
    );
    assert_eq!(side(&pass, "black")["periods_left"], 1);
    assert_eq!(side(&pass, "white")["running"], true);
    // White's clock started at 1 000: White plays at 1 999, Black passes again at 2 999.
    h.at(1_999).await;
    h.play(white, 4, 4).await;
    h.event().await;
    h.at(2_998).await;
    h.quiet().await;
    h.at(2_999).await;
    assert_eq!(h.event().await["forced"], true);
    // White passes: two passes, scoring; the clocks stop, the 60 s scoring limit starts.
    h.send(white, PlayerMove::Pass).await.unwrap();
    h.event().await;
    let scoring = h.event().await;
    assert_eq!(scoring["event"], "scoring_started");
    assert_eq!(side(&scoring, "white")["running"], false);
    h.at(2_999 + 59_999).await;
    h.quiet().await;
    h.at(2_999 + 60_000).await;
    let end = ended(&mut h).await;
    // White's lone stone owns the board: 81 points against Black's 0, plus komi.
    assert_eq!(end["outcome"]["sgf"], "W+88.5");
    let log = h.logged_at_ms().await;
    let at: Vec<u64> = log.iter().map(|(_, at)| *at).collect();
    assert_eq!(at, vec![1_000, 1_999, 2_999, 2_999, 2_999, 62_999]);
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn moves_in_time_carries_a_blocks_leftover_into_the_next() {
    let mut h = harness(
        ClockSettings::Canadian {
            main_time_ms: 1_000,
            moves: 2,
            block_ms: 3_000,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.at(999).await;
    h.play(black, 4, 4).await;
    assert_eq!(side(&h.event().await, "black")["main_left_ms"], 1);
    h.play(white, 2, 2).await;
    h.event().await;
    // Main time ends at 1 000; the first move of the block at 3 000 leaves 1 000 ms for one more.
    h.at(3_000).await;
    h.play(black, 6, 6).await;
    let first = h.event().await;
    assert_eq!(side(&first, "black")["moves_left_in_block"], 1);
    assert_eq!(side(&first, "black")["block_left_ms"], 1_000);
    h.play(white, 2, 6).await;
    h.event().await;
    // The block's last move with 500 ms to spare: the next block has 3 500 ms.
    h.at(3_500).await;
    h.play(black, 6, 2).await;
    let second = h.event().await;
    assert_eq!(side(&second, "black")["moves_left_in_block"], 2);
    assert_eq!(side(&second, "black")["block_left_ms"], 3_500);
    h.play(white, 4, 2).await;
    h.event().await;
    h.at(6_999).await;
    h.quiet().await;
    h.at(7_000).await;
    assert_eq!(ended(&mut h).await["outcome"]["sgf"], "W+T");
    assert_eq!(h.logged_at_ms().await.last().unwrap().1, 7_000);
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn fischer_adds_the_increment_up_to_the_cap() {
    let mut h = harness(
        ClockSettings::Fischer {
            main_time_ms: 2_000,
            increment_ms: 1_000,
            max_time_ms: 2_500,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.at(500).await;
    h.play(black, 4, 4).await;
    // 2 000 - 500 + 1 000 = 2 500: exactly the cap.
    assert_eq!(side(&h.event().await, "black")["main_left_ms"], 2_500);
    h.play(white, 2, 2).await;
    // 2 000 + 1 000 would be 3 000: capped at 2 500.
    assert_eq!(side(&h.event().await, "white")["main_left_ms"], 2_500);
    h.at(2_999).await;
    h.quiet().await;
    h.at(3_000).await;
    assert_eq!(ended(&mut h).await["outcome"]["sgf"], "W+T");
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn a_game_without_a_first_move_is_void() {
    let mut h = harness(
        ClockSettings::Absolute {
            main_time_ms: LONG_MS,
        },
        timing(LONG_MS, 30_000, LONG_MS),
    )
    .await;
    let handle = h.games.get(h.game).await.unwrap();
    let state: Value =
        serde_json::from_str(subscribe(&handle, None).await.unwrap().snapshot.as_str()).unwrap();
    assert_eq!(state["state"]["first_move_in_ms"], 30_000);
    h.at(29_999).await;
    h.quiet().await;
    h.at(30_000).await;
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "Void");
    assert_eq!(end["outcome"]["winner"], Value::Null);
    h.trigger.trigger();
}

#[tokio::test(start_paused = true)]
async fn a_player_who_does_not_return_within_the_grace_period_loses_by_forfeit() {
    let mut h = harness(
        ClockSettings::Absolute {
            main_time_ms: LONG_MS,
        },
        timing(60_000, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.play(black, 4, 4).await;
    h.event().await;
    let handle = h.games.get(h.game).await.unwrap();
    // Both players follow the game; White's connection drops at 1 000 and comes back at 60 999.
    let black_sub = subscribe(&handle, Some(listing(black))).await.unwrap();
    let white_sub = subscribe(&handle, Some(listing(white))).await.unwrap();
    h.at(1_000).await;
    drop(white_sub);
    let left = h.event().await;
    assert_eq!(
        (&left["event"], &left["color"]),
        (&"player_left".into(), &"white".into())
    );
    assert_eq!(left["forfeit_in_ms"], 60_000);
    h.at(60_999).await;
    let white_sub = subscribe(&handle, Some(listing(white))).await.unwrap();
    assert_eq!(h.event().await["event"], "player_returned");
    // Gone again at 70 000: no return this time, the forfeit falls due at 130 000 exactly.
    h.at(70_000).await;
    drop(white_sub);
    assert_eq!(h.event().await["event"], "player_left");
    h.at(129_999).await;
    h.quiet().await;
    h.at(130_000).await;
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "B+F");
    assert_eq!(end["outcome"]["reason"], "forfeit");
    drop(black_sub);
    h.trigger.trigger();
}

/// The server dies in the middle of a timed game (the actor stops without a word, as in a crash),
/// stays down for an hour, and comes back: the clocks are as they were, the downtime is charged to
/// no one, and the game goes on to the right result.
#[tokio::test(start_paused = true)]
async fn a_restart_charges_nobody_for_the_downtime() {
    let mut h = harness(
        ClockSettings::ByoYomi {
            main_time_ms: 10_000,
            periods: 1,
            period_ms: 5_000,
            timeout_is_pass: false,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.at(4_000).await;
    h.play(black, 4, 4).await;
    h.event().await;
    h.at(7_000).await;
    h.play(white, 2, 2).await;
    let before = h.event().await;
    assert_eq!(side(&before, "black")["main_left_ms"], 6_000);
    assert_eq!(side(&before, "white")["main_left_ms"], 7_000);
    // Crash: every task of this "process" stops; the store keeps the log.
    h.trigger.trigger();
    tokio::time::advance(Duration::from_secs(3_600)).await;

    let games = Games::new();
    let (ctx, trigger, _alive) = context(&h.store, &games, timing(LONG_MS, LONG_MS, LONG_MS));
    restore_live_games(ctx.clone(), &games).await.unwrap();
    let restored_at = Instant::now();
    let handle = games.get(h.game).await.unwrap();
    let subscription = subscribe(&handle, None).await.unwrap();
    let state: Value = serde_json::from_str(subscription.snapshot.as_str()).unwrap();
    let clocks = &state["state"]["clocks"];
    assert_eq!(clocks["black"]["main_left_ms"], 6_000);
    assert_eq!(clocks["black"]["running"], true);
    assert_eq!(clocks["white"]["main_left_ms"], 7_000);
    assert_eq!(state["state"]["away"].as_array().unwrap().len(), 2);
    let mut frames = subscription.frames;
    // Black still has 6 000 ms of main time and a 5 000 ms period, counted from the restart.
    tokio::time::advance(Duration::from_millis(10_999)).await;
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    // Pushes that are not events (this subscription joining the watchers) may be waiting.
    while let Ok(frame) = frames.try_recv() {
        assert!(
            frame.seq.is_none(),
            "no event before the deadline: {frame:?}"
        );
    }
    tokio::time::advance(Duration::from_millis(1)).await;
    let end: Value = loop {
        let frame = frames.recv().await.unwrap();
        let value: Value = serde_json::from_str(frame.text.as_str()).unwrap();
        if value["event"] == "ended" {
            break value;
        }
    };
    assert_eq!(end["outcome"]["sgf"], "W+T");
    assert_eq!(Instant::now() - restored_at, Duration::from_millis(11_000));
    // In game time the loss came 11 000 ms after the last event before the crash (at 7 000).
    assert_eq!(h.logged_at_ms().await.last().unwrap().1, 18_000);
    drop(ctx);
    trigger.trigger();
    drop(h.ctx);
}

/// The game's state as a fresh subscriber sees it.
async fn state_of(games: &Games, game: GameId) -> Value {
    let handle = games.get(game).await.unwrap();
    let snapshot = subscribe(&handle, None).await.unwrap().snapshot;
    let value: Value = serde_json::from_str(snapshot.as_str()).unwrap();
    value["state"].clone()
}

/// Pass, pass, a dispute resumes play, three moves, an accepted undo. The actor
/// used to die replaying the moves without the resumption; now it takes the move back, plays on,
/// and a restart rebuilds the same position from the log.
#[tokio::test(start_paused = true)]
async fn an_undo_after_a_scoring_dispute_takes_the_move_back_and_survives_a_restart() {
    let h = harness(
        ClockSettings::Absolute {
            main_time_ms: LONG_MS,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    let handle = h.games.get(h.game).await.unwrap();
    h.play(black, 4, 4).await;
    h.send(white, PlayerMove::Pass).await.unwrap();
    h.send(black, PlayerMove::Pass).await.unwrap();
    // White disputes: Black, who claimed the stones dead, moves first.
    handle
        .ask(GameRequest::ResumePlay { user: white })
        .await
        .unwrap();
    h.play(black, 2, 2).await;
    h.play(white, 6, 6).await;
    h.play(black, 2, 6).await;
    handle.ask(GameRequest::Undo { user: black }).await.unwrap();
    handle
        .ask(GameRequest::AnswerUndo {
            user: white,
            accept: true,
        })
        .await
        .unwrap();
    let state = state_of(&h.games, h.game).await;
    assert_eq!(state["phase"], "playing");
    assert_eq!(state["to_move"], "black");
    assert_eq!(state["moves_count"], 5);
    assert_eq!(state["board"][6], "......O..");
    // The game goes on: Black plays elsewhere.
    h.play(black, 6, 2).await;
    let live = state_of(&h.games, h.game).await;
    assert_eq!(live["board"][2], "..X...X..");

    // A restart replays the log, the resumption and the undo included, to the same position.
    h.trigger.trigger();
    let games = Games::new();
    let (ctx, trigger, _alive) = context(&h.store, &games, timing(LONG_MS, LONG_MS, LONG_MS));
    restore_live_games(ctx.clone(), &games).await.unwrap();
    let restored = state_of(&games, h.game).await;
    for field in ["board", "to_move", "phase", "moves_count", "captures_black"] {
        assert_eq!(restored[field], live[field], "{field}");
    }
    drop(ctx);
    trigger.trigger();
    drop(h.ctx);
}

/// An actor that panics is restarted from its log by its supervisor. The command
/// it was handling is lost (its sender hears the game did not answer), but the game goes on under
/// the same id and handle, from the same position, with the clocks running again, and a follower
/// is given a fresh snapshot.
#[tokio::test(start_paused = true)]
async fn a_game_actor_that_panics_is_restarted_from_its_log_and_the_game_goes_on() {
    let mut h = harness(
        ClockSettings::Absolute {
            main_time_ms: 600_000,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    let handle = h.games.get(h.game).await.unwrap();
    h.play(black, 4, 4).await;
    h.play(white, 2, 2).await;
    // A follower, as a session holds one, read by a task of its own here.
    let subscription = subscribe(&handle, None).await.unwrap();
    let (out, mut followed) = mpsc::channel(64);
    let source = Source {
        games: h.games.clone(),
        game: h.game,
        handle: handle.clone(),
        store: h.store.clone(),
    };
    let mut following = Following::default();
    following.follow(source, subscription);
    let follower = tokio::spawn(async move {
        loop {
            let (game, arrival) = following.next().await;
            let mut frames = Vec::new();
            following.take(game, arrival, None, &mut frames).await;
            for frame in frames {
                if out.send(frame).await.is_err() {
                    return;
                }
            }
        }
    });
    h.at(1_000).await;

    actor::panic_next_command();
    let lost = h
        .send(black, PlayerMove::Play(Point { col: 6, row: 6 }))
        .await;
    assert!(lost.is_err(), "{lost:?}");
    // The same handle reaches the restarted actor: the position is as logged, Black to move.
    let state = state_of(&h.games, h.game).await;
    assert_eq!(state["moves_count"], 2);
    assert_eq!(state["to_move"], "black");
    assert_eq!(state["board"][4], "....X....");
    assert_eq!(state["clocks"]["black"]["running"], true);
    assert!(!handle.is_closed());
    h.play(black, 6, 6).await;
    h.play(white, 2, 6).await;
    // The follower got a fresh snapshot after the restart, then the moves after it.
    let mut kinds = Vec::new();
    while kinds.len() < 3 {
        let frame = followed.recv().await.unwrap();
        let value: Value = serde_json::from_str(frame.as_str()).unwrap();
        if value["type"] == "game_state" || value["type"] == "game_event" {
            kinds.push(value["type"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(kinds, ["game_state", "game_event", "game_event"]);
    assert_eq!(h.games.local_ids(), vec![h.game]);
    follower.abort();
    h.trigger.trigger();
    let _ = h.frames.try_recv();
}

/// An actor that panics again and again is restarted at most `GAME_RESTARTS_MAX` times within the
/// window; then the game ends void through the normal ending instead of crashing in a loop.
#[tokio::test(start_paused = true)]
async fn a_game_that_keeps_panicking_ends_void_instead_of_looping() {
    let h = harness(
        ClockSettings::Absolute {
            main_time_ms: 600_000,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let black = h.black;
    h.play(black, 4, 4).await;
    // A watcher's bet is in escrow when the trouble starts.
    let carol = h
        .store
        .call(|s| s.create_user(&crate::username::name("carol"), "h", 1))
        .await
        .unwrap();
    // Old enough for the starting grant to have landed.
    let opened = h.ctx.ledger.open_account(carol, 0, u64::MAX).await;
    let granted = opened.unwrap().balance;
    let handle = h.games.get(h.game).await.unwrap();
    let bet = GameRequest::Bet {
        user: carol,
        side: tengen_rules::Color::Black,
        amount: Points::new(100).unwrap(),
        key: None,
    };
    let receipt = handle.ask(bet).await.and_then(GameReply::bet).unwrap();
    assert_eq!(receipt.balance, granted - 100);
    for _ in 0..=crate::config::GAME_RESTARTS_MAX {
        actor::panic_next_command();
        let handle = h.games.get(h.game).await.unwrap();
        let lost = handle.ask(GameRequest::Record).await;
        assert!(lost.is_err());
    }
    let sgf = stored_sgf(&h).await;
    assert!(sgf.contains("RE[Void]"), "{sgf}");
    let ended = h.store.call(|s| s.live_games()).await.unwrap();
    assert!(ended.is_empty());
    // Void: the bet came back, and the books balance.
    assert_eq!(h.ctx.ledger.balance(carol).await.unwrap(), granted);
    let store = h.store.clone();
    let audit = store
        .call(|store| crate::ledger::audit(store))
        .await
        .unwrap();
    assert!(audit.ok, "{audit:?}");
    h.trigger.trigger();
}

/// A request queued while the game ended (here a pool asked right behind a resignation) gets the
/// final answer instead of "the game has ended" with nothing: the actor answers what waited in its
/// inbox once the game is settled.
#[tokio::test(start_paused = true)]
async fn requests_queued_behind_the_end_are_answered_with_the_final_state() {
    let h = harness(
        ClockSettings::Absolute {
            main_time_ms: LONG_MS,
        },
        timing(LONG_MS, LONG_MS, LONG_MS),
    )
    .await;
    let (black, white) = (h.black, h.white);
    h.play(black, 4, 4).await;
    let handle = h.games.get(h.game).await.unwrap();
    let (resign, resigned) = tokio::sync::oneshot::channel();
    let mv = PlayerMove::Resign;
    let cmd = GameCmd::Request {
        request: GameRequest::Move {
            user: white,
            mv,
            key: None,
        },
        reply: Some(resign),
    };
    handle.try_send(cmd).unwrap();
    let pool = handle.ask(GameRequest::Pool);
    let record = handle.ask(GameRequest::Record);
    let pass = handle.ask(GameRequest::Move {
        user: black,
        mv: PlayerMove::Pass,
        key: None,
    });
    let (pool, record, pass) = tokio::join!(pool, record, pass);
    resigned.await.unwrap().unwrap();
    let pool = pool.and_then(GameReply::pool).unwrap();
    assert!(!pool.open && pool.settled, "{pool:?}");
    assert!(record
        .and_then(GameReply::record)
        .unwrap()
        .contains("RE[B+R]"));
    assert_eq!(pass.unwrap_err().code, ErrorCode::NoSuchGame);
    h.trigger.trigger();
}

/// An event's game (lateness limit 15 minutes, absolute time): a game with the event's lateness
/// limit, and long main time unless a test says otherwise.
async fn event_harness(main_time_ms: u64) -> Harness {
    let mut settings = settings(ClockSettings::Absolute { main_time_ms });
    settings.lateness_limit_ms = Some(900_000);
    harness_with(settings, timing(60_000, 120_000, LONG_MS)).await
}

/// Lateness to the millisecond: White, whose clock does not run, is charged twice their lateness at
/// arrival; Black, whose clock ran, once more; neither game is void for want of a first move.
#[tokio::test(start_paused = true)]
async fn a_late_arrival_is_charged_twice_the_lateness_in_all() {
    let mut h = event_harness(600_000).await;
    let (black, white) = (h.black, h.white);
    let handle = h.games.get(h.game).await.unwrap();
    h.at(1_000).await;
    let white_sub = subscribe(&handle, Some(listing(white))).await.unwrap();
    let arrived = h.event().await;
    assert_eq!(arrived["event"], "arrived");
    assert_eq!(arrived["color"], "white");
    assert_eq!(
        (&arrived["late_ms"], &arrived["charged_ms"]),
        (&1_000.into(), &2_000.into())
    );
    assert_eq!(side(&arrived, "white")["main_left_ms"], 598_000);
    assert_eq!(side(&arrived, "black")["main_left_ms"], 599_000);
    // Past the no-show limit of casual games (120 s): lateness decides here, not the no-show.
    h.at(300_000).await;
    let black_sub = subscribe(&handle, Some(listing(black))).await.unwrap();
    let arrived = h.event().await;
    assert_eq!(arrived["color"], "black");
    assert_eq!(
        (&arrived["late_ms"], &arrived["charged_ms"]),
        (&300_000.into(), &300_000.into())
    );
    assert_eq!(side(&arrived, "black")["main_left_ms"], 0);
    // Main time is gone: with absolute time, Black has lost on time.
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "W+T");
    drop((white_sub, black_sub));
    h.trigger.trigger();
}

/// A player not there when lateness reaches the limit loses by forfeit, exactly then.
#[tokio::test(start_paused = true)]
async fn a_player_not_arrived_at_the_limit_loses_by_forfeit() {
    let mut h = event_harness(LONG_MS).await;
    let handle = h.games.get(h.game).await.unwrap();
    let black_sub = subscribe(&handle, Some(listing(h.black))).await.unwrap();
    let arrived = h.event().await;
    assert_eq!(
        (&arrived["color"], &arrived["late_ms"]),
        (&"black".into(), &0.into())
    );
    h.at(899_999).await;
    h.quiet().await;
    h.at(900_000).await;
    let end = ended(&mut h).await;
    assert_eq!(end["outcome"]["sgf"], "B+F");
    assert_eq!(end["outcome"]["reason"], "forfeit");
    drop(black_sub);
    h.trigger.trigger();
}
