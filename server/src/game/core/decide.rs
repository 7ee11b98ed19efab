//! Deciding what a command does to a game: the events it causes, or why it is refused. Nothing
//! changes here: each event is applied to a copy of the state as it is decided (so an event that
//! follows another, such as the scoring proposal after the second pass, sees the state the first
//! one leaves), and the caller records the events, then applies them to the game itself.
//!
//! Moves, passes and resignations are decided here; the rest by concern in the sibling modules
//! (`undo`, `scoring`, `event_rules`, `deadlines`), each saying which rules it decides in the
//! players' terms. Nothing changes a game that has ended.

use std::collections::BTreeSet;

use tengen_protocol::{ErrorCode, EventOutcome, GameEvent, HaltKind, Point};
use tengen_rules::{estimate_dead, Color, GameResult, Move, Phase, WinBy};

use super::{GameCore, KeyRecord, LoggedEvent};
use crate::game::wire;
use crate::game::PlayerMove;
use crate::Refusal;

/// What may change a game, each by a player (by colour), the director, the players' connections
/// or the passing of time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::game) enum Command {
    /// A move, pass or resignation, with the retry key it came with.
    Move {
        color: Color,
        mv: PlayerMove,
        key: Option<KeyRecord>,
    },
    AskUndo(Color),
    AnswerUndo {
        color: Color,
        accept: bool,
    },
    ToggleDead {
        color: Color,
        point: Point,
    },
    /// `seen`: the marking the player accepts, which must still be the marking.
    AcceptScore {
        color: Color,
        seen: Option<BTreeSet<Point>>,
    },
    ResumePlay(Color),
    /// The scoring phase is proposed if play has ended without it (a log that stops between the
    /// second pass and the proposal).
    OpenScoring,
    /// Who of (Black, White) is connected now, and who had been since the actor started.
    Presence {
        here: [bool; 2],
        seen: [bool; 2],
    },
    /// Time has passed: everything due by now happens.
    Deadlines,
    /// A player of an event's game arrives (their first connection or move).
    Arrive(Color),
    Warn(Color),
    /// The director pauses or adjourns until `resume_at_ms` (wall clock), which is `wall_now_ms`.
    Halt {
        kind: HaltKind,
        resume_at_ms: u64,
        wall_now_ms: u64,
    },
    Seal {
        color: Color,
        point: Option<Point>,
    },
    Resume,
    /// The director decides the game (or it is void after its actor kept crashing).
    Adjudicate(EventOutcome),
}

/// The events of one command, each applied to `next` as it is added.
pub(super) struct Decision {
    pub(super) next: GameCore,
    events: Vec<LoggedEvent>,
    pub(super) now_ms: u64,
}

impl Decision {
    pub(super) fn push(&mut self, logged: LoggedEvent) -> Result<(), Refusal> {
        self.next.apply(self.next.seq + 1, &logged)?;
        self.events.push(logged);
        Ok(())
    }

    pub(super) fn event(&mut self, event: GameEvent) -> Result<(), Refusal> {
        self.push(LoggedEvent::at(event, self.now_ms))
    }

    pub(super) fn end(&mut self, result: GameResult) -> Result<(), Refusal> {
        self.event(GameEvent::Ended {
            outcome: wire::outcome(result, None),
        })
    }

    /// After a move or pass: two passes propose the engine's dead-stone estimate.
    pub(super) fn open_scoring(&mut self) -> Result<(), Refusal> {
        if self.next.game.phase() != Phase::Scoring || self.next.scoring.is_some() {
            return Ok(());
        }
        let dead: BTreeSet<Point> = estimate_dead(self.next.game.board()).into_iter().collect();
        self.event(GameEvent::ScoringStarted {
            dead: dead.into_iter().collect(),
        })
    }
}

pub(super) fn wrong_phase(message: &str) -> Refusal {
    Refusal::new(ErrorCode::WrongPhase, message)
}

