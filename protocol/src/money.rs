//! Fortune points on the wire: the spectator pool, the players' stakes, balances and the history
//! of every transfer, and what a client sends to bet, stake and look at its points.

use serde::{Deserialize, Serialize};

use crate::{Color, GameId, RequestKey, Seat, TableId};

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
        amount: u64,
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
        left: u64,
        right: u64,
        terms: StakeTerms,
    },
    /// After both OK'd the same amounts: Agree (both agreeing moves the points into escrow) or
    /// Disagree (back to editing).
    StakeAnswer { table: TableId, agree: bool },
    /// A player adds to their own stake in the game in progress (追加).
    StakeRaise {
        game: GameId,
        amount: u64,
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
