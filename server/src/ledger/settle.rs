//! Settlement math: given what is in a game's escrow and how the game ended, decide exactly who receives
//! how many whole fortune points. Pure functions over integers, no I/O; the ledger service applies the
//! resulting [`Settlement`] as one all-or-nothing batch of transfers out of the game's escrow.
//!
//! # Rules (SPEC §3) and the choices made where it is silent
//! - Spectator pool (parimutuel), with T the whole pool, W the total on the winner and s one winning
//!   bettor's total: the bettor receives `s + floor((T − W) · s · (10000 − tax_bp) / (W · 10000))`, i.e.
//!   `((T / W) · s − s) · (1 − tax) + s` rounded down, computed exactly in one integer division. A bettor on
//!   the loser receives nothing. Bets are aggregated per bettor first (a bettor may add to a bet; a bettor on
//!   both sides is refused as bad input).
//! - Every pool bet is refunded in full on a draw, a void or server-cancelled game, a game never played,
//!   when fewer than two distinct watchers bet, or when nobody bet on the winner.
//! - Player stakes, normal mode: the winner receives their own stake plus `floor(loser_stake · (1 − tax))`.
//!   Draw, void, cancelled or never played: both stakes are refunded. An escape is a loss for the escaper.
//! - Paid coaching: the coach's stake must be 0. The student's stake goes to the coach on any result,
//!   including a draw and the student escaping, taxed as the coach's gain (the coach receives
//!   `floor(stake · (1 − tax))`). It is refunded to the student if the coach escapes, or if the game is void,
//!   cancelled or never played (no coaching happened).
//! - Tax and breakage, both paid to the house: `tax` is the exact tax on the whole gain (`T − W` for the pool,
//!   the loser's stake for stakes) rounded down; `breakage` is everything rounding left over. So the users'
//!   payouts plus tax plus breakage always equal the escrow exactly, which [`Settlement`] asserts.
//! - Amounts are bounded by [`POINTS_MAX`] so every product fits in `u128` and every number is exact in a
//!   browser.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Basis points in 100%: tax rates are integers out of this.
pub const BASIS_POINTS_FULL: u32 = 10_000;

/// The default house tax rate, 5%.
pub const TAX_BP_DEFAULT: u32 = 500;

/// The largest escrow (and so bet or stake) the math accepts: 2^53 − 1, the largest integer a JavaScript
/// client represents exactly. It also keeps `(T − W) · s · 10000` below 2^120, inside `u128`.
pub const POINTS_MAX: u64 = (1 << 53) - 1;

/// Who receives a payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum Beneficiary {
    /// A user account, by user id.
    User(u64),
    /// The house account, which collects tax and breakage.
    House,
}

/// One transfer out of the game's escrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payout {
    pub to: Beneficiary,
    pub amount: u64,
}

/// How the game ended, as far as money is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "side", rename_all = "snake_case")]
pub enum Outcome {
    /// The side won (by count, resignation or time).
    Win(Side),
    /// The side escaped (逃跑) and so lost.
    Escape(Side),
    Draw,
    Void,
    /// The server cancelled the game.
    Cancelled,
    /// The game the stake was agreed for never took place.
    NeverPlayed,
}

impl Outcome {
    /// The refund reason when the outcome has no winner at all.
    fn no_result(self) -> Option<RefundReason> {
        match self {
            Outcome::Win(_) | Outcome::Escape(_) => None,
            Outcome::Draw => Some(RefundReason::Draw),
            Outcome::Void => Some(RefundReason::Void),
            Outcome::Cancelled => Some(RefundReason::Cancelled),
            Outcome::NeverPlayed => Some(RefundReason::NeverPlayed),
        }
    }

    fn winner(self) -> Option<Side> {
        match self {
            Outcome::Win(side) => Some(side),
            Outcome::Escape(escaper) => Some(escaper.other()),
            Outcome::Draw | Outcome::Void | Outcome::Cancelled | Outcome::NeverPlayed => None,
        }
    }
}

