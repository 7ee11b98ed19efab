//! A connection's fortune points: bets in a game's pool (through the game's actor, which orders them
//! against the end of play), the pool, stakes at a table (through the hall) and raises in a game,
//! and the account's balance, wagers and history from the ledger.

use tengen_protocol::{
    Amount, BadAmount, Color, ErrorCode, GameId, MoneyMsg, MoneyServerMsg, Points, RequestId,
    RequestKey, StakeTerms, TableId,
};

use super::{internal, Answer, Session};
use crate::config::WAGER_RECORDS_MAX;
use crate::game::{self, GameReply, GameRequest};
use crate::hall::HallRequest;
use crate::ledger;
use crate::Refusal;

/// The points of a bet or raise, checked here, where they come in, and nowhere else: out of range
/// (0, or past 2^53 − 1 however far) is `bad_amount` and changes nothing.
fn points(amount: Amount) -> Result<Points, Refusal> {
    amount.points().map_err(bad_amount)
}

/// A stake offered for one seat, checked as [`points`] are, 0 being none.
fn stake(amount: Amount) -> Result<Option<Points>, Refusal> {
    amount.stake().map_err(bad_amount)
}

fn bad_amount(err: BadAmount) -> Refusal {
    Refusal::new(ErrorCode::BadAmount, err.to_string())
}

impl Session {
    /// The fortune-point messages (`Session::handle` passes only these here).
    pub(super) async fn money_message(
        &mut self,
        id: Option<RequestId>,
        msg: MoneyMsg,
    ) -> Result<Answer, Refusal> {
        use MoneyMsg as M;
        match msg {
            M::Bet {
                game,
                side,
                amount,
                key,
            } => self.bet(id, game, (side, points(amount)?), key).await,
            M::Pool { game } => self.pool(id, game).await,
            M::Balance => self.balance(id).await,
            M::MyBets => self.my_bets(id).await,
            M::History => self.history(id).await,
            M::House => self.house(id).await,
            M::StakeOffer {
                table,
                left,
                right,
                terms,
            } => {
                let amounts = [stake(left)?, stake(right)?];
                self.stake_offer(table, amounts, terms).await
            }
            M::StakeAnswer { table, agree } => self.stake_answer(table, agree).await,
            M::StakeRaise { game, amount, key } => {
                self.stake_raise(game, points(amount)?, key).await
            }
        }
    }

    /// A watcher's bet goes through the game actor, which orders it against the end of play. A game
    /// that is no longer live has closed its betting.
    pub(super) async fn bet(
        &mut self,
        id: Option<RequestId>,
        game: GameId,
        (side, amount): (Color, Points),
        key: Option<RequestKey>,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let bet = GameRequest::Bet {
            user,
            side,
            amount,
            key: key.clone(),
        };
        let asked = match self.game(game).await {
            Ok(handle) => handle.ask(bet).await.and_then(GameReply::bet),
            Err(refusal) => Err(refusal),
        };
        let receipt = match asked {
            Ok(receipt) => receipt,
            // The actor is gone (or going): for a finished game that means betting has closed,
            // unless this is a keyed bet the game took before it ended.
            Err(refusal)
                if refusal.code == ErrorCode::NoSuchGame && self.finished(game).await? =>
            {
                let retried = match key {
                    Some(key) => {
                        let ledger = &self.state.ledger;
                        ledger
                            .retried_bet(game, user, key, side, amount.get())
                            .await?
                    }
                    None => None,
                };
                let (total, balance) = retried.ok_or(ledger::BetRejected::Closed)?;
                game::BetReceipt { total, balance }
            }
            Err(refusal) => return Err(refusal),
        };
        Ok(Answer::msg(MoneyServerMsg::BetPlaced {
            id,
            game,
            side,
            amount: amount.get(),
            total: receipt.total,
            balance: receipt.balance,
            tax_bp: self.state.ledger.tax_bp(),
        }))
    }

    /// Whether `game` is a finished game in the store.
    async fn finished(&self, game: GameId) -> Result<bool, Refusal> {
        let sgf = self
            .state
            .store
            .call(move |store| store.game_sgf(game))
            .await
            .map_err(internal)?;
        Ok(sgf.is_some())
    }

    /// A live game's pool from its actor; a finished game's from the book, also in the moments
    /// after the end while the game's handle is still found but its actor has stopped.
    pub(super) async fn pool(
        &mut self,
        id: Option<RequestId>,
        game: GameId,
    ) -> Result<Answer, Refusal> {
        let live = match self.game(game).await {
            Ok(handle) => handle
                .ask(GameRequest::Pool)
                .await
                .and_then(GameReply::pool),
            Err(refusal) => Err(refusal),
        };
        let pool = match live {
            Err(refusal) if refusal.code == ErrorCode::NoSuchGame => {
                if !self.finished(game).await? {
                    return Err(refusal);
                }
                let ledger = &self.state.ledger;
                let (tally, settled) = ledger.tally(game).await.map_err(internal)?;
                tally.info(game, false, ledger.tax_bp(), settled)
            }
            live => live?,
        };
        Ok(Answer::msg(MoneyServerMsg::Pool { id, pool }))
    }

    pub(super) async fn stake_offer(
        &self,
        table: TableId,
        amounts: [Option<Points>; 2],
        terms: StakeTerms,
    ) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::StakeOffer {
            table,
            user,
            amounts,
            terms,
        })
        .await
    }

    pub(super) async fn stake_answer(
        &self,
        table: TableId,
        agree: bool,
    ) -> Result<Answer, Refusal> {
        self.hall_ack(|user| HallRequest::StakeAnswer { table, user, agree })
            .await
    }

    pub(super) async fn stake_raise(
        &self,
        game: GameId,
        amount: Points,
        key: Option<RequestKey>,
    ) -> Result<Answer, Refusal> {
        self.game_ack(game, |user| GameRequest::StakeRaise { user, amount, key })
            .await
    }

    pub(super) async fn balance(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let balance = self.state.ledger.balance(user).await.map_err(internal)?;
        Ok(Answer::msg(MoneyServerMsg::Balance {
            id,
            balance,
            tax_bp: self.state.ledger.tax_bp(),
        }))
    }

    pub(super) async fn my_bets(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let ledger = &self.state.ledger;
        let records = ledger
            .records(user, WAGER_RECORDS_MAX)
            .await
            .map_err(internal)?;
        Ok(Answer::msg(MoneyServerMsg::MyBets { id, records }))
    }

    pub(super) async fn history(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let ledger = &self.state.ledger;
        let entries = ledger
            .history(user, WAGER_RECORDS_MAX)
            .await
            .map_err(internal)?;
        Ok(Answer::msg(MoneyServerMsg::History { id, entries }))
    }

    pub(super) async fn house(&self, id: Option<RequestId>) -> Result<Answer, Refusal> {
        let balance = self.state.ledger.house().await.map_err(internal)?;
        Ok(Answer::msg(MoneyServerMsg::House {
            id,
            balance,
            tax_bp: self.state.ledger.tax_bp(),
        }))
    }
}
