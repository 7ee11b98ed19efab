//! Applying one logged event to a game's state, at the game-time instant it happened: the only
//! way the state changes, whether the event was just decided (live play), read back after a
//! failed write, or replayed from the log after a restart, so all three agree by construction.

use tengen_protocol::{EndReason, ErrorCode, GameEvent, GameOutcome, HaltKind, Point};
use tengen_rules::{Color, GameResult, Move, Phase, WinBy};

use super::{GameCore, Halted, LoggedEvent, Scoring, UNDO_NOTES_MAX};
use crate::game::wire;
use crate::Refusal;

impl GameCore {
    /// Apply the event recorded with `seq`. Refused, with the state possibly changed in part, when
    /// the event does not fit the state (an illegal move): the caller applies a decided event to a
    /// copy first, and a log that does not replay is not restored.
    pub(in crate::game) fn apply(&mut self, seq: u64, logged: &LoggedEvent) -> Result<(), Refusal> {
        let at_ms = logged.at_ms;
        match &logged.event {
            GameEvent::Played { color, point, .. } => {
                self.game
                    .play(*color, Move::Play(*point))
                    .map_err(wire::illegal)?;
                self.moved(at_ms);
            }
            GameEvent::Passed { color, forced } => {
                if *forced {
                    if let Some(clock) = &mut self.clock {
                        clock.check(at_ms);
                    }
                } else if let Some(clock) = &mut self.clock {
                    let _ = clock.on_move(at_ms);
                }
                self.game.play(*color, Move::Pass).map_err(wire::illegal)?;
                self.undo_request = None;
                self.sealed_move_played();
            }
            GameEvent::ScoringStarted { dead } => {
                self.mark(dead);
                self.enter_scoring(at_ms);
            }
            GameEvent::DeadMarked { dead, .. } => self.mark(dead),
            GameEvent::ScoreAccepted { color } => {
                if let Some(scoring) = &mut self.scoring {
                    scoring.accepted[color.index()] = true;
                }
            }
            GameEvent::Ended { outcome } => self.end(outcome, at_ms),
            GameEvent::UndoRequested { color } => self.undo_request = Some(*color),
            GameEvent::UndoDeclined { .. } => self.undo_request = None,
            // A log written before undos were checked at the answer may accept one with nothing
            // to take back: it changed nothing then, and nothing now.
            GameEvent::UndoAccepted { color, .. } => match self.undo_plies(*color) {
                Some(_) => self.take_back(*color, at_ms)?,
                None => self.undo_request = None,
            },
            GameEvent::PlayResumed { to_move, .. } => {
                if !self.restart_play(*to_move, at_ms) {
                    return Err(Refusal::new(
                        ErrorCode::WrongPhase,
                        "the game is not in the scoring phase",
                    ));
                }
            }
            GameEvent::PlayerLeft { color, .. } => {
                self.away_since_ms[color.index()] = Some(at_ms);
            }
            GameEvent::PlayerReturned { color } => {
                self.away_since_ms[color.index()] = None;
            }
            GameEvent::Arrived { .. }
            | GameEvent::Warned { .. }
            | GameEvent::Paused { .. }
            | GameEvent::Adjourned { .. }
            | GameEvent::Sealed { .. }
            | GameEvent::Resumed => self.apply_event_rule(logged),
        }
        self.seq = seq;
        Ok(())
    }

    /// A stone was played at `at_ms`: any undo request is withdrawn, the clock goes to the other
    /// side, and a sealed move, once the game resumed, is now played.
    fn moved(&mut self, at_ms: u64) {
        self.undo_request = None;
        if let Some(clock) = &mut self.clock {
            // Not fatal: the mover's time may have run out in the instant the move took, which the
            // clock then applied itself.
            let _ = clock.on_move(at_ms);
        }
        self.sealed_move_played();
    }

    fn sealed_move_played(&mut self) {
        if self.rules.halt.is_none() {
            self.rules.sealed = None;
        }
    }

