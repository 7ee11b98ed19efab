//! The game clock: a pure state machine for both players' time under every time system Tengen offers
//! (absolute, Chinese byo-yomi, moves-in-time, Fischer). It owns the arithmetic of who has how much time
//! left and exactly when the side to move runs out; it never reads a clock, sleeps or does I/O. The game
//! actor passes `now_ms` (a monotonic millisecond count) into every call, sets one timer for
//! [`Clock::deadline_ms`], and decides what a timeout means for the game (loss, or a forced pass).
//!
//! # Semantics, to the millisecond
//! - Every budget is a half-open interval: a player with `x` ms left may still move at `x - 1` ms elapsed;
//!   at exactly `x` ms the budget is used up. [`Clock::deadline_ms`] is that first instant, and
//!   [`Clock::check`] reports an expiry exactly from it on.
//! - Absolute: main time only; when it is used up the player loses.
//! - Byo-yomi: after main time, `periods` periods of `period_ms`. A move made inside a period costs nothing
//!   (the next turn starts with a full period); every full period used up consumes one; when the last one is
//!   used up the player loses. A move made at the very instant main time ends costs no period.
//!   With `timeout_is_pass`, running out of the last period instead forces a pass: the player gets that last
//!   period back (one full period, `periods_left == 1`) and the turn goes to the opponent, whose clock starts
//!   at the `now_ms` of the call that noticed the expiry, so a late timer never charges the opponent.
//! - Moves-in-time (定时限步制, Canadian): after main time, `moves_per_block` moves must be made within
//!   `block_ms`. The first move made once main time is used up (including at that very instant) is the first of
//!   the first block. When a block's last move is made, the time left in the block carries over: the next
//!   block has `block_ms + leftover`. Running out of a block loses.
//! - Fischer: `increment_ms` is added after each completed move, but never above `max_time_ms`; running out
//!   loses. The increment is never given for the first move before it is made (the common online rule).
//! - Pauses (scoring phase, server downtime) charge nothing: the time between `pause` and `resume` belongs to
//!   no one. A partly used byo-yomi period survives a pause if the same side resumes; if the other side
//!   resumes (play restarts after a dispute), the paused side's turn ended without a move, so its period
//!   usage resets, but no increment or block move is credited.
//! - A `now_ms` earlier than the last event (it should never happen with a monotonic clock) charges nothing
//!   rather than failing.
//! - Every operation that finds the side to move already out of time applies that expiry first and returns
//!   it as [`ClockError::Expired`] without doing anything else; the caller handles it and may retry.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest any single time setting may be: one day. Anything longer is a typo rather than a game, and
/// the bound keeps every sum in this module far from `u64` overflow.
pub const TIME_MS_MAX: u64 = 24 * 60 * 60 * 1000;

/// The most byo-yomi periods a table may set. Real games use 1 to 10; a bound keeps `periods × period_ms`
/// within a few days.
pub const PERIODS_MAX: u32 = 100;

/// The most moves a moves-in-time block may require. A whole 19x19 game rarely exceeds 400 moves per player.
pub const MOVES_PER_BLOCK_MAX: u32 = 1000;

/// The time system a table agreed on, as White proposed and Black confirmed. Durations are integer
/// milliseconds. Validate with [`ClockSettings::validate`] (which [`Clock::new`] does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "system", rename_all = "snake_case")]
pub enum ClockSettings {
    /// 包干: main time only.
    Absolute { main_time_ms: u64 },
    /// 读秒: main time, then `periods` periods of `period_ms` each.
    ByoYomi {
        main_time_ms: u64,
        periods: u32,
        period_ms: u64,
        /// When the last period runs out, force a pass instead of losing on time.
        timeout_is_pass: bool,
    },
    /// 定时限步制: main time, then `moves_per_block` moves within each block of `block_ms`, leftover carried.
    Canadian {
        main_time_ms: u64,
        moves_per_block: u32,
        block_ms: u64,
    },
    /// Fischer: main time, plus `increment_ms` after every move, capped at `max_time_ms`.
    Fischer {
        main_time_ms: u64,
        increment_ms: u64,
        max_time_ms: u64,
    },
}

