//! A model-based property test of the game actor (item 7): random sequences of every game
//! action (moves, passes, undo requests and answers, resuming after a scoring dispute, dead-stone
//! toggles, accepting the score, resigning, bets) from both players and from watchers, sent to a
//! real actor (real SQLite store, ledger and hall) through its inbox. After each step the actor must
//! be alive and answering, must have accepted exactly what the model accepts, and its position,
//! side to move, phase and captures must equal the model's: a plain `tengen_rules::Game` driven
//! with the accepted actions. Bounded by case count with a fixed seed, so it runs the same in CI.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;
use tengen_protocol::{ClockSettings, GameSettings, KoRule, Point, Points};
use tengen_rules::{Color, Game, Move, Phase};

use super::actor_tests::context;
use super::wire;
use super::*;
use crate::config::GameTiming;
use crate::store::sqlite::SqliteStore;
use crate::store::Accounts;

/// Sequences per run: a few hundred, each a short game, so the test takes seconds.
const CASES: u32 = 250;

/// Actions per sequence at most: enough to reach scoring, dispute it and play on.
const ACTIONS_MAX: usize = 64;

/// A small board, so captures, ko and two passes come up in short sequences.
const SIZE: u8 = 5;

/// Who acts: the player to move, the other player, or one of two watchers. Roles rather than
/// colours, so that most actions are ones the game can take and sequences get past the opening
/// into scoring, disputes and undos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    ToMove,
    Waiting,
    /// The player a pending undo request waits on (else the player to move).
    Asked,
    Watcher(usize),
}

#[derive(Debug, Clone, Copy)]
enum Action {
    /// A stone at (col, row); one past the edge is off the board.
    Play(Who, u8, u8),
    Pass(Who),
    Resign(Who),
    Undo(Who),
    AnswerUndo(Who, bool),
    Resume(Who),
    Toggle(Who, u8, u8),
    Accept(Who),
    Bet(Who, bool, Points),
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![
        6 => Just(Who::ToMove),
        3 => Just(Who::Waiting),
        1 => (0..2usize).prop_map(Who::Watcher),
    ]
}

/// Undo answers mostly come from the player asked, as they do in play.
fn answerer() -> impl Strategy<Value = Who> {
    prop_oneof![4 => Just(Who::Asked), 1 => who()]
}

fn action() -> impl Strategy<Value = Action> {
    let coord = 0..=SIZE;
    prop_oneof![
        12 => (who(), coord.clone(), coord.clone()).prop_map(|(w, c, r)| Action::Play(w, c, r)),
        8 => who().prop_map(Action::Pass),
        1 => who().prop_map(Action::Resign),
        5 => who().prop_map(Action::Undo),
        6 => (answerer(), proptest::bool::weighted(0.75))
            .prop_map(|(w, a)| Action::AnswerUndo(w, a)),
        4 => who().prop_map(Action::Resume),
        2 => (who(), coord.clone(), coord).prop_map(|(w, c, r)| Action::Toggle(w, c, r)),
        2 => who().prop_map(Action::Accept),
        // Amounts out of range never reach a game: the session refuses them where they come in.
        2 => (who(), any::<bool>(), 1..400u64)
            .prop_filter_map("a bet's points", |(w, s, a)| Some(Action::Bet(w, s, Points::new(a)?))),
    ]
}

/// What the actor should make of an action.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    Accept,
    Refuse,
    /// Up to the ledger (a bet the balance may not cover); either answer is consistent.
    Either,
}

/// The model: a plain engine game plus the little the actor keeps beside it.
struct Model {
    game: Game,
    undo_request: Option<Color>,
    accepted: [bool; 2],
    over: bool,
}

impl Model {
    fn new() -> Model {
        Model {
            game: wire::new_engine_game(&settings()).unwrap(),
            undo_request: None,
            accepted: [false, false],
            over: false,
        }
    }

    /// The colour of a player's role now.
    fn color_of(&self, who: Who) -> Color {
        match (who, self.undo_request) {
            (Who::Asked, Some(asker)) => asker.opponent(),
            (Who::Waiting, _) => self.game.to_move().opponent(),
            _ => self.game.to_move(),
        }
    }

