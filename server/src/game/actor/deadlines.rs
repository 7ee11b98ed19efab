//! What the actor does with time and the players' connections: it sleeps until the core's next
//! deadline and then asks it what is due ([`GameActor::on_deadline`]), and when the players'
//! connections change it asks the audience who is here and tells the core
//! ([`GameActor::presence_changed`]); also the clocks as they stand, for a frame. The rules
//! themselves (timeouts, forced passes, no-shows, the scoring limit, escape, lateness) are the
//! core's (`game::core::deadlines`).

use super::{Fatal, Flow, GameActor};
use crate::clock::Clocks;
use crate::game::core::{Command, GameCore};
use crate::Refusal;

/// Both players' clocks as they stand at game time `now_ms` (`None` for an untimed game).
pub(super) fn clock_view(core: &GameCore, now_ms: u64) -> Option<Clocks> {
    core.clock.as_ref().map(|clock| clock.snapshot(now_ms))
}

impl GameActor {
    /// Apply everything due by now.
    pub(super) async fn on_deadline(&mut self) -> Result<Flow, Fatal> {
        // Nothing due: no need to ask (which copies the game), the common case before a command.
        if !self.deadline_due() {
            return Ok(match self.core.outcome {
                Some(_) => Flow::Over,
                None => Flow::Continue,
            });
        }
        let result = self.change(Command::Deadlines).await?;
        Ok(self.unrefused(result))
    }

    /// A player's connections changed: they arrive (an event's game), or are announced as having
    /// left or come back. Connections that close because the server is shutting down are not the
    /// players leaving.
    pub(super) async fn presence_changed(&mut self) -> Result<Flow, Fatal> {
        if self.core.outcome.is_some() {
            return Ok(Flow::Over);
        }
        if self.ctx.shutdown.is_triggered() {
            return Ok(Flow::Continue);
        }
        let (here, seen) = self.audience.look_at_players();
        let result = self.change(Command::Presence { here, seen }).await?;
        Ok(self.unrefused(result))
    }

    /// The flow of a change nobody asked for (time, connections), which the core never refuses.
    fn unrefused(&self, result: Result<Flow, Refusal>) -> Flow {
        result.unwrap_or_else(|refusal| {
            tracing::error!(game = %self.seats.id, %refusal, "the game refused a change of its own");
            Flow::Continue
        })
    }
}
