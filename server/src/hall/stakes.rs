//! The stake dialog at a table, as the hall runs it: offers checked against balances, answers, and
//! moving the agreed points, into the game in progress (through its actor) or into the table's hold
//! until the next game starts, when they move into that game's escrow. The dialog's rules are in
//! `table`; the points move through the ledger.

use tengen_protocol::{ErrorCode, GameId, MoneyServerMsg, Points, StakeTerms, TableId, UserId};

use super::{refuse, Hall, Recipients};
use crate::game::{GameReply, GameRequest};
use crate::Refusal;

impl Hall {
    /// Tell the table's watchers and players how its stake dialog stands.
    pub(super) fn stake_changed(&self, id: TableId) {
        let Some(table) = self.tables.get(&id) else {
            return;
        };
        let recipients = Recipients {
            table: Some(id),
            users: table.seated_users(),
            ..Recipients::default()
        };
        self.publish(
            recipients,
            &MoneyServerMsg::StakeUpdated {
                table: id,
                stake: table.stake_info(),
                tax_bp: self.ctx.ledger.tax_bp(),
            }
            .into(),
        );
    }

    /// Offer stakes: each at most that player's balance (the escrow re-checks atomically on agree).
    pub(super) async fn offer_stake(
        &mut self,
        id: TableId,
        user: UserId,
        stakes: [Option<Points>; 2],
        terms: StakeTerms,
    ) -> Result<(), Refusal> {
        let amounts = stakes.map(|stake| stake.map_or(0, Points::get));
        let players = self.table(id)?.players()?;
        // Seated before one blocked the other: the block still refuses their stakes.
        self.check_not_blocked(players[0], players[1])?;
        for (player, amount) in players.into_iter().zip(amounts) {
            let balance = self.ctx.ledger.balance(player).await.map_err(|err| {
                tracing::error!(%err, "store failure");
                Refusal::new(ErrorCode::Internal, "the balance could not be read")
            })?;
            if amount > balance {
                return refuse(
                    ErrorCode::InsufficientPoints,
                    format!("user {player} has only {balance} points"),
                );
            }
        }
        self.table_mut(id)?.offer_stake(user, amounts, terms)?;
        self.stake_changed(id);
        Ok(())
    }

    /// Agree or disagree; when both agree, move the points: into the game in progress at the table
    /// (through its actor, so never after it ended), or into the table's hold for the next game.
    pub(super) async fn answer_stake(
        &mut self,
        id: TableId,
        user: UserId,
        agree: bool,
    ) -> Result<(), Refusal> {
        let table = self.table_mut(id)?;
        let both = table.answer_stake(user, agree)?;
        if !both {
            self.stake_changed(id);
            return Ok(());
        }
        let players = table.players()?;
        let dialog = table.stake.clone().expect("an answered dialog exists");
        let game = table.game;
        let entries = vec![
            (players[0], dialog.amounts[0]),
            (players[1], dialog.amounts[1]),
        ];
        let student = dialog.student_index().map(|index| players[index]);
        let key = format!("{id}:{}:{}", crate::unix_now_ms(), self.next_stake);
        self.next_stake += 1;
        let moved = match game {
            Some(game) => {
                let handle = self.games.get(game).await?;
                let stakes = GameRequest::Stakes {
                    entries,
                    student,
                    hold: None,
                };
                handle.ask(stakes).await.and_then(GameReply::done)
            }
            None => self
                .ctx
                .ledger
                .hold_stakes(id, &key, &entries, student.is_some())
                .await
                .map_err(Refusal::from),
        };
        let table = self.table_mut(id)?;
        match moved {
            Ok(()) => table.stake_agreed(key, game)?,
            Err(refusal) => {
                table.stake_failed();
                self.stake_changed(id);
                return Err(refusal);
            }
        }
        self.stake_changed(id);
        Ok(())
    }

    /// A game started at a table with stakes held for it: move them into the game's escrow.
    pub(super) async fn escrow_held_stakes(&mut self, id: TableId, game: GameId) {
        let Some(table) = self.tables.get_mut(&id) else {
            return;
        };
        let Some(dialog) = table.stake.as_mut() else {
            return;
        };
        let student = dialog.student_index();
        let Some(agreement) = dialog.agreed.as_mut() else {
            // Offers not agreed before the game stay open, now for this game.
            return;
        };
        agreement.game = Some(game);
        let entries = agreement.entries.to_vec();
        let student = student.map(|index| entries[index].0);
        let hold = Some((id, agreement.key.clone()));
        let moved = match self.games.get(game).await {
            Ok(handle) => {
                let stakes = GameRequest::Stakes {
                    entries,
                    student,
                    hold,
                };
                handle.ask(stakes).await.and_then(GameReply::done)
            }
            Err(refusal) => Err(refusal),
        };
        if let Err(refusal) = moved {
            // The hold stays; the next restart's release returns it.
            tracing::error!(table = %id, %game, %refusal, "could not move held stakes into a game");
        }
        self.stake_changed(id);
    }
}