    fn mark(&mut self, dead: &[Point]) {
        self.scoring = Some(Scoring {
            dead: dead.iter().copied().collect(),
            accepted: [false, false],
        });
    }

    /// The clock pauses and the scoring phase's own limit starts.
    fn enter_scoring(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            // A clock that is not running (already paused) has nothing to pause.
            let _ = clock.pause(at_ms);
        }
        self.undo_request = None;
        self.scoring_deadline_ms = Some(at_ms + self.timing.scoring_phase_ms);
    }

    /// The clock stops for good and the engine's game ends with the recorded outcome.
    fn end(&mut self, outcome: &GameOutcome, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            if outcome.reason == EndReason::Time {
                // The timeout itself, as the clock finds it at that instant.
                clock.check(at_ms);
            }
            // A clock that already finished (a timeout) has nothing to stop.
            let _ = clock.stop(at_ms);
        }
        if self.game.result().is_none() {
            let result = self.result_of(outcome);
            // A resignation is a move of the record, as the engine keeps it.
            let resigned = match result {
                GameResult::Win {
                    winner,
                    win_by: WinBy::Resign,
                } => self.game.play(winner.opponent(), Move::Resign).is_ok(),
                _ => false,
            };
            if !resigned {
                self.game.end(result);
            }
        }
        self.outcome = Some(outcome.clone());
    }

    /// The engine result a recorded outcome stands for (a count is counted again from the
    /// marking, which gives the same margin; a director's draw carries no count).
    fn result_of(&self, outcome: &GameOutcome) -> GameResult {
        let win = |win_by| match outcome.winner {
            Some(winner) => GameResult::Win { winner, win_by },
            None => GameResult::Void,
        };
        match outcome.reason {
            EndReason::Resignation => win(WinBy::Resign),
            EndReason::Time => win(WinBy::Time),
            EndReason::Forfeit => win(WinBy::Forfeit),
            EndReason::Void => GameResult::Void,
            EndReason::Score if outcome.black_count_half_points.is_none() => GameResult::Draw,
            EndReason::Score => self.counted().0,
        }
    }

    /// How many plies an undo by `color` takes back now: their last move, and the opponent's reply
    /// if one followed it. `None` when `color` has no move to take back.
    pub(in crate::game) fn undo_plies(&self, color: Color) -> Option<usize> {
        if self.game.phase() != Phase::Play {
            return None;
        }
        match self.game.moves() {
            [.., (last, _)] if *last == color => Some(1),
            [.., (mine, _), _] if *mine == color => Some(2),
            _ => None,
        }
    }

    /// Take back `asker`'s last move (and the reply after it) at game time `at_ms`; the clock goes
    /// to `asker` without giving back time already used. Refused, with nothing changed, when there
    /// is no such move or the engine cannot replay its record without them.
    fn take_back(&mut self, asker: Color, at_ms: u64) -> Result<(), Refusal> {
        let Some(plies) = self.undo_plies(asker) else {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "there is no move in play to take back",
            ));
        };
        let number = self.game.moves().len() + 1 - plies;
        // On a copy, so that a replay failing halfway leaves the game as it was.
        let mut game = self.game.clone();
        for _ in 0..plies {
            if let Err(err) = game.undo() {
                return Err(Refusal::new(
                    ErrorCode::Internal,
                    format!("the moves could not be taken back ({err}); nothing was changed"),
                ));
            }
        }
        self.game = game;
        self.undo_request = None;
        if self.undo_notes.len() < UNDO_NOTES_MAX {
            self.undo_notes
                .push(format!("{asker} took back move {number} (undo accepted)"));
        }
        if let Some(clock) = &mut self.clock {
            // A clock that is not running (or finds its side out of time) is left as it is; one
            // just paused always resumes, whoever is to move.
            if clock.pause(at_ms).is_ok() {
                let resumed = clock.resume(at_ms, self.game.to_move());
                assert!(resumed.is_ok(), "a clock just paused resumes: {resumed:?}");
            }
        }
        Ok(())
    }

    /// Play restarts after a scoring dispute with `to_move` to play, at game time `at_ms`; `false`,
    /// with nothing changed, outside the scoring phase.
    fn restart_play(&mut self, to_move: Color, at_ms: u64) -> bool {
        if !self.game.resume(to_move) {
            return false;
        }
        self.scoring = None;
        self.scoring_deadline_ms = None;
        if let Some(clock) = &mut self.clock {
            // A clock that cannot resume (never started) runs as it was.
            let _ = clock.resume(at_ms, to_move);
        }
        true
    }

    /// Apply an event rule's event (see `event_rules`).
    fn apply_event_rule(&mut self, logged: &LoggedEvent) {
        let at_ms = logged.at_ms;
        match logged.event {
            GameEvent::Arrived {
                color, charged_ms, ..
            } => {
                self.rules.arrived[color.index()] = true;
                if let Some(clock) = &mut self.clock {
                    let _ = clock.take_main(color, charged_ms, at_ms);
                }
            }
            GameEvent::Warned { color, warnings } => self.note_warning(color, warnings),
            GameEvent::Paused {
                resume_at_ms,
                resume_in_ms,
            } => {
                self.stop_clocks(at_ms);
                self.halt(HaltKind::Pause, resume_at_ms, at_ms + resume_in_ms);
            }
            GameEvent::Adjourned {
                resume_at_ms,
                resume_in_ms,
                ..
            } => self.halt(HaltKind::Adjournment, resume_at_ms, at_ms + resume_in_ms),
            GameEvent::Sealed { color } => {
                self.stop_clocks(at_ms);
                if let Some(sealed) = &logged.sealed {
                    self.rules.sealed = Some((color, sealed.point));
                }
            }
            GameEvent::Resumed => {
                self.rules.halt = None;
                self.restart_clocks(at_ms);
            }
            _ => {}
        }
    }

    fn halt(&mut self, kind: HaltKind, resume_at_ms: u64, due_ms: u64) {
        self.rules.halt = Some(Halted {
            kind,
            resume_at_ms,
            due_ms,
        });
    }

    fn note_warning(&mut self, color: Color, warnings: u32) {
        self.rules.warnings[color.index()] = warnings;
        let name = match color {
            Color::Black => "Black",
            Color::White => "White",
        };
        let note = format!(
            "{name} warned by the event's director (warning {warnings}): one point off {name}'s count"
        );
        self.rules.notes.push((self.game.moves().len(), note));
    }

    /// Both clocks stop at `at_ms` (a clock that is not running has nothing to stop).
    fn stop_clocks(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            let _ = clock.pause(at_ms);
        }
    }

    /// The side to move's clock runs again from `at_ms`, if it was stopped.
    fn restart_clocks(&mut self, at_ms: u64) {
        let to_move = self.game.to_move();
        if let Some(clock) = &mut self.clock {
            if !clock.is_running() {
                let _ = clock.resume(at_ms, to_move);
            }
        }
    }

    /// The count of the board as marked, less each player's warnings, and its result.
    pub(in crate::game) fn counted(&self) -> (GameResult, GameOutcome) {
        let dead: Vec<Point> = self
            .scoring
            .as_ref()
            .map(|s| s.dead.iter().copied().collect())
            .unwrap_or_default();
        let score = self.game.score(&dead);
        let [black_off, white_off] = self.rules.warnings.map(|w| w.saturating_mul(2));
        if black_off == 0 && white_off == 0 {
            return (score.result, wire::outcome(score.result, Some(&score)));
        }
        let margin =
            i64::from(score.black_margin_half_points) - i64::from(black_off) + i64::from(white_off);
        let margin = i32::try_from(margin).unwrap_or(score.black_margin_half_points);
        let result = GameResult::from_margin(margin);
        let mut outcome = wire::outcome(result, Some(&score));
        outcome.black_count_half_points = outcome
            .black_count_half_points
            .map(|h| h.saturating_sub(black_off));
        outcome.white_count_half_points = outcome
            .white_count_half_points
            .map(|h| h.saturating_sub(white_off));
        (result, outcome)
    }
}
