//! The director's acts on an event's entrants and games: withdrawing an entrant (a game of theirs
//! in play is lost by forfeit), warning one (a second warning in the same game loses it), and
//! deciding a game of the round in play with a reason kept in the log. Each is stored before the
//! game hears of it; who may act is checked here (`directed`).

use tengen_pairing::EventOutcome;
use tengen_protocol::{Color, ErrorCode, EventId, EventView, GameId, UserId};

use super::event_games;
use super::record::{loss_of, EventRecord, LogAbout};
use super::{Competitions, Venue};
use crate::config::EVENT_NAME_CHARS_MAX;
use crate::{refuse, Refusal};

impl Competitions {
    /// The director withdraws an entrant; a game of theirs in play is lost by forfeit.
    pub(super) async fn withdraw_entrant(
        &mut self,
        id: EventId,
        director: UserId,
        user: UserId,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let mut record = self.directed(id, director)?.clone();
        record.withdraw(user)?;
        record.note("withdrew", Some(user), None);
        let in_play = record.game_in_play(user);
        self.save_then_forfeit(id, record, in_play, venue).await
    }

    /// The director warns an entrant; a second warning in the same game loses it.
    pub(super) async fn warn_entrant(
        &mut self,
        id: EventId,
        director: UserId,
        user: UserId,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let mut record = self.directed(id, director)?.clone();
        record.count_warning(user)?;
        let in_play = record.game_in_play(user);
        let mut second = None;
        if let Some((game, colour)) = in_play {
            record.game_warnings.push((game, user));
            let in_this_game = record.game_warnings.iter().filter(|&&w| w == (game, user));
            if in_this_game.count() >= 2 {
                second = Some((game, colour));
            }
        }
        let round = record.event.rounds().last().map(|r| r.number);
        let game = in_play.map(|(game, _)| game);
        let about = LogAbout {
            game,
            ..LogAbout::default()
        };
        record.note_with("warned", Some(user), round, about);
        self.save_then_warn_in_game(id, record, in_play, second.is_some(), venue)
            .await
    }

    /// Store a director's change; then, if it costs a player their game in play (`forfeit`: the
    /// game and the player's colour), end that game as lost by them.
    async fn save_then_forfeit(
        &mut self,
        id: EventId,
        record: EventRecord,
        forfeit: Option<(GameId, Color)>,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let view = self.save_event(id, record, venue).await?;
        match forfeit {
            Some((game, colour)) => {
                self.decide_game(id, game, loss_of(colour)).await?;
                self.event_view(id)
            }
            None => Ok(view),
        }
    }

    /// The director decides a game of the round in play, with a reason kept in the log.
    pub(super) async fn adjudicate(
        &mut self,
        id: EventId,
        director: UserId,
        game: GameId,
        (outcome, reason): (EventOutcome, String),
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let reason = reason.trim().to_string();
        if reason.is_empty() || reason.chars().count() > EVENT_NAME_CHARS_MAX * 4 {
            return refuse(ErrorCode::BadMessage, "say why, in 1 to 240 characters");
        }
        let mut record = self.directed(id, director)?.clone();
        let Some((round, _)) = record.board_in_play(game) else {
            return refuse(
                ErrorCode::NoSuchGame,
                format!("game {game} is not in play in this event's round"),
            );
        };
        let about = LogAbout {
            game: Some(game),
            reason: Some(reason),
            ..LogAbout::default()
        };
        record.note_with("adjudicated", None, Some(round), about);
        self.save_event(id, record, venue).await?;
        self.decide_game(id, game, outcome).await?;
        self.event_view(id)
    }

    /// End an event game as decided; its end feeds the result into the event as any end does. The
    /// competitions do not wait for the game's answer: the game tells the hall (where they run) of
    /// its end through the hall's own inbox, which must never wait on a game that waits on it.
    async fn decide_game(
        &self,
        id: EventId,
        game: GameId,
        outcome: EventOutcome,
    ) -> Result<(), Refusal> {
        let handle = self.games.get(game).await?;
        tokio::spawn(async move {
            event_games::decide(&handle, id, game, outcome).await;
        });
        Ok(())
    }

    /// The event, when `user` directs it.
    pub(super) fn directed(&self, id: EventId, user: UserId) -> Result<&EventRecord, Refusal> {
        let record = self.event_record(id)?;
        if record.director.user != user {
            return refuse(
                ErrorCode::NotDirector,
                "only the event's director may do that",
            );
        }
        Ok(record)
    }
}