    /// Plies an undo by `color` takes back, as the actor counts them.
    fn undo_plies(&self, color: Color) -> Option<usize> {
        if self.game.phase() != Phase::Play {
            return None;
        }
        match self.game.moves() {
            [.., (last, _)] if *last == color => Some(1),
            [.., (mine, _), _] if *mine == color => Some(2),
            _ => None,
        }
    }

    fn play(&mut self, color: Color, mv: Move) -> Expect {
        if self.game.play(color, mv).is_err() {
            return Expect::Refuse;
        }
        self.undo_request = None;
        match self.game.phase() {
            Phase::Scoring => self.accepted = [false, false],
            Phase::Over { .. } => self.over = true,
            Phase::Play | Phase::PlacingHandicap => {}
        }
        Expect::Accept
    }

    fn ask_undo(&mut self, color: Color) -> Expect {
        if self.undo_request.is_some() || self.undo_plies(color).is_none() {
            return Expect::Refuse;
        }
        self.undo_request = Some(color);
        Expect::Accept
    }

    fn answer_undo(&mut self, color: Color, accept: bool) -> Expect {
        let asker = color.opponent();
        if self.undo_request != Some(asker) {
            return Expect::Refuse;
        }
        self.undo_request = None;
        if accept {
            let plies = self.undo_plies(asker).expect("a pending undo has moves");
            for _ in 0..plies {
                self.game.undo().expect("the model's undo replays");
            }
        }
        Expect::Accept
    }

    fn scoring_action(&mut self, action: &Action, color: Color) -> Expect {
        if self.game.phase() != Phase::Scoring {
            return Expect::Refuse;
        }
        match *action {
            Action::Resume(_) => {
                self.game.resume(color.opponent());
                Expect::Accept
            }
            Action::Toggle(_, col, row) => {
                let point = tengen_rules::Point::new(col, row);
                if col >= SIZE || row >= SIZE || self.game.board().get(point).is_none() {
                    return Expect::Refuse;
                }
                self.accepted = [false, false];
                Expect::Accept
            }
            Action::Accept(_) => {
                self.accepted[color.index()] = true;
                if self.accepted == [true, true] {
                    self.over = true;
                }
                Expect::Accept
            }
            _ => unreachable!("only scoring actions come here"),
        }
    }

    /// Apply `action` as the actor should, returning what it should answer.
    fn apply(&mut self, action: &Action) -> Expect {
        if self.over {
            return Expect::Refuse;
        }
        let color = match (action, who_of(action)) {
            (Action::Bet(..), Who::Watcher(_)) => {
                let open = self.game.phase() == Phase::Play;
                return if open { Expect::Either } else { Expect::Refuse };
            }
            (_, Who::Watcher(_)) | (Action::Bet(..), _) => return Expect::Refuse,
            (_, who) => self.color_of(who),
        };
        match *action {
            Action::Play(_, col, row) => self.play(color, Move::Play(Point::new(col, row))),
            Action::Pass(_) => self.play(color, Move::Pass),
            Action::Resign(_) => self.play(color, Move::Resign),
            Action::Undo(_) => self.ask_undo(color),
            Action::AnswerUndo(_, accept) => self.answer_undo(color, accept),
            Action::Resume(_) | Action::Toggle(..) | Action::Accept(_) => {
                self.scoring_action(action, color)
            }
            Action::Bet(..) => Expect::Refuse,
        }
    }
}

fn who_of(action: &Action) -> Who {
    match *action {
        Action::Play(w, ..)
        | Action::Pass(w)
        | Action::Resign(w)
        | Action::Undo(w)
        | Action::AnswerUndo(w, _)
        | Action::Resume(w)
        | Action::Toggle(w, ..)
        | Action::Accept(w)
        | Action::Bet(w, ..) => w,
    }
}

fn settings() -> GameSettings {
    GameSettings {
        size: SIZE,
        komi_half_points: 15,
        handicap: 0,
        ko_rule: KoRule::Positional,
        clock: ClockSettings::None,
        nigiri: false,
        lateness_limit_ms: None,
        unrated: false,
        event: None,
    }
}

fn info(user: UserId) -> PlayerInfo {
    PlayerInfo {
        user,
        username: format!("user{}", user.0),
        rank: "?".into(),
        rating: 1500,
        computer: false,
    }
}

