//! Entering competitions: a player creates an event (its spec checked: name, settings, format,
//! entry ranks, number of entrants, round times) and directs it; players enter and leave an
//! individual event until round 1 (team events' entries are `teams`').

use rand::Rng;
use tengen_pairing::{Event, PlayerId, Settings};
use tengen_protocol::{ErrorCode, EventId, EventSpec, EventView, PlayerInfo, UserId};

use super::event_games::lateness_limit_ms;
use super::record::{entry_ranks, event_refusal, EventRecord};
use super::teams::TeamPlay;
use super::{event_changed, Competitions, Venue};
use crate::config::{EVENTS_MAX, EVENT_NAME_CHARS_MAX, EVENT_ROUND_TIMES_MAX};
use crate::game::wire::validate_settings;
use crate::store::store_refusal;
use crate::{refuse, unix_now_ms, Refusal};

impl Competitions {
    /// A player creates an event, which they direct.
    pub(super) async fn create_event(
        &mut self,
        director: PlayerInfo,
        spec: EventSpec,
        venue: &mut dyn Venue,
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
        if self.records.len() >= EVENTS_MAX {
            return refuse(ErrorCode::Busy, "the hall holds as many events as it can");
        }
        let mut settings = spec.settings;
        settings.nigiri = false;
        settings.lateness_limit_ms = None;
        validate_settings(&settings)?;
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
            .store
            .call(move |store| store.create_event(&json, unix_now_ms()))
            .await
            .map_err(|err| store_refusal(&err))?;
        let view = event_changed(id, &record, venue);
        self.records.insert(id, record);
        self.schedule_next_round(id, venue);
        Ok(view)
    }

    /// A player enters an individual event before round 1.
    pub(super) async fn join_event(
        &mut self,
        id: EventId,
        player: PlayerInfo,
        venue: &mut dyn Venue,
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
        self.save_event(id, record, venue).await
    }

    /// An entrant leaves before round 1 (later, only the director withdraws them).
    pub(super) async fn leave_event(
        &mut self,
        id: EventId,
        user: UserId,
        venue: &mut dyn Venue,
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
        self.save_event(id, record, venue).await
    }
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