/// Why everything went back to whoever put it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefundReason {
    Draw,
    Void,
    Cancelled,
    NeverPlayed,
    /// Fewer than two distinct watchers bet in the pool.
    TooFewBettors,
    /// Nobody in the pool bet on the winner.
    NoWinningBets,
    /// The coach escaped a paid-coaching game.
    CoachEscaped,
}

impl fmt::Display for RefundReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RefundReason::Draw => "the game was drawn",
            RefundReason::Void => "the game is void",
            RefundReason::Cancelled => "the server cancelled the game",
            RefundReason::NeverPlayed => "the game was never played",
            RefundReason::TooFewBettors => "only one watcher bet",
            RefundReason::NoWinningBets => "nobody bet on the winner",
            RefundReason::CoachEscaped => "the coach left the game",
        })
    }
}

/// Bad input to a settlement: the caller's records are inconsistent, so nothing is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleError {
    /// A tax rate above 100%.
    TaxRateTooHigh { tax_bp: u32 },
    /// A bet of 0 points, which should have been refused when placed.
    ZeroBet { bettor: u64 },
    /// The same bettor on both sides, which should have been refused when placed.
    BettorOnBothSides { bettor: u64 },
    /// The escrow would exceed [`POINTS_MAX`].
    TooManyPoints,
    /// In paid coaching the coach's stake must be 0.
    CoachStaked { amount: u64 },
}

impl fmt::Display for SettleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettleError::TaxRateTooHigh { tax_bp } => {
                write!(
                    f,
                    "tax rate {tax_bp} bp is above {BASIS_POINTS_FULL} bp (100%)"
                )
            }
            SettleError::ZeroBet { bettor } => write!(f, "user {bettor} has a bet of 0 points"),
            SettleError::BettorOnBothSides { bettor } => {
                write!(f, "user {bettor} has bets on both sides")
            }
            SettleError::TooManyPoints => write!(f, "the escrow exceeds {POINTS_MAX} points"),
            SettleError::CoachStaked { amount } => {
                write!(
                    f,
                    "the coach staked {amount} points; a coach's stake must be 0"
                )
            }
        }
    }
}

impl std::error::Error for SettleError {}

/// Who receives what from one escrow, plus the summary a settlement screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    /// One entry per beneficiary with a non-zero amount, users by id then the house (tax + breakage).
    pub payouts: Vec<Payout>,
    /// Everything that was in the escrow; exactly this is paid out.
    pub escrow_total: u64,
    /// The exact tax on the gain, rounded down.
    pub tax: u64,
    /// What rounding left over, also to the house.
    pub breakage: u64,
    /// Set when every contribution was returned, with why.
    pub refund: Option<RefundReason>,
}

impl Settlement {
    /// Builds the settlement and asserts conservation: a broken sum is a bug in this module, never input.
    fn new(
        escrow_total: u64,
        to_users: BTreeMap<u64, u64>,
        tax: u64,
        breakage: u64,
        refund: Option<RefundReason>,
    ) -> Settlement {
        let users_total: u128 = to_users.values().map(|&amount| u128::from(amount)).sum();
        assert_eq!(
            users_total + u128::from(tax) + u128::from(breakage),
            u128::from(escrow_total),
            "settlement must pay out exactly the escrow"
        );
        assert!(
            refund.is_none() || tax + breakage == 0,
            "a refund is never taxed"
        );
        let mut payouts: Vec<Payout> = to_users
            .into_iter()
            .filter(|&(_, amount)| amount > 0)
            .map(|(user, amount)| Payout {
                to: Beneficiary::User(user),
                amount,
            })
            .collect();
        if tax + breakage > 0 {
            payouts.push(Payout {
                to: Beneficiary::House,
                amount: tax + breakage,
            });
        }
        Settlement {
            payouts,
            escrow_total,
            tax,
            breakage,
            refund,
        }
    }

