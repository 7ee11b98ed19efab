//! Games and their event logs in SQLite: `games` (settings, result, SGF) and `game_events` keyed by
//! game and `seq`. A game's start, its events and its result go through the writer's group commit
//! (`write_group` calls [`insert_game`] and [`insert_event`]); reads go to a reader.

use rusqlite::{params, Connection, OptionalExtension};
use tengen_protocol::{GameId, TableId, UserId};
use tokio::sync::oneshot;

#[cfg(test)]
use super::Fault;
use super::{backend, Answer, PendingWrite, SqliteStore, WriteOutcome};
use crate::store::{GameListRow, GameLog, LiveGameRow, NewGame, QueuedAnswer, StoreError};

impl GameLog for SqliteStore {
    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError> {
        match self.submit(PendingWrite::NewGame(game.clone())) {
            WriteOutcome::NewGame(outcome) => outcome,
            other => unreachable!("a new game's ticket holds its id: {other:?}"),
        }
    }

    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            let json = event_json.to_string();
            return self.faulty(true, || self.append_event_now(game, seq, &json));
        }
        self.append_event_now(game, seq, event_json)
    }

    fn append_event_queued(
        &self,
        game: GameId,
        seq: u64,
        event_json: &str,
    ) -> Option<QueuedAnswer> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            return None;
        }
        let writer = self.writer.as_ref()?;
        let (answer, outcome) = oneshot::channel();
        let write = PendingWrite::event(game, seq, event_json);
        // A full queue is left to the blocking call, which waits for room off the runtime.
        writer.try_send((write, Answer::Queued(answer))).ok()?;
        Some(Box::pin(async move {
            match outcome.await {
                Ok(WriteOutcome::Done(outcome)) => outcome,
                Ok(other) => Err(StoreError::Backend(format!(
                    "an event's write answered {other:?}"
                ))),
                Err(_) => Err(StoreError::Backend("the store's writer has stopped".into())),
            }
        }))
    }

    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            return self.faulty(false, || events_of(&self.reader(), game));
        }
        events_of(&self.reader(), game)
    }

    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let write = PendingWrite::Finish {
            game,
            result: result.to_string(),
            sgf: sgf.to_string(),
            now_ms,
        };
        match self.submit(write) {
            WriteOutcome::Done(outcome) => outcome,
            other => unreachable!("a result's ticket holds its outcome: {other:?}"),
        }
    }

    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError> {
        let sgf: Option<Option<String>> = self
            .reader()
            .query_row(
                "SELECT sgf FROM games WHERE id = ?1",
                params![game.0 as i64],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        Ok(sgf.flatten())
    }

    fn live_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        games_with_events(&self.reader(), "ended_at_ms IS NULL")
    }

    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT g.id, b.username, w.username, g.settings, g.result, g.started_at_ms
                 FROM games g JOIN users b ON b.id = g.black JOIN users w ON w.id = g.white
                 WHERE (g.black = ?1 OR g.white = ?1) AND g.id < ?3
                 ORDER BY g.id DESC LIMIT ?2",
            )
            .map_err(backend)?;
        let before = before.map_or(i64::MAX, |game| game.0.min(i64::MAX as u64) as i64);
        let rows = stmt
            .query_map(params![user.0 as i64, limit as i64, before], |row| {
                Ok(GameListRow {
                    id: GameId(row.get::<_, i64>(0)? as u64),
                    black: row.get(1)?,
                    white: row.get(2)?,
                    settings_json: row.get(3)?,
                    result: row.get(4)?,
                    started_at_ms: row.get::<_, i64>(5)? as u64,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError> {
        self.reader()
            .query_row(
                "SELECT 1 FROM games WHERE (black = ?1 OR white = ?1) AND result IS NOT NULL
                 LIMIT 1",
                params![user.0 as i64],
                |_| Ok(()),
            )
            .optional()
            .map(|row| row.is_some())
            .map_err(backend)
    }
}

pub(super) fn insert_game(conn: &Connection, game: &NewGame) -> rusqlite::Result<GameId> {
    conn.prepare_cached(
        "INSERT INTO games (black, white, table_id, settings, nigiri_seed, started_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        game.black.0 as i64,
        game.white.0 as i64,
        game.table.map(|t| t.0 as i64),
        game.settings_json,
        game.nigiri_seed.map(|s| s as i64),
        game.started_at_ms as i64
    ])?;
    Ok(GameId(conn.last_insert_rowid() as u64))
}

pub(super) fn insert_event(
    conn: &Connection,
    game: GameId,
    seq: u64,
    event_json: &str,
) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO game_events (game_id, seq, event) VALUES (?1, ?2, ?3)")?
        .execute(params![game.0 as i64, seq as i64, event_json])
        .map(|_| ())
}

/// The games matching `condition` (a fixed SQL condition, never user input), oldest first, each with
/// its event log: live games to restore, or finished games still to settle.
pub(super) fn games_with_events(
    conn: &Connection,
    condition: &str,
) -> Result<Vec<LiveGameRow>, StoreError> {
    let games = {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT id, black, white, table_id, settings, nigiri_seed, started_at_ms
                 FROM games WHERE {condition} ORDER BY id"
            ))
            .map_err(backend)?;
        let rows = stmt.query_map([], new_game_from_row).map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)?
    };
    games
        .into_iter()
        .map(|(id, game)| {
            Ok(LiveGameRow {
                id,
                game,
                events: events_of(conn, id)?,
            })
        })
        .collect()
}

fn new_game_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(GameId, NewGame)> {
    let seed: Option<i64> = row.get(5)?;
    let table: Option<i64> = row.get(3)?;
    Ok((
        GameId(row.get::<_, i64>(0)? as u64),
        NewGame {
            black: UserId(row.get::<_, i64>(1)? as u64),
            white: UserId(row.get::<_, i64>(2)? as u64),
            table: table.map(|t| TableId(t as u32)),
            settings_json: row.get(4)?,
            // Seeds use all 64 bits; SQLite integers are signed, so the bits are stored as they are.
            nigiri_seed: seed.map(|s| s as u64),
            started_at_ms: row.get::<_, i64>(6)? as u64,
        },
    ))
}

fn events_of(conn: &Connection, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT seq, event FROM game_events WHERE game_id = ?1 ORDER BY seq")
        .map_err(backend)?;
    let rows = stmt
        .query_map(params![game.0 as i64], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get::<_, String>(1)?))
        })
        .map_err(backend)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(backend)
}
