//! A property test of the core alone: random sequences of commands (moves on and off the board,
//! passes, undo requests and answers, resignations, dead-stone marking, accepting and disputing
//! the count, connections coming and going, an event's director warning, pausing, adjourning
//! and resuming, sealed moves, and time passing deadlines) go through `decide` and `apply`, each
//! accepted event through its stored JSON form; then a fresh core folding the stored log must
//! be exactly the live one, clocks included. That is what a restart relies on. Bounded by case
//! count with a fixed seed, so it runs the same, in seconds, in CI.

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};
use tengen_protocol::{
    ClockSettings, EndReason, EventOutcome, GameEvent, GameOutcome, GameSettings, HaltKind, KoRule,
    Point,
};
use tengen_rules::{Color, Move, Phase};

use super::{Command, EventRules, GameCore, LoggedEvent, Scoring};
use crate::clock::Clock;
use crate::config::GameTiming;
use crate::game::{wire, PlayerMove};

/// Sequences per run: each a short game, so the whole run takes seconds.
const CASES: u32 = 256;

/// Commands per sequence at most: enough to reach scoring, dispute it and play on.
const ACTIONS_MAX: usize = 80;

/// A small board, so captures, ko and two passes come up in short sequences.
const SIZE: u8 = 5;

/// The wall clock (Unix ms) at game time 0, for the director's resumption times.
const WALL_START_MS: u64 = 1_700_000_000_000;

/// Which player acts: roles rather than colours, so that most commands are ones the game can
/// take and sequences get past the opening.
#[derive(Debug, Clone, Copy)]
enum Role {
    ToMove,
    Other,
}

/// Which marking a player accepts: none named, the current one, or one that is out of date.
#[derive(Debug, Clone, Copy)]
enum Seen {
    Unnamed,
    Current,
    Stale,
}

#[derive(Debug, Clone, Copy)]
enum Action {
    /// A stone at (col, row); one past the edge is off the board.
    Play(Role, u8, u8),
    Pass(Role),
    Resign(Role),
    AskUndo(Role),
    AnswerUndo(Role, bool),
    Toggle(Role, u8, u8),
    Accept(Role, Seen),
    ResumePlay(Role),
    /// Who is connected now (Black, White).
    Presence([bool; 2]),
    /// Time passes by this much with nobody sending anything.
    Wait(u64),
    Warn(Role),
    /// The director pauses (`false`) or adjourns (`true`) for this long.
    Halt(bool, u64),
    Resume,
    /// The player who just moved asks to take it back and the other answers at once.
    Undo(bool),
    /// The director adjourns, and the player to move seals a stone at (col, row) or a pass.
    Adjourn(Option<(u8, u8)>),
    /// The player sealing: a stone at (col, row), or a pass.
    Seal(Role, Option<(u8, u8)>),
    Adjudicate(u8),
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![3 => Just(Role::ToMove), 1 => Just(Role::Other)]
}

fn action() -> impl Strategy<Value = Action> {
    let coord = || 0..=SIZE;
    let seen = prop_oneof![Just(Seen::Unnamed), Just(Seen::Current), Just(Seen::Stale)];
    prop_oneof![
        28 => (role(), coord(), coord()).prop_map(|(r, c, w)| Action::Play(r, c, w)),
        12 => role().prop_map(Action::Pass),
        1 => role().prop_map(Action::Resign),
        4 => role().prop_map(Action::AskUndo),
        4 => (prop_oneof![3 => Just(Role::Other), 1 => role()], any::<bool>())
            .prop_map(|(r, a)| Action::AnswerUndo(r, a)),
        4 => any::<bool>().prop_map(Action::Undo),
        6 => (role(), coord(), coord()).prop_map(|(r, c, w)| Action::Toggle(r, c, w)),
        8 => (role(), seen).prop_map(|(r, s)| Action::Accept(r, s)),
        2 => role().prop_map(Action::ResumePlay),
        4 => any::<[bool; 2]>().prop_map(Action::Presence),
        4 => (0..8_000u64).prop_map(Action::Wait),
        2 => role().prop_map(Action::Warn),
        2 => (any::<bool>(), 1..8_000u64).prop_map(|(a, ms)| Action::Halt(a, ms)),
        2 => Just(Action::Resume),
        2 => (role(), proptest::option::weighted(0.8, (coord(), coord())))
            .prop_map(|(r, p)| Action::Seal(r, p)),
        3 => proptest::option::weighted(0.8, (coord(), coord())).prop_map(Action::Adjourn),
        1 => (0..4u8).prop_map(Action::Adjudicate),
    ]
}

