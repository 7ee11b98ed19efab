//! Competitions in the hall: a player creates an event and directs it, players enter and leave until
//! round 1, the director starts each round, whose games start at once with the pairing's colours,
//! and each game's result feeds the event the moment the game ends. The pairing, results and
//! standings are `tengen-pairing`'s; this module keeps each event's record (the pairing core's
//! `Event` plus who the players are, which game each board is, and the log) durable in the store
//! before anyone hears of a change, and rebuilds it when a hall starts, after a restart or on
//! another node: a board whose game ended while nobody listened takes its result from the game's
//! log, and a paired board without a game gets one.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};
use tengen_pairing::{Event, EventError, EventOutcome, PlayerId, Settings};
use tengen_protocol::{
    Color, EndReason, ErrorCode, EventBoard, EventEntrant, EventId, EventLogEntry, EventPlacing,
    EventRound, EventSpec, EventStatus, EventSummary, EventView, GameId, GameOutcome, GameSettings,
    PlayerInfo, RankRange, ServerMsg, TeamId, UserId,
};

use super::teams::TeamPlay;
use super::{hall_audience, users_audience, Hall};
use crate::config::{
    EVENTS_MAX, EVENT_LIST_PAGE, EVENT_LOG_MAX, EVENT_NAME_CHARS_MAX, EVENT_ROUND_TIMES_MAX,
};
use crate::game::GameRequest;
use crate::hall::{EventRequest, HallReply, HallRequest};
use crate::store::store_refusal;
use crate::{refuse, unix_now_ms, Refusal};

// A child of this module, so the director's game actions read the event records as these do.
#[path = "event_games.rs"]
mod event_games;
use event_games::lateness_limit_ms;

/// An event as the store keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct EventRecord {
    name: String,
    director: PlayerInfo,
    /// Every game's settings.
    settings: GameSettings,
    players_max: u32,
    /// Who may enter, by rank.
    #[serde(default)]
    ranks: Option<RankRange>,
    /// Who each entrant is (names and ranks as they entered).
    players: Vec<PlayerInfo>,
    event: Event,
    /// The game played on each board: `(round, board, game)`.
    games: Vec<(u32, u32, GameId)>,
    /// The director's warnings given during a game: `(game, user)`, one entry per warning.
    #[serde(default)]
    game_warnings: Vec<(GameId, UserId)>,
    log: Vec<EventLogEntry>,
    /// A team event's teams and boards (its core's entrants are the teams).
    #[serde(default)]
    teams: Option<TeamPlay>,
    /// When rounds start by themselves, round 1 first (see `EventSpec::round_starts_ms`).
    #[serde(default)]
    round_starts_ms: Vec<u64>,
}

/// What a line of an event's log concerns besides its user and round (see `EventLogEntry`).
#[derive(Debug, Default)]
pub(super) struct LogAbout {
    pub(super) game: Option<GameId>,
    pub(super) team: Option<TeamId>,
    pub(super) until_ms: Option<u64>,
    /// The director's reason.
    pub(super) reason: Option<String>,
}

impl LogAbout {
    pub(super) fn team(team: TeamId) -> LogAbout {
        LogAbout {
            team: Some(team),
            ..LogAbout::default()
        }
    }
}

/// One board of a round as the hall plays it, for individual and team events alike.
#[derive(Debug, Clone, Copy)]
struct BoardLine {
    board: u32,
    black: UserId,
    white: UserId,
    outcome: Option<EventOutcome>,
}

/// Where a live game of an event sits in it.
type BoardOf = (EventId, u32, u32);

/// The hall's events: each record, and which event board each of their games is.
#[derive(Debug, Default)]
pub(super) struct Events {
    records: BTreeMap<EventId, EventRecord>,
    boards: HashMap<GameId, BoardOf>,
}

