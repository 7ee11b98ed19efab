//! Accounts and sessions: username and password rules, argon2id hashing (on the hashing pool, `hashing`),
//! session tokens (256 random bits, stored only as their SHA-256 digest, expiring), and the per-account
//! login throttle. It answers "who is this?"; what a user may do is decided by the hall and the games.

mod hashing;

use std::collections::HashMap;
use std::sync::Mutex;

use rand::RngCore;
use sha2::{Digest, Sha256};
use tengen_protocol::{ErrorCode, PlayerInfo, UserId};

use self::hashing::HashPool;
use crate::config::{
    Argon2Params, LOGIN_FAILURES_MAX, LOGIN_FAILURE_WINDOW_MS, LOGIN_THROTTLE_ENTRIES_MAX,
    PASSWORD_CHARS_MAX, PASSWORD_CHARS_MIN, USERNAME_CHARS_MAX, USERNAME_CHARS_MIN,
};
use crate::store::{StoreError, StoreHandle, UserRow};

/// Random bytes in a session token: 256 bits, far beyond guessing.
const TOKEN_BYTES: usize = 32;

/// Why an account request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("usernames are {USERNAME_CHARS_MIN}..={USERNAME_CHARS_MAX} characters of A-Z a-z 0-9 _ -, starting with a letter")]
    InvalidUsername,
    #[error("passwords are {PASSWORD_CHARS_MIN}..={PASSWORD_CHARS_MAX} characters")]
    InvalidPassword,
    #[error("that username is taken")]
    UsernameTaken,
    /// Deliberately the same for an unknown user and a wrong password.
    #[error("wrong username or password")]
    BadCredentials,
    #[error("too many failed logins for this account; try again later")]
    Throttled,
    #[error("the session token is unknown or expired")]
    InvalidToken,
    /// Too many passwords are being checked at once; nothing was done.
    #[error("the server is busy checking passwords; try again in a moment")]
    Busy,
    #[error("account service failed: {0}")]
    Internal(String),
}

impl AuthError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AuthError::InvalidUsername => ErrorCode::InvalidUsername,
            AuthError::InvalidPassword => ErrorCode::InvalidPassword,
            AuthError::UsernameTaken => ErrorCode::UsernameTaken,
            AuthError::BadCredentials => ErrorCode::BadCredentials,
            AuthError::Throttled => ErrorCode::LoginThrottled,
            AuthError::InvalidToken => ErrorCode::InvalidToken,
            AuthError::Busy => ErrorCode::Busy,
            AuthError::Internal(_) => ErrorCode::Internal,
        }
    }
}

impl From<StoreError> for AuthError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::UsernameTaken => AuthError::UsernameTaken,
            other => AuthError::Internal(other.to_string()),
        }
    }
}

/// A logged-in user and the token that resumes their session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub player: PlayerInfo,
    pub token: String,
    pub expires_at_ms: u64,
}

/// The hall's listing of an account. Ranks come with ratings in a later issue; until then "?".
pub fn player_info(user: &UserRow) -> PlayerInfo {
    PlayerInfo {
        user: user.id,
        username: user.username.clone(),
        rank: crate::rating::rank_of(user),
        rating: user.rating,
        computer: user.computer,
    }
}

/// Check a username: ASCII letters, digits, `_` and `-`, starting with a letter, so it is safe in URLs,
/// SGF `PB`/`PW` and table lists, and case-insensitively unique.
pub fn validate_username(username: &str) -> Result<(), AuthError> {
    let len = username.chars().count();
    let first_is_letter = username.starts_with(|c: char| c.is_ascii_alphabetic());
    let allowed = username
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if (USERNAME_CHARS_MIN..=USERNAME_CHARS_MAX).contains(&len) && first_is_letter && allowed {
        Ok(())
    } else {
        Err(AuthError::InvalidUsername)
    }
}

pub fn validate_password(password: &str) -> Result<(), AuthError> {
    let len = password.chars().count();
    if (PASSWORD_CHARS_MIN..=PASSWORD_CHARS_MAX).contains(&len) {
        Ok(())
    } else {
        Err(AuthError::InvalidPassword)
    }
}

