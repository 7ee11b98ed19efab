//! Applying one logged event to a game's state, at the game-time instant it happened: the only
//! way the state changes, whether the event was just decided (live play), read back after a
//! failed write, or replayed from the log after a restart, so all three agree by construction.

use tengen_protocol::{EndReason, ErrorCode, GameEvent, GameOutcome, Point};
use tengen_rules::{GameResult, Move, WinBy};

use super::{GameCore, LoggedEvent, Scoring};
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
}