    /// A settlement that returns each contribution to its owner.
    fn refund(contributions: BTreeMap<u64, u64>, reason: RefundReason) -> Settlement {
        let total = contributions.values().sum();
        Settlement::new(total, contributions, 0, 0, Some(reason))
    }

    /// The total paid to one beneficiary (0 if none).
    pub fn paid_to(&self, to: Beneficiary) -> u64 {
        self.payouts
            .iter()
            .filter(|payout| payout.to == to)
            .map(|payout| payout.amount)
            .sum()
    }
}

/// One watcher's bet (or one addition to it) in a game's spectator pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bet {
    pub bettor: u64,
    pub side: Side,
    pub amount: u64,
}

/// One player's stake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stake {
    pub user: u64,
    pub amount: u64,
}

/// Both players' stakes for one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stakes {
    pub black: Stake,
    pub white: Stake,
}

impl Stakes {
    fn of(&self, side: Side) -> Stake {
        match side {
            Side::Black => self.black,
            Side::White => self.white,
        }
    }
}

/// How the players' stakes are settled, fixed once chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "coach", rename_all = "snake_case")]
pub enum StakeMode {
    /// The winner takes both stakes, the gain taxed.
    Normal,
    /// 有偿指导: `coach` plays for the student's stake.
    Coaching(Side),
}

fn check_tax(tax_bp: u32) -> Result<(), SettleError> {
    if tax_bp > BASIS_POINTS_FULL {
        return Err(SettleError::TaxRateTooHigh { tax_bp });
    }
    Ok(())
}

/// Adds points, refusing a total above [`POINTS_MAX`].
fn add_points(a: u64, b: u64) -> Result<u64, SettleError> {
    a.checked_add(b)
        .filter(|&sum| sum <= POINTS_MAX)
        .ok_or(SettleError::TooManyPoints)
}

/// `floor(gain_num · (1 − tax) / gain_den)`: the untaxed part of a gain given as a rational, rounded down
/// once, exactly. Callers keep both inputs below 2^106 and 2^53, so nothing overflows.
fn after_tax(gain_num: u128, gain_den: u128, tax_bp: u32) -> u64 {
    let keep_bp = u128::from(BASIS_POINTS_FULL - tax_bp);
    let value = gain_num * keep_bp / (gain_den * u128::from(BASIS_POINTS_FULL));
    u64::try_from(value).expect("an after-tax gain never exceeds the escrow")
}

/// The tax on a whole gain, rounded down.
fn tax_on(gain: u64, tax_bp: u32) -> u64 {
    let tax = u128::from(gain) * u128::from(tax_bp) / u128::from(BASIS_POINTS_FULL);
    u64::try_from(tax).expect("the tax never exceeds the gain")
}

/// Per-bettor totals and sides, refusing zero bets, side changes and oversized pools.
fn aggregate_bets(bets: &[Bet]) -> Result<BTreeMap<u64, (Side, u64)>, SettleError> {
    let mut totals: BTreeMap<u64, (Side, u64)> = BTreeMap::new();
    let mut pool_total = 0u64;
    for bet in bets {
        if bet.amount == 0 {
            return Err(SettleError::ZeroBet { bettor: bet.bettor });
        }
        pool_total = add_points(pool_total, bet.amount)?;
        let entry = totals.entry(bet.bettor).or_insert((bet.side, 0));
        if entry.0 != bet.side {
            return Err(SettleError::BettorOnBothSides { bettor: bet.bettor });
        }
        entry.1 += bet.amount;
    }
    Ok(totals)
}

