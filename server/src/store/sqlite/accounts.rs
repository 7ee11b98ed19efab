//! Accounts and their sessions in SQLite: `users` (with the caseless key and the skeleton that find
//! and refuse names, see `username`), `sessions` by token digest, and each player's last sighting.
//! Writes go on the writer's connection, outside the group commit; reads go to a reader.

use rusqlite::{params, Connection, OptionalExtension};
use tengen_protocol::UserId;

use super::{backend, is_constraint, SqliteStore};
use crate::store::{Accounts, Glicko, StoreError, UserRow};
use crate::username::{self, Username};

impl Accounts for SqliteStore {
    fn create_user(
        &self,
        username: &Username,
        password_hash: &str,
        now_ms: u64,
    ) -> Result<UserId, StoreError> {
        let conn = self.conn();
        // One statement, so no other write comes between the skeleton's check and the insert.
        let inserted = conn.execute(
            "INSERT INTO users (username, username_key, username_skeleton, password_hash,
                                created_at_ms)
             SELECT ?1, ?2, ?3, ?4, ?5
             WHERE NOT EXISTS (SELECT 1 FROM users WHERE username_skeleton = ?3)",
            params![
                username.as_str(),
                username.key(),
                username.skeleton(),
                password_hash,
                now_ms as i64
            ],
        );
        match inserted {
            Ok(1) => Ok(UserId(conn.last_insert_rowid() as u64)),
            Ok(_) => Err(lookalike_of(&conn, username)?),
            Err(err) if is_constraint(&err) => Err(StoreError::UsernameTaken),
            Err(err) => Err(backend(err)),
        }
    }

    fn set_starting_rating(&self, user: UserId, rating: f64) -> Result<(), StoreError> {
        let start = Glicko::declared(rating);
        let conn = self.conn();
        let inserted = conn
            .execute(
                "INSERT OR IGNORE INTO ratings (user_id, rating, deviation, volatility, games)
                 VALUES (?1, ?2, ?3, ?4, 0)",
                params![
                    user.0 as i64,
                    start.rating,
                    start.deviation,
                    start.volatility
                ],
            )
            .map_err(backend)?;
        if inserted == 1 {
            conn.execute(
                "UPDATE users SET rating = ?2 WHERE id = ?1",
                params![user.0 as i64, rating.round() as i64],
            )
            .map_err(backend)?;
        }
        Ok(())
    }

    fn mark_computer(&self, user: UserId) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE users SET computer = 1 WHERE id = ?1",
                params![user.0 as i64],
            )
            .map_err(backend)?;
        Ok(())
    }

    fn user_by_name(&self, username: &str) -> Result<Option<UserRow>, StoreError> {
        self.reader()
            .query_row(
                &format!("{USER_COLUMNS} WHERE u.username_key = ?1"),
                params![username::lookup_key(username)],
                user_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn user_by_id(&self, id: UserId) -> Result<Option<UserRow>, StoreError> {
        self.reader()
            .query_row(
                &format!("{USER_COLUMNS} WHERE u.id = ?1"),
                params![id.0 as i64],
                user_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn find_users(&self, prefix: &str, limit: usize) -> Result<Vec<UserRow>, StoreError> {
        let key = username::lookup_key(prefix);
        // The keys from the prefix itself to the prefix followed by the last character there is.
        let past = format!("{key}{}", char::MAX);
        let conn = self.reader();
        let mut stmt = conn
            .prepare(&format!(
                "{USER_COLUMNS} WHERE u.username_key >= ?1 AND u.username_key < ?2
                 ORDER BY u.username_key LIMIT ?3"
            ))
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![key, past, limit as i64], user_from_row)
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn set_last_seen(&self, user: UserId, at_ms: u64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO last_seen (user_id, at_ms) VALUES (?1, ?2)
                 ON CONFLICT (user_id) DO UPDATE SET at_ms = MAX(at_ms, ?2)",
                params![user.0 as i64, at_ms as i64],
            )
            .map_err(backend)?;
        Ok(())
    }

    fn last_seen(&self, user: UserId) -> Result<Option<u64>, StoreError> {
        self.reader()
            .query_row(
                "SELECT at_ms FROM last_seen WHERE user_id = ?1",
                params![user.0 as i64],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map(|at| at.map(|at| at as u64))
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
        self.reader()
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

    fn delete_user_sessions(&self, user: UserId) -> Result<usize, StoreError> {
        self.conn()
            .execute(
                "DELETE FROM sessions WHERE user_id = ?1",
                params![user.0 as i64],
            )
            .map_err(backend)
    }

    fn purge_sessions(&self, now_ms: u64) -> Result<usize, StoreError> {
        let conn = self.conn();
        conn.execute(
            "DELETE FROM throttles WHERE expires_at_ms <= ?1",
            params![now_ms as i64],
        )
        .map_err(backend)?;
        conn.execute(
            "DELETE FROM sessions WHERE expires_at_ms <= ?1",
            params![now_ms as i64],
        )
        .map_err(backend)
    }
}

fn user_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<UserRow> {
    Ok(UserRow {
        id: UserId(row.get::<_, i64>(0)? as u64),
        username: row.get(1)?,
        password_hash: row.get(2)?,
        rating: row.get(3)?,
        rated_games: row.get::<_, i64>(4)? as u32,
        computer: row.get(5)?,
        created_at_ms: row.get::<_, i64>(6)? as u64,
        deviation: row.get(7)?,
    })
}

/// Why `username`, whose skeleton an account already has, was refused: the same name
/// (`UsernameTaken`) or a lookalike, named.
fn lookalike_of(conn: &Connection, username: &Username) -> Result<StoreError, StoreError> {
    let holder: Option<(String, String)> = conn
        .query_row(
            "SELECT username, username_key FROM users WHERE username_skeleton = ?1
             ORDER BY username_key = ?2 DESC, id LIMIT 1",
            params![username.skeleton(), username.key()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(backend)?;
    Ok(match holder {
        Some((existing, key)) if key != username.key() => {
            StoreError::UsernameConfusable { existing }
        }
        _ => StoreError::UsernameTaken,
    })
}

/// The users' columns of [`user_from_row`], with the count of rated games and the deviation from
/// `ratings` (NULL for an account without a rating).
const USER_COLUMNS: &str =
    "SELECT u.id, u.username, u.password_hash, u.rating, COALESCE(r.games, 0), u.computer,
            u.created_at_ms, r.deviation
     FROM users u LEFT JOIN ratings r ON r.user_id = u.id";
