//! Durable state behind one umbrella trait, [`Store`], made of small traits by concern, each in its
//! own file saying what it owns: [`Accounts`] (accounts and session tokens, as digests),
//! [`ThrottleCounters`] (the login and registration throttles' counters, so every node counts the
//! same attempts), [`GameLog`] (games with their settings, each live game's event log, finished
//! games' results and SGF), [`Ratings`] (players' Glicko-2 states and rated history),
//! [`Bookkeeping`] (the fortune-point ledger's book, batch-shaped), [`EventRecords`] (events'
//! records), [`moderation::Moderation`] and [`Relations`]. A caller that needs one concern takes
//! that trait (`&dyn Accounts`); `Arc<dyn Store>` offers them all. Every trait is synchronous and
//! backend-neutral (SQLite embedded, Redis when scaled out), each backend implementing each in a
//! file of its own; [`StoreHandle`] is how async code calls them, always on tokio's blocking pool
//! so no store call ever blocks the async runtime.

pub mod accounts;
pub mod bookkeeping;
pub mod event_records;
pub mod game_log;
pub mod moderation;
pub mod ratings;
pub mod redis;
pub mod relations;
pub mod sqlite;
pub mod throttles;

pub use accounts::{Accounts, UserRow};
pub use bookkeeping::Bookkeeping;
pub use event_records::EventRecords;
pub use game_log::{
    logged_outcome, Fences, GameListRow, GameLog, LiveGameRow, NewGame, QueuedAnswer,
};
pub use moderation::Moderation;
pub use ratings::{
    record_by_size, Glicko, RatedGameRow, RatedOutcome, RatingUpdate, Ratings,
    DECLARED_RANK_DEVIATION,
};
pub use relations::{Added, RelationKind, Relations};
pub use throttles::{Backoff, ThrottleCounters};

use std::sync::Arc;

use tengen_protocol::{ErrorCode, GameId};

use crate::book::Account;
use crate::Refusal;

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

/// The durable state, every concern at once: what `Arc<dyn Store>` offers. Implementations are
/// synchronous and may block; call them through [`StoreHandle`]. Any type implementing every
/// concern's trait is a `Store`; a caller that needs one concern takes that trait instead.
pub trait Store:
    Accounts
    + ThrottleCounters
    + GameLog
    + Ratings
    + Bookkeeping
    + EventRecords
    + Moderation
    + Relations
    + Send
    + Sync
    + 'static
{
}

impl<T> Store for T where
    T: Accounts
        + ThrottleCounters
        + GameLog
        + Ratings
        + Bookkeeping
        + EventRecords
        + Moderation
        + Relations
        + Send
        + Sync
        + 'static
{
}

/// The async face of a [`Store`]: each call runs on the blocking pool.
#[derive(Clone)]
pub struct StoreHandle {
    store: Arc<dyn Store>,
    /// Whether writes may go through the backend's queue (`GameLog::append_event_queued`).
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
    use crate::username::{name, Username};
    use tengen_protocol::TableId;
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

    bookkeeping::conformance(store, alice, bob, game);
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
    throttles::conformance(store);
    event_records::conformance(store);
    relations::conformance(store);
    moderation::conformance(store, alice, bob);
}
