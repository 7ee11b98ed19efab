//! Durable state behind one trait, [`Store`]: accounts, session tokens (as digests), the login and
//! registration throttles' counters (so every node counts the same attempts; see [`Backoff`]), games with their
//! settings, each live game's event log, and finished games' results and SGF. The trait is synchronous
//! and backend-neutral (SQLite embedded, Redis when scaled out); [`StoreHandle`] is how async code calls it,
//! always on tokio's blocking pool so no store call ever blocks the async runtime. What the events mean
//! is the game actor's business; the store keeps bytes in order. The fortune-point ledger is stored
//! here too, batch-shaped: [`Store::apply_batch`] applies a [`Batch`] of transfers all-or-nothing and
//! idempotently (by transfer id), refusing any that would take an account other than the mint below
//! 0; what the transfers mean is `ledger`'s business.

pub mod moderation;
pub mod redis;
pub mod relations;
pub mod sqlite;

pub use relations::{Added, RelationKind, Relations};

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tengen_protocol::{ErrorCode, EventId, GameId, RatingPoint, SizeRecord, TableId, UserId};

use crate::book::{Account, AccountBalance, Applied, Batch, SettlementRecord, Transfer};
/// The throttles' policy is configuration; the store counts the attempts it governs.
pub use crate::config::Backoff;
use crate::username::Username;
use crate::Refusal;

/// An account as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct UserRow {
    pub id: UserId,
    pub username: String,
    /// The PHC string of the argon2id hash (algorithm, parameters and salt included).
    pub password_hash: String,
    pub rating: i32,
    /// Rated games played.
    pub rated_games: u32,
    /// How uncertain the rating still is (Glicko-2's deviation); `None` while the account has no
    /// rating at all (no rated game and no declared rank), whose rank shows "?".
    pub deviation: Option<f64>,
    /// A computer player, registered by `tengen bot`.
    pub computer: bool,
    /// When the account was made: its starting grant waits for a day or its first finished game.
    pub created_at_ms: u64,
}

/// A player's Glicko-2 state, as stored. New players start at the Glicko-2 defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: u32,
}

/// How uncertain a declared rank's starting rating is: well below a stranger's 350 (the player
/// told us something), still far above a settled rating's, so the first games move it a lot and the
/// rank shows as provisional until they have.
pub const DECLARED_RANK_DEVIATION: f64 = 250.0;

impl Glicko {
    /// The start of a player who declared their rank: its rating, with [`DECLARED_RANK_DEVIATION`].
    pub fn declared(rating: f64) -> Glicko {
        Glicko {
            rating,
            deviation: DECLARED_RANK_DEVIATION,
            ..Glicko::default()
        }
    }
}

impl Default for Glicko {
    fn default() -> Glicko {
        Glicko {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
            games: 0,
        }
    }
}

/// How a rated game went for one of its players, as their history keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatedOutcome {
    Win,
    Loss,
    Draw,
}

impl RatedOutcome {
    /// Both players' (Black, White) outcomes of a game whose SGF `RE` is `result`: "B+3.5" and
    /// "W+R" have a winner, "0" and "Draw" are draws; `None` for anything else (a void game).
    pub fn of_result(result: &str) -> Option<[RatedOutcome; 2]> {
        use RatedOutcome::{Draw, Loss, Win};
        if result.starts_with("B+") {
            Some([Win, Loss])
        } else if result.starts_with("W+") {
            Some([Loss, Win])
        } else if result == "0" || result.eq_ignore_ascii_case("draw") {
            Some([Draw, Draw])
        } else {
            None
        }
    }

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RatedOutcome::Win => "win",
            RatedOutcome::Loss => "loss",
            RatedOutcome::Draw => "draw",
        }
    }

    pub fn parse(text: &str) -> Option<RatedOutcome> {
        [RatedOutcome::Win, RatedOutcome::Loss, RatedOutcome::Draw]
            .into_iter()
            .find(|outcome| outcome.as_str() == text)
    }
}

/// What a player's history keeps of one rated game: when it ended, on what board, how it went, and
/// their rating after it (`None` for games rated before the history was kept).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatedGameRow {
    pub game: GameId,
    pub at_ms: u64,
    pub size: u8,
    pub outcome: RatedOutcome,
    pub rating: Option<f64>,
}

impl RatedGameRow {
    /// Both players' (Black, White) entries of rated game `game`, from its stored record: its
    /// settings (for the board), its SGF result and when it ended. None for a game without a
    /// decisive or drawn result (none is rated); a board the settings do not give counts as 0.
    pub fn of_game(
        game: GameId,
        players: [UserId; 2],
        ratings: [Option<f64>; 2],
        (settings_json, result, at_ms): (Option<&str>, Option<&str>, u64),
    ) -> Vec<(UserId, RatedGameRow)> {
        let Some(outcomes) = result.and_then(RatedOutcome::of_result) else {
            return Vec::new();
        };
        let size = settings_json
            .and_then(|json| serde_json::from_str::<tengen_protocol::GameSettings>(json).ok())
            .map_or(0, |settings| settings.size);
        let entry = |outcome, rating| RatedGameRow {
            game,
            at_ms,
            size,
            outcome,
            rating,
        };
        let [black, white] = players;
        vec![
            (black, entry(outcomes[0], ratings[0])),
            (white, entry(outcomes[1], ratings[1])),
        ]
    }
}

