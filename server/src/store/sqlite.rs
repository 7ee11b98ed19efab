//! The embedded [`Store`] backend: one SQLite file in the data directory, in WAL mode with full fsync so
//! an acknowledged event survives a crash or power loss. One connection writes (SQLite serializes
//! writers anyway); reads go to a few read-only connections beside it, which WAL lets read the last
//! commit while the writer makes the next, so no read waits out an fsync and no write waits for a
//! queue of reads. Every call already runs on the blocking pool.
//!
//! Every write of play and money shares one group commit: game events (every move of every live
//! game), ledger batches (every bet, stake and settlement), and a game's start, result and rating.
//! An fsync costs up to milliseconds, and SQLite has one writer, so separate commits would queue
//! behind each other on the connection, each paying its own fsync (when many games end at once,
//! their results and ratings held every move up for hundreds of milliseconds). Each `append_event` or `apply_batches` call queues its write; the writer
//! writes every queued write in one transaction with one fsync, and each caller returns only once its
//! own write is durable. Within the group, a refused write (a duplicate
//! event, a batch without the points) fails alone; a failure of the database itself fails the group.
//!
//! The group commit is one writer thread that owns the write side: callers queue a write with their
//! own reply channel and block on it. The writer takes every write queued by then, commits them, and
//! answers each caller directly. (Callers that took turns on the connection's mutex to learn whether
//! someone else had committed their write convoyed: each woke only when the one before it let go,
//! which cost a move tens of milliseconds on a busy machine.)

mod relations;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use rusqlite::{params, Connection, ErrorCode as SqliteCode, OptionalExtension};
use tengen_protocol::{
    ChatLineId, EventId, GameId, RatingPoint, ReportId, Role, SizeRecord, TableId, UserId,
};
use tokio::sync::oneshot;

use super::moderation::{ChatKeeping, Moderation, NewChatLine, ReportRow, Sanction, SanctionKind};
use super::{
    record_by_size, Backoff, GameListRow, Glicko, LiveGameRow, NewGame, QueuedAnswer, RatedGameRow,
    RatedOutcome, RatingUpdate, Store, StoreError, UserRow,
};
use crate::book::{
    Account, AccountBalance, Applied, Batch, SettlementPart, SettlementRecord, Transfer,
    TransferKind, BATCH_TRANSFERS_MAX,
};
use crate::config::{
    STORE_CHECKPOINT_INTERVAL_MS, STORE_GROUP_COMMIT_WRITES_MAX, STORE_READERS,
    STORE_WRITE_QUEUE_LEN,
};
use crate::username::{self, Username};
use tengen_rules::Color;

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "tengen.sqlite3";

/// The tables as the first version of the store made them (schema version 0); [`MIGRATIONS`] take
/// them from there, so a new database and an old one go through the same steps.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    rating INTEGER NOT NULL DEFAULT 1500,
    computer INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_digest TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    expires_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
