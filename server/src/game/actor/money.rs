//! The game's side of fortune points, owned by [`Wagers`]: the spectator pool (as it stands, and
//! when it is next pushed to everyone following the game), watchers' bets (those in the book and
//! those on their way to it, see `bets`), who may not bet, and the stakes the players agreed at
//! their table, each moved into the game's escrow by the ledger before it counts here. Settling
//! the game is in `ending`.
//!
//! Fortune points touch the actor in three delimited places: watchers' bets arrive in the inbox like
//! moves (so a bet is ordered exactly against the move that ends play: [`betting_open`]), accepted
//! bets push the pool to subscribers (coalesced: at most one push per `POOL_PUSH_MS`, and the pool
//! at the end of play exactly), and [`GameActor::finish`] settles the game with the ledger once its
//! result is stored. `Wagers` reads the game (its seats and core, passed in) but never changes it,
//! and sends nothing to the game's followers itself: the actor sends the pool frames it makes
//! ([`GameActor::publish_pool`]).

mod bets;

use tengen_protocol::{
    ErrorCode, GameId, MoneyServerMsg, Points, RequestKey, ServerMsg, TableId, UserId,
};
use tengen_rules::Phase;
use tokio::time::Instant;

use super::keys::key_reused;
use super::pacer::Pacer;
use super::seats::Seats;
use super::GameActor;
use crate::config::{POOL_FRAMES_PER_S_MAX, POOL_PUSH_MS};
use crate::game::core::GameCore;
use crate::game::{BetReceipt, GameReply};
use crate::ledger::book::{Applied, TransferKind};
use crate::ledger::pool::{Keyed, Tally};
use crate::ledger::{self, Ledger};
use crate::store::{store_refusal, StoreError};
use crate::{Frame, Refusal, Reply};
use bets::answer_bet;
use tengen_rules::Color;

/// The money on the game: the pool's and the stakes' tally, bets in flight, and the pool's pushes.
pub(super) struct Wagers {
    /// The spectator pool's bets and the players' stakes, as in the book.
    tally: Tally,
    /// When the next `pool` push is due, at most one per [`POOL_PUSH_MS`].
    pool_pacer: Pacer,
    /// The tally may lack a bet or stake whose write had an unknown outcome: read the book again
    /// before the next one.
    tally_stale: bool,
    /// Watchers' bets on their way to the book (see `bets`).
    bets: bets::InFlight,
    /// Who may not bet besides the players (an event's entrants on its games).
    bettors_barred: Vec<UserId>,
}

/// When the pool's followers hear of a change to it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PoolNews {
    /// Now: the change is one the players made (their stakes).
    AtOnce,
    /// With the next coalesced push, if any is due (the tally was read again from the book).
    Coalesced,
}

/// Bets are taken while play goes on: not once two passes opened scoring, nor after any end.
fn betting_open(core: &GameCore) -> bool {
    core.outcome.is_none() && matches!(core.game.phase(), Phase::Play | Phase::PlacingHandicap)
}

impl Wagers {
    /// No money on the game yet; `bettors_barred` may not bet besides the players.
    pub(super) fn new(bettors_barred: Vec<UserId>) -> Wagers {
        Wagers {
            tally: Tally::default(),
            pool_pacer: Pacer::new(POOL_PUSH_MS, POOL_FRAMES_PER_S_MAX),
            tally_stale: false,
            bets: bets::InFlight::default(),
            bettors_barred,
        }
    }

    /// The tally as the book has it, for a game rebuilt from its log.
    pub(super) fn restore_tally(&mut self, tally: Tally) {
        self.tally = tally;
    }

    /// From now on `users` may not bet besides the players (an event's entrants).
    pub(super) fn bar_bettors(&mut self, users: Vec<UserId>) {
        self.bettors_barred = users;
    }

    /// Everyone whose points are in the game's escrow.
    pub(super) fn accounts(&self) -> Vec<UserId> {
        self.tally.accounts().into_iter().collect()
    }

    /// The pool of `game` as it stands, with the house's tax `tax_bp`.
    pub(super) fn pool_info(
        &self,
        game: GameId,
        core: &GameCore,
        tax_bp: u32,
    ) -> tengen_protocol::PoolInfo {
        let settled = core.outcome.is_some();
        self.tally.info(game, betting_open(core), tax_bp, settled)
    }

    /// The pool's frame for everyone following the game, sent now (which also makes any coalesced
    /// push that was due unnecessary).
    pub(super) fn pool_pushed(&mut self, game: GameId, core: &GameCore, tax_bp: u32) -> Frame {
        self.pool_pacer.pushed();
        ServerMsg::from(MoneyServerMsg::Pool {
            id: None,
            pool: self.pool_info(game, core, tax_bp),
        })
        .to_json()
        .into()
    }

