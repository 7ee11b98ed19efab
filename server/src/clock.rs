//! The game clock: a pure state machine for both players' time under every time system Tengen
//! offers (absolute, Chinese byo-yomi, moves-in-time, Fischer). It owns the arithmetic of who has
//! how much time left and exactly when the side to move runs out; it never reads a clock, sleeps or
//! does I/O. The game actor passes `now_ms` (a monotonic millisecond count) into every call, sets
//! one timer for [`Clock::deadline_ms`], and turns the [`Expiry`] it reports into a game event (a
//! loss, or a forced pass).
//!
//! # Semantics, to the millisecond
//! - Every budget is a half-open interval: a player with `x` ms left may still move at `x - 1` ms
//!   elapsed; at exactly `x` ms the budget is used up. [`Clock::deadline_ms`] is that first
//!   instant, and [`Clock::check`] reports an expiry exactly from it on.
//! - Absolute: main time only; when it is used up the player loses.
//! - Byo-yomi: after main time, `periods` periods of `period_ms`. A move made inside a period costs
//!   nothing (the next turn starts with a full period); every full period used up consumes one;
//!   when the last one is used up the player loses. A move made at the very instant main time ends
//!   costs no period. With `timeout_is_pass`, running out of the last period instead forces a pass:
//!   the player gets that last period back (one full period, `periods_left == 1`) and the turn goes
//!   to the opponent, whose clock starts at the `now_ms` of the call that noticed the expiry, so a
//!   late timer never charges the opponent.
//! - Moves-in-time (定时限步制, Canadian): after main time, `moves` moves must be made within
//!   `block_ms`. The first move made once main time is used up (including at that very instant) is
//!   the first of the first block. When a block's last move is made, the time left in the block
//!   carries over: the next block has `block_ms + leftover`. Running out of a block loses.
//! - Fischer: `increment_ms` is added after each completed move, but never above `max_time_ms`;
//!   running out loses. The increment is added after each move, none before the first (as on most
//!   online servers).
//! - Pauses (scoring phase, server downtime) charge nothing: the time between `pause` and `resume`
//!   belongs to no one. A partly used byo-yomi period survives a pause if the same side resumes; if
//!   the other side resumes (play restarts after a dispute), the paused side's turn ended without a
//!   move, so its period usage resets, but no increment or block move is credited.
//! - A `now_ms` earlier than the last event (it should never happen with a monotonic clock) charges
//!   nothing rather than failing.
//! - Every operation that finds the side to move already out of time applies that expiry first and
//!   returns it as [`ClockError::Expired`] without doing anything else; the caller handles it and
//!   may retry.

use serde::{Deserialize, Serialize};
use std::fmt;
use tengen_rules::Color;

/// The longest any single time setting may be: one day. Anything longer is a typo rather than a
/// game, and the bound keeps every sum in this module far from `u64` overflow.
pub const TIME_MS_MAX: u64 = 24 * 60 * 60 * 1000;

/// The most byo-yomi periods a table may set. Real games use 1 to 10; the bound keeps all the
/// periods together within a few days.
pub const PERIODS_MAX: u32 = 100;

/// The most moves a moves-in-time block may require. A whole 19x19 game rarely exceeds 400 moves
/// per player.
pub const MOVES_PER_BLOCK_MAX: u32 = 1000;

/// The time system a table agreed on, as White proposed and Black confirmed: the protocol's own type,
/// so settings mean one thing from the table to the clock. Durations are integer milliseconds.
/// [`Clock::new`] runs every system but `None` (an untimed game has no clock), after [`validate`].
pub use tengen_protocol::ClockSettings;

/// Why a [`ClockSettings`] was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsError {
    /// An untimed game (`ClockSettings::None`) has no clock to run.
    Untimed,
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
            SettingsError::Untimed => f.write_str("an untimed game has no clock"),
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

