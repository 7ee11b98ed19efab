//! The ledger's vocabulary, shared by the service and every store backend: accounts, transfers of
//! whole points with unique ids, and the all-or-nothing [`Batch`] a backend applies in one
//! transaction. Pure data; what a batch means is the service's business, applying it atomically
//! and idempotently is the store's.

use std::fmt;

use serde::{Deserialize, Serialize};
use tengen_protocol::{GameId, TableId, UserId};

use tengen_rules::Color;

/// Transfers in one batch at most: a settlement pays one transfer per winning bettor plus the house
/// and the stakes, in one batch, and a game has at most `WATCHERS_PER_GAME_MAX` (25,000) watchers
/// on a node, so this leaves room for every one of them to win; the benchmark's group commits stay
/// under it too. A bigger batch is a bug in the caller.
pub const BATCH_TRANSFERS_MAX: usize = 30_000;

/// An account in the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Account {
    /// Where starting grants come from. Its balance is minus every point ever granted, so the sum
    /// of all accounts, the mint included, is always 0; it is the only account allowed below 0.
    Mint,
    /// Collects tax and breakage.
    House,
    User(UserId),
    /// Holds a game's pool bets and players' stakes until the game is settled.
    Escrow(GameId),
    /// Holds the stakes two players agreed at a table before their next game starts; moved into
    /// that game's escrow when it does, refunded if it never does.
    Hold(TableId),
}

impl Account {
    /// The key a backend stores the account under: `mint`, `house`, `user:7`, `escrow:12`.
    pub fn key(self) -> String {
        match self {
            Account::Mint => "mint".into(),
            Account::House => "house".into(),
            Account::User(user) => format!("user:{user}"),
            Account::Escrow(game) => format!("escrow:{game}"),
            Account::Hold(table) => format!("hold:{table}"),
        }
    }

    /// The account a key names, if it is well formed.
    pub fn from_key(key: &str) -> Option<Account> {
        match key {
            "mint" => Some(Account::Mint),
            "house" => Some(Account::House),
            _ => {
                let (kind, id) = key.split_once(':')?;
                let id: u64 = id.parse().ok()?;
                match kind {
                    "user" => Some(Account::User(UserId(id))),
                    "escrow" => Some(Account::Escrow(GameId(id))),
                    "hold" => Some(Account::Hold(TableId(u32::try_from(id).ok()?))),
                    _ => None,
                }
            }
        }
    }

    /// Whether the balance may go below 0 (only the mint's).
    pub fn may_go_negative(self) -> bool {
        self == Account::Mint
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// Why points moved; kept with each transfer so history and pools are read back from the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    /// The starting grant, mint to user.
    Grant,
    /// A watcher's pool bet (or an addition to it), user to escrow.
    Bet,
    /// A player's stake, user to escrow (or to a table's hold before the game starts).
    Stake,
    /// A student's stake in paid coaching, user to escrow or hold: the coach is the other side.
    CoachingStake,
    /// A settlement paying a user (winnings, or the coach's fee), escrow to user.
    Payout,
    /// A settlement returning a contribution, escrow to user.
    Refund,
    /// Tax plus breakage, escrow to house.
    Tax,
}

impl TransferKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransferKind::Grant => "grant",
            TransferKind::Bet => "bet",
            TransferKind::Stake => "stake",
            TransferKind::CoachingStake => "coaching_stake",
            TransferKind::Payout => "payout",
            TransferKind::Refund => "refund",
            TransferKind::Tax => "tax",
        }
    }

    pub fn parse(text: &str) -> Option<TransferKind> {
        Some(match text {
            "grant" => TransferKind::Grant,
            "bet" => TransferKind::Bet,
            "stake" => TransferKind::Stake,
            "coaching_stake" => TransferKind::CoachingStake,
            "payout" => TransferKind::Payout,
            "refund" => TransferKind::Refund,
            "tax" => TransferKind::Tax,
            _ => return None,
        })
    }
}

/// One movement of whole points. `id` is unique for all time: applying a transfer whose id is
/// already in the book does nothing, which makes every retry safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    pub id: String,
    pub from: Account,
    pub to: Account,
    /// Always above 0.
    pub amount: u64,
    pub kind: TransferKind,
    /// The game a bet, stake or settlement belongs to.
    pub game: Option<GameId>,
    /// The side a bet or stake is on.
    pub side: Option<Color>,
    pub at_ms: u64,
}

/// Which half of a game's escrow a settlement paid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettlementPart {
    Pool,
    Stakes,
}

impl SettlementPart {
    pub fn as_str(self) -> &'static str {
        match self {
            SettlementPart::Pool => "pool",
            SettlementPart::Stakes => "stakes",
        }
    }

    pub fn parse(text: &str) -> Option<SettlementPart> {
        match text {
            "pool" => Some(SettlementPart::Pool),
            "stakes" => Some(SettlementPart::Stakes),
            _ => None,
        }
    }
}

/// The record that a part of a game was settled, written in the same transaction as its payouts,
/// so "settled" and "paid" can never disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementRecord {
    pub game: GameId,
    pub part: SettlementPart,
    /// The tax rate the settlement used, shown with every record.
    pub tax_bp: u32,
    /// `ledger::settle::Settlement` as JSON, for the settlement screen.
    pub summary_json: String,
    pub at_ms: u64,
}

/// Transfers and settlement records applied all-or-nothing, in one transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batch {
    pub transfers: Vec<Transfer>,
    pub settlements: Vec<SettlementRecord>,
}

impl Batch {
    /// A batch of one transfer and no settlement record: a bet, a raise, a grant, a release.
    pub fn one(transfer: Transfer) -> Batch {
        Batch {
            transfers: vec![transfer],
            settlements: Vec::new(),
        }
    }
}

/// What applying a batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// At least one transfer or record was new.
    Applied,
    /// Everything in it was already in the book (a retry).
    AlreadyApplied,
}

/// One account and its balance, for the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountBalance {
    pub account: Account,
    pub balance: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_keys_round_trip_and_junk_is_refused() {
        for account in [
            Account::Mint,
            Account::House,
            Account::User(UserId(7)),
            Account::Escrow(GameId(12)),
            Account::Hold(TableId(3)),
        ] {
            assert_eq!(Account::from_key(&account.key()), Some(account));
        }
        for junk in ["", "user", "user:", "user:x", "pot:1", "escrow:-1"] {
            assert_eq!(Account::from_key(junk), None, "{junk}");
        }
        assert!(Account::Mint.may_go_negative());
        assert!(!Account::House.may_go_negative());
    }
}