/// Wins, losses and draws by board size, from how many of a player's rated games went each way on
/// each board (`(size, outcome, count)`, a size and outcome in as many entries as a backend gives).
pub fn record_by_size(
    counts: impl IntoIterator<Item = (u8, RatedOutcome, u64)>,
) -> Vec<SizeRecord> {
    let mut by_size: std::collections::BTreeMap<u8, SizeRecord> = Default::default();
    for (size, outcome, games) in counts {
        let record = by_size.entry(size).or_insert(SizeRecord {
            size,
            wins: 0,
            losses: 0,
            draws: 0,
        });
        let count = match outcome {
            RatedOutcome::Win => &mut record.wins,
            RatedOutcome::Loss => &mut record.losses,
            RatedOutcome::Draw => &mut record.draws,
        };
        *count = count.saturating_add(u32::try_from(games).unwrap_or(u32::MAX));
    }
    by_size.into_values().collect()
}

/// How a game's result moves both players' (Black, White) ratings: shared, so a backend may apply
/// it on its own writer thread.
pub type RatingUpdate = std::sync::Arc<dyn Fn([Glicko; 2]) -> [Glicko; 2] + Send + Sync>;

/// What is recorded when a game starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGame {
    pub black: UserId,
    pub white: UserId,
    pub table: Option<TableId>,
    /// `tengen_protocol::GameSettings` as JSON.
    pub settings_json: String,
    pub nigiri_seed: Option<u64>,
    pub started_at_ms: u64,
}

/// A game that has started and not finished, with its whole event log, for replay after a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveGameRow {
    pub id: GameId,
    pub game: NewGame,
    /// `(seq, event JSON)` in `seq` order.
    pub events: Vec<(u64, String)>,
}

/// A finished game's outcome, from the last event of its stored log (`None` while it is not over).
pub fn logged_outcome(events: &[(u64, String)]) -> Option<tengen_protocol::GameOutcome> {
    let (_, last) = events.last()?;
    match serde_json::from_str::<tengen_protocol::GameEvent>(last).ok()? {
        tengen_protocol::GameEvent::Ended { outcome } => Some(outcome),
        _ => None,
    }
}

/// A store failure as a client hears it: `unavailable` when nothing changed because the store is out
/// of reach, `outcome_unknown` when a write broke off, `internal` for anything else. The one way a
/// store error reaches a client: its text (paths, backend messages) is never shown, only logged.
pub fn store_refusal(err: &StoreError) -> Refusal {
    match err {
        StoreError::Unavailable(_) => Refusal::new(
            ErrorCode::Unavailable,
            "the store is unreachable; nothing changed: try again",
        ),
        StoreError::OutcomeUnknown(_) => outcome_unknown(),
        _ => Refusal::new(
            ErrorCode::Internal,
            "the server could not do that; nothing changed",
        ),
    }
}

/// A write whose outcome the server cannot confirm.
pub fn outcome_unknown() -> Refusal {
    Refusal::new(
        ErrorCode::OutcomeUnknown,
        "the server could not confirm whether that was done; send it again with the same key",
    )
}

/// Expected store failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("that username is taken")]
    UsernameTaken,
    /// Another account's name looks like this one (their skeletons match); `existing` is its name.
    #[error("that username looks like {existing:?}'s")]
    UsernameConfusable { existing: String },
    /// An event with this `seq` is already stored: the caller's sequence is broken.
    #[error("game {game} already has event {seq}")]
    DuplicateEvent { game: GameId, seq: u64 },
    #[error("no game {0}")]
    NoSuchGame(GameId),
    /// Scaled out: another node owns the game now, so this one may no longer log its events.
    #[error("game {0} is owned by another node now")]
    NotOwner(GameId),
    /// A transfer would take `account` below 0; nothing in the batch was applied.
    #[error("{account} has too few points")]
    InsufficientPoints { account: Account },
    /// A transfer id already in the book names a different movement: the caller reused an id.
    #[error("transfer {id} is already in the book with other contents")]
    TransferConflict { id: String },
    /// A malformed batch (a zero amount, a transfer to itself, too many transfers): a caller bug.
    #[error("bad batch: {0}")]
    BadBatch(String),
    /// The backend failed (disk full, corrupt file, an error answer); nothing was changed.
    #[error("store backend failed: {0}")]
    Backend(String),
    /// The backend could not be reached (Redis down, a read on a broken connection): nothing was
    /// changed, and trying again later is safe.
    #[error("the store is unreachable: {0}")]
    Unavailable(String),
    /// A write was sent and the connection broke before its answer: it may or may not have been
    /// applied. Only reading the state back (or retrying an idempotent write) tells.
    #[error("the store did not confirm a write: {0}")]
    OutcomeUnknown(String),
}

impl StoreError {
    /// Whether the store certainly did nothing because it could not be reached.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// The same failure, said of a write: a read that fails after the write it follows was sent
    /// leaves that write's outcome unknown too.
    pub fn after_write(self) -> StoreError {
        match self {
            StoreError::Unavailable(err) | StoreError::Backend(err) => {
                StoreError::OutcomeUnknown(err)
            }
            other => other,
        }
    }
}

