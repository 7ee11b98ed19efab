//! The hall's side of its tables: watching one, leaving it, sitting and standing (one seat per
//! player), proposing and accepting settings, and telling the room, the watchers and the players
//! when a table changed. The rules of a single table are in `table`; this file applies them to the
//! hall's state and pushes the result.

use tengen_protocol::{
    ErrorCode, GameId, GameSettings, HallServerMsg, PlayerInfo, Seat, ServerMsg, TableId, UserId,
};

use super::table::Table;
use super::{refuse, Hall, Recipients};
use crate::{Frame, Refusal};

impl Hall {
    pub(super) fn table(&self, id: TableId) -> Result<&Table, Refusal> {
        self.tables
            .get(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchTable, format!("no table {id}")))
    }

    pub(super) fn table_mut(&mut self, id: TableId) -> Result<&mut Table, Refusal> {
        self.tables
            .get_mut(&id)
            .ok_or_else(|| Refusal::new(ErrorCode::NoSuchTable, format!("no table {id}")))
    }

    /// Tell the room, the table's watchers and its players that a table changed.
    pub(super) fn table_changed(&self, id: TableId) {
        if let Some(table) = self.tables.get(&id) {
            let recipients = Recipients {
                hall: false,
                room: Some(table.room),
                table: Some(id),
                users: table.seated_users(),
            };
            self.publish_text(recipients, table_frame(table), None);
        }
    }

    pub(super) fn join_table(&mut self, id: TableId) -> Result<(Frame, Option<GameId>), Refusal> {
        self.table_mut(id)?.watchers_count += 1;
        self.recount.insert(id);
        let table = self.table(id)?;
        Ok((table_frame(table), table.game))
    }

    pub(super) fn leave_watching(&mut self, id: TableId) -> Result<(), Refusal> {
        let table = self.table_mut(id)?;
        table.watchers_count = table.watchers_count.saturating_sub(1);
        self.recount.insert(id);
        Ok(())
    }

    pub(super) fn leave_table(
        &mut self,
        id: TableId,
        user: Option<UserId>,
        watching: bool,
    ) -> Result<(), Refusal> {
        let table = self.table(id)?;
        let seated = user.is_some_and(|user| table.seat_of(user).is_some());
        if !seated && !watching {
            return refuse(ErrorCode::NotThere, "you are not at that table");
        }
        if let (true, Some(user)) = (seated, user) {
            self.stand(id, user)?;
        }
        if watching {
            self.leave_watching(id)?;
        }
        Ok(())
    }

    pub(super) fn sit(
        &mut self,
        id: TableId,
        seat: Seat,
        player: PlayerInfo,
    ) -> Result<(), Refusal> {
        if let Some(at) = self.seated.get(&player.user) {
            return refuse(
                ErrorCode::AlreadySeated,
                format!("you already sit at table {at}"),
            );
        }
        let user = player.user;
        for other in self.table(id)?.seated_users().into_iter().flatten() {
            self.check_not_blocked(user, other)?;
        }
        self.table_mut(id)?.sit(seat, player)?;
        self.seated.insert(user, id);
        self.table_changed(id);
        Ok(())
    }

    pub(super) fn stand(&mut self, id: TableId, user: UserId) -> Result<(), Refusal> {
        let held = self.table_mut(id)?.stand(user)?;
        self.seated.remove(&user);
        self.table_changed(id);
        self.stake_changed(id);
        if let Some(agreement) = held {
            // The game these stakes were for will not be played: give them back. The transfer ids
            // come from the agreement, so this is safe to retry, and a restart releases any hold.
            let ledger = self.ctx.ledger.clone();
            tokio::spawn(async move {
                if let Err(err) = ledger
                    .release_hold(id, &agreement.key, &agreement.entries)
                    .await
                {
                    tracing::error!(table = %id, %err, "could not release held stakes");
                }
            });
        }
        Ok(())
    }

    pub(super) fn propose(
        &mut self,
        id: TableId,
        user: UserId,
        settings: GameSettings,
    ) -> Result<(), Refusal> {
        self.table_mut(id)?.propose(user, settings)?;
        self.table_changed(id);
        Ok(())
    }

    pub(super) async fn accept(
        &mut self,
        id: TableId,
        user: UserId,
        settings: GameSettings,
    ) -> Result<(), Refusal> {
        let (left, right, settings) = self.table_mut(id)?.confirm(user, &settings)?;
        let summary = self
            .start_game(Some(id), left, right, settings, Vec::new())
            .await?;
        let table = self.table_mut(id)?;
        table.game = Some(summary.game);
        table.proposal = None;
        self.table_changed(id);
        self.escrow_held_stakes(id, summary.game).await;
        Ok(())
    }
}

pub(super) fn table_frame(table: &Table) -> Frame {
    ServerMsg::Hall(HallServerMsg::TableUpdated {
        table: table.info(),
    })
    .to_json()
    .into()
}
