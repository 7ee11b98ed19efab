//! An event's rounds and their games: reading the events when a hall starts and catching up on
//! what happened meanwhile, pairing a round (by the director, or when its set time comes) and
//! starting a game for each of its boards, and each game's result fed into its event the moment the
//! game ends (a relay's next game started then).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use tengen_pairing::{EventError, PlayerId};
use tengen_protocol::{
    EventId, EventStatus, EventView, GameId, GameOutcome, GameSettings, PlayerInfo, TeamId, UserId,
};

use super::record::{event_outcome, event_refusal, BoardOf, EventRecord};
use super::{Competitions, Venue};
use crate::game::GameRequest;
use crate::{unix_now_ms, Refusal};

impl Competitions {
    /// Read every event from the store (a hall starting), and catch up on what happened meanwhile.
    pub async fn load(&mut self, venue: &mut dyn Venue) {
        let stored = match self.store.call(|store| store.events()).await {
            Ok(stored) => stored,
            Err(err) => {
                tracing::error!(%err, "could not read the events; the hall starts without them");
                return;
            }
        };
        for (id, json) in stored {
            match serde_json::from_str::<EventRecord>(&json) {
                Ok(record) => {
                    self.records.insert(id, record);
                }
                Err(err) => tracing::error!(event = %id, %err, "an unreadable event was skipped"),
            }
        }
        self.boards = board_index(&self.records);
        let ids: Vec<EventId> = self.records.keys().copied().collect();
        for id in ids {
            self.catch_up(id, venue).await;
            self.schedule_next_round(id, venue);
        }
    }