impl Hall {
    /// Do what an event request asks.
    pub(super) async fn event_request(
        &mut self,
        request: EventRequest,
    ) -> Result<HallReply, Refusal> {
        let view = match request {
            EventRequest::CreateEvent { director, spec } => self.create_event(director, spec).await,
            EventRequest::JoinEvent { event, player } => self.join_event(event, player).await,
            EventRequest::LeaveEvent { event, user } => self.leave_event(event, user).await,
            EventRequest::StartRound { event, user } => self.start_round(event, user).await,
            EventRequest::GetEvent { event } => self.event_view(event),
            EventRequest::EventWithdraw {
                event,
                director,
                user,
            } => self.withdraw_entrant(event, director, user).await,
            EventRequest::EventWarn {
                event,
                director,
                user,
            } => self.warn_entrant(event, director, user).await,
            EventRequest::EventAdjudicate {
                event,
                director,
                game,
                outcome,
                reason,
            } => {
                self.adjudicate(event, director, game, (outcome, reason))
                    .await
            }
            EventRequest::CreateTeam {
                event,
                player,
                name,
            } => self.create_team(event, player, name).await,
            EventRequest::JoinTeam {
                event,
                player,
                team,
            } => self.join_team(event, player, team).await,
            EventRequest::SetLineUp {
                event,
                captain,
                players,
            } => self.set_line_up(event, captain, players).await,
            EventRequest::RoundDue { event, round } => {
                tracing::debug!(%event, round, "an event round's set time came");
                self.start_round_if_due(event).await;
                return Ok(HallReply::Done);
            }
            EventRequest::ListEvents { before } => {
                let events = self.event_list(before);
                return Ok(HallReply::Events { events });
            }
            EventRequest::EventGameDirected {
                event,
                director,
                game,
            } => return self.event_game_directed(event, director, game),
            EventRequest::GameLogged {
                game,
                action,
                user,
                until_ms,
            } => return self.event_game_logged(game, &action, user, until_ms).await,
        };
        view.map(|view| HallReply::Event {
            view: Box::new(view),
        })
    }

    /// Read every event from the store (a hall starting), and catch up on what happened meanwhile.
    pub(super) async fn load_events(&mut self) {
        let stored = match self.ctx.store.call(|store| store.events()).await {
            Ok(stored) => stored,
            Err(err) => {
                tracing::error!(%err, "could not read the events; the hall starts without them");
                return;
            }
        };
        for (id, json) in stored {
            match serde_json::from_str::<EventRecord>(&json) {
                Ok(record) => {
                    self.events.records.insert(id, record);
                }
                Err(err) => tracing::error!(event = %id, %err, "an unreadable event was skipped"),
            }
        }
        self.events.boards = board_index(&self.events.records);
        let ids: Vec<EventId> = self.events.records.keys().copied().collect();
        for id in ids {
            self.catch_up(id).await;
            self.schedule_next_round(id);
        }
    }

