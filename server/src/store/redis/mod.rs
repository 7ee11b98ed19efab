//! The Redis [`Store`](super::Store) backend, for running Tengen on more than one node: the same behaviour as the
//! embedded SQLite store (one conformance suite decides), kept in Redis under keys whose hash tags
//! put whatever must change atomically in one slot (see `keys`), so it is ready for Redis Cluster.
//!
//! What must be atomic is one command, one Redis Function call (`functions.lua`, loaded at open with
//! FUNCTION LOAD REPLACE, so it is also in the append-only file) or one WATCH/MULTI on one slot:
//! appending a game event (refusing a seq already there), counting an attempt on several throttle
//! counters (all checked before any is counted), each ledger batch (every check before the
//! first write, then the transfers, the balances, the indexes, the settlement records and the audit
//! stream `{ledger}:audit`), and rating a game once. Steps that span slots (creating a user, then
//! claiming the name; recording a game, then indexing it) are ordered so that a crash between them
//! leaves only an unreachable leftover, and indexes of live and unsettled games are hints that
//! reads check against each game's own record and repair.
//!
//! Durability is Redis's: [`RedisStore::open`] refuses a server that is not configured to fsync
//! every write before replying and never to evict (see `durability`). Connections are recovered
//! after Redis restarts (see `connections`).

mod accounts;
mod bookkeeping;
mod connections;
mod durability;
mod event_records;
mod game_log;
pub(crate) mod keys;
mod ledger;
mod moderation;
mod ratings;
mod records;
mod relations;
mod schema;
#[doc(hidden)]
pub mod testing;
mod throttles;

use redis::{Client, Cmd, Connection, FromRedisValue, RedisError, RedisResult};

use self::connections::{Access, Connections, Failure};
use self::records::parse_number;
use super::{Fences, StoreError};
use crate::BoxError;

/// The Lua library of Redis Functions the store calls.
const FUNCTIONS: &str = include_str!("functions.lua");

/// The Redis store: a client and its pooled connections.
#[derive(Debug)]
pub struct RedisStore {
    conns: Connections,
    /// The leases this node holds on live games, checked by every event append.
    fences: Fences,
}

impl RedisStore {
    /// Connect to the Redis at `url` (`redis://[user:password@]host:port/[db]`), check that it keeps
    /// acknowledged writes (refusing it otherwise, unless `allow_unsafe`) and load the functions.
    pub fn open(url: &str, allow_unsafe: bool) -> Result<RedisStore, BoxError> {
        let client = Client::open(url)?;
        // The address only: the url may hold a password.
        let server = client.get_connection_info().addr().to_string();
        let conns = Connections::new(client);
        let mut conn = conns
            .connect()
            .map_err(|err| format!("cannot connect to redis at {server}: {err}"))?;
        durability::check(&mut conn, allow_unsafe)
            .map_err(|err| format!("redis at {server}: {err}"))?;
        load_functions(&mut conn)
            .map_err(|err| format!("cannot load the store's functions into {server}: {err}"))?;
        let store = RedisStore {
            conns,
            fences: Fences::default(),
        };
        // Every step is idempotent (see `schema`), so one may run again on a fresh connection.
        store
            .conns
            .run(Access::Read, schema::migrate)
            .map_err(|err| format!("cannot bring the store at {server} up to date: {err}"))?;
        Ok(store)
    }

    /// Check every event append against the lease `fences` holds for its game (scaled out, a node
    /// logs only the games it owns).
    pub fn with_fences(self, fences: Fences) -> RedisStore {
        RedisStore { fences, ..self }
    }

    fn read<T>(
        &self,
        op: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        self.conns.run(Access::Read, op)
    }

    fn write<T>(
        &self,
        op: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        self.conns.run(Access::Write, op)
    }
}

fn load_functions(conn: &mut Connection) -> RedisResult<()> {
    ::redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(FUNCTIONS)
        .exec(conn)
}

fn is_missing_function(err: &RedisError) -> bool {
    err.to_string().contains("Function not found")
}

/// `FCALL name keys...`, ready for arguments.
fn function(name: &str, keys: &[&str]) -> Cmd {
    let mut call = ::redis::cmd("FCALL");
    call.arg(name).arg(keys.len()).arg(keys);
    call
}

/// Run a function call, loading the library again if this Redis has lost it (restarted without
/// persistence, or FUNCTION FLUSH): a missing function ran nothing, so calling again is safe.
fn call_function<T: FromRedisValue>(conn: &mut Connection, call: &Cmd) -> RedisResult<T> {
    match call.query(conn) {
        Err(err) if is_missing_function(&err) => {
            load_functions(conn)?;
            call.query(conn)
        }
        other => other,
    }
}

/// The members of a sorted set of ids, in order.
fn ids_in(conn: &mut Connection, key: &str) -> Result<Vec<u64>, Failure> {
    let members: Vec<String> = ::redis::cmd("ZRANGE").arg(key).arg(0).arg(-1).query(conn)?;
    Ok(members
        .iter()
        .map(|member| parse_number("id", member))
        .collect::<Result<_, _>>()?)
}

/// The first `limit` members of a list (`LRANGE`) or of a sorted set from the top (`ZREVRANGE`).
fn first_members(
    conn: &mut Connection,
    range_command: &str,
    key: &str,
    limit: usize,
) -> RedisResult<Vec<String>> {
    // A range ending at -1 would mean "to the end", so no members is its own case.
    let Some(last) = limit.checked_sub(1) else {
        return Ok(Vec::new());
    };
    ::redis::cmd(range_command)
        .arg(key)
        .arg(0)
        .arg(isize::try_from(last).unwrap_or(isize::MAX))
        .query(conn)
}

#[cfg(test)]
mod tests;
