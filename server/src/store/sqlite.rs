//! The embedded [`Store`] backend: one SQLite file in the data directory, in WAL mode with full fsync so
//! an acknowledged event survives a crash or power loss. One connection behind a mutex is enough: every
//! call already runs on the blocking pool, and SQLite serializes writers anyway.
//!
//! Game events, the hot path (every move of every live game), are group-committed: an fsync costs
//! milliseconds, so one commit per move would cap the whole node at a few hundred moves per second.
//! Each `append_event` queues its row; whoever next holds the connection writes every queued row in one
//! transaction with one fsync, and each caller returns only once its own row is durable.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, ErrorCode as SqliteCode, OptionalExtension};
use tengen_protocol::{GameId, TableId, UserId};

use super::{LiveGameRow, NewGame, Store, StoreError, UserRow};

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
CREATE TABLE IF NOT EXISTS game_events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// SQLite behind a mutex, with the queue of game events waiting for the next group commit.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
    appends: Mutex<AppendQueue>,
}

/// One game event waiting to be written.
#[derive(Debug)]
struct PendingAppend {
    ticket: u64,
    game: GameId,
    seq: u64,
    event_json: String,
}

/// Game events queued for the next group commit, and the outcomes of committed ones not yet collected.
/// Bounded by the callers: each queued row is a blocked `append_event` call (one per live game at most,
/// since a game actor awaits its append), and each outcome is removed by its caller right after.
#[derive(Debug, Default)]
struct AppendQueue {
    next_ticket: u64,
    pending: Vec<PendingAppend>,
    outcomes: HashMap<u64, Result<(), StoreError>>,
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
            appends: Mutex::new(AppendQueue::default()),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (it has its own journal),
        // so a poisoned lock is still usable.
        self.conn
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn appends(&self) -> std::sync::MutexGuard<'_, AppendQueue> {
        self.appends
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Write every queued event in one transaction (one fsync) and record each one's outcome. A batch
    /// that fails as a whole is retried row by row, so one bad row (a duplicate `seq`) fails only its
    /// own caller.
    fn commit_appends(&self, conn: &mut Connection) {
        let batch = std::mem::take(&mut self.appends().pending);
        if batch.is_empty() {
            return;
        }
        let together = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            for row in &batch {
                insert_event(&tx, row)?;
            }
            tx.commit()
        })();
        let outcomes: Vec<(u64, Result<(), StoreError>)> = match together {
            Ok(()) => batch.iter().map(|row| (row.ticket, Ok(()))).collect(),
            Err(_) => batch
                .iter()
                .map(|row| (row.ticket, event_outcome(insert_event(conn, row), row)))
                .collect(),
        };
        self.appends().outcomes.extend(outcomes);
    }
}

fn insert_event(conn: &Connection, row: &PendingAppend) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO game_events (game_id, seq, event) VALUES (?1, ?2, ?3)")?
        .execute(params![row.game.0 as i64, row.seq as i64, row.event_json])
        .map(|_| ())
}

fn event_outcome(result: rusqlite::Result<()>, row: &PendingAppend) -> Result<(), StoreError> {
    match result {
        Ok(()) => Ok(()),
        Err(err) if is_constraint(&err) => Err(StoreError::DuplicateEvent {
            game: row.game,
            seq: row.seq,
        }),
        Err(err) => Err(backend(err)),
    }
}

fn user_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: UserId(row.get::<_, i64>(0)? as u64),
        username: row.get(1)?,
        password_hash: row.get(2)?,
        rating: row.get(3)?,
    })
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
                "SELECT id, username, password_hash, rating FROM users WHERE username_key = ?1",
                params![username.to_ascii_lowercase()],
                user_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn user_by_id(&self, id: UserId) -> Result<Option<UserRow>, StoreError> {
        self.conn()
            .query_row(
                "SELECT id, username, password_hash, rating FROM users WHERE id = ?1",
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
        let ticket = {
            let mut queue = self.appends();
            let ticket = queue.next_ticket;
            queue.next_ticket += 1;
            queue.pending.push(PendingAppend {
                ticket,
                game,
                seq,
                event_json: event_json.to_string(),
            });
            ticket
        };
        // While we waited for the connection, its previous holder may have committed our row too.
        let mut conn = self.conn();
        if let Some(outcome) = self.appends().outcomes.remove(&ticket) {
            return outcome;
        }
        self.commit_appends(&mut conn);
        drop(conn);
        self.appends()
            .outcomes
            .remove(&ticket)
            .expect("a commit records the outcome of every row it took, ours included")
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

    /// Appends from many threads at once are group-committed: every row lands, in every game's order,
    /// and a duplicate `seq` fails only its own caller.
    #[test]
    fn concurrent_appends_all_land_and_a_duplicate_fails_alone() {
        const GAMES: u64 = 8;
        const EVENTS_PER_GAME: u64 = 20;
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(SqliteStore::open(dir.path()).unwrap());
        let black = store.create_user("black", "h", 1).unwrap();
        let white = store.create_user("white", "h", 1).unwrap();
        let games: Vec<GameId> = (0..GAMES)
            .map(|_| {
                let game = NewGame {
                    black,
                    white,
                    table: None,
                    settings_json: "{}".into(),
                    nigiri_seed: None,
                    started_at_ms: 1,
                };
                store.create_game(&game).unwrap()
            })
            .collect();
        let threads: Vec<_> = games
            .iter()
            .map(|&game| {
                let store = std::sync::Arc::clone(&store);
                std::thread::spawn(move || {
                    for seq in 1..=EVENTS_PER_GAME {
                        store.append_event(game, seq, &format!("e{seq}")).unwrap();
                    }
                    store.append_event(game, 1, "again")
                })
            })
            .collect();
        for thread in threads {
            let duplicate = thread.join().unwrap();
            assert!(matches!(
                duplicate,
                Err(StoreError::DuplicateEvent { seq: 1, .. })
            ));
        }
        for game in games {
            let seqs: Vec<u64> = store
                .game_events(game)
                .unwrap()
                .into_iter()
                .map(|(seq, _)| seq)
                .collect();
            assert_eq!(seqs, (1..=EVENTS_PER_GAME).collect::<Vec<_>>());
        }
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
