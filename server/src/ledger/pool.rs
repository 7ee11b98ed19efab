//! One game's tally of bets and stakes, rebuilt from the book's transfers and kept up to date by the
//! game actor as bets arrive: per-bettor totals and sides, per-side sums, and the players' stakes.
//! Pure data; the pool view everyone sees is made from it.

use std::collections::{BTreeMap, BTreeSet};

use tengen_protocol::{GameId, PoolInfo, RequestKey, UserId};

use super::book::{Account, Transfer, TransferKind};
use super::settle::{Backing, Bet, Stake, StakeMode, Stakes};
use tengen_rules::Color;

/// A game's bets and stakes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Every bet (each addition separately), in the order applied.
    bets: Vec<Bet>,
    /// Per bettor: their side and their total. Bounded by the game's watchers.
    bettors: BTreeMap<UserId, Backing>,
    side_totals: [u64; 2],
    /// Per side: the player who staked and their total stake.
    stakes: [Option<(UserId, u64)>; 2],
    /// In paid coaching, the student's side (the coach is the other).
    student: Option<Color>,
    /// Stake transfers applied so far: the next one's number is this plus one.
    stakes_count: usize,
    /// The highest number of an unkeyed bet in the book (`bet:<game>:<n>`): the next one's number
    /// is above it. Not the count of bets: a number given to a bet the book refused is skipped,
    /// and keyed bets have no number.
    bets_numbered: u64,
    /// The bets and stake raises sent with a client's key, by bettor and key (read back from their
    /// transfer ids), so a retry is answered instead of applied twice. Bounded like `bets`.
    keyed: BTreeMap<(UserId, RequestKey), Keyed>,
}

/// What a keyed bet or stake raise moved: a retry with the same key must ask for the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyed {
    pub kind: TransferKind,
    pub side: Color,
    pub amount: u64,
}

impl Tally {
    /// The tally of a game's transfers (bets and stakes into its escrow; the rest is ignored).
    pub fn from_transfers(transfers: &[Transfer]) -> Tally {
        let mut tally = Tally::default();
        for t in transfers {
            let (Account::User(user), Some(side)) = (t.from, t.side) else {
                continue;
            };
            if !matches!(t.to, Account::Escrow(_)) {
                continue;
            }
            if let Some((keyed_user, key)) = super::key_of_transfer(&t.id) {
                let keyed = Keyed {
                    kind: t.kind,
                    side,
                    amount: t.amount,
                };
                tally.add_key(keyed_user, key, keyed);
            }
            match t.kind {
                TransferKind::Bet => {
                    if let Some(number) = super::bet_number(&t.id) {
                        tally.bets_numbered = tally.bets_numbered.max(number);
                    }
                    tally.add_bet(user, side, t.amount)
                }
                TransferKind::Stake => tally.add_stake(user, side, t.amount, false),
                TransferKind::CoachingStake => tally.add_stake(user, side, t.amount, true),
                _ => {}
            }
        }
        tally
    }

    /// Record a bet that is in the book. The side was checked when it was placed.
    pub fn add_bet(&mut self, user: UserId, side: Color, amount: u64) {
        let backing = self.bettors.entry(user).or_insert(Backing::on(side));
        assert_eq!(backing.side, side, "a bettor never changes sides");
        backing.total += amount;
        self.side_totals[side.index()] += amount;
        self.bets.push(Bet {
            bettor: user.0,
            side,
            amount,
        });
    }

    /// Record a stake that is in the book; `coaching` when it is a student's paid-coaching stake.
    pub fn add_stake(&mut self, user: UserId, side: Color, amount: u64, coaching: bool) {
        let entry = self.stakes[side.index()].get_or_insert((user, 0));
        assert_eq!(entry.0, user, "only the player of a side stakes on it");
        entry.1 += amount;
        // Only transfers count: a zero stake has none, and numbering must match the book's.
        if amount > 0 {
            self.stakes_count += 1;
        }
        if coaching {
            self.student = Some(side);
        }
    }

    /// Remember a keyed bet or raise that is in the book.
    pub fn add_key(&mut self, user: UserId, key: RequestKey, keyed: Keyed) {
        self.keyed.insert((user, key), keyed);
    }

    /// What `user` moved with `key` in this game, if anything.
    pub fn keyed(&self, user: UserId, key: &RequestKey) -> Option<Keyed> {
        self.keyed.get(&(user, key.clone())).copied()
    }

    pub fn stakes_count(&self) -> usize {
        self.stakes_count
    }

