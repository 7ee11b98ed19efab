//! The competition rules inside an event's game (docs/competitions.md "Lateness, warnings,
//! withdrawal"): a late player's penalty and forfeit, the director's warnings in the count, and
//! the director's pause and adjournment with a sealed move. Each is a `GameEvent` in the game's
//! log before anyone hears of it. A game that is not an event's has no lateness limit and nobody
//! to warn, pause or adjourn it: nothing here touches it.
//!
//! Rules decided here, in the players' terms:
//! - Lateness (迟到): the clock runs from the start for the player to move, as in any game. A
//!   player arrives with their first connection to the game or their first move; arriving `L` after
//!   the start costs `2·L` of main time in all (迟到时间加倍扣除): what their own clock did not
//!   already charge them during `L` is taken at arrival (Black, whose clock ran, loses `L` more;
//!   White, whose clock did not, `2·L`), never below zero main time. A player not arrived when
//!   lateness reaches the event's limit loses by forfeit; both missing, the game is void (see
//!   `deadlines`). The no-show rule of casual games does not apply: lateness replaces it.
//! - Warnings (罚出一子): each warning costs that player one point (two half points) of their
//!   area count if the game is counted.
//! - Pause (暂停): both clocks stop; moves, passes, resignations and undo are refused until the game
//!   resumes, at the set time or when the director says. Lateness and an away player's grace are
//!   not suspended by it.
//! - Adjournment (封棋): the player to move seals a move (their clock runs until they do; an
//!   illegal point is refused as a move would be, so they can seal again); then both clocks stop.
//!   The sealed move is in the log only, never in any frame, snapshot or record, until the game
//!   resumes, when it is played as an ordinary move. A sealed move that is illegal when played
//!   (which the unchanged position rules out) loses the sealer the game.

use tengen_protocol::{ClockSettings, ErrorCode, GameEvent, HaltKind, Point};
use tengen_rules::{Color, GameResult, Phase, WinBy};

use super::decide::{wrong_phase, Decision};
use super::{GameCore, LoggedEvent, Sealed};
use crate::clock::side_clock;
use crate::config::{GAME_HALT_MS_MAX, GAME_WARNINGS_MAX};
use crate::game::wire;
use crate::Refusal;

/// The event rules' state of one game (all of it, so a failed write puts it back whole).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::game) struct EventRules {
    /// Whether each player has arrived; both from the start in a game without a lateness limit.
    pub(in crate::game) arrived: [bool; 2],
    /// The director's warnings, per colour.
    pub(in crate::game) warnings: [u32; 2],
    /// Notes for the record: the moves played when it happened, and what. One per warning, so at
    /// most `2 · GAME_WARNINGS_MAX`.
    pub(in crate::game) notes: Vec<(usize, String)>,
    /// A pause or adjournment in force.
    pub(in crate::game) halt: Option<Halted>,
    /// A sealed move waiting for the resumption: who sealed it, and the point (`None`: a pass).
    pub(in crate::game) sealed: Option<(Color, Option<Point>)>,
}

/// A pause or adjournment: its kind, and when it ends by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::game) struct Halted {
    pub(in crate::game) kind: HaltKind,
    /// The server's wall clock (Unix ms) the director set.
    pub(in crate::game) resume_at_ms: u64,
    /// The same instant in game time, which the run loop sleeps until.
    pub(in crate::game) due_ms: u64,
}

impl EventRules {
    /// A new game's: in a game without a lateness limit both players count as arrived.
    pub(in crate::game) fn new(lateness_limit_ms: Option<u64>) -> EventRules {
        let arrived = lateness_limit_ms.is_none();
        EventRules {
            arrived: [arrived, arrived],
            ..EventRules::default()
        }
    }

    /// The record's notes, by the number of moves played when each was made.
    pub(in crate::game) fn notes(&self) -> &[(usize, String)] {
        &self.notes
    }
}

impl GameCore {
    /// `color` arrives now, if they had not: charged what makes their lateness cost twice over.
    pub(super) fn decide_arrive(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
        if self.rules.arrived[color.index()] || self.outcome.is_some() {
            return Ok(());
        }
        let late_ms = d.now_ms;
        let charged_ms = self.lateness_charge(color, late_ms);
        d.event(GameEvent::Arrived {
            color,
            late_ms,
            charged_ms,
        })
    }