/// Failed logins of one account within the current window.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    window_start_ms: u64,
}

/// Counts failed logins per account (by lowercased username) and refuses logins to an account that
/// failed [`LOGIN_FAILURES_MAX`] times in the window, until the window ends. Pure: time is passed in.
#[derive(Debug, Default)]
struct Throttle {
    /// Bounded by [`LOGIN_THROTTLE_ENTRIES_MAX`]; the oldest window is evicted when full.
    failures: HashMap<String, Failures>,
}

impl Throttle {
    fn is_throttled(&mut self, key: &str, now_ms: u64) -> bool {
        match self.failures.get(key) {
            Some(f) if now_ms >= f.window_start_ms + LOGIN_FAILURE_WINDOW_MS => {
                self.failures.remove(key);
                false
            }
            Some(f) => f.count >= LOGIN_FAILURES_MAX,
            None => false,
        }
    }

    fn record_failure(&mut self, key: &str, now_ms: u64) {
        if !self.failures.contains_key(key) && self.failures.len() >= LOGIN_THROTTLE_ENTRIES_MAX {
            self.evict(now_ms);
        }
        let entry = self.failures.entry(key.to_string()).or_insert(Failures {
            count: 0,
            window_start_ms: now_ms,
        });
        entry.count += 1;
    }

    fn record_success(&mut self, key: &str) {
        self.failures.remove(key);
    }

    /// Drop expired windows, and if none expired, the oldest one.
    fn evict(&mut self, now_ms: u64) {
        self.failures
            .retain(|_, f| now_ms < f.window_start_ms + LOGIN_FAILURE_WINDOW_MS);
        if self.failures.len() >= LOGIN_THROTTLE_ENTRIES_MAX {
            let oldest = self
                .failures
                .iter()
                .min_by_key(|(_, f)| f.window_start_ms)
                .map(|(key, _)| key.clone());
            if let Some(key) = oldest {
                self.failures.remove(&key);
            }
        }
    }
}

/// The account service.
#[derive(Debug)]
pub struct Auth {
    store: StoreHandle,
    argon2: Argon2Params,
    session_ttl_ms: u64,
    throttle: Mutex<Throttle>,
    /// A hash of a random password, verified against when a username is unknown so that "no such user"
    /// costs the same time as "wrong password" and timing does not reveal who has an account.
    dummy_hash: String,
    /// Where every password is hashed and checked.
    hashing: HashPool,
}

