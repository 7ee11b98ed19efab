//! An event as plain data: its settings, its entrants in seeding order, and its rounds with their games
//! and results. The server stores it as it is (it serializes with serde and is checked again when read
//! back), feeds results in one at a time, and asks for the next round; everything else (who is still
//! in, the standings) is computed from this data, so nothing here can drift out of step with it.
//!
//! Entrants are listed strongest first (by rank, then rating, as the server decides): that order is the
//! seeding of a knockout bracket, the Berger numbers of a round robin and the first Swiss pairing.
//! Randomness (nigiri, lots) comes only from the seed in the settings, so the same event, stored and
//! read back on another node, pairs and ranks exactly the same.

use crate::error::EventError;
use crate::format::{self, Format};
use crate::standings::{self, Standings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// At most this many entrants in one event: the Swiss pairer checks pairings with an O(n³) matching up
/// to n times per round, which stays in milliseconds at this size; larger fields are split into groups.
pub const MAX_ENTRANTS: usize = 512;
/// At most this many rounds in a Swiss or knockout event (and games between two players in a multiple
/// round robin), so a stored event stays small and a mistyped number cannot schedule a year of play.
pub const MAX_ROUNDS: u32 = 64;

/// A player as the server knows them (its account id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub u64);

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How a game ended, as far as the event is concerned. A forfeit (lateness past the limit, a second
/// warning) is an ordinary win or loss here; both players forfeiting is `BothLose`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventOutcome {
    BlackWins,
    WhiteWins,
    Draw,
    BothLose,
}

/// One game of a round: its table (from 1), the players with their colours, and the result once known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub table: u32,
    pub black: PlayerId,
    pub white: PlayerId,
    pub outcome: Option<EventOutcome>,
}

/// One round: its number (from 1), its games, the players given a bye (scored as a win), and the
/// players who sit out without a score (the odd player of a round robin's Berger round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub number: u32,
    pub games: Vec<Game>,
    pub byes: Vec<PlayerId>,
    pub resting: Vec<PlayerId>,
}

impl Round {
    /// How many games still wait for a result.
    pub fn missing(&self) -> usize {
        self.games.iter().filter(|g| g.outcome.is_none()).count()
    }
}

/// A player who left the event: after which round, and whether their results were voided (a round
/// robin left before playing half of one's games, docs/competitions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Withdrawal {
    pub after_round: u32,
    pub results_void: bool,
}

/// An entrant: the player, the director's warnings so far (a tie-break: fewer is better) and a
/// withdrawal if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub player: PlayerId,
    pub warnings: u32,
    pub withdrawn: Option<Withdrawal>,
}

/// What decides a tie that every figure leaves standing (docs/competitions.md: "a tie stands or is broken by a
/// play-off or a draw of lots, as the event says").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalTie {
    /// Tied players share the rank.
    #[default]
    Stands,
    /// Tied players share the rank and are marked for a play-off the director arranges.
    PlayOff,
    /// Lots drawn from the event's seed order the tied players.
    Lots,
}

/// Everything set when the event is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub format: Format,
    pub final_tie: FinalTie,
    /// The seed of every lot the event draws (nigiri, lots for ties); the server draws it once.
    pub seed: u64,
}

/// An event: settings, entrants in seeding order, and rounds so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "EventRecord")]
pub struct Event {
    settings: Settings,
    entrants: Vec<Entrant>,
    rounds: Vec<Round>,
}

/// The stored form of an event, checked by [`Event::try_from`] before it is used.
#[derive(Debug, Deserialize)]
struct EventRecord {
    settings: Settings,
    entrants: Vec<Entrant>,
    rounds: Vec<Round>,
}

impl TryFrom<EventRecord> for Event {
    type Error = EventError;
    fn try_from(record: EventRecord) -> Result<Event, EventError> {
        let event = Event {
            settings: record.settings,
            entrants: record.entrants,
            rounds: record.rounds,
        };
        event.check()?;
        Ok(event)
    }
}