CREATE TABLE IF NOT EXISTS throttles (
    key TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
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
CREATE INDEX IF NOT EXISTS games_black ON games (black);
CREATE INDEX IF NOT EXISTS games_white ON games (white);
CREATE TABLE IF NOT EXISTS ratings (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rated_games (
    game_id INTEGER PRIMARY KEY REFERENCES games(id)
);

CREATE TABLE IF NOT EXISTS game_events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ledger_accounts (
    account TEXT PRIMARY KEY,
    balance INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ledger_transfers (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    debit TEXT NOT NULL,
    credit TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount > 0),
    kind TEXT NOT NULL,
    game_id INTEGER,
    side TEXT,
    at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ledger_transfers_game ON ledger_transfers (game_id);
CREATE INDEX IF NOT EXISTS ledger_transfers_debit ON ledger_transfers (debit);
CREATE INDEX IF NOT EXISTS ledger_transfers_credit ON ledger_transfers (credit);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    record TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ledger_settlements (
    game_id INTEGER NOT NULL,
    part TEXT NOT NULL,
    tax_bp INTEGER NOT NULL,
    summary TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, part)
) WITHOUT ROWID;
";

/// The steps from each schema version to the next, in order: the database's version (SQLite's
/// `PRAGMA user_version`, 0 for a database made before versions were kept) is how many of them it
/// has had. Each runs in one transaction with the version's bump, so a crash leaves the database at
/// one version or the next.
const MIGRATIONS: &[fn(&Connection) -> rusqlite::Result<()>] =
    &[keyed_usernames, profiles, moderation, relations::relations];

/// Open a database at any version and bring it to the newest, refusing one from a newer server.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(backend)?;
    let known = MIGRATIONS.len();
    let Ok(done) = usize::try_from(version) else {
        return Err(StoreError::Backend(format!(
            "the database has schema version {version}, which no tengen writes"
        )));
    };
    if done > known {
        return Err(StoreError::Backend(format!(
            "the database has schema version {done}, newer than this tengen's {known}: run a newer tengen"
        )));
    }
    for (from, step) in MIGRATIONS.iter().enumerate().skip(done) {
        let tx = conn.transaction().map_err(backend)?;
        step(&tx).map_err(backend)?;
        tx.pragma_update(None, "user_version", from + 1)
            .map_err(backend)?;
        tx.commit().map_err(backend)?;
        tracing::info!(version = from + 1, "store schema migrated");
    }
    Ok(())
}

/// Version 1: usernames in any script. `username_key` becomes the caseless key of `username` (the
/// ASCII lowercase it was is the same for the ASCII names of version 0) and `username_skeleton`
/// holds its confusable skeleton, which new names may not share. Accounts made before may share
/// one ("corn" and "com"): both are kept, and each still logs in by its own key.
fn keyed_usernames(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE users ADD COLUMN username_skeleton TEXT NOT NULL DEFAULT '';")?;
    let users: Vec<(i64, String)> = tx
        .prepare("SELECT id, username FROM users ORDER BY id")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, name) in users {
        let name = Username::stored(&name);
        let keyed = tx.execute(
            "UPDATE users SET username_key = ?2, username_skeleton = ?3 WHERE id = ?1",
            params![id, name.key(), name.skeleton()],
        );
        match keyed {
            Ok(_) => {}
            // Another account has this key already: this one keeps the key it had, and logs in
            // by exactly that.
            Err(err) if is_constraint(&err) => {
                tracing::warn!(%id, name = %name, "username key taken; the account keeps its old key");
                tx.execute(
                    "UPDATE users SET username_skeleton = ?2 WHERE id = ?1",
                    params![id, name.skeleton()],
                )?;
            }
            Err(err) => return Err(err),
        }
    }
    tx.execute_batch("CREATE INDEX users_skeleton ON users (username_skeleton);")?;
    let lookalikes: i64 = tx.query_row(
        "SELECT COUNT(*) FROM users u WHERE EXISTS (SELECT 1 FROM users v
         WHERE v.username_skeleton = u.username_skeleton AND v.id < u.id)",
        [],
        |row| row.get(0),
    )?;
    if lookalikes > 0 {
        tracing::info!(
            lookalikes,
            "accounts whose names look like an older account's are kept; new names cannot look like either"
        );
    }
    Ok(())
}

/// Version 2: what profiles show. `rating_history` keeps each player's rated games (board, result,
/// rating after it), written with each rating; games rated before enter it here with their board
/// and result but no rating, which was never kept per game. `last_seen` keeps when a user's last
/// connection ended.
fn profiles(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE rating_history (
            user_id INTEGER NOT NULL REFERENCES users(id),
            game_id INTEGER NOT NULL REFERENCES games(id),
            at_ms INTEGER NOT NULL,
            size INTEGER NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
            rating REAL,
            PRIMARY KEY (user_id, game_id)
        ) WITHOUT ROWID;
        CREATE TABLE last_seen (
            user_id INTEGER PRIMARY KEY REFERENCES users(id),
            at_ms INTEGER NOT NULL
        );",
    )?;
    let rated: Vec<(i64, i64, i64)> = tx
        .prepare(
            "SELECT g.id, g.black, g.white FROM rated_games r JOIN games g ON g.id = r.game_id
             ORDER BY g.id",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let count = rated.len();
    for (game, black, white) in rated {
        let players = [UserId(black as u64), UserId(white as u64)];
        remember_rated_game(tx, GameId(game as u64), players, [None, None])?;
    }
    tracing::info!(
        games = count,
        "rated games entered in the players' histories"
    );
    Ok(())
}

/// Version 3: moderation. Each account's role (absent: a user), the mutes and bans set on it, chat
/// lines kept for a while (by channel, for a report's context), reports, and the moderation log.
fn moderation(tx: &Connection) -> rusqlite::Result<()> {
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

/// SQLite: the writer's connection, the group-commit writer thread with its queue, and the readers.
#[derive(Debug)]
pub struct SqliteStore {
    /// The connection that writes: the writer thread's, and the few writes outside the group
    /// (accounts and sessions).
    conn: Arc<Mutex<Connection>>,
    readers: Readers,
    /// The writer's queue; `None` only while the store is being dropped.
    writer: Option<SyncSender<QueuedWrite>>,
    writer_thread: Option<std::thread::JoinHandle<()>>,
    /// The background checkpointer; `None` only while the store is being dropped.
    checkpointer: Option<Checkpointer>,
    /// Unit tests make the store answer as a Redis store does when it is out of reach or loses a
    /// reply (see [`Fault`]).
    #[cfg(test)]
    pub(crate) fault: std::sync::Arc<std::sync::Mutex<Fault>>,
}

/// A failure a unit test makes the store show, on event appends, event reads and ledger batches.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Fault {
    #[default]
    None,
    /// Out of reach: nothing is written, every such call answers `Unavailable`.
    Down,
    /// The write is applied, and its caller hears `OutcomeUnknown` (a reply lost on the way back).
    LoseReply,
}