/// Why a [`ClockSettings`] was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsError {
    /// A system without overtime needs some main time, or the first player would lose at once.
    NoMainTime,
    /// Byo-yomi needs at least one period.
    ZeroPeriods,
    /// Overtime periods and blocks must last at least a millisecond.
    ZeroOvertime,
    /// Moves-in-time needs at least one move per block.
    ZeroMovesPerBlock,
    /// A duration above [`TIME_MS_MAX`].
    TooLong { field: &'static str, value_ms: u64 },
    /// More periods than [`PERIODS_MAX`].
    TooManyPeriods { periods: u32 },
    /// More moves per block than [`MOVES_PER_BLOCK_MAX`].
    TooManyMovesPerBlock { moves_per_block: u32 },
    /// Fischer main time above the cap it could never be raised to.
    MainAboveMax { main_time_ms: u64, max_time_ms: u64 },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::NoMainTime => f.write_str("this time system needs some main time"),
            SettingsError::ZeroPeriods => f.write_str("byo-yomi needs at least one period"),
            SettingsError::ZeroOvertime => {
                f.write_str("overtime periods and blocks cannot be zero")
            }
            SettingsError::ZeroMovesPerBlock => f.write_str("a block needs at least one move"),
            SettingsError::TooLong { field, value_ms } => {
                write!(
                    f,
                    "{field} of {value_ms} ms is longer than {TIME_MS_MAX} ms (24 h)"
                )
            }
            SettingsError::TooManyPeriods { periods } => {
                write!(f, "{periods} periods is more than {PERIODS_MAX}")
            }
            SettingsError::TooManyMovesPerBlock { moves_per_block } => {
                write!(
                    f,
                    "{moves_per_block} moves per block is more than {MOVES_PER_BLOCK_MAX}"
                )
            }
            SettingsError::MainAboveMax {
                main_time_ms,
                max_time_ms,
            } => write!(
                f,
                "main time {main_time_ms} ms exceeds the maximum time {max_time_ms} ms"
            ),
        }
    }
}

impl std::error::Error for SettingsError {}

fn check_duration(field: &'static str, value_ms: u64) -> Result<(), SettingsError> {
    if value_ms > TIME_MS_MAX {
        return Err(SettingsError::TooLong { field, value_ms });
    }
    Ok(())
}

impl ClockSettings {
    /// Refuses settings that cannot make a playable game or that exceed the bounds above.
    pub fn validate(&self) -> Result<(), SettingsError> {
        match *self {
            ClockSettings::Absolute { main_time_ms } => {
                check_duration("main_time_ms", main_time_ms)?;
                if main_time_ms == 0 {
                    return Err(SettingsError::NoMainTime);
                }
            }
            ClockSettings::ByoYomi {
                main_time_ms,
                periods,
                period_ms,
                ..
            } => {
                check_duration("main_time_ms", main_time_ms)?;
                check_duration("period_ms", period_ms)?;
                if periods == 0 {
                    return Err(SettingsError::ZeroPeriods);
                }
                if periods > PERIODS_MAX {
                    return Err(SettingsError::TooManyPeriods { periods });
                }
                if period_ms == 0 {
                    return Err(SettingsError::ZeroOvertime);
                }
            }
            ClockSettings::Canadian {
                main_time_ms,
                moves_per_block,
                block_ms,
            } => {
                check_duration("main_time_ms", main_time_ms)?;
                check_duration("block_ms", block_ms)?;
                if moves_per_block == 0 {
                    return Err(SettingsError::ZeroMovesPerBlock);
                }
                if moves_per_block > MOVES_PER_BLOCK_MAX {
                    return Err(SettingsError::TooManyMovesPerBlock { moves_per_block });
                }
                if block_ms == 0 {
                    return Err(SettingsError::ZeroOvertime);
                }
            }
            ClockSettings::Fischer {
                main_time_ms,
                increment_ms,
                max_time_ms,
            } => {
                check_duration("main_time_ms", main_time_ms)?;
                check_duration("increment_ms", increment_ms)?;
                check_duration("max_time_ms", max_time_ms)?;
                if main_time_ms == 0 {
                    return Err(SettingsError::NoMainTime);
                }
                if main_time_ms > max_time_ms {
                    return Err(SettingsError::MainAboveMax {
                        main_time_ms,
                        max_time_ms,
                    });
                }
            }
        }
        Ok(())
    }