    /// Whether stakes were agreed for this game (a raise needs them).
    pub fn has_stakes(&self) -> bool {
        self.stakes.iter().any(Option::is_some)
    }

    /// The student's side in paid coaching.
    pub fn student(&self) -> Option<Color> {
        self.student
    }

    /// How the stakes settle: paid coaching when the student staked as such.
    pub fn stake_mode(&self) -> StakeMode {
        match self.student {
            Some(student) => StakeMode::Coaching(student.opponent()),
            None => StakeMode::Normal,
        }
    }

    /// A bettor's side and total, if they bet.
    pub fn bettor(&self, user: UserId) -> Option<Backing> {
        self.bettors.get(&user).copied()
    }

    /// Everyone whose points are in this game's escrow: the bettors and the players who staked.
    pub fn accounts(&self) -> BTreeSet<UserId> {
        let stakers = self.stakes.iter().flatten().map(|(user, _)| *user);
        self.bettors.keys().copied().chain(stakers).collect()
    }

    /// Bets applied so far, additions counted separately.
    pub fn bets_count(&self) -> usize {
        self.bets.len()
    }

    /// A number no unkeyed bet in the book has: above the highest read from the book, and above
    /// the count of bets (which numbered the bets this tally was told of by [`Tally::add_bet`]).
    pub fn next_bet_number(&self) -> u64 {
        self.bets_numbered.max(self.bets.len() as u64) + 1
    }

    pub fn bets(&self) -> Vec<Bet> {
        self.bets.clone()
    }

    /// The whole pool.
    pub fn total(&self) -> u64 {
        self.side_totals[0] + self.side_totals[1]
    }

    pub fn stakes_total(&self) -> u64 {
        self.stakes.iter().flatten().map(|(_, amount)| amount).sum()
    }

    /// The stakes for settlement, a side that staked nothing staking 0 as its player.
    pub fn stakes(&self, players: [UserId; 2]) -> Stakes {
        let stake = |side: Color| {
            let (user, amount) = self.stakes[side.index()].unwrap_or((players[side.index()], 0));
            Stake {
                user: user.0,
                amount,
            }
        };
        Stakes {
            black: stake(Color::Black),
            white: stake(Color::White),
        }
    }

    /// The pool as everyone sees it.
    pub fn info(&self, game: GameId, open: bool, tax_bp: u32, settled: bool) -> PoolInfo {
        let stake = |side: Color| self.stakes[side.index()].map_or(0, |(_, amount)| amount);
        PoolInfo {
            game,
            open,
            total: self.total(),
            black: self.side_totals[0],
            white: self.side_totals[1],
            bettors_count: self.bettors.len() as u32,
            stake_black: stake(Color::Black),
            stake_white: stake(Color::White),
            tax_bp,
            settled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(kind: TransferKind, user: u64, side: Color, amount: u64) -> Transfer {
        Transfer {
            id: format!("{kind:?}-{user}-{amount}"),
            from: Account::User(UserId(user)),
            to: Account::Escrow(GameId(1)),
            amount,
            kind,
            game: Some(GameId(1)),
            side: Some(side),
            at_ms: 0,
        }
    }

    #[test]
    fn a_tally_adds_bets_per_bettor_and_keeps_stakes_apart() {
        let tally = Tally::from_transfers(&[
            transfer(TransferKind::Bet, 3, Color::Black, 10),
            transfer(TransferKind::Bet, 4, Color::White, 5),
            transfer(TransferKind::Bet, 3, Color::Black, 7),
            transfer(TransferKind::Stake, 1, Color::Black, 100),
            transfer(TransferKind::CoachingStake, 2, Color::White, 30),
        ]);
        let backing = Backing {
            side: Color::Black,
            total: 17,
        };
        assert_eq!(tally.bettor(UserId(3)), Some(backing));
        assert_eq!(tally.bets_count(), 3);
        assert_eq!(tally.total(), 22);
        assert_eq!(tally.stakes_total(), 130);
        assert_eq!(tally.stake_mode(), StakeMode::Coaching(Color::Black));
        let info = tally.info(GameId(1), true, 500, false);
        assert_eq!((info.black, info.white, info.bettors_count), (17, 5, 2));
        assert_eq!((info.stake_black, info.stake_white), (100, 30));
        let stakes = Tally::default().stakes([UserId(1), UserId(2)]);
        assert_eq!((stakes.white.user, stakes.white.amount), (2, 0));
    }
}