    /// The director warns `color`: a point off their count, noted in the record.
    pub(super) fn decide_warn(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
        if self.outcome.is_some() {
            return Err(wrong_phase("the game has ended"));
        }
        let warnings = self.rules.warnings[color.index()] + 1;
        if warnings > GAME_WARNINGS_MAX {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                format!("a player has at most {GAME_WARNINGS_MAX} warnings in a game"),
            ));
        }
        d.event(GameEvent::Warned { color, warnings })
    }

    /// The director pauses or adjourns the game until `resume_at_ms` (wall clock).
    pub(super) fn decide_halt(
        &self,
        d: &mut Decision,
        kind: HaltKind,
        resume_at_ms: u64,
        wall_now_ms: u64,
    ) -> Result<(), Refusal> {
        let resume_in_ms = self.may_halt(resume_at_ms, wall_now_ms)?;
        d.event(match kind {
            HaltKind::Pause => GameEvent::Paused {
                resume_at_ms,
                resume_in_ms,
            },
            // The player to move thinks on, on their own time, until they seal.
            HaltKind::Adjournment => GameEvent::Adjourned {
                to_move: self.game.to_move(),
                resume_at_ms,
                resume_in_ms,
            },
        })
    }

    /// Whether the game may be paused or adjourned until `resume_at_ms`: how long from now, if so.
    pub(super) fn may_halt(&self, resume_at_ms: u64, wall_now_ms: u64) -> Result<u64, Refusal> {
        if self.outcome.is_some() {
            return Err(wrong_phase("the game has ended"));
        }
        if self.game.phase() != Phase::Play {
            return Err(wrong_phase(
                "only a game in play can be paused or adjourned (not while scoring)",
            ));
        }
        if self.rules.halt.is_some() {
            return Err(wrong_phase("the game is already paused or adjourned"));
        }
        let resume_in_ms = resume_at_ms.saturating_sub(wall_now_ms);
        if resume_in_ms == 0 || resume_in_ms > GAME_HALT_MS_MAX {
            return Err(Refusal::new(
                ErrorCode::BadMessage,
                format!(
                    "resume_at_ms must be in the future, at most {} hours from now",
                    GAME_HALT_MS_MAX / 3_600_000
                ),
            ));
        }
        Ok(resume_in_ms)
    }

    /// In an adjourned game, the player to move seals their move: kept in the log entry only,
    /// announced as sealed without the move; both clocks stop.
    pub(super) fn decide_seal(
        &self,
        d: &mut Decision,
        color: Color,
        point: Option<Point>,
    ) -> Result<(), Refusal> {
        let adjourned = self
            .rules
            .halt
            .is_some_and(|halt| halt.kind == HaltKind::Adjournment);
        if !adjourned || self.rules.sealed.is_some() || self.outcome.is_some() {
            return Err(wrong_phase(
                "no adjournment waits for a sealed move in this game",
            ));
        }
        if color != self.game.to_move() {
            return Err(Refusal::new(
                ErrorCode::NotYourTurn,
                "the player to move seals the move",
            ));
        }
        if let Some(point) = point {
            self.game.check_play(color, point).map_err(wire::illegal)?;
        }
        self.decide_arrive(d, color)?;
        let mut sealed = LoggedEvent::at(GameEvent::Sealed { color }, d.now_ms);
        sealed.sealed = Some(Sealed { point });
        d.push(sealed)
    }

    /// Once the game has resumed: the sealed move, played as an ordinary move (an illegal one,
    /// which the unchanged position rules out, loses the sealer the game).
    pub(super) fn decide_sealed_move(&self, d: &mut Decision) -> Result<(), Refusal> {
        let Some((color, point)) = self.rules.sealed.filter(|_| self.rules.halt.is_none()) else {
            return Ok(());
        };
        let event = match point {
            Some(point) => GameEvent::Played {
                color,
                point,
                captured: Vec::new(),
            },
            None => GameEvent::Passed {
                color,
                forced: false,
            },
        };
        let mut probe = d.next.clone();
        if probe
            .apply(probe.seq + 1, &LoggedEvent::at(event.clone(), d.now_ms))
            .is_err()
        {
            tracing::warn!(%color, "a sealed move was illegal; its player loses");
            return d.end(GameResult::Win {
                winner: color.opponent(),
                win_by: WinBy::Forfeit,
            });
        }
        let event = match event {
            GameEvent::Played { color, point, .. } => GameEvent::Played {
                color,
                point,
                captured: probe.game.last_captured().to_vec(),
            },
            passed => passed,
        };
        d.event(event)?;
        d.open_scoring()
    }

    /// Moves, passes, resignations and undo wait while the game is paused or adjourned.
    pub(super) fn refuse_if_halted(&self) -> Result<(), Refusal> {
        let Some(halt) = self.rules.halt else {
            return Ok(());
        };
        let message = match (halt.kind, self.rules.sealed) {
            (HaltKind::Pause, _) => "the game is paused by the event's director until it resumes",
            (HaltKind::Adjournment, None) => {
                "the game is adjourned: the player to move seals a move (seal_move)"
            }
            (HaltKind::Adjournment, Some(_)) => {
                "the game is adjourned; the sealed move is played when it resumes"
            }
        };
        Err(wrong_phase(message))
    }

    /// Apply an event rule's event (see `event_rules`).
    pub(super) fn apply_event_rule(&mut self, logged: &LoggedEvent) {
        let at_ms = logged.at_ms;
        match logged.event {
            GameEvent::Arrived {
                color, charged_ms, ..
            } => {
                self.rules.arrived[color.index()] = true;
                if let Some(clock) = &mut self.clock {
                    let _ = clock.take_main(color, charged_ms, at_ms);
                }
            }
            GameEvent::Warned { color, warnings } => self.note_warning(color, warnings),
            GameEvent::Paused {
                resume_at_ms,
                resume_in_ms,
            } => {
                self.stop_clocks(at_ms);
                self.halt(HaltKind::Pause, resume_at_ms, at_ms + resume_in_ms);
            }
            GameEvent::Adjourned {
                resume_at_ms,
                resume_in_ms,
                ..
            } => self.halt(HaltKind::Adjournment, resume_at_ms, at_ms + resume_in_ms),
            GameEvent::Sealed { color } => {
                self.stop_clocks(at_ms);
                if let Some(sealed) = &logged.sealed {
                    self.rules.sealed = Some((color, sealed.point));
                }
            }
            GameEvent::Resumed => {
                self.rules.halt = None;
                self.restart_clocks(at_ms);
            }
            _ => {}
        }
    }

    pub(super) fn halt(&mut self, kind: HaltKind, resume_at_ms: u64, due_ms: u64) {
        self.rules.halt = Some(Halted {
            kind,
            resume_at_ms,
            due_ms,
        });
    }

    pub(super) fn note_warning(&mut self, color: Color, warnings: u32) {
        self.rules.warnings[color.index()] = warnings;
        let name = match color {
            Color::Black => "Black",
            Color::White => "White",
        };
        let note = format!(
            "{name} warned by the event's director (warning {warnings}): one point off {name}'s count"
        );
        self.rules.notes.push((self.game.moves().len(), note));
    }

    /// Both clocks stop at `at_ms` (a clock that is not running has nothing to stop).
    pub(super) fn stop_clocks(&mut self, at_ms: u64) {
        if let Some(clock) = &mut self.clock {
            let _ = clock.pause(at_ms);
        }
    }

    /// The side to move's clock runs again from `at_ms`, if it was stopped.
    pub(super) fn restart_clocks(&mut self, at_ms: u64) {
        let to_move = self.game.to_move();
        if let Some(clock) = &mut self.clock {
            if !clock.is_running() {
                let _ = clock.resume(at_ms, to_move);
            }
        }
    }

    /// What `color`, arriving at `late_ms`, is charged of their main time: what their own clock
    /// did not charge them during `late_ms`, so that they lose `2 · late_ms` in all (never more
    /// than they have).
    pub(super) fn lateness_charge(&self, color: Color, late_ms: u64) -> u64 {
        let main_time_ms = main_time_ms(&self.settings.clock);
        let Some(mut clock) = self.clock.clone() else {
            return 0;
        };
        // Out of time already: the deadline that ends the game (or forces a pass) comes first.
        if clock.deadline_ms().is_some_and(|due| due <= late_ms) {
            return 0;
        }
        // The player has not moved yet, so no increment or block has added to their main time:
        // what is gone of it is what their clock ran (when it ran past main time, none is left).
        let left_ms = side_clock(&clock.snapshot(late_ms), color).main_left_ms;
        let ran_ms = main_time_ms.saturating_sub(left_ms);
        let owed_ms = late_ms.saturating_mul(2).saturating_sub(ran_ms);
        clock.take_main(color, owed_ms, late_ms).unwrap_or(0)
    }
}

/// A clock's main time as agreed (0 for an untimed game).
fn main_time_ms(clock: &ClockSettings) -> u64 {
    match *clock {
        ClockSettings::None => 0,
        ClockSettings::Absolute { main_time_ms }
        | ClockSettings::ByoYomi { main_time_ms, .. }
        | ClockSettings::Canadian { main_time_ms, .. }
        | ClockSettings::Fischer { main_time_ms, .. } => main_time_ms,
    }
}