    fn main_time_ms(&self) -> u64 {
        match *self {
            ClockSettings::Absolute { main_time_ms }
            | ClockSettings::ByoYomi { main_time_ms, .. }
            | ClockSettings::Canadian { main_time_ms, .. }
            | ClockSettings::Fischer { main_time_ms, .. } => main_time_ms,
        }
    }
}

/// What one player has left. Fields a time system does not use stay 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Budget {
    main_left_ms: u64,
    /// Byo-yomi periods left, counting the one in use.
    periods_left: u32,
    /// Time already used of the current byo-yomi period in this turn (before a pause). Always < `period_ms`.
    period_used_ms: u64,
    /// Moves still due in the current moves-in-time block.
    moves_left_in_block: u32,
    /// Time left in the current moves-in-time block.
    block_left_ms: u64,
}

impl Budget {
    fn fresh(settings: &ClockSettings) -> Budget {
        let mut budget = Budget {
            main_left_ms: settings.main_time_ms(),
            periods_left: 0,
            period_used_ms: 0,
            moves_left_in_block: 0,
            block_left_ms: 0,
        };
        match *settings {
            ClockSettings::ByoYomi { periods, .. } => budget.periods_left = periods,
            ClockSettings::Canadian {
                moves_per_block,
                block_ms,
                ..
            } => {
                budget.moves_left_in_block = moves_per_block;
                budget.block_left_ms = block_ms;
            }
            ClockSettings::Absolute { .. } | ClockSettings::Fischer { .. } => {}
        }
        budget
    }

    /// How long this player can think before flagging: the turn's deadline is `since + this`.
    fn time_to_flag_ms(&self, settings: &ClockSettings) -> u64 {
        let overtime_ms = match *settings {
            ClockSettings::Absolute { .. } | ClockSettings::Fischer { .. } => 0,
            ClockSettings::ByoYomi { period_ms, .. } => u64::from(self.periods_left)
                .saturating_mul(period_ms)
                .saturating_sub(self.period_used_ms),
            ClockSettings::Canadian { .. } => self.block_left_ms,
        };
        self.main_left_ms.saturating_add(overtime_ms)
    }

    /// Charges `elapsed_ms` of thinking. `None` means the player ran out, which happens exactly when
    /// `elapsed_ms >= self.time_to_flag_ms(settings)`.
    fn spend(mut self, settings: &ClockSettings, elapsed_ms: u64) -> Option<Budget> {
        if elapsed_ms >= self.time_to_flag_ms(settings) {
            return None;
        }
        let from_main_ms = elapsed_ms.min(self.main_left_ms);
        self.main_left_ms -= from_main_ms;
        let overtime_ms = elapsed_ms - from_main_ms;
        match *settings {
            // Both flag when main time is gone, which the guard above already ruled out.
            ClockSettings::Absolute { .. } | ClockSettings::Fischer { .. } => {}
            ClockSettings::ByoYomi { period_ms, .. } => {
                let used_ms = self.period_used_ms.saturating_add(overtime_ms);
                let full_periods = used_ms / period_ms.max(1);
                // The guard guarantees fewer full periods than are left, so this fits and stays >= 1.
                let full_periods = u32::try_from(full_periods).unwrap_or(u32::MAX);
                self.periods_left = self.periods_left.saturating_sub(full_periods);
                self.period_used_ms = used_ms % period_ms.max(1);
            }
            ClockSettings::Canadian { .. } => {
                self.block_left_ms = self.block_left_ms.saturating_sub(overtime_ms);
            }
        }
        Some(self)
    }