    /// When the next coalesced push of the pool is due, if one waits.
    pub(super) fn pool_push_due(&self) -> Option<Instant> {
        self.pool_pacer.due
    }

    /// Every follower was just sent something else (a game event): a change from now on waits
    /// the interval as after a push.
    pub(super) fn followers_woken(&mut self) {
        self.pool_pacer.followers_woken();
    }

    /// The game has `followers` now: the pool is pushed less often the larger the crowd.
    pub(super) fn crowd_is(&mut self, followers: usize) {
        self.pool_pacer.crowd_is(followers);
    }

    /// The pool changed by a bet: push it now if the last push is
    /// [`POOL_PUSH_MS`] old, otherwise when it will be, so a burst of bets costs each follower one
    /// frame.
    fn pool_changed(&mut self) {
        self.pool_pacer.changed();
    }

    /// A watcher's bet: refused from a player or anyone barred, and once play has ended;
    /// otherwise the ledger moves it into escrow (durably) before it counts in the pool or anyone
    /// hears of it. The actor does not wait for that write (see `bets`): the bettor is answered
    /// when it is done. A bet sent again with its key is answered as the first was, even after
    /// play ended.
    pub(super) async fn bet(
        &mut self,
        (seats, core, ledger): (&Seats, &GameCore, &Ledger),
        (user, side, points): (UserId, Color, Points),
        key: Option<RequestKey>,
        reply: Option<Reply<GameReply>>,
    ) {
        if self.bettors_barred.contains(&user) {
            let barred = Refusal::new(
                ErrorCode::PlayersCannotBet,
                "players of an event may not bet on its games",
            );
            answer_bet(reply, Err(barred));
            return;
        }
        let amount = points.get();
        if seats.color_of(user).is_ok() {
            answer_bet(reply, Err(ledger::BetRejected::Player.into()));
            return;
        }
        if let Err(refusal) = self.fresh_tally(seats.id, ledger).await {
            answer_bet(reply, Err(refusal));
            return;
        }
        let asked = Keyed {
            kind: TransferKind::Bet,
            side,
            amount,
        };
        if let Some(first) = key.as_ref().and_then(|key| self.tally.keyed(user, key)) {
            let repeated = self.repeat_bet(ledger, user, first, asked).await;
            answer_bet(reply, repeated);
            return;
        }
        if !betting_open(core) {
            answer_bet(reply, Err(ledger::BetRejected::Closed.into()));
            return;
        }
        self.send_bet((seats.id, ledger), (user, side, points), key, reply);
    }

    /// A keyed bet sent again: the first outcome when it asks for the same, with the bettor's
    /// total and balance as they are now.
    async fn repeat_bet(
        &mut self,
        ledger: &Ledger,
        user: UserId,
        first: Keyed,
        asked: Keyed,
    ) -> Result<BetReceipt, Refusal> {
        if first != asked {
            return Err(key_reused());
        }
        let balance = ledger
            .balance(user)
            .await
            .map_err(|err| store_refusal(&err))?;
        let total = self.tally.bettor(user).map_or(0, |backing| backing.total);
        Ok(BetReceipt { total, balance })
    }

    /// A refused bet or stake: one whose write broke off may be in the book, so the tally is read
    /// again before the next.
    fn money_refused(&mut self, rejected: ledger::BetRejected) -> Refusal {
        if matches!(
            rejected,
            ledger::BetRejected::Store(StoreError::OutcomeUnknown(_))
        ) {
            self.tally_stale = true;
        }
        rejected.into()
    }

    /// Read the tally again if a write with an unknown outcome may have left it behind the book.
    async fn fresh_tally(&mut self, game: GameId, ledger: &Ledger) -> Result<(), Refusal> {
        if self.tally_stale {
            self.reload_tally(game, ledger).await?;
        }
        Ok(())
    }

    /// Read the tally from the book, once every bet in flight is in it or refused (counted then
    /// from the book, not twice).
    async fn reload_tally(&mut self, game: GameId, ledger: &Ledger) -> Result<(), Refusal> {
        self.drain_bets().await;
        let (tally, _) = ledger
            .tally(game)
            .await
            .map_err(|err| store_refusal(&err))?;
        self.tally = tally;
        self.tally_stale = false;
        self.pool_changed();
        Ok(())
    }

