//! A store write that failed: the game goes on as its log says, and never ends for it.
//!
//! Every step that may write (a command, a presence change, a deadline) starts from a
//! [`Checkpoint`] of the game's state. When an append fails, the state goes back to the
//! checkpoint, so a move the store refused is not in play (the player keeps the turn and hears
//! `unavailable`, or `outcome_unknown` when the write broke off and may have been applied), and
//! the game is in doubt: the log may hold events the actor does not. Before the next step that may
//! write, and every [`STORE_RETRY_MS`] by itself, the actor reads its log back and replays what it
//! lacks (announcing what its followers have not heard), which settles every unknown outcome the
//! only way that is certain. Until that read succeeds, writing commands are refused `unavailable`
//! (nothing changed) and deadlines wait; reads (the state, the record, the pool) are answered.
//!
//! [`Writes`] owns where the actor's writes stand (in doubt or not, what was announced, where the
//! step began, a command held up); putting the game back and reading the log again stay with the
//! actor, since they change the core and announce to its followers.

use std::time::Duration;

use tengen_protocol::{ErrorCode, GameEvent};
use tokio::time::Instant;

use super::{Fatal, Flow, GameActor, GameCmd, LoggedEvent};
use crate::config::STORE_RETRY_MS;
use crate::game::core::{Command, GameCore};
use crate::store::{outcome_unknown, store_refusal, StoreError};
use crate::Refusal;

/// Where the actor's writes to its log stand: whether the log may hold events the actor does not
/// (and when to read it back next), what its followers have heard, where the current step began,
/// and a command a failed step held up.
#[derive(Debug, Default)]
pub(super) struct Writes {
    /// While the log is in doubt (after a failed write): the next attempt to read it back.
    retry_at: Option<Instant>,
    /// The `seq` of the last event sent to subscribers (an event stored but not yet announced when
    /// a later write of the same command failed is announced when the log is read back).
    announced_seq: u64,
    /// The `seq` when the current step (a command, a deadline) began: a failure after it appended
    /// something left part of the step in the log.
    step_seq: u64,
    /// A command whose step failed in a deadline's write before it was handled, for the run loop
    /// to answer after putting the game back.
    held: Option<GameCmd>,
}

impl Writes {
    /// The next attempt to read the log back, while in doubt.
    pub(super) fn retry_at(&self) -> Option<Instant> {
        self.retry_at
    }

    /// The log may hold events the actor does not: writes wait until it is read back.
    pub(super) fn in_doubt(&self) -> bool {
        self.retry_at.is_some()
    }

    /// In doubt, or still in doubt: read the log back in [`STORE_RETRY_MS`].
    fn later(&mut self) {
        self.retry_at = Some(Instant::now() + Duration::from_millis(STORE_RETRY_MS));
    }

    /// The log was read back: the actor holds every event in it.
    fn settled(&mut self) {
        self.retry_at = None;
    }

    /// A step begins with the log at `seq`.
    pub(super) fn step_began(&mut self, seq: u64) {
        self.step_seq = seq;
    }

    /// Whether part of the current step is in the log, which is at `seq` now.
    pub(super) fn partly_logged(&self, seq: u64) -> bool {
        seq > self.step_seq
    }

    /// The followers have heard every event up to `seq`.
    pub(super) fn announced(&mut self, seq: u64) {
        self.announced_seq = self.announced_seq.max(seq);
    }

    /// Whether the followers have heard the event `seq` already.
    fn heard(&self, seq: u64) -> bool {
        seq <= self.announced_seq
    }

    /// Keep `cmd` for the run loop to answer once the game is put back.
    pub(super) fn hold(&mut self, cmd: GameCmd) {
        self.held = Some(cmd);
    }

    pub(super) fn take_held(&mut self) -> Option<GameCmd> {
        self.held.take()
    }
}

/// The game's state before a step: what any step's writes may change.
pub(super) struct Checkpoint {
    core: GameCore,
    seen: [bool; 2],
}

/// What a player hears when their command's write failed: `partial` when part of the step is in
/// the log already.
pub(super) fn refusal(fatal: &Fatal, partial: bool) -> Refusal {
    match fatal {
        Fatal::Store(err) if !partial => store_refusal(err),
        Fatal::Store(_) => outcome_unknown(),
        Fatal::Encode(_) => Refusal::new(
            ErrorCode::Internal,
            "the game could not record that; nothing changed",
        ),
    }
}

impl GameActor {
    pub(super) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            core: self.core.clone(),
            seen: self.audience.seen(),
        }
    }

    /// A write of this step failed: back to the state before it, in doubt until the log is read.
    pub(super) fn write_failed(&mut self, before: Checkpoint, fatal: &Fatal) {
        tracing::warn!(game = %self.seats.id, %fatal, "an event could not be stored; the game waits for the store");
        self.core = before.core;
        self.audience.restore_seen(before.seen);
        self.store_moves_count();
        self.writes.later();
    }

    /// Out of doubt: read the log back and apply what this actor lacks. `Over` when the log ends
    /// the game; a refusal (the store still out of reach) leaves the game in doubt.
    pub(super) async fn settle_doubt(&mut self) -> Result<Flow, Refusal> {
        if !self.writes.in_doubt() {
            return Ok(Flow::Continue);
        }
        let game = self.seats.id;
        let events = match self.ctx.store.call(move |s| s.game_events(game)).await {
            Ok(events) => events,
            Err(err) => {
                self.writes.later();
                return Err(store_refusal(&err));
            }
        };
        let known = self.core.seq;
        for (seq, text) in events.into_iter().filter(|(seq, _)| *seq > known) {
            if let Err(err) = self.catch_up(seq, &text).await {
                tracing::error!(game = %self.seats.id, seq, %err, "a stored event could not be replayed");
                self.writes.later();
                return Err(store_refusal(&StoreError::Backend(err)));
            }
        }
        self.writes.settled();
        self.store_moves_count();
        if self.core.outcome.is_some() {
            return Ok(Flow::Over);
        }
        // The log ended between the second pass and the scoring proposal: propose it now.
        // (A write that fails here applied nothing.)
        if let Err(fatal) = self.change(Command::OpenScoring).await {
            self.writes.later();
            return Err(refusal(&fatal, false));
        }
        Ok(Flow::Continue)
    }

    /// Apply one stored event the actor lacks, and announce it unless its followers heard it.
    async fn catch_up(&mut self, seq: u64, text: &str) -> Result<(), String> {
        let logged: LoggedEvent = serde_json::from_str(text).map_err(|err| err.to_string())?;
        self.core.apply(seq, &logged).map_err(|err| err.message)?;
        self.move_keys.remember(&logged);
        if !self.writes.heard(seq) {
            if let GameEvent::Ended { outcome } = &logged.event {
                // As a live end: the hall hears of it before the players.
                self.tell_ended(outcome.clone()).await;
            }
            self.announce(logged);
        }
        Ok(())
    }
}