    /// A timer for the next round, if it has a set start time: when it comes, the hall hears
    /// `RoundDue` (through the handle games use, so scaled out it reaches whichever node has the
    /// hall then; a second hall's timer for the same round finds it paired and does nothing). One
    /// timer an event at a time: pairing a round sets the next one's.
    fn schedule_next_round(&self, id: EventId) {
        let Some(record) = self.events.records.get(&id) else {
            return;
        };
        let next = record.event.rounds().len();
        let Some(&at_ms) = record.round_starts_ms.get(next) else {
            return;
        };
        let round = next as u32 + 1;
        let delay = Duration::from_millis(at_ms.saturating_sub(unix_now_ms()));
        let (hall, shutdown) = (self.handle.clone(), self.ctx.shutdown.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(delay) => {
                    hall.send(HallRequest::Event(EventRequest::RoundDue { event: id, round })).await;
                }
                () = shutdown.wait() => {}
            }
        });
    }

    /// Start the next round if its set time has come and the round before is over.
    async fn start_round_if_due(&mut self, id: EventId) {
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
        if let Err(refusal) = self.pair_and_start(id, record, None).await {
            tracing::warn!(event = %id, round = next + 1, %refusal, "a round's set time came and it could not start");
        }
    }

    /// Results of the current round's games that ended while no hall listened, then games for the
    /// boards paired without one (a restart between pairing and starting them).
    async fn catch_up(&mut self, id: EventId) {
        let Some(record) = self.events.records.get(&id) else {
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
                self.event_game_ended(game, Some(outcome)).await;
            }
        }
        if let Err(refusal) = self.start_round_games(id).await {
            tracing::error!(event = %id, %refusal, "could not start an event round's games");
        }
    }

    /// A finished game's outcome from its log (its last event).
    async fn stored_outcome(&self, game: GameId) -> Option<GameOutcome> {
        if self.games.get_local(game).is_some() {
            return None;
        }
        let events = self
            .ctx
            .store
            .call(move |s| s.game_events(game))
            .await
            .ok()?;
        crate::store::logged_outcome(&events)
    }

    pub(super) async fn create_event(
        &mut self,
        director: PlayerInfo,
        spec: EventSpec,
    ) -> Result<EventView, Refusal> {
        let name = spec.name.trim().to_string();
        let name_chars = name.chars().count();
        if name_chars == 0
            || name_chars > EVENT_NAME_CHARS_MAX
            || name.chars().any(char::is_control)
        {
            return refuse(
                ErrorCode::InvalidSettings,
                format!("an event's name is 1 to {EVENT_NAME_CHARS_MAX} characters"),
            );
        }
        if self.events.records.len() >= EVENTS_MAX {
            return refuse(ErrorCode::Busy, "the hall holds as many events as it can");
        }
        let mut settings = spec.settings;
        settings.nigiri = false;
        settings.lateness_limit_ms = None;
        super::table::validate_settings(&settings)?;
        settings.lateness_limit_ms = Some(lateness_limit_ms(spec.lateness_limit_ms)?);
        settings.unrated = !spec.rated;
        let (teams, format) = match spec.teams {
            Some(rules) => {
                let (teams, format) = TeamPlay::new(rules, spec.format, spec.players_max)?;
                (Some(teams), format)
            }
            None => (None, spec.format),
        };
        let pairing = Settings {
            format,
            final_tie: spec.final_tie,
            seed: rand::rng().random(),
        };
        let event = Event::new(pairing, &[]).map_err(event_refusal)?;
        let ranks = entry_ranks(spec.ranks.as_ref())?;
        check_entrants_max(format, spec.players_max)?;
        let round_starts_ms = round_times(spec.round_starts_ms)?;
        let mut record = EventRecord {
            name,
            director: director.clone(),
            settings,
            players_max: spec.players_max,
            ranks: spec.ranks.clone().filter(|_| ranks.is_some()),
            players: Vec::new(),
            event,
            games: Vec::new(),
            game_warnings: Vec::new(),
            log: Vec::new(),
            teams,
            round_starts_ms,
        };
        record.note("created", Some(director.user), None);
        let json = record.json()?;
        let id = self
            .ctx
            .store
            .call(move |store| store.create_event(&json, unix_now_ms()))
            .await
            .map_err(|err| store_refusal(&err))?;
        let view = self.event_changed(id, &record);
        self.events.records.insert(id, record);
        self.schedule_next_round(id);
        Ok(view)
    }

    pub(super) async fn join_event(
        &mut self,
        id: EventId,
        player: PlayerInfo,
    ) -> Result<EventView, Refusal> {
        let mut record = self.event_record(id)?.clone();
        record.check_entry(&player)?;
        if record.teams.is_some() {
            return refuse(
                ErrorCode::InvalidSettings,
                "this is a team event: found a team (create_team) or join one (join_team)",
            );
        }
        if record.players.len() >= record.players_max as usize {
            return refuse(ErrorCode::EventFull, "the event is full");
        }
        if record.players.iter().any(|p| p.user == player.user) {
            return Ok(record.view(id));
        }
        record
            .event
            .enter(PlayerId(player.user.0))
            .map_err(event_refusal)?;
        record.note("joined", Some(player.user), None);
        record.players.push(player);
        self.save_event(id, record).await
    }

    pub(super) async fn leave_event(
        &mut self,
        id: EventId,
        user: UserId,
    ) -> Result<EventView, Refusal> {
        let mut record = self.event_record(id)?.clone();
        if !record.players.iter().any(|p| p.user == user) {
            return refuse(ErrorCode::NotEntered, "you are not entered in this event");
        }
        if !record.event.rounds().is_empty() {
            return refuse(
                ErrorCode::EventStarted,
                "the event has started: ask the director to withdraw you",
            );
        }
        let leaving = match &mut record.teams {
            // A team leaves the core only when its last player left it.
            Some(teams) => teams.leave(user).map(|team| PlayerId(team.0)),
            None => Some(PlayerId(user.0)),
        };
        if let Some(entrant) = leaving {
            record.event.leave(entrant).map_err(event_refusal)?;
        }
        record.players.retain(|p| p.user != user);
        record.note("left", Some(user), None);
        self.save_event(id, record).await
    }

    /// The director pairs the next round; its games start at once.
    pub(super) async fn start_round(
        &mut self,
        id: EventId,
        user: UserId,
    ) -> Result<EventView, Refusal> {
        let record = self.directed(id, user)?.clone();
        self.pair_and_start(id, record, Some(user)).await
    }

    /// Pair the next round of `record` and start its games; `by` is the director who asked (none:
    /// the round's set time came).
    async fn pair_and_start(
        &mut self,
        id: EventId,
        mut record: EventRecord,
        by: Option<UserId>,
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
        self.save_event(id, record).await?;
        self.schedule_next_round(id);
        self.start_round_games(id).await?;
        self.event_view(id)
    }

    /// The director withdraws an entrant; a game of theirs in play is lost by forfeit.
    pub(super) async fn withdraw_entrant(
        &mut self,
        id: EventId,
        director: UserId,
        user: UserId,
    ) -> Result<EventView, Refusal> {
        let mut record = self.directed(id, director)?.clone();
        record.withdraw(user)?;
        record.note("withdrew", Some(user), None);
        let in_play = record.game_in_play(user);
        self.save_then_forfeit(id, record, in_play).await
    }

    /// The director warns an entrant; a second warning in the same game loses it.
    pub(super) async fn warn_entrant(
        &mut self,
        id: EventId,
        director: UserId,
        user: UserId,
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
        self.save_then_warn_in_game(id, record, in_play, second.is_some())
            .await
    }

    /// Store a director's change; then, if it costs a player their game in play (`forfeit`: the
    /// game and the player's colour), end that game as lost by them.
    async fn save_then_forfeit(
        &mut self,
        id: EventId,
        record: EventRecord,
        forfeit: Option<(GameId, Color)>,
    ) -> Result<EventView, Refusal> {
        let view = self.save_event(id, record).await?;
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
        self.save_event(id, record).await?;
        self.decide_game(id, game, outcome).await?;
        self.event_view(id)
    }

    /// End an event game as decided; its end feeds the result into the event as any end does. The
    /// hall does not wait for the game's answer: the game tells the hall of its end through the
    /// hall's own inbox, which must never wait on a game that waits on it.
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
    fn directed(&self, id: EventId, user: UserId) -> Result<&EventRecord, Refusal> {
        let record = self.event_record(id)?;
        if record.director.user != user {
            return refuse(
                ErrorCode::NotDirector,
                "only the event's director may do that",
            );
        }
        Ok(record)
    }

    /// Start a game for every board of the current round that has none yet and no result.
    async fn start_round_games(&mut self, id: EventId) -> Result<(), Refusal> {
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
            let summary = self
                .start_game(None, black, white, settings, barred.clone())
                .await?;
            self.events.boards.insert(summary.game, (id, number, board));
            started.push((number, board, summary.game));
        }
        let mut record = self.event_record(id)?.clone();
        record.games.extend(started);
        self.save_event(id, record).await.map(|_| ())
    }

    /// A game restored after a restart (or listed by a new hall): if it is an event's, its entrants
    /// are barred from its pool again (the game does not keep that in its log).
    pub(super) fn event_game_restored(&self, game: GameId) {
        let Some(&(id, _, _)) = self.events.boards.get(&game) else {
            return;
        };
        let Some(record) = self.events.records.get(&id) else {
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
    pub(super) async fn event_game_ended(&mut self, game: GameId, outcome: Option<GameOutcome>) {
        let Some(&(id, round, board)) = self.events.boards.get(&game) else {
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
        if let Err(refusal) = self.save_event(id, record).await {
            // The game's log keeps the result: the next hall start takes it from there.
            tracing::error!(event = %id, %game, %refusal, "could not store an event result");
            return;
        }
        self.events.boards.remove(&game);
        // Only a relay lays out a board when a result comes in (its next game): scanning every
        // board of a large round for one without a game after each result is work for nothing.
        let relay = self
            .events
            .records
            .get(&id)
            .is_some_and(EventRecord::is_relay);
        if relay {
            if let Err(refusal) = self.start_round_games(id).await {
                tracing::error!(event = %id, %refusal, "could not start a relay's next game");
            }
        }
        // A round whose set time came while this one was in play.
        self.start_round_if_due(id).await;
    }

    pub(super) fn event_view(&self, id: EventId) -> Result<EventView, Refusal> {
        Ok(self.event_record(id)?.view(id))
    }

    /// A page of the hall's events, newest first: those created before `before`, if given.
    pub(super) fn event_list(&self, before: Option<EventId>) -> Vec<EventSummary> {
        let older = match before {
            Some(before) => self.events.records.range(..before),
            None => self.events.records.range(..),
        };
        older
            .rev()
            .take(EVENT_LIST_PAGE)
            .map(|(&id, record)| record.summary(id))
            .collect()
    }

    pub(super) fn event_record(&self, id: EventId) -> Result<&EventRecord, Refusal> {
        self.events
            .records
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchEvent, format!("no event {id}")))
    }

    /// Store a changed record, then take it and tell everyone concerned.
    pub(super) async fn save_event(
        &mut self,
        id: EventId,
        record: EventRecord,
    ) -> Result<EventView, Refusal> {
        let json = record.json()?;
        self.ctx
            .store
            .call(move |store| store.save_event(id, &json))
            .await
            .map_err(|err| store_refusal(&err))?;
        let view = self.event_changed(id, &record);
        self.events.records.insert(id, record);
        Ok(view)
    }

    /// The events `user` entered, newest first, each with their placing: their place in an
    /// individual event's standings once round 1 is paired (a team event ranks teams, so none).
    pub(super) fn placings(&self, user: UserId) -> Vec<EventPlacing> {
        self.events
            .records
            .iter()
            .rev()
            .filter(|(_, record)| record.players.iter().any(|p| p.user == user))
            .map(|(&id, record)| {
                let summary = record.summary(id);
                let place = match (&record.teams, summary.status) {
                    (Some(_), _) | (None, EventStatus::Open) => None,
                    (None, _) => record
                        .event
                        .standings()
                        .rows
                        .iter()
                        .find(|row| row.player.0 == user.0)
                        .map(|row| row.rank),
                };
                EventPlacing {
                    event: id,
                    name: summary.name,
                    status: summary.status,
                    place,
                    entrants_count: summary.entrants_count,
                }
            })
            .collect()
    }

    /// A player's new listing in the events they entered or direct (kept in memory: the stored
    /// record takes it at its next save), each event's new state pushed.
    pub(super) fn relist_entrant(&mut self, player: &PlayerInfo) {
        let mut changed = Vec::new();
        for (&id, record) in self.events.records.iter_mut() {
            let entries = record.players.iter_mut().chain([&mut record.director]);
            let mut listed = false;
            for entry in entries.filter(|entry| entry.user == player.user) {
                *entry = player.clone();
                listed = true;
            }
            if listed {
                changed.push(id);
            }
        }
        for id in changed {
            if let Some(record) = self.events.records.get(&id) {
                self.event_changed(id, record);
            }
        }
    }

    /// Push an event's new state: its line to the hall, the whole view to its director and entrants.
    fn event_changed(&self, id: EventId, record: &EventRecord) -> EventView {
        let view = record.view(id);
        self.publish(
            hall_audience(),
            &ServerMsg::EventListed {
                event: view.summary.clone(),
            },
        );
        let frame: crate::Frame = ServerMsg::Event {
            id: None,
            event: Box::new(view.clone()),
        }
        .to_json()
        .into();
        let mut users: Vec<UserId> = record.players.iter().map(|p| p.user).collect();
        users.push(record.director.user);
        users.sort();
        users.dedup();
        for user in users {
            self.publish_text(users_audience([Some(user), None]), frame.clone(), None);
        }
        view
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

/// A game's outcome as the event scores it: a void game (nobody played, or both absent) is lost by
/// both players, as the rules score a game both players missed.
fn event_outcome(outcome: &GameOutcome) -> EventOutcome {
    match (outcome.winner, outcome.reason) {
        (Some(Color::Black), _) => EventOutcome::BlackWins,
        (Some(Color::White), _) => EventOutcome::WhiteWins,
        (None, EndReason::Void) => EventOutcome::BothLose,
        (None, _) => EventOutcome::Draw,
    }
}

/// An event's entry range as rank indexes (weakest, strongest), checked.
fn entry_ranks(ranks: Option<&RankRange>) -> Result<Option<(i32, i32)>, Refusal> {
    let Some(range) = ranks else {
        return Ok(None);
    };
    let parse = |text: &str| {
        crate::rating::parse_rank(text).ok_or_else(|| {
            Refusal::new(
                ErrorCode::InvalidSettings,
                format!("{text:?} is not a rank (30k to 1k, 1d to 9d)"),
            )
        })
    };
    let (weakest, strongest) = (parse(&range.weakest)?, parse(&range.strongest)?);
    if weakest > strongest {
        return refuse(
            ErrorCode::InvalidSettings,
            "the weakest rank of the entry range is above its strongest",
        );
    }
    Ok(Some((weakest, strongest)))
}

/// The most entrants (players, or teams in a team event) an event of `format` may set.
fn check_entrants_max(format: tengen_pairing::Format, players_max: u32) -> Result<(), Refusal> {
    let most = match format {
        tengen_pairing::Format::Match { .. } => 2,
        _ => tengen_pairing::MAX_ENTRANTS as u32,
    };
    if !(2..=most).contains(&players_max) {
        return refuse(
            ErrorCode::InvalidSettings,
            format!("this event takes 2 to {most} entrants"),
        );
    }
    Ok(())
}

/// An event's set round times, checked: in order, at most one per round.
fn round_times(times: Vec<u64>) -> Result<Vec<u64>, Refusal> {
    if times.len() > EVENT_ROUND_TIMES_MAX
        || times.windows(2).any(|w| matches!(w, [a, b] if a >= b))
    {
        return refuse(
            ErrorCode::InvalidSettings,
            format!("round start times come in order, at most {EVENT_ROUND_TIMES_MAX} of them"),
        );
    }
    Ok(times)
}

/// The outcome in which `colour` loses.
fn loss_of(colour: Color) -> EventOutcome {
    match colour {
        Color::Black => EventOutcome::WhiteWins,
        Color::White => EventOutcome::BlackWins,
    }
}

fn event_refusal(err: EventError) -> Refusal {
    let code = match err {
        EventError::Started => ErrorCode::EventStarted,
        EventError::Over => ErrorCode::EventOver,
        EventError::RoundUnfinished { .. } => ErrorCode::RoundInPlay,
        EventError::NotEntered(_) => ErrorCode::NotEntered,
        EventError::TooManyPlayers { .. } => ErrorCode::EventFull,
        EventError::TooFewPlayers { .. } | EventError::InvalidFormat(_) => {
            ErrorCode::InvalidSettings
        }
        _ => ErrorCode::BadMessage,
    };
    Refusal::new(code, err.to_string())
}

impl EventRecord {
    fn json(&self) -> Result<String, Refusal> {
        serde_json::to_string(self).map_err(|err| {
            tracing::error!(%err, "an event record did not serialize");
            Refusal::new(
                ErrorCode::Internal,
                "the server could not do that; nothing changed",
            )
        })
    }

    fn note(&mut self, action: &str, user: Option<UserId>, round: Option<u32>) {
        self.note_with(action, user, round, LogAbout::default());
    }

    /// A line in the log with what it concerns beyond a user and a round.
    pub(super) fn note_with(
        &mut self,
        action: &str,
        user: Option<UserId>,
        round: Option<u32>,
        about: LogAbout,
    ) {
        if self.log.len() >= EVENT_LOG_MAX {
            return;
        }
        self.log.push(EventLogEntry {
            at_ms: unix_now_ms(),
            action: action.to_string(),
            user,
            round,
            detail: about.reason,
            game: about.game,
            team: about.team,
            until_ms: about.until_ms,
        });
    }

    /// The game `user` plays now in the round in play (no result yet), and their colour in it.
    fn game_in_play(&self, user: UserId) -> Option<(GameId, Color)> {
        let round = self.event.rounds().last()?.number;
        let line = self
            .round_lines(round)
            .into_iter()
            .filter(|line| line.outcome.is_none())
            .find(|line| line.black == user || line.white == user)?;
        let colour = if line.black == user {
            Color::Black
        } else {
            Color::White
        };
        Some((self.game_of(round, line.board)?, colour))
    }

    /// Where `game` is in the round in play.
    fn board_in_play(&self, game: GameId) -> Option<(u32, u32)> {
        let round = self.event.rounds().last()?;
        let &(_, board, _) = self
            .games
            .iter()
            .find(|&&(r, _, g)| r == round.number && g == game)?;
        self.outcome(round.number, board)
            .is_none()
            .then_some((round.number, board))
    }

    /// Before round 1: the entrants in seeding order, strongest (highest rating) first, those of
    /// equal rating in the order they entered; warnings given meanwhile are kept.
    /// A team event seeds its teams (see `TeamPlay::prepare_round_one`).
    fn seed_by_strength(&mut self) -> Result<(), Refusal> {
        self.players
            .sort_by_key(|player| std::cmp::Reverse(player.rating));
        let seeded: Vec<PlayerId> = match &mut self.teams {
            Some(teams) => teams
                .prepare_round_one(&self.players)?
                .into_iter()
                .map(|team| PlayerId(team.0))
                .collect(),
            None => self.players.iter().map(|p| PlayerId(p.user.0)).collect(),
        };
        let warnings: Vec<(PlayerId, u32)> = self
            .event
            .entrants()
            .iter()
            .map(|entrant| (entrant.player, entrant.warnings))
            .collect();
        let mut event = Event::new(*self.event.settings(), &seeded).map_err(event_refusal)?;
        for (player, count) in warnings {
            for _ in 0..count {
                event.warn(player).map_err(event_refusal)?;
            }
        }
        self.event = event;
        Ok(())
    }

    /// Every entrant's account: none of them may bet on the event's games.
    fn entrant_ids(&self) -> Vec<UserId> {
        self.players.iter().map(|p| p.user).collect()
    }

    fn player(&self, id: PlayerId) -> Option<PlayerInfo> {
        self.players.iter().find(|p| p.user.0 == id.0).cloned()
    }

    fn game_of(&self, round: u32, board: u32) -> Option<GameId> {
        self.games
            .iter()
            .find(|&&(r, b, _)| (r, b) == (round, board))
            .map(|&(_, _, game)| game)
    }

    /// The boards of a round: the core's games, or a team event's boards of every match.
    fn round_lines(&self, round: u32) -> Vec<BoardLine> {
        if let Some(teams) = &self.teams {
            return teams
                .round_boards(round)
                .map(|b| BoardLine {
                    board: b.board,
                    black: b.black,
                    white: b.white,
                    outcome: b.outcome,
                })
                .collect();
        }
        let Some(round) = self.event.rounds().iter().find(|r| r.number == round) else {
            return Vec::new();
        };
        round
            .games
            .iter()
            .map(|g| BoardLine {
                board: g.table,
                black: UserId(g.black.0),
                white: UserId(g.white.0),
                outcome: g.outcome,
            })
            .collect()
    }

    fn line(&self, round: u32, board: u32) -> Option<BoardLine> {
        self.round_lines(round)
            .into_iter()
            .find(|line| line.board == board)
    }

    fn outcome(&self, round: u32, board: u32) -> Option<EventOutcome> {
        self.line(round, board)?.outcome
    }

    /// A board's result; in a team event the match's too, once it is decided.
    fn record_board(
        &mut self,
        round: u32,
        board: u32,
        outcome: EventOutcome,
    ) -> Result<(), EventError> {
        let Some(teams) = &mut self.teams else {
            return self.event.record(round, board, outcome);
        };
        if let Some(existing) = teams.board(round, board).and_then(|b| b.outcome) {
            return Err(EventError::AlreadyRecorded {
                round,
                table: board,
                existing,
            });
        }
        match teams.record(round, board, outcome) {
            Some((table, decided)) => self.event.record(round, table, decided),
            None => Ok(()),
        }
    }

    fn status(&self) -> EventStatus {
        match self.event.rounds().last() {
            None => EventStatus::Open,
            Some(_) if self.event.is_over() => EventStatus::Finished,
            Some(round) if round.missing() > 0 => EventStatus::Playing,
            Some(_) => EventStatus::BetweenRounds,
        }
    }

    fn summary(&self, id: EventId) -> EventSummary {
        EventSummary {
            event: id,
            name: self.name.clone(),
            director: self.director.clone(),
            format: self.event.settings().format,
            ranks: self.ranks.clone(),
            status: self.status(),
            entrants_count: match &self.teams {
                Some(teams) => teams.teams_count() as u32,
                None => self.players.len() as u32,
            },
            players_max: self.players_max,
            rounds_count: self.event.rounds().len() as u32,
            teams: self.teams.as_ref().map(|t| t.rules),
        }
    }

    fn view(&self, id: EventId) -> EventView {
        let user = |p: &PlayerId| UserId(p.0);
        let rounds = self
            .event
            .rounds()
            .iter()
            .map(|round| EventRound {
                number: round.number,
                boards: self
                    .round_lines(round.number)
                    .into_iter()
                    .map(|line| EventBoard {
                        board: line.board,
                        black: line.black,
                        white: line.white,
                        game: self.game_of(round.number, line.board),
                        outcome: line.outcome,
                    })
                    .collect(),
                byes: round.byes.iter().map(user).collect(),
                resting: round.resting.iter().map(user).collect(),
            })
            .collect();
        let teams = self.teams.as_ref().map(|t| t.view(&self.event));
        EventView {
            summary: self.summary(id),
            final_tie: self.event.settings().final_tie,
            settings: self.settings,
            entrants: self.entrants(),
            rounds,
            standings: self.event.standings(),
            winner: self
                .event
                .winner()
                .map(|p| user(&p))
                .filter(|_| teams.is_none()),
            log: self.log.clone(),
            teams,
        }
    }

    /// The entrants as the event shows them: a team event's every player (warnings given in its
    /// games), in the teams' order.
    fn entrants(&self) -> Vec<EventEntrant> {
        if self.teams.is_some() {
            return self
                .players
                .iter()
                .map(|player| EventEntrant {
                    player: player.clone(),
                    warnings: self
                        .game_warnings
                        .iter()
                        .filter(|(_, u)| *u == player.user)
                        .count() as u32,
                    withdrawn: false,
                })
                .collect();
        }
        self.event
            .entrants()
            .iter()
            .filter_map(|entrant| {
                Some(EventEntrant {
                    player: self.player(entrant.player)?,
                    warnings: entrant.warnings,
                    withdrawn: entrant.withdrawn.is_some(),
                })
            })
            .collect()
    }

    /// Withdraw `user`: before round 1 they leave (their team, in a team event); later they are
    /// paired no more (see the pairing core), in a team event their games from then are forfeits.
    fn withdraw(&mut self, user: UserId) -> Result<(), Refusal> {
        let started = !self.event.rounds().is_empty();
        match &mut self.teams {
            Some(teams) if started => return teams.withdraw(user),
            Some(teams) if !teams.has_player(user) => {
                return refuse(
                    ErrorCode::NotEntered,
                    "that player is in no team of this event",
                )
            }
            Some(teams) => {
                if let Some(team) = teams.leave(user) {
                    self.event.leave(PlayerId(team.0)).map_err(event_refusal)?;
                }
            }
            None => self
                .event
                .withdraw(PlayerId(user.0))
                .map_err(event_refusal)?,
        }
        if !started {
            self.players.retain(|p| p.user != user);
        }
        Ok(())
    }

    /// A warning for `user` in the standings: the core counts an individual event's (fewer rank
    /// higher in a tie); a team event's ranking has no such figure, so there it only needs the
    /// player to be in a team (the warning then counts in their game).
    fn count_warning(&mut self, user: UserId) -> Result<(), Refusal> {
        match &self.teams {
            Some(teams) if teams.has_player(user) => Ok(()),
            Some(_) => refuse(
                ErrorCode::NotEntered,
                "that player is in no team of this event",
            ),
            None => self.event.warn(PlayerId(user.0)).map_err(event_refusal),
        }
    }

    /// Whether `player` may enter now: the event open, their rank in its range.
    pub(super) fn check_entry(&self, player: &PlayerInfo) -> Result<(), Refusal> {
        if !self.event.rounds().is_empty() {
            return refuse(
                ErrorCode::EventStarted,
                "the event has started: entries are closed",
            );
        }
        if let Some(range) = entry_ranks(self.ranks.as_ref())? {
            if !crate::rating::within_ranks(player.rating, range) {
                return refuse(
                    ErrorCode::RankOutOfRange,
                    format!(
                        "your rank {} is outside this event's entry range",
                        player.rank
                    ),
                );
            }
        }
        Ok(())
    }

    fn is_relay(&self) -> bool {
        self.teams
            .as_ref()
            .is_some_and(|t| t.rules.line_up == tengen_protocol::LineUp::Relay)
    }

    pub(super) fn team_play(&self) -> Option<&TeamPlay> {
        self.teams.as_ref()
    }

    pub(super) fn teams_mut(&mut self) -> Result<&mut TeamPlay, Refusal> {
        self.teams.as_mut().ok_or_else(|| {
            Refusal::new(
                ErrorCode::InvalidSettings,
                "this is not a team event: join it as a player",
            )
        })
    }

    pub(super) fn teams_max(&self) -> usize {
        self.players_max as usize
    }

    /// A new team enters the core, with its founder as its first player.
    pub(super) fn enter_team(&mut self, team: TeamId, founder: PlayerInfo) -> Result<(), Refusal> {
        self.event.enter(PlayerId(team.0)).map_err(event_refusal)?;
        self.add_player(founder);
        Ok(())
    }

    pub(super) fn add_player(&mut self, player: PlayerInfo) {
        self.players.push(player);
    }

    pub(super) fn is_over(&self) -> bool {
        self.event.is_over()
    }
}
