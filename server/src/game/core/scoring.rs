//! The scoring phase: after two passes the engine's dead-stone estimate is proposed, either
//! player may toggle a chain dead or alive (which withdraws both acceptances), and when both
//! accept the marking they saw, the board is counted and the game ends. A player who disagrees
//! resumes play instead.
//!
//! Rules decided here, in the players' terms:
//! - Scoring dispute: either player may send `resume_play` instead of accepting. Asking to resume
//!   means disputing the other player's claim that some stones are dead, so play restarts with the
//!   *other* player (the claimant) to move (以实战解决); two passes end it again with a fresh
//!   estimate.
//! - The scoring phase lasts at most `scoring_phase_ms` (see `deadlines`); then the marking on the
//!   board is accepted for both and counted. Clocks are paused throughout.
//! - An event's director's warnings each take one point off that player's count.

use std::collections::BTreeSet;

use tengen_protocol::{ErrorCode, GameEvent, GameOutcome, Point};
use tengen_rules::{Color, GameResult, Phase};

use super::decide::{wrong_phase, Decision};
use super::GameCore;
use crate::game::wire;
use crate::Refusal;

impl GameCore {
    /// The player of a game in the scoring phase, with its marking.
    pub(super) fn scoring_player(&self) -> Result<&super::Scoring, Refusal> {
        match &self.scoring {
            Some(scoring) if self.game.phase() == Phase::Scoring => Ok(scoring),
            _ => Err(wrong_phase("the game is not in the scoring phase")),
        }
    }

    /// `color` marks the chain at `point` dead, or alive again; both acceptances are withdrawn.
    pub(super) fn decide_toggle_dead(
        &self,
        d: &mut Decision,
        color: Color,
        point: Point,
    ) -> Result<(), Refusal> {
        let scoring = self.scoring_player()?;
        if !point.is_on_board(self.settings.size) {
            return Err(Refusal::new(
                ErrorCode::OffBoard,
                "that point is off the board",
            ));
        }
        let chain = self.game.board().chain(point);
        if chain.is_empty() {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                "there is no stone there to mark",
            ));
        }
        let mut dead = scoring.dead.clone();
        // The whole chain flips together: dead if any of it was alive, else alive.
        if chain.iter().all(|p| dead.contains(p)) {
            for p in &chain {
                dead.remove(p);
            }
        } else {
            dead.extend(chain);
        }
        d.event(GameEvent::DeadMarked {
            by: color,
            dead: dead.into_iter().collect(),
        })
    }

    /// `color` accepts the marking; both accepted, the board is counted and the game ends.
    pub(super) fn decide_accept(
        &self,
        d: &mut Decision,
        color: Color,
        seen: Option<BTreeSet<Point>>,
    ) -> Result<(), Refusal> {
        let scoring = self.scoring_player()?;
        if seen.is_some_and(|seen| seen != scoring.dead) {
            return Err(Refusal::new(
                ErrorCode::MarkingChanged,
                "the dead stones changed before your accept arrived; look at the marking again",
            ));
        }
        if scoring.accepted[color.index()] {
            return Ok(());
        }
        d.event(GameEvent::ScoreAccepted { color })?;
        if d.next.scoring.as_ref().map(|s| s.accepted) == Some([true, true]) {
            let outcome = d.next.counted().1;
            d.event(GameEvent::Ended { outcome })?;
        }
        Ok(())
    }

    /// The clock pauses and the scoring phase's own limit starts.
    pub(super) fn enter_scoring(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            // A clock that is not running (already paused) has nothing to pause.
            let _ = clock.pause(at_ms);
        }
        self.undo_request = None;
        self.scoring_deadline_ms = Some(at_ms + self.timing.scoring_phase_ms);
    }

    /// Play restarts after a scoring dispute with `to_move` to play, at game time `at_ms`; `false`,
    /// with nothing changed, outside the scoring phase.
    pub(super) fn restart_play(&mut self, to_move: Color, at_ms: u64) -> bool {
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

    /// The count of the board as marked, less each player's warnings, and its result.
    pub(super) fn counted(&self) -> (GameResult, GameOutcome) {
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
