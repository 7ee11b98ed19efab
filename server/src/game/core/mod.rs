//! A live game's pure state, apart from the actor that runs it: the rules' `Game`, both players'
//! clock as a value, the scoring phase, the pending undo request and the record's undo notes, who
//! is away since when, an event's rules (lateness, warnings, a pause or adjournment), the `seq` of
//! the last recorded event and the outcome. Time is always passed in (game time, in ms); nothing
//! here awaits, stores or sends, so the same state can be checked, cloned as a checkpoint before a
//! step, and rebuilt from the log.

mod apply;
mod deadlines;
mod decide;
mod event_rules;
mod log;
mod scoring;
mod undo;

pub(in crate::game) use decide::Command;
pub(in crate::game) use event_rules::EventRules;
pub(in crate::game) use log::{KeyRecord, LoggedEvent, Sealed};

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use tengen_protocol::{ErrorCode, GameOutcome, GameSettings, Point};
use tengen_rules::{Color, Game};

use crate::clock::Clock;
use crate::config::GameTiming;
use crate::game::wire;
use crate::Refusal;

/// The dead-stone marking and acceptances of the scoring phase.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::game) struct Scoring {
    pub(in crate::game) dead: BTreeSet<Point>,
    pub(in crate::game) accepted: [bool; 2],
}

/// Everything a live game is, besides who follows it and the money on it.
#[derive(Debug, Clone)]
pub(in crate::game) struct GameCore {
    pub(in crate::game) settings: GameSettings,
    /// The limits besides the players' clocks (no-show, escape grace, scoring phase).
    pub(in crate::game) timing: GameTiming,
    pub(in crate::game) game: Game,
    /// Both players' time; `None` for an untimed game.
    pub(in crate::game) clock: Option<Clock>,
    /// The `seq` of the last recorded event.
    pub(in crate::game) seq: u64,
    pub(in crate::game) scoring: Option<Scoring>,
    /// When the scoring phase is accepted for both (game time).
    pub(in crate::game) scoring_deadline_ms: Option<u64>,
    pub(in crate::game) outcome: Option<GameOutcome>,
    /// A pending undo request, by the player who asked.
    pub(in crate::game) undo_request: Option<Color>,
    /// Accepted undos, for the record's comment; at most [`UNDO_NOTES_MAX`].
    pub(in crate::game) undo_notes: Vec<String>,
    /// Since when (game time) each player has been away, announced with `player_left`.
    pub(in crate::game) away_since_ms: [Option<u64>; 2],
    /// An event's game: lateness, warnings, a pause or adjournment.
    pub(in crate::game) rules: EventRules,
}

/// Accepted undos the record's comment lists. A real game has a handful; a pair taking moves back
/// and forth for ever would otherwise grow the record without bound. Later undos are still in the
/// event log.
pub(in crate::game) const UNDO_NOTES_MAX: usize = 50;

impl GameCore {
    /// A new game's state at game time 0: `game` as set up, the first mover's clock running.
    pub(in crate::game) fn start(
        settings: GameSettings,
        timing: GameTiming,
        game: Game,
    ) -> Result<GameCore, Refusal> {
        let clock = match wire::clock_settings(&settings.clock)? {
            Some(clock_settings) => {
                let mut clock = Clock::new(clock_settings)
                    .map_err(|err| Refusal::new(ErrorCode::InvalidSettings, err.to_string()))?;
                // A fresh clock always starts; the first mover's time runs from game time 0.
                let started = clock.start(0, game.to_move());
                assert!(started.is_ok(), "a new clock starts: {started:?}");
                Some(clock)
            }
            None => None,
        };
        Ok(GameCore {
            rules: EventRules::new(settings.lateness_limit_ms),
            settings,
            timing,
            game,
            clock,
            seq: 0,
            scoring: None,
            scoring_deadline_ms: None,
            outcome: None,
            undo_request: None,
            undo_notes: Vec::new(),
            away_since_ms: [None, None],
        })
    }

    /// A game rebuilt from its stored log: a new game's state with every event applied in order,
    /// by the same `apply` as live play. Refused at the first event that does not replay.
    pub(in crate::game) fn replayed(
        settings: GameSettings,
        timing: GameTiming,
        game: Game,
        log: &[(u64, LoggedEvent)],
    ) -> Result<GameCore, Refusal> {
        let mut core = GameCore::start(settings, timing, game)?;
        for (seq, logged) in log {
            core.apply(*seq, logged).map_err(|refusal| {
                Refusal::new(
                    refusal.code,
                    format!("event {seq} does not replay: {}", refusal.message),
                )
            })?;
        }
        Ok(core)
    }
}
