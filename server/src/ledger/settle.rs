//! Settlement math: given what is in a game's escrow and how the game ended, decide exactly who
//! receives how many whole fortune points. Pure functions over integers, no I/O; the ledger service
//! applies the resulting [`Settlement`] as one all-or-nothing batch of transfers out of the game's
//! escrow.
//!
//! # Rules (docs/wagering.md) and the choices made where it is silent
//! - Spectator pool (parimutuel), with T the whole pool, W the total on the winner and s one
//!   winning bettor's total: the bettor receives
//!   `s + floor((T − W) · s · (10000 − tax_bp) / (W · 10000))`,
//!   i.e. `((T / W) · s − s) · (1 − tax) + s` rounded down, computed exactly in one integer
//!   division. A bettor on the loser receives nothing. Bets are aggregated per bettor first
//!   (a bettor may add to a bet; a bettor on both sides is refused as bad input).
//! - Every pool bet is refunded in full on a draw, a void or server-cancelled game, a game never
//!   played, when fewer than two distinct watchers bet, or when nobody bet on the winner.
//! - Player stakes, normal mode: the winner receives their own stake plus
//!   `floor(loser_stake · (1 − tax))`. Draw, void, cancelled or never played: both stakes are refunded. An escape is a loss
//!   for the escaper.
//! - Paid coaching: the coach's stake must be 0. The student's stake goes to the coach on any
//!   result, including a draw and the student escaping, taxed as the coach's gain (the coach
//!   receives `floor(stake · (1 − tax))`). It is refunded to the student if the coach escapes, or
//!   if the game is void, cancelled or never played (no coaching happened).
//! - Tax and breakage, both paid to the house: `tax` is the exact tax on the whole gain (`T − W`
//!   for the pool, the loser's stake for stakes) rounded down; `breakage` is everything rounding
//!   left over. So the users' payouts plus tax plus breakage always equal the escrow exactly, which
//!   [`Settlement`] asserts.
//! - Amounts are bounded by [`POINTS_MAX`] so every product fits in `u128` and every number is
//!   exact in a browser.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use tengen_rules::Color;

/// Basis points in 100%: tax rates are integers out of this.
pub const BASIS_POINTS_FULL: u32 = 10_000;

/// The largest escrow (and so bet or stake) the math accepts: 2^53 − 1, the largest integer a
/// JavaScript client represents exactly. It also keeps `(T − W) · s · 10000` below 2^120, inside
/// `u128`. The wire's bound on any amount a client sends, so both say the same.
pub const POINTS_MAX: u64 = tengen_protocol::Points::MAX;

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
pub enum MoneyOutcome {
    /// The side won (by count, resignation or time).
    Win(Color),
    /// The side escaped (逃跑) and so lost.
    Escape(Color),
    Draw,
    Void,
    /// The server cancelled the game.
    Cancelled,
    /// The game the stake was agreed for never took place.
    NeverPlayed,
}

impl MoneyOutcome {
    /// The refund reason when the outcome has no winner at all.
    fn no_result(self) -> Option<RefundReason> {
        match self {
            MoneyOutcome::Win(_) | MoneyOutcome::Escape(_) => None,
            MoneyOutcome::Draw => Some(RefundReason::Draw),
            MoneyOutcome::Void => Some(RefundReason::Void),
            MoneyOutcome::Cancelled => Some(RefundReason::Cancelled),
            MoneyOutcome::NeverPlayed => Some(RefundReason::NeverPlayed),
        }
    }

