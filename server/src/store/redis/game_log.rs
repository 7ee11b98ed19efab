//! Games and their event logs in Redis: each game's record hash and its events hash by `seq`
//! (`keys::game`, `keys::game_events`), the live and unsettled games' indexes (hints that reads
//! check against each game's record and repair), and each player's list of games. An append is one
//! function call that refuses a taken `seq` and, scaled out, a lease another node holds now.

use std::collections::HashMap;

use redis::{Connection, RedisResult};
use tengen_protocol::{GameId, UserId};

use super::connections::Failure;
use super::records::{corrupt, events_in_order, live_game_row, new_game_from_fields, parse_number};
use super::{call_function, function, ids_in, keys, RedisStore};
use crate::store::{GameListRow, GameLog, LiveGameRow, NewGame, StoreError};

impl GameLog for RedisStore {
    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError> {
        self.write(|conn| {
            let id = GameId(::redis::cmd("INCR").arg(keys::GAME_IDS).query(conn)?);
            let mut record = ::redis::cmd("HSET");
            record
                .arg(keys::game(id))
                .arg("black")
                .arg(game.black.0)
                .arg("white")
                .arg(game.white.0)
                .arg("settings")
                .arg(&game.settings_json)
                .arg("started_at_ms")
                .arg(game.started_at_ms);
            if let Some(table) = game.table {
                record.arg("table").arg(table.0);
            }
            if let Some(seed) = game.nigiri_seed {
                record.arg("nigiri_seed").arg(seed);
            }
            // The record first, then the indexes that point at it.
            let mut pipe = ::redis::pipe();
            pipe.add_command(record).ignore();
            for player in [game.black, game.white] {
                pipe.cmd("ZADD")
                    .arg(keys::user_games(player))
                    .arg(id.0)
                    .arg(id.0)
                    .ignore();
            }
            pipe.cmd("ZADD")
                .arg(keys::LIVE_GAMES)
                .arg(id.0)
                .arg(id.0)
                .ignore();
            pipe.exec(conn)?;
            Ok(id)
        })
    }

    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let call = function(
                "tengen_append_event",
                &[
                    &keys::game(game),
                    &keys::game_events(game),
                    &keys::game_owner(game),
                ],
            )
            .arg(seq)
            .arg(event_json)
            .arg(self.fences.get(game).unwrap_or_default())
            .to_owned();
            let outcome: String = call_function(conn, &call)?;
            match outcome.as_str() {
                "ok" => Ok(()),
                "duplicate" => Err(StoreError::DuplicateEvent { game, seq }.into()),
                "fenced" => Err(StoreError::NotOwner(game).into()),
                "no_such_game" => Err(StoreError::NoSuchGame(game).into()),
                other => Err(corrupt("append_event answer", other).into()),
            }
        })
    }

    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::game_events(game))
                .query(conn)?;
            Ok(events_in_order(stored)?)
        })
    }

    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let call = function("tengen_set_if_exists", &[&keys::game(game)])
                .arg(&["result", result, "sgf", sgf, "ended_at_ms"])
                .arg(now_ms)
                .to_owned();
            let set: i64 = call_function(conn, &call)?;
            if set == 0 {
                return Err(StoreError::NoSuchGame(game).into());
            }
            // A crash before this is repaired when live games are next read.
            index_finished(conn, game)?;
            Ok(())
        })
    }

    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError> {
        self.read(|conn| {
            Ok(::redis::cmd("HGET")
                .arg(keys::game(game))
                .arg("sgf")
                .query(conn)?)
        })
    }

    fn live_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        self.read(|conn| {
            let ids = ids_in(conn, keys::LIVE_GAMES)?;
            let mut live = Vec::with_capacity(ids.len());
            for (id, fields, events) in games_with_events(conn, &ids)? {
                let Some(fields) = fields else {
                    tracing::warn!(game = %id, "redis: a live game has no record; skipped");
                    continue;
                };
                if fields.contains_key("ended_at_ms") {
                    index_finished(conn, id)?;
                    continue;
                }
                live.push(live_game_row(id, &fields, events)?);
            }
            Ok(live)
        })
    }

    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError> {
        self.read(|conn| {
            // Scored by game id: the page is the ids below `before`, newest first.
            let below = before.map_or("+inf".to_string(), |game| format!("({}", game.0));
            let ids: Vec<String> = ::redis::cmd("ZREVRANGEBYSCORE")
                .arg(keys::user_games(user))
                .arg(below)
                .arg("-inf")
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query(conn)?;
            let ids: Vec<GameId> = ids
                .iter()
                .map(|id| parse_number("game id", id).map(GameId))
                .collect::<Result<_, _>>()?;
            // Redis refuses an empty pipeline.
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut pipe = ::redis::pipe();
            for &id in &ids {
                pipe.cmd("HGETALL").arg(keys::game(id));
            }
            let records: Vec<HashMap<String, String>> = pipe.query(conn)?;
            let mut names: HashMap<UserId, String> = HashMap::new();
            let mut rows = Vec::with_capacity(ids.len());
            for (id, fields) in ids.into_iter().zip(records) {
                if fields.is_empty() {
                    continue;
                }
                let game = new_game_from_fields(&fields)?;
                let mut name_of = |player: UserId| -> Result<String, Failure> {
                    if let Some(name) = names.get(&player) {
                        return Ok(name.clone());
                    }
                    let name: Option<String> = ::redis::cmd("HGET")
                        .arg(keys::user(player))
                        .arg("username")
                        .query(conn)?;
                    let name = name.ok_or_else(|| corrupt("game player", &player.to_string()))?;
                    names.insert(player, name.clone());
                    Ok(name)
                };
                rows.push(GameListRow {
                    id,
                    black: name_of(game.black)?,
                    white: name_of(game.white)?,
                    settings_json: game.settings_json,
                    result: fields.get("result").cloned(),
                    started_at_ms: game.started_at_ms,
                });
            }
            Ok(rows)
        })
    }

    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError> {
        self.read(|conn| {
            let ids: Vec<u64> = ::redis::cmd("ZREVRANGE")
                .arg(keys::user_games(user))
                .arg(0)
                .arg(crate::config::FINISHED_GAME_LOOKBACK.saturating_sub(1))
                .query(conn)?;
            if ids.is_empty() {
                return Ok(false);
            }
            let mut pipe = ::redis::pipe();
            for id in &ids {
                pipe.cmd("HEXISTS")
                    .arg(keys::game(GameId(*id)))
                    .arg("result");
            }
            let finished: Vec<bool> = pipe.query(conn)?;
            Ok(finished.into_iter().any(|done| done))
        })
    }
}