    /// Credits a completed move: a byo-yomi period resets, a block counts the move (and carries its
    /// leftover into the next block when complete), Fischer adds its capped increment.
    fn complete_move(&mut self, settings: &ClockSettings) -> MoveCredit {
        let mut credit = MoveCredit::default();
        match *settings {
            ClockSettings::Absolute { .. } => {}
            ClockSettings::ByoYomi { .. } => self.period_used_ms = 0,
            ClockSettings::Canadian {
                moves_per_block,
                block_ms,
                ..
            } => {
                // Moves made during main time do not count towards any block.
                if self.main_left_ms == 0 {
                    self.moves_left_in_block = self.moves_left_in_block.saturating_sub(1);
                    if self.moves_left_in_block == 0 {
                        self.moves_left_in_block = moves_per_block;
                        self.block_left_ms = block_ms.saturating_add(self.block_left_ms);
                        credit.block_completed = true;
                    }
                }
            }
            ClockSettings::Fischer {
                increment_ms,
                max_time_ms,
                ..
            } => {
                let before_ms = self.main_left_ms;
                self.main_left_ms = before_ms
                    .saturating_add(increment_ms)
                    .min(max_time_ms)
                    .max(before_ms);
                credit.increment_ms = self.main_left_ms - before_ms;
            }
        }
        credit
    }

    fn view(&self, settings: &ClockSettings, running: bool) -> SideView {
        let period_left_ms = match *settings {
            ClockSettings::ByoYomi { period_ms, .. } => {
                period_ms.saturating_sub(self.period_used_ms)
            }
            _ => 0,
        };
        SideView {
            main_left_ms: self.main_left_ms,
            periods_left: self.periods_left,
            period_left_ms,
            moves_left_in_block: self.moves_left_in_block,
            block_left_ms: self.block_left_ms,
            running,
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct MoveCredit {
    increment_ms: u64,
    block_completed: bool,
}

/// What a move cost its player, for the game record and the clients' announcements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveCharge {
    pub side: Side,
    /// Thinking time charged for this move (pauses excluded).
    pub elapsed_ms: u64,
    /// Byo-yomi periods used up by this move (0 for a move made within a period).
    pub periods_used: u32,
    /// Fischer time actually added, after the cap.
    pub increment_ms: u64,
    /// This move completed a moves-in-time block (the leftover was carried into the next block).
    pub block_completed: bool,
}

/// A side ran out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "side", rename_all = "snake_case")]
pub enum Expiry {
    /// The side lost on time (超时判负). The clock is finished.
    Timeout(Side),
    /// Byo-yomi with `timeout_is_pass`: the side must be recorded as passing; it has one full period
    /// again and the opponent's clock is now running.
    ForcedPass(Side),
}

impl fmt::Display for Expiry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expiry::Timeout(side) => write!(f, "{side} ran out of time"),
            Expiry::ForcedPass(side) => write!(f, "{side} ran out of time and passes"),
        }
    }
}

/// Why a clock operation did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockError {
    /// `start` was already called.
    AlreadyStarted,
    /// The clock has not started.
    NotStarted,
    /// The clock is paused (moves and pauses need a running clock).
    Paused,
    /// `resume` needs a paused clock.
    NotPaused,
    /// The clock was stopped or a side timed out; nothing more runs.
    Finished,
    /// The side to move had already run out when the call arrived; the expiry was applied instead.
    Expired(Expiry),
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockError::AlreadyStarted => f.write_str("the clock has already started"),
            ClockError::NotStarted => f.write_str("the clock has not started"),
            ClockError::Paused => f.write_str("the clock is paused"),
            ClockError::NotPaused => f.write_str("the clock is not paused"),
            ClockError::Finished => f.write_str("the clock has stopped"),
            ClockError::Expired(expiry) => expiry.fmt(f),
        }
    }
}

impl std::error::Error for ClockError {}

/// One side's clock as clients display it. Fields the time system does not use are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideView {
    pub main_left_ms: u64,
    /// Byo-yomi periods left, counting the one in use.
    pub periods_left: u32,
    /// Byo-yomi: what is left of the current period (a full period outside overtime).
    pub period_left_ms: u64,
    /// Moves-in-time: moves still due in the current block.
    pub moves_left_in_block: u32,
    /// Moves-in-time: time left in the current block.
    pub block_left_ms: u64,
    /// This side's clock is ticking.
    pub running: bool,
}

/// Both clocks at one instant, for the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    pub black: SideView,
    pub white: SideView,
}

