//! Watchers' bets in flight, the part of [`Wagers`] that waits for the book: a bet is checked
//! against the tally and what is already on its way to the book, its transfer is handed to the
//! ledger's group-commit writer, and the actor goes on with its inbox; the bettor is answered when
//! the write is durable ([`Wagers::bet_written`], from the actor's run loop). A title match takes
//! thousands of bets in its last minute: waiting for each one's commit before reading the next
//! command held every bet, move and subscription of the game behind one fsync per bet (a few
//! hundred bets a second at most), while the writer can commit hundreds of bets with one fsync if
//! they reach it together.
//!
//! What stays exact: a bet counts in the tally (and the pool everyone sees) only once it is in the
//! book; the checks that depend on earlier bets (a bettor keeps to one side, the pool's bound, a
//! key used once) count the bets in flight too; every bet in flight is answered before the game
//! settles ([`Wagers::drain_bets`] in `finish`), so settlement reads a book that holds every bet
//! accepted before the end, exactly once; and a bet's number in the game is never given twice, even
//! when an earlier one was refused by the book.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use futures_util::stream::{FuturesUnordered, StreamExt};
use tengen_protocol::{GameId, Points, RequestKey, UserId};
use tengen_rules::Color;

use super::Wagers;
use crate::game::{BetReceipt, GameReply};
use crate::ledger::book::Applied;
use crate::ledger::pool::Keyed;
use crate::ledger::settle::Backing;
use crate::ledger::{self, Ledger, Written};
use crate::store::StoreError;
use crate::{Refusal, Reply};

/// A bet handed to the ledger, waiting for its write.
pub(in crate::game::actor) struct PendingBet {
    user: UserId,
    side: Color,
    points: Points,
    key: Option<RequestKey>,
    reply: Option<Reply<GameReply>>,
}

/// A write's answer with the bet it was for.
pub(in crate::game::actor) type WriteDone = (PendingBet, Result<Written, StoreError>);

type WriteFuture = Pin<Box<dyn Future<Output = WriteDone> + Send>>;

/// The bets of one game on their way to the book.
#[derive(Default)]
pub(super) struct InFlight {
    /// Behind a mutex only so that the actor stays `Sync` (its futures hold `&self` across
    /// awaits): the actor alone reaches it, through `&mut`, so it is never locked.
    writes: Mutex<FuturesUnordered<WriteFuture>>,
    /// Per bettor: the side and the points in flight.
    bettors: HashMap<UserId, Backing>,
    /// Keys of the bets in flight: the same key again waits for the first's answer.
    keys: HashSet<(UserId, RequestKey)>,
    /// Points in flight, for the pool's bound.
    total: u64,
    /// The highest bet number given out by this actor: numbers are never given twice.
    numbered: u64,
}

impl std::fmt::Debug for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFlight")
            .field("total", &self.total)
            .field("numbered", &self.numbered)
            .finish()
    }
}