/// One server's worth of state, shared by every case: each case is a new game in it.
struct World {
    games: Games,
    ctx: GameContext,
    players: [UserId; 2],
    watchers: [UserId; 2],
    covered: std::cell::RefCell<Coverage>,
}

/// How often the paths that matter were taken, so the test fails if the generator stops reaching
/// them rather than passing without checking them.
#[derive(Debug, Default)]
struct Coverage {
    resumes: u32,
    undos_after_resume: u32,
    score_accepts: u32,
    bets: u32,
}

impl World {
    fn count(&self, action: &Action, accepted: bool, resumed: bool) {
        if !accepted {
            return;
        }
        let mut covered = self.covered.borrow_mut();
        match action {
            Action::Resume(_) => covered.resumes += 1,
            Action::AnswerUndo(_, true) if resumed => covered.undos_after_resume += 1,
            Action::Accept(_) => covered.score_accepts += 1,
            Action::Bet(..) => covered.bets += 1,
            _ => {}
        }
    }

    /// The user acting as `who` in the model's game.
    fn user(&self, who: Who, model: &Model) -> UserId {
        match who {
            Who::Watcher(index) => self.watchers[index],
            player => self.players[model.color_of(player).index()],
        }
    }

    /// Send `action` as `user`; whether it was accepted.
    async fn send(&self, handle: &GameHandle, action: &Action, user: UserId) -> bool {
        let at = |col, row| Point { col, row };
        let result = match *action {
            Action::Play(_, col, row) => {
                let mv = PlayerMove::Play(at(col, row));
                handle
                    .ask(GameRequest::Move {
                        user,
                        mv,
                        key: None,
                    })
                    .await
            }
            Action::Pass(_) => {
                let mv = PlayerMove::Pass;
                handle
                    .ask(GameRequest::Move {
                        user,
                        mv,
                        key: None,
                    })
                    .await
            }
            Action::Resign(_) => {
                let mv = PlayerMove::Resign;
                handle
                    .ask(GameRequest::Move {
                        user,
                        mv,
                        key: None,
                    })
                    .await
            }
            Action::Undo(_) => handle.ask(GameRequest::Undo { user }).await,
            Action::AnswerUndo(_, accept) => {
                let answer = GameRequest::AnswerUndo { user, accept };
                handle.ask(answer).await
            }
            Action::Resume(_) => handle.ask(GameRequest::ResumePlay { user }).await,
            Action::Toggle(_, col, row) => {
                let point = at(col, row);
                let toggle = GameRequest::ToggleDead { user, point };
                handle.ask(toggle).await
            }
            Action::Accept(_) => {
                let accept = GameRequest::AcceptScore { user, dead: None };
                handle.ask(accept).await
            }
            Action::Bet(_, black, amount) => {
                let side = if black { Color::Black } else { Color::White };
                let bet = GameRequest::Bet {
                    user,
                    side,
                    amount,
                    key: None,
                };
                handle.ask(bet).await
            }
        };
        if let Err(refusal) = &result {
            // Refusals are expected failures with their codes, never the actor going away.
            assert!(
                !matches!(refusal.code, ErrorCode::Internal | ErrorCode::NoSuchGame),
                "{action:?}: {refusal:?}"
            );
        }
        result.is_ok()
    }

    /// Play one sequence in a new game, checking the actor against the model after each step.
    async fn run_case(&self, actions: &[Action]) -> Result<(), TestCaseError> {
        let start = StartGame {
            bettors_barred: Vec::new(),
            table: None,
            black: info(self.players[0]),
            white: info(self.players[1]),
            settings: settings(),
            nigiri_seed: None,
        };
        let summary = self.games.start(start, &self.ctx).await.unwrap();
        let handle = self.games.get(summary.game).await.unwrap();
        let mut model = Model::new();
        for (step, action) in actions.iter().enumerate() {
            let user = self.user(who_of(action), &model);
            let resumed = !model.game.resumptions().is_empty();
            let expect = model.apply(action);
            let accepted = self.send(&handle, action, user).await;
            self.count(action, accepted, resumed);
            match expect {
                Expect::Accept => prop_assert!(accepted, "step {step}: {action:?} refused"),
                Expect::Refuse => prop_assert!(!accepted, "step {step}: {action:?} accepted"),
                Expect::Either => {}
            }
            if model.over {
                // The game ended: the actor has stopped, and the game is no longer live.
                return Ok(());
            }
            check_state(&handle, &model, step, action).await?;
        }
        // Leave no game running into the next case: resigning ends it.
        let user = self.players[0];
        let mv = PlayerMove::Resign;
        let _ = handle
            .ask(GameRequest::Move {
                user,
                mv,
                key: None,
            })
            .await;
        Ok(())
    }
}

