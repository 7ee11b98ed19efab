//! Connections from the store to Redis: synchronous connections (every store call already runs on
//! tokio's blocking pool), a few kept idle for reuse, and recovery from a Redis that restarted.
//!
//! A connection that fails at the socket level is dropped, and so is every idle one with it: when
//! Redis restarts, all of them are dead at once, and finding that out one failed call at a time
//! would fail as many calls as there were idle connections. A connection idle for a while is
//! pinged before use, so the first write after a quiet restart does not fail either. A read that
//! fails on a broken connection is tried once more on a fresh one; a write is not, because it may
//! have been applied before the connection broke, and only its caller knows whether a retry is safe.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use redis::{Client, Connection, RedisError};

use crate::store::StoreError;

/// Idle connections kept for reuse. Store calls run on the blocking pool, so a burst may open more
/// at once; beyond this many, connections are closed as they are returned rather than kept.
const IDLE_CONNECTIONS_MAX: usize = 16;

/// How long opening a connection may take: Redis answers on a LAN in well under a millisecond, so
/// two seconds means it is down or unreachable, and the call fails instead of hanging.
const CONNECT_TIMEOUT_MS: u64 = 2_000;

/// How long one command (or pipeline) may wait for its reply before the call fails and the
/// connection is dropped. Generous, since an fsync on a busy disk can take a while; a game actor
/// waiting on the store is stuck for at most this long.
const COMMAND_TIMEOUT_MS: u64 = 10_000;

/// A connection idle at least this long is pinged before use. Under load connections are reused
/// within microseconds and never pinged; after a quiet spell one round trip checks that Redis has
/// not restarted meanwhile.
const IDLE_PING_AFTER_MS: u64 = 1_000;

/// What a store operation failed on: Redis (or the connection), or the store's own rules.
#[derive(Debug)]
pub(super) enum Failure {
    Redis(RedisError),
    Store(StoreError),
}

impl From<RedisError> for Failure {
    fn from(err: RedisError) -> Failure {
        Failure::Redis(err)
    }
}

impl From<StoreError> for Failure {
    fn from(err: StoreError) -> Failure {
        Failure::Store(err)
    }
}

/// Whether an operation may be run again after its connection broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// Reads only (or idempotent repairs): safe to run twice.
    Read,
    /// Changes state: run at most once.
    Write,
}

struct IdleConnection {
    conn: Connection,
    since: Instant,
}

/// The client and its idle connections.
pub(super) struct Connections {
    client: Client,
    idle: Mutex<Vec<IdleConnection>>,
}

impl std::fmt::Debug for Connections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connections")
            .field("server", &self.client.get_connection_info().addr())
            .finish_non_exhaustive()
    }
}

/// The connection itself is unusable (closed, reset, timed out, refused), as opposed to a command
/// that Redis answered with an error.
fn is_broken(err: &RedisError) -> bool {
    err.is_io_error()
        || err.is_connection_dropped()
        || err.is_timeout()
        || err.is_connection_refusal()
        || err.is_unrecoverable_error()
}

pub(super) fn backend(err: RedisError) -> StoreError {
    StoreError::Backend(format!("redis: {err}"))
}

/// A connection that could not be opened, or a read that broke: nothing was changed.
fn unreachable(err: RedisError) -> StoreError {
    StoreError::Unavailable(format!("redis: {err}"))
}

/// A write whose connection broke after it was sent: it may have been applied.
fn unconfirmed(err: RedisError) -> StoreError {
    StoreError::OutcomeUnknown(format!("redis: {err}"))
}

impl Connections {
    pub(super) fn new(client: Client) -> Connections {
        Connections {
            client,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<IdleConnection>> {
        // The list holds whole connections only; a panic elsewhere cannot leave it half-changed.
        self.idle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// A fresh connection with the command timeouts set.
    pub(super) fn connect(&self) -> Result<Connection, RedisError> {
        let conn = self
            .client
            .get_connection_with_timeout(Duration::from_millis(CONNECT_TIMEOUT_MS))?;
        let timeout = Some(Duration::from_millis(COMMAND_TIMEOUT_MS));
        conn.set_read_timeout(timeout)?;
        conn.set_write_timeout(timeout)?;
        Ok(conn)
    }

    /// An idle connection known to work, or a new one.
    fn checkout(&self) -> Result<Connection, RedisError> {
        // Each turn takes one connection off the list, so this ends.
        loop {
            let Some(IdleConnection { mut conn, since }) = self.idle().pop() else {
                return self.connect();
            };
            if since.elapsed() < Duration::from_millis(IDLE_PING_AFTER_MS) {
                return Ok(conn);
            }
            match ::redis::cmd("PING").exec(&mut conn) {
                Ok(()) => return Ok(conn),
                // Redis went away since this connection was last used: so did its siblings.
                Err(_) => self.idle().clear(),
            }
        }
    }

    fn checkin(&self, conn: Connection) {
        let mut idle = self.idle();
        if idle.len() < IDLE_CONNECTIONS_MAX {
            idle.push(IdleConnection {
                conn,
                since: Instant::now(),
            });
        }
    }

    /// Run `op` on a connection. A broken connection is dropped (with every idle one); a read is
    /// then tried once more on a fresh connection. The error says what the caller may assume:
    /// no connection, or a read that broke, is `Unavailable` (nothing changed); a write that broke
    /// is `OutcomeUnknown`.
    pub(super) fn run<T>(
        &self,
        access: Access,
        mut op: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let attempts_max = match access {
            Access::Read => 2,
            Access::Write => 1,
        };
        let mut attempt = 1;
        loop {
            let mut conn = self.checkout().map_err(unreachable)?;
            match op(&mut conn) {
                Ok(value) => {
                    self.checkin(conn);
                    return Ok(value);
                }
                Err(Failure::Store(err)) => {
                    self.checkin(conn);
                    return Err(err);
                }
                Err(Failure::Redis(err)) if is_broken(&err) => {
                    self.idle().clear();
                    if attempt >= attempts_max {
                        return Err(match access {
                            Access::Read => unreachable(err),
                            Access::Write => unconfirmed(err),
                        });
                    }
                    tracing::info!(%err, "redis connection broke; retrying the read on a new one");
                    attempt += 1;
                }
                Err(Failure::Redis(err)) => {
                    self.checkin(conn);
                    return Err(backend(err));
                }
            }
        }
    }
}
