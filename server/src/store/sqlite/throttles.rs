//! The throttles' counters in SQLite: one `throttles` row per counter, its count, last attempt and
//! expiry; a call counts on every counter of it in one transaction, every check before the first
//! write.

use rusqlite::{params, Connection, OptionalExtension};

use super::{backend, SqliteStore};
use crate::store::{Backoff, StoreError, ThrottleCounters};

impl ThrottleCounters for SqliteStore {
    fn throttle_attempt(
        &self,
        counters: &[(String, Backoff)],
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(backend)?;
        let wait = throttle_in(&tx, counters, now_ms).map_err(backend)?;
        tx.commit().map_err(backend)?;
        Ok(wait)
    }

    fn throttle_release(&self, release: &[String], clear: &[String]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(backend)?;
        for key in release {
            tx.execute(
                "UPDATE throttles SET count = count - 1 WHERE key = ?1 AND count > 0",
                params![key],
            )
            .map_err(backend)?;
        }
        for key in clear {
            tx.execute("DELETE FROM throttles WHERE key = ?1", params![key])
                .map_err(backend)?;
        }
        tx.commit().map_err(backend)
    }
}

/// A throttle counter's `(count, last_ms)` as of `now_ms` (expired counts as none).
fn throttle_state(tx: &Connection, key: &str, now_ms: u64) -> rusqlite::Result<(u32, u64)> {
    let row = tx
        .query_row(
            "SELECT count, last_ms FROM throttles WHERE key = ?1 AND expires_at_ms > ?2",
            params![key, now_ms as i64],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
        )
        .optional()?;
    Ok(row.map_or((0, 0), |(count, last)| {
        (u32::try_from(count).unwrap_or(u32::MAX), last as u64)
    }))
}

/// [`ThrottleCounters::throttle_attempt`] in one transaction: every check before the first write.
fn throttle_in(
    tx: &Connection,
    counters: &[(String, Backoff)],
    now_ms: u64,
) -> rusqlite::Result<Option<u64>> {
    let mut states = Vec::with_capacity(counters.len());
    let mut wait = 0;
    for (key, backoff) in counters {
        let (count, last_ms) = throttle_state(tx, key, now_ms)?;
        wait = wait.max(backoff.wait_ms(count, last_ms, now_ms));
        states.push((count, last_ms));
    }
    if wait > 0 {
        return Ok(Some(wait));
    }
    for ((key, backoff), (count, last_ms)) in counters.iter().zip(states) {
        // The latest of the stamps: a caller whose clock is behind never shortens a wait.
        let last_ms = last_ms.max(now_ms);
        tx.execute(
            "INSERT OR REPLACE INTO throttles (key, count, last_ms, expires_at_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![
                key,
                i64::from(count.saturating_add(1)),
                last_ms as i64,
                last_ms.saturating_add(backoff.forget_ms) as i64
            ],
        )?;
    }
    Ok(None)
}
