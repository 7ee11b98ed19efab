//! The competition rules inside an event's game (docs/competitions.md "Lateness, warnings,
//! withdrawal"), on the actor's side: the director's pause, adjournment and a player's sealed
//! move arrive here and go to the core (`game::core`, which decides the rules themselves); the
//! event's log in the hall hears of each; a restored halt ends at its wall-clock time; and the
//! game's state shows who is awaited, the warnings and a halt. A game that is not an event's has
//! no lateness limit and nobody to warn, pause or adjourn it.
//!
//! Rules decided in the core, in the players' terms:
//! - Lateness (迟到): arriving `L` after the start costs `2·L` of main time in all; a player not
//!   arrived at the event's limit loses by forfeit; both missing, the game is void.
//! - Warnings (罚出一子): each warning costs that player one point of their area count.
//! - Pause (暂停): both clocks stop; moves, passes, resignations and undo are refused until the game
//!   resumes, at the set time or when the director says.
//! - Adjournment (封棋): the player to move seals a move (their clock runs until they do); then
//!   both clocks stop. The sealed move is in the log only, never in any frame, snapshot or record,
//!   until the game resumes, when it is played as an ordinary move.

use tengen_protocol::{Awaited, Color, Halt, HaltKind, Point, UserId};

use super::{Fatal, Flow, GameActor};
use crate::game::core::{Command, GameCore};
use crate::game::GameNotice;
use crate::{unix_now_ms, Refusal};

impl GameActor {
    /// The director pauses (`Pause`) or adjourns (`Adjournment`) the game until `resume_at_ms`.
    pub(super) async fn halt(
        &mut self,
        kind: HaltKind,
        resume_at_ms: u64,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let wall_now_ms = unix_now_ms();
        let halt = Command::Halt {
            kind,
            resume_at_ms,
            wall_now_ms,
        };
        self.change(halt).await
    }

    /// In an adjourned game, the player to move seals their move.
    pub(super) async fn seal(
        &mut self,
        user: UserId,
        point: Option<Point>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        self.players_change(user, |color| Command::Seal { color, point })
            .await
    }

    /// Tell the hall, for the event's log (a game that is no event's is not in it: nothing happens).
    pub(super) async fn tell_event(
        &self,
        action: &str,
        user: Option<UserId>,
        until_ms: Option<u64>,
    ) {
        let logged = GameNotice::EventLogged {
            game: self.seats.id,
            action: action.to_string(),
            user,
            until_ms,
        };
        self.ctx.hall.tell(logged).await;
    }

    /// After a restart at game time `now_ms`: a halt ends at its wall-clock time even though the
    /// downtime did not count as game time. (A sealed move whose resumption was logged but not its
    /// move is due at once: the core's deadlines say so.)
    pub(super) fn event_rules_restored(&mut self, now_ms: u64) {
        if let Some(halt) = &mut self.core.rules.halt {
            let wall_due_ms = now_ms + halt.resume_at_ms.saturating_sub(unix_now_ms());
            halt.due_ms = halt.due_ms.min(wall_due_ms);
        }
    }
}

/// What the game state shows of the event rules: who is awaited, the warnings, a halt.
pub(super) fn event_state(core: &GameCore, now_ms: u64) -> (Vec<Awaited>, [u32; 2], Option<Halt>) {
    if core.outcome.is_some() {
        return (Vec::new(), core.rules.warnings, None);
    }
    let wall_ms = unix_now_ms();
    let awaited = Color::BOTH
        .into_iter()
        .filter_map(|color| {
            let due_ms = core.lateness_deadline_ms(color)?;
            let forfeit_in_ms = due_ms.saturating_sub(now_ms);
            Some(Awaited {
                color,
                forfeit_at_ms: wall_ms + forfeit_in_ms,
                forfeit_in_ms,
            })
        })
        .collect();
    let halt = core.rules.halt.map(|halt| {
        let adjourned = halt.kind == HaltKind::Adjournment;
        let sealer = match core.rules.sealed {
            Some((color, _)) => Some(color),
            None => adjourned.then(|| core.game.to_move()),
        };
        Halt {
            kind: halt.kind,
            resume_at_ms: halt.resume_at_ms,
            resume_in_ms: halt.due_ms.saturating_sub(now_ms),
            sealer,
            sealed: core.rules.sealed.is_some(),
        }
    });
    (awaited, core.rules.warnings, halt)
}