/// Refuses settings that cannot make a playable game or that exceed the bounds above.
pub fn validate(settings: &ClockSettings) -> Result<(), SettingsError> {
    match *settings {
        ClockSettings::None => return Err(SettingsError::Untimed),
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
            moves: moves_per_block,
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

fn main_time_ms(settings: &ClockSettings) -> u64 {
    match *settings {
        ClockSettings::None => 0,
        ClockSettings::Absolute { main_time_ms }
        | ClockSettings::ByoYomi { main_time_ms, .. }
        | ClockSettings::Canadian { main_time_ms, .. }
        | ClockSettings::Fischer { main_time_ms, .. } => main_time_ms,
    }
}

/// What one player has left. Fields a time system does not use stay 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Budget {
    main_left_ms: u64,
    /// Byo-yomi periods left, counting the one in use.
    periods_left: u32,
    /// Time already used of the current byo-yomi period in this turn (before a pause); always
    /// below `period_ms`.
    period_used_ms: u64,
    /// Moves still due in the current moves-in-time block.
    moves_left_in_block: u32,
    /// Time left in the current moves-in-time block.
    block_left_ms: u64,
}

impl Budget {
    fn fresh(settings: &ClockSettings) -> Budget {
        let mut budget = Budget {
            main_left_ms: main_time_ms(settings),
            periods_left: 0,
            period_used_ms: 0,
            moves_left_in_block: 0,
            block_left_ms: 0,
        };
        match *settings {
            ClockSettings::ByoYomi { periods, .. } => budget.periods_left = periods,
            ClockSettings::Canadian {
                moves: moves_per_block,
                block_ms,
                ..
            } => {
                budget.moves_left_in_block = moves_per_block;
                budget.block_left_ms = block_ms;
            }
            ClockSettings::None
            | ClockSettings::Absolute { .. }
            | ClockSettings::Fischer { .. } => {}
        }
        budget
    }

    /// How long this player can think before flagging: the turn's deadline is `since + this`.
    fn time_to_flag_ms(&self, settings: &ClockSettings) -> u64 {
        let overtime_ms = match *settings {
            ClockSettings::None
            | ClockSettings::Absolute { .. }
            | ClockSettings::Fischer { .. } => 0,
            ClockSettings::ByoYomi { period_ms, .. } => u64::from(self.periods_left)
                .saturating_mul(period_ms)
                .saturating_sub(self.period_used_ms),
            ClockSettings::Canadian { .. } => self.block_left_ms,
        };
        self.main_left_ms.saturating_add(overtime_ms)
    }

    /// Charges `elapsed_ms` of thinking. `None` means the player ran out, which happens exactly
    /// when `elapsed_ms >= self.time_to_flag_ms(settings)`.
    fn spend(mut self, settings: &ClockSettings, elapsed_ms: u64) -> Option<Budget> {
        if elapsed_ms >= self.time_to_flag_ms(settings) {
            return None;
        }
        let from_main_ms = elapsed_ms.min(self.main_left_ms);
        self.main_left_ms -= from_main_ms;
        let overtime_ms = elapsed_ms - from_main_ms;
        match *settings {
            // Both flag when main time is gone, which the guard above already ruled out.
            ClockSettings::None
            | ClockSettings::Absolute { .. }
            | ClockSettings::Fischer { .. } => {}
            ClockSettings::ByoYomi { period_ms, .. } => {
                let used_ms = self.period_used_ms.saturating_add(overtime_ms);
                let full_periods = used_ms / period_ms.max(1);
                // The guard guarantees fewer full periods than are left: this fits, and at least
                // one period stays.
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
            ClockSettings::None | ClockSettings::Absolute { .. } => {}
            ClockSettings::ByoYomi { .. } => self.period_used_ms = 0,
            ClockSettings::Canadian {
                moves: moves_per_block,
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

    fn view(&self, settings: &ClockSettings, running: bool) -> SideClock {
        let period_left_ms = match *settings {
            ClockSettings::ByoYomi { period_ms, .. } => {
                period_ms.saturating_sub(self.period_used_ms)
            }
            _ => 0,
        };
        SideClock {
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
    pub side: Color,
    /// Thinking time charged for this move over the whole turn (pauses excluded).
    pub elapsed_ms: u64,
    /// Byo-yomi periods used up by this move over the whole turn (0 for a move made within a
    /// period).
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
    Timeout(Color),
    /// Byo-yomi with `timeout_is_pass`: the side must be recorded as passing; it has one full
    /// period again and the opponent's clock is now running.
    ForcedPass(Color),
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

/// One side's clock at an instant, exactly as the wire carries it (fields the time system does not
/// use are 0): the clock reports the protocol's own type, so there is one `SideClock` to keep in step.
pub use tengen_protocol::{Clocks, SideClock};

/// The clock of one side in a snapshot of both.
pub fn side_clock(clocks: &Clocks, side: Color) -> &SideClock {
    match side {
        Color::Black => &clocks.black,
        Color::White => &clocks.white,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    NotStarted,
    Running { to_move: Color, since_ms: u64 },
    Paused { to_move: Color },
    Finished { timed_out: Option<Color> },
}

/// What the side to move has used so far in this turn, across pauses, for its [`MoveCharge`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Turn {
    elapsed_ms: u64,
    periods_used: u32,
}

/// Both players' clocks for one game. Serializable so a live game's clock survives a restart: after
/// a crash, restore it, `pause` at the last instant the old process was known alive, then `resume`,
/// so the downtime is charged to no one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ClockRecord")]
pub struct Clock {
    settings: ClockSettings,
    budgets: [Budget; 2],
    phase: Phase,
    turn: Turn,
}

/// The serialized form of a [`Clock`], validated on the way back in so stored junk cannot break
/// invariants.
#[derive(Deserialize)]
struct ClockRecord {
    settings: ClockSettings,
    budgets: [Budget; 2],
    phase: Phase,
    turn: Turn,
}

impl TryFrom<ClockRecord> for Clock {
    type Error = SettingsError;

    fn try_from(record: ClockRecord) -> Result<Self, Self::Error> {
        validate(&record.settings)?;
        Ok(Clock {
            settings: record.settings,
            budgets: record.budgets,
            phase: record.phase,
            turn: record.turn,
        })
    }
}

impl Clock {
    /// A clock with full time for both sides, not yet running.
    pub fn new(settings: ClockSettings) -> Result<Clock, SettingsError> {
        validate(&settings)?;
        let budget = Budget::fresh(&settings);
        Ok(Clock {
            settings,
            budgets: [budget; 2],
            phase: Phase::NotStarted,
            turn: Turn::default(),
        })
    }

    pub fn settings(&self) -> &ClockSettings {
        &self.settings
    }

    /// The side whose turn it is, while the clock is running or paused.
    pub fn to_move(&self) -> Option<Color> {
        match self.phase {
            Phase::Running { to_move, .. } | Phase::Paused { to_move } => Some(to_move),
            Phase::NotStarted | Phase::Finished { .. } => None,
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// The side that lost on time, once that has happened.
    pub fn timed_out(&self) -> Option<Color> {
        match self.phase {
            Phase::Finished { timed_out } => timed_out,
            _ => None,
        }
    }

    /// Starts `to_move`'s clock at `now_ms` (Black normally, White after handicap stones).
    pub fn start(&mut self, now_ms: u64, to_move: Color) -> Result<(), ClockError> {
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

    /// The side to move completed a move at `now_ms`: charges its thinking time, credits the move
    /// and starts the opponent's clock.
    pub fn on_move(&mut self, now_ms: u64) -> Result<MoveCharge, ClockError> {
        let (to_move, _) = self.running()?;
        self.charge(now_ms)?;
        let credit = self.budgets[to_move.index()].complete_move(&self.settings);
        let turn = std::mem::take(&mut self.turn);
        let charge = MoveCharge {
            side: to_move,
            elapsed_ms: turn.elapsed_ms,
            periods_used: turn.periods_used,
            increment_ms: credit.increment_ms,
            block_completed: credit.block_completed,
        };
        self.phase = Phase::Running {
            to_move: to_move.opponent(),
            since_ms: now_ms,
        };
        Ok(charge)
    }

    /// Stops the running clock at `now_ms` without ending the turn (scoring phase, server
    /// shutdown).
    pub fn pause(&mut self, now_ms: u64) -> Result<(), ClockError> {
        let (to_move, _) = self.running()?;
        self.charge(now_ms)?;
        self.phase = Phase::Paused { to_move };
        Ok(())
    }

    /// Restarts a paused clock at `now_ms` with `to_move` to play (the same side after downtime;
    /// after a scoring dispute, the side that claimed the disputed stones dead).
    pub fn resume(&mut self, now_ms: u64, to_move: Color) -> Result<(), ClockError> {
        let paused = match self.phase {
            Phase::Paused { to_move } => to_move,
            Phase::NotStarted => return Err(ClockError::NotStarted),
            Phase::Finished { .. } => return Err(ClockError::Finished),
            Phase::Running { .. } => return Err(ClockError::NotPaused),
        };
        if paused != to_move {
            // The paused side's turn ended without a move: a partly used period is not carried on.
            self.budgets[paused.index()].period_used_ms = 0;
            self.turn = Turn::default();
        }
        self.phase = Phase::Running {
            to_move,
            since_ms: now_ms,
        };
        Ok(())
    }

    /// Takes up to `amount_ms` off `side`'s main time at `now_ms`, never below zero (a late player's
    /// penalty); the running side is charged up to `now_ms` first, so the deduction comes on top of
    /// what their clock ran. Returns what was taken: less than asked when main time ran out.
    pub fn take_main(
        &mut self,
        side: Color,
        amount_ms: u64,
        now_ms: u64,
    ) -> Result<u64, ClockError> {
        if let Phase::Running { to_move, .. } = self.phase {
            self.charge(now_ms)?;
            self.phase = Phase::Running {
                to_move,
                since_ms: now_ms,
            };
        }
        if let Phase::Finished { .. } = self.phase {
            return Err(ClockError::Finished);
        }
        let budget = &mut self.budgets[side.index()];
        let taken_ms = amount_ms.min(budget.main_left_ms);
        budget.main_left_ms -= taken_ms;
        Ok(taken_ms)
    }

    /// Ends the clock for good at `now_ms` (resignation, scoring, abandonment), charging the
    /// running side. A paused clock just finishes.
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

    /// Both clocks as they stand at `now_ms`, without changing anything. A side that has run out by
    /// then shows all zeros until `check` applies the expiry.
    pub fn snapshot(&self, now_ms: u64) -> Clocks {
        let view_of = |side: Color| {
            let budget = self.budgets[side.index()];
            match self.phase {
                Phase::Running { to_move, since_ms } if to_move == side => {
                    let elapsed_ms = now_ms.saturating_sub(since_ms);
                    match budget.spend(&self.settings, elapsed_ms) {
                        Some(left) => left.view(&self.settings, true),
                        None => SideClock {
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
        Clocks {
            black: view_of(Color::Black),
            white: view_of(Color::White),
        }
    }

    /// All the time `side` has before it runs out at `now_ms`, as its clock shows it: main time
    /// plus whatever overtime is left.
    pub fn time_left_ms(&self, side: Color, now_ms: u64) -> u64 {
        let snapshot = self.snapshot(now_ms);
        let view = side_clock(&snapshot, side);
        let overtime_ms = match self.settings {
            ClockSettings::ByoYomi { period_ms, .. } => {
                view.period_left_ms + u64::from(view.periods_left.saturating_sub(1)) * period_ms
            }
            ClockSettings::Canadian { .. } => view.block_left_ms,
            ClockSettings::None
            | ClockSettings::Absolute { .. }
            | ClockSettings::Fischer { .. } => 0,
        };
        view.main_left_ms + overtime_ms
    }

    fn running(&self) -> Result<(Color, u64), ClockError> {
        match self.phase {
            Phase::Running { to_move, since_ms } => Ok((to_move, since_ms)),
            Phase::NotStarted => Err(ClockError::NotStarted),
            Phase::Paused { .. } => Err(ClockError::Paused),
            Phase::Finished { .. } => Err(ClockError::Finished),
        }
    }

    /// Charges the running side for the time since its turn (or resume) began, up to `now_ms`, and
    /// adds it to the turn's tally; the caller then sets the next phase. On running out, applies
    /// the expiry instead and returns it.
    fn charge(&mut self, now_ms: u64) -> Result<(), ClockError> {
        let (to_move, since_ms) = self.running()?;
        let elapsed_ms = now_ms.saturating_sub(since_ms);
        let budget = self.budgets[to_move.index()];
        match budget.spend(&self.settings, elapsed_ms) {
            Some(left) => {
                self.budgets[to_move.index()] = left;
                self.turn.elapsed_ms = self.turn.elapsed_ms.saturating_add(elapsed_ms);
                let periods_used = budget.periods_left.saturating_sub(left.periods_left);
                self.turn.periods_used = self.turn.periods_used.saturating_add(periods_used);
                Ok(())
            }
            None => Err(ClockError::Expired(self.expire(now_ms, to_move))),
        }
    }

    /// `side` has run out: a loss, or with `timeout_is_pass` a forced pass that gives the last
    /// period back.
    fn expire(&mut self, now_ms: u64, side: Color) -> Expiry {
        self.turn = Turn::default();
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
                to_move: side.opponent(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn absolute(main_time_ms: u64) -> ClockSettings {
        ClockSettings::Absolute { main_time_ms }
    }

    fn byo_yomi(main_time_ms: u64, periods: u32, period_ms: u64, pass: bool) -> ClockSettings {
        ClockSettings::ByoYomi {
            main_time_ms,
            periods,
            period_ms,
            timeout_is_pass: pass,
        }
    }

    fn canadian(main_time_ms: u64, moves_per_block: u32, block_ms: u64) -> ClockSettings {
        ClockSettings::Canadian {
            main_time_ms,
            moves: moves_per_block,
            block_ms,
        }
    }

    fn fischer(main_time_ms: u64, increment_ms: u64, max_time_ms: u64) -> ClockSettings {
        ClockSettings::Fischer {
            main_time_ms,
            increment_ms,
            max_time_ms,
        }
    }

    /// A clock started at t = 0 with Black to move.
    fn started(settings: ClockSettings) -> Clock {
        let mut clock = Clock::new(settings).expect("valid settings");
        clock.start(0, Color::Black).expect("fresh clock starts");
        clock
    }

    fn view(clock: &Clock, now_ms: u64, side: Color) -> SideClock {
        *side_clock(&clock.snapshot(now_ms), side)
    }

    /// Asserts that the side to move survives until exactly one millisecond before `deadline_ms`.
    fn assert_deadline(clock: &Clock, deadline_ms: u64) {
        assert_eq!(clock.deadline_ms(), Some(deadline_ms));
        assert_eq!(clock.clone().check(deadline_ms - 1), None);
        assert!(clock.clone().check(deadline_ms).is_some());
    }

    /// The time a side has left counts its main time and every overtime period still to come, and
    /// runs down while it is to move (what an away player's countdown is bounded by).
    #[test]
    fn time_left_counts_main_time_and_the_periods_to_come() {
        let mut clock = Clock::new(ClockSettings::ByoYomi {
            main_time_ms: 1_000,
            periods: 3,
            period_ms: 500,
            timeout_is_pass: false,
        })
        .unwrap();
        clock.start(0, Color::Black).unwrap();
        assert_eq!(clock.time_left_ms(Color::Black, 0), 2_500);
        assert_eq!(clock.time_left_ms(Color::Black, 1_200), 1_300);
        assert_eq!(clock.time_left_ms(Color::White, 1_200), 2_500);
    }

    #[test]
    fn settings_are_validated() {
        let cases = [
            (absolute(0), SettingsError::NoMainTime),
            (
                absolute(TIME_MS_MAX + 1),
                SettingsError::TooLong {
                    field: "main_time_ms",
                    value_ms: TIME_MS_MAX + 1,
                },
            ),
            (byo_yomi(0, 0, 1000, false), SettingsError::ZeroPeriods),
            (byo_yomi(0, 3, 0, false), SettingsError::ZeroOvertime),
            (
                byo_yomi(0, PERIODS_MAX + 1, 1000, false),
                SettingsError::TooManyPeriods {
                    periods: PERIODS_MAX + 1,
                },
            ),
            (
                byo_yomi(0, 3, u64::MAX, false),
                SettingsError::TooLong {
                    field: "period_ms",
                    value_ms: u64::MAX,
                },
            ),
            (canadian(0, 0, 1000), SettingsError::ZeroMovesPerBlock),
            (canadian(0, 25, 0), SettingsError::ZeroOvertime),
            (
                canadian(0, MOVES_PER_BLOCK_MAX + 1, 1000),
                SettingsError::TooManyMovesPerBlock {
                    moves_per_block: MOVES_PER_BLOCK_MAX + 1,
                },
            ),
            (fischer(0, 1000, 1000), SettingsError::NoMainTime),
            (
                fischer(2000, 1000, 1000),
                SettingsError::MainAboveMax {
                    main_time_ms: 2000,
                    max_time_ms: 1000,
                },
            ),
        ];
        for (settings, error) in cases {
            assert_eq!(validate(&settings), Err(error), "{settings:?}");
            assert_eq!(Clock::new(settings).unwrap_err(), error);
            assert!(!error.to_string().is_empty());
        }
        assert_eq!(validate(&ClockSettings::None), Err(SettingsError::Untimed));
        assert_eq!(validate(&byo_yomi(0, 1, 1, true)), Ok(()));
        assert_eq!(validate(&canadian(0, 1, 1)), Ok(()));
        assert_eq!(validate(&fischer(TIME_MS_MAX, 0, TIME_MS_MAX)), Ok(()));
    }

    #[test]
    fn absolute_flags_exactly_when_main_time_is_used_up() {
        let mut clock = started(absolute(10_000));
        assert_deadline(&clock, 10_000);

        let mut late = clock.clone();
        assert_eq!(
            late.on_move(10_000),
            Err(ClockError::Expired(Expiry::Timeout(Color::Black)))
        );
        assert_eq!(late.timed_out(), Some(Color::Black));
        assert_eq!(late.on_move(10_001), Err(ClockError::Finished));
        assert_eq!(late.check(20_000), None, "an expiry is reported once");

        let charge = clock.on_move(9_999).expect("one millisecond to spare");
        assert_eq!(charge.elapsed_ms, 9_999);
        assert_eq!(view(&clock, 9_999, Color::Black).main_left_ms, 1);
        assert_eq!(clock.to_move(), Some(Color::White));
        assert_deadline(&clock, 9_999 + 10_000);
        // Black's single millisecond lasts exactly one millisecond on its next turn.
        clock.on_move(10_000).unwrap();
        assert_deadline(&clock, 10_001);
    }

    #[test]
    fn byo_yomi_move_within_a_period_costs_nothing() {
        let mut clock = started(byo_yomi(1_000, 3, 500, false));
        assert_deadline(&clock, 1_000 + 3 * 500);
        // A move at the very instant main time ends uses no period.
        let charge = clock.on_move(1_000).unwrap();
        assert_eq!(charge.periods_used, 0);
        clock.on_move(1_000).unwrap();
        // 499 ms into the first period: still free, and the next turn has the full period again.
        let charge = clock.on_move(1_499).unwrap();
        assert_eq!(charge.periods_used, 0);
        let black = view(&clock, 1_499, Color::Black);
        assert_eq!((black.main_left_ms, black.periods_left), (0, 3));
        assert_eq!(black.period_left_ms, 500);
        clock.on_move(1_499).unwrap();
        assert_deadline(&clock, 1_499 + 1_500);
    }

    #[test]
    fn byo_yomi_two_full_periods_in_one_move_cost_two() {
        let mut clock = started(byo_yomi(0, 3, 500, false));
        let charge = clock.on_move(1_010).unwrap();
        assert_eq!(charge.periods_used, 2);
        assert_eq!(view(&clock, 1_010, Color::Black).periods_left, 1);
        clock.on_move(1_010).unwrap();
        // One period left: the player flags 500 ms into the turn, not a millisecond earlier.
        assert_deadline(&clock, 1_510);
        let black = view(&clock, 1_509, Color::Black);
        assert_eq!((black.periods_left, black.period_left_ms), (1, 1));
    }

    #[test]
    fn byo_yomi_last_period_running_out_loses() {
        let mut clock = started(byo_yomi(1_000, 2, 500, false));
        assert_eq!(clock.check(1_999), None);
        assert_eq!(view(&clock, 1_999, Color::Black).periods_left, 1);
        assert_eq!(clock.check(2_000), Some(Expiry::Timeout(Color::Black)));
        assert_eq!(clock.timed_out(), Some(Color::Black));
        assert_eq!(clock.deadline_ms(), None);
        let black = view(&clock, 5_000, Color::Black);
        assert_eq!(
            (black.main_left_ms, black.periods_left, black.running),
            (0, 0, false)
        );
    }

    #[test]
    fn byo_yomi_timeout_as_pass_gives_the_last_period_back() {
        let mut clock = started(byo_yomi(1_000, 2, 500, true));
        assert_eq!(clock.check(1_999), None);
        // The actor's timer fires 30 ms late: White's clock starts when the pass is noticed.
        assert_eq!(clock.check(2_030), Some(Expiry::ForcedPass(Color::Black)));
        assert_eq!(clock.to_move(), Some(Color::White));
        assert_eq!(clock.timed_out(), None);
        let black = view(&clock, 2_030, Color::Black);
        assert_eq!((black.periods_left, black.period_left_ms), (1, 500));
        assert_deadline(&clock, 2_030 + 2_000);
        clock.on_move(2_100).unwrap();
        assert_deadline(&clock, 2_600);
        // A move arriving after its deadline is refused: the forced pass happened first.
        assert_eq!(
            clock.on_move(2_600),
            Err(ClockError::Expired(Expiry::ForcedPass(Color::Black)))
        );
        assert_eq!(clock.to_move(), Some(Color::White));
    }

    #[test]
    fn canadian_carries_the_blocks_leftover_time() {
        let mut clock = started(canadian(1_000, 2, 1_000));
        // Main time ends at the instant of this move: it is the block's first move.
        let charge = clock.on_move(1_000).unwrap();
        assert!(!charge.block_completed);
        let black = view(&clock, 1_000, Color::Black);
        assert_eq!((black.moves_left_in_block, black.block_left_ms), (1, 1_000));
        clock.on_move(1_000).unwrap();
        // The block's second move after 300 ms: 700 ms carry into the next block.
        let charge = clock.on_move(1_300).unwrap();
        assert!(charge.block_completed);
        let black = view(&clock, 1_300, Color::Black);
        assert_eq!((black.moves_left_in_block, black.block_left_ms), (2, 1_700));
        clock.on_move(1_300).unwrap();
        assert_deadline(&clock, 3_000);
        assert_eq!(clock.check(3_000), Some(Expiry::Timeout(Color::Black)));
    }

    #[test]
    fn canadian_moves_in_main_time_do_not_count() {
        let mut clock = started(canadian(10_000, 2, 1_000));
        clock.on_move(100).unwrap();
        let black = view(&clock, 100, Color::Black);
        assert_eq!((black.main_left_ms, black.moves_left_in_block), (9_900, 2));
        clock.on_move(100).unwrap();
        // Running from main time straight into the block within one turn.
        assert_deadline(&clock, 100 + 9_900 + 1_000);
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_cap() {
        let mut clock = started(fischer(10_000, 5_000, 12_000));
        let charge = clock.on_move(1_000).unwrap();
        assert_eq!(charge.increment_ms, 3_000, "9 s + 5 s is capped at 12 s");
        assert_eq!(view(&clock, 1_000, Color::Black).main_left_ms, 12_000);
        clock.on_move(1_000).unwrap();
        let charge = clock.on_move(9_000).unwrap();
        assert_eq!(charge.increment_ms, 5_000);
        assert_eq!(view(&clock, 9_000, Color::Black).main_left_ms, 9_000);
        clock.on_move(9_000).unwrap();
        assert_deadline(&clock, 18_000);
    }

    #[test]
    fn pauses_are_charged_to_no_one() {
        let mut clock = started(byo_yomi(1_000, 1, 1_000, false));
        clock.pause(500).unwrap();
        assert!(!clock.is_running());
        assert_eq!(clock.deadline_ms(), None);
        assert_eq!(view(&clock, 90_000, Color::Black).main_left_ms, 500);
        assert_eq!(clock.on_move(90_000), Err(ClockError::Paused));
        assert_eq!(clock.pause(90_000), Err(ClockError::Paused));
        clock.resume(100_000, Color::Black).unwrap();
        assert_deadline(&clock, 101_500);
        // A partly used period survives a pause when the same side resumes.
        clock.pause(100_000 + 500 + 700).unwrap();
        clock.resume(200_000, Color::Black).unwrap();
        assert_deadline(&clock, 200_300);
        assert_eq!(
            clock.resume(200_000, Color::Black),
            Err(ClockError::NotPaused)
        );
    }

    #[test]
    fn a_penalty_comes_off_main_time_only_and_never_below_zero() {
        let mut clock = started(byo_yomi(10_000, 3, 1_000, false));
        // Black's clock has run 4 s; 3 s more come off at once.
        assert_eq!(clock.take_main(Color::Black, 3_000, 4_000), Ok(3_000));
        assert_eq!(view(&clock, 4_000, Color::Black).main_left_ms, 3_000);
        assert_deadline(&clock, 4_000 + 3_000 + 3_000);
        // White, not running: only the main time there is.
        assert_eq!(clock.take_main(Color::White, 12_000, 4_000), Ok(10_000));
        let white = view(&clock, 4_000, Color::White);
        assert_eq!((white.main_left_ms, white.periods_left), (0, 3));
        clock.stop(5_000).unwrap();
        assert_eq!(
            clock.take_main(Color::White, 1, 5_000),
            Err(ClockError::Finished)
        );
    }

    #[test]
    fn a_move_charge_covers_the_whole_turn_across_pauses() {
        let mut clock = started(byo_yomi(0, 5, 1_000, false));
        clock.pause(1_500).unwrap();
        clock.resume(50_000, Color::Black).unwrap();
        let charge = clock.on_move(51_700).unwrap();
        assert_eq!((charge.elapsed_ms, charge.periods_used), (3_200, 3));
        assert_eq!(view(&clock, 51_700, Color::Black).periods_left, 2);
        // The next turn's tally starts from zero.
        let charge = clock.on_move(51_800).unwrap();
        assert_eq!(
            (charge.side, charge.elapsed_ms, charge.periods_used),
            (Color::White, 100, 0)
        );
    }

    #[test]
    fn resuming_with_the_other_side_ends_the_paused_turn() {
        let mut clock = started(byo_yomi(0, 2, 1_000, false));
        clock.pause(1_400).unwrap();
        clock.resume(5_000, Color::White).unwrap();
        assert_eq!(clock.to_move(), Some(Color::White));
        let black = view(&clock, 5_000, Color::Black);
        assert_eq!((black.periods_left, black.period_left_ms), (1, 1_000));
        clock.on_move(5_000).unwrap();
        assert_deadline(&clock, 6_000);
    }

    #[test]
    fn a_clock_going_backwards_charges_nothing() {
        let mut clock = started(absolute(1_000));
        clock.on_move(500).unwrap();
        let charge = clock.on_move(400).unwrap();
        assert_eq!(charge.elapsed_ms, 0);
        assert_eq!(view(&clock, 400, Color::White).main_left_ms, 1_000);
    }

    #[test]
    fn lifecycle_errors() {
        let mut clock = Clock::new(absolute(1_000)).unwrap();
        assert_eq!(clock.on_move(0), Err(ClockError::NotStarted));
        assert_eq!(clock.pause(0), Err(ClockError::NotStarted));
        assert_eq!(clock.resume(0, Color::Black), Err(ClockError::NotStarted));
        assert_eq!(clock.stop(0), Err(ClockError::NotStarted));
        assert_eq!(clock.check(u64::MAX), None);
        assert_eq!(clock.deadline_ms(), None);
        clock.start(10, Color::White).unwrap();
        assert_eq!(clock.to_move(), Some(Color::White));
        assert_eq!(
            clock.start(10, Color::Black),
            Err(ClockError::AlreadyStarted)
        );
        clock.stop(300).unwrap();
        assert_eq!(view(&clock, 300, Color::White).main_left_ms, 710);
        assert_eq!(clock.stop(300), Err(ClockError::Finished));
        assert_eq!(clock.start(300, Color::Black), Err(ClockError::Finished));
        assert_eq!(clock.timed_out(), None);
        for error in [
            ClockError::Paused,
            ClockError::Expired(Expiry::Timeout(Color::Black)),
        ] {
            assert!(!error.to_string().is_empty());
        }
    }

    #[test]
    fn snapshot_reports_without_changing_anything() {
        let clock = started(canadian(0, 5, 60_000));
        let before = clock.clone();
        let black = view(&clock, 10_000, Color::Black);
        assert_eq!(
            black,
            SideClock {
                main_left_ms: 0,
                periods_left: 0,
                period_left_ms: 0,
                moves_left_in_block: 5,
                block_left_ms: 50_000,
                running: true,
            }
        );
        assert!(!view(&clock, 10_000, Color::White).running);
        assert_eq!(clock, before);
        assert_eq!(view(&clock, 60_000, Color::Black).block_left_ms, 0);
    }

    #[test]
    fn clock_round_trips_through_json_and_rejects_bad_settings() {
        let mut clock = started(byo_yomi(1_000, 3, 500, true));
        clock.on_move(1_200).unwrap();
        let json = serde_json::to_string(&clock).unwrap();
        let back: Clock = serde_json::from_str(&json).unwrap();
        assert_eq!(back, clock);
        let bad = json.replace("\"periods\":3", "\"periods\":0");
        assert!(serde_json::from_str::<Clock>(&bad).is_err());
        let settings = serde_json::to_value(absolute(5)).unwrap();
        assert_eq!(
            settings,
            serde_json::json!({"kind": "absolute", "main_time_ms": 5})
        );
    }

    fn settings_strategy() -> impl Strategy<Value = ClockSettings> {
        prop_oneof![
            (1..3_000u64).prop_map(absolute),
            (0..3_000u64, 1..4u32, 1..1_000u64, any::<bool>())
                .prop_map(|(main, periods, period, pass)| byo_yomi(main, periods, period, pass)),
            (0..3_000u64, 1..4u32, 1..2_000u64)
                .prop_map(|(main, moves, block)| canadian(main, moves, block)),
            (1..3_000u64, 0..1_000u64, 0..3_000u64).prop_map(|(main, inc, extra)| fischer(
                main,
                inc,
                main + extra
            )),
        ]
    }

    #[derive(Debug, Clone, Copy)]
    enum Op {
        Move,
        Check,
        Pause,
        Resume(bool),
        Stop,
    }

    fn op_strategy() -> impl Strategy<Value = (Op, u64)> {
        let op = prop_oneof![
            6 => Just(Op::Move),
            2 => Just(Op::Check),
            1 => Just(Op::Pause),
            1 => any::<bool>().prop_map(Op::Resume),
            1 => Just(Op::Stop),
        ];
        (op, 0..2_500u64)
    }

    /// Everything a side can still think before flagging, read off its view.
    fn time_left_ms(settings: &ClockSettings, view: &SideClock) -> u64 {
        match *settings {
            ClockSettings::ByoYomi { period_ms, .. } if view.periods_left > 0 => {
                view.main_left_ms
                    + u64::from(view.periods_left - 1) * period_ms
                    + view.period_left_ms
            }
            _ => view.main_left_ms + view.block_left_ms,
        }
    }

    /// The most time an operation may give back: an increment, a fresh period, or a new block.
    fn allowance_ms(settings: &ClockSettings) -> u64 {
        match *settings {
            ClockSettings::None | ClockSettings::Absolute { .. } => 0,
            ClockSettings::ByoYomi { period_ms, .. } => period_ms,
            ClockSettings::Canadian { block_ms, .. } => block_ms,
            ClockSettings::Fischer { increment_ms, .. } => increment_ms,
        }
    }

    /// Applies one operation, ignoring its result: the properties are checked on the clock
    /// afterwards.
    fn apply(clock: &mut Clock, op: Op, now_ms: u64) {
        let _ = match op {
            Op::Move => clock.on_move(now_ms).map(|_| ()),
            Op::Check => {
                clock.check(now_ms);
                Ok(())
            }
            Op::Pause => clock.pause(now_ms),
            Op::Resume(same) => {
                let side = clock.to_move().unwrap_or(Color::Black);
                let side = if same { side } else { side.opponent() };
                clock.resume(now_ms, side)
            }
            Op::Stop => clock.stop(now_ms),
        };
    }

    proptest! {
        #[test]
        fn deadline_is_exactly_where_check_starts_reporting(
            settings in settings_strategy(),
            ops in prop::collection::vec(op_strategy(), 0..40),
        ) {
            let mut clock = started(settings);
            let mut now_ms = 0;
            for (op, dt_ms) in ops {
                if let Some(deadline_ms) = clock.deadline_ms() {
                    // A turn always starts with time left, so the deadline is after the turn's
                    // start.
                    prop_assert!(deadline_ms > 0);
                    prop_assert_eq!(clock.clone().check(deadline_ms - 1), None);
                    prop_assert!(clock.clone().check(deadline_ms).is_some());
                    prop_assert!(clock.clone().on_move(deadline_ms - 1).is_ok());
                    prop_assert!(matches!(
                        clock.clone().on_move(deadline_ms),
                        Err(ClockError::Expired(_))
                    ));
                }
                now_ms += dt_ms;
                apply(&mut clock, op, now_ms);
            }
        }

        #[test]
        fn time_left_never_increases_except_by_credit(
            settings in settings_strategy(),
            ops in prop::collection::vec(op_strategy(), 0..40),
        ) {
            let mut clock = started(settings);
            let mut now_ms = 0;
            let mut last = clock.snapshot(now_ms);
            for (op, dt_ms) in ops {
                now_ms += dt_ms;
                // While time passes with no event, nothing on either clock goes up.
                let before = clock.snapshot(now_ms);
                let credited = clock.to_move();
                for side in Color::BOTH {
                    let (was, is) = (side_clock(&last, side), side_clock(&before, side));
                    prop_assert!(is.main_left_ms <= was.main_left_ms);
                    prop_assert!(is.periods_left <= was.periods_left);
                    prop_assert!(is.block_left_ms <= was.block_left_ms);
                    prop_assert!(time_left_ms(&settings, is) <= time_left_ms(&settings, was));
                    prop_assert_eq!(is.moves_left_in_block, was.moves_left_in_block);
                }
                apply(&mut clock, op, now_ms);
                let after = clock.snapshot(now_ms);
                // An event gives back at most one credit (an increment, a fresh period after a
                // move, a forced pass or a turn ended by resuming with the other side, or a carried
                // block).
                for side in Color::BOTH {
                    let credit_ms =
                        if credited == Some(side) { allowance_ms(&settings) } else { 0 };
                    let left_before = time_left_ms(&settings, side_clock(&before, side));
                    let left_after = time_left_ms(&settings, side_clock(&after, side));
                    prop_assert!(left_after <= left_before + credit_ms,
                        "{side}: {left_before} -> {left_after} after {op:?}");
                }
                last = after;
            }
        }

        #[test]
        fn never_panics_on_any_input(
            main in any::<u64>(),
            other in any::<u64>(),
            count in any::<u32>(),
            kind in 0..4u8,
            ops in prop::collection::vec((op_strategy(), any::<u64>()), 0..20),
        ) {
            let other = if count % 3 == 0 { other } else { other % (2 * TIME_MS_MAX) };
            let settings = match kind {
                0 => absolute(main),
                1 => byo_yomi(main % (2 * TIME_MS_MAX), count % 200, other, count % 2 == 0),
                2 => canadian(main % (2 * TIME_MS_MAX), count % 2_000, other),
                _ => fischer(main % (2 * TIME_MS_MAX), other, main.wrapping_add(other)),
            };
            if let Ok(mut clock) = Clock::new(settings) {
                prop_assert!(clock.start(main, Color::Black).is_ok());
                for ((op, _), now_ms) in ops {
                    apply(&mut clock, op, now_ms);
                    let _ = clock.snapshot(now_ms);
                    let _ = clock.deadline_ms();
                }
            }
        }
    }
}
