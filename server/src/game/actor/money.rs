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

use tengen_protocol::{ErrorCode, ServerMsg, TableId, UserId};
use tengen_rules::Phase;

use super::GameActor;
use crate::game::wire::side_of;
use crate::game::{BetReceipt, GameFrame};
use crate::ledger;
use crate::side::Side;
use crate::Refusal;

impl GameActor {
    /// Bets are taken while play goes on: not once two passes opened scoring, nor after any end.
    fn betting_open(&self) -> bool {
        self.outcome.is_none() && matches!(self.game.phase(), Phase::Play | Phase::PlacingHandicap)
    }

    pub(super) fn pool_info(&self) -> tengen_protocol::PoolInfo {
        let settled = self.outcome.is_some();
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
    fn pool_changed(&mut self) {
        self.pool_pacer.changed();
    }

    /// Tell everyone following the game how the pool stands, now (which also makes any coalesced
    /// push that was due unnecessary).
    pub(super) fn publish_pool(&mut self) {
        self.pool_pacer.pushed();
        let frame = ServerMsg::Pool {
            id: None,
            pool: self.pool_info(),
        }
        .to_json();
        // No subscribers is fine: `pool` asks for it.
        let _ = self.frames.send(GameFrame {
            seq: None,
            text: frame.into(),
            hidden_from: [None, None],
        });
    }

    /// A watcher's bet: refused once play has ended or from a player; otherwise the ledger moves it
    /// into escrow (durably) before it counts in the pool or anyone hears of it.
    pub(super) async fn bet(
        &mut self,
        user: UserId,
        side: Side,
        amount: u64,
    ) -> Result<BetReceipt, Refusal> {
        if self.color_of(user).is_ok() {
            return Err(ledger::BetRejected::Player.into());
        }
        if !self.betting_open() {
            return Err(ledger::BetRejected::Closed.into());
        }
        let balance = self
            .ctx
            .ledger
            .place_bet(self.id, &self.tally, user, side, amount)
            .await?;
        self.tally.add_bet(user, side, amount);
        self.pool_changed();
        let total = self.tally.bettor(user).map_or(amount, |(_, total)| total);
        Ok(BetReceipt { total, balance })
    }

    /// Agreed stakes into escrow, any time before the game ends.
    pub(super) async fn stakes(
        &mut self,
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    ) -> Result<(), Refusal> {
        if self.outcome.is_some() {
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
            sided.push((user, side_of(self.color_of(user)?), amount));
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

    /// A player adds to their own stake before the game ends; in paid coaching only the student.
    pub(super) async fn raise_stake(&mut self, user: UserId, amount: u64) -> Result<(), Refusal> {
        let side = side_of(self.color_of(user)?);
        if self.outcome.is_some() {
            return Err(Refusal::new(ErrorCode::WrongPhase, "the game is over"));
        }
        if !self.tally.has_stakes() {
            return Err(Refusal::new(
                ErrorCode::StakeNotReady,
                "no stakes were agreed for this game",
            ));
        }
        if amount == 0 || self.tally.student().is_some_and(|student| student != side) {
            return Err(ledger::BetRejected::BadAmount { amount }.into());
        }
        let coaching = self.tally.student().is_some();
        self.ctx
            .ledger
            .stake(
                self.id,
                &self.tally,
                vec![(user, side, amount)],
                coaching,
                None,
            )
            .await?;
        self.tally.add_stake(user, side, amount, coaching);
        self.publish_pool();
        Ok(())
    }
}