/// The durable state. Implementations are synchronous and may block; call them through [`StoreHandle`].
/// Some concerns have their small trait of their own ([`moderation::Moderation`], [`Relations`]),
/// required here, so that `Arc<dyn Store>` still offers everything.
pub trait Store: moderation::Moderation + Relations + Send + Sync + 'static {
    /// Create an account. A name is refused when an account has its key (`UsernameTaken`: the same
    /// name in any case or width) or its skeleton (`UsernameConfusable`: a lookalike); see
    /// `username`. Accounts made before these rules may share a skeleton; each keeps its name.
    fn create_user(
        &self,
        username: &Username,
        password_hash: &str,
        now_ms: u64,
    ) -> Result<UserId, StoreError>;
    /// A new account's starting rating (the rank its player stated): set only while the account has
    /// no rating of its own, so a rated player's rating is never replaced.
    fn set_starting_rating(&self, user: UserId, rating: f64) -> Result<(), StoreError>;
    /// Mark an account as a computer player (set once, at registration).
    fn mark_computer(&self, user: UserId) -> Result<(), StoreError>;
    /// Find an account by its name in any case or width (by `username::lookup_key`).
    fn user_by_name(&self, username: &str) -> Result<Option<UserRow>, StoreError>;
    fn user_by_id(&self, id: UserId) -> Result<Option<UserRow>, StoreError>;
    /// Remember a session by the digest of its token.
    fn create_session(
        &self,
        token_digest: &str,
        user: UserId,
        expires_at_ms: u64,
    ) -> Result<(), StoreError>;
    /// The user of an unexpired session, and when it expires.
    fn session_user(
        &self,
        token_digest: &str,
        now_ms: u64,
    ) -> Result<Option<(UserId, u64)>, StoreError>;
    fn delete_session(&self, token_digest: &str) -> Result<(), StoreError>;
    /// Forget every session of `user` ("log out everywhere"); returns how many there were.
    fn delete_user_sessions(&self, user: UserId) -> Result<usize, StoreError>;
    /// Forget sessions (and throttle counters) expired by `now_ms`; returns how many sessions.
    fn purge_sessions(&self, now_ms: u64) -> Result<usize, StoreError>;
    /// Count one attempt on every counter of `counters` at once, if each of them lets one through at
    /// `now_ms` (see [`Backoff`]); otherwise count none and return how long the caller must still
    /// wait (the longest wait). Shared by every node and kept across restarts; each counter expires
    /// `forget_ms` after its last counted attempt.
    fn throttle_attempt(
        &self,
        counters: &[(String, Backoff)],
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError>;
    /// Take one counted attempt back from each of `release` (it succeeded) and forget `clear`.
    fn throttle_release(&self, release: &[String], clear: &[String]) -> Result<(), StoreError>;
    /// Whether a ledger transfer with this id is in the book.
    fn has_transfer(&self, id: &str) -> Result<bool, StoreError>;
    /// Whether `user` played a game that finished (on Redis, among their
    /// [`FINISHED_GAME_LOOKBACK`](crate::config::FINISHED_GAME_LOOKBACK) newest games).
    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError>;
    /// Record a new game and assign its id.
    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError>;
    /// Append one event to a live game's log, durably, before anyone hears of it.
    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError>;
    /// `append_event` with no thread waiting on it: the backend queues the write and the future
    /// answers once it is durable. `None` when the backend cannot take it so (it has no writer queue,
    /// or the queue is full); the caller then makes the blocking call.
    fn append_event_queued(
        &self,
        _game: GameId,
        _seq: u64,
        _event_json: &str,
    ) -> Option<QueuedAnswer> {
        None
    }
    /// A game's event log in `seq` order.
    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError>;
    /// Mark a game finished with its result (SGF `RE` value) and full SGF record.
    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError>;
    /// The SGF record of a finished game.
    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError>;
    /// Every game started and not finished, with its events.
    fn live_games(&self) -> Result<Vec<LiveGameRow>, StoreError>;

    /// Apply a batch of transfers and settlement records in one durable transaction: all or nothing.
    /// Transfers whose id is already in the book and records already present are skipped, so a retry
    /// is harmless; a transfer that would take any account but the mint below 0 refuses the batch.
    fn apply_batch(&self, batch: &Batch) -> Result<Applied, StoreError>;
    /// Group commit: apply several independent batches with one durable commit. Each batch is still
    /// all-or-nothing on its own (one refused batch leaves the others applied); the outer error means
    /// the commit itself failed and none was applied.
    fn apply_batches(
        &self,
        batches: &[Batch],
    ) -> Result<Vec<Result<Applied, StoreError>>, StoreError>;
    /// An account's balance (0 for an account never used).
    fn balance(&self, account: Account) -> Result<i64, StoreError>;
    /// Every transfer of a game (bets, stakes, settlement), oldest first.
    fn game_transfers(&self, game: GameId) -> Result<Vec<Transfer>, StoreError>;
    /// The transfers into or out of an account, newest first, at most `limit`.
    fn account_transfers(
        &self,
        account: Account,
        limit: usize,
    ) -> Result<Vec<Transfer>, StoreError>;
    /// A game's settlement records (none until it is settled).
    fn settlements(&self, game: GameId) -> Result<Vec<SettlementRecord>, StoreError>;
    /// Every account with its balance, for the audit.
    fn account_balances(&self) -> Result<Vec<AccountBalance>, StoreError>;
    /// The sum of every grant transfer ever applied.
    fn granted_total(&self) -> Result<u64, StoreError>;
    /// Every game with at least one settlement record.
    fn settled_games(&self) -> Result<Vec<GameId>, StoreError>;
    /// Finished games (result stored) that have no settlement record: a crash came between the end
    /// and the payout. With each, its event log, whose last event holds the result.
    fn unsettled_finished_games(&self) -> Result<Vec<LiveGameRow>, StoreError>;
    /// Rate a finished game once: in one transaction, read both players' (Black, White) ratings,
    /// apply `update`, and store the result. `Ok(None)` when the game was rated before (a restart
    /// finishing it again), so a game never moves ratings twice.
    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError>;
    /// A player's rating after each of their last `limit` rated games, oldest first; games rated
    /// before the history was kept are left out.
    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError>;
    /// A player's rated wins, losses and draws by board size, smallest board first.
    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError>;
    /// Accounts whose name starts with `prefix` (compared by caseless key, as logging in does), in the
    /// order of their keys, at most `limit`.
    fn find_users(&self, prefix: &str, limit: usize) -> Result<Vec<UserRow>, StoreError>;
    /// When the user's last connection ended (Unix ms), set when it does.
    fn set_last_seen(&self, user: UserId, at_ms: u64) -> Result<(), StoreError>;
    fn last_seen(&self, user: UserId) -> Result<Option<u64>, StoreError>;
    /// A user's games, newest first: at most `limit`, only those before game `before` when given
    /// (the next page of a list).
    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError>;
    /// Record a new competition (its record as JSON, see `hall::events`) and assign its id.
    fn create_event(&self, record_json: &str, now_ms: u64) -> Result<EventId, StoreError>;
    /// Replace a competition's record, durably, before anyone hears of the change.
    fn save_event(&self, event: EventId, record_json: &str) -> Result<(), StoreError>;
    /// Every competition's record, oldest first.
    fn events(&self) -> Result<Vec<(EventId, String)>, StoreError>;
}

