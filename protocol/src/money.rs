//! Fortune points on the wire: the spectator pool, the players' stakes, balances and the history
//! of every transfer, what a client sends to bet, stake and look at its points, and what the server
//! answers and pushes (bets placed, pools, balances, a table's stake dialog). Every amount a
//! client sends is an [`Amount`], any whole number as sent, and becomes [`Points`] (1 to 2^53 − 1)
//! through one check, [`Amount::points`] (or [`Amount::stake`], where 0 means none), where the
//! server takes the message in; past that the server carries `Points`.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Color, GameId, RequestId, RequestKey, Seat, TableId};

/// Fortune points moved at once (a bet, a stake, a raise): 1 to [`Points::MAX`]. Made only by
/// [`Points::new`], so holding one is proof of the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct Points(u64);

impl Points {
    /// 2^53 − 1: the most points any amount, balance or pool holds, so every number of points is
    /// exact in a JavaScript number (the browser's) and in the store's Lua, and the settlement's
    /// products fit in 128 bits.
    pub const MAX: u64 = (1 << 53) - 1;

    /// `n` points, if `n` is 1 to [`Points::MAX`].
    pub const fn new(n: u64) -> Option<Points> {
        if 1 <= n && n <= Points::MAX {
            Some(Points(n))
        } else {
            None
        }
    }

    pub const fn get(self) -> u64 {
        self.0
    }
}

impl From<Points> for u64 {
    fn from(points: Points) -> u64 {
        points.0
    }
}

impl TryFrom<u64> for Points {
    type Error = BadAmount;

    fn try_from(n: u64) -> Result<Points, BadAmount> {
        Amount::from(n).points()
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An amount of points as a client sent it, not yet checked: any whole number, kept even when it is
/// too large for the ledger or for 64 bits, so that every amount out of range is refused alike
/// (`bad_amount`) by one check. A negative or fractional number is no amount at all and is refused
/// when the message is read (`bad_message`). A whole number written as a float (`100.0`, `1e3`)
/// is that number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount(Option<u64>);

impl Amount {
    /// The points of a bet or raise: 1 to [`Points::MAX`].
    pub fn points(self) -> Result<Points, BadAmount> {
        self.0.and_then(Points::new).ok_or(BadAmount(self))
    }

    /// A stake, where 0 means none: `None` for 0, else as [`Amount::points`].
    pub fn stake(self) -> Result<Option<Points>, BadAmount> {
        match self.0 {
            Some(0) => Ok(None),
            _ => self.points().map(Some),
        }
    }
}

impl From<u64> for Amount {
    fn from(n: u64) -> Amount {
        Amount(Some(n))
    }
}

impl From<Points> for Amount {
    fn from(points: Points) -> Amount {
        Amount(Some(points.0))
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => n.fmt(f),
            None => f.write_str("a number past 2^64"),
        }
    }
}

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(n) => serializer.serialize_u64(n),
            None => serializer.serialize_f64(2f64.powi(64)),
        }
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Amount, D::Error> {
        deserializer.deserialize_any(AmountVisitor)
    }
}

struct AmountVisitor;

impl Visitor<'_> for AmountVisitor {
    type Value = Amount;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a whole number of points")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Amount, E> {
        Ok(Amount(Some(n)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Amount, E> {
        u64::try_from(n).map(|n| Amount(Some(n))).map_err(|_| {
            E::custom(format!(
                "{n} is negative: an amount is a whole number of points"
            ))
        })
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Amount, E> {
        // Doubles at and past 2^53 are whole but no longer exact: all of them are out of range.
        let exact = 2f64.powi(53);
        if x.fract() != 0.0 || x < 0.0 || x.is_nan() {
            return Err(E::custom(format!(
                "{x} is not a whole number: an amount is a whole number of points"
            )));
        }
        Ok(Amount((x < exact).then_some(x as u64)))
    }
}

/// An amount out of range, with what was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadAmount(pub Amount);

impl fmt::Display for BadAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not an amount: send a whole number of points from 1 to {}",
            self.0,
            Points::MAX
        )
    }
}

