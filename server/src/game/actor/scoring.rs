//! The scoring phase: after two passes the engine's dead-stone estimate is proposed, either player
//! may toggle a chain dead or alive (which withdraws both acceptances), and when both accept the
//! marking they saw, the board is counted and the game ends. A player who disagrees resumes play
//! instead.
//!
//! Rules decided here, in the players' terms:
//! - Scoring dispute: either player may send `resume_play` instead of accepting. Asking to resume
//!   means disputing the other player's claim that some stones are dead, so play restarts with the
//!   *other* player (the claimant) to move (以实战解决); two passes end it again with a fresh estimate.
//! - The scoring phase lasts at most `scoring_phase_ms`; then the marking on the board (the last one
//!   both were shown) is accepted for both and counted. Clocks are paused throughout.

use std::collections::BTreeSet;

use tengen_protocol::{ErrorCode, GameEvent, UserId};
use tengen_rules::{estimate_dead, Color, Phase, Point};

use super::{Fatal, Flow, GameActor};
use crate::game::core::Scoring;

use crate::Refusal;

impl GameActor {
    /// The clock pauses and the scoring phase's own limit starts.
    pub(super) fn enter_scoring(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.core.clock {
            // A clock that is not running (already paused) has nothing to pause.
            let _ = clock.pause(at_ms);
        }
        self.core.undo_request = None;
        self.core.scoring_deadline_ms = Some(at_ms + self.core.timing.scoring_phase_ms);
    }

    /// Two passes: propose the engine's dead-stone estimate.
    pub(super) async fn open_scoring(&mut self) -> Result<(), Fatal> {
        let dead: BTreeSet<Point> = estimate_dead(self.core.game.board()).into_iter().collect();
        let event = GameEvent::ScoringStarted {
            dead: dead.iter().copied().collect(),
        };
        self.core.scoring = Some(Scoring {
            dead,
            accepted: [false, false],
        });
        self.enter_scoring(self.now_ms());
        self.commit(event).await?;
        // Play has ended: betting is closed from here on; tell the pool's watchers.
        self.publish_pool();
        Ok(())
    }

    fn scoring_for(&self, user: UserId) -> Result<(Color, &Scoring), Refusal> {
        let color = self.color_of(user)?;
        match &self.core.scoring {
            Some(scoring) if self.core.game.phase() == Phase::Scoring => Ok((color, scoring)),
            _ => Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game is not in the scoring phase",
            )),
        }
    }

    pub(super) async fn toggle_dead(
        &mut self,
        user: UserId,
        point: Point,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let (color, scoring) = match self.scoring_for(user) {
            Ok(found) => found,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if !point.is_on_board(self.core.settings.size) {
            return Ok(Err(Refusal::new(
                ErrorCode::OffBoard,
                "that point is off the board",
            )));
        }
        let chain = self.core.game.board().chain(point);
        if chain.is_empty() {
            return Ok(Err(Refusal::new(
                ErrorCode::NotAllowed,
                "there is no stone there to mark",
            )));
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
        let event = GameEvent::DeadMarked {
            by: color,
            dead: dead.iter().copied().collect(),
        };
        self.core.scoring = Some(Scoring {
            dead,
            accepted: [false, false],
        });
        self.commit(event).await?;
        Ok(Ok(Flow::Continue))
    }

    /// A player accepts the marking; `seen`, the marking they accept, must still be the marking.
    pub(super) async fn accept_score(
        &mut self,
        user: UserId,
        seen: Option<BTreeSet<Point>>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let (color, scoring) = match self.scoring_for(user) {
            Ok(found) => found,
            Err(refusal) => return Ok(Err(refusal)),
        };
        if seen.is_some_and(|seen| seen != scoring.dead) {
            return Ok(Err(Refusal::new(
                ErrorCode::MarkingChanged,
                "the dead stones changed before your accept arrived; look at the marking again",
            )));
        }
        if scoring.accepted[color.index()] {
            return Ok(Ok(Flow::Continue));
        }
        let mut accepted = scoring.accepted;
        accepted[color.index()] = true;
        if let Some(scoring) = &mut self.core.scoring {
            scoring.accepted = accepted;
        }
        self.commit(GameEvent::ScoreAccepted { color }).await?;
        if accepted != [true, true] {
            return Ok(Ok(Flow::Continue));
        }
        self.count_and_end().await.map(Ok)
    }

    /// Count the board with the current marking (less any warnings) and end the game with that
    /// result.
    pub(super) async fn count_and_end(&mut self) -> Result<Flow, Fatal> {
        let (result, outcome) = self.counted();
        self.core.game.end(result);
        self.end(outcome).await
    }

    /// Play restarts after a scoring dispute with `to_move` to play, at game time `at_ms`; `false`,
    /// with nothing changed, outside the scoring phase.
    pub(super) fn restart_play(&mut self, to_move: Color, at_ms: u64) -> bool {
        if !self.core.game.resume(to_move) {
            return false;
        }
        self.core.scoring = None;
        self.core.scoring_deadline_ms = None;
        if let Some(clock) = &mut self.core.clock {
            if let Err(err) = clock.resume(at_ms, to_move) {
                tracing::warn!(game = %self.id, %err, "clock refused to resume");
            }
        }
        true
    }

    pub(super) async fn resume_play(
        &mut self,
        user: UserId,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.scoring_for(user) {
            Ok((color, _)) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        // The asker disputes the marking; the other player claimed the stones dead and moves first.
        let to_move = color.opponent();
        if !self.restart_play(to_move, self.now_ms()) {
            return Ok(Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game is not in the scoring phase",
            )));
        }
        self.commit(GameEvent::PlayResumed { by: color, to_move })
            .await?;
        Ok(Ok(Flow::Continue))
    }
}