/// The settings a case plays under: a clock (none, absolute, byo-yomi losing or passing at the
/// end) and whether it is an event's game (a lateness limit).
fn settings(variant: u8) -> GameSettings {
    let clock = match variant % 4 {
        0 => ClockSettings::None,
        1 => ClockSettings::Absolute {
            main_time_ms: 30_000,
        },
        2 => ClockSettings::ByoYomi {
            main_time_ms: 5_000,
            periods: 2,
            period_ms: 3_000,
            timeout_is_pass: false,
        },
        _ => ClockSettings::ByoYomi {
            main_time_ms: 3_000,
            periods: 1,
            period_ms: 4_000,
            timeout_is_pass: true,
        },
    };
    GameSettings {
        size: SIZE,
        komi_half_points: 15,
        handicap: 0,
        ko_rule: KoRule::Positional,
        clock,
        nigiri: false,
        lateness_limit_ms: (variant >= 4).then_some(9_000),
        unrated: false,
        event: None,
    }
}

fn timing() -> GameTiming {
    GameTiming {
        disconnect_grace_ms: 7_000,
        first_move_within_ms: 15_000,
        scoring_phase_ms: 20_000,
    }
}

fn fresh(variant: u8) -> GameCore {
    let settings = settings(variant);
    let game = wire::new_engine_game(&settings).expect("the test's settings are valid");
    GameCore::start(settings, timing(), game).expect("the test's clock is valid")
}

/// Everything the core holds, in a form that compares (the rules' `Game` does not).
#[derive(Debug, PartialEq)]
struct Snapshot {
    board: Vec<String>,
    moves: Vec<(Color, Move)>,
    to_move: Color,
    phase: Phase,
    prisoners: [u32; 2],
    last_captured: Vec<tengen_rules::Point>,
    clock: Option<Clock>,
    seq: u64,
    scoring: Option<Scoring>,
    scoring_deadline_ms: Option<u64>,
    outcome: Option<GameOutcome>,
    undo_request: Option<Color>,
    undo_notes: Vec<String>,
    away_since_ms: [Option<u64>; 2],
    rules: EventRules,
}

fn snapshot(core: &GameCore) -> Snapshot {
    let game = &core.game;
    Snapshot {
        board: wire::board_rows(game.board()),
        moves: game.moves().to_vec(),
        to_move: game.to_move(),
        phase: game.phase(),
        prisoners: Color::BOTH.map(|color| game.prisoners(color)),
        last_captured: game.last_captured().to_vec(),
        clock: core.clock.clone(),
        seq: core.seq,
        scoring: core.scoring.clone(),
        scoring_deadline_ms: core.scoring_deadline_ms,
        outcome: core.outcome.clone(),
        undo_request: core.undo_request,
        undo_notes: core.undo_notes.clone(),
        away_since_ms: core.away_since_ms,
        rules: core.rules.clone(),
    }
}

/// What the sequences reached, so that the test fails if they stop exploring the game.
#[derive(Debug, Default)]
struct Covered {
    scoring: u32,
    counted: u32,
    undos: u32,
    forced_passes: u32,
    timeouts: u32,
    sealed: u32,
    arrived: u32,
    left: u32,
}

impl Covered {
    fn count(&mut self, event: &GameEvent) {
        match event {
            GameEvent::ScoringStarted { .. } => self.scoring += 1,
            GameEvent::UndoAccepted { .. } => self.undos += 1,
            GameEvent::Passed { forced: true, .. } => self.forced_passes += 1,
            GameEvent::Sealed { .. } => self.sealed += 1,
            GameEvent::Arrived { .. } => self.arrived += 1,
            GameEvent::PlayerLeft { .. } => self.left += 1,
            GameEvent::Ended { outcome } if outcome.reason == EndReason::Time => self.timeouts += 1,
            GameEvent::Ended { outcome } if outcome.reason == EndReason::Score => self.counted += 1,
            _ => {}
        }
    }
}

/// One live game driven by a sequence: the core, game time, who was ever connected, and the
/// log as the store would hold it.
struct Live {
    core: GameCore,
    now_ms: u64,
    seen: [bool; 2],
    log: Vec<(u64, String)>,
}

impl Live {
    fn color(&self, role: Role) -> Color {
        match role {
            Role::ToMove => self.core.game.to_move(),
            Role::Other => self.core.game.to_move().opponent(),
        }
    }

    /// Decide `command` now and record and apply what it causes, as the actor does.
    fn change(&mut self, command: Command, covered: &mut Covered) -> Result<(), TestCaseError> {
        let over = self.core.outcome.is_some();
        let Ok(events) = self.core.decide(command.clone(), self.now_ms) else {
            return Ok(());
        };
        prop_assert!(
            !over || events.is_empty(),
            "{command:?} after the end: {events:?}"
        );
        for logged in events {
            let text = serde_json::to_string(&logged).expect("an event encodes");
            let stored: LoggedEvent = serde_json::from_str(&text).expect("an event decodes");
            prop_assert_eq!(&stored, &logged);
            let seq = self.core.seq + 1;
            let applied = self.core.apply(seq, &logged);
            prop_assert!(applied.is_ok(), "{logged:?} decided, then {applied:?}");
            covered.count(&logged.event);
            self.log.push((seq, text));
        }
        Ok(())
    }

