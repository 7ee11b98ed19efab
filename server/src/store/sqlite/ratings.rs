//! Ratings in SQLite: each player's Glicko-2 state in `ratings` (its rounded rating mirrored on
//! `users`), `rated_games` so a game is rated once, and `rating_history`, one row per player and
//! rated game. Rating a game goes through the writer's group commit, in a savepoint of its own.

use rusqlite::{params, Connection, OptionalExtension};
use tengen_protocol::{GameId, RatingPoint, SizeRecord, UserId};

use super::{backend, is_constraint, PendingWrite, SqliteStore, WriteOutcome};
use crate::store::{
    record_by_size, Glicko, RatedGameRow, RatedOutcome, RatingUpdate, Ratings, StoreError,
};

impl Ratings for SqliteStore {
    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError> {
        let write = PendingWrite::Rate {
            game,
            players,
            update,
        };
        match self.submit(write) {
            WriteOutcome::Rated(outcome) => outcome,
            other => unreachable!("a rating's ticket holds its outcome: {other:?}"),
        }
    }

    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT game_id, at_ms, rating FROM rating_history
                 WHERE user_id = ?1 AND rating IS NOT NULL
                 ORDER BY at_ms DESC, game_id DESC LIMIT ?2",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64, limit as i64], |row| {
                Ok(RatingPoint {
                    game: GameId(row.get::<_, i64>(0)? as u64),
                    at_ms: row.get::<_, i64>(1)? as u64,
                    rating: row.get::<_, f64>(2)?.round() as i32,
                })
            })
            .map_err(backend)?;
        let mut points = rows.collect::<Result<Vec<_>, _>>().map_err(backend)?;
        points.reverse();
        Ok(points)
    }

    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT size, outcome, COUNT(*) FROM rating_history WHERE user_id = ?1
                 GROUP BY size, outcome",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64], |row| {
                Ok((
                    row.get::<_, u8>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .map_err(backend)?;
        let mut games = Vec::new();
        for row in rows {
            let (size, outcome, count) = row.map_err(backend)?;
            let outcome = RatedOutcome::parse(&outcome).ok_or_else(|| {
                StoreError::Backend(format!("a rated game's outcome {outcome:?}"))
            })?;
            games.push((size, outcome, count.max(0) as u64));
        }
        Ok(record_by_size(games))
    }
}

/// Rate `game` once: `None` when it was rated before. The caller's savepoint makes it one unit.
pub(super) fn rate_in(
    conn: &Connection,
    game: GameId,
    players: [UserId; 2],
    update: &dyn Fn([Glicko; 2]) -> [Glicko; 2],
) -> rusqlite::Result<Option<[Glicko; 2]>> {
    match conn.execute(
        "INSERT INTO rated_games (game_id) VALUES (?1)",
        params![game.0 as i64],
    ) {
        Ok(_) => {}
        Err(err) if is_constraint(&err) => return Ok(None),
        Err(err) => return Err(err),
    }
    let before = [glicko_of(conn, players[0])?, glicko_of(conn, players[1])?];
    let after = update(before);
    for (user, glicko) in players.iter().zip(after.iter()) {
        conn.execute(
            "INSERT INTO ratings (user_id, rating, deviation, volatility, games)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (user_id) DO UPDATE SET rating = ?2, deviation = ?3,
                 volatility = ?4, games = ?5",
            params![
                user.0 as i64,
                glicko.rating,
                glicko.deviation,
                glicko.volatility,
                glicko.games as i64
            ],
        )?;
        conn.execute(
            "UPDATE users SET rating = ?2 WHERE id = ?1",
            params![user.0 as i64, glicko.rating.round() as i64],
        )?;
    }
    remember_rated_game(conn, game, players, after.map(|glicko| Some(glicko.rating)))?;
    Ok(Some(after))
}

/// Both players' history entries of a rated game, from its stored record (see
/// `RatedGameRow::of_game`).
pub(super) fn remember_rated_game(
    conn: &Connection,
    game: GameId,
    players: [UserId; 2],
    ratings: [Option<f64>; 2],
) -> rusqlite::Result<()> {
    let (settings, result, at_ms): (String, Option<String>, i64) = conn.query_row(
        "SELECT settings, result, COALESCE(ended_at_ms, started_at_ms) FROM games WHERE id = ?1",
        params![game.0 as i64],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let record = (
        Some(settings.as_str()),
        result.as_deref(),
        at_ms.max(0) as u64,
    );
    for (user, entry) in RatedGameRow::of_game(game, players, ratings, record) {
        conn.execute(
            "INSERT OR IGNORE INTO rating_history (user_id, game_id, at_ms, size, outcome, rating)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                user.0 as i64,
                game.0 as i64,
                entry.at_ms as i64,
                entry.size,
                entry.outcome.as_str(),
                entry.rating
            ],
        )?;
    }
    Ok(())
}

fn glicko_of(conn: &Connection, user: UserId) -> rusqlite::Result<Glicko> {
    conn.query_row(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = ?1",
        params![user.0 as i64],
        |row| {
            Ok(Glicko {
                rating: row.get(0)?,
                deviation: row.get(1)?,
                volatility: row.get(2)?,
                games: row.get::<_, i64>(3)? as u32,
            })
        },
    )
    .optional()
    .map(Option::unwrap_or_default)
}
