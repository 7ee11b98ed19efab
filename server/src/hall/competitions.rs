//! The hall as the competitions' venue ([`Venue`]): what `competition` may ask of the hall. A game
//! for an event's board starts as every game does (listed, announced to its players and their
//! friends), pushes go out on the hall's broadcasts, and a round's timer comes back through the
//! hall's inbox as the request `RoundDue`, waiting for room like every message that must not be
//! lost.

use futures_util::future::BoxFuture;
use tengen_protocol::{EventId, GameSettings, GameSummary, PlayerInfo, ServerMsg, UserId};

use super::{hall_recipients, users_recipients, Hall, HallRequest};
use crate::competition::{EventRequest, Venue};
use crate::{Frame, Refusal};

impl Venue for Hall {
    fn start_event_game(
        &mut self,
        black: PlayerInfo,
        white: PlayerInfo,
        settings: GameSettings,
        bettors_barred: Vec<UserId>,
    ) -> BoxFuture<'_, Result<GameSummary, Refusal>> {
        // An event's game has no table, and its colours are the pairing's (no nigiri).
        Box::pin(self.start_game(None, black, white, settings, bettors_barred))
    }

    fn push_to_hall(&self, msg: &ServerMsg) {
        self.publish(hall_recipients(), msg);
    }

    fn push_to_user(&self, user: UserId, frame: Frame) {
        self.publish_text(users_recipients([Some(user), None]), frame, None);
    }

    fn round_due(&self, event: EventId, round: u32) -> BoxFuture<'static, ()> {
        let hall = self.handle.clone();
        Box::pin(async move {
            let due = EventRequest::RoundDue { event, round };
            hall.send(HallRequest::Event(due)).await;
        })
    }
}