impl ClockView {
    /// The view of one side.
    pub fn side(&self, side: Side) -> &SideView {
        match side {
            Side::Black => &self.black,
            Side::White => &self.white,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    NotStarted,
    Running { to_move: Side, since_ms: u64 },
    Paused { to_move: Side },
    Finished { timed_out: Option<Side> },
}

/// Both players' clocks for one game. Serializable so a live game's clock survives a restart: after a crash,
/// restore it, `pause` at the last instant the old process was known alive, then `resume`, so the downtime is
/// charged to no one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ClockRecord")]
pub struct Clock {
    settings: ClockSettings,
    budgets: [Budget; 2],
    phase: Phase,
}

/// The serialized form of a [`Clock`], validated on the way back in so stored junk cannot break invariants.
#[derive(Deserialize)]
struct ClockRecord {
    settings: ClockSettings,
    budgets: [Budget; 2],
    phase: Phase,
}

impl TryFrom<ClockRecord> for Clock {
    type Error = SettingsError;

    fn try_from(record: ClockRecord) -> Result<Self, Self::Error> {
        record.settings.validate()?;
        Ok(Clock {
            settings: record.settings,
            budgets: record.budgets,
            phase: record.phase,
        })
    }
}

impl Clock {
    /// A clock with full time for both sides, not yet running.
    pub fn new(settings: ClockSettings) -> Result<Clock, SettingsError> {
        settings.validate()?;
        let budget = Budget::fresh(&settings);
        Ok(Clock {
            settings,
            budgets: [budget; 2],
            phase: Phase::NotStarted,
        })
    }

    pub fn settings(&self) -> &ClockSettings {
        &self.settings
    }

    /// The side whose turn it is, while the clock is running or paused.
    pub fn to_move(&self) -> Option<Side> {
        match self.phase {
            Phase::Running { to_move, .. } | Phase::Paused { to_move } => Some(to_move),
            Phase::NotStarted | Phase::Finished { .. } => None,
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// The side that lost on time, once that has happened.
    pub fn timed_out(&self) -> Option<Side> {
        match self.phase {
            Phase::Finished { timed_out } => timed_out,
            _ => None,
        }
    }

    /// Starts `to_move`'s clock at `now_ms` (Black normally, White after handicap stones).
    pub fn start(&mut self, now_ms: u64, to_move: Side) -> Result<(), ClockError> {
        match self.phase {
            Phase::NotStarted => {
                self.phase = Phase::Running {
                    to_move,
                    since_ms: now_ms,
                };
                Ok(())
            }
            Phase::Finished { .. } => Err(ClockError::Finished),
            Phase::Running { .. } | Phase::Paused { .. } => Err(ClockError::AlreadyStarted),
        }
    }

    /// The instant the side to move runs out, while running; the actor sets its one timer here.
    pub fn deadline_ms(&self) -> Option<u64> {
        match self.phase {
            Phase::Running { to_move, since_ms } => {
                let budget = &self.budgets[to_move.index()];
                Some(since_ms.saturating_add(budget.time_to_flag_ms(&self.settings)))
            }
            _ => None,
        }
    }

    /// Applies and reports an expiry if the side to move has run out by `now_ms`. Each expiry is
    /// reported once: a timeout finishes the clock; a forced pass hands the turn to the opponent.
    pub fn check(&mut self, now_ms: u64) -> Option<Expiry> {
        let Phase::Running { to_move, .. } = self.phase else {
            return None;
        };
        if now_ms < self.deadline_ms()? {
            return None;
        }
        Some(self.expire(now_ms, to_move))
    }

    /// The side to move completed a move at `now_ms`: charges its thinking time, credits the move and
    /// starts the opponent's clock.
    pub fn on_move(&mut self, now_ms: u64) -> Result<MoveCharge, ClockError> {
        let (to_move, _) = self.running()?;
        let before = self.budgets[to_move.index()];
        let elapsed_ms = self.charge(now_ms)?;
        let budget = &mut self.budgets[to_move.index()];
        let credit = budget.complete_move(&self.settings);
        let charge = MoveCharge {
            side: to_move,
            elapsed_ms,
            periods_used: before.periods_left.saturating_sub(budget.periods_left),
            increment_ms: credit.increment_ms,
            block_completed: credit.block_completed,
        };
        self.phase = Phase::Running {
            to_move: to_move.other(),
            since_ms: now_ms,
        };
        Ok(charge)
    }

    /// Stops the running clock at `now_ms` without ending the turn (scoring phase, server shutdown).
    pub fn pause(&mut self, now_ms: u64) -> Result<(), ClockError> {
        let (to_move, _) = self.running()?;
        self.charge(now_ms)?;
        self.phase = Phase::Paused { to_move };
        Ok(())
    }

    /// Restarts a paused clock at `now_ms` with `to_move` to play (the same side after downtime; after a
    /// scoring dispute, the side that claimed the disputed stones dead).
    pub fn resume(&mut self, now_ms: u64, to_move: Side) -> Result<(), ClockError> {
        let paused = match self.phase {
            Phase::Paused { to_move } => to_move,
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Finished { .. } => return Err(ClockError::Finished),
            Phase::Running { .. } => return Err(ClockError::NotPaused),
        };
        if paused != to_move {
            // The paused side's turn ended without a move: a partly used period is not carried on.
            self.budgets[paused.index()].period_used_ms = 0;
        }
        self.phase = Phase::Running {
            to_move,
            since_ms: now_ms,
        };
        Ok(())
    }

    /// Ends the clock for good at `now_ms` (resignation, scoring, abandonment), charging the running side.
    /// A paused clock just finishes.
    pub fn stop(&mut self, now_ms: u64) -> Result<(), ClockError> {
        match self.phase {
            Phase::Running { .. } => {
                self.charge(now_ms)?;
            }
            Phase::Paused { .. } => {}
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Finished { .. } => return Err(ClockError::Finished),
        }
        self.phase = Phase::Finished { timed_out: None };
        Ok(())
    }

    /// Both clocks as they stand at `now_ms`, without changing anything. A side that has run out by then
    /// shows all zeros until `check` applies the expiry.
    pub fn snapshot(&self, now_ms: u64) -> ClockView {
        let view_of = |side: Side| {
            let budget = self.budgets[side.index()];
            match self.phase {
                Phase::Running { to_move, since_ms } if to_move == side => {
                    let elapsed_ms = now_ms.saturating_sub(since_ms);
                    match budget.spend(&self.settings, elapsed_ms) {
                        Some(left) => left.view(&self.settings, true),
                        None => SideView {
                            main_left_ms: 0,
                            periods_left: 0,
                            period_left_ms: 0,
                            moves_left_in_block: budget.moves_left_in_block,
                            block_left_ms: 0,
                            running: true,
                        },
                    }
                }
                _ => budget.view(&self.settings, false),
            }
        };
        ClockView {
            black: view_of(Side::Black),
            white: view_of(Side::White),
        }
    }

    fn running(&self) -> Result<(Side, u64), ClockError> {
        match self.phase {
            Phase::Running { to_move, since_ms } => Ok((to_move, since_ms)),
            Phase::NotStarted => Err(ClockError::NotStarted),
            Phase::Paused { .. } => Err(ClockError::Paused),
            Phase::Finished { .. } => Err(ClockError::Finished),
        }
    }

    /// Charges the running side for the time since its turn (or resume) began, up to `now_ms`; the caller
    /// then sets the next phase. On running out, applies the expiry instead and returns it.
    fn charge(&mut self, now_ms: u64) -> Result<u64, ClockError> {
        let (to_move, since_ms) = self.running()?;
        let elapsed_ms = now_ms.saturating_sub(since_ms);
        let budget = self.budgets[to_move.index()];
        match budget.spend(&self.settings, elapsed_ms) {
            Some(left) => {
                self.budgets[to_move.index()] = left;
                Ok(elapsed_ms)
            }
            None => Err(ClockError::Expired(self.expire(now_ms, to_move))),
        }
    }

    /// `side` has run out: a loss, or with `timeout_is_pass` a forced pass that gives the last period back.
    fn expire(&mut self, now_ms: u64, side: Side) -> Expiry {
        let budget = &mut self.budgets[side.index()];
        budget.main_left_ms = 0;
        budget.period_used_ms = 0;
        budget.block_left_ms = 0;
        if let ClockSettings::ByoYomi {
            timeout_is_pass: true,
            ..
        } = self.settings
        {
            budget.periods_left = 1;
            self.phase = Phase::Running {
                to_move: side.other(),
                since_ms: now_ms,
            };
            return Expiry::ForcedPass(side);
        }
        budget.periods_left = 0;
        self.phase = Phase::Finished {
            timed_out: Some(side),
        };
        Expiry::Timeout(side)
    }
}