/// One game in a player's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameListRow {
    pub id: GameId,
    pub black: String,
    pub white: String,
    /// `tengen_protocol::GameSettings` as JSON.
    pub settings_json: String,
    /// SGF `RE`, once finished.
    pub result: Option<String>,
    pub started_at_ms: u64,
}

/// The leases this node holds on live games, by game: the token each event append of that game must
/// present (scaled out on Redis, where a node that lost a game to another may no longer log it). The
/// cluster sets and clears them; the Redis store reads them. Bounded by this node's live games.
#[derive(Debug, Clone, Default)]
pub struct Fences {
    tokens: Arc<Mutex<HashMap<GameId, String>>>,
}

impl Fences {
    fn tokens(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, String>> {
        self.tokens.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set(&self, game: GameId, token: String) {
        self.tokens().insert(game, token);
    }

    pub fn clear(&self, game: GameId) {
        self.tokens().remove(&game);
    }

    pub fn get(&self, game: GameId) -> Option<String> {
        self.tokens().get(&game).cloned()
    }
}

/// A write a backend queued (`Store::append_event_queued`): answers once it is durable.
pub type QueuedAnswer = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

/// The async face of a [`Store`]: each call runs on the blocking pool.
#[derive(Clone)]
pub struct StoreHandle {
    store: Arc<dyn Store>,
    /// Whether writes may go through the backend's queue (`Store::append_event_queued`).
    queued_writes: bool,
}

impl std::fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreHandle")
    }
}

impl StoreHandle {
    pub fn new(store: Arc<dyn Store>) -> StoreHandle {
        StoreHandle {
            store,
            queued_writes: true,
        }
    }

    /// Every call on the blocking pool, for tests on tokio's paused clock: it jumps ahead whenever
    /// every task waits on something outside the runtime (the writer thread's answer to a queued
    /// write), but not while a blocking task runs, so a queued write would let deadlines fire early.
    #[cfg(test)]
    pub fn for_paused_time(store: Arc<dyn Store>) -> StoreHandle {
        StoreHandle {
            store,
            queued_writes: false,
        }
    }

    /// Append one event to a live game's log, durably: through the backend's writer queue when it
    /// takes it (no pool thread blocks on the commit, so a move costs the writer's wake-up and the
    /// answer's, where the blocking pool added two more: a profile in PERFORMANCE.md), else on the pool.
    pub async fn append_event(
        &self,
        game: GameId,
        seq: u64,
        event_json: String,
    ) -> Result<(), StoreError> {
        if self.queued_writes {
            if let Some(answer) = self.store.append_event_queued(game, seq, &event_json) {
                return answer.await;
            }
        }
        self.call(move |store| store.append_event(game, seq, &event_json))
            .await
    }

    /// Run `op` against the store on the blocking pool and await its result.
    pub async fn call<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || op(store.as_ref()))
            .await
            .map_err(|err| StoreError::Backend(format!("store task failed: {err}")))?
    }
}

/// The seqs of a game's stored events, in the order the store returns them.
#[cfg(test)]
pub(crate) fn event_seqs(store: &dyn Store, game: GameId) -> Vec<u64> {
    let events = store.game_events(game).unwrap();
    events.into_iter().map(|(seq, _)| seq).collect()
}

