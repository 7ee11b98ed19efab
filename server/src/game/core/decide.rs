//! Deciding what a command does to a game: the events it causes, or why it is refused. Nothing
//! changes here: each event is applied to a copy of the state as it is decided (so an event that
//! follows another, such as the scoring proposal after the second pass, sees the state the first
//! one leaves), and the caller records the events, then applies them to the game itself.
//!
//! Rules decided here, in the players' terms (the deadlines' are in `deadlines`):
//! - Scoring phase: two passes propose the engine's dead-stone estimate; either player may toggle
//!   a chain dead or alive (which withdraws both acceptances), and when both accept the marking
//!   they saw, the board is counted (less any warnings) and the game ends. Clocks are paused.
//! - Scoring dispute: either player may send `resume_play` instead of accepting. Asking to resume
//!   means disputing the other player's claim that some stones are dead, so play restarts with the
//!   *other* player (the claimant) to move (以实战解决); two passes end it again with a fresh
//!   estimate.
//! - Undo (悔棋): a player may ask to take back their last move while play is on; the opponent
//!   accepts or declines. Accepted, the asker's last move is taken back, with the opponent's reply
//!   if one was made since, so the asker is to move again; time already used is not given back.
//!   Any move or pass withdraws a pending request. The SGF root comment lists accepted undos.
//! - Pause (暂停) and adjournment (封棋): moves, passes, resignations and undo wait; in an
//!   adjournment the player to move seals a move (an illegal point is refused as a move would be),
//!   which is played as an ordinary move when the game resumes.
//! - Nothing changes a game that has ended.

use std::collections::BTreeSet;

use tengen_protocol::{ErrorCode, EventOutcome, GameEvent, HaltKind, Point};
use tengen_rules::{estimate_dead, Color, GameResult, Move, Phase, WinBy};

use super::{GameCore, KeyRecord, LoggedEvent, Sealed};
use crate::config::{GAME_HALT_MS_MAX, GAME_WARNINGS_MAX};
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

fn wrong_phase(message: &str) -> Refusal {
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

    fn decide_ask_undo(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
        self.refuse_if_halted()?;
        if self.undo_request.is_some() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "an undo request is already waiting for an answer",
            ));
        }
        if self.undo_plies(color).is_none() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "you have no move in play to take back",
            ));
        }
        d.event(GameEvent::UndoRequested { color })
    }

    fn decide_answer_undo(
        &self,
        d: &mut Decision,
        color: Color,
        accept: bool,
    ) -> Result<(), Refusal> {
        self.refuse_if_halted()?;
        let asker = match self.undo_request {
            Some(asker) if asker == color.opponent() => asker,
            _ => {
                return Err(Refusal::new(
                    ErrorCode::NoUndo,
                    "your opponent has not asked to take a move back",
                ))
            }
        };
        if !accept {
            return d.event(GameEvent::UndoDeclined { color: asker });
        }
        if self.undo_plies(asker).is_none() {
            return Err(Refusal::new(
                ErrorCode::NoUndo,
                "there is no move in play to take back",
            ));
        }
        // Taken back on the copy first: the event shows the position it leaves.
        let mut next = d.next.clone();
        let probe = LoggedEvent::at(undo_accepted(&next, asker, color), d.now_ms);
        next.apply(next.seq + 1, &probe)?;
        d.event(undo_accepted(&next, asker, color))
    }

    /// The player of a game in the scoring phase, with its marking.
    fn scoring_player(&self) -> Result<&super::Scoring, Refusal> {
        match &self.scoring {
            Some(scoring) if self.game.phase() == Phase::Scoring => Ok(scoring),
            _ => Err(wrong_phase("the game is not in the scoring phase")),
        }
    }

    fn decide_toggle_dead(
        &self,
        d: &mut Decision,
        color: Color,
        point: Point,
    ) -> Result<(), Refusal> {
        let scoring = self.scoring_player()?;
        if !point.is_on_board(self.settings.size) {
            return Err(Refusal::new(
                ErrorCode::OffBoard,
                "that point is off the board",
            ));
        }
        let chain = self.game.board().chain(point);
        if chain.is_empty() {
            return Err(Refusal::new(
                ErrorCode::NotAllowed,
                "there is no stone there to mark",
            ));
        }
        let mut dead = scoring.dead.clone();
        // The whole chain flips together: dead if any of it was alive, else alive.
        if chain.iter().all(|p| dead.contains(p)) {
            for p in &chain {
                dead.remove(p);
            }
        } else {
            dead.extend(chain);
        }
        d.event(GameEvent::DeadMarked {
            by: color,
            dead: dead.into_iter().collect(),
        })
    }

    fn decide_accept(
        &self,
        d: &mut Decision,
        color: Color,
        seen: Option<BTreeSet<Point>>,
    ) -> Result<(), Refusal> {
        let scoring = self.scoring_player()?;
        if seen.is_some_and(|seen| seen != scoring.dead) {
            return Err(Refusal::new(
                ErrorCode::MarkingChanged,
                "the dead stones changed before your accept arrived; look at the marking again",
            ));
        }
        if scoring.accepted[color.index()] {
            return Ok(());
        }
        d.event(GameEvent::ScoreAccepted { color })?;
        if d.next.scoring.as_ref().map(|s| s.accepted) == Some([true, true]) {
            let outcome = d.next.counted().1;
            d.event(GameEvent::Ended { outcome })?;
        }
        Ok(())
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

    fn decide_arrive(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
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

    fn decide_warn(&self, d: &mut Decision, color: Color) -> Result<(), Refusal> {
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

    fn decide_halt(
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
    fn may_halt(&self, resume_at_ms: u64, wall_now_ms: u64) -> Result<u64, Refusal> {
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

    fn decide_seal(
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
    pub(in crate::game) fn refuse_if_halted(&self) -> Result<(), Refusal> {
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
}

/// The `undo_accepted` event of `asker`'s undo answered by `by`, showing `game`'s position.
fn undo_accepted(core: &GameCore, asker: Color, by: Color) -> GameEvent {
    let game = &core.game;
    GameEvent::UndoAccepted {
        color: asker,
        by,
        moves_count: game.moves().len() as u32,
        to_move: game.to_move(),
        board: wire::board_rows(game.board()),
        captures_black: Some(game.prisoners(Color::Black)),
        captures_white: Some(game.prisoners(Color::White)),
        last_move: wire::last_move(game),
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