impl Event {
    /// A new event with `players` entered in seeding order (strongest first); more may enter, or
    /// leave, until round 1 is paired, which needs the format's minimum.
    pub fn new(settings: Settings, players: &[PlayerId]) -> Result<Event, EventError> {
        settings.format.validate()?;
        let event = Event {
            settings,
            entrants: players
                .iter()
                .map(|&player| Entrant {
                    player,
                    warnings: 0,
                    withdrawn: None,
                })
                .collect(),
            rounds: Vec::new(),
        };
        event.check_entries(false)?;
        Ok(event)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// Where `player` stands in the seeding order, if entered.
    pub fn seed_of(&self, player: PlayerId) -> Option<usize> {
        self.entrants.iter().position(|e| e.player == player)
    }

    /// Enters `player` last in the seeding order, before round 1 only.
    pub fn enter(&mut self, player: PlayerId) -> Result<(), EventError> {
        self.refuse_if_started()?;
        if self.seed_of(player).is_some() {
            return Err(EventError::DuplicatePlayer(player));
        }
        if self.entrants.len() >= self.settings.format.max_players() {
            return Err(EventError::TooManyPlayers {
                max: self.settings.format.max_players(),
            });
        }
        self.entrants.push(Entrant {
            player,
            warnings: 0,
            withdrawn: None,
        });
        Ok(())
    }

    /// Takes `player`'s entry back before round 1: the pairing is drawn afresh when round 1 starts.
    pub fn leave(&mut self, player: PlayerId) -> Result<(), EventError> {
        self.refuse_if_started()?;
        let seed = self.seed_of(player).ok_or(EventError::NotEntered(player))?;
        self.entrants.remove(seed);
        Ok(())
    }

    fn refuse_if_started(&self) -> Result<(), EventError> {
        if self.rounds.is_empty() {
            Ok(())
        } else {
            Err(EventError::Started)
        }
    }

    /// Pairs the next round once every game of the current one has a result, and returns it.
    pub fn pair_next_round(&mut self) -> Result<&Round, EventError> {
        if let Some(last) = self.rounds.last() {
            if last.missing() > 0 {
                return Err(EventError::RoundUnfinished {
                    round: last.number,
                    missing: last.missing(),
                });
            }
        } else {
            self.check_entries(true)?;
        }
        let round = format::next_round(self).ok_or(EventError::Over)?;
        self.rounds.push(round);
        self.rounds.last().ok_or(EventError::Over)
    }

    /// Whether no further round will be paired: the schedule is played, the rounds are done, or one
    /// player is left.
    pub fn is_over(&self) -> bool {
        !self.rounds.is_empty()
            && self.rounds.last().is_none_or(|r| r.missing() == 0)
            && format::finished(self)
    }

    /// Records the result of the game at `table` in round `round`. The same result twice is accepted
    /// (a retry after a restart); a different one is refused, the first stands.
    pub fn record(
        &mut self,
        round: u32,
        table: u32,
        outcome: EventOutcome,
    ) -> Result<(), EventError> {
        let game = self
            .rounds
            .iter_mut()
            .find(|r| r.number == round)
            .and_then(|r| r.games.iter_mut().find(|g| g.table == table))
            .ok_or(EventError::NoSuchGame { round, table })?;
        match game.outcome {
            None => game.outcome = Some(outcome),
            Some(existing) if existing == outcome => {}
            Some(existing) => {
                return Err(EventError::AlreadyRecorded {
                    round,
                    table,
                    existing,
                })
            }
        }
        Ok(())
    }

    /// Counts a director's warning against `player` (fewer warnings rank higher in a tie).
    pub fn warn(&mut self, player: PlayerId) -> Result<(), EventError> {
        let seed = self.seed_of(player).ok_or(EventError::NotEntered(player))?;
        if let Some(entrant) = self.entrants.get_mut(seed) {
            entrant.warnings = entrant.warnings.saturating_add(1);
        }
        Ok(())
    }

    /// `player` leaves the event after the rounds paired so far: they are paired no more, and in a
    /// round robin their results are void if they played fewer than half of their games, otherwise
    /// their remaining games are forfeits (docs/competitions.md). Before round 1 this is [`Event::leave`].
    pub fn withdraw(&mut self, player: PlayerId) -> Result<(), EventError> {
        if self.rounds.is_empty() {
            return self.leave(player);
        }
        let seed = self.seed_of(player).ok_or(EventError::NotEntered(player))?;
        let results_void = format::withdrawal_voids_results(self, player);
        let after_round = self.rounds.len() as u32;
        let entrant = self
            .entrants
            .get_mut(seed)
            .ok_or(EventError::NotEntered(player))?;
        if entrant.withdrawn.is_some() {
            return Err(EventError::AlreadyWithdrawn(player));
        }
        entrant.withdrawn = Some(Withdrawal {
            after_round,
            results_void,
        });
        Ok(())
    }

    /// Changes a Swiss event's number of rounds between rounds (docs/competitions.md: the director may).
    pub fn set_swiss_rounds(&mut self, rounds: u32) -> Result<(), EventError> {
        let played = self.rounds.len() as u32;
        let Format::Swiss {
            rounds: current, ..
        } = &mut self.settings.format
        else {
            return Err(EventError::InvalidFormat(
                "only a Swiss event changes its number of rounds",
            ));
        };
        if rounds < played.max(1) {
            return Err(EventError::RoundsAlreadyPlayed { played });
        }
        if rounds > MAX_ROUNDS {
            return Err(EventError::InvalidFormat("too many rounds"));
        }
        *current = rounds;
        Ok(())
    }

    /// The standings now, from every result recorded so far.
    pub fn standings(&self) -> Standings {
        standings::compute(self)
    }

    /// The event's winner once it is over and one player stands alone at the top.
    pub fn winner(&self) -> Option<PlayerId> {
        if !self.is_over() {
            return None;
        }
        let standings = self.standings();
        match standings.rows.as_slice() {
            [first, second, ..] if first.rank == second.rank => None,
            [first, ..] if !first.eliminated && !first.withdrawn => Some(first.player),
            _ => None,
        }
    }

    /// Entries within the format's bounds (the minimum only once `started`) and nobody twice.
    fn check_entries(&self, started: bool) -> Result<(), EventError> {
        let min = self.settings.format.min_players();
        let max = self.settings.format.max_players();
        if started && self.entrants.len() < min {
            return Err(EventError::TooFewPlayers { min });
        }
        if self.entrants.len() > max {
            return Err(EventError::TooManyPlayers { max });
        }
        let mut seen = BTreeSet::new();
        match self.entrants.iter().find(|e| !seen.insert(e.player)) {
            Some(e) => Err(EventError::DuplicatePlayer(e.player)),
            None => Ok(()),
        }
    }

    /// A stored event holds together: valid format and entries, rounds numbered 1.., every game and
    /// bye naming entrants, tables unique within a round.
    fn check(&self) -> Result<(), EventError> {
        self.settings.format.validate()?;
        self.check_entries(!self.rounds.is_empty())?;
        let entered: BTreeSet<PlayerId> = self.entrants.iter().map(|e| e.player).collect();
        for (i, round) in self.rounds.iter().enumerate() {
            if round.number as usize != i + 1 {
                return Err(EventError::Inconsistent(
                    "rounds are not numbered 1, 2, ...",
                ));
            }
            let mut tables = BTreeSet::new();
            for game in &round.games {
                if !tables.insert(game.table) || game.black == game.white {
                    return Err(EventError::Inconsistent(
                        "a round repeats a table or pairs a player with themself",
                    ));
                }
                if !entered.contains(&game.black) || !entered.contains(&game.white) {
                    return Err(EventError::Inconsistent(
                        "a game names a player not entered",
                    ));
                }
            }
            if round
                .byes
                .iter()
                .chain(&round.resting)
                .any(|p| !entered.contains(p))
            {
                return Err(EventError::Inconsistent("a bye names a player not entered"));
            }
        }
        Ok(())
    }

    /// The withdrawal of the entrant at `seed`, if any.
    pub(crate) fn withdrawn(&self, seed: usize) -> Option<Withdrawal> {
        self.entrants.get(seed).and_then(|e| e.withdrawn)
    }
}
