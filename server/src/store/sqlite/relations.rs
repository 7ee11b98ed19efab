//! Players' relations in SQLite: one row per relation held (`relations`, schema version 4), keyed by
//! who holds it, its kind and whom it is to, with an index the other way for followers and
//! blockers. Writes go on the writer's connection in a transaction of their own, as accounts do.

use rusqlite::{params, Connection, TransactionBehavior};
use tengen_protocol::UserId;

use super::{backend, SqliteStore};
use crate::store::{Added, RelationKind, Relations, StoreError};

/// Version 4: the relations table.
pub(super) fn relations(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE relations (
            user_id INTEGER NOT NULL REFERENCES users(id),
            kind TEXT NOT NULL CHECK (kind IN ('follow', 'block', 'mute')),
            other_id INTEGER NOT NULL REFERENCES users(id),
            at_ms INTEGER NOT NULL,
            PRIMARY KEY (user_id, kind, other_id)
        ) WITHOUT ROWID;
        CREATE INDEX relations_to ON relations (other_id, kind);",
    )
}

fn kind_of(text: &str) -> rusqlite::Result<RelationKind> {
    RelationKind::parse(text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown relation kind {text:?}").into(),
        )
    })
}

impl Relations for SqliteStore {
    fn relations_of(&self, user: UserId) -> Result<Vec<(RelationKind, UserId)>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT kind, other_id FROM relations WHERE user_id = ?1
                 ORDER BY kind, at_ms, other_id",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64], |row| {
                let kind: String = row.get(0)?;
                let other: i64 = row.get(1)?;
                Ok((kind_of(&kind)?, UserId(other as u64)))
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn relations_to(&self, user: UserId, kind: RelationKind) -> Result<Vec<UserId>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT user_id FROM relations WHERE other_id = ?1 AND kind = ?2")
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64, kind.as_str()], |row| {
                row.get::<_, i64>(0).map(|id| UserId(id as u64))
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn add_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
        max: usize,
        at_ms: u64,
    ) -> Result<Added, StoreError> {
        let mut conn = self.conn();
        // Immediate: the count and the insert see the same list, whoever else writes.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(backend)?;
        let (user_id, other_id) = (user.0 as i64, other.0 as i64);
        let (held, count): (i64, i64) = tx
            .query_row(
                "SELECT COALESCE(SUM(other_id = ?3), 0), COUNT(*) FROM relations
                 WHERE user_id = ?1 AND kind = ?2",
                params![user_id, kind.as_str(), other_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(backend)?;
        if held > 0 {
            return Ok(Added::Done);
        }
        if usize::try_from(count).unwrap_or(usize::MAX) >= max {
            return Ok(Added::Full);
        }
        tx.execute(
            "INSERT INTO relations (user_id, kind, other_id, at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![user_id, kind.as_str(), other_id, at_ms as i64],
        )
        .map_err(backend)?;
        if kind == RelationKind::Block {
            tx.execute(
                "DELETE FROM relations WHERE user_id = ?1 AND kind = 'follow' AND other_id = ?2",
                params![user_id, other_id],
            )
            .map_err(backend)?;
        }
        tx.commit().map_err(backend)?;
        Ok(Added::Done)
    }

    fn remove_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM relations WHERE user_id = ?1 AND kind = ?2 AND other_id = ?3",
                params![user.0 as i64, kind.as_str(), other.0 as i64],
            )
            .map_err(backend)?;
        Ok(())
    }
}
