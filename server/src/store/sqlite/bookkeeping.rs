//! The ledger's book in SQLite: `ledger_transfers` (the id makes a transfer idempotent),
//! `ledger_accounts` (balances) and `ledger_settlements`. Every batch goes through the writer's
//! group commit, each in a savepoint of its own, so a refused batch rolls back alone.

use rusqlite::{params, Connection, OptionalExtension};
use tengen_protocol::GameId;
use tengen_rules::Color;

use super::game_log::games_with_events;
#[cfg(test)]
use super::Fault;
use super::{backend, PendingWrite, SqliteStore, WriteOutcome};
use crate::book::{
    Account, AccountBalance, Applied, Batch, SettlementPart, SettlementRecord, Transfer,
    TransferKind, BATCH_TRANSFERS_MAX,
};
use crate::store::{Bookkeeping, LiveGameRow, StoreError};

impl Bookkeeping for SqliteStore {
    fn has_transfer(&self, id: &str) -> Result<bool, StoreError> {
        self.reader()
            .query_row(
                "SELECT 1 FROM ledger_transfers WHERE id = ?1",
                params![id],
                |_| Ok(()),
            )
            .optional()
            .map(|row| row.is_some())
            .map_err(backend)
    }

    fn apply_batch(&self, batch: &Batch) -> Result<Applied, StoreError> {
        let mut results = self.apply_batches(std::slice::from_ref(batch))?;
        assert_eq!(results.len(), 1, "one result per batch");
        results.remove(0)
    }

    fn apply_batches(
        &self,
        batches: &[Batch],
    ) -> Result<Vec<Result<Applied, StoreError>>, StoreError> {
        for batch in batches {
            check_batch(batch)?;
        }
        let apply = || match self.submit(PendingWrite::Batches(batches.to_vec())) {
            WriteOutcome::Batches(outcome) => outcome,
            other => unreachable!("a batch's ticket holds a batch's outcome: {other:?}"),
        };
        #[cfg(test)]
        if self.fault() != Fault::None {
            return self.faulty(true, apply);
        }
        apply()
    }

    fn balance(&self, account: Account) -> Result<i64, StoreError> {
        let balance: Option<i64> = self
            .reader()
            .query_row(
                "SELECT balance FROM ledger_accounts WHERE account = ?1",
                params![account.key()],
                |row| row.get(0),
            )
            .optional()
            .map_err(backend)?;
        Ok(balance.unwrap_or(0))
    }

