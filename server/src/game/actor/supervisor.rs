//! The game actor's supervisor, as in Erlang/OTP: an actor that panics is rebuilt from its event log
//! (the path a server restart takes, `restore`) and goes on reading the same inbox, so the players
//! keep their game id and the sessions their handles, the clocks resume from the last recorded
//! instant (the moment of the crash is charged to no one, as a restart's downtime is not), and the
//! stakes and bets stay in escrow. Followers see the broadcast close and subscribe again through the
//! same handle, from a fresh snapshot.
//!
//! The restarts are bounded ([`GAME_RESTARTS_MAX`] within [`GAME_RESTART_WINDOW_MS`]): a panic that
//! comes back at once is in the game's own state, so past the bound the game ends void through the
//! normal ending (which refunds stakes and bets) instead of crashing in a loop. A game whose log
//! cannot even be replayed stops here and stays live in the store for the next start to try.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::FutureExt;
use tengen_protocol::GameId;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::audience::Shared;
use super::GameActor;
use crate::config::{GAME_RESTARTS_MAX, GAME_RESTART_WINDOW_MS};
use crate::game::core::Command;
use crate::game::{GameCmd, GameContext};
use crate::BoxError;

/// The instants of the recent restarts, at most [`GAME_RESTARTS_MAX`].
#[derive(Debug, Default)]
struct Restarts {
    at: VecDeque<Instant>,
}

impl Restarts {
    /// Count a restart at `now`; `false` when it would be one too many within the window.
    fn allow(&mut self, now: Instant) -> bool {
        let window = Duration::from_millis(GAME_RESTART_WINDOW_MS);
        while self
            .at
            .front()
            .is_some_and(|&at| now.duration_since(at) >= window)
        {
            self.at.pop_front();
        }
        if self.at.len() >= GAME_RESTARTS_MAX {
            return false;
        }
        self.at.push_back(now);
        true
    }
}

impl GameActor {
    /// Run the game until it ends (`true`) or stops on this node with the game still live
    /// (`false`), restarting the actor from its log whenever it panics. `restarted` runs after each
    /// restart, before the new actor reads its inbox (scaled out, it relays the game again).
    pub(in crate::game) async fn supervise(
        self,
        inbox: &mut mpsc::Receiver<GameCmd>,
        mut restarted: impl FnMut(),
    ) -> bool {
        let (id, ctx) = (self.seats.id, self.ctx.clone());
        let shared = self.audience.shared();
        let mut restarts = Restarts::default();
        let mut actor = self;
        loop {
            let panic = match AssertUnwindSafe(actor.run(inbox)).catch_unwind().await {
                Ok(ended) => return ended,
                Err(panic) => panic_message(&*panic),
            };
            if ctx.shutdown.is_triggered() {
                return false;
            }
            let allowed = restarts.allow(Instant::now());
            tracing::error!(game = %id, %panic, restart = allowed, "a game's actor panicked");
            actor = match GameActor::rebuilt(id, &ctx, &shared).await {
                Ok(Some(actor)) => actor,
                Ok(None) => return true,
                Err(err) => {
                    tracing::error!(game = %id, %err, "could not restart a game; the next start restores it");
                    return false;
                }
            };
            if !allowed {
                return actor.void_after_crashes().await;
            }
            restarted();
        }
    }

    /// The actor rebuilt from the game's log, holding `shared`; `None` when the log shows the game
    /// ended (it is finished now).
    async fn rebuilt(
        id: GameId,
        ctx: &GameContext,
        shared: &Shared,
    ) -> Result<Option<GameActor>, BoxError> {
        let rows = ctx.store.call(|store| store.live_games()).await?;
        let Some(row) = rows.into_iter().find(|row| row.id == id) else {
            shared.ended.store(true, Ordering::SeqCst);
            return Ok(None);
        };
        // A replay that panics is one more crash of this game, not of its supervisor.
        let restored = AssertUnwindSafe(GameActor::restore(row, ctx.clone()))
            .catch_unwind()
            .await
            .map_err(|panic| panic_message(&*panic))??;
        let Some(mut actor) = restored else {
            shared.ended.store(true, Ordering::SeqCst);
            return Ok(None);
        };
        let moves_count = actor.core.game.moves().len() as u32;
        actor.audience.rejoin(shared, moves_count);
        tracing::info!(game = %id, "restarted a game's actor from its log");
        Ok(Some(actor))
    }

    /// Past the restart bound: end the game void through the normal ending, which settles it
    /// (stakes and bets go back) and stores its record. `true` when it ended.
    async fn void_after_crashes(mut self) -> bool {
        let id = self.seats.id;
        tracing::error!(game = %id, "a game's actor keeps panicking; ending the game void");
        let ending = AssertUnwindSafe(async {
            let void = Command::Adjudicate(tengen_protocol::EventOutcome::BothLose);
            match self.change(void).await {
                Ok(_) => {
                    self.finish().await;
                    true
                }
                Err(fatal) => {
                    tracing::error!(game = %id, %fatal, "could not record the void end of a game");
                    false
                }
            }
        });
        match ending.catch_unwind().await {
            Ok(ended) => ended,
            Err(panic) => {
                let panic = panic_message(&*panic);
                tracing::error!(game = %id, %panic, "a game's actor panicked ending the game");
                false
            }
        }
    }
}

/// The text of a panic's payload (a `&str` or a `String`, as `panic!` makes them).
fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

#[cfg(test)]
thread_local! {
    /// Test fault: the next command an actor on this thread handles panics (tokio's test runtime
    /// runs every task on the test's own thread, so tests running in parallel do not see it).
    static PANIC_NEXT_COMMAND: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Test fault: make the next command an actor on this thread handles panic, once.
#[cfg(test)]
pub(in crate::game) fn panic_next_command() {
    PANIC_NEXT_COMMAND.set(true);
}

/// Whether the test fault is armed; disarms it.
#[cfg(test)]
pub(super) fn take_panic_fault() -> bool {
    PANIC_NEXT_COMMAND.replace(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_are_bounded_within_the_window_and_counted_again_after_it() {
        let t0 = Instant::now();
        let mut restarts = Restarts::default();
        for _ in 0..GAME_RESTARTS_MAX {
            assert!(restarts.allow(t0));
        }
        assert!(!restarts.allow(t0 + Duration::from_millis(GAME_RESTART_WINDOW_MS - 1)));
        assert!(restarts.allow(t0 + Duration::from_millis(GAME_RESTART_WINDOW_MS)));
    }
}
