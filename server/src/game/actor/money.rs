//! The game's side of fortune points: the spectator pool (as it stands, and pushed to everyone
//! following the game), watchers' bets, and the stakes the players agreed at their table, each
//! moved into the game's escrow by the ledger before it counts here. Settling the game is in
//! `ending`.
//!
//! Fortune points touch the actor in three delimited places: watchers' bets arrive in the inbox like
//! moves (so a bet is ordered exactly against the move that ends play: [`GameActor::betting_open`]),
//! accepted bets push the pool to subscribers (coalesced: at most one push per `POOL_PUSH_MS`, and the
//! pool at the end of play exactly), and [`GameActor::finish`] settles the game
//! with the ledger once its result is stored.

use tengen_protocol::{ErrorCode, Points, RequestKey, ServerMsg, TableId, UserId};
use tengen_rules::Phase;

use super::bets::answer_bet;
use super::keys::key_reused;
use super::GameActor;
use crate::game::{BetReceipt, GameReply};
use crate::ledger;
use crate::ledger::book::{Applied, TransferKind};
use crate::ledger::pool::Keyed;
use crate::store::{store_refusal, StoreError};
use crate::{Refusal, Reply};
use tengen_rules::Color;

impl GameActor {
    /// Bets are taken while play goes on: not once two passes opened scoring, nor after any end.
    fn betting_open(&self) -> bool {
        self.core.outcome.is_none()
            && matches!(self.core.game.phase(), Phase::Play | Phase::PlacingHandicap)
    }

    pub(super) fn pool_info(&self) -> tengen_protocol::PoolInfo {
        let settled = self.core.outcome.is_some();
        self.tally.info(
            self.id,
            self.betting_open(),
            self.ctx.ledger.tax_bp(),
            settled,
        )
    }

    /// The pool changed by a bet: push it now if the last push is
    /// [`POOL_PUSH_MS`](crate::config::POOL_PUSH_MS) old, otherwise when it will be, so a burst of
    /// bets costs each follower one frame.
    pub(super) fn pool_changed(&mut self) {
        self.pool_pacer.changed();
    }

    /// Tell everyone following the game how the pool stands, now (which also makes any coalesced
    /// push that was due unnecessary).
    pub(super) fn publish_pool(&mut self) {
        self.pool_pacer.pushed();
        let frame = ServerMsg::Money(tengen_protocol::MoneyServerMsg::Pool {
            id: None,
            pool: self.pool_info(),
        })
        .to_json();
        // No subscribers is fine: `pool` asks for it.
        self.fan_out.send(None, frame.into(), [None, None]);
    }

    /// A watcher's bet: refused once play has ended or from a player; otherwise the ledger moves it
    /// into escrow (durably) before it counts in the pool or anyone hears of it. The actor does not
    /// wait for that write (see `bets`): the bettor is answered when it is done. A bet sent again
    /// with its key is answered as the first was, even after play ended.
    pub(super) async fn bet(
        &mut self,
        (user, side, points): (UserId, Color, Points),
        key: Option<RequestKey>,
        reply: Option<Reply<GameReply>>,
    ) {
        let amount = points.get();
        if self.color_of(user).is_ok() {
            answer_bet(reply, Err(ledger::BetRejected::Player.into()));
            return;
        }
        if let Err(refusal) = self.fresh_tally().await {
            answer_bet(reply, Err(refusal));
            return;
        }
        let asked = Keyed {
            kind: TransferKind::Bet,
            side,
            amount,
        };
        if let Some(first) = key.as_ref().and_then(|key| self.tally.keyed(user, key)) {
            let repeated = self.repeat_bet(user, first, asked).await;
            answer_bet(reply, repeated);
            return;
        }
        if !self.betting_open() {
            answer_bet(reply, Err(ledger::BetRejected::Closed.into()));
            return;
        }
        self.send_bet((user, side, points), key, reply);
    }

    /// A keyed bet sent again: the first outcome when it asks for the same, with the bettor's
    /// total and balance as they are now.
    async fn repeat_bet(
        &mut self,
        user: UserId,
        first: Keyed,
        asked: Keyed,
    ) -> Result<BetReceipt, Refusal> {
        if first != asked {
            return Err(key_reused());
        }
        let balance = self
            .ctx
            .ledger
            .balance(user)
            .await
            .map_err(|err| store_refusal(&err))?;
        let total = self.tally.bettor(user).map_or(0, |backing| backing.total);
        Ok(BetReceipt { total, balance })
    }

    /// A refused bet or stake: one whose write broke off may be in the book, so the tally is read
    /// again before the next.
    pub(super) fn money_refused(&mut self, rejected: ledger::BetRejected) -> Refusal {
        if matches!(
            rejected,
            ledger::BetRejected::Store(StoreError::OutcomeUnknown(_))
        ) {
            self.tally_stale = true;
        }
        rejected.into()
    }

    /// Read the tally again if a write with an unknown outcome may have left it behind the book.
    async fn fresh_tally(&mut self) -> Result<(), Refusal> {
        if self.tally_stale {
            self.reload_tally().await?;
        }
        Ok(())
    }

    /// Read the tally from the book, once every bet in flight is in it or refused (counted then
    /// from the book, not twice).
    async fn reload_tally(&mut self) -> Result<(), Refusal> {
        self.drain_bets().await;
        let (tally, _) = self
            .ctx
            .ledger
            .tally(self.id)
            .await
            .map_err(|err| store_refusal(&err))?;
        self.tally = tally;
        self.tally_stale = false;
        self.pool_changed();
        Ok(())
    }

    /// Agreed stakes into escrow, any time before the game ends.
    pub(super) async fn stakes(
        &mut self,
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    ) -> Result<(), Refusal> {
        if self.core.outcome.is_some() {
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
            sided.push((user, self.color_of(user)?, amount));
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
        self.ctx
            .ledger
            .stake(self.id, &self.tally, sided.clone(), coaching, hold)
            .await?;
        for (user, side, amount) in sided {
            // A zero stake is recorded too, so the game knows stakes were agreed.
            self.tally
                .add_stake(user, side, amount, coaching && student == Some(user));
        }
        self.publish_pool();
        Ok(())
    }

    /// A player adds to their own stake before the game ends; in paid coaching only the student. A
    /// raise sent again with its key is answered as the first was.
    pub(super) async fn raise_stake(
        &mut self,
        user: UserId,
        points: Points,
        key: Option<RequestKey>,
    ) -> Result<(), Refusal> {
        let amount = points.get();
        let side = self.color_of(user)?;
        self.fresh_tally().await?;
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
                Ok(())
            } else {
                Err(key_reused())
            };
        }
        if self.core.outcome.is_some() {
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
        let raised = self
            .ctx
            .ledger
            .raise_stake(
                self.id,
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
                self.publish_pool();
                Ok(())
            }
            // The book had it already (a first attempt whose outcome was unknown): read it again.
            Applied::AlreadyApplied => {
                self.reload_tally().await?;
                match key.and_then(|key| self.tally.keyed(user, &key)) {
                    Some(first) if first == asked => Ok(()),
                    Some(_) => Err(key_reused()),
                    None => Err(Refusal::busy()),
                }
            }
        }
    }
}