    fn winner(self) -> Option<Color> {
        match self {
            MoneyOutcome::Win(side) => Some(side),
            MoneyOutcome::Escape(escaper) => Some(escaper.opponent()),
            MoneyOutcome::Draw
            | MoneyOutcome::Void
            | MoneyOutcome::Cancelled
            | MoneyOutcome::NeverPlayed => None,
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
    /// One entry per beneficiary with a non-zero amount: users by id, then the house (tax plus
    /// breakage).
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
    /// Builds the settlement and asserts conservation: a broken sum is a bug in this module, never
    /// input.
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

    /// Whether the payouts add up to the escrow and the house entry to tax plus breakage. Always
    /// true for a settlement built here; a service re-checks one loaded from the store before
    /// applying it.
    pub fn is_balanced(&self) -> bool {
        let paid: u128 = self.payouts.iter().map(|p| u128::from(p.amount)).sum();
        let house = u128::from(self.paid_to(Beneficiary::House));
        paid == u128::from(self.escrow_total)
            && house == u128::from(self.tax) + u128::from(self.breakage)
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
    pub side: Color,
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
    fn of(&self, side: Color) -> Stake {
        match side {
            Color::Black => self.black,
            Color::White => self.white,
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
    Coaching(Color),
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

/// `floor(gain_num · (1 − tax) / gain_den)`: the untaxed part of a gain given as a rational,
/// rounded down once, exactly. Callers keep both inputs below 2^106 and 2^53, so nothing overflows.
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

/// One bettor's place in a pool: the side they back and all the points they put on it (a bettor
/// keeps to one side; each addition raises the total).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backing {
    pub side: Color,
    pub total: u64,
}

impl Backing {
    /// Nothing yet on `side`.
    pub fn on(side: Color) -> Backing {
        Backing { side, total: 0 }
    }
}

/// Per-bettor totals and sides, refusing zero bets, side changes and oversized pools.
fn aggregate_bets(bets: &[Bet]) -> Result<BTreeMap<u64, Backing>, SettleError> {
    let mut totals: BTreeMap<u64, Backing> = BTreeMap::new();
    let mut pool_total = 0u64;
    for bet in bets {
        if bet.amount == 0 {
            return Err(SettleError::ZeroBet { bettor: bet.bettor });
        }
        pool_total = add_points(pool_total, bet.amount)?;
        let backing = totals.entry(bet.bettor).or_insert(Backing::on(bet.side));
        if backing.side != bet.side {
            return Err(SettleError::BettorOnBothSides { bettor: bet.bettor });
        }
        backing.total += bet.amount;
    }
    Ok(totals)
}

/// Settles a game's spectator pool. `bets` may hold several additions per bettor; see the module
/// doc.
pub fn settle_pool(
    bets: &[Bet],
    outcome: MoneyOutcome,
    tax_bp: u32,
) -> Result<Settlement, SettleError> {
    check_tax(tax_bp)?;
    let totals = aggregate_bets(bets)?;
    let stakes: BTreeMap<u64, u64> = totals
        .iter()
        .map(|(&bettor, backing)| (bettor, backing.total))
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
        .filter(|backing| backing.side == winner)
        .map(|backing| backing.total)
        .sum();
    if winning_total == 0 {
        return Ok(Settlement::refund(stakes, RefundReason::NoWinningBets));
    }
    let gain_total = pool_total - winning_total;
    let mut to_users = BTreeMap::new();
    for (&bettor, &Backing { side, total: stake }) in &totals {
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
    outcome: MoneyOutcome,
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
            stakes.of(receiver.opponent()),
            tax_bp,
        )),
        (None, reason) => {
            let reason = reason.expect("an outcome without a receiver has a refund reason");
            Ok(Settlement::refund(contributions, reason))
        }
    }
}

/// Why a paid-coaching stake goes back to the student, if it does. A draw, a loss or the student's
/// escape all still pay the coach: the lesson took place.
fn coaching_refund(outcome: MoneyOutcome, coach: Color) -> Option<RefundReason> {
    match outcome {
        MoneyOutcome::Escape(escaper) if escaper == coach => Some(RefundReason::CoachEscaped),
        MoneyOutcome::Void | MoneyOutcome::Cancelled | MoneyOutcome::NeverPlayed => {
            outcome.no_result()
        }
        MoneyOutcome::Win(_) | MoneyOutcome::Escape(_) | MoneyOutcome::Draw => None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TAX_BP_DEFAULT;
    use proptest::prelude::*;

    fn bet(bettor: u64, side: Color, amount: u64) -> Bet {
        Bet {
            bettor,
            side,
            amount,
        }
    }

    fn user(id: u64) -> Beneficiary {
        Beneficiary::User(id)
    }

    fn stakes(black: (u64, u64), white: (u64, u64)) -> Stakes {
        Stakes {
            black: Stake {
                user: black.0,
                amount: black.1,
            },
            white: Stake {
                user: white.0,
                amount: white.1,
            },
        }
    }

    #[test]
    fn worked_pool_example() {
        // T = 1000; on Black: user 1 bets 300 then adds 100 (400), user 2 bets 200, so W = 600;
        // on White: user 3 bets 400. Black wins, tax 5%.
        //   user 1: gain = 400 · 400 / 600 = 266.67; after tax · 0.95 = 253.33 → 400 + 253 = 653
        //   user 2: gain = 400 · 200 / 600 = 133.33; after tax · 0.95 = 126.67 → 200 + 126 = 326
        //   user 3: 0
        //   tax = floor(400 · 0.05) = 20; breakage = 1000 − 653 − 326 − 20 = 1; house gets 21.
        let bets = [
            bet(1, Color::Black, 300),
            bet(2, Color::Black, 200),
            bet(3, Color::White, 400),
            bet(1, Color::Black, 100),
        ];
        let settlement =
            settle_pool(&bets, MoneyOutcome::Win(Color::Black), TAX_BP_DEFAULT).unwrap();
        assert_eq!(
            settlement.payouts,
            vec![
                Payout {
                    to: user(1),
                    amount: 653
                },
                Payout {
                    to: user(2),
                    amount: 326
                },
                Payout {
                    to: Beneficiary::House,
                    amount: 21
                },
            ]
        );
        assert_eq!(
            (settlement.escrow_total, settlement.tax, settlement.breakage),
            (1000, 20, 1)
        );
        assert_eq!(settlement.refund, None);
        assert_eq!(settlement.paid_to(user(3)), 0);
    }

    #[test]
    fn escape_settles_the_pool_as_a_loss_for_the_escaper() {
        let bets = [bet(1, Color::Black, 100), bet(2, Color::White, 100)];
        let escaped = settle_pool(&bets, MoneyOutcome::Escape(Color::White), 0).unwrap();
        assert_eq!(
            escaped,
            settle_pool(&bets, MoneyOutcome::Win(Color::Black), 0).unwrap()
        );
        assert_eq!(escaped.paid_to(user(1)), 200);
    }

    #[test]
    fn pool_refund_rules() {
        let bets = [
            bet(1, Color::Black, 100),
            bet(2, Color::Black, 50),
            bet(3, Color::White, 70),
        ];
        let cases = [
            (MoneyOutcome::Draw, RefundReason::Draw),
            (MoneyOutcome::Void, RefundReason::Void),
            (MoneyOutcome::Cancelled, RefundReason::Cancelled),
            (MoneyOutcome::NeverPlayed, RefundReason::NeverPlayed),
        ];
        for (outcome, reason) in cases {
            let settlement = settle_pool(&bets, outcome, TAX_BP_DEFAULT).unwrap();
            assert_eq!(settlement.refund, Some(reason));
            assert_eq!(settlement.paid_to(user(1)), 100);
            assert_eq!(settlement.paid_to(user(2)), 50);
            assert_eq!(settlement.paid_to(user(3)), 70);
            assert_eq!(settlement.paid_to(Beneficiary::House), 0);
        }
        // Nobody picked the winner.
        let one_sided = [bet(1, Color::Black, 100), bet(2, Color::Black, 50)];
        let settlement = settle_pool(&one_sided, MoneyOutcome::Win(Color::White), 500).unwrap();
        assert_eq!(settlement.refund, Some(RefundReason::NoWinningBets));
        assert_eq!(settlement.paid_to(user(2)), 50);
        // One watcher, even with several additions and a winning pick.
        let single = [bet(7, Color::White, 10), bet(7, Color::White, 15)];
        let settlement = settle_pool(&single, MoneyOutcome::Win(Color::White), 500).unwrap();
        assert_eq!(settlement.refund, Some(RefundReason::TooFewBettors));
        assert_eq!(
            settlement.payouts,
            vec![Payout {
                to: user(7),
                amount: 25
            }]
        );
        // Nobody bet: nothing to pay.
        let empty = settle_pool(&[], MoneyOutcome::Win(Color::Black), 500).unwrap();
        assert!(empty.payouts.is_empty());
        assert_eq!(empty.escrow_total, 0);
    }

    #[test]
    fn everyone_on_the_winner_get_their_stakes_untaxed() {
        let bets = [bet(1, Color::Black, 100), bet(2, Color::Black, 50)];
        let settlement = settle_pool(&bets, MoneyOutcome::Win(Color::Black), 500).unwrap();
        assert_eq!(settlement.refund, None);
        assert_eq!(
            (settlement.paid_to(user(1)), settlement.paid_to(user(2))),
            (100, 50)
        );
        assert_eq!(settlement.tax + settlement.breakage, 0);
    }

    #[test]
    fn bad_pool_input_is_refused() {
        let win = MoneyOutcome::Win(Color::Black);
        assert_eq!(
            settle_pool(&[bet(1, Color::Black, 0)], win, 500),
            Err(SettleError::ZeroBet { bettor: 1 })
        );
        assert_eq!(
            settle_pool(
                &[bet(1, Color::Black, 5), bet(1, Color::White, 5)],
                win,
                500
            ),
            Err(SettleError::BettorOnBothSides { bettor: 1 })
        );
        assert_eq!(
            settle_pool(
                &[bet(1, Color::Black, POINTS_MAX), bet(2, Color::White, 1)],
                win,
                500
            ),
            Err(SettleError::TooManyPoints)
        );
        assert_eq!(
            settle_pool(
                &[
                    bet(1, Color::Black, u64::MAX),
                    bet(2, Color::White, u64::MAX)
                ],
                win,
                0
            ),
            Err(SettleError::TooManyPoints)
        );
        assert_eq!(
            settle_pool(&[], win, 10_001),
            Err(SettleError::TaxRateTooHigh { tax_bp: 10_001 })
        );
        assert!(!SettleError::TooManyPoints.to_string().is_empty());
    }

    #[test]
    fn full_tax_and_no_tax_extremes() {
        let bets = [bet(1, Color::Black, 3), bet(2, Color::White, 7)];
        let all_taxed = settle_pool(&bets, MoneyOutcome::Win(Color::Black), 10_000).unwrap();
        assert_eq!(
            (
                all_taxed.paid_to(user(1)),
                all_taxed.tax,
                all_taxed.breakage
            ),
            (3, 7, 0)
        );
        let untaxed = settle_pool(&bets, MoneyOutcome::Win(Color::White), 0).unwrap();
        assert_eq!(
            (untaxed.paid_to(user(2)), untaxed.tax, untaxed.breakage),
            (10, 0, 0)
        );
    }

    #[test]
    fn largest_pool_does_not_overflow() {
        let half = POINTS_MAX / 2;
        let bets = [
            bet(1, Color::Black, half),
            bet(2, Color::Black, 1),
            bet(3, Color::White, half),
        ];
        let settlement = settle_pool(&bets, MoneyOutcome::Win(Color::Black), 1).unwrap();
        assert!(settlement.paid_to(user(1)) > half);
        assert_eq!(settlement.escrow_total, 2 * half + 1);
    }

    #[test]
    fn normal_stakes_pay_the_winner_the_taxed_gain() {
        // Black (user 10) stakes 201, White (user 20) stakes 300; White wins at 5%:
        // gain 201 · 0.95 = 190.95 → 190; tax floor(10.05) = 10; breakage 1.
        let table = stakes((10, 201), (20, 300));
        let settlement = settle_stakes(
            &table,
            StakeMode::Normal,
            MoneyOutcome::Win(Color::White),
            500,
        )
        .unwrap();
        assert_eq!(
            settlement.payouts,
            vec![
                Payout {
                    to: user(20),
                    amount: 300 + 190
                },
                Payout {
                    to: Beneficiary::House,
                    amount: 11
                },
            ]
        );
        assert_eq!((settlement.tax, settlement.breakage), (10, 1));
        // Black escaping is the same as White winning.
        let escaped = settle_stakes(
            &table,
            StakeMode::Normal,
            MoneyOutcome::Escape(Color::Black),
            500,
        )
        .unwrap();
        assert_eq!(escaped, settlement);
        // Black wins: 201 + floor(300 · 0.95) = 201 + 285, tax exactly 15.
        let black_wins = settle_stakes(
            &table,
            StakeMode::Normal,
            MoneyOutcome::Win(Color::Black),
            500,
        )
        .unwrap();
        assert_eq!(black_wins.paid_to(user(10)), 201 + 285);
        assert_eq!((black_wins.tax, black_wins.breakage), (15, 0));
    }

    #[test]
    fn normal_stakes_are_refunded_without_a_result() {
        let table = stakes((10, 300), (20, 200));
        for (outcome, reason) in [
            (MoneyOutcome::Draw, RefundReason::Draw),
            (MoneyOutcome::Void, RefundReason::Void),
            (MoneyOutcome::Cancelled, RefundReason::Cancelled),
            (MoneyOutcome::NeverPlayed, RefundReason::NeverPlayed),
        ] {
            let settlement = settle_stakes(&table, StakeMode::Normal, outcome, 500).unwrap();
            assert_eq!(settlement.refund, Some(reason));
            assert_eq!(
                settlement.payouts,
                vec![
                    Payout {
                        to: user(10),
                        amount: 300
                    },
                    Payout {
                        to: user(20),
                        amount: 200
                    }
                ]
            );
        }
    }

    #[test]
    fn coaching_pays_the_coach_on_any_result() {
        // White (user 20) coaches; the student, Black (user 10), stakes 100: the coach receives 95.
        let table = stakes((10, 100), (20, 0));
        let mode = StakeMode::Coaching(Color::White);
        for outcome in [
            MoneyOutcome::Win(Color::White),
            MoneyOutcome::Win(Color::Black),
            MoneyOutcome::Draw,
            MoneyOutcome::Escape(Color::Black),
        ] {
            let settlement = settle_stakes(&table, mode, outcome, 500).unwrap();
            assert_eq!(settlement.refund, None, "{outcome:?}");
            assert_eq!(settlement.paid_to(user(20)), 95);
            assert_eq!(settlement.paid_to(user(10)), 0);
            assert_eq!((settlement.tax, settlement.breakage), (5, 0));
        }
    }

    #[test]
    fn coaching_refunds_the_student_when_the_coach_escapes_or_no_game() {
        let table = stakes((10, 100), (20, 0));
        let mode = StakeMode::Coaching(Color::White);
        for (outcome, reason) in [
            (
                MoneyOutcome::Escape(Color::White),
                RefundReason::CoachEscaped,
            ),
            (MoneyOutcome::Void, RefundReason::Void),
            (MoneyOutcome::Cancelled, RefundReason::Cancelled),
            (MoneyOutcome::NeverPlayed, RefundReason::NeverPlayed),
        ] {
            let settlement = settle_stakes(&table, mode, outcome, 500).unwrap();
            assert_eq!(settlement.refund, Some(reason));
            assert_eq!(
                settlement.payouts,
                vec![Payout {
                    to: user(10),
                    amount: 100
                }]
            );
        }
    }

    #[test]
    fn bad_stake_input_is_refused() {
        let table = stakes((10, 100), (20, 5));
        assert_eq!(
            settle_stakes(
                &table,
                StakeMode::Coaching(Color::White),
                MoneyOutcome::Draw,
                500
            ),
            Err(SettleError::CoachStaked { amount: 5 })
        );
        let huge = stakes((10, POINTS_MAX), (20, 1));
        assert_eq!(
            settle_stakes(&huge, StakeMode::Normal, MoneyOutcome::Draw, 500),
            Err(SettleError::TooManyPoints)
        );
        assert_eq!(
            settle_stakes(&table, StakeMode::Normal, MoneyOutcome::Draw, u32::MAX),
            Err(SettleError::TaxRateTooHigh { tax_bp: u32::MAX })
        );
    }

    #[test]
    fn settlements_serialize_for_the_store() {
        let table = stakes((10, 100), (20, 0));
        let settlement = settle_stakes(
            &table,
            StakeMode::Coaching(Color::White),
            MoneyOutcome::Draw,
            500,
        )
        .unwrap();
        let json = serde_json::to_string(&settlement).unwrap();
        let mut back = serde_json::from_str::<Settlement>(&json).unwrap();
        assert_eq!(back, settlement);
        assert!(back.is_balanced());
        back.payouts[0].amount += 1;
        assert!(!back.is_balanced(), "a tampered record is caught");
        assert!(
            json.contains(r#"{"to":{"kind":"house"},"amount":5}"#),
            "{json}"
        );
    }

    fn outcome_strategy() -> impl Strategy<Value = MoneyOutcome> {
        let side = prop_oneof![Just(Color::Black), Just(Color::White)];
        prop_oneof![
            4 => side.clone().prop_map(MoneyOutcome::Win),
            1 => side.prop_map(MoneyOutcome::Escape),
            1 => Just(MoneyOutcome::Draw),
            1 => Just(MoneyOutcome::Void),
            1 => Just(MoneyOutcome::Cancelled),
            1 => Just(MoneyOutcome::NeverPlayed),
        ]
    }

    /// Bets where each bettor keeps to one side (a function of the bettor id and a per-case salt),
    /// with repeated bettors standing for additions to a bet.
    fn bets_strategy(amount_max: u64) -> impl Strategy<Value = Vec<Bet>> {
        let raw = prop::collection::vec((0..8u64, 1..=amount_max), 0..16);
        (0..3u64, raw).prop_map(|(salt, raw)| {
            raw.into_iter()
                .map(|(bettor, amount)| {
                    let side = if (bettor + salt) % 3 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    bet(bettor, side, amount)
                })
                .collect()
        })
    }

    fn per_bettor(bets: &[Bet]) -> BTreeMap<u64, Backing> {
        let mut totals = BTreeMap::new();
        for b in bets {
            totals.entry(b.bettor).or_insert(Backing::on(b.side)).total += b.amount;
        }
        totals
    }

    proptest! {
        #[test]
        fn pool_conserves_points_and_pays_fairly(
            bets in prop_oneof![bets_strategy(1_000), bets_strategy(POINTS_MAX / 16)],
            outcome in outcome_strategy(),
            tax_bp in 0..=BASIS_POINTS_FULL,
        ) {
            let settlement = settle_pool(&bets, outcome, tax_bp).unwrap();
            let totals = per_bettor(&bets);
            let pool_total: u64 = totals.values().map(|backing| backing.total).sum();
            let users_total: u64 = settlement
                .payouts
                .iter()
                .filter(|p| p.to != Beneficiary::House)
                .map(|p| p.amount)
                .sum();
            prop_assert_eq!(settlement.escrow_total, pool_total);
            prop_assert_eq!(users_total + settlement.tax + settlement.breakage, pool_total);
            let house = settlement.paid_to(Beneficiary::House);
            prop_assert_eq!(house, settlement.tax + settlement.breakage);
            prop_assert!(settlement.is_balanced());
            for (&bettor, &Backing { side, total: stake }) in &totals {
                let paid = settlement.paid_to(user(bettor));
                prop_assert!(paid <= pool_total);
                if settlement.refund.is_some() {
                    prop_assert_eq!(paid, stake);
                } else if Some(side) == outcome.winner() {
                    prop_assert!(paid >= stake);
                } else {
                    prop_assert_eq!(paid, 0);
                }
            }
            if settlement.refund.is_some() {
                prop_assert_eq!(settlement.tax + settlement.breakage, 0);
            } else {
                // Breakage is only rounding: below one point per winning bettor plus the tax's
                // fraction.
                let winners = totals
                    .values()
                    .filter(|backing| Some(backing.side) == outcome.winner())
                    .count();
                prop_assert!(settlement.breakage <= winners as u64);
            }
        }

        #[test]
        fn stakes_conserve_points(
            black in 0..=POINTS_MAX / 2,
            white in 0..=POINTS_MAX / 2,
            coach in prop::option::of(prop_oneof![Just(Color::Black), Just(Color::White)]),
            outcome in outcome_strategy(),
            tax_bp in 0..=BASIS_POINTS_FULL,
        ) {
            let mut table = stakes((1, black), (2, white));
            let mode = match coach {
                None => StakeMode::Normal,
                Some(Color::Black) => { table.black.amount = 0; StakeMode::Coaching(Color::Black) }
                Some(Color::White) => { table.white.amount = 0; StakeMode::Coaching(Color::White) }
            };
            let settlement = settle_stakes(&table, mode, outcome, tax_bp).unwrap();
            let total = table.black.amount + table.white.amount;
            let users = settlement.paid_to(user(1)) + settlement.paid_to(user(2));
            prop_assert_eq!(users + settlement.tax + settlement.breakage, total);
            prop_assert!(settlement.breakage <= 1);
            if settlement.refund.is_some() {
                prop_assert_eq!(settlement.paid_to(user(1)), table.black.amount);
                prop_assert_eq!(settlement.paid_to(user(2)), table.white.amount);
            } else if mode == StakeMode::Normal {
                let winner = outcome.winner().unwrap();
                let own = table.of(winner).amount;
                let winner_id = table.of(winner).user;
                prop_assert!(settlement.paid_to(user(winner_id)) >= own);
                prop_assert_eq!(settlement.paid_to(user(table.of(winner.opponent()).user)), 0);
            }
        }
    }
}