/// The digest under which a token is stored.
pub fn token_digest(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn new_token() -> String {
    let mut bytes = [0u8; TOKEN_BYTES];
    // ThreadRng is a CSPRNG (ChaCha12) reseeded from the operating system.
    rand::rng().fill_bytes(&mut bytes);
    hex(&bytes)
}

impl Auth {
    pub async fn new(
        store: StoreHandle,
        argon2: Argon2Params,
        session_ttl_ms: u64,
    ) -> Result<Auth, AuthError> {
        let hashing = HashPool::new();
        let dummy_hash = hashing.hash(argon2, new_token()).await?;
        Ok(Auth {
            store,
            argon2,
            session_ttl_ms,
            throttle: Mutex::new(Throttle::default()),
            dummy_hash,
            hashing,
        })
    }

    fn throttle(&self) -> std::sync::MutexGuard<'_, Throttle> {
        self.throttle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Create an account (a computer player's when `computer`) and open a session for it.
    pub async fn register(
        &self,
        username: &str,
        password: &str,
        computer: bool,
        now_ms: u64,
    ) -> Result<Authenticated, AuthError> {
        validate_username(username)?;
        validate_password(password)?;
        let hash = self.hashing.hash(self.argon2, password.to_string()).await?;
        let name = username.to_string();
        let id = self
            .store
            .call(move |store| store.create_user(&name, &hash, now_ms))
            .await?;
        if computer {
            self.store
                .call(move |store| store.mark_computer(id))
                .await?;
        }
        let user = self
            .store
            .call(move |store| store.user_by_id(id))
            .await?
            .ok_or_else(|| AuthError::Internal("new user vanished".into()))?;
        self.open_session(&user, now_ms).await
    }

    pub async fn login(
        &self,
        username: &str,
        password: &str,
        now_ms: u64,
    ) -> Result<Authenticated, AuthError> {
        let key = username.to_ascii_lowercase();
        if self.throttle().is_throttled(&key, now_ms) {
            return Err(AuthError::Throttled);
        }
        // Overlong input would cost hashing time for nothing; it cannot match any account.
        if password.chars().count() > PASSWORD_CHARS_MAX || username.len() > USERNAME_CHARS_MAX * 4
        {
            return Err(AuthError::BadCredentials);
        }
        let name = username.to_string();
        let user = self
            .store
            .call(move |store| store.user_by_name(&name))
            .await?;
        let phc = user
            .as_ref()
            .map_or_else(|| self.dummy_hash.clone(), |u| u.password_hash.clone());
        let matches = self.hashing.verify(password.to_string(), phc).await?;
        match user {
            Some(user) if matches => {
                self.throttle().record_success(&key);
                self.open_session(&user, now_ms).await
            }
            _ => {
                self.throttle().record_failure(&key, now_ms);
                Err(AuthError::BadCredentials)
            }
        }
    }

    /// Accept a token from an earlier session on a new connection.
    pub async fn resume(&self, token: &str, now_ms: u64) -> Result<Authenticated, AuthError> {
        let digest = token_digest(token);
        let (user_id, expires_at_ms) = self
            .store
            .call(move |store| store.session_user(&digest, now_ms))
            .await?
            .ok_or(AuthError::InvalidToken)?;
        let user = self.user(user_id).await?.ok_or(AuthError::InvalidToken)?;
        Ok(Authenticated {
            player: player_info(&user),
            token: token.to_string(),
            expires_at_ms,
        })
    }

    pub async fn logout(&self, token: &str) -> Result<(), AuthError> {
        let digest = token_digest(token);
        self.store
            .call(move |store| store.delete_session(&digest))
            .await?;
        Ok(())
    }

    pub async fn user(&self, id: UserId) -> Result<Option<UserRow>, AuthError> {
        Ok(self.store.call(move |store| store.user_by_id(id)).await?)
    }

    async fn open_session(&self, user: &UserRow, now_ms: u64) -> Result<Authenticated, AuthError> {
        let token = new_token();
        let digest = token_digest(&token);
        let expires_at_ms = now_ms + self.session_ttl_ms;
        let id = user.id;
        self.store
            .call(move |store| store.create_session(&digest, id, expires_at_ms))
            .await?;
        Ok(Authenticated {
            player: player_info(user),
            token,
            expires_at_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_checked() {
        assert!(validate_username("alice").is_ok());
        assert!(validate_username("Bob_2-x").is_ok());
        assert!(validate_username("ab").is_err());
        assert!(validate_username("2bob").is_err());
        assert!(validate_username("bob smith").is_err());
        assert!(validate_username("ævar").is_err());
        assert!(validate_username(&"a".repeat(21)).is_err());
    }

    #[test]
    fn passwords_are_counted_in_characters() {
        assert!(validate_password("1234567").is_err());
        assert!(validate_password("12345678").is_ok());
        assert!(validate_password(&"密".repeat(128)).is_ok());
        assert!(validate_password(&"密".repeat(129)).is_err());
    }

    #[test]
    fn throttle_refuses_after_too_many_failures_until_the_window_ends() {
        let mut throttle = Throttle::default();
        for _ in 0..LOGIN_FAILURES_MAX {
            assert!(!throttle.is_throttled("alice", 1000));
            throttle.record_failure("alice", 1000);
        }
        assert!(throttle.is_throttled("alice", 1001));
        assert!(!throttle.is_throttled("bob", 1001));
        assert!(!throttle.is_throttled("alice", 1000 + LOGIN_FAILURE_WINDOW_MS));
    }

    #[test]
    fn tokens_are_random_and_stored_as_digests() {
        let a = new_token();
        assert_eq!(a.len(), TOKEN_BYTES * 2);
        assert_ne!(a, new_token());
        assert_ne!(token_digest(&a), a);
        assert_eq!(token_digest(&a).len(), 64);
    }
}
