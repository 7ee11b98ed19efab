//! The competition rules inside an event's game (docs/competitions.md "Lateness, warnings, withdrawal"): a late
//! player's penalty and forfeit, the director's warnings in the count, and the director's pause and
//! adjournment with a sealed move. Each is a `GameEvent` in the game's log before anyone hears of
//! it, replayed after a restart, and shown in the game's state. A game that is not an event's has
//! no lateness limit and nobody to warn, pause or adjourn it: nothing here touches it.
//!
//! Rules decided here, in the players' terms:
//! - Lateness (迟到): the clock runs from the start for the player to move, as in any game. A
//!   player arrives with their first connection to the game or their first move; arriving `L` after
//!   the start costs `2·L` of main time in all (迟到时间加倍扣除): what their own clock did not
//!   already charge them during `L` is taken at arrival (Black, whose clock ran, loses `L` more;
//!   White, whose clock did not, `2·L`), never below zero main time (byo-yomi or overtime then run
//!   as usual). A player not arrived when lateness reaches the event's limit loses by forfeit; both
//!   missing, the game is void, which the event scores as a loss for both. The no-show rule of
//!   casual games (void when nobody makes the first move) does not apply: lateness replaces it.
//! - Warnings (罚出一子): each warning costs that player one point (two half points) of their
//!   area count if the game is counted; the result follows from the counts after the penalty.
//! - Pause (暂停): both clocks stop; moves, passes, resignations and undo are refused until the game
//!   resumes, at the set time or when the director says. Lateness and an away player's grace are
//!   not suspended by it.
//! - Adjournment (封棋): the player to move seals a move (their clock runs until they do; an
//!   illegal point is refused as a move would be, so they can seal again); then both clocks stop.
//!   The sealed move is in the log only, never in any frame, snapshot or record, until the game
//!   resumes, when it is played as an ordinary move. A sealed move that is illegal when played
//!   (which the unchanged position rules out) loses the sealer the game.

use std::sync::atomic::Ordering;

use tengen_protocol::{
    Awaited, ClockSettings, Color, ErrorCode, GameEvent, GameOutcome, Halt, HaltKind, Point, UserId,
};
use tengen_rules::{GameResult, Move, Phase, WinBy};

use super::{Fatal, Flow, GameActor, LoggedEvent, Sealed};
use crate::clock::side_clock;
use crate::config::{GAME_HALT_MS_MAX, GAME_WARNINGS_MAX};
use crate::game::core::Halted;
use crate::game::wire;
use crate::game::GameNotice;
use crate::{unix_now_ms, BoxError, Refusal};

impl GameActor {
    /// When `color` forfeits for not arriving (game time), while they have not.
    fn lateness_deadline_ms(&self, color: Color) -> Option<u64> {
        let limit_ms = self.core.settings.lateness_limit_ms?;
        (!self.core.rules.arrived[color.index()]).then_some(limit_ms)
    }

    /// The nearest instant (game time) at which an event rule acts by itself: a lateness limit, or
    /// the end of a pause or adjournment.
    pub(super) fn event_deadline_ms(&self) -> Option<u64> {
        let lateness = Color::BOTH
            .into_iter()
            .filter_map(|color| self.lateness_deadline_ms(color))
            .min();
        let halt = self.core.rules.halt.map(|halt| halt.due_ms);
        lateness
            .into_iter()
            .chain(halt)
            .chain(self.sealed_due())
            .min()
    }

    /// A sealed move whose resumption is logged but not the move itself (a restart, or a write
    /// that failed, in between): due at once.
    fn sealed_due(&self) -> Option<u64> {
        (self.core.rules.halt.is_none() && self.core.rules.sealed.is_some()).then_some(0)
    }

    /// Whether the casual games' no-show rule applies: not where lateness replaces it.
    pub(super) fn no_show_applies(&self) -> bool {
        self.core.settings.lateness_limit_ms.is_none()
    }