/// One behaviour every backend must show; each backend's tests run it.
#[cfg(test)]
pub(crate) fn conformance(store: &dyn Store) {
    use crate::username::name;
    // Accounts: unique without regard to case or width, found by any spelling; a lookalike name is
    // refused, naming the account it passes for.
    let alice = store.create_user(&name("Alice"), "hash-a", 1).unwrap();
    assert_eq!(
        store.create_user(&name("alice"), "hash-b", 2),
        Err(StoreError::UsernameTaken)
    );
    assert_eq!(
        store.create_user(&Username::stored("аlice"), "hash-b", 2),
        Err(StoreError::UsernameConfusable {
            existing: "Alice".into()
        })
    );
    assert_eq!(store.user_by_name("аlice").unwrap(), None);
    let found = store.user_by_name("ALICE").unwrap().unwrap();
    assert_eq!(store.user_by_name("ａｌｉｃｅ").unwrap().unwrap().id, alice);
    assert_eq!(found.id, alice);
    assert_eq!(found.username, "Alice");
    assert_eq!(found.password_hash, "hash-a");
    assert_eq!(found.rating, 1500);
    assert_eq!(store.user_by_id(alice).unwrap().unwrap(), found);
    assert_eq!(store.user_by_name("nobody").unwrap(), None);
    let bob = store.create_user(&name("bob"), "hash-b", 3).unwrap();
    let master = store.create_user(&name("棋圣"), "hash-q", 3).unwrap();
    assert_eq!(store.user_by_name("棋圣").unwrap().unwrap().id, master);
    assert_eq!(
        store.create_user(&name("b0b"), "hash-b", 3),
        Err(StoreError::UsernameConfusable {
            existing: "bob".into()
        })
    );
    assert_ne!(alice, bob);
    // A computer player is marked once, and only that account.
    assert!(!found.computer);
    store.mark_computer(bob).unwrap();
    // A stated rank's starting rating, set once and never over a rating of the account's own.
    store.set_starting_rating(bob, 1950.0).unwrap();
    assert_eq!(store.user_by_id(bob).unwrap().unwrap().rating, 1950);
    store.set_starting_rating(bob, 2400.0).unwrap();
    assert_eq!(store.user_by_id(bob).unwrap().unwrap().rating, 1950);
    assert_eq!(store.user_by_id(bob).unwrap().unwrap().rated_games, 0);
    assert!(store.user_by_name("bob").unwrap().unwrap().computer);
    assert!(!store.user_by_id(alice).unwrap().unwrap().computer);

    // Sessions expire and can be deleted.
    store.create_session("digest-1", alice, 100).unwrap();
    assert_eq!(
        store.session_user("digest-1", 99).unwrap(),
        Some((alice, 100))
    );
    assert_eq!(store.session_user("digest-1", 100).unwrap(), None);
    assert_eq!(store.session_user("digest-2", 0).unwrap(), None);
    store.create_session("digest-3", bob, 1000).unwrap();
    store.delete_session("digest-3").unwrap();
    assert_eq!(store.session_user("digest-3", 0).unwrap(), None);
    store.create_session("digest-4", bob, 2000).unwrap();
    assert_eq!(
        store.purge_sessions(1500).unwrap(),
        1,
        "only digest-1 had expired"
    );
    assert_eq!(
        store.session_user("digest-4", 1500).unwrap(),
        Some((bob, 2000))
    );

    // Games: events kept in order, duplicates refused, live until finished.
    let new_game = NewGame {
        black: alice,
        white: bob,
        table: Some(TableId(4)),
        settings_json: "{}".into(),
        nigiri_seed: Some(u64::MAX),
        started_at_ms: 10,
    };
    let game = store.create_game(&new_game).unwrap();
    let other = store.create_game(&new_game).unwrap();
    assert_ne!(game, other);
    store.append_event(game, 1, "first").unwrap();
    store.append_event(game, 2, "second").unwrap();
    assert_eq!(
        store.append_event(game, 2, "again"),
        Err(StoreError::DuplicateEvent { game, seq: 2 })
    );
    assert_eq!(
        store.game_events(game).unwrap(),
        vec![(1, "first".to_string()), (2, "second".to_string())]
    );
    let live = store.live_games().unwrap();
    assert_eq!(live.len(), 2);
    assert_eq!(live[0].id, game);
    assert_eq!(live[0].game, new_game);
    assert_eq!(live[0].events.len(), 2);
    assert_eq!(store.game_sgf(game).unwrap(), None);
    store
        .finish_game(game, "B+R", "(;FF[4]RE[B+R])", 20)
        .unwrap();
    assert_eq!(
        store.game_sgf(game).unwrap().as_deref(),
        Some("(;FF[4]RE[B+R])")
    );
    assert_eq!(store.live_games().unwrap().len(), 1);
    // Rating a game happens once; both players' states are read and written together.
    let update: RatingUpdate = std::sync::Arc::new(|[b, w]: [Glicko; 2]| {
        [
            Glicko {
                rating: b.rating + 10.0,
                games: b.games + 1,
                ..b
            },
            Glicko {
                rating: w.rating - 10.0,
                games: w.games + 1,
                ..w
            },
        ]
    });
    let rated = store
        .rate_game(game, [alice, bob], update.clone())
        .unwrap()
        .unwrap();
    assert_eq!((rated[0].rating, rated[1].games), (1510.0, 1));
    assert_eq!(store.rate_game(game, [alice, bob], update).unwrap(), None);
    let alice_row = store.user_by_id(alice).unwrap().unwrap();
    assert_eq!((alice_row.rating, alice_row.rated_games), (1510, 1));
    // A player's games, newest first, finished ones with their result.
    let listed = store.games_of_user(bob, None, 10).unwrap();
    assert_eq!(
        listed.iter().map(|g| g.id).collect::<Vec<_>>(),
        vec![other, game]
    );
    assert_eq!(listed[1].result.as_deref(), Some("B+R"));
    assert_eq!(listed[1].black, "Alice");
    assert_eq!(listed[0].result, None);
    assert_eq!(store.games_of_user(bob, None, 1).unwrap().len(), 1);
    // The next page: the games before the last one listed.
    let page = store.games_of_user(bob, Some(other), 10).unwrap();
    assert_eq!(page.iter().map(|g| g.id).collect::<Vec<_>>(), vec![game]);
    assert!(store.games_of_user(bob, Some(game), 10).unwrap().is_empty());
    assert_eq!(
        store.finish_game(GameId(9999), "0", "", 1),
        Err(StoreError::NoSuchGame(GameId(9999)))
    );

    ledger_conformance(store, alice, bob, game);
    assert_eq!(store.user_by_id(bob).unwrap().unwrap().created_at_ms, 3);
    assert!(store.has_finished_game(alice).unwrap());
    let carol = store
        .create_user(&crate::username::name("carol"), "hash-c", 4)
        .unwrap();
    assert!(!store.has_finished_game(carol).unwrap());
    assert!(store.has_transfer(&format!("grant:{alice}")).unwrap());
    assert!(!store.has_transfer(&format!("grant:{carol}")).unwrap());
    // Log out everywhere: every session of that user goes, nobody else's.
    store.create_session("carol-1", carol, 5000).unwrap();
    store.create_session("carol-2", carol, 6000).unwrap();
    assert_eq!(store.delete_user_sessions(carol), Ok(2));
    assert_eq!(store.session_user("carol-2", 0).unwrap(), None);
    assert_eq!(
        store.session_user("digest-4", 1500).unwrap(),
        Some((bob, 2000))
    );
    assert_eq!(store.delete_user_sessions(carol), Ok(0));
    throttle_conformance(store);
    event_conformance(store);
    relations::conformance(store);
    moderation_conformance(store, alice, bob);
}