/// The WAL size (in 4 KiB pages) at which the writer checkpoints by itself: a backstop, 10× SQLite's
/// default, for a checkpointer that fell behind. Normally the WAL never gets near it.
const WAL_AUTOCHECKPOINT_PAGES: i64 = 10_000;

/// A thread with its own connection that checkpoints the WAL into the database every
/// `STORE_CHECKPOINT_INTERVAL_MS`. Left to SQLite, the commit that fills the WAL to 1,000 pages
/// checkpoints it on the spot: copying pages and fsyncing the database file inside a commit that
/// every queued move and bet is waiting for. A passive checkpoint on another connection runs beside
/// the writer instead, and durability is unchanged (each commit's WAL fsync is what makes it durable).
#[derive(Debug)]
struct Checkpointer {
    stop: SyncSender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Checkpointer {
    fn start(path: &Path) -> Result<Checkpointer, StoreError> {
        let conn = Connection::open(path).map_err(backend)?;
        let (stop, stopped) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("tengen-store-checkpointer".into())
            .spawn(move || checkpoint_loop(&conn, &stopped))
            .map_err(|err| StoreError::Backend(format!("cannot start the checkpointer: {err}")))?;
        Ok(Checkpointer { stop, thread })
    }

    fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// Checkpoint passively (never waiting for the writer or readers) every interval until stopped. A
/// failed checkpoint is retried at the next interval; the WAL still holds every commit.
fn checkpoint_loop(conn: &Connection, stopped: &Receiver<()>) {
    let interval = std::time::Duration::from_millis(STORE_CHECKPOINT_INTERVAL_MS);
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
        if let Err(err) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(%err, "WAL checkpoint failed; retrying at the next interval");
        }
    }
}

/// A write and where its outcome goes.
type QueuedWrite = (PendingWrite, Answer);

/// Where a write's outcome goes: to a thread blocked on it (`submit`), or to a task awaiting it
/// (`append_event_queued`).
enum Answer {
    Blocking(SyncSender<WriteOutcome>),
    Queued(oneshot::Sender<WriteOutcome>),
}

impl Answer {
    /// A caller that stopped waiting loses nothing: its write is committed or not.
    fn send(self, outcome: WriteOutcome) {
        match self {
            Answer::Blocking(reply) => {
                let _ = reply.send(outcome);
            }
            Answer::Queued(reply) => {
                let _ = reply.send(outcome);
            }
        }
    }
}

/// A write waiting for the next group commit.
enum PendingWrite {
    /// One game event (`append_event`).
    Event {
        game: GameId,
        seq: u64,
        event_json: String,
    },
    /// Independent ledger batches (`apply_batches`), each all-or-nothing on its own.
    Batches(Vec<Batch>),
    /// A new game's row (`create_game`).
    NewGame(NewGame),
    /// A game's result and record (`finish_game`).
    Finish {
        game: GameId,
        result: String,
        sgf: String,
        now_ms: u64,
    },
    /// A finished game's ratings (`rate_game`), read, updated and written inside the group.
    Rate {
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    },
}

/// What a committed (or failed) write did, kept until its caller collects it.
#[derive(Debug)]
enum WriteOutcome {
    /// An event stored, or a game finished.
    Done(Result<(), StoreError>),
    Batches(Result<Vec<Result<Applied, StoreError>>, StoreError>),
    NewGame(Result<GameId, StoreError>),
    Rated(Result<Option<[Glicko; 2]>, StoreError>),
}

impl PendingWrite {
    /// A game's event `seq`, as the actor logs it.
    fn event(game: GameId, seq: u64, event_json: &str) -> PendingWrite {
        PendingWrite::Event {
            game,
            seq,
            event_json: event_json.to_string(),
        }
    }