    /// Apply what is due by `now_ms`: a forfeit for lateness, then a resumption at the set time.
    pub(super) async fn event_deadlines(&mut self, now_ms: u64) -> Result<Flow, Fatal> {
        let missing: Vec<Color> = Color::BOTH
            .into_iter()
            .filter(|&color| {
                self.lateness_deadline_ms(color)
                    .is_some_and(|due| now_ms >= due)
            })
            .collect();
        match missing.as_slice() {
            [] => {}
            [late] => {
                let result = GameResult::Win {
                    winner: late.opponent(),
                    win_by: WinBy::Forfeit,
                };
                return self.end_with(result).await;
            }
            _ => return self.end_with(GameResult::Void).await,
        }
        if self.sealed_due().is_some() {
            return self.play_sealed(now_ms).await;
        }
        if self
            .core
            .rules
            .halt
            .is_some_and(|halt| now_ms >= halt.due_ms)
        {
            return match self.resume_halted().await? {
                Ok(flow) => Ok(flow),
                Err(_) => Ok(Flow::Continue),
            };
        }
        Ok(Flow::Continue)
    }

    /// Players connected to the game who had not arrived arrive now.
    pub(super) async fn arrive_present(&mut self) -> Result<(), Fatal> {
        for color in Color::BOTH {
            if self.presence.counts[color.index()].load(Ordering::SeqCst) > 0 {
                self.arrive(color).await?;
            }
        }
        Ok(())
    }

    /// `color` arrives now, if they had not: they are charged what makes their lateness cost twice
    /// over, and the arrival is logged.
    pub(super) async fn arrive(&mut self, color: Color) -> Result<(), Fatal> {
        if self.core.rules.arrived[color.index()] || self.core.outcome.is_some() {
            return Ok(());
        }
        let late_ms = self.now_ms();
        let charged_ms = self.charge_lateness(color, late_ms);
        self.core.rules.arrived[color.index()] = true;
        let arrived = GameEvent::Arrived {
            color,
            late_ms,
            charged_ms,
        };
        self.commit_at(arrived, late_ms).await
    }

    /// Store and announce `event` at game time `at_ms`, the instant its clock change was made at.
    async fn commit_at(&mut self, event: GameEvent, at_ms: u64) -> Result<(), Fatal> {
        let logged = self.append_logged(event, None, None, at_ms).await?;
        self.announce(logged);
        Ok(())
    }

