//! Rebuilding a live game after a restart (or, scaled out, on the node that takes it over): the
//! players and settings from the stored row, the pool from the ledger, then every logged event
//! replayed in order at the game-time instant it first happened, so the board, the clocks, the
//! scoring phase, undo requests and who was away come back exactly as they were; a log that already
//! ends with the result is finished instead. Kept apart from the live paths because it must agree
//! with all of them, event by event.

use tengen_protocol::{EndReason, GameEvent, GameOutcome, GameSettings, PlayerInfo};
use tengen_rules::{GameResult, Move, Phase, WinBy};
use tokio::time::Instant;

use super::{Fatal, GameActor, LoggedEvent};
use crate::game::core::Scoring;
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
            actor.replay_logged(&logged)?;
            actor.remember_key(&logged);
            actor.core.seq = *seq;
            last_at_ms = last_at_ms.max(logged.at_ms);
        }
        let moves_count = actor.core.game.moves().len() as u32;
        actor
            .moves_count
            .store(moves_count, std::sync::atomic::Ordering::Relaxed);
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
        if actor.core.game.phase() == Phase::Scoring && actor.core.scoring.is_none() {
            actor
                .open_scoring()
                .await
                .map_err(|fatal: Fatal| -> BoxError { fatal.to_string().into() })?;
        }
        Ok(Some(actor))
    }

    /// Apply one recorded event to the state, as when it first happened at game time `at_ms`.
    pub(super) fn replay(&mut self, event: &GameEvent, at_ms: u64) -> Result<(), BoxError> {
        match event {
            GameEvent::Played { color, point, .. } => {
                self.core.game.play(*color, Move::Play(*point))?;
                self.clock_moved(at_ms);
            }
            GameEvent::Passed { color, forced } => {
                if *forced {
                    if let Some(clock) = &mut self.core.clock {
                        clock.check(at_ms);
                    }
                } else {
                    self.clock_moved(at_ms);
                }
                self.core.game.play(*color, Move::Pass)?;
                self.core.undo_request = None;
            }
            GameEvent::ScoringStarted { dead } => {
                self.core.scoring = Some(Scoring {
                    dead: dead.iter().copied().collect(),
                    accepted: [false, false],
                });
                self.enter_scoring(at_ms);
            }
            GameEvent::DeadMarked { dead, .. } => {
                self.core.scoring = Some(Scoring {
                    dead: dead.iter().copied().collect(),
                    accepted: [false, false],
                });
            }
            GameEvent::ScoreAccepted { color } => {
                if let Some(scoring) = &mut self.core.scoring {
                    scoring.accepted[color.index()] = true;
                }
            }
            GameEvent::Ended { outcome } => {
                let result = self.result_of(outcome);
                self.core.game.end(result);
                self.core.outcome = Some(outcome.clone());
            }
            GameEvent::UndoRequested { color } => self.core.undo_request = Some(*color),
            GameEvent::UndoDeclined { .. } => self.core.undo_request = None,
            // A log written before undos were checked at the answer may accept one with nothing
            // to take back: it changed nothing then, and nothing now.
            GameEvent::UndoAccepted { color, .. } => match self.undo_plies(*color) {
                Some(_) => self
                    .take_back(*color, at_ms)
                    .map_err(|refusal| refusal.message)?,
                None => self.core.undo_request = None,
            },
            GameEvent::PlayResumed { to_move, .. } => {
                if !self.restart_play(*to_move, at_ms) {
                    return Err("the log resumes play outside the scoring phase".into());
                }
            }
            // Who was announced away; after a restart their grace starts again from the restart.
            GameEvent::PlayerLeft { color, .. } => {
                self.core.away_since_ms[color.index()] = Some(at_ms);
            }
            GameEvent::PlayerReturned { color } => {
                self.core.away_since_ms[color.index()] = None;
            }
            GameEvent::Arrived { .. }
            | GameEvent::Warned { .. }
            | GameEvent::Paused { .. }
            | GameEvent::Adjourned { .. }
            | GameEvent::Sealed { .. }
            | GameEvent::Resumed => self.replay_event_rule(event, at_ms),
        }
        Ok(())
    }

    /// The engine result a recorded outcome stands for (a count is counted again from the replayed
    /// marking, which gives the same margin).
    fn result_of(&self, outcome: &GameOutcome) -> GameResult {
        let win = |win_by| match outcome.winner {
            Some(winner) => GameResult::Win { winner, win_by },
            None => GameResult::Void,
        };
        match outcome.reason {
            EndReason::Resignation => win(WinBy::Resign),
            EndReason::Time => win(WinBy::Time),
            EndReason::Forfeit => win(WinBy::Forfeit),
            EndReason::Void => GameResult::Void,
            EndReason::Score => self.counted().0,
        }
    }
}

fn player_info(user: &UserRow) -> PlayerInfo {
    crate::auth::player_info(user)
}
