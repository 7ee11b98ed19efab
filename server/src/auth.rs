//! Accounts and sessions: username and password rules, argon2id hashing (always on the blocking pool),
//! session tokens (256 random bits, stored only as their SHA-256 digest, expiring), and the login and
//! registration throttles (see `throttle`). It answers "who is this?"; what a user may do is decided by the hall and the games.

use std::net::IpAddr;
use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngCore;
use sha2::{Digest, Sha256};
use tengen_protocol::{ErrorCode, PlayerInfo, UserId};
use tokio::sync::Semaphore;

use crate::config::{
    Argon2Params, Throttles, HASHING_CONCURRENCY_MAX, PASSWORD_CHARS_MAX, PASSWORD_CHARS_MIN,
    USERNAME_CHARS_MAX, USERNAME_CHARS_MIN,
};
use crate::store::{StoreError, StoreHandle, UserRow};
use crate::throttle::{self, LoginCounters};

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
    #[error("too many failed logins; try again in {} s", throttle::seconds(*wait_ms))]
    Throttled { wait_ms: u64 },
    #[error("too many new accounts from this address; try again in {} s", throttle::seconds(*wait_ms))]
    RegistrationThrottled { wait_ms: u64 },
    #[error("the session token is unknown or expired")]
    InvalidToken,
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
            AuthError::Throttled { .. } => ErrorCode::LoginThrottled,
            AuthError::RegistrationThrottled { .. } => ErrorCode::RegistrationThrottled,
            AuthError::InvalidToken => ErrorCode::InvalidToken,
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
    /// When the account was made (its starting grant waits on it).
    pub created_at_ms: u64,
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

/// The account service.
#[derive(Debug)]
pub struct Auth {
    store: StoreHandle,
    argon2: Argon2Params,
    session_ttl_ms: u64,
    throttles: Throttles,
    /// A hash of a random password, verified against when a username is unknown so that "no such user"
    /// costs the same time as "wrong password" and timing does not reveal who has an account.
    dummy_hash: String,
    /// Bounds hashes in flight to [`HASHING_CONCURRENCY_MAX`].
    hashing: Arc<Semaphore>,
}

fn hasher(params: Argon2Params) -> Result<Argon2<'static>, AuthError> {
    let params = Params::new(params.memory_kib, params.passes, params.lanes, None)
        .map_err(|err| AuthError::Internal(format!("bad argon2 parameters: {err}")))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn hash_password(params: Argon2Params, password: &str) -> Result<String, AuthError> {
    let mut salt_bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut salt_bytes);
    let salt = SaltString::encode_b64(&salt_bytes)
        .map_err(|err| AuthError::Internal(format!("salt: {err}")))?;
    hasher(params)?
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| AuthError::Internal(format!("hashing: {err}")))
}

/// Verify with the parameters recorded in the hash itself, so old hashes keep working after a change.
fn verify_password(params: Argon2Params, password: &str, phc: &str) -> Result<bool, AuthError> {
    let parsed =
        PasswordHash::new(phc).map_err(|err| AuthError::Internal(format!("stored hash: {err}")))?;
    Ok(hasher(params)?
        .verify_password(password.as_bytes(), &parsed)
        .is_ok())
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

/// Run CPU-heavy hashing off the async runtime, at most `limit`'s permits at once.
async fn blocking<T: Send + 'static>(
    limit: &Semaphore,
    work: impl FnOnce() -> Result<T, AuthError> + Send + 'static,
) -> Result<T, AuthError> {
    let _permit = limit
        .acquire()
        .await
        .map_err(|_| AuthError::Internal("hashing is shut down".into()))?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| AuthError::Internal(format!("hashing task failed: {err}")))?
}

impl Auth {
    pub async fn new(
        store: StoreHandle,
        argon2: Argon2Params,
        session_ttl_ms: u64,
        throttles: Throttles,
    ) -> Result<Auth, AuthError> {
        let hashing = Arc::new(Semaphore::new(HASHING_CONCURRENCY_MAX));
        let dummy_hash = blocking(&hashing, move || hash_password(argon2, &new_token())).await?;
        Ok(Auth {
            store,
            argon2,
            session_ttl_ms,
            throttles,
            dummy_hash,
            hashing,
        })
    }

