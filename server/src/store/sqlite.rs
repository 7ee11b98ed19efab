//! The embedded [`Store`] backend: one SQLite file in the data directory, in WAL mode with full fsync so
//! an acknowledged event survives a crash or power loss. One connection behind a mutex is enough: every
//! call already runs on the blocking pool, and SQLite serializes writers anyway.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, ErrorCode as SqliteCode, OptionalExtension};
use tengen_protocol::{GameId, TableId, UserId};

use super::{GameListRow, Glicko, LiveGameRow, NewGame, Store, StoreError, UserRow};

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "tengen.sqlite3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    rating INTEGER NOT NULL DEFAULT 1500,
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_digest TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    expires_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    black INTEGER NOT NULL REFERENCES users(id),
    white INTEGER NOT NULL REFERENCES users(id),
    table_id INTEGER,
    settings TEXT NOT NULL,
    nigiri_seed INTEGER,
    started_at_ms INTEGER NOT NULL,
    ended_at_ms INTEGER,
    result TEXT,
    sgf TEXT
);
CREATE TABLE IF NOT EXISTS ratings (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rated_games (
    game_id INTEGER PRIMARY KEY REFERENCES games(id)
);
CREATE TABLE IF NOT EXISTS game_events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// SQLite behind a mutex.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn backend(err: rusqlite::Error) -> StoreError {
    StoreError::Backend(err.to_string())
}

fn is_constraint(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(SqliteCode::ConstraintViolation)
    )
}

impl SqliteStore {
    /// Open (creating if needed) the database in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(data_dir)
            .map_err(|err| StoreError::Backend(format!("cannot create {data_dir:?}: {err}")))?;
        let conn = Connection::open(data_dir.join(DB_FILE)).map_err(backend)?;
        // WAL lets readers run beside the writer; synchronous=FULL makes each commit durable before
        // it returns, which is what "stored before acknowledged" needs.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(backend)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(backend)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (it has its own journal),
        // so a poisoned lock is still usable.
        self.conn
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

fn user_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: UserId(row.get::<_, i64>(0)? as u64),
        username: row.get(1)?,
        password_hash: row.get(2)?,
        rating: row.get(3)?,
        rated_games: row.get::<_, i64>(4)? as u32,
    })
}

/// The users' columns of [`user_from_row`], with the count of rated games from `ratings`.
const USER_COLUMNS: &str =
    "SELECT u.id, u.username, u.password_hash, u.rating, COALESCE(r.games, 0)
     FROM users u LEFT JOIN ratings r ON r.user_id = u.id";

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