    /// A timer for the next round, if it has a set start time: when it comes, the competitions
    /// hear `RoundDue` through the venue (scaled out, on whichever node has the hall then; a
    /// second hall's timer for the same round finds it paired and does nothing). One timer an
    /// event at a time: pairing a round sets the next one's.
    pub(super) fn schedule_next_round(&self, id: EventId, venue: &dyn Venue) {
        let Some(record) = self.records.get(&id) else {
            return;
        };
        let next = record.event.rounds().len();
        let Some(&at_ms) = record.round_starts_ms.get(next) else {
            return;
        };
        let round = next as u32 + 1;
        let delay = Duration::from_millis(at_ms.saturating_sub(unix_now_ms()));
        let (due, shutdown) = (venue.round_due(id, round), self.shutdown.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(delay) => due.await,
                () = shutdown.wait() => {}
            }
        });
    }

    /// Start the next round if its set time has come and the round before is over.
    pub(super) async fn start_round_if_due(&mut self, id: EventId, venue: &mut dyn Venue) {
        let Ok(record) = self.event_record(id) else {
            return;
        };
        let next = record.event.rounds().len();
        let Some(&at_ms) = record.round_starts_ms.get(next) else {
            return;
        };
        let waiting = matches!(
            record.status(),
            EventStatus::Playing | EventStatus::Finished
        );
        if at_ms > unix_now_ms() || waiting {
            return;
        }
        let record = record.clone();
        if let Err(refusal) = self.pair_and_start(id, record, None, venue).await {
            tracing::warn!(event = %id, round = next + 1, %refusal, "a round's set time came and it could not start");
        }
    }

    /// Results of the current round's games that ended while no hall listened, then games for the
    /// boards paired without one (a restart between pairing and starting them).
    async fn catch_up(&mut self, id: EventId, venue: &mut dyn Venue) {
        let Some(record) = self.records.get(&id) else {
            return;
        };
        let pending: Vec<(u32, u32, GameId)> = record
            .games
            .iter()
            .copied()
            .filter(|&(round, board, _)| record.outcome(round, board).is_none())
            .collect();
        for (_, _, game) in pending {
            if let Some(outcome) = self.stored_outcome(game).await {
                self.game_ended(game, Some(outcome), venue).await;
            }
        }
        if let Err(refusal) = self.start_round_games(id, venue).await {
            tracing::error!(event = %id, %refusal, "could not start an event round's games");
        }
    }

    /// A finished game's outcome from its log (its last event).
    async fn stored_outcome(&self, game: GameId) -> Option<GameOutcome> {
        if self.games.get_local(game).is_some() {
            return None;
        }
        let events = self.store.call(move |s| s.game_events(game)).await.ok()?;
        crate::store::logged_outcome(&events)
    }

    /// The director pairs the next round; its games start at once.
    pub(super) async fn start_round(
        &mut self,
        id: EventId,
        user: UserId,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let record = self.directed(id, user)?.clone();
        self.pair_and_start(id, record, Some(user), venue).await
    }

    /// Pair the next round of `record` and start its games; `by` is the director who asked (none:
    /// the round's set time came).
    async fn pair_and_start(
        &mut self,
        id: EventId,
        mut record: EventRecord,
        by: Option<UserId>,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        if record.event.rounds().is_empty() {
            record.seed_by_strength()?;
        }
        let round = record
            .event
            .pair_next_round()
            .map_err(event_refusal)?
            .clone();
        if let Some(teams) = &mut record.teams {
            let first_seed = record.event.entrants().first().map(|e| TeamId(e.player.0));
            for (table, outcome) in teams.lay_out(&round, first_seed) {
                // Every board forfeited by withdrawn players.
                record
                    .event
                    .record(round.number, table, outcome)
                    .map_err(event_refusal)?;
            }
        }
        record.note("round_started", by, Some(round.number));
        // Durable before any game starts: a restart from here starts the round's games.
        self.save_event(id, record, venue).await?;
        self.schedule_next_round(id, venue);
        self.start_round_games(id, venue).await?;
        self.event_view(id)
    }

    /// Start a game for every board of the current round that has none yet and no result.
    async fn start_round_games(
        &mut self,
        id: EventId,
        venue: &mut dyn Venue,
    ) -> Result<(), Refusal> {
        let record = self.event_record(id)?;
        let Some(round) = record.event.rounds().last() else {
            return Ok(());
        };
        let number = round.number;
        let unstarted: Vec<(u32, PlayerInfo, PlayerInfo)> = record
            .round_lines(number)
            .into_iter()
            .filter(|line| line.outcome.is_none() && record.game_of(number, line.board).is_none())
            .filter_map(|line| {
                let player = |user: UserId| record.player(PlayerId(user.0));
                Some((line.board, player(line.black)?, player(line.white)?))
            })
            .collect();
        if unstarted.is_empty() {
            return Ok(());
        }
        let settings = GameSettings {
            event: Some(id),
            ..record.settings
        };
        let barred = record.entrant_ids();
        let mut started = Vec::new();
        for (board, black, white) in unstarted {
            let summary = venue
                .start_event_game(black, white, settings, barred.clone())
                .await?;
            self.boards.insert(summary.game, (id, number, board));
            started.push((number, board, summary.game));
        }
        let mut record = self.event_record(id)?.clone();
        record.games.extend(started);
        self.save_event(id, record, venue).await.map(|_| ())
    }

    /// A game restored after a restart (or listed by a new hall): if it is an event's, its entrants
    /// are barred from its pool again (the game does not keep that in its log).
    pub fn game_restored(&self, game: GameId) {
        let Some(&(id, _, _)) = self.boards.get(&game) else {
            return;
        };
        let Some(record) = self.records.get(&id) else {
            return;
        };
        let bar = GameRequest::BarBettors {
            users: record.entrant_ids(),
        };
        let games = self.games.clone();
        tokio::spawn(async move {
            let barred = match games.get(game).await {
                Ok(handle) => handle.ask(bar).await.map(|_| ()),
                Err(refusal) => Err(refusal),
            };
            if let Err(refusal) = barred {
                tracing::warn!(%game, %refusal, "could not bar an event's entrants from its game's pool");
            }
        });
    }

    /// A game ended: if it is an event's, its result goes into the event.
    pub async fn game_ended(
        &mut self,
        game: GameId,
        outcome: Option<GameOutcome>,
        venue: &mut dyn Venue,
    ) {
        let Some(&(id, round, board)) = self.boards.get(&game) else {
            return;
        };
        let Some(outcome) = outcome else {
            tracing::warn!(%game, "an event game ended without an outcome");
            return;
        };
        let Ok(record) = self.event_record(id) else {
            return;
        };
        let mut record = record.clone();
        match record.record_board(round, board, event_outcome(&outcome)) {
            Ok(()) => {}
            Err(EventError::AlreadyRecorded { .. }) => return,
            Err(err) => {
                tracing::error!(event = %id, %game, %err, "an event game's result was refused");
                return;
            }
        }
        // The log names the board's Black player (its line reads "Black – White, result").
        let black = record.line(round, board).map(|line| line.black);
        record.note("result", black, Some(round));
        if record.event.is_over() {
            record.note("finished", None, None);
        }
        if let Err(refusal) = self.save_event(id, record, venue).await {
            // The game's log keeps the result: the next hall start takes it from there.
            tracing::error!(event = %id, %game, %refusal, "could not store an event result");
            return;
        }
        self.boards.remove(&game);
        // Only a relay lays out a board when a result comes in (its next game): scanning every
        // board of a large round for one without a game after each result is work for nothing.
        let relay = self.records.get(&id).is_some_and(EventRecord::is_relay);
        if relay {
            if let Err(refusal) = self.start_round_games(id, venue).await {
                tracing::error!(event = %id, %refusal, "could not start a relay's next game");
            }
        }
        // A round whose set time came while this one was in play.
        self.start_round_if_due(id, venue).await;
    }
}

/// Which event board each game not yet finished is.
fn board_index(records: &BTreeMap<EventId, EventRecord>) -> HashMap<GameId, BoardOf> {
    let mut boards = HashMap::new();
    for (&id, record) in records {
        for &(round, board, game) in &record.games {
            if record.outcome(round, board).is_none() {
                boards.insert(game, (id, round, board));
            }
        }
    }
    boards
}