/// Each game's record and event log, read together; `None` for a game without a record.
type GameWithEvents = (GameId, Option<HashMap<String, String>>, Vec<(u64, String)>);

pub(super) fn games_with_events(
    conn: &mut Connection,
    ids: &[u64],
) -> Result<Vec<GameWithEvents>, Failure> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = ::redis::pipe();
    for &id in ids {
        pipe.cmd("HGETALL").arg(keys::game(GameId(id)));
        pipe.cmd("HGETALL").arg(keys::game_events(GameId(id)));
    }
    let replies: Vec<HashMap<String, String>> = pipe.query(conn)?;
    let mut replies = replies.into_iter();
    let mut games = Vec::with_capacity(ids.len());
    for &id in ids {
        let (Some(fields), Some(events)) = (replies.next(), replies.next()) else {
            return Err(StoreError::Backend("redis: a pipeline answered too little".into()).into());
        };
        let fields = (!fields.is_empty()).then_some(fields);
        games.push((GameId(id), fields, events_in_order(events)?));
    }
    Ok(games)
}

/// Move a finished game from the live index to the unsettled one (idempotent: a repair after a
/// crash in the middle of `finish_game`, or its last step).
fn index_finished(conn: &mut Connection, game: GameId) -> RedisResult<()> {
    ::redis::pipe()
        .cmd("ZADD")
        .arg(keys::UNSETTLED_GAMES)
        .arg(game.0)
        .arg(game.0)
        .ignore()
        .cmd("ZREM")
        .arg(keys::LIVE_GAMES)
        .arg(game.0)
        .ignore()
        .exec(conn)
}