    fn command(&self, action: Action) -> Command {
        let point = |col: u8, row: u8| Point::new(col, row);
        match action {
            Action::Play(r, col, row) => self.player_move(r, PlayerMove::Play(point(col, row))),
            Action::Pass(r) => self.player_move(r, PlayerMove::Pass),
            Action::Resign(r) => self.player_move(r, PlayerMove::Resign),
            Action::AskUndo(r) => Command::AskUndo(self.color(r)),
            Action::AnswerUndo(r, accept) => Command::AnswerUndo {
                color: self.color(r),
                accept,
            },
            Action::Toggle(r, col, row) => Command::ToggleDead {
                color: self.color(r),
                point: point(col, row),
            },
            Action::Accept(r, seen) => Command::AcceptScore {
                color: self.color(r),
                seen: match seen {
                    Seen::Unnamed => None,
                    Seen::Current => Some(self.marking()),
                    Seen::Stale => Some([point(0, 0)].into_iter().collect()),
                },
            },
            Action::ResumePlay(r) => Command::ResumePlay(self.color(r)),
            Action::Presence(here) => Command::Presence {
                here,
                seen: [0, 1].map(|i| self.seen[i] || here[i]),
            },
            Action::Wait(_) | Action::Undo(_) | Action::Adjourn(_) => Command::Deadlines,
            Action::Warn(r) => Command::Warn(self.color(r)),
            Action::Halt(adjourn, resume_in_ms) => Command::Halt {
                kind: if adjourn {
                    HaltKind::Adjournment
                } else {
                    HaltKind::Pause
                },
                resume_at_ms: WALL_START_MS + self.now_ms + resume_in_ms,
                wall_now_ms: WALL_START_MS + self.now_ms,
            },
            Action::Resume => Command::Resume,
            Action::Seal(r, at) => Command::Seal {
                color: self.color(r),
                point: at.map(|(col, row)| point(col, row)),
            },
            Action::Adjudicate(n) => Command::Adjudicate(match n {
                0 => EventOutcome::BlackWins,
                1 => EventOutcome::WhiteWins,
                2 => EventOutcome::Draw,
                _ => EventOutcome::BothLose,
            }),
        }
    }

    fn player_move(&self, role: Role, mv: PlayerMove) -> Command {
        Command::Move {
            color: self.color(role),
            mv,
            key: None,
        }
    }

    fn marking(&self) -> std::collections::BTreeSet<tengen_rules::Point> {
        self.core
            .scoring
            .as_ref()
            .map(|s| s.dead.clone())
            .unwrap_or_default()
    }

    /// One action: time passes (a little, or as long as a wait says), what is due happens, then
    /// the command (a late player arrives with their move first, as in the actor).
    fn act(&mut self, action: Action, covered: &mut Covered) -> Result<(), TestCaseError> {
        self.now_ms += match action {
            Action::Wait(ms) => ms,
            _ => 400,
        };
        self.change(Command::Deadlines, covered)?;
        if let Action::Presence(here) = action {
            self.seen = [0, 1].map(|i| self.seen[i] || here[i]);
        }
        if let Action::Play(r, ..) | Action::Pass(r) | Action::Resign(r) = action {
            self.change(Command::Arrive(self.color(r)), covered)?;
        }
        match action {
            Action::Undo(accept) => {
                self.change(Command::AskUndo(self.color(Role::Other)), covered)?;
                let color = self.color(Role::ToMove);
                self.change(Command::AnswerUndo { color, accept }, covered)
            }
            Action::Adjourn(at) => {
                self.change(self.command(Action::Halt(true, 5_000)), covered)?;
                self.change(self.command(Action::Seal(Role::ToMove, at)), covered)
            }
            _ => self.change(self.command(action), covered),
        }
    }
}

fn run_case(variant: u8, actions: &[Action], covered: &mut Covered) -> Result<(), TestCaseError> {
    let mut live = Live {
        core: fresh(variant),
        now_ms: 0,
        seen: [false, false],
        log: Vec::new(),
    };
    for &action in actions {
        live.act(action, covered)?;
    }
    prop_assert_eq!(live.core.seq, live.log.len() as u64);
    let mut restored = fresh(variant);
    for (seq, text) in &live.log {
        let logged: LoggedEvent = serde_json::from_str(text).expect("a stored event decodes");
        let applied = restored.apply(*seq, &logged);
        prop_assert!(applied.is_ok(), "event {seq} does not replay: {applied:?}");
    }
    prop_assert_eq!(snapshot(&restored), snapshot(&live.core));
    prop_assert_eq!(restored.next_deadline(), live.core.next_deadline());
    Ok(())
}