/// Settles a game's spectator pool. `bets` may hold several additions per bettor; see the module doc.
pub fn settle_pool(bets: &[Bet], outcome: Outcome, tax_bp: u32) -> Result<Settlement, SettleError> {
    check_tax(tax_bp)?;
    let totals = aggregate_bets(bets)?;
    let stakes: BTreeMap<u64, u64> = totals
        .iter()
        .map(|(&bettor, &(_, amount))| (bettor, amount))
        .collect();
    let Some(winner) = outcome.winner() else {
        let reason = outcome
            .no_result()
            .expect("an outcome without a winner has a reason");
        return Ok(Settlement::refund(stakes, reason));
    };
    if totals.len() < 2 {
        return Ok(Settlement::refund(stakes, RefundReason::TooFewBettors));
    }
    let pool_total: u64 = stakes.values().sum();
    let winning_total: u64 = totals
        .values()
        .filter(|(side, _)| *side == winner)
        .map(|(_, amount)| amount)
        .sum();
    if winning_total == 0 {
        return Ok(Settlement::refund(stakes, RefundReason::NoWinningBets));
    }
    let gain_total = pool_total - winning_total;
    let mut to_users = BTreeMap::new();
    for (&bettor, &(side, stake)) in &totals {
        let payout = if side == winner {
            // gain = (T − W) · s / W, kept as a rational until the single rounding in `after_tax`.
            let gain_num = u128::from(gain_total) * u128::from(stake);
            stake + after_tax(gain_num, u128::from(winning_total), tax_bp)
        } else {
            0
        };
        to_users.insert(bettor, payout);
    }
    let paid_total: u64 = to_users.values().sum();
    let tax = tax_on(gain_total, tax_bp);
    let breakage = pool_total
        .checked_sub(paid_total)
        .and_then(|rest| rest.checked_sub(tax))
        .expect("payouts plus tax never exceed the pool");
    Ok(Settlement::new(pool_total, to_users, tax, breakage, None))
}

/// Settles the two players' stakes for one game.
pub fn settle_stakes(
    stakes: &Stakes,
    mode: StakeMode,
    outcome: Outcome,
    tax_bp: u32,
) -> Result<Settlement, SettleError> {
    check_tax(tax_bp)?;
    add_points(stakes.black.amount, stakes.white.amount)?;
    if let StakeMode::Coaching(coach) = mode {
        let amount = stakes.of(coach).amount;
        if amount != 0 {
            return Err(SettleError::CoachStaked { amount });
        }
    }
    let mut contributions = BTreeMap::new();
    for stake in [stakes.black, stakes.white] {
        *contributions.entry(stake.user).or_insert(0) += stake.amount;
    }
    let (receiver, reason) = match mode {
        StakeMode::Normal => (outcome.winner(), outcome.no_result()),
        StakeMode::Coaching(coach) => match coaching_refund(outcome, coach) {
            Some(reason) => (None, Some(reason)),
            None => (Some(coach), None),
        },
    };
    match (receiver, reason) {
        (Some(receiver), _) => Ok(pay_gain(
            stakes.of(receiver),
            stakes.of(receiver.other()),
            tax_bp,
        )),
        (None, reason) => {
            let reason = reason.expect("an outcome without a receiver has a refund reason");
            Ok(Settlement::refund(contributions, reason))
        }
    }
}

/// Why a paid-coaching stake goes back to the student, if it does. A draw, a loss or the student's escape
/// all still pay the coach: the lesson took place.
fn coaching_refund(outcome: Outcome, coach: Side) -> Option<RefundReason> {
    match outcome {
        Outcome::Escape(escaper) if escaper == coach => Some(RefundReason::CoachEscaped),
        Outcome::Void | Outcome::Cancelled | Outcome::NeverPlayed => outcome.no_result(),
        Outcome::Win(_) | Outcome::Escape(_) | Outcome::Draw => None,
    }
}

/// The receiver gets their own stake back plus the payer's stake as a taxed gain.
fn pay_gain(receiver: Stake, payer: Stake, tax_bp: u32) -> Settlement {
    let net_gain = after_tax(u128::from(payer.amount), 1, tax_bp);
    let tax = tax_on(payer.amount, tax_bp);
    let breakage = payer.amount - net_gain - tax;
    let mut to_users = BTreeMap::new();
    to_users.insert(payer.user, 0);
    *to_users.entry(receiver.user).or_insert(0) += receiver.amount + net_gain;
    let escrow_total = receiver.amount + payer.amount;
    Settlement::new(escrow_total, to_users, tax, breakage, None)
}