    /// Agreed stakes into escrow, any time before the game ends; the pool is then to be pushed
    /// at once.
    pub(super) async fn stakes(
        &mut self,
        (seats, core, ledger): (&Seats, &GameCore, &Ledger),
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    ) -> Result<(), Refusal> {
        if core.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game is over"));
        }
        if self.tally.has_stakes() {
            return Err(Refusal::new(
                ErrorCode::StakeAgreed,
                "stakes were already agreed for this game",
            ));
        }
        let mut sided = Vec::with_capacity(entries.len());
        for (user, amount) in entries {
            sided.push((user, seats.color_of(user)?, amount));
        }
        let coaching = student.is_some();
        if let Some(student) = student {
            assert!(
                sided
                    .iter()
                    .all(|&(user, _, amount)| user == student || amount == 0),
                "the hall lets a coach stake nothing"
            );
        }
        ledger
            .stake(seats.id, &self.tally, sided.clone(), coaching, hold)
            .await?;
        for (user, side, amount) in sided {
            // A zero stake is recorded too, so the game knows stakes were agreed.
            self.tally
                .add_stake(user, side, amount, coaching && student == Some(user));
        }
        Ok(())
    }

    /// A player adds to their own stake before the game ends; in paid coaching only the student. A
    /// raise sent again with its key is answered as the first was (and changes nothing to push).
    pub(super) async fn raise_stake(
        &mut self,
        (seats, core, ledger): (&Seats, &GameCore, &Ledger),
        user: UserId,
        points: Points,
        key: Option<RequestKey>,
    ) -> Result<PoolNews, Refusal> {
        let amount = points.get();
        let side = seats.color_of(user)?;
        self.fresh_tally(seats.id, ledger).await?;
        let coaching = self.tally.student().is_some();
        let asked = Keyed {
            kind: if coaching {
                TransferKind::CoachingStake
            } else {
                TransferKind::Stake
            },
            side,
            amount,
        };
        if let Some(first) = key.as_ref().and_then(|key| self.tally.keyed(user, key)) {
            return if first == asked {
                Ok(PoolNews::Coalesced)
            } else {
                Err(key_reused())
            };
        }
        if core.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game is over"));
        }
        if !self.tally.has_stakes() {
            return Err(Refusal::new(
                ErrorCode::StakeNotReady,
                "no stakes were agreed for this game",
            ));
        }
        // In paid coaching the coach stakes nothing, and may not start to.
        if self.tally.student().is_some_and(|student| student != side) {
            return Err(ledger::BetRejected::BadAmount { amount }.into());
        }
        let raised = ledger
            .raise_stake(
                seats.id,
                &self.tally,
                (user, side, points),
                coaching,
                key.as_ref(),
            )
            .await;
        match raised.map_err(|rejected| self.money_refused(rejected))? {
            Applied::Applied => {
                self.tally.add_stake(user, side, amount, coaching);
                if let Some(key) = key {
                    self.tally.add_key(user, key, asked);
                }
                Ok(PoolNews::AtOnce)
            }
            // The book had it already (a first attempt whose outcome was unknown): read it again.
            Applied::AlreadyApplied => {
                self.reload_tally(seats.id, ledger).await?;
                match key.and_then(|key| self.tally.keyed(user, &key)) {
                    Some(first) if first == asked => Ok(PoolNews::Coalesced),
                    Some(_) => Err(key_reused()),
                    None => Err(Refusal::busy()),
                }
            }
        }
    }
}

impl GameActor {
    /// The pool as it stands now.
    pub(super) fn pool_info(&self) -> tengen_protocol::PoolInfo {
        let tax_bp = self.ctx.ledger.tax_bp();
        self.wagers.pool_info(self.seats.id, &self.core, tax_bp)
    }

    /// Tell everyone following the game how the pool stands, now (which also makes any coalesced
    /// push that was due unnecessary).
    pub(super) fn publish_pool(&mut self) {
        let tax_bp = self.ctx.ledger.tax_bp();
        let frame = self.wagers.pool_pushed(self.seats.id, &self.core, tax_bp);
        // No subscribers is fine: `pool` asks for it.
        self.audience.send_to_all(frame);
    }

    /// A watcher's bet (see [`Wagers::bet`]): answered when its write is durable, not here.
    pub(super) async fn bet(
        &mut self,
        bet: (UserId, Color, Points),
        key: Option<RequestKey>,
        reply: Option<Reply<GameReply>>,
    ) {
        let game = (&self.seats, &self.core, &self.ctx.ledger);
        self.wagers.bet(game, bet, key, reply).await;
    }

    /// Agreed stakes into escrow (see [`Wagers::stakes`]); everyone following hears the pool.
    pub(super) async fn stakes(
        &mut self,
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    ) -> Result<(), Refusal> {
        let game = (&self.seats, &self.core, &self.ctx.ledger);
        self.wagers.stakes(game, entries, student, hold).await?;
        self.publish_pool();
        Ok(())
    }

    /// A player raises their stake (see [`Wagers::raise_stake`]); everyone following hears the
    /// pool if it changed now.
    pub(super) async fn raise_stake(
        &mut self,
        user: UserId,
        points: Points,
        key: Option<RequestKey>,
    ) -> Result<(), Refusal> {
        let game = (&self.seats, &self.core, &self.ctx.ledger);
        let news = self.wagers.raise_stake(game, user, points, key).await?;
        if news == PoolNews::AtOnce {
            self.publish_pool();
        }
        Ok(())
    }
}
