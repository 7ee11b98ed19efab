//! What happens at a deadline, with nobody sending anything, and when the next one is: the side
//! to move running out (a timeout, or a forced pass), a no-show, the scoring phase's limit, an
//! event's lateness limit and the end of a pause or adjournment, and a player away too long.
//!
//! Rules decided here, in the players' terms:
//! - Escape (逃跑): when a player's last connection to the game closes, they have
//!   `disconnect_grace_ms` (their own clock still runs when it is their turn, and a timeout comes
//!   first if it is sooner) to return; otherwise they lose by forfeit. If both players are away
//!   when a forfeit falls due, nobody kept their seat and the game is void.
//! - No-show: a game whose first move is not made within `first_move_within_ms` is void (not an
//!   event's game, where lateness decides instead).
//! - Lateness (迟到): arriving `L` after the start costs `2·L` of main time in all; what the
//!   player's own clock did not already charge them is taken at arrival. A player not arrived at
//!   the event's limit loses by forfeit; both missing, the game is void.

use tengen_protocol::GameEvent;
use tengen_rules::{Color, GameResult, Phase, WinBy};

use super::decide::Decision;
use super::GameCore;
use crate::clock::{Clock, Expiry};
use crate::Refusal;

impl GameCore {
    /// The nearest instant (game time) at which something happens without anyone sending
    /// anything; `None` once the game is over.
    pub(in crate::game) fn next_deadline(&self) -> Option<u64> {
        if self.outcome.is_some() {
            return None;
        }
        [
            self.clock.as_ref().and_then(Clock::deadline_ms),
            self.first_move_deadline_ms(),
            self.scoring_deadline_ms,
            self.forfeit_deadline_ms(Color::Black),
            self.forfeit_deadline_ms(Color::White),
            self.event_deadline_ms(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Before the first move of a game (handicap stones are not moves): when it becomes void.
    pub(in crate::game) fn first_move_deadline_ms(&self) -> Option<u64> {
        let waiting = self.game.moves().is_empty()
            && self.game.phase() == Phase::Play
            && self.settings.lateness_limit_ms.is_none();
        waiting.then_some(self.timing.first_move_within_ms)
    }

    fn forfeit_deadline_ms(&self, color: Color) -> Option<u64> {
        self.away_since_ms[color.index()].map(|since| since + self.timing.disconnect_grace_ms)
    }

    /// When `color` forfeits for not arriving (game time), while they have not.
    pub(in crate::game) fn lateness_deadline_ms(&self, color: Color) -> Option<u64> {
        let limit_ms = self.settings.lateness_limit_ms?;
        (!self.rules.arrived[color.index()]).then_some(limit_ms)
    }

    /// The nearest instant at which an event rule acts by itself: a lateness limit, or the end of
    /// a pause or adjournment.
    fn event_deadline_ms(&self) -> Option<u64> {
        let lateness = Color::BOTH
            .into_iter()
            .filter_map(|color| self.lateness_deadline_ms(color))
            .min();
        let halt = self.rules.halt.map(|halt| halt.due_ms);
        lateness
            .into_iter()
            .chain(halt)
            .chain(self.sealed_due())
            .min()
    }

    /// A sealed move whose resumption is logged but not the move itself (a restart, or a write
    /// that failed, in between): due at once.
    fn sealed_due(&self) -> Option<u64> {
        (self.rules.halt.is_none() && self.rules.sealed.is_some()).then_some(0)
    }

    /// What a client shows as an away player's countdown: the grace left, or their own time if
    /// that runs out sooner (a timeout then ends the game first).
    pub(in crate::game) fn forfeit_in_ms(&self, color: Color, now_ms: u64) -> u64 {
        let grace_ms = self
            .forfeit_deadline_ms(color)
            .map_or(0, |due| due.saturating_sub(now_ms));
        match &self.clock {
            Some(clock) => grace_ms.min(clock.time_left_ms(color, now_ms)),
            None => grace_ms,
        }
    }

    /// Everything due by `d.now_ms`, in a fixed order: the clock, the no-show, the scoring limit,
    /// the event rules, an escape. The first ending ends the decision.
    pub(super) fn decide_deadlines(&self, d: &mut Decision) -> Result<(), Refusal> {
        if self.outcome.is_some() {
            return Ok(());
        }
        let now_ms = d.now_ms;
        let expiry = self.clock.clone().and_then(|mut clock| clock.check(now_ms));
        match expiry {
            Some(Expiry::Timeout(loser)) => {
                return d.end(GameResult::Win {
                    winner: loser.opponent(),
                    win_by: WinBy::Time,
                })
            }
            Some(Expiry::ForcedPass(color)) => {
                let pass = GameEvent::Passed {
                    color,
                    forced: true,
                };
                // The clock runs for the side to move, so the engine takes the pass; if the two
                // ever disagreed, the game could not go on, and it is void.
                if let Err(err) = d.event(pass) {
                    tracing::error!(%err, "the engine refused a forced pass; the game is void");
                    return d.end(GameResult::Void);
                }
                d.open_scoring()?;
            }
            None => {}
        }
        let next = d.next.clone();
        if next
            .first_move_deadline_ms()
            .is_some_and(|due| now_ms >= due)
        {
            return d.end(GameResult::Void);
        }
        if next.scoring_deadline_ms.is_some_and(|due| now_ms >= due) {
            let outcome = next.counted().1;
            return d.event(GameEvent::Ended { outcome });
        }
        next.decide_event_deadlines(d)?;
        let next = d.next.clone();
        if next.outcome.is_some() {
            return Ok(());
        }
        for color in Color::BOTH {
            if next
                .forfeit_deadline_ms(color)
                .is_some_and(|due| now_ms >= due)
            {
                let result = if next.away_since_ms[color.opponent().index()].is_some() {
                    GameResult::Void
                } else {
                    GameResult::Win {
                        winner: color.opponent(),
                        win_by: WinBy::Forfeit,
                    }
                };
                return d.end(result);
            }
        }
        Ok(())
    }

    /// An event rule's deadlines: a forfeit for lateness, then a sealed move or a resumption at
    /// the set time (one of them).
    fn decide_event_deadlines(&self, d: &mut Decision) -> Result<(), Refusal> {
        let now_ms = d.now_ms;
        let missing: Vec<Color> = Color::BOTH
            .into_iter()
            .filter(|&color| {
                self.lateness_deadline_ms(color)
                    .is_some_and(|due| now_ms >= due)
            })
            .collect();
        match missing.as_slice() {
            [] => {}
            [late] => {
                return d.end(GameResult::Win {
                    winner: late.opponent(),
                    win_by: WinBy::Forfeit,
                });
            }
            _ => return d.end(GameResult::Void),
        }
        if self.sealed_due().is_some() {
            return self.decide_sealed_move(d);
        }
        if self.rules.halt.is_some_and(|halt| now_ms >= halt.due_ms) {
            d.event(GameEvent::Resumed)?;
            let resumed = d.next.clone();
            return resumed.decide_sealed_move(d);
        }
        Ok(())
    }
}
