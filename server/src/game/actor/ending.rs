//! How a game ends: the core decides every ending (a count, a resignation, a timeout, a forfeit,
//! a director's decision or a void game) as an `ended` event, which the actor stores and tells
//! the hall of before the players hear of it; once the run loop sees the game is over, [`GameActor::finish`]
//! settles the game's points (pushing the new balances through the hall), stores the SGF record
//! and rates the game. Also the record itself, which a live game's `record` request reads too.

use tengen_protocol::{GameOutcome, HallServerMsg, PlayerInfo, ServerMsg, UserId};
use tengen_rules::sgf::{GameInfo, GameRecord};

use super::GameActor;
use crate::game::wire;
use crate::game::GameNotice;
use crate::ledger;
use crate::store::Glicko;
use crate::unix_now_ms;

impl GameActor {
    /// The hall hears of the end once its result is stored (the table is free), before the
    /// players do.
    pub(super) async fn tell_ended(&self, outcome: GameOutcome) {
        let ended = GameNotice::Ended {
            game: self.seats.id,
            table: self.seats.table,
            outcome: Some(outcome),
        };
        self.ctx.hall.tell(ended).await;
    }

    /// After the result is recorded: settle the game's points, store the SGF, rate it, and let
    /// the actor stop. Settling comes before marking the game finished, so a crash in between
    /// replays the end and settles again, which the ledger makes a no-op the second time.
    pub(super) async fn finish(&mut self) {
        let Some(outcome) = self.core.outcome.clone() else {
            return;
        };
        self.audience.mark_ended();
        // Every bet accepted before the end is in the book (or refused) before the book is settled.
        self.wagers.drain_bets().await;
        // The whole crowd hears the end before the settlement's work and balance pushes begin.
        self.audience.relayed().await;
        if self.ctx.fault_stop_before_settlement {
            tracing::warn!(game = %self.seats.id, "fault injection: stopping before settlement");
            return;
        }
        let players = self.players();
        match self
            .ctx
            .ledger
            .settle_game(self.seats.id, players, ledger::outcome_of(&outcome))
            .await
        {
            Ok(_) => {
                self.publish_pool();
                self.push_balances().await;
            }
            // The game stays unsettled in the store; the next start settles it.
            Err(err) => tracing::error!(game = %self.seats.id, %err, "could not settle a game"),
        }
        self.grant_pending(players).await;
        let sgf = self.record_sgf(Some(&outcome));
        let (game, result) = (self.seats.id, outcome.sgf.clone());
        let now_ms = unix_now_ms();
        if let Err(err) = self
            .ctx
            .store
            .call(move |store| store.finish_game(game, &result, &sgf, now_ms))
            .await
        {
            tracing::error!(game = %self.seats.id, %err, "could not store a finished game");
        }
        // An unrated event's games leave ratings alone.
        let rated = !self.core.settings.unrated;
        if let Some(result) = self.core.game.result().filter(|_| rated) {
            let players = self.players();
            match crate::rating::rate_game(&self.ctx.store, game, players, result).await {
                Ok(Some(after)) => self.announce_ratings(after).await,
                // Void, or rated before a restart: nothing moved.
                Ok(None) => {}
                Err(err) => {
                    tracing::error!(game = %self.seats.id, %err, "could not rate a finished game")
                }
            }
        }
    }

    /// After rating: both players' new listings (rank and rating, from the ratings the store just
    /// wrote) go to everyone following this game, and through the hall to every list that shows
    /// them and to their own connections.
    async fn announce_ratings(&mut self, [black, white]: [Glicko; 2]) {
        let listings = vec![
            crate::rating::relisted(&self.seats.black, &black),
            crate::rating::relisted(&self.seats.white, &white),
        ];
        for player in &listings {
            let frame = ServerMsg::from(HallServerMsg::PlayerOnline {
                player: player.clone(),
            });
            self.audience.send_to_all(frame.to_json().into());
        }
        let rerated = GameNotice::Rerated { players: listings };
        self.ctx.hall.tell(rerated).await;
    }

    /// A new account's pending grant lands with its first finished game (see `ledger::grant`), and
    /// its owner hears the new balance.
    async fn grant_pending(&self, players: [UserId; 2]) {
        match self.ctx.ledger.grant_after_game(players).await {
            Ok(granted) if !granted.is_empty() => match self.ctx.ledger.balances(granted).await {
                Ok(balances) => self.ctx.hall.tell(GameNotice::Balances { balances }).await,
                Err(err) => {
                    tracing::warn!(game = %self.seats.id, %err, "could not read granted balances")
                }
            },
            Ok(_) => {}
            // It lands at their next login once the day is over, or with their next game.
            Err(err) => {
                tracing::error!(game = %self.seats.id, %err, "could not grant after a game")
            }
        }
    }

    /// After settling: everyone whose points were in escrow hears their new balance on every
    /// connection, through the hall, whether or not they still follow this game.
    async fn push_balances(&self) {
        let accounts = self.wagers.accounts();
        if accounts.is_empty() {
            return;
        }
        match self.ctx.ledger.balances(accounts).await {
            Ok(balances) => self.ctx.hall.tell(GameNotice::Balances { balances }).await,
            // They still see it when they next ask (`balance`, or their bets).
            Err(err) => {
                tracing::warn!(game = %self.seats.id, %err, "could not read balances to push")
            }
        }
    }

    /// The SGF FF[4] record: players, ranks, date, time settings, result, and accepted undos.
    pub(super) fn record_sgf(&self, outcome: Option<&GameOutcome>) -> String {
        let (time_limit, overtime) = wire::sgf_time(&self.core.settings.clock);
        let comment = (!self.core.undo_notes.is_empty()).then(|| self.core.undo_notes.join("\n"));
        let info = GameInfo {
            black: Some(self.seats.black.username.clone()),
            white: Some(self.seats.white.username.clone()),
            black_rank: known_rank(&self.seats.black),
            white_rank: known_rank(&self.seats.white),
            date: Some(crate::utc_date(self.seats.started_at_ms)),
            event: Some("Tengen".into()),
            result: outcome.map(|o| o.sgf.clone()),
            time_limit,
            overtime,
            comment,
            ..GameInfo::default()
        };
        GameRecord::from_game_noted(&self.core.game, &info, self.core.rules.notes()).to_sgf()
    }
}

/// A player's rank at the game's start as the record writes it (`BR`, `WR`): left out while they
/// had none ("?").
fn known_rank(player: &PlayerInfo) -> Option<String> {
    (player.rank != "?").then(|| player.rank.clone())
}