#[test]
fn folding_the_log_of_a_live_game_gives_the_same_game() {
    let config = ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let cases = (0..8u8, proptest::collection::vec(action(), 1..ACTIONS_MAX));
    let covered = std::cell::RefCell::new(Covered::default());
    let outcome = runner.run(&cases, |(variant, actions)| {
        run_case(variant, &actions, &mut covered.borrow_mut())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let covered = covered.into_inner();
    let reached = [
        covered.scoring,
        covered.counted,
        covered.undos,
        covered.forced_passes,
        covered.timeouts,
        covered.sealed,
        covered.arrived,
        covered.left,
    ];
    assert!(reached.iter().all(|&count| count >= 5), "{covered:?}");
}

/// A log in the stored form (an event's game: arrivals, a warning, an adjournment with its sealed
/// move, an undo, a player away and back, scoring disputed, a keyed move and a keyed
/// resignation). Stored logs are never rewritten, so each entry must read back and be written
/// again byte for byte, and the log must replay.
const STORED_LOG: [&str; 20] = [
    r#"{"event":"arrived","color":"black","late_ms":400,"charged_ms":400,"at_ms":400}"#,
    r#"{"event":"played","color":"black","point":{"col":1,"row":1},"captured":[],"at_ms":800,"key":{"user":1,"key":"k-1"}}"#,
    r#"{"event":"arrived","color":"white","late_ms":1200,"charged_ms":2000,"at_ms":1200}"#,
    r#"{"event":"played","color":"white","point":{"col":2,"row":2},"captured":[],"at_ms":1200}"#,
    r#"{"event":"warned","color":"black","warnings":1,"at_ms":1600}"#,
    r#"{"event":"adjourned","to_move":"black","resume_at_ms":1700000007000,"resume_in_ms":5000,"at_ms":2000}"#,
    r#"{"event":"sealed","color":"black","at_ms":2000,"sealed":{"point":{"col":3,"row":3}}}"#,
    r#"{"event":"resumed","at_ms":8000}"#,
    r#"{"event":"played","color":"black","point":{"col":3,"row":3},"captured":[],"at_ms":8000}"#,
    r#"{"event":"undo_requested","color":"black","at_ms":8400}"#,
    r#"{"event":"undo_accepted","color":"black","by":"white","moves_count":2,"to_move":"black","board":[".....",".X...","..O..",".....","....."],"captures_black":0,"captures_white":0,"last_move":{"color":"white","point":{"col":2,"row":2}},"at_ms":8400}"#,
    r#"{"event":"player_left","color":"black","forfeit_in_ms":7000,"at_ms":8800}"#,
    r#"{"event":"player_returned","color":"black","at_ms":9200}"#,
    r#"{"event":"passed","color":"black","at_ms":9600}"#,
    r#"{"event":"passed","color":"white","at_ms":10000}"#,
    r#"{"event":"scoring_started","dead":[],"at_ms":10000}"#,
    r#"{"event":"dead_marked","by":"black","dead":[{"col":2,"row":2}],"at_ms":10400}"#,
    r#"{"event":"score_accepted","color":"black","at_ms":10800}"#,
    r#"{"event":"play_resumed","by":"black","to_move":"white","at_ms":11200}"#,
    r#"{"event":"ended","outcome":{"winner":"black","reason":"resignation","sgf":"B+R","chinese":"黑中盘胜","black_count_half_points":null,"white_count_half_points":null},"at_ms":11600,"key":{"user":2,"key":"w-9"}}"#,
];

#[test]
fn a_stored_log_reads_back_writes_the_same_and_replays() {
    let mut log = Vec::new();
    for (seq, text) in (1..).zip(STORED_LOG) {
        let logged: LoggedEvent = serde_json::from_str(text).expect("a stored event decodes");
        assert_eq!(serde_json::to_string(&logged).unwrap(), text);
        log.push((seq, logged));
    }
    let settings = settings(6);
    let game = wire::new_engine_game(&settings).unwrap();
    let core = GameCore::replayed(settings, timing(), game, &log).unwrap();
    assert_eq!(core.seq, 20);
    assert_eq!(
        core.outcome.as_ref().map(|o| o.reason),
        Some(EndReason::Resignation)
    );
    // Two stones, two passes and the resignation: the sealed move was taken back by the undo.
    assert_eq!(core.game.moves().len(), 5);
    assert_eq!(core.rules.warnings, [1, 0]);
    assert_eq!(core.rules.arrived, [true, true]);
    assert_eq!(core.rules.sealed, None);
    assert_eq!(core.undo_notes.len(), 1);
    assert_eq!(core.away_since_ms, [None, None]);
}