#[cfg(test)]
/// Moderation: roles, sanctions, kept chat (bounded by count per channel and by time), reports that
/// close once, and the append-only log paged newest first.
fn moderation_conformance(store: &dyn Store, alice: UserId, bob: UserId) {
    use moderation::{ChatKeeping, NewChatLine, Sanction, SanctionKind};
    use tengen_protocol::{ReportId, Role};
    assert_eq!(store.role(alice).unwrap(), Role::User);
    store.set_role(alice, Role::Moderator).unwrap();
    store.set_role(bob, Role::Admin).unwrap();
    store.set_role(bob, Role::User).unwrap();
    assert_eq!(store.role(alice).unwrap(), Role::Moderator);
    assert_eq!(store.role(bob).unwrap(), Role::User);

    assert_eq!(store.sanction(bob, SanctionKind::Mute).unwrap(), None);
    let mute = Sanction {
        until_ms: Some(9_000),
        reason: "spam".into(),
    };
    store.set_sanction(bob, SanctionKind::Mute, &mute).unwrap();
    let ban = Sanction {
        until_ms: None,
        reason: "cheating".into(),
    };
    store.set_sanction(bob, SanctionKind::Ban, &ban).unwrap();
    assert_eq!(store.sanction(bob, SanctionKind::Mute).unwrap(), Some(mute));
    assert_eq!(store.sanction(bob, SanctionKind::Ban).unwrap(), Some(ban));
    let lifted = Sanction {
        until_ms: Some(1),
        reason: "lifted".into(),
    };
    store.set_sanction(bob, SanctionKind::Ban, &lifted).unwrap();
    assert_eq!(
        store.sanction(bob, SanctionKind::Ban).unwrap(),
        Some(lifted)
    );
    assert_eq!(store.sanction(alice, SanctionKind::Ban).unwrap(), None);

    // Three lines kept per channel: the first of four is forgotten; another channel is apart.
    let keeping = ChatKeeping {
        per_channel_max: 3,
        kept_ms: 60_000,
    };
    let keep = |channel: &str, text: &str| {
        let line = NewChatLine {
            channel_key: channel.into(),
            at_ms: 1_000,
            line_json: format!("{text:?}"),
        };
        store.keep_chat_line(&line, keeping).unwrap()
    };
    let first = keep("room:1", "one");
    let other = keep("room:2", "elsewhere");
    let ids: Vec<_> = ["two", "three", "four"]
        .iter()
        .map(|text| keep("room:1", text))
        .collect();
    assert!(ids.iter().all(|&id| id > first && id != other));
    assert_eq!(store.chat_context(first, 5).unwrap(), vec![]);
    let texts = |line, around| -> Vec<String> {
        let lines = store.chat_context(line, around).unwrap();
        lines.into_iter().map(|(_, json)| json).collect()
    };
    assert_eq!(texts(ids[1], 5), ["\"two\"", "\"three\"", "\"four\""]);
    assert_eq!(texts(ids[1], 0), ["\"three\""]);
    assert_eq!(store.chat_context(ids[0], 1).unwrap()[0].0, ids[0]);
    assert!(store.forget_chat_line(ids[1]).unwrap());
    assert!(!store.forget_chat_line(ids[1]).unwrap());
    assert_eq!(texts(ids[0], 5), ["\"two\"", "\"four\""]);
    assert_eq!(texts(other, 5), ["\"elsewhere\""]);

    // Reports: open until closed, closed once.
    let report = store.file_report("{\"r\":1}").unwrap();
    let second = store.file_report("{\"r\":2}").unwrap();
    assert!(second > report);
    let open = store.open_reports(10).unwrap();
    assert_eq!(
        open.iter().map(|r| r.id).collect::<Vec<_>>(),
        [report, second]
    );
    assert_eq!(open[0].record_json, "{\"r\":1}");
    assert_eq!(store.open_reports(1).unwrap().len(), 1);
    assert!(store.close_report(report).unwrap());
    assert!(!store.close_report(report).unwrap());
    assert!(!store.close_report(ReportId(9_999)).unwrap());
    assert!(!store.report(report).unwrap().unwrap().open);
    assert!(store.report(second).unwrap().unwrap().open);
    assert_eq!(store.report(ReportId(9_999)).unwrap(), None);
    assert_eq!(store.open_reports(10).unwrap().len(), 1);

    assert_eq!(store.game_players(GameId(9_999)).unwrap(), None);

    // The log: numbered from 1, newest first, paged by number.
    assert_eq!(store.mod_log(None, 10).unwrap(), vec![]);
    for n in 1..=5u64 {
        assert_eq!(store.append_mod_log(&format!("{{\"n\":{n}}}")).unwrap(), n);
    }
    let numbers = |page: Vec<(u64, String)>| page.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(numbers(store.mod_log(None, 2).unwrap()), [5, 4]);
    assert_eq!(numbers(store.mod_log(Some(4), 2).unwrap()), [3, 2]);
    assert_eq!(numbers(store.mod_log(Some(2), 5).unwrap()), [1]);
    assert_eq!(store.mod_log(Some(1), 5).unwrap(), vec![]);
    assert_eq!(store.mod_log(Some(3), 1).unwrap()[0].1, "{\"n\":2}");
}