    fn game_transfers(&self, game: GameId) -> Result<Vec<Transfer>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE game_id = ?1 ORDER BY seq"
            ))
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![game.0 as i64], transfer_from_row)
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn account_transfers(
        &self,
        account: Account,
        limit: usize,
    ) -> Result<Vec<Transfer>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT {TRANSFER_COLUMNS} FROM ledger_transfers
                 WHERE debit = ?1 OR credit = ?1 ORDER BY seq DESC LIMIT ?2"
            ))
            .map_err(backend)?;
        let rows = stmt
            .query_map(
                params![account.key(), limit.min(i64::MAX as usize) as i64],
                transfer_from_row,
            )
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn settlements(&self, game: GameId) -> Result<Vec<SettlementRecord>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached(
                "SELECT part, tax_bp, summary, at_ms FROM ledger_settlements
                 WHERE game_id = ?1 ORDER BY part",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![game.0 as i64], |row| {
                let part: String = row.get(0)?;
                Ok(SettlementRecord {
                    game,
                    part: SettlementPart::parse(&part).ok_or_else(|| corrupt("part"))?,
                    tax_bp: row.get(1)?,
                    summary_json: row.get(2)?,
                    at_ms: row.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn account_balances(&self) -> Result<Vec<AccountBalance>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT account, balance FROM ledger_accounts ORDER BY account")
            .map_err(backend)?;
        let rows = stmt
            .query_map([], |row| {
                let key: String = row.get(0)?;
                Ok(AccountBalance {
                    account: Account::from_key(&key).ok_or_else(|| corrupt("account"))?,
                    balance: row.get(1)?,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn granted_total(&self) -> Result<u64, StoreError> {
        let total: i64 = self
            .reader()
            .query_row(
                "SELECT COALESCE(SUM(amount), 0) FROM ledger_transfers WHERE kind = 'grant'",
                [],
                |row| row.get(0),
            )
            .map_err(backend)?;
        Ok(total as u64)
    }

    fn settled_games(&self) -> Result<Vec<GameId>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare("SELECT DISTINCT game_id FROM ledger_settlements ORDER BY game_id")
            .map_err(backend)?;
        let rows = stmt
            .query_map([], |row| Ok(GameId(row.get::<_, i64>(0)? as u64)))
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn unsettled_finished_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        games_with_events(
            &self.reader(),
            "ended_at_ms IS NOT NULL AND id NOT IN (SELECT game_id FROM ledger_settlements)",
        )
    }
}

const TRANSFER_COLUMNS: &str = "id, debit, credit, amount, kind, game_id, side, at_ms";

fn side_key(side: Color) -> &'static str {
    match side {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// A column the store itself wrote holds junk: the file was edited or corrupted.
fn corrupt(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnType(0, what.to_string(), rusqlite::types::Type::Text)
}

fn transfer_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Transfer> {
    let account = |index: usize| -> rusqlite::Result<Account> {
        let key: String = row.get(index)?;
        Account::from_key(&key).ok_or_else(|| corrupt("account"))
    };
    let kind: String = row.get(4)?;
    let game: Option<i64> = row.get(5)?;
    let side: Option<String> = row.get(6)?;
    let side = match side.as_deref() {
        None => None,
        Some("black") => Some(Color::Black),
        Some("white") => Some(Color::White),
        Some(_) => return Err(corrupt("side")),
    };
    Ok(Transfer {
        id: row.get(0)?,
        from: account(1)?,
        to: account(2)?,
        amount: row.get::<_, i64>(3)? as u64,
        kind: TransferKind::parse(&kind).ok_or_else(|| corrupt("kind"))?,
        game: game.map(|g| GameId(g as u64)),
        side,
        at_ms: row.get::<_, i64>(7)? as u64,
    })
}

/// Check a batch's shape before touching the database: every amount fits SQLite's signed integers.
fn check_batch(batch: &Batch) -> Result<(), StoreError> {
    if batch.transfers.len() > BATCH_TRANSFERS_MAX {
        return Err(StoreError::BadBatch(format!(
            "{} transfers; at most {BATCH_TRANSFERS_MAX}",
            batch.transfers.len()
        )));
    }
    for transfer in &batch.transfers {
        if transfer.amount == 0 || transfer.amount > i64::MAX as u64 {
            return Err(StoreError::BadBatch(format!(
                "transfer {} moves {} points",
                transfer.id, transfer.amount
            )));
        }
        if transfer.from == transfer.to {
            return Err(StoreError::BadBatch(format!(
                "transfer {} goes from {} to itself",
                transfer.id, transfer.from
            )));
        }
    }
    Ok(())
}

/// Apply a batch's transfers and records inside an open transaction (or savepoint); the caller
/// commits on success and rolls back on error.
pub(super) fn apply_in(tx: &Connection, batch: &Batch) -> Result<Applied, StoreError> {
    let mut changed = false;
    for transfer in &batch.transfers {
        changed |= apply_transfer(tx, transfer)?;
    }
    for record in &batch.settlements {
        let inserted = tx
            .prepare_cached(
                "INSERT OR IGNORE INTO ledger_settlements (game_id, part, tax_bp, summary, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![
                    record.game.0 as i64,
                    record.part.as_str(),
                    record.tax_bp,
                    record.summary_json,
                    record.at_ms as i64
                ])
            })
            .map_err(backend)?;
        changed |= inserted > 0;
    }
    Ok(if changed {
        Applied::Applied
    } else {
        Applied::AlreadyApplied
    })
}

/// Apply one transfer inside the batch's transaction; false when its id was already in the book.
fn apply_transfer(tx: &Connection, t: &Transfer) -> Result<bool, StoreError> {
    let inserted = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO ledger_transfers
             (id, debit, credit, amount, kind, game_id, side, at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .and_then(|mut stmt| {
            stmt.execute(params![
                t.id,
                t.from.key(),
                t.to.key(),
                t.amount as i64,
                t.kind.as_str(),
                t.game.map(|g| g.0 as i64),
                t.side.map(side_key),
                t.at_ms as i64
            ])
        })
        .map_err(backend)?;
    if inserted == 0 {
        let stored = tx
            .prepare_cached(&format!(
                "SELECT {TRANSFER_COLUMNS} FROM ledger_transfers WHERE id = ?1"
            ))
            .and_then(|mut stmt| stmt.query_row(params![t.id], transfer_from_row))
            .map_err(backend)?;
        // The time is when it was first applied; everything else must match.
        let same = Transfer {
            at_ms: t.at_ms,
            ..stored
        } == *t;
        if !same {
            return Err(StoreError::TransferConflict { id: t.id.clone() });
        }
        return Ok(false);
    }
    let mut upsert = tx
        .prepare_cached(
            "INSERT INTO ledger_accounts (account, balance) VALUES (?1, ?2)
             ON CONFLICT (account) DO UPDATE SET balance = balance + ?2
             RETURNING balance",
        )
        .map_err(backend)?;
    let debited: i64 = upsert
        .query_row(params![t.from.key(), -(t.amount as i64)], |row| row.get(0))
        .map_err(backend)?;
    if debited < 0 && !t.from.may_go_negative() {
        return Err(StoreError::InsufficientPoints { account: t.from });
    }
    let credited: i64 = upsert
        .query_row(params![t.to.key(), t.amount as i64], |row| row.get(0))
        .map_err(backend)?;
    assert!(
        credited >= 0 || t.to.may_go_negative(),
        "a credit never leaves a balance below 0"
    );
    Ok(true)
}