impl std::error::Error for BadAmount {}

/// A game's spectator pool (旁观者竞猜) and the players' stakes, as everyone may see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolInfo {
    pub game: GameId,
    /// Whether bets are taken: the game is live and play has not ended.
    pub open: bool,
    /// Every point bet, both sides.
    pub total: u64,
    pub black: u64,
    pub white: u64,
    /// Distinct watchers who bet.
    pub bettors_count: u32,
    /// The players' stakes in escrow for this game.
    pub stake_black: u64,
    pub stake_white: u64,
    /// The house tax rate in basis points (500 is 5%), applied to winnings.
    pub tax_bp: u32,
    /// Whether the game has been settled (paid out or refunded).
    pub settled: bool,
}

/// How the players' stakes at a table are settled, fixed once agreed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StakeTerms {
    /// The winner takes both stakes, the gain taxed.
    Normal,
    /// Paid coaching (有偿指导): the coach stakes 0 and receives the student's stake whatever the
    /// result, unless the coach escapes.
    Coaching { coach: Seat },
}

/// The stake dialog of a table, as both players and the table's watchers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StakeInfo {
    pub table: TableId,
    /// The left seat's stake and the right seat's.
    pub left: u64,
    pub right: u64,
    pub terms: StakeTerms,
    /// Who has pressed OK on exactly these amounts.
    pub ok_left: bool,
    pub ok_right: bool,
    /// Who has pressed Agree (after both OK'd).
    pub agree_left: bool,
    pub agree_right: bool,
    /// Both agreed: the points are in escrow, for `game` (or the next game at the table if `null`).
    pub agreed: bool,
    pub game: Option<GameId>,
}

/// What one of your bets or stakes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WagerKind {
    /// A watcher's bet in the spectator pool.
    Bet,
    /// A player's stake.
    Stake,
    /// A coach's fee from paid coaching: the student's stake, taxed, paid to the coach (who staked
    /// nothing) once the game is settled.
    Coaching,
    /// A stake agreed at a table for its next game, held until that game starts (it is then the
    /// game's `stake` record); given back with `refund: "not_played"` if the game never starts.
    Hold,
}

/// One transfer into or out of your account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// `grant`, `bet`, `stake`, `coaching_stake`, `payout` or `refund`.
    pub kind: String,
    /// Points in (positive) or out (negative).
    pub amount: i64,
    /// The game a bet, stake or settlement belongs to.
    pub game: Option<GameId>,
    pub at_ms: u64,
}

/// One of your bets or stakes on one game, with its result once settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WagerRecord {
    /// The game; `null` for a `hold` (no game started).
    pub game: Option<GameId>,
    /// The table a `hold` was agreed at; absent for the other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableId>,
    pub kind: WagerKind,
    /// The side you bet on or played; `null` for a `hold` (colours are drawn when the game starts).
    pub side: Option<Color>,
    /// Everything you put in (a bet with its additions).
    pub staked: u64,
    /// What came back to you; `null` until the game is settled.
    pub returned: Option<u64>,
    /// `returned − staked`; `null` until settled.
    pub net: Option<i64>,
    /// The tax rate in basis points: the settlement's once settled, else the current one.
    pub tax_bp: u32,
    /// Why everything was refunded, when it was (`draw`, `void`, `too_few_bettors`, ...;
    /// `not_played` for a `hold` given back because its game never started).
    pub refund: Option<String>,
}