impl InFlight {
    fn writes(&mut self) -> &mut FuturesUnordered<WriteFuture> {
        self.writes
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn is_empty(&mut self) -> bool {
        self.writes().is_empty()
    }

    /// The next write to finish; never when none is in flight (a `select!` branch that waits).
    async fn next_written(&mut self) -> WriteDone {
        match self.writes().next().await {
            Some(done) => done,
            None => std::future::pending().await,
        }
    }

    fn side_of(&self, user: UserId) -> Option<Color> {
        self.bettors.get(&user).map(|backing| backing.side)
    }

    fn add(&mut self, user: UserId, side: Color, points: Points, key: Option<&RequestKey>) {
        self.bettors.entry(user).or_insert(Backing::on(side)).total += points.get();
        self.total += points.get();
        if let Some(key) = key {
            self.keys.insert((user, key.clone()));
        }
    }

    fn remove(&mut self, bet: &PendingBet) {
        if let Some(backing) = self.bettors.get_mut(&bet.user) {
            backing.total = backing.total.saturating_sub(bet.points.get());
            if backing.total == 0 {
                self.bettors.remove(&bet.user);
            }
        }
        self.total = self.total.saturating_sub(bet.points.get());
        if let Some(key) = &bet.key {
            self.keys.remove(&(bet.user, key.clone()));
        }
    }
}

/// Answer a bet's sender, if one waits.
pub(super) fn answer_bet(reply: Option<Reply<GameReply>>, answer: Result<BetReceipt, Refusal>) {
    if let Some(reply) = reply {
        let _ = reply.send(answer.map(|receipt| GameReply::Bet { receipt }));
    }
}

impl Wagers {
    /// Check a new bet against the tally and the bets in flight, and hand its transfer to the
    /// ledger; the bettor is answered by [`Wagers::bet_written`]. The caller checked that
    /// betting is open, the bettor is no player, and the key (if any) is new to the tally.
    pub(super) fn send_bet(
        &mut self,
        (game, ledger): (GameId, &Ledger),
        (user, side, points): (UserId, Color, Points),
        key: Option<RequestKey>,
        reply: Option<Reply<GameReply>>,
    ) {
        if let Some(key) = &key {
            if self.bets.keys.contains(&(user, key.clone())) {
                answer_bet(reply, Err(Refusal::busy()));
                return;
            }
        }
        let side_before = self
            .tally
            .bettor(user)
            .map(|backing| backing.side)
            .or_else(|| self.bets.side_of(user));
        let pool = self.tally.total().saturating_add(self.bets.total);
        let number = self.tally.next_bet_number().max(self.bets.numbered + 1);
        let built = ledger::bet_batch(
            game,
            (user, side, points),
            key.as_ref(),
            number,
            (side_before, pool),
        );
        let batch = match built {
            Ok(batch) => batch,
            Err(rejected) => {
                answer_bet(reply, Err(rejected.into()));
                return;
            }
        };
        if key.is_none() {
            self.bets.numbered = number;
        }
        self.bets.add(user, side, points, key.as_ref());
        let pending = PendingBet {
            user,
            side,
            points,
            key,
            reply,
        };
        let writer = ledger.clone();
        self.bets.writes().push(Box::pin(async move {
            let written = writer.write(batch).await;
            (pending, written)
        }));
    }

    /// A bet's write is done: count it and answer the bettor.
    pub(in crate::game::actor) fn bet_written(&mut self, (bet, written): WriteDone) {
        self.bets.remove(&bet);
        let answer = match written {
            Ok(Written {
                applied: Applied::Applied,
                payer_balance,
            }) => {
                self.tally.add_bet(bet.user, bet.side, bet.points.get());
                if let Some(key) = bet.key {
                    let keyed = Keyed {
                        kind: ledger::book::TransferKind::Bet,
                        side: bet.side,
                        amount: bet.points.get(),
                    };
                    self.tally.add_key(bet.user, key, keyed);
                }
                self.pool_changed();
                let total = self
                    .tally
                    .bettor(bet.user)
                    .map_or(bet.points.get(), |backing| backing.total);
                // The store never takes a bettor below 0 (it refuses the batch instead).
                let balance = u64::try_from(payer_balance).unwrap_or_default();
                Ok(BetReceipt { total, balance })
            }
            // The book had this transfer already: a first attempt whose outcome was unknown went
            // through (a keyed retry then finds it in the tally read again), or an unkeyed bet met
            // a number this tally lacked. Either way nothing was placed now.
            Ok(Written {
                applied: Applied::AlreadyApplied,
                ..
            }) => {
                self.tally_stale = true;
                Err(Refusal::busy())
            }
            Err(err) => Err(self.money_refused(ledger::rejected(err))),
        };
        answer_bet(bet.reply, answer);
    }

    /// Whether any bet is on its way to the book.
    pub(in crate::game::actor) fn bets_in_flight(&mut self) -> bool {
        !self.bets.is_empty()
    }

    /// The next bet write to finish; never when none is in flight (a `select!` branch that
    /// waits).
    pub(in crate::game::actor) async fn next_bet_written(&mut self) -> WriteDone {
        self.bets.next_written().await
    }

    /// Wait for every bet in flight and answer its bettor: before the game settles, and before the
    /// tally is read again from the book (which would otherwise count them twice).
    pub(in crate::game::actor) async fn drain_bets(&mut self) {
        while let Some(done) = self.bets.writes().next().await {
            self.bet_written(done);
        }
    }
}
