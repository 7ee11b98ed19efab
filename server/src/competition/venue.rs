//! What a competition needs from the hall that hosts it, named as one small trait so the
//! competitions never reach into the hall (which stands above them): start a game for a board,
//! push a frame to the hall's lobby or to one user, and be told when a round's set time comes.
//! The hall implements it and passes itself to each call of [`Competitions`](super::Competitions)
//! that may need it, so every game start and push happens at the same point of the same step as
//! when competitions were part of the hall.

use futures_util::future::BoxFuture;
use tengen_protocol::{EventId, GameSettings, GameSummary, PlayerInfo, ServerMsg, UserId};

use crate::{Frame, Refusal};

/// The hall, as the competitions see it.
pub trait Venue: Send {
    /// Start a game between `black` and `white` (at no table, colours as given), listed and
    /// announced as the hall announces every game; `bettors_barred` may not bet on it.
    fn start_event_game(
        &mut self,
        black: PlayerInfo,
        white: PlayerInfo,
        settings: GameSettings,
        bettors_barred: Vec<UserId>,
    ) -> BoxFuture<'_, Result<GameSummary, Refusal>>;

    /// Push `msg` to every session in the hall's lobby.
    fn push_to_hall(&self, msg: &ServerMsg);

    /// Push `frame` to `user`'s own connections, wherever they are.
    fn push_to_user(&self, user: UserId, frame: Frame);

    /// What brings `RoundDue { event, round }` back to the competitions, to be awaited when the
    /// round's set time comes (by a timer beside the hall, so it waits for room in its inbox, and
    /// scaled out reaches whichever node runs the hall then).
    fn round_due(&self, event: EventId, round: u32) -> BoxFuture<'static, ()>;
}
