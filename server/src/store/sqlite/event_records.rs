//! EventRecords in SQLite: one `events` row per competition, its record as JSON.

use rusqlite::params;
use tengen_protocol::EventId;

use super::{backend, SqliteStore};
use crate::store::{EventRecords, StoreError};

impl EventRecords for SqliteStore {
    fn create_event(&self, record_json: &str, now_ms: u64) -> Result<EventId, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO events (record, created_at_ms) VALUES (?1, ?2)",
            params![record_json, now_ms as i64],
        )
        .map_err(backend)?;
        Ok(EventId(conn.last_insert_rowid() as u64))
    }

    fn save_event(&self, event: EventId, record_json: &str) -> Result<(), StoreError> {
        let changed = self
            .conn()
            .execute(
                "UPDATE events SET record = ?2 WHERE id = ?1",
                params![event.0 as i64, record_json],
            )
            .map_err(backend)?;
        if changed == 0 {
            return Err(StoreError::Backend(format!("no event {event} to save")));
        }
        Ok(())
    }

    fn events(&self) -> Result<Vec<(EventId, String)>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT id, record FROM events ORDER BY id")
            .map_err(backend)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((EventId(row.get::<_, i64>(0)? as u64), row.get(1)?))
            })
            .map_err(backend)?;
        rows.collect::<Result<_, _>>().map_err(backend)
    }
}