    /// Take from `color`'s main time what their own clock did not charge them during `late_ms`,
    /// so that they lose `2 · late_ms` in all; returns what was taken (never more than they had).
    fn charge_lateness(&mut self, color: Color, late_ms: u64) -> u64 {
        let main_time_ms = main_time_ms(&self.core.settings.clock);
        let Some(clock) = &mut self.core.clock else {
            return 0;
        };
        // Out of time already: the deadline that ends the game (or forces a pass) comes first, and
        // charging now would apply it where the run loop would not see it.
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

    /// The director warns `color`: a point off their count, noted in the record.
    pub(super) async fn warn(&mut self, color: Color) -> Result<Result<Flow, Refusal>, Fatal> {
        if self.core.outcome.is_some() {
            return Ok(Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game has ended",
            )));
        }
        let warnings = self.core.rules.warnings[color.index()] + 1;
        if warnings > GAME_WARNINGS_MAX {
            return Ok(Err(Refusal::new(
                ErrorCode::NotAllowed,
                format!("a player has at most {GAME_WARNINGS_MAX} warnings in a game"),
            )));
        }
        self.note_warning(color, warnings);
        self.commit(GameEvent::Warned { color, warnings }).await?;
        Ok(Ok(Flow::Continue))
    }

    fn note_warning(&mut self, color: Color, warnings: u32) {
        self.core.rules.warnings[color.index()] = warnings;
        let name = match color {
            Color::Black => "Black",
            Color::White => "White",
        };
        let note = format!(
            "{name} warned by the event's director (warning {warnings}): one point off {name}'s count"
        );
        self.core
            .rules
            .notes
            .push((self.core.game.moves().len(), note));
    }

    /// The count of the board as marked, less each player's warnings, and its result.
    pub(super) fn counted(&self) -> (GameResult, GameOutcome) {
        let dead: Vec<Point> = self
            .core
            .scoring
            .as_ref()
            .map(|s| s.dead.iter().copied().collect())
            .unwrap_or_default();
        let score = self.core.game.score(&dead);
        let [black_off, white_off] = self.core.rules.warnings.map(|w| w.saturating_mul(2));
        if black_off == 0 && white_off == 0 {
            return (score.result, wire::outcome(score.result, Some(&score)));
        }
        let margin =
            i64::from(score.black_margin_half_points) - i64::from(black_off) + i64::from(white_off);
        let margin = i32::try_from(margin).unwrap_or(score.black_margin_half_points);
        let result = GameResult::from_margin(margin);
        let mut outcome = wire::outcome(result, Some(&score));
        outcome.black_count_half_points = outcome
            .black_count_half_points
            .map(|h| h.saturating_sub(black_off));
        outcome.white_count_half_points = outcome
            .white_count_half_points
            .map(|h| h.saturating_sub(white_off));
        (result, outcome)
    }

    /// Moves, passes, resignations and undo wait while the game is paused or adjourned.
    pub(super) fn refuse_if_halted(&self) -> Result<(), Refusal> {
        let Some(halt) = self.core.rules.halt else {
            return Ok(());
        };
        let message = match (halt.kind, self.core.rules.sealed) {
            (HaltKind::Pause, _) => "the game is paused by the event's director until it resumes",
            (HaltKind::Adjournment, None) => {
                "the game is adjourned: the player to move seals a move (seal_move)"
            }
            (HaltKind::Adjournment, Some(_)) => {
                "the game is adjourned; the sealed move is played when it resumes"
            }
        };
        Err(Refusal::new(ErrorCode::WrongPhase, message))
    }

    /// The director pauses (`Pause`) or adjourns (`Adjournment`) the game until `resume_at_ms`.
    pub(super) async fn halt(
        &mut self,
        kind: HaltKind,
        resume_at_ms: u64,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let resume_in_ms = match self.may_halt(resume_at_ms) {
            Ok(resume_in_ms) => resume_in_ms,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let now_ms = self.now_ms();
        let due_ms = now_ms + resume_in_ms;
        self.core.rules.halt = Some(Halted {
            kind,
            resume_at_ms,
            due_ms,
        });
        let to_move = self.core.game.to_move();
        let (event, action) = match kind {
            HaltKind::Pause => {
                self.stop_clocks(now_ms);
                let paused = GameEvent::Paused {
                    resume_at_ms,
                    resume_in_ms,
                };
                (paused, "paused")
            }
            // The player to move thinks on, on their own time, until they seal.
            HaltKind::Adjournment => {
                let adjourned = GameEvent::Adjourned {
                    to_move,
                    resume_at_ms,
                    resume_in_ms,
                };
                (adjourned, "adjourned")
            }
        };
        self.commit_at(event, now_ms).await?;
        self.tell_event(action, None, Some(resume_at_ms)).await;
        Ok(Ok(Flow::Continue))
    }

    /// Whether the game may be paused or adjourned until `resume_at_ms`: how long from now, if so.
    fn may_halt(&self, resume_at_ms: u64) -> Result<u64, Refusal> {
        if self.core.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game has ended"));
        }
        if self.core.game.phase() != Phase::Play {
            return Err(Refusal::new(
                ErrorCode::WrongPhase,
                "only a game in play can be paused or adjourned (not while scoring)",
            ));
        }
        if self.core.rules.halt.is_some() {
            return Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game is already paused or adjourned",
            ));
        }
        let resume_in_ms = resume_at_ms.saturating_sub(unix_now_ms());
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

    /// Both clocks stop at `now_ms` (a clock that is not running has nothing to stop).
    fn stop_clocks(&mut self, now_ms: u64) {
        if let Some(clock) = &mut self.core.clock {
            let _ = clock.pause(now_ms);
        }
    }

    /// In an adjourned game, the player to move seals their move: stored with the log entry only,
    /// announced as sealed without the move; both clocks stop.
    pub(super) async fn seal(
        &mut self,
        user: UserId,
        point: Option<Point>,
    ) -> Result<Result<Flow, Refusal>, Fatal> {
        let color = match self.color_of(user) {
            Ok(color) => color,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let adjourned = self
            .core
            .rules
            .halt
            .is_some_and(|halt| halt.kind == HaltKind::Adjournment);
        if !adjourned || self.core.rules.sealed.is_some() || self.core.outcome.is_some() {
            return Ok(Err(Refusal::new(
                ErrorCode::WrongPhase,
                "no adjournment waits for a sealed move in this game",
            )));
        }
        if color != self.core.game.to_move() {
            return Ok(Err(Refusal::new(
                ErrorCode::NotYourTurn,
                "the player to move seals the move",
            )));
        }
        if let Some(point) = point {
            if let Err(reason) = self.core.game.check_play(color, point) {
                return Ok(Err(wire::illegal(reason)));
            }
        }
        self.arrive(color).await?;
        let now_ms = self.now_ms();
        self.stop_clocks(now_ms);
        self.core.rules.sealed = Some((color, point));
        let sealed = Sealed { point };
        let event = GameEvent::Sealed { color };
        let logged = self
            .append_logged(event, None, Some(sealed), now_ms)
            .await?;
        self.announce(logged);
        let user = Some(self.user_of(color));
        self.tell_event("sealed", user, None).await;
        Ok(Ok(Flow::Continue))
    }

    /// The pause or adjournment ends (the director's word, or the set time): clocks run again, and
    /// a sealed move is played.
    pub(super) async fn resume_halted(&mut self) -> Result<Result<Flow, Refusal>, Fatal> {
        if self.core.rules.halt.is_none() || self.core.outcome.is_some() {
            return Ok(Err(Refusal::new(
                ErrorCode::WrongPhase,
                "the game is not paused or adjourned",
            )));
        }
        self.core.rules.halt = None;
        let now_ms = self.now_ms();
        self.restart_clocks(now_ms);
        self.commit_at(GameEvent::Resumed, now_ms).await?;
        self.tell_event("resumed", None, None).await;
        self.play_sealed(now_ms).await.map(Ok)
    }

    /// The side to move's clock runs again from `now_ms`, if it was stopped.
    fn restart_clocks(&mut self, now_ms: u64) {
        let to_move = self.core.game.to_move();
        if let Some(clock) = &mut self.core.clock {
            if !clock.is_running() {
                let _ = clock.resume(now_ms, to_move);
            }
        }
    }

    /// The sealed move, once the game has resumed, played as an ordinary move at the resumption's
    /// instant `at_ms` (the sealer is not charged for the time the resumption took to record).
    pub(super) async fn play_sealed(&mut self, at_ms: u64) -> Result<Flow, Fatal> {
        let Some((color, point)) = self.core.rules.sealed.take() else {
            return Ok(Flow::Continue);
        };
        let mv = point.map_or(Move::Pass, Move::Play);
        if let Err(reason) = self.core.game.play(color, mv) {
            tracing::warn!(game = %self.id, %reason, "a sealed move was illegal; its player loses");
            let result = GameResult::Win {
                winner: color.opponent(),
                win_by: WinBy::Forfeit,
            };
            return self.end_with(result).await;
        }
        self.core.undo_request = None;
        let event = match mv {
            Move::Play(point) => GameEvent::Played {
                color,
                point,
                captured: self.core.game.last_captured().to_vec(),
            },
            _ => GameEvent::Passed {
                color,
                forced: false,
            },
        };
        self.clock_moved(at_ms);
        self.commit_at(event, at_ms).await?;
        if self.core.game.phase() == Phase::Scoring {
            self.open_scoring().await?;
        }
        Ok(Flow::Continue)
    }

    /// Tell the hall, for the event's log (a game that is no event's is not in it: nothing happens).
    async fn tell_event(&self, action: &str, user: Option<UserId>, until_ms: Option<u64>) {
        let logged = GameNotice::EventLogged {
            game: self.id,
            action: action.to_string(),
            user,
            until_ms,
        };
        self.ctx.hall.tell(logged).await;
    }

    fn user_of(&self, color: Color) -> UserId {
        match color {
            Color::Black => self.black.user,
            Color::White => self.white.user,
        }
    }

    /// Apply one recorded event with what its log entry alone holds (the sealed move).
    pub(super) fn replay_logged(&mut self, logged: &LoggedEvent) -> Result<(), BoxError> {
        self.replay(&logged.event, logged.at_ms)?;
        match (&logged.event, &logged.sealed) {
            (GameEvent::Sealed { color }, Some(sealed)) => {
                self.core.rules.sealed = Some((*color, sealed.point));
            }
            // The sealed move played at the resumption.
            (GameEvent::Played { .. } | GameEvent::Passed { .. }, _)
                if self.core.rules.halt.is_none() =>
            {
                self.core.rules.sealed = None;
            }
            _ => {}
        }
        Ok(())
    }

    /// Replay an event rule's event at game time `at_ms`.
    pub(super) fn replay_event_rule(&mut self, event: &GameEvent, at_ms: u64) {
        match *event {
            GameEvent::Arrived {
                color, charged_ms, ..
            } => {
                self.core.rules.arrived[color.index()] = true;
                if let Some(clock) = &mut self.core.clock {
                    let _ = clock.take_main(color, charged_ms, at_ms);
                }
            }
            GameEvent::Warned { color, warnings } => {
                self.note_warning(color, warnings);
            }
            GameEvent::Paused {
                resume_at_ms,
                resume_in_ms,
            } => {
                self.stop_clocks(at_ms);
                self.replay_halt(HaltKind::Pause, resume_at_ms, at_ms + resume_in_ms);
            }
            GameEvent::Adjourned {
                resume_at_ms,
                resume_in_ms,
                ..
            } => self.replay_halt(HaltKind::Adjournment, resume_at_ms, at_ms + resume_in_ms),
            GameEvent::Sealed { .. } => self.stop_clocks(at_ms),
            GameEvent::Resumed => {
                self.core.rules.halt = None;
                self.restart_clocks(at_ms);
            }
            _ => {}
        }
    }

    fn replay_halt(&mut self, kind: HaltKind, resume_at_ms: u64, due_ms: u64) {
        self.core.rules.halt = Some(Halted {
            kind,
            resume_at_ms,
            due_ms,
        });
    }

    /// After a restart at game time `now_ms`: a halt ends at its wall-clock time even though the
    /// downtime did not count as game time. (A sealed move whose resumption was logged but not its
    /// move is due at once: see [`GameActor::event_deadline_ms`].)
    pub(super) fn event_rules_restored(&mut self, now_ms: u64) {
        if let Some(halt) = &mut self.core.rules.halt {
            let wall_due_ms = now_ms + halt.resume_at_ms.saturating_sub(unix_now_ms());
            halt.due_ms = halt.due_ms.min(wall_due_ms);
        }
    }

    /// What the game state shows of the event rules: who is awaited, the warnings, a halt.
    pub(super) fn event_state(&self, now_ms: u64) -> (Vec<Awaited>, [u32; 2], Option<Halt>) {
        if self.core.outcome.is_some() {
            return (Vec::new(), self.core.rules.warnings, None);
        }
        let wall_ms = unix_now_ms();
        let awaited = Color::BOTH
            .into_iter()
            .filter_map(|color| {
                let due_ms = self.lateness_deadline_ms(color)?;
                let forfeit_in_ms = due_ms.saturating_sub(now_ms);
                Some(Awaited {
                    color,
                    forfeit_at_ms: wall_ms + forfeit_in_ms,
                    forfeit_in_ms,
                })
            })
            .collect();
        let halt = self.core.rules.halt.map(|halt| {
            let adjourned = halt.kind == HaltKind::Adjournment;
            let sealer = match self.core.rules.sealed {
                Some((color, _)) => Some(color),
                None => adjourned.then(|| self.core.game.to_move()),
            };
            Halt {
                kind: halt.kind,
                resume_at_ms: halt.resume_at_ms,
                resume_in_ms: halt.due_ms.saturating_sub(now_ms),
                sealer,
                sealed: self.core.rules.sealed.is_some(),
            }
        });
        (awaited, self.core.rules.warnings, halt)
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