impl Store for SqliteStore {
    fn create_user(
        &self,
        username: &str,
        password_hash: &str,
        now_ms: u64,
    ) -> Result<UserId, StoreError> {
        let conn = self.conn();
        let inserted = conn.execute(
            "INSERT INTO users (username, username_key, password_hash, created_at_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                username,
                username.to_ascii_lowercase(),
                password_hash,
                now_ms as i64
            ],
        );
        match inserted {
            Ok(_) => Ok(UserId(conn.last_insert_rowid() as u64)),
            Err(err) if is_constraint(&err) => Err(StoreError::UsernameTaken),
            Err(err) => Err(backend(err)),
        }
    }

    fn user_by_name(&self, username: &str) -> Result<Option<UserRow>, StoreError> {
        self.conn()
            .query_row(
                &format!("{USER_COLUMNS} WHERE u.username_key = ?1"),
                params![username.to_ascii_lowercase()],
                user_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn user_by_id(&self, id: UserId) -> Result<Option<UserRow>, StoreError> {
        self.conn()
            .query_row(
                &format!("{USER_COLUMNS} WHERE u.id = ?1"),
                params![id.0 as i64],
                user_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn create_session(
        &self,
        token_digest: &str,
        user: UserId,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO sessions (token_digest, user_id, expires_at_ms) VALUES (?1, ?2, ?3)",
                params![token_digest, user.0 as i64, expires_at_ms as i64],
            )
            .map(|_| ())
            .map_err(backend)
    }

    fn session_user(
        &self,
        token_digest: &str,
        now_ms: u64,
    ) -> Result<Option<(UserId, u64)>, StoreError> {
        self.conn()
            .query_row(
                "SELECT user_id, expires_at_ms FROM sessions
                 WHERE token_digest = ?1 AND expires_at_ms > ?2",
                params![token_digest, now_ms as i64],
                |row| {
                    Ok((
                        UserId(row.get::<_, i64>(0)? as u64),
                        row.get::<_, i64>(1)? as u64,
                    ))
                },
            )
            .optional()
            .map_err(backend)
    }

    fn delete_session(&self, token_digest: &str) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM sessions WHERE token_digest = ?1",
                params![token_digest],
            )
            .map(|_| ())
            .map_err(backend)
    }

    fn purge_sessions(&self, now_ms: u64) -> Result<usize, StoreError> {
        self.conn()
            .execute(
                "DELETE FROM sessions WHERE expires_at_ms <= ?1",
                params![now_ms as i64],
            )
            .map_err(backend)
    }

    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO games (black, white, table_id, settings, nigiri_seed, started_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game.black.0 as i64,
                game.white.0 as i64,
                game.table.map(|t| t.0 as i64),
                game.settings_json,
                game.nigiri_seed.map(|s| s as i64),
                game.started_at_ms as i64
            ],
        )
        .map_err(backend)?;
        Ok(GameId(conn.last_insert_rowid() as u64))
    }

    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        let inserted = self.conn().execute(
            "INSERT INTO game_events (game_id, seq, event) VALUES (?1, ?2, ?3)",
            params![game.0 as i64, seq as i64, event_json],
        );
        match inserted {
            Ok(_) => Ok(()),
            Err(err) if is_constraint(&err) => Err(StoreError::DuplicateEvent { game, seq }),
            Err(err) => Err(backend(err)),
        }
    }

    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
        events_of(&self.conn(), game)
    }

    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let updated = self
            .conn()
            .execute(
                "UPDATE games SET result = ?2, sgf = ?3, ended_at_ms = ?4 WHERE id = ?1",
                params![game.0 as i64, result, sgf, now_ms as i64],
            )
            .map_err(backend)?;
        if updated == 0 {
            return Err(StoreError::NoSuchGame(game));
        }
        Ok(())
    }

    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError> {
        let sgf: Option<Option<String>> = self
            .conn()
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
        let conn = self.conn();
        let games = {
            let mut stmt = conn
                .prepare(
                    "SELECT id, black, white, table_id, settings, nigiri_seed, started_at_ms
                     FROM games WHERE ended_at_ms IS NULL ORDER BY id",
                )
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
                    events: events_of(&conn, id)?,
                })
            })
            .collect()
    }

    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: &dyn Fn([Glicko; 2]) -> [Glicko; 2],
    ) -> Result<Option<[Glicko; 2]>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(backend)?;
        match tx.execute(
            "INSERT INTO rated_games (game_id) VALUES (?1)",
            params![game.0 as i64],
        ) {
            Ok(_) => {}
            Err(err) if is_constraint(&err) => return Ok(None),
            Err(err) => return Err(backend(err)),
        }
        let before = [
            glicko_of(&tx, players[0]).map_err(backend)?,
            glicko_of(&tx, players[1]).map_err(backend)?,
        ];
        let after = update(before);
        for (user, glicko) in players.iter().zip(after.iter()) {
            tx.execute(
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
            )
            .map_err(backend)?;
            tx.execute(
                "UPDATE users SET rating = ?2 WHERE id = ?1",
                params![user.0 as i64, glicko.rating.round() as i64],
            )
            .map_err(backend)?;
        }
        tx.commit().map_err(backend)?;
        Ok(Some(after))
    }

    fn games_of_user(&self, user: UserId, limit: usize) -> Result<Vec<GameListRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT g.id, b.username, w.username, g.settings, g.result, g.started_at_ms
                 FROM games g JOIN users b ON b.id = g.black JOIN users w ON w.id = g.white
                 WHERE g.black = ?1 OR g.white = ?1 ORDER BY g.id DESC LIMIT ?2",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64, limit as i64], |row| {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_passes_the_conformance_suite() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path()).unwrap();
        crate::store::conformance(&store);
    }

    #[test]
    fn data_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let user = {
            let store = SqliteStore::open(dir.path()).unwrap();
            store.create_user("carol", "h", 1).unwrap()
        };
        let store = SqliteStore::open(dir.path()).unwrap();
        assert_eq!(store.user_by_name("carol").unwrap().unwrap().id, user);
    }
}
