//! Which game this is and who sits at it: its id, the table it is played at, both players as they
//! were when it started, the nigiri's seed and the wall-clock start. Set once when the actor is made
//! (new, or rebuilt from the store's row) and never changed; every other part of the actor reads
//! it to name the game or to tell a player from a watcher. It knows nothing of the game's state,
//! its followers or its money.

use tengen_protocol::{ErrorCode, GameId, PlayerInfo, TableId, UserId};
use tengen_rules::Color;

use crate::Refusal;

#[derive(Debug)]
pub(super) struct Seats {
    pub(super) id: GameId,
    pub(super) table: Option<TableId>,
    pub(super) black: PlayerInfo,
    pub(super) white: PlayerInfo,
    pub(super) nigiri_seed: Option<u64>,
    /// Wall-clock start (Unix ms), for the record's date.
    pub(super) started_at_ms: u64,
}

impl Seats {
    /// Black's and White's accounts, in that order.
    pub(super) fn players(&self) -> [UserId; 2] {
        [self.black.user, self.white.user]
    }

    /// The colour `user` plays, or `not_your_game` for anyone who does not play this game.
    pub(super) fn color_of(&self, user: UserId) -> Result<Color, Refusal> {
        if user == self.black.user {
            Ok(Color::Black)
        } else if user == self.white.user {
            Ok(Color::White)
        } else {
            Err(Refusal::new(
                ErrorCode::NotYourGame,
                format!("you are not a player of game {}", self.id),
            ))
        }
    }

    pub(super) fn user_of(&self, color: Color) -> UserId {
        match color {
            Color::Black => self.black.user,
            Color::White => self.white.user,
        }
    }
}