/// Competition records: ids assigned in order, saved over, listed oldest first; an unknown event is
/// not saved into being.
#[cfg(test)]
fn event_conformance(store: &dyn Store) {
    assert_eq!(store.events().unwrap(), Vec::new());
    let first = store.create_event(r#"{"n":1}"#, 10).unwrap();
    let second = store.create_event(r#"{"n":2}"#, 11).unwrap();
    assert!(second > first);
    store.save_event(first, r#"{"n":3}"#).unwrap();
    assert_eq!(
        store.events().unwrap(),
        vec![
            (first, r#"{"n":3}"#.to_string()),
            (second, r#"{"n":2}"#.to_string())
        ]
    );
    assert!(store.save_event(EventId(second.0 + 100), "{}").is_err());
    assert_eq!(store.events().unwrap().len(), 2);
}

/// Throttle counters: free attempts, then growing waits from the last counted one; all counters of a
/// call counted together or none; released, cleared and forgotten.
#[cfg(test)]
fn throttle_conformance(store: &dyn Store) {
    let backoff = Backoff {
        free: 2,
        base_ms: 1000,
        max_ms: 3000,
        forget_ms: 60_000,
    };
    let loose = Backoff {
        free: 10,
        ..backoff
    };
    let both = |a: &str, b: &str| vec![(a.to_string(), backoff), (b.to_string(), loose)];
    assert_eq!(store.throttle_attempt(&both("pair", "wide"), 100), Ok(None));
    assert_eq!(store.throttle_attempt(&both("pair", "wide"), 100), Ok(None));
    // Two counted: the third waits a second after the last.
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 600),
        Ok(Some(500))
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 1100),
        Ok(None)
    );
    // Three counted: two seconds now; then the cap.
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3000),
        Ok(Some(100))
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3100),
        Ok(None)
    );
    assert_eq!(
        store.throttle_attempt(&both("pair", "wide"), 3100),
        Ok(Some(3000))
    );
    // A refused call counted nothing anywhere: "wide" has 4 of its 10 free.
    let wide = vec![("wide".to_string(), Backoff { free: 5, ..backoff })];
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(None));
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(Some(1000)));
    // A release takes one back; a clear forgets the counter.
    store
        .throttle_release(&["wide".to_string()], &["pair".to_string()])
        .unwrap();
    assert_eq!(store.throttle_attempt(&wide, 3100), Ok(None));
    assert_eq!(
        store.throttle_attempt(&both("pair", "other"), 3100),
        Ok(None)
    );
    // A free attempt passes even when the last one was stamped later (clocks of concurrent callers).
    let skew = vec![("skew".to_string(), backoff)];
    assert_eq!(store.throttle_attempt(&skew, 5000), Ok(None));
    assert_eq!(store.throttle_attempt(&skew, 4990), Ok(None));
    assert_eq!(store.throttle_attempt(&skew, 4990), Ok(Some(1010)));
    // Forgotten after `forget_ms` without a counted attempt.
    let pair = vec![("pair".to_string(), backoff)];
    assert_eq!(store.throttle_attempt(&pair, 3100), Ok(None));
    assert_eq!(store.throttle_attempt(&pair, 3100), Ok(Some(1000)));
    let later = 3100 + backoff.forget_ms;
    store.purge_sessions(later).unwrap();
    assert_eq!(store.throttle_attempt(&pair, later), Ok(None));
    assert_eq!(store.throttle_attempt(&pair, later), Ok(None));
}

