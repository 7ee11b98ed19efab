//! The director's actions inside an event's games, and what those games tell the event's log. The
//! competitions check who may act on which game (the director, a game of the round in play); the
//! game itself then does it, durably in its own log (a pause, a resumption, an adjournment, a
//! warning), and tells the hall a line for the event's log, which the hall hands to the
//! competitions. They never wait on a game: they run in the hall's actor, and a game tells the hall
//! of its changes through the hall's own inbox, which must never wait on a game that waits on it,
//! so what they send a game goes from a task of its own.

use tengen_pairing::EventOutcome;
use tengen_protocol::{Color, ErrorCode, EventId, GameId, UserId};

use super::record::{loss_of, EventRecord, LogAbout};
use super::{Competitions, EventReply, Venue};
use crate::config::{EVENT_LATENESS_DEFAULT_MS, EVENT_LATENESS_MAX_MS, EVENT_LATENESS_MIN_MS};
use crate::game::{GameReply, GameRequest};
use crate::{refuse, Refusal};

/// An event's lateness limit: the spec's, checked, or the rules' default.
pub(super) fn lateness_limit_ms(asked: Option<u64>) -> Result<u64, Refusal> {
    let limit_ms = asked.unwrap_or(EVENT_LATENESS_DEFAULT_MS);
    if !(EVENT_LATENESS_MIN_MS..=EVENT_LATENESS_MAX_MS).contains(&limit_ms) {
        return refuse(
            ErrorCode::InvalidSettings,
            format!(
                "the lateness limit is {} s to {} minutes",
                EVENT_LATENESS_MIN_MS / 1_000,
                EVENT_LATENESS_MAX_MS / 60_000
            ),
        );
    }
    Ok(limit_ms)
}

impl Competitions {
    /// `Done` when `director` directs event `id` and `game` is in play in its round.
    pub(super) fn event_game_directed(
        &self,
        id: EventId,
        director: UserId,
        game: GameId,
    ) -> Result<EventReply, Refusal> {
        let record = self.directed(id, director)?;
        if record.board_in_play(game).is_none() {
            return refuse(
                ErrorCode::NoSuchGame,
                format!("game {game} is not in play in this event's round"),
            );
        }
        Ok(EventReply::Done)
    }

    /// A game of an event told of a change: a line in that event's log, pushed to its people.
    pub(super) async fn event_game_logged(
        &mut self,
        game: GameId,
        action: &str,
        user: Option<UserId>,
        until_ms: Option<u64>,
        venue: &mut dyn Venue,
    ) -> Result<EventReply, Refusal> {
        let Some(&(id, round, _)) = self.boards.get(&game) else {
            return Ok(EventReply::Done);
        };
        let mut record: EventRecord = self.event_record(id)?.clone();
        let about = LogAbout {
            game: Some(game),
            until_ms,
            ..LogAbout::default()
        };
        record.note_with(action, user, Some(round), about);
        self.save_event(id, record, venue).await?;
        Ok(EventReply::Done)
    }

    /// Store a warning given during a game; then the game hears it (a point off that player's
    /// count), and on the player's second warning in it, it ends lost by them.
    pub(super) async fn save_then_warn_in_game(
        &mut self,
        id: EventId,
        record: EventRecord,
        in_play: Option<(GameId, Color)>,
        second: bool,
        venue: &mut dyn Venue,
    ) -> Result<tengen_protocol::EventView, Refusal> {
        let view = self.save_event(id, record, venue).await?;
        let Some((game, colour)) = in_play else {
            return Ok(view);
        };
        let handle = match self.games.get(game).await {
            Ok(handle) => handle,
            // The game ended meanwhile: its own result stands.
            Err(_) => return Ok(view),
        };
        let lost = second.then(|| loss_of(colour));
        // One task, so the game logs the warning before the end it causes.
        tokio::spawn(async move {
            let warned = handle
                .ask(GameRequest::Warn { color: colour })
                .await
                .and_then(GameReply::done);
            if let Err(refusal) = warned {
                tracing::warn!(event = %id, %game, %refusal, "a warning did not reach its game");
            }
            if let Some(outcome) = lost {
                decide(&handle, id, game, outcome).await;
            }
        });
        if second {
            return self.event_view(id);
        }
        Ok(view)
    }
}

/// End an event game as decided (it may have ended meanwhile, and its own result then stands).
pub(super) async fn decide(
    handle: &crate::game::GameHandle,
    id: EventId,
    game: GameId,
    outcome: EventOutcome,
) {
    let ended = handle
        .ask(GameRequest::Adjudicate { outcome })
        .await
        .and_then(GameReply::done);
    match ended {
        Ok(()) => {}
        Err(refusal) if refusal.code == ErrorCode::WrongPhase => {}
        Err(refusal) => {
            tracing::warn!(event = %id, %game, %refusal, "an event game could not be decided");
        }
    }
}