    /// The outcome of this write when its whole group failed.
    fn failed(&self, err: StoreError) -> WriteOutcome {
        match self {
            PendingWrite::Event { .. } | PendingWrite::Finish { .. } => {
                WriteOutcome::Done(Err(err))
            }
            PendingWrite::Batches(_) => WriteOutcome::Batches(Err(err)),
            PendingWrite::NewGame(_) => WriteOutcome::NewGame(Err(err)),
            PendingWrite::Rate { .. } => WriteOutcome::Rated(Err(err)),
        }
    }
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
        let mut conn = Connection::open(data_dir.join(DB_FILE)).map_err(backend)?;
        // WAL lets readers run beside the writer; synchronous=FULL makes each commit durable before
        // it returns, which is what "stored before acknowledged" needs.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(backend)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(backend)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(backend)?;
        // Checkpoints run on their own thread (see `checkpoint_loop`); the writer checkpoints itself
        // only if the WAL outgrows this backstop.
        conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)
            .map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        migrate(&mut conn)?;
        let checkpointer = Checkpointer::start(&data_dir.join(DB_FILE))?;
        let readers = Readers::open(&data_dir.join(DB_FILE))?;
        let conn = Arc::new(Mutex::new(conn));
        let (writer, queue) = sync_channel(STORE_WRITE_QUEUE_LEN);
        let writer_conn = Arc::clone(&conn);
        let writer_thread = std::thread::Builder::new()
            .name("tengen-store-writer".into())
            .spawn(move || write_loop(&writer_conn, queue))
            .map_err(|err| StoreError::Backend(format!("cannot start the writer: {err}")))?;
        Ok(SqliteStore {
            conn,
            readers,
            writer: Some(writer),
            writer_thread: Some(writer_thread),
            checkpointer: Some(checkpointer),
            #[cfg(test)]
            fault: std::sync::Arc::default(),
        })
    }

    /// The fault a unit test set, if any.
    #[cfg(test)]
    fn fault(&self) -> Fault {
        *self.fault.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What a call of the kind that writes (`write`) or reads hears from the test's fault, after
    /// `apply` ran when the fault lets it.
    #[cfg(test)]
    fn faulty<T>(
        &self,
        write: bool,
        apply: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self.fault() {
            Fault::None => apply(),
            Fault::Down => Err(StoreError::Unavailable("test: store down".into())),
            Fault::LoseReply if write => {
                let _ = apply();
                Err(StoreError::OutcomeUnknown("test: reply lost".into()))
            }
            Fault::LoseReply => apply(),
        }
    }

    /// Append one event through the writer's group commit.
    fn append_event_now(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        match self.submit(PendingWrite::event(game, seq, event_json)) {
            WriteOutcome::Done(outcome) => outcome,
            other => unreachable!("an event's ticket holds an event's outcome: {other:?}"),
        }
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        lock(&self.conn)
    }

    /// A connection for reading.
    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.readers.get()
    }

    /// Queue `write` for the writer's next group commit and wait until it is durable (or refused).
    /// A full queue makes the caller wait for room.
    fn submit(&self, write: PendingWrite) -> WriteOutcome {
        let stopped = write.failed(StoreError::Backend("the store's writer has stopped".into()));
        let (reply, outcome) = sync_channel(1);
        let Some(writer) = &self.writer else {
            return stopped;
        };
        if writer.send((write, Answer::Blocking(reply))).is_err() {
            return stopped;
        }
        outcome.recv().unwrap_or(stopped)
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // Closing the queue ends the writer once it has answered every write already queued.
        drop(self.writer.take());
        if let Some(thread) = self.writer_thread.take() {
            let _ = thread.join();
        }
        if let Some(checkpointer) = self.checkpointer.take() {
            checkpointer.stop();
        }
    }
}

/// The read-only connections: a free one when there is one, else the next in turn.
#[derive(Debug)]
struct Readers {
    conns: Vec<Mutex<Connection>>,
    next: AtomicUsize,
}