/// The ledger half of the conformance suite: idempotent transfers, all-or-nothing batches, no
/// balance below 0 but the mint's, settlement records, history and the unsettled-games query.
#[cfg(test)]
fn ledger_conformance(store: &dyn Store, alice: UserId, bob: UserId, finished: GameId) {
    use crate::book::{SettlementPart, TransferKind};
    use tengen_rules::Color;

    let transfer =
        |id: &str, from: Account, to: Account, amount: u64, kind: TransferKind| Transfer {
            id: id.into(),
            from,
            to,
            amount,
            kind,
            game: None,
            side: None,
            at_ms: 1,
        };
    let batch = |transfers: Vec<Transfer>| Batch {
        transfers,
        settlements: Vec::new(),
    };
    let grant = |user: UserId| {
        transfer(
            &format!("grant:{user}"),
            Account::Mint,
            Account::User(user),
            100,
            TransferKind::Grant,
        )
    };
    assert_eq!(
        store.apply_batch(&batch(vec![grant(alice), grant(bob)])),
        Ok(Applied::Applied)
    );
    // A retry changes nothing; the same id with other contents is refused.
    assert_eq!(
        store.apply_batch(&batch(vec![grant(alice)])),
        Ok(Applied::AlreadyApplied)
    );
    let mut changed = grant(alice);
    changed.amount = 5;
    assert_eq!(
        store.apply_batch(&batch(vec![changed])),
        Err(StoreError::TransferConflict {
            id: format!("grant:{alice}")
        })
    );
    assert_eq!(store.balance(Account::User(alice)), Ok(100));
    assert_eq!(store.balance(Account::Mint), Ok(-200));
    assert_eq!(store.granted_total(), Ok(200));

    // All or nothing: the second transfer overdraws bob, so the first is not applied either.
    let escrow = Account::Escrow(finished);
    let mut bet = transfer("bet:a", Account::User(alice), escrow, 60, TransferKind::Bet);
    bet.game = Some(finished);
    bet.side = Some(Color::Black);
    let mut overdraw = transfer("bet:b", Account::User(bob), escrow, 101, TransferKind::Bet);
    overdraw.game = Some(finished);
    overdraw.side = Some(Color::White);
    assert_eq!(
        store.apply_batch(&batch(vec![bet.clone(), overdraw])),
        Err(StoreError::InsufficientPoints {
            account: Account::User(bob)
        })
    );
    assert_eq!(store.balance(Account::User(alice)), Ok(100));
    assert_eq!(store.balance(escrow), Ok(0));
    assert!(matches!(
        store.apply_batch(&batch(vec![transfer(
            "zero",
            Account::Mint,
            Account::House,
            0,
            TransferKind::Grant
        )])),
        Err(StoreError::BadBatch(_))
    ));

    // The finished game is unsettled until its settlement record is stored with its payout.
    store.apply_batch(&batch(vec![bet.clone()])).unwrap();
    assert_eq!(store.game_transfers(finished), Ok(vec![bet.clone()]));
    let unsettled: Vec<GameId> = store
        .unsettled_finished_games()
        .unwrap()
        .iter()
        .map(|row| row.id)
        .collect();
    assert_eq!(unsettled, vec![finished]);
    let mut refund = transfer(
        "settle:x",
        escrow,
        Account::User(alice),
        60,
        TransferKind::Refund,
    );
    refund.game = Some(finished);
    let record = SettlementRecord {
        game: finished,
        part: SettlementPart::Pool,
        tax_bp: 500,
        summary_json: "{}".into(),
        at_ms: 2,
    };
    let settle = Batch {
        transfers: vec![refund.clone()],
        settlements: vec![record.clone()],
    };
    assert_eq!(store.apply_batch(&settle), Ok(Applied::Applied));
    assert_eq!(store.apply_batch(&settle), Ok(Applied::AlreadyApplied));
    assert_eq!(store.settlements(finished), Ok(vec![record]));
    assert_eq!(store.settled_games(), Ok(vec![finished]));
    assert!(store.unsettled_finished_games().unwrap().is_empty());
    assert_eq!(store.balance(escrow), Ok(0));
    assert_eq!(store.balance(Account::User(alice)), Ok(100));

    // Group commit: each batch on its own, one refused without undoing its neighbours.
    let mut small = transfer(
        "gc:1",
        Account::User(bob),
        Account::House,
        1,
        TransferKind::Tax,
    );
    small.game = None;
    let too_big = transfer(
        "gc:2",
        Account::User(bob),
        Account::House,
        1_000,
        TransferKind::Tax,
    );
    let mut again = small.clone();
    again.id = "gc:3".into();
    let results = store
        .apply_batches(&[
            batch(vec![small.clone()]),
            batch(vec![too_big]),
            batch(vec![again, small]),
        ])
        .unwrap();
    assert_eq!(
        results,
        vec![
            Ok(Applied::Applied),
            Err(StoreError::InsufficientPoints {
                account: Account::User(bob)
            }),
            Ok(Applied::Applied),
        ]
    );
    assert_eq!(store.balance(Account::User(bob)), Ok(98));
    assert_eq!(store.balance(Account::House), Ok(2));

    // History newest first; balances for the audit.
    let history = store.account_transfers(Account::User(alice), 10).unwrap();
    let ids: Vec<&str> = history.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, vec!["settle:x", "bet:a", &format!("grant:{alice}")]);
    assert_eq!(
        store
            .account_transfers(Account::User(alice), 1)
            .unwrap()
            .len(),
        1
    );
    let total: i64 = store
        .account_balances()
        .unwrap()
        .iter()
        .map(|entry| entry.balance)
        .sum();
    assert_eq!(total, 0, "the mint balances everything");
}
