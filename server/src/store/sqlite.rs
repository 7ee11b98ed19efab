//! The embedded [`Store`](super::Store) backend: one SQLite file in the data directory, in WAL mode with full fsync so
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

mod accounts;
mod bookkeeping;
mod event_records;
mod game_log;
mod moderation;
mod ratings;
mod relations;
mod throttles;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use rusqlite::{params, Connection, ErrorCode as SqliteCode};
use tengen_protocol::{ChatLineId, GameId, UserId};
use tokio::sync::oneshot;

use self::bookkeeping::apply_in;
use self::game_log::{insert_event, insert_game};
use self::ratings::{rate_in, remember_rated_game};
use super::moderation::{ChatKeeping, NewChatLine};
use super::{Glicko, NewGame, RatingUpdate, StoreError};
use crate::book::{Applied, Batch};
use crate::config::{
    STORE_CHECKPOINT_INTERVAL_MS, STORE_GROUP_COMMIT_WRITES_MAX, STORE_READERS,
    STORE_WRITE_QUEUE_LEN,
};
use crate::username::Username;

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
const MIGRATIONS: &[fn(&Connection) -> rusqlite::Result<()>] = &[
    keyed_usernames,
    profiles,
    moderation::moderation,
    relations::relations,
];

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
    /// A chat line kept for reports (`keep_chat_line`): a busy hall says a thousand lines a second,
    /// which must share the group's one fsync rather than each pay its own.
    ChatLine {
        line: NewChatLine,
        keeping: ChatKeeping,
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
    ChatLine(Result<ChatLineId, StoreError>),
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
            PendingWrite::ChatLine { .. } => WriteOutcome::ChatLine(Err(err)),
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
            PendingWrite::ChatLine { line, keeping } => {
                let kept = moderation::keep_chat_line_in(&tx, line, *keeping).map_err(backend)?;
                WriteOutcome::ChatLine(Ok(kept))
            }
        };
        outcomes.push(outcome);
    }
    tx.commit().map_err(backend)?;
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::{Account, Transfer, TransferKind};
    use crate::store::{Accounts, Bookkeeping, GameLog};

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
