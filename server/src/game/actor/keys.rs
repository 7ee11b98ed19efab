//! The clients' retry keys for moves, passes and resignations: a key a player sends with one is
//! stored in the same log entry as the event it caused, remembered in the actor's [`MoveKeys`]
//! (rebuilt from the log after a restart or on the node that takes the game over), and a request
//! that comes again with the same key is answered with the first outcome instead of being played
//! twice. After the game ended, a retry is answered from the stored log (`answer_from_log`). The
//! keys of bets and stake raises are the ledger's (see `money`).
//!
//! Rules decided here, in the players' terms:
//! - The same key with the same request: `ack`, nothing played again (even if it is no longer your
//!   turn, since your move is what made it so).
//! - The same key with another request (another point, a pass for a move): `key_reused`, nothing
//!   changes.
//! - Keys are per player and per game.

use std::collections::HashMap;

use tengen_protocol::{EndReason, ErrorCode, GameEvent, RequestKey, UserId};

use super::LoggedEvent;
use crate::game::PlayerMove;
use crate::Refusal;

/// The moves, passes and resignations players sent with a key, by player and key: a retry is
/// answered from here. One entry per keyed event, so bounded by the game's log.
#[derive(Debug, Default)]
pub(super) struct MoveKeys {
    first: HashMap<(UserId, RequestKey), PlayerMove>,
}

impl MoveKeys {
    /// What `user` first sent with `key` in this game, if the log has it.
    pub(super) fn first(&self, user: UserId, key: &RequestKey) -> Option<PlayerMove> {
        self.first.get(&(user, key.clone())).copied()
    }

    /// Remember the key of an event now in the log.
    pub(super) fn remember(&mut self, logged: &LoggedEvent) {
        if let (Some(record), Some(mv)) = (&logged.key, move_of(&logged.event)) {
            self.first.insert((record.user, record.key.clone()), mv);
        }
    }
}

/// The player's request a keyed event records.
fn move_of(event: &GameEvent) -> Option<PlayerMove> {
    match event {
        GameEvent::Played { point, .. } => Some(PlayerMove::Play(*point)),
        GameEvent::Passed { forced: false, .. } => Some(PlayerMove::Pass),
        GameEvent::Ended { outcome } if outcome.reason == EndReason::Resignation => {
            Some(PlayerMove::Resign)
        }
        _ => None,
    }
}

/// The answer to a retry of `first` that asks for `again`.
pub(super) fn repeat(first: PlayerMove, again: PlayerMove) -> Result<(), Refusal> {
    if first == again {
        Ok(())
    } else {
        Err(key_reused())
    }
}

pub(crate) fn key_reused() -> Refusal {
    Refusal::new(
        ErrorCode::KeyReused,
        "that key was used for another request in this game; send a fresh key per intent",
    )
}

/// A keyed move sent to a game whose actor is gone, answered from its stored log `events`: `None`
/// when no event there carries `user`'s `key` (the request was never played).
pub(in crate::game) fn answer_from_log(
    events: &[(u64, String)],
    user: UserId,
    key: &RequestKey,
    mv: PlayerMove,
) -> Option<Result<(), Refusal>> {
    events
        .iter()
        .filter_map(|(_, text)| serde_json::from_str::<LoggedEvent>(text).ok())
        .find(|logged| {
            logged
                .key
                .as_ref()
                .is_some_and(|record| record.user == user && &record.key == key)
        })
        .map(|logged| match move_of(&logged.event) {
            Some(first) => repeat(first, mv),
            None => Err(key_reused()),
        })
}