impl Readers {
    fn open(path: &Path) -> Result<Readers, StoreError> {
        let conns = (0..STORE_READERS)
            .map(|_| {
                let conn = Connection::open(path).map_err(backend)?;
                // A read-only connection cannot write by mistake, outside the group commit.
                conn.pragma_update(None, "query_only", "ON")
                    .map_err(backend)?;
                Ok(Mutex::new(conn))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Readers {
            conns,
            next: AtomicUsize::new(0),
        })
    }

    fn get(&self) -> MutexGuard<'_, Connection> {
        for conn in &self.conns {
            match conn.try_lock() {
                Ok(free) => return free,
                Err(TryLockError::Poisoned(poison)) => return poison.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.conns.len();
        lock(&self.conns[turn])
    }
}

fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding the lock cannot leave SQLite inconsistent (it has its own journal), so a
    // poisoned lock is still usable.
    conn.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The writer thread: take a write, then every other already queued (up to
/// [`STORE_GROUP_COMMIT_WRITES_MAX`]), commit them together, and answer each caller. Ends when the
/// store is dropped.
fn write_loop(conn: &Mutex<Connection>, queue: Receiver<QueuedWrite>) {
    while let Ok(first) = queue.recv() {
        let mut group = vec![first];
        while group.len() < STORE_GROUP_COMMIT_WRITES_MAX {
            match queue.try_recv() {
                Ok(write) => group.push(write),
                Err(_) => break,
            }
        }
        let (writes, replies): (Vec<PendingWrite>, Vec<_>) = group.into_iter().unzip();
        let outcomes = commit_group(&mut lock(conn), &writes);
        for (answer, outcome) in replies.into_iter().zip(outcomes) {
            answer.send(outcome);
        }
    }
}

/// Every write's outcome: its own, or the group's failure.
fn commit_group(conn: &mut Connection, writes: &[PendingWrite]) -> Vec<WriteOutcome> {
    match write_group(conn, writes) {
        Ok(outcomes) => outcomes,
        Err(err) => writes
            .iter()
            .map(|write| write.failed(err.clone()))
            .collect(),
    }
}

/// Write a group in one IMMEDIATE transaction (the balance checks and the writes see one state). An
/// event whose insert is refused (its `seq` is taken) fails alone: SQLite undoes just that statement.
/// A batch refused (too few points, a reused id) rolls back alone to its savepoint. Any other
/// failure, or the commit's, is the outer error: the transaction is rolled back and nothing in the
/// group is acknowledged.
fn write_group(
    conn: &mut Connection,
    group: &[PendingWrite],
) -> Result<Vec<WriteOutcome>, StoreError> {
    let mut tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(backend)?;
    let mut outcomes = Vec::with_capacity(group.len());
    for write in group {
        let outcome = match write {
            PendingWrite::Event {
                game,
                seq,
                event_json,
            } => match insert_event(&tx, *game, *seq, event_json) {
                Ok(()) => WriteOutcome::Done(Ok(())),
                Err(err) if is_constraint(&err) => {
                    WriteOutcome::Done(Err(StoreError::DuplicateEvent {
                        game: *game,
                        seq: *seq,
                    }))
                }
                Err(err) => return Err(backend(err)),
            },
            PendingWrite::NewGame(game) => match insert_game(&tx, game) {
                Ok(id) => WriteOutcome::NewGame(Ok(id)),
                // A player who does not exist: this game alone is refused.
                Err(err) if is_constraint(&err) => WriteOutcome::NewGame(Err(backend(err))),
                Err(err) => return Err(backend(err)),
            },
            PendingWrite::Finish {
                game,
                result,
                sgf,
                now_ms,
            } => {
                let updated = tx
                    .prepare_cached(
                        "UPDATE games SET result = ?2, sgf = ?3, ended_at_ms = ?4 WHERE id = ?1",
                    )
                    .and_then(|mut stmt| {
                        stmt.execute(params![game.0 as i64, result, sgf, *now_ms as i64])
                    })
                    .map_err(backend)?;
                WriteOutcome::Done(match updated {
                    0 => Err(StoreError::NoSuchGame(*game)),
                    _ => Ok(()),
                })
            }
            PendingWrite::Rate {
                game,
                players,
                update,
            } => {
                let savepoint = tx.savepoint().map_err(backend)?;
                match rate_in(&savepoint, *game, *players, &**update) {
                    Ok(rated) => {
                        savepoint.commit().map_err(backend)?;
                        WriteOutcome::Rated(Ok(rated))
                    }
                    // A player who does not exist: dropping the savepoint undoes this rating
                    // alone, and the moves and bets in the group stand.
                    Err(err) if is_constraint(&err) => WriteOutcome::Rated(Err(backend(err))),
                    Err(err) => return Err(backend(err)),
                }
            }
            PendingWrite::Batches(batches) => {
                let mut results = Vec::with_capacity(batches.len());
                for batch in batches {
                    let savepoint = tx.savepoint().map_err(backend)?;
                    match apply_in(&savepoint, batch) {
                        Ok(applied) => {
                            savepoint.commit().map_err(backend)?;
                            results.push(Ok(applied));
                        }
                        // The database failed: SQLite may have rolled back more than the batch.
                        Err(err @ StoreError::Backend(_)) => return Err(err),
                        // Dropping the uncommitted savepoint rolls the refused batch back.
                        Err(refused) => results.push(Err(refused)),
                    }
                }
                WriteOutcome::Batches(Ok(results))
            }
        };
        outcomes.push(outcome);
    }
    tx.commit().map_err(backend)?;
    Ok(outcomes)
}

fn insert_game(conn: &Connection, game: &NewGame) -> rusqlite::Result<GameId> {
    conn.prepare_cached(
        "INSERT INTO games (black, white, table_id, settings, nigiri_seed, started_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        game.black.0 as i64,
        game.white.0 as i64,
        game.table.map(|t| t.0 as i64),
        game.settings_json,
        game.nigiri_seed.map(|s| s as i64),
        game.started_at_ms as i64
    ])?;
    Ok(GameId(conn.last_insert_rowid() as u64))
}

/// Rate `game` once: `None` when it was rated before. The caller's savepoint makes it one unit.
fn rate_in(
    conn: &Connection,
    game: GameId,
    players: [UserId; 2],
    update: &dyn Fn([Glicko; 2]) -> [Glicko; 2],
) -> rusqlite::Result<Option<[Glicko; 2]>> {
    match conn.execute(
        "INSERT INTO rated_games (game_id) VALUES (?1)",
        params![game.0 as i64],
    ) {
        Ok(_) => {}
        Err(err) if is_constraint(&err) => return Ok(None),
        Err(err) => return Err(err),
    }
    let before = [glicko_of(conn, players[0])?, glicko_of(conn, players[1])?];
    let after = update(before);
    for (user, glicko) in players.iter().zip(after.iter()) {
        conn.execute(
            "INSERT INTO ratings (user_id, rating, deviation, volatility, games)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (user_id) DO UPDATE SET rating = ?2, deviation = ?3,
                 volatility = ?4, games = ?5",
            params![
                user.0 as i64,
                glicko.rating,
                glicko.deviation,
                glicko.volatility,
                glicko.games as i64
            ],
        )?;
        conn.execute(
            "UPDATE users SET rating = ?2 WHERE id = ?1",
            params![user.0 as i64, glicko.rating.round() as i64],
        )?;
    }
    remember_rated_game(conn, game, players, after.map(|glicko| Some(glicko.rating)))?;
    Ok(Some(after))
}

/// Both players' history entries of a rated game, from its stored record (see
/// `RatedGameRow::of_game`).
fn remember_rated_game(
    conn: &Connection,
    game: GameId,
    players: [UserId; 2],
    ratings: [Option<f64>; 2],
) -> rusqlite::Result<()> {
    let (settings, result, at_ms): (String, Option<String>, i64) = conn.query_row(
        "SELECT settings, result, COALESCE(ended_at_ms, started_at_ms) FROM games WHERE id = ?1",
        params![game.0 as i64],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let record = (
        Some(settings.as_str()),
        result.as_deref(),
        at_ms.max(0) as u64,
    );
    for (user, entry) in RatedGameRow::of_game(game, players, ratings, record) {
        conn.execute(
            "INSERT OR IGNORE INTO rating_history (user_id, game_id, at_ms, size, outcome, rating)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                user.0 as i64,
                game.0 as i64,
                entry.at_ms as i64,
                entry.size,
                entry.outcome.as_str(),
                entry.rating
            ],
        )?;
    }
    Ok(())
}

fn insert_event(
    conn: &Connection,
    game: GameId,
    seq: u64,
    event_json: &str,
) -> rusqlite::Result<()> {
    conn.prepare_cached("INSERT INTO game_events (game_id, seq, event) VALUES (?1, ?2, ?3)")?
        .execute(params![game.0 as i64, seq as i64, event_json])
        .map(|_| ())
}

/// The games matching `condition` (a fixed SQL condition, never user input), oldest first, each with
/// its event log: live games to restore, or finished games still to settle.
fn games_with_events(conn: &Connection, condition: &str) -> Result<Vec<LiveGameRow>, StoreError> {
    let games = {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT id, black, white, table_id, settings, nigiri_seed, started_at_ms
                 FROM games WHERE {condition} ORDER BY id"
            ))
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
                events: events_of(conn, id)?,
            })
        })
        .collect()
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

