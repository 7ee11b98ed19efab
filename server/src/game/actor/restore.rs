//! Rebuilding a live game after a restart (or, scaled out, on the node that takes it over): the
//! players and settings from the stored row, the pool from the ledger, then the game's core from
//! nothing with every logged event applied in order at the game-time instant it first happened,
//! by the same `apply` as live play, so the board, the clocks, the scoring phase, undo requests
//! and who was away come back exactly as they were; then the actor around it. A log that already
//! ends with the result is finished instead.

use tengen_protocol::{GameSettings, PlayerInfo};
use tokio::time::Instant;

use super::{Fatal, GameActor, LoggedEvent};
use crate::game::core::Command;
use crate::game::wire;
use crate::game::{GameContext, StartGame};
use crate::store::{LiveGameRow, UserRow};
use crate::BoxError;

impl GameActor {
    /// Rebuild a live game from its stored row and event log. `Ok(None)` when the log shows the game
    /// already ended (it is then finished in the store).
    pub(in crate::game) async fn restore(
        row: LiveGameRow,
        ctx: GameContext,
    ) -> Result<Option<GameActor>, BoxError> {
        let settings: GameSettings = serde_json::from_str(&row.game.settings_json)?;
        let (black_id, white_id) = (row.game.black, row.game.white);
        let users = ctx
            .store
            .call(move |store| Ok((store.user_by_id(black_id)?, store.user_by_id(white_id)?)))
            .await?;
        let (Some(black), Some(white)) = users else {
            return Err(format!("game {} has a missing player", row.id).into());
        };
        let start = StartGame {
            bettors_barred: Vec::new(),
            table: row.game.table,
            black: player_info(&black),
            white: player_info(&white),
            settings,
            nigiri_seed: row.game.nigiri_seed,
        };
        let game = wire::new_engine_game(&settings)?;
        let (tally, _) = ctx.ledger.tally(row.id).await?;
        let mut actor = GameActor::new(row.id, start, game, ctx, row.game.started_at_ms)?;
        actor.tally = tally;
        let mut last_at_ms = 0;
        for (seq, text) in &row.events {
            let logged: LoggedEvent = serde_json::from_str(text)?;
            actor
                .core
                .apply(*seq, &logged)
                .map_err(|refusal| format!("event {seq} does not replay: {refusal}"))?;
            actor.remember_key(&logged);
            last_at_ms = last_at_ms.max(logged.at_ms);
        }
        actor.store_moves_count();
        // Game time goes on from the last recorded instant: the downtime belongs to no one.
        actor.offset_ms = last_at_ms;
        actor.epoch = Instant::now();
        if actor.core.outcome.is_some() {
            actor.finish().await;
            return Ok(None);
        }
        // Nobody is connected to a freshly restored game: both count as away (and are announced so,
        // unless the log already did) until they come back; the grace runs from the restart.
        actor.seen = [true, true];
        for since in actor.core.away_since_ms.iter_mut().flatten() {
            *since = last_at_ms;
        }
        actor.event_rules_restored(last_at_ms);
        // A crash between the second pass and the scoring proposal leaves scoring unopened.
        actor
            .change(Command::OpenScoring)
            .await
            .map_err(|fatal: Fatal| -> BoxError { fatal.to_string().into() })?
            .map_err(|refusal| -> BoxError { refusal.to_string().into() })?;
        Ok(Some(actor))
    }
}

fn player_info(user: &UserRow) -> PlayerInfo {
    crate::auth::player_info(user)
}