/// What a client sends about fortune points: bets, stakes, balances and history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MoneyMsg {
    /// Bet fortune points on a side of a live game you watch and do not play; sent again on the same
    /// side, it adds to your bet. Betting closes the moment play ends.
    Bet {
        game: GameId,
        side: Color,
        amount: Amount,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// A game's spectator pool and players' stakes, live or finished.
    Pool { game: GameId },
    /// Your fortune points.
    Balance,
    /// Your bets and stakes, newest first, each with what came back.
    MyBets,
    /// Your account's history: every transfer in or out (grant, bets, stakes, payouts, refunds),
    /// newest first.
    History,
    /// What the house has collected in tax and breakage.
    House,
    /// A seated player sets both stakes (each at most that player's balance) and presses OK; the other
    /// player may change them and press OK too.
    StakeOffer {
        table: TableId,
        /// The left seat's stake and the right seat's; 0 is none.
        left: Amount,
        right: Amount,
        terms: StakeTerms,
    },
    /// After both OK'd the same amounts: Agree (both agreeing moves the points into escrow) or
    /// Disagree (back to editing).
    StakeAnswer { table: TableId, agree: bool },
    /// A player adds to their own stake in the game in progress (追加).
    StakeRaise {
        game: GameId,
        amount: Amount,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
}

impl MoneyMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "bet",
        "pool",
        "balance",
        "my_bets",
        "history",
        "house",
        "stake_offer",
        "stake_answer",
        "stake_raise",
    ];
}

/// What the server sends about fortune points: bets placed, a game's pool, balances and records,
/// and a table's stake dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MoneyServerMsg {
    /// Reply to `bet`: what you added, your whole bet on that side, and your balance after it.
    BetPlaced {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        game: GameId,
        side: Color,
        amount: u64,
        total: u64,
        balance: u64,
        tax_bp: u32,
    },
    /// A game's pool: the reply to `pool`, and pushed to everyone following the game whenever a bet
    /// changes it.
    Pool {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        pool: PoolInfo,
    },
    /// Your fortune points: the reply to `balance`, pushed once after logging in and again after
    /// each game your bet or stake was in settles.
    Balance {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// Reply to `my_bets`.
    MyBets {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        records: Vec<WagerRecord>,
    },
    /// Reply to `history`.
    History {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        entries: Vec<HistoryEntry>,
    },
    /// Reply to `house`: the house's takings so far.
    House {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// A table's stake dialog changed (`stake` is `null` once it lapsed or was withdrawn); pushed to
    /// the players and the table's watchers.
    StakeUpdated {
        table: TableId,
        stake: Option<StakeInfo>,
        tax_bp: u32,
    },
}

impl MoneyServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &[
        "bet_placed",
        "pool",
        "balance",
        "my_bets",
        "history",
        "house",
        "stake_updated",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Amount, String> {
        serde_json::from_str(json).map_err(|err| err.to_string())
    }

    #[test]
    fn every_whole_amount_is_read_and_checked_in_one_place() {
        let max = Points::MAX;
        for (json, points) in [
            ("1", Some(1)),
            ("100", Some(100)),
            ("1e3", Some(1000)),
            ("100.0", Some(100)),
            ("9007199254740991", Some(max)),
            ("0", None),
            ("-0.0", None),
            ("9007199254740992", None),
            ("9007199254740993.0", None),
            ("18446744073709551615", None),
            ("18446744073709551616", None),
            ("1e308", None),
        ] {
            let amount = read(json).unwrap();
            assert_eq!(amount.points().ok().map(Points::get), points, "{json}");
        }
        for bad in ["-1", "1.5", "-5", "\"7\"", "null", "[]", "1e400"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        assert_eq!(read("0").unwrap().stake(), Ok(None));
        assert_eq!(
            read("7").unwrap().stake().unwrap().map(Points::get),
            Some(7)
        );
        assert!(read("9007199254740992").unwrap().stake().is_err());
        let refused = read("18446744073709551616").unwrap().points().unwrap_err();
        assert!(
            refused.to_string().contains("9007199254740991"),
            "{refused}"
        );
        assert_eq!(Points::try_from(max + 1).ok(), None);
        assert_eq!(serde_json::to_string(&Points::new(5)).unwrap(), "5");
        assert!(serde_json::from_str::<Points>("0").is_err());
    }
}
