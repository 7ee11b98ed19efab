//! What the store keeps of accounts, behind [`Accounts`] (which [`Store`](super::Store) requires):
//! each account's name (unique by its caseless key, refused when it looks like another's), password
//! hash, starting rating and computer mark, when its player was last seen, finding accounts by the
//! start of their name, and the session tokens that log an account in (kept as digests, forgotten
//! when they expire). Hashing, tokens and what a login checks are `crate::auth`'s business; ratings
//! after games are [`Ratings`](super::Ratings)', and roles [`Moderation`](super::moderation::Moderation)'s.

use tengen_protocol::UserId;

use super::StoreError;
use crate::username::Username;

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

/// Accounts and their sessions, durable.
pub trait Accounts {
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
    /// Accounts whose name starts with `prefix` (compared by caseless key, as logging in does), in the
    /// order of their keys, at most `limit`.
    fn find_users(&self, prefix: &str, limit: usize) -> Result<Vec<UserRow>, StoreError>;
    /// When the user's last connection ended (Unix ms), set when it does.
    fn set_last_seen(&self, user: UserId, at_ms: u64) -> Result<(), StoreError>;
    fn last_seen(&self, user: UserId) -> Result<Option<u64>, StoreError>;
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
}