    /// Create an account (a computer player's when `computer`) and open a session for it. Each
    /// address makes a few accounts at once, then waits longer for each (see `throttle`).
    pub async fn register(
        &self,
        username: &str,
        password: &str,
        computer: bool,
        ip: IpAddr,
        now_ms: u64,
    ) -> Result<Authenticated, AuthError> {
        validate_username(username)?;
        validate_password(password)?;
        if let Some(wait_ms) =
            throttle::registration_attempt(&self.store, self.throttles, ip, now_ms).await?
        {
            tracing::debug!(%ip, wait_ms, "registration throttled");
            return Err(AuthError::RegistrationThrottled { wait_ms });
        }
        let params = self.argon2;
        let password = password.to_string();
        let hash = blocking(&self.hashing, move || hash_password(params, &password)).await?;
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

    /// Check a password, counted by the login throttles first (see `throttle`): the attempt is
    /// counted before hashing and taken back if it succeeds.
    pub async fn login(
        &self,
        username: &str,
        password: &str,
        ip: IpAddr,
        now_ms: u64,
    ) -> Result<Authenticated, AuthError> {
        // Overlong input would cost hashing time for nothing; it cannot match any account.
        if password.chars().count() > PASSWORD_CHARS_MAX || username.len() > USERNAME_CHARS_MAX * 4
        {
            return Err(AuthError::BadCredentials);
        }
        let counters = LoginCounters::new(username, ip);
        if let Some(wait_ms) =
            throttle::login_attempt(&self.store, self.throttles, &counters, now_ms).await?
        {
            // Debug only: a guesser's every refused attempt would otherwise be a line.
            tracing::debug!(%ip, wait_ms, "login throttled");
            return Err(AuthError::Throttled { wait_ms });
        }
        let name = username.to_string();
        let user = self
            .store
            .call(move |store| store.user_by_name(&name))
            .await?;
        let phc = user
            .as_ref()
            .map_or_else(|| self.dummy_hash.clone(), |u| u.password_hash.clone());
        let params = self.argon2;
        let password = password.to_string();
        let matches = blocking(&self.hashing, move || {
            verify_password(params, &password, &phc)
        })
        .await?;
        match user {
            Some(user) if matches => {
                // Not fatal: the counters then only keep one attempt too many until they expire.
                if let Err(err) = throttle::login_succeeded(&self.store, &counters).await {
                    tracing::warn!(%err, "could not take a successful login off the throttles");
                }
                self.open_session(&user, now_ms).await
            }
            // The attempt stays counted.
            _ => Err(AuthError::BadCredentials),
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
            created_at_ms: user.created_at_ms,
        })
    }

    pub async fn logout(&self, token: &str) -> Result<(), AuthError> {
        let digest = token_digest(token);
        self.store
            .call(move |store| store.delete_session(&digest))
            .await?;
        Ok(())
    }

    /// Revoke every session token of `user` ("log out everywhere").
    pub async fn logout_all(&self, user: UserId) -> Result<usize, AuthError> {
        Ok(self
            .store
            .call(move |store| store.delete_user_sessions(user))
            .await?)
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
            created_at_ms: user.created_at_ms,
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
    fn tokens_are_random_and_stored_as_digests() {
        let a = new_token();
        assert_eq!(a.len(), TOKEN_BYTES * 2);
        assert_ne!(a, new_token());
        assert_ne!(token_digest(&a), a);
        assert_eq!(token_digest(&a).len(), 64);
    }

    #[test]
    fn hashes_verify_only_their_password() {
        let params = Argon2Params {
            memory_kib: 64,
            passes: 1,
            lanes: 1,
        };
        let phc = hash_password(params, "correct horse").unwrap();
        assert!(phc.starts_with("$argon2id$"));
        assert!(verify_password(params, "correct horse", &phc).unwrap());
        assert!(!verify_password(params, "wrong horse", &phc).unwrap());
    }
}
