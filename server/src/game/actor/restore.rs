//! Rebuilding a live game after a restart (or, scaled out, on the node that takes it over): the
//! players and settings from the stored row, the pool from the ledger, then the game's core from
//! nothing with every logged event applied in order at the game-time instant it first happened,
//! by the same `apply` as live play, so the board, the clocks, the scoring phase, undo requests
//! and who was away come back exactly as they were; then the actor around it. A log that already
//! ends with the result is finished instead.

use tengen_protocol::{GameSettings, PlayerInfo};

use super::game_time::GameTime;
use super::{Fatal, GameActor, LoggedEvent};
use crate::game::core::{Command, GameCore};
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
        let start = start_of(&row, &ctx).await?;
        let settings = start.settings;
        let log = row
            .events
            .iter()
            .map(|(seq, text)| Ok((*seq, serde_json::from_str::<LoggedEvent>(text)?)))
            .collect::<Result<Vec<_>, serde_json::Error>>()?;
        let game = wire::new_engine_game(&settings)?;
        let core = GameCore::replayed(settings, ctx.timing, game, &log)?;
        let (tally, _) = ctx.ledger.tally(row.id).await?;
        let mut actor = GameActor::around(row.id, start, core, ctx, row.game.started_at_ms);
        actor.wagers.restore_tally(tally);
        for (_, logged) in &log {
            actor.move_keys.remember(logged);
        }
        let last_at_ms = log
            .iter()
            .map(|(_, logged)| logged.at_ms)
            .max()
            .unwrap_or(0);
        actor.store_moves_count();
        // Game time goes on from the last recorded instant: the downtime belongs to no one.
        actor.time = GameTime::resumed_at(last_at_ms);
        if actor.core.outcome.is_some() {
            actor.finish().await;
            return Ok(None);
        }
        // Nobody is connected to a freshly restored game: both count as away (and are announced so,
        // unless the log already did) until they come back; the grace runs from the restart.
        actor.audience.both_seen_before();
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

/// What a stored game started with: its players as they are now, and its settings.
async fn start_of(row: &LiveGameRow, ctx: &GameContext) -> Result<StartGame, BoxError> {
    let settings: GameSettings = serde_json::from_str(&row.game.settings_json)?;
    let (black_id, white_id) = (row.game.black, row.game.white);
    let users = ctx
        .store
        .call(move |store| Ok((store.user_by_id(black_id)?, store.user_by_id(white_id)?)))
        .await?;
    let (Some(black), Some(white)) = users else {
        return Err(format!("game {} has a missing player", row.id).into());
    };
    Ok(StartGame {
        bettors_barred: Vec::new(),
        table: row.game.table,
        black: player_info(&black),
        white: player_info(&white),
        settings,
        nigiri_seed: row.game.nigiri_seed,
    })
}

fn player_info(user: &UserRow) -> PlayerInfo {
    crate::auth::player_info(user)
}
