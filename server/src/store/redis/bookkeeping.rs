//! The ledger's book in Redis: every batch is one `tengen_apply_batch` function call (its encoding
//! is `ledger`'s), and the reads give back transfers, balances and settlement records by their
//! indexes.

use std::collections::HashMap;

use redis::{Connection, RedisResult};
use tengen_protocol::GameId;

use super::connections::{backend, Failure};
use super::game_log::games_with_events;
use super::records::{corrupt, live_game_row, parse_number};
use super::{
    call_function, first_members, ids_in, is_missing_function, keys, ledger, load_functions,
    RedisStore,
};
use crate::book::{Account, AccountBalance, Applied, Batch, SettlementRecord, Transfer};
use crate::store::{Bookkeeping, LiveGameRow, StoreError};

impl Bookkeeping for RedisStore {
    fn has_transfer(&self, id: &str) -> Result<bool, StoreError> {
        self.read(|conn| {
            Ok(::redis::cmd("HEXISTS")
                .arg(keys::LEDGER_TRANSFERS)
                .arg(id)
                .query(conn)?)
        })
    }

    fn apply_batch(&self, batch: &Batch) -> Result<Applied, StoreError> {
        self.write(|conn| {
            let reply: Vec<String> = call_function(conn, &ledger::apply_batch_call(batch))?;
            Ok(ledger::applied_from_reply(&reply)?)
        })
    }

    /// One round trip: the batches' function calls are pipelined. Each batch is atomic on its own
    /// (one function call), and a refused batch leaves the others applied; a malformed batch is
    /// refused on its own too. When the connection breaks (the outer error) some batches may have
    /// been applied: a retry finds them already applied, since transfer ids make it idempotent.
    fn apply_batches(
        &self,
        batches: &[Batch],
    ) -> Result<Vec<Result<Applied, StoreError>>, StoreError> {
        if batches.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let mut pipe = ::redis::pipe();
            pipe.ignore_errors();
            for batch in batches {
                pipe.add_command(ledger::apply_batch_call(batch));
            }
            let mut replies: Vec<RedisResult<Vec<String>>> = pipe.query(conn)?;
            if replies
                .iter()
                .all(|reply| reply.as_ref().is_err_and(is_missing_function))
            {
                // None ran: load the library and send them again.
                load_functions(conn)?;
                replies = pipe.query(conn)?;
            }
            Ok(replies
                .into_iter()
                .map(|reply| match reply {
                    Ok(reply) => ledger::applied_from_reply(&reply),
                    Err(err) => Err(backend(err)),
                })
                .collect())
        })
    }

    fn balance(&self, account: Account) -> Result<i64, StoreError> {
        self.read(|conn| {
            let balance: Option<String> = ::redis::cmd("HGET")
                .arg(keys::LEDGER_BALANCES)
                .arg(account.key())
                .query(conn)?;
            Ok(balance
                .map(|text| parse_number("balance", &text))
                .transpose()?
                .unwrap_or(0))
        })
    }

    fn game_transfers(&self, game: GameId) -> Result<Vec<Transfer>, StoreError> {
        self.read(|conn| {
            let ids: Vec<String> = ::redis::cmd("LRANGE")
                .arg(keys::ledger_game(game))
                .arg(0)
                .arg(-1)
                .query(conn)?;
            transfers_by_id(conn, &ids)
        })
    }

    fn account_transfers(
        &self,
        account: Account,
        limit: usize,
    ) -> Result<Vec<Transfer>, StoreError> {
        self.read(|conn| {
            let ids = first_members(conn, "LRANGE", &keys::ledger_account(account), limit)?;
            transfers_by_id(conn, &ids)
        })
    }

    fn settlements(&self, game: GameId) -> Result<Vec<SettlementRecord>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::ledger_settlements(game))
                .query(conn)?;
            let mut records = stored
                .iter()
                .map(|(part, json)| ledger::settlement_from_json(game, part, json))
                .collect::<Result<Vec<_>, _>>()?;
            records.sort_by_key(|record| record.part.as_str());
            Ok(records)
        })
    }

    fn account_balances(&self) -> Result<Vec<AccountBalance>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::LEDGER_BALANCES)
                .query(conn)?;
            let mut balances = stored
                .iter()
                .map(|(key, balance)| {
                    Ok(AccountBalance {
                        account: Account::from_key(key).ok_or_else(|| corrupt("account", key))?,
                        balance: parse_number("balance", balance)?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            // SQLite's order: by the account's key.
            balances.sort_by_key(|entry| entry.account.key());
            Ok(balances)
        })
    }

    fn granted_total(&self) -> Result<u64, StoreError> {
        self.read(|conn| {
            let total: Option<String> =
                ::redis::cmd("GET").arg(keys::LEDGER_GRANTED).query(conn)?;
            Ok(total
                .map(|text| parse_number("granted total", &text))
                .transpose()?
                .unwrap_or(0))
        })
    }

    fn settled_games(&self) -> Result<Vec<GameId>, StoreError> {
        self.read(|conn| {
            Ok(ids_in(conn, keys::LEDGER_SETTLED)?
                .into_iter()
                .map(GameId)
                .collect())
        })
    }

    fn unsettled_finished_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        self.read(|conn| {
            let ids = ids_in(conn, keys::UNSETTLED_GAMES)?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let settled: Vec<Option<f64>> = ::redis::cmd("ZMSCORE")
                .arg(keys::LEDGER_SETTLED)
                .arg(&ids)
                .query(conn)?;
            let (settled, unsettled): (Vec<_>, Vec<_>) = ids
                .iter()
                .zip(settled)
                .partition(|(_, score)| score.is_some());
            if !settled.is_empty() {
                let settled: Vec<u64> = settled.into_iter().map(|(&id, _)| id).collect();
                ::redis::cmd("ZREM")
                    .arg(keys::UNSETTLED_GAMES)
                    .arg(&settled)
                    .exec(conn)?;
            }
            let unsettled: Vec<u64> = unsettled.into_iter().map(|(&id, _)| id).collect();
            let mut rows = Vec::with_capacity(unsettled.len());
            for (id, fields, events) in games_with_events(conn, &unsettled)? {
                // Only games whose end is recorded: one being finished right now is not yet.
                match fields {
                    Some(fields) if fields.contains_key("ended_at_ms") => {
                        rows.push(live_game_row(id, &fields, events)?);
                    }
                    _ => {}
                }
            }
            Ok(rows)
        })
    }
}

/// The transfers stored under `ids`, in that order.
fn transfers_by_id(conn: &mut Connection, ids: &[String]) -> Result<Vec<Transfer>, Failure> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let stored: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::LEDGER_TRANSFERS)
        .arg(ids)
        .query(conn)?;
    ids.iter()
        .zip(stored)
        .map(|(id, json)| {
            let json = json.ok_or_else(|| corrupt("transfer index entry", id))?;
            Ok(ledger::transfer_from_json(id, &json)?)
        })
        .collect()
}
