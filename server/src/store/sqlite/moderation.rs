//! Moderation in SQLite: roles, sanctions, kept chat lines, reports and the moderation log
//! (schema version 3). Writes go on the writer's connection, as accounts' do; a chat line, the
//! one kept at a thousand a second, joins the writer's group commit.

use rusqlite::{params, Connection, OptionalExtension};
use tengen_protocol::{ChatLineId, GameId, ReportId, Role, UserId};

use super::{backend, PendingWrite, SqliteStore, WriteOutcome};
use crate::store::moderation::{
    ChatKeeping, Moderation, NewChatLine, ReportRow, Sanction, SanctionKind,
};
use crate::store::StoreError;

/// Keep `line` inside the writer's transaction: the line, then the channel's oldest lines past its
/// count and every channel's lines past their time (both found by index).
pub(super) fn keep_chat_line_in(
    tx: &Connection,
    line: &NewChatLine,
    keeping: ChatKeeping,
) -> rusqlite::Result<ChatLineId> {
    tx.prepare_cached("INSERT INTO chat_lines (channel, at_ms, line) VALUES (?1, ?2, ?3)")?
        .execute(params![line.channel_key, line.at_ms as i64, line.line_json])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached(
        "DELETE FROM chat_lines WHERE channel = ?1 AND id <= (SELECT id FROM chat_lines
         WHERE channel = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
    )?
    .execute(params![line.channel_key, keeping.per_channel_max as i64])?;
    let expired = line.at_ms.saturating_sub(keeping.kept_ms);
    tx.prepare_cached("DELETE FROM chat_lines WHERE at_ms < ?1")?
        .execute(params![expired as i64])?;
    Ok(ChatLineId(id as u64))
}

