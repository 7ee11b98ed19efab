//! Competitions (比赛): a player creates an event and directs it, players enter and leave until
//! round 1, the director starts each round, whose games start at once with the pairing's colours,
//! and each game's result feeds the event the moment the game ends. The pairing, results and
//! standings are `tengen-pairing`'s; this module keeps each event's record (the pairing core's
//! `Event` plus who the players are, which game each board is, and the log) durable in the store
//! before anyone hears of a change, and rebuilds it when a hall starts, after a restart or on
//! another node: a board whose game ended while nobody listened takes its result from the game's
//! log, and a paired board without a game gets one.
//!
//! [`Competitions`] owns every event and runs inside the hall's actor, which hands it each
//! [`EventRequest`] and each game's end, and asks it for a player's placings. What it needs of the
//! hall (a game started, a frame pushed, a round's timer heard) it asks through [`Venue`], which
//! the hall implements; it never names the hall. The work is split by subject: `record` (an
//! event's stored record and the pure rules over it), `entries` (creating, entering, leaving),
//! `rounds` (pairing, starting the games, results, catching up after a restart), `director` (the
//! director's withdrawals, warnings and decisions), `event_games` (the director's actions inside
//! a game) and `teams` (team events).

mod director;
mod entries;
mod event_games;
mod record;
mod request;
mod rounds;
mod teams;
mod venue;

pub use request::{EventReply, EventRequest};
pub use venue::Venue;

use std::collections::{BTreeMap, HashMap};

use tengen_protocol::{
    ErrorCode, EventId, EventPlacing, EventStatus, EventSummary, EventView, EventsServerMsg,
    GameId, PlayerInfo, ServerMsg, UserId,
};

use crate::config::EVENT_LIST_PAGE;
use crate::game::Games;
use crate::store::{store_refusal, StoreHandle};
use crate::{Refusal, Shutdown};
use record::{BoardOf, EventRecord};

/// Every competition: each event's record, which event board each of their live games is, and
/// the services they use.
#[derive(Debug)]
pub struct Competitions {
    records: BTreeMap<EventId, EventRecord>,
    boards: HashMap<GameId, BoardOf>,
    store: StoreHandle,
    games: Games,
    /// Ends the round timers.
    shutdown: Shutdown,
}

impl Competitions {
    /// No events yet: [`Competitions::load`] reads them from the store.
    pub fn new(store: StoreHandle, games: Games, shutdown: Shutdown) -> Competitions {
        Competitions {
            records: BTreeMap::new(),
            boards: HashMap::new(),
            store,
            games,
            shutdown,
        }
    }

    /// Do what an event request asks.
    pub async fn request(
        &mut self,
        request: EventRequest,
        venue: &mut dyn Venue,
    ) -> Result<EventReply, Refusal> {
        let view = match request {
            EventRequest::CreateEvent { director, spec } => {
                self.create_event(director, spec, venue).await
            }
            EventRequest::JoinEvent { event, player } => {
                self.join_event(event, player, venue).await
            }
            EventRequest::LeaveEvent { event, user } => self.leave_event(event, user, venue).await,
            EventRequest::StartRound { event, user } => self.start_round(event, user, venue).await,
            EventRequest::GetEvent { event } => self.event_view(event),
            EventRequest::EventWithdraw {
                event,
                director,
                user,
            } => self.withdraw_entrant(event, director, user, venue).await,
            EventRequest::EventWarn {
                event,
                director,
                user,
            } => self.warn_entrant(event, director, user, venue).await,
            EventRequest::EventAdjudicate {
                event,
                director,
                game,
                outcome,
                reason,
            } => {
                self.adjudicate(event, director, game, (outcome, reason), venue)
                    .await
            }
            EventRequest::CreateTeam {
                event,
                player,
                name,
            } => self.create_team(event, player, name, venue).await,
            EventRequest::JoinTeam {
                event,
                player,
                team,
            } => self.join_team(event, player, team, venue).await,
            EventRequest::SetLineUp {
                event,
                captain,
                players,
            } => self.set_line_up(event, captain, players, venue).await,
            EventRequest::RoundDue { event, round } => {
                tracing::debug!(%event, round, "an event round's set time came");
                self.start_round_if_due(event, venue).await;
                return Ok(EventReply::Done);
            }
            EventRequest::ListEvents { before } => {
                return Ok(EventReply::Events(self.event_list(before)));
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
            } => {
                return self
                    .event_game_logged(game, &action, user, until_ms, venue)
                    .await
            }
        };
        view.map(|view| EventReply::Event(Box::new(view)))
    }

    fn event_view(&self, id: EventId) -> Result<EventView, Refusal> {
        Ok(self.event_record(id)?.view(id))
    }

    /// A page of the events, newest first: those created before `before`, if given.
    fn event_list(&self, before: Option<EventId>) -> Vec<EventSummary> {
        let older = match before {
            Some(before) => self.records.range(..before),
            None => self.records.range(..),
        };
        older
            .rev()
            .take(EVENT_LIST_PAGE)
            .map(|(&id, record)| record.summary(id))
            .collect()
    }

    fn event_record(&self, id: EventId) -> Result<&EventRecord, Refusal> {
        self.records
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchEvent, format!("no event {id}")))
    }

    /// Store a changed record, then take it and tell everyone concerned.
    async fn save_event(
        &mut self,
        id: EventId,
        record: EventRecord,
        venue: &mut dyn Venue,
    ) -> Result<EventView, Refusal> {
        let json = record.json()?;
        self.store
            .call(move |store| store.save_event(id, &json))
            .await
            .map_err(|err| store_refusal(&err))?;
        let view = event_changed(id, &record, venue);
        self.records.insert(id, record);
        Ok(view)
    }

    /// The events `user` entered, newest first, each with their placing: their place in an
    /// individual event's standings once round 1 is paired (a team event ranks teams, so none).
    pub fn placings(&self, user: UserId) -> Vec<EventPlacing> {
        self.records
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

    /// A player's new listing in the events they entered or direct: each such event is saved with
    /// it, so an event read back after a restart shows the rank its entrants have now, and its new
    /// state is pushed. A save that fails leaves the listing in memory for the event's next save.
    pub async fn relist_entrant(&mut self, player: &PlayerInfo, venue: &mut dyn Venue) {
        let mut changed = Vec::new();
        for (&id, record) in self.records.iter_mut() {
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
            let Some(record) = self.records.get(&id).cloned() else {
                continue;
            };
            if let Err(refusal) = self.save_event(id, record, venue).await {
                tracing::warn!(event = %id, %refusal, "an entrant's new listing was not saved");
                if let Some(record) = self.records.get(&id) {
                    event_changed(id, record, venue);
                }
            }
        }
    }
}

/// Push an event's new state: its line to the hall, the whole view to its director and entrants.
fn event_changed(id: EventId, record: &EventRecord, venue: &dyn Venue) -> EventView {
    let view = record.view(id);
    venue.push_to_hall(
        &EventsServerMsg::EventListed {
            event: view.summary.clone(),
        }
        .into(),
    );
    let frame: crate::Frame = ServerMsg::Events(EventsServerMsg::Event {
        id: None,
        event: Box::new(view.clone()),
    })
    .to_json()
    .into();
    let mut users: Vec<UserId> = record.players.iter().map(|p| p.user).collect();
    users.push(record.director.user);
    users.sort();
    users.dedup();
    for user in users {
        venue.push_to_user(user, frame.clone());
    }
    view
}

#[cfg(test)]
mod competitions_tests;