impl GameCore {
    /// The events `command` causes at game time `now_ms` (none: nothing to do), or why it is
    /// refused; the state is left as it is.
    pub(in crate::game) fn decide(
        &self,
        command: Command,
        now_ms: u64,
    ) -> Result<Vec<LoggedEvent>, Refusal> {
        if self.outcome.is_some() {
            // Nothing changes a game that has ended; only what nobody asked for goes unanswered.
            return match command {
                Command::Deadlines
                | Command::Presence { .. }
                | Command::OpenScoring
                | Command::Arrive(_) => Ok(Vec::new()),
                _ => Err(wrong_phase("the game has ended")),
            };
        }
        let mut decision = Decision {
            next: self.clone(),
            events: Vec::new(),
            now_ms,
        };
        let d = &mut decision;
        match command {
            Command::Move { color, mv, key } => self.decide_move(d, color, mv, key)?,
            Command::AskUndo(color) => self.decide_ask_undo(d, color)?,
            Command::AnswerUndo { color, accept } => self.decide_answer_undo(d, color, accept)?,
            Command::ToggleDead { color, point } => self.decide_toggle_dead(d, color, point)?,
            Command::AcceptScore { color, seen } => self.decide_accept(d, color, seen)?,
            Command::ResumePlay(color) => {
                self.scoring_player()?;
                // The asker disputes the marking; the other player claimed the stones dead and
                // moves first.
                let to_move = color.opponent();
                d.event(GameEvent::PlayResumed { by: color, to_move })?;
            }
            Command::OpenScoring => d.open_scoring()?,
            Command::Presence { here, seen } => self.decide_presence(d, here, seen)?,
            Command::Deadlines => self.decide_deadlines(d)?,
            Command::Arrive(color) => self.decide_arrive(d, color)?,
            Command::Warn(color) => self.decide_warn(d, color)?,
            Command::Halt {
                kind,
                resume_at_ms,
                wall_now_ms,
            } => self.decide_halt(d, kind, resume_at_ms, wall_now_ms)?,
            Command::Seal { color, point } => self.decide_seal(d, color, point)?,
            Command::Resume => {
                if self.rules.halt.is_none() || self.outcome.is_some() {
                    return Err(wrong_phase("the game is not paused or adjourned"));
                }
                d.event(GameEvent::Resumed)?;
                let resumed = d.next.clone();
                resumed.decide_sealed_move(d)?;
            }
            Command::Adjudicate(outcome) => {
                if self.outcome.is_some() {
                    return Err(wrong_phase("the game has ended"));
                }
                d.end(adjudicated(outcome))?;
            }
        }
        Ok(decision.events)
    }

    /// A player's move, pass or resignation; two passes then propose the scoring.
    fn decide_move(
        &self,
        d: &mut Decision,
        color: Color,
        mv: PlayerMove,
        key: Option<KeyRecord>,
    ) -> Result<(), Refusal> {
        self.refuse_if_halted()?;
        let event = match mv {
            PlayerMove::Play(point) => GameEvent::Played {
                color,
                point,
                captured: Vec::new(),
            },
            PlayerMove::Pass => GameEvent::Passed {
                color,
                forced: false,
            },
            PlayerMove::Resign => {
                let mut game = self.game.clone();
                game.play(color, Move::Resign).map_err(wire::illegal)?;
                // The engine ended the game with the resignation; the end keeps its result.
                let result = game.result().unwrap_or(GameResult::Win {
                    winner: color.opponent(),
                    win_by: WinBy::Resign,
                });
                let outcome = wire::outcome(result, None);
                let mut ended = LoggedEvent::at(GameEvent::Ended { outcome }, d.now_ms);
                ended.key = key;
                return d.push(ended);
            }
        };
        let mut logged = LoggedEvent::at(event, d.now_ms);
        logged.key = key;
        d.push(logged)?;
        // The stones a move took, known once it is played.
        if let Some(GameEvent::Played { captured, .. }) = d.events.last_mut().map(|l| &mut l.event)
        {
            *captured = d.next.game.last_captured().to_vec();
        }
        d.open_scoring()
    }

    /// Arrivals of connected players, then who left or came back.
    fn decide_presence(
        &self,
        d: &mut Decision,
        here: [bool; 2],
        seen: [bool; 2],
    ) -> Result<(), Refusal> {
        if self.outcome.is_some() {
            return Ok(());
        }
        for color in Color::BOTH {
            if here[color.index()] && !d.next.rules.arrived[color.index()] {
                let now = d.next.clone();
                now.decide_arrive(d, color)?;
            }
        }
        for color in Color::BOTH {
            let index = color.index();
            match (here[index], d.next.away_since_ms[index]) {
                (false, None) if seen[index] => {
                    // The grace starts now; a timeout ends the game first if it is sooner.
                    let grace_ms = d.next.timing.disconnect_grace_ms;
                    let forfeit_in_ms = match &d.next.clock {
                        Some(clock) => grace_ms.min(clock.time_left_ms(color, d.now_ms)),
                        None => grace_ms,
                    };
                    d.event(GameEvent::PlayerLeft {
                        color,
                        forfeit_in_ms,
                    })?;
                }
                (true, Some(_)) => d.event(GameEvent::PlayerReturned { color })?,
                _ => {}
            }
        }
        Ok(())
    }
}

/// The engine result of a director's decision.
fn adjudicated(outcome: EventOutcome) -> GameResult {
    match outcome {
        EventOutcome::BlackWins => GameResult::Win {
            winner: Color::Black,
            win_by: WinBy::Forfeit,
        },
        EventOutcome::WhiteWins => GameResult::Win {
            winner: Color::White,
            win_by: WinBy::Forfeit,
        },
        EventOutcome::Draw => GameResult::Draw,
        EventOutcome::BothLose => GameResult::Void,
    }
}