impl Moderation for SqliteStore {
    fn role(&self, user: UserId) -> Result<Role, StoreError> {
        let role: Option<String> = self
            .reader()
            .query_row(
                "SELECT role FROM roles WHERE user_id = ?1",
                params![user.0 as i64],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        match role {
            None => Ok(Role::User),
            Some(text) => Role::parse(&text)
                .ok_or_else(|| StoreError::Backend(format!("unknown role {text:?}"))),
        }
    }

    fn set_role(&self, user: UserId, role: Role) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO roles (user_id, role) VALUES (?1, ?2)
                 ON CONFLICT (user_id) DO UPDATE SET role = ?2",
                params![user.0 as i64, role.as_str()],
            )
            .map(|_| ())
            .map_err(backend)
    }

    fn sanction(&self, user: UserId, kind: SanctionKind) -> Result<Option<Sanction>, StoreError> {
        self.reader()
            .query_row(
                "SELECT until_ms, reason FROM sanctions WHERE user_id = ?1 AND kind = ?2",
                params![user.0 as i64, kind.as_str()],
                |row| {
                    Ok(Sanction {
                        until_ms: row.get::<_, Option<i64>>(0)?.map(|at| at as u64),
                        reason: row.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
    }

    fn set_sanction(
        &self,
        user: UserId,
        kind: SanctionKind,
        sanction: &Sanction,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO sanctions (user_id, kind, until_ms, reason) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (user_id, kind) DO UPDATE SET until_ms = ?3, reason = ?4",
                params![
                    user.0 as i64,
                    kind.as_str(),
                    sanction.until_ms.map(|at| at as i64),
                    sanction.reason
                ],
            )
            .map(|_| ())
            .map_err(backend)
    }

    fn keep_chat_line(
        &self,
        line: &NewChatLine,
        keeping: ChatKeeping,
    ) -> Result<ChatLineId, StoreError> {
        let write = PendingWrite::ChatLine {
            line: line.clone(),
            keeping,
        };
        match self.submit(write) {
            WriteOutcome::ChatLine(kept) => kept,
            other => unreachable!("a chat line's ticket holds a chat line's outcome: {other:?}"),
        }
    }

    fn forget_chat_line(&self, line: ChatLineId) -> Result<bool, StoreError> {
        self.conn()
            .execute(
                "DELETE FROM chat_lines WHERE id = ?1",
                params![line.0 as i64],
            )
            .map(|deleted| deleted > 0)
            .map_err(backend)
    }

    fn chat_context(
        &self,
        line: ChatLineId,
        around: usize,
    ) -> Result<Vec<(ChatLineId, String)>, StoreError> {
        let conn = self.reader();
        let channel: Option<String> = conn
            .query_row(
                "SELECT channel FROM chat_lines WHERE id = ?1",
                params![line.0 as i64],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        let Some(channel) = channel else {
            return Ok(Vec::new());
        };
        let lines = |sql: &str| -> Result<Vec<(ChatLineId, String)>, StoreError> {
            let mut stmt = conn.prepare(sql).map_err(backend)?;
            let rows = stmt
                .query_map(params![channel, line.0 as i64, around as i64], |row| {
                    Ok((ChatLineId(row.get::<_, i64>(0)? as u64), row.get(1)?))
                })
                .map_err(backend)?;
            rows.collect::<Result<_, _>>().map_err(backend)
        };
        let mut before = lines(
            "SELECT id, line FROM chat_lines WHERE channel = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3",
        )?;
        before.reverse();
        let after = lines(
            "SELECT id, line FROM chat_lines WHERE channel = ?1 AND id >= ?2 ORDER BY id LIMIT ?3 + 1",
        )?;
        before.extend(after);
        Ok(before)
    }

    fn file_report(&self, record_json: &str) -> Result<ReportId, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO reports (record) VALUES (?1)",
            params![record_json],
        )
        .map_err(backend)?;
        Ok(ReportId(conn.last_insert_rowid() as u64))
    }

    fn report(&self, id: ReportId) -> Result<Option<ReportRow>, StoreError> {
        self.reader()
            .query_row(
                "SELECT id, record, open FROM reports WHERE id = ?1",
                params![id.0 as i64],
                report_from_row,
            )
            .optional()
            .map_err(backend)
    }

    fn open_reports(&self, limit: usize) -> Result<Vec<ReportRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT id, record, open FROM reports WHERE open = 1 ORDER BY id LIMIT ?1")
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![limit as i64], report_from_row)
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }

    fn close_report(&self, id: ReportId) -> Result<bool, StoreError> {
        self.conn()
            .execute(
                "UPDATE reports SET open = 0 WHERE id = ?1 AND open = 1",
                params![id.0 as i64],
            )
            .map(|closed| closed > 0)
            .map_err(backend)
    }

    fn game_players(&self, game: GameId) -> Result<Option<[UserId; 2]>, StoreError> {
        self.reader()
            .query_row(
                "SELECT black, white FROM games WHERE id = ?1",
                params![game.0 as i64],
                |row| {
                    Ok([
                        UserId(row.get::<_, i64>(0)? as u64),
                        UserId(row.get::<_, i64>(1)? as u64),
                    ])
                },
            )
            .optional()
            .map_err(backend)
    }

    fn append_mod_log(&self, entry_json: &str) -> Result<u64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO moderation_log (entry) VALUES (?1)",
            params![entry_json],
        )
        .map_err(backend)?;
        Ok(conn.last_insert_rowid() as u64)
    }

    fn mod_log(&self, before: Option<u64>, limit: usize) -> Result<Vec<(u64, String)>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT id, entry FROM moderation_log WHERE id < ?1 ORDER BY id DESC LIMIT ?2")
            .map_err(backend)?;
        let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
        let rows = stmt
            .query_map(params![before, limit as i64], |row| {
                Ok((row.get::<_, i64>(0)? as u64, row.get(1)?))
            })
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }
}

fn report_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ReportRow> {
    Ok(ReportRow {
        id: ReportId(row.get::<_, i64>(0)? as u64),
        record_json: row.get(1)?,
        open: row.get::<_, i64>(2)? != 0,
    })
}

/// Version 3: moderation. Each account's role (absent: a user), the mutes and bans set on it, chat
/// lines kept for a while (by channel, for a report's context), reports, and the moderation log.
pub(super) fn moderation(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE roles (
            user_id INTEGER PRIMARY KEY REFERENCES users(id),
            role TEXT NOT NULL CHECK (role IN ('user', 'moderator', 'admin'))
        );
        CREATE TABLE sanctions (
            user_id INTEGER NOT NULL REFERENCES users(id),
            kind TEXT NOT NULL CHECK (kind IN ('mute', 'ban')),
            until_ms INTEGER,
            reason TEXT NOT NULL,
            PRIMARY KEY (user_id, kind)
        ) WITHOUT ROWID;
        CREATE TABLE chat_lines (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            channel TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            line TEXT NOT NULL
        );
        CREATE INDEX chat_lines_by_channel ON chat_lines (channel, id);
        CREATE INDEX chat_lines_by_time ON chat_lines (at_ms);
        CREATE TABLE reports (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            record TEXT NOT NULL,
            open INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX reports_open ON reports (open, id);
        CREATE TABLE moderation_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            entry TEXT NOT NULL
        );",
    )
}
