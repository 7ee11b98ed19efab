//! The clock and everything that happens at a deadline, with nobody sending anything: the side to
//! move running out (a timeout, or a forced pass), a no-show, the scoring phase's limit, and a
//! player away too long; and the players' presence, which starts and stops the last of these. The
//! run loop sleeps until [`GameActor::next_deadline_ms`] and then applies everything due.
//!
//! Rules decided here, in the players' terms:
//! - Escape (逃跑): when a player's last connection to the game closes, they have
//!   `disconnect_grace_ms` (their own clock still runs when it is their turn, and a timeout comes first
//!   if it is sooner) to return; otherwise they lose by forfeit. If both players are away when a
//!   forfeit falls due, nobody kept their seat and the game is void.
//! - No-show: a game whose first move is not made within `first_move_within_ms` is void (not an
//!   event's game, where lateness decides instead: see `event_rules`).

use std::sync::atomic::Ordering;

use tengen_protocol::GameEvent;
use tengen_rules::{Color, GameResult, Move, Phase, WinBy};

use super::{Fatal, Flow, GameActor};
use crate::clock::{Clock, Clocks, Expiry};

impl GameActor {
    pub(super) fn clock_view(&self, now_ms: u64) -> Option<Clocks> {
        self.core.clock.as_ref().map(|clock| clock.snapshot(now_ms))
    }

    /// The clock after a completed move at `at_ms`; an untimed game has nothing to do. Not an
    /// assert: the due deadlines were applied at the start of the step, but the step may await the
    /// store before the move's `at_ms` is read, so the mover's time can run out in between and the
    /// clock then refuses (`Expired`, the expiry applied) on a path a player's move reaches.
    pub(super) fn clock_moved(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.core.clock {
            if let Err(err) = clock.on_move(at_ms) {
                tracing::warn!(game = %self.id, %err, "clock refused a move");
            }
        }
    }

    /// The nearest instant (game time) at which something happens without anyone sending anything.
    pub(super) fn next_deadline_ms(&self) -> Option<u64> {
        if self.core.outcome.is_some() {
            return None;
        }
        [
            self.core.clock.as_ref().and_then(Clock::deadline_ms),
            self.first_move_deadline_ms(),
            self.core.scoring_deadline_ms,
            self.forfeit_deadline_ms(Color::Black),
            self.forfeit_deadline_ms(Color::White),
            self.event_deadline_ms(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Before the first move of a game (handicap stones are not moves): when it becomes void.
    pub(super) fn first_move_deadline_ms(&self) -> Option<u64> {
        let waiting = self.core.game.moves().is_empty()
            && self.core.game.phase() == Phase::Play
            && self.no_show_applies();
        waiting.then_some(self.core.timing.first_move_within_ms)
    }

    fn forfeit_deadline_ms(&self, color: Color) -> Option<u64> {
        self.core.away_since_ms[color.index()]
            .map(|since| since + self.core.timing.disconnect_grace_ms)
    }

    /// Apply everything due by now, in a fixed order: the clock, the no-show, the scoring limit, an
    /// escape.
    pub(super) async fn on_deadline(&mut self) -> Result<Flow, Fatal> {
        if self.core.outcome.is_some() {
            return Ok(Flow::Over);
        }
        let now_ms = self.now_ms();
        let expiry = self
            .core
            .clock
            .as_mut()
            .and_then(|clock| clock.check(now_ms));
        match expiry {
            Some(Expiry::Timeout(side)) => {
                let loser = side;
                return self
                    .end_with(GameResult::Win {
                        winner: loser.opponent(),
                        win_by: WinBy::Time,
                    })
                    .await;
            }
            Some(Expiry::ForcedPass(color)) => {
                // The clock runs for the side to move, so the engine takes the pass; if the two
                // ever disagreed, the pass is skipped (the clock has moved on) rather than the
                // game's actor dying over it.
                if let Err(err) = self.core.game.play(color, Move::Pass) {
                    tracing::error!(game = %self.id, %err, "the engine refused a forced pass");
                    return Ok(Flow::Continue);
                }
                self.core.undo_request = None;
                self.commit(GameEvent::Passed {
                    color,
                    forced: true,
                })
                .await?;
                if self.core.game.phase() == Phase::Scoring {
                    self.open_scoring().await?;
                }
            }
            None => {}
        }
        if self
            .first_move_deadline_ms()
            .is_some_and(|due| now_ms >= due)
        {
            return self.end_with(GameResult::Void).await;
        }
        if self
            .core
            .scoring_deadline_ms
            .is_some_and(|due| now_ms >= due)
        {
            return self.count_and_end().await;
        }
        if self.event_deadlines(now_ms).await? == Flow::Over {
            return Ok(Flow::Over);
        }
        for color in [Color::Black, Color::White] {
            if self
                .forfeit_deadline_ms(color)
                .is_some_and(|due| now_ms >= due)
            {
                let result = if self.core.away_since_ms[color.opponent().index()].is_some() {
                    GameResult::Void
                } else {
                    GameResult::Win {
                        winner: color.opponent(),
                        win_by: WinBy::Forfeit,
                    }
                };
                return self.end_with(result).await;
            }
        }
        Ok(Flow::Continue)
    }

    /// A player's connections changed: announce a player who left or came back. Connections that
    /// close because the server is shutting down are not the players leaving.
    pub(super) async fn presence_changed(&mut self) -> Result<Flow, Fatal> {
        if self.core.outcome.is_some() {
            return Ok(Flow::Over);
        }
        if self.ctx.shutdown.is_triggered() {
            return Ok(Flow::Continue);
        }
        self.arrive_present().await?;
        let now_ms = self.now_ms();
        for color in [Color::Black, Color::White] {
            let index = color.index();
            let here = self.presence.counts[index].load(Ordering::SeqCst) > 0;
            if here {
                self.seen[index] = true;
            }
            match (here, self.core.away_since_ms[index]) {
                (false, None) if self.seen[index] => {
                    self.core.away_since_ms[index] = Some(now_ms);
                    let forfeit_in_ms = self.forfeit_in_ms(color, now_ms);
                    self.commit(GameEvent::PlayerLeft {
                        color,
                        forfeit_in_ms,
                    })
                    .await?;
                }
                (true, Some(_)) => {
                    self.core.away_since_ms[index] = None;
                    self.commit(GameEvent::PlayerReturned { color }).await?;
                }
                _ => {}
            }
        }
        Ok(Flow::Continue)
    }

    /// What a client shows as an away player's countdown: the grace left, or their own time if that
    /// runs out sooner (a timeout then ends the game first).
    pub(super) fn forfeit_in_ms(&self, color: Color, now_ms: u64) -> u64 {
        let grace_ms = self
            .forfeit_deadline_ms(color)
            .map_or(0, |due| due.saturating_sub(now_ms));
        match &self.core.clock {
            Some(clock) => grace_ms.min(clock.time_left_ms(color, now_ms)),
            None => grace_ms,
        }
    }
}