/// The actor answers a subscription, and its state is the model's.
async fn check_state(
    handle: &GameHandle,
    model: &Model,
    step: usize,
    action: &Action,
) -> Result<(), TestCaseError> {
    let subscription = subscribe(handle, None).await;
    prop_assert!(subscription.is_ok(), "step {step}: {action:?}: actor gone");
    let snapshot = subscription.map(|s| s.snapshot).unwrap_or_default();
    let value: Value = serde_json::from_str(snapshot.as_str()).unwrap();
    let state = &value["state"];
    let game = &model.game;
    let phase = match game.phase() {
        Phase::Play | Phase::PlacingHandicap => "playing",
        Phase::Scoring => "scoring",
        Phase::Over { .. } => "over",
    };
    let board: Vec<Value> = wire::board_rows(game.board())
        .into_iter()
        .map(Value::from)
        .collect();
    let to_move = serde_json::to_value(game.to_move()).unwrap();
    let context = format!("step {step}: {action:?}: {state}");
    prop_assert_eq!(&state["phase"], phase, "{}", context);
    prop_assert_eq!(&state["board"], &Value::from(board), "{}", context);
    prop_assert_eq!(&state["to_move"], &to_move, "{}", context);
    prop_assert_eq!(&state["moves_count"], game.moves().len(), "{}", context);
    prop_assert_eq!(
        &state["captures_black"],
        game.prisoners(Color::Black),
        "{}",
        context
    );
    prop_assert_eq!(
        &state["captures_white"],
        game.prisoners(Color::White),
        "{}",
        context
    );
    Ok(())
}

#[test]
fn the_actor_agrees_with_a_model_replay_under_random_actions() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Arc::new(SqliteStore::open(dir.path()).unwrap());
    let mut users = Vec::new();
    for name in ["black", "white", "carol", "dave"] {
        users.push(
            sqlite
                .create_user(&crate::username::name(name), "h", 1)
                .unwrap(),
        );
    }
    let store = StoreHandle::for_paused_time(sqlite.clone());
    let games = Games::new();
    let long_ms = 3_600_000;
    let timing = GameTiming {
        disconnect_grace_ms: long_ms,
        first_move_within_ms: long_ms,
        scoring_phase_ms: long_ms,
    };
    let (ctx, trigger, _alive) = runtime.block_on(async { context(&store, &games, timing) });
    // The watchers' accounts are old enough for the starting grant to have landed: they can bet.
    for &watcher in &users[2..] {
        let opened = runtime.block_on(ctx.ledger.open_account(watcher, 0, u64::MAX));
        assert!(opened.unwrap().balance > 0);
    }
    let world = World {
        games,
        ctx,
        players: [users[0], users[1]],
        watchers: [users[2], users[3]],
        covered: Default::default(),
    };
    // `TENGEN_MODEL_CASES` runs more by hand; CI runs the default.
    let cases = std::env::var("TENGEN_MODEL_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(CASES);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let sequences = proptest::collection::vec(action(), 1..ACTIONS_MAX);
    let outcome = runner.run(&sequences, |actions| {
        runtime.block_on(world.run_case(&actions))
    });
    trigger.trigger();
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let covered = world.covered.borrow();
    let reached = [
        covered.resumes,
        covered.undos_after_resume,
        covered.score_accepts,
        covered.bets,
    ];
    assert!(reached.iter().all(|&count| count >= 10), "{covered:?}");
    // The ledger's books balance after every game and bet.
    let report = crate::ledger::audit(sqlite.as_ref()).unwrap();
    assert!(report.ok, "{report:?}");
}