/// [`Store::throttle_attempt`] in one transaction: every check before the first write.
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

fn glicko_of(conn: &Connection, user: UserId) -> rusqlite::Result<Glicko> {
    conn.query_row(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = ?1",
        params![user.0 as i64],
        |row| {
            Ok(Glicko {
                rating: row.get(0)?,
                deviation: row.get(1)?,
                volatility: row.get(2)?,
                games: row.get::<_, i64>(3)? as u32,
            })
        },
    )
    .optional()
    .map(Option::unwrap_or_default)
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
fn apply_in(tx: &Connection, batch: &Batch) -> Result<Applied, StoreError> {
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
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(backend)?;
        tx.execute(
            "INSERT INTO chat_lines (channel, at_ms, line) VALUES (?1, ?2, ?3)",
            params![line.channel_key, line.at_ms as i64, line.line_json],
        )
        .map_err(backend)?;
        let id = tx.last_insert_rowid();
        // The channel's oldest lines past its count, and every channel's lines past their time.
        tx.execute(
            "DELETE FROM chat_lines WHERE channel = ?1 AND id <= (SELECT id FROM chat_lines
             WHERE channel = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
            params![line.channel_key, keeping.per_channel_max as i64],
        )
        .map_err(backend)?;
        let expired = line.at_ms.saturating_sub(keeping.kept_ms);
        tx.execute(
            "DELETE FROM chat_lines WHERE at_ms < ?1",
            params![expired as i64],
        )
        .map_err(backend)?;
        tx.commit().map_err(backend)?;
        Ok(ChatLineId(id as u64))
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

impl Store for SqliteStore {
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

    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError> {
        self.reader()
            .query_row(
                "SELECT 1 FROM games WHERE (black = ?1 OR white = ?1) AND result IS NOT NULL
                 LIMIT 1",
                params![user.0 as i64],
                |_| Ok(()),
            )
            .optional()
            .map(|row| row.is_some())
            .map_err(backend)
    }

    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError> {
        match self.submit(PendingWrite::NewGame(game.clone())) {
            WriteOutcome::NewGame(outcome) => outcome,
            other => unreachable!("a new game's ticket holds its id: {other:?}"),
        }
    }

    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            let json = event_json.to_string();
            return self.faulty(true, || self.append_event_now(game, seq, &json));
        }
        self.append_event_now(game, seq, event_json)
    }

    fn append_event_queued(
        &self,
        game: GameId,
        seq: u64,
        event_json: &str,
    ) -> Option<QueuedAnswer> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            return None;
        }
        let writer = self.writer.as_ref()?;
        let (answer, outcome) = oneshot::channel();
        let write = PendingWrite::event(game, seq, event_json);
        // A full queue is left to the blocking call, which waits for room off the runtime.
        writer.try_send((write, Answer::Queued(answer))).ok()?;
        Some(Box::pin(async move {
            match outcome.await {
                Ok(WriteOutcome::Done(outcome)) => outcome,
                Ok(other) => Err(StoreError::Backend(format!(
                    "an event's write answered {other:?}"
                ))),
                Err(_) => Err(StoreError::Backend("the store's writer has stopped".into())),
            }
        }))
    }

    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
        #[cfg(test)]
        if self.fault() != Fault::None {
            return self.faulty(false, || events_of(&self.reader(), game));
        }
        events_of(&self.reader(), game)
    }

    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let write = PendingWrite::Finish {
            game,
            result: result.to_string(),
            sgf: sgf.to_string(),
            now_ms,
        };
        match self.submit(write) {
            WriteOutcome::Done(outcome) => outcome,
            other => unreachable!("a result's ticket holds its outcome: {other:?}"),
        }
    }

    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError> {
        let sgf: Option<Option<String>> = self
            .reader()
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
        games_with_events(&self.reader(), "ended_at_ms IS NULL")
    }

    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError> {
        let write = PendingWrite::Rate {
            game,
            players,
            update,
        };
        match self.submit(write) {
            WriteOutcome::Rated(outcome) => outcome,
            other => unreachable!("a rating's ticket holds its outcome: {other:?}"),
        }
    }

    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT game_id, at_ms, rating FROM rating_history
                 WHERE user_id = ?1 AND rating IS NOT NULL
                 ORDER BY at_ms DESC, game_id DESC LIMIT ?2",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64, limit as i64], |row| {
                Ok(RatingPoint {
                    game: GameId(row.get::<_, i64>(0)? as u64),
                    at_ms: row.get::<_, i64>(1)? as u64,
                    rating: row.get::<_, f64>(2)?.round() as i32,
                })
            })
            .map_err(backend)?;
        let mut points = rows.collect::<Result<Vec<_>, _>>().map_err(backend)?;
        points.reverse();
        Ok(points)
    }

    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT size, outcome, COUNT(*) FROM rating_history WHERE user_id = ?1
                 GROUP BY size, outcome",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map(params![user.0 as i64], |row| {
                Ok((
                    row.get::<_, u8>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .map_err(backend)?;
        let mut games = Vec::new();
        for row in rows {
            let (size, outcome, count) = row.map_err(backend)?;
            let outcome = RatedOutcome::parse(&outcome).ok_or_else(|| {
                StoreError::Backend(format!("a rated game's outcome {outcome:?}"))
            })?;
            games.push((size, outcome, count.max(0) as u64));
        }
        Ok(record_by_size(games))
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

    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT g.id, b.username, w.username, g.settings, g.result, g.started_at_ms
                 FROM games g JOIN users b ON b.id = g.black JOIN users w ON w.id = g.white
                 WHERE (g.black = ?1 OR g.white = ?1) AND g.id < ?3
                 ORDER BY g.id DESC LIMIT ?2",
            )
            .map_err(backend)?;
        let before = before.map_or(i64::MAX, |game| game.0.min(i64::MAX as u64) as i64);
        let rows = stmt
            .query_map(params![user.0 as i64, limit as i64, before], |row| {
                Ok(GameListRow {
                    id: GameId(row.get::<_, i64>(0)? as u64),
                    black: row.get(1)?,
                    white: row.get(2)?,
                    settings_json: row.get(3)?,
                    result: row.get(4)?,
                    started_at_ms: row.get::<_, i64>(5)? as u64,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A game between `black` and `white`, away from any table and without a clock.
    fn untimed_game(black: UserId, white: UserId) -> NewGame {
        NewGame {
            black,
            white,
            table: None,
            settings_json: "{}".into(),
            nigiri_seed: None,
            started_at_ms: 1,
        }
    }

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
        let black = store
            .create_user(&crate::username::name("black"), "h", 1)
            .unwrap();
        let white = store
            .create_user(&crate::username::name("white"), "h", 1)
            .unwrap();
        let games: Vec<GameId> = (0..GAMES)
            .map(|_| store.create_game(&untimed_game(black, white)).unwrap())
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
            assert_eq!(
                crate::store::event_seqs(store.as_ref(), game),
                (1..=EVENTS_PER_GAME).collect::<Vec<_>>()
            );
        }
    }

    /// One group holding events and ledger batches commits together; within it a duplicate event and
    /// a batch without the points fail alone, and everything else lands.
    #[test]
    fn events_and_batches_share_a_commit_and_refusals_fail_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path()).unwrap();
        let black = store
            .create_user(&crate::username::name("black"), "h", 1)
            .unwrap();
        let white = store
            .create_user(&crate::username::name("white"), "h", 1)
            .unwrap();
        let game = store.create_game(&untimed_game(black, white)).unwrap();
        store.append_event(game, 1, "first").unwrap();
        let transfer = |id: &str, from: Account, to: Account, amount: u64| Batch {
            transfers: vec![Transfer {
                id: id.into(),
                from,
                to,
                amount,
                kind: TransferKind::Grant,
                game: None,
                side: None,
                at_ms: 1,
            }],
            settlements: Vec::new(),
        };
        let grant = transfer("grant", Account::Mint, Account::User(black), 10);
        let overdraft = transfer("overdraft", Account::User(white), Account::House, 5);
        // The group the writer would take from four concurrent callers.
        let event = |seq: u64, text: &str| PendingWrite::event(game, seq, text);
        let group = [
            event(2, "second"),
            PendingWrite::Batches(vec![grant, overdraft]),
            event(1, "duplicate"),
            event(3, "third"),
        ];
        let outcomes = commit_group(&mut store.conn(), &group);
        assert!(matches!(outcomes[0], WriteOutcome::Done(Ok(()))));
        match &outcomes[1] {
            WriteOutcome::Batches(Ok(results)) => {
                assert_eq!(results[0], Ok(Applied::Applied));
                assert_eq!(
                    results[1],
                    Err(StoreError::InsufficientPoints {
                        account: Account::User(white)
                    })
                );
            }
            other => panic!("the batches' outcome: {other:?}"),
        }
        assert!(matches!(
            outcomes[2],
            WriteOutcome::Done(Err(StoreError::DuplicateEvent { seq: 1, .. }))
        ));
        assert!(matches!(outcomes[3], WriteOutcome::Done(Ok(()))));
        let events: Vec<String> = store
            .game_events(game)
            .unwrap()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        assert_eq!(events, ["first", "second", "third"]);
        assert_eq!(store.balance(Account::User(black)).unwrap(), 10);
        assert_eq!(store.balance(Account::User(white)).unwrap(), 0);
    }

    #[test]
    fn games_start_end_and_are_rated_in_the_group_and_refusals_fail_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path()).unwrap();
        let black = store
            .create_user(&crate::username::name("black"), "h", 1)
            .unwrap();
        let white = store
            .create_user(&crate::username::name("white"), "h", 1)
            .unwrap();
        let game = store.create_game(&untimed_game(black, white)).unwrap();
        let plus_ten: RatingUpdate = Arc::new(|[b, w]: [Glicko; 2]| {
            [
                Glicko {
                    rating: b.rating + 10.0,
                    ..b
                },
                w,
            ]
        });
        let rate = |game| PendingWrite::Rate {
            game,
            players: [black, white],
            update: Arc::clone(&plus_ten),
        };
        let finish = |game| PendingWrite::Finish {
            game,
            result: "B+R".into(),
            sgf: "(;RE[B+R])".into(),
            now_ms: 2,
        };
        // A game ends and is rated, twice; a rating, and a game, of a player who does not exist;
        // the end of a game that does not exist; and a new game, all in one commit.
        let another = store.create_game(&untimed_game(black, white)).unwrap();
        let stranger = PendingWrite::Rate {
            game: another,
            players: [black, UserId(999)],
            update: Arc::clone(&plus_ten),
        };
        let group = [
            finish(game),
            rate(game),
            rate(game),
            stranger,
            PendingWrite::NewGame(untimed_game(black, UserId(999))),
            finish(GameId(999)),
            PendingWrite::NewGame(untimed_game(white, black)),
        ];
        let outcomes = commit_group(&mut store.conn(), &group);
        assert!(matches!(outcomes[0], WriteOutcome::Done(Ok(()))));
        match &outcomes[1] {
            WriteOutcome::Rated(Ok(Some([b, _]))) => assert_eq!(b.rating, 1510.0),
            other => panic!("the first rating: {other:?}"),
        }
        assert!(matches!(outcomes[2], WriteOutcome::Rated(Ok(None))));
        assert!(matches!(outcomes[3], WriteOutcome::Rated(Err(_))));
        assert!(matches!(outcomes[4], WriteOutcome::NewGame(Err(_))));
        assert!(matches!(
            outcomes[5],
            WriteOutcome::Done(Err(StoreError::NoSuchGame(GameId(999))))
        ));
        let WriteOutcome::NewGame(Ok(next)) = outcomes[6] else {
            panic!("the new game: {:?}", outcomes[6]);
        };
        assert_eq!(next, GameId(another.0 + 1), "the refused game used no id");
        assert_eq!(store.game_sgf(game).unwrap().as_deref(), Some("(;RE[B+R])"));
        assert_eq!(store.user_by_id(black).unwrap().unwrap().rating, 1510);
        assert_eq!(store.user_by_id(white).unwrap().unwrap().rating, 1500);
    }

    #[test]
    fn data_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let user = {
            let store = SqliteStore::open(dir.path()).unwrap();
            store
                .create_user(&crate::username::name("carol"), "h", 1)
                .unwrap()
        };
        let store = SqliteStore::open(dir.path()).unwrap();
        assert_eq!(store.user_by_name("carol").unwrap().unwrap().id, user);
    }
}
