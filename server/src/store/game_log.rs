//! What the store keeps of games, behind [`GameLog`] (which [`Store`](super::Store) requires): each
//! game's players and settings as it starts, its event log (appended durably, in `seq` order, before
//! anyone hears of an event), and once it ends its result and SGF record; the games still live, to
//! replay after a restart, and each player's list of games. What the events mean is the game actor's
//! business; the store keeps bytes in order. Scaled out, an append presents the node's lease on the
//! game ([`Fences`]), so a node that lost a game may no longer log it.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tengen_protocol::{GameId, TableId, UserId};

use super::StoreError;

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

/// A write a backend queued (`GameLog::append_event_queued`): answers once it is durable.
pub type QueuedAnswer = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

/// Games and their event logs, durable.
pub trait GameLog {
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
    /// A user's games, newest first: at most `limit`, only those before game `before` when given
    /// (the next page of a list).
    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError>;
    /// Whether `user` played a game that finished (on Redis, among their
    /// [`FINISHED_GAME_LOOKBACK`](crate::config::FINISHED_GAME_LOOKBACK) newest games).
    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError>;
}
