//! Accounts and sessions: username and password rules, argon2id hashing (on the hashing pool, `hashing`),
//! session tokens (256 random bits, stored only as their SHA-256 digest, expiring), and the login and
//! registration throttles (see `throttle`). It answers "who is this?"; what a user may do is decided by the hall and the games.

mod hashing;

use std::net::IpAddr;

use rand::RngCore;
use sha2::{Digest, Sha256};
use tengen_protocol::{ErrorCode, PlayerInfo, UserId};

use self::hashing::HashPool;
use crate::config::{
    Argon2Params, Throttles, PASSWORD_CHARS_MAX, PASSWORD_CHARS_MIN, USERNAME_CHARS_MAX,
};
use crate::store::{StoreError, StoreHandle, UserRow};
use crate::throttle::{self, LoginCounters};
use crate::username::{Username, UsernameProblem};

/// Random bytes in a session token: 256 bits, far beyond guessing.
const TOKEN_BYTES: usize = 32;

/// Why an account request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("{0}")]
    InvalidUsername(UsernameProblem),
    #[error("passwords are {PASSWORD_CHARS_MIN}..={PASSWORD_CHARS_MAX} characters")]
    InvalidPassword,
    #[error("that username is taken")]
    UsernameTaken,
    /// The name passes for an existing one (their confusable skeletons match), named here.
    #[error("that username looks too much like {existing:?}, who is registered: choose another")]
    UsernameConfusable { existing: String },
    /// Deliberately the same for an unknown user and a wrong password.
    #[error("wrong username or password")]
    BadCredentials,
    #[error("too many failed logins; try again in {} s", throttle::seconds(*wait_ms))]
    Throttled { wait_ms: u64 },
    #[error("too many new accounts from this address; try again in {} s", throttle::seconds(*wait_ms))]
    RegistrationThrottled { wait_ms: u64 },
    #[error("the session token is unknown or expired")]
    InvalidToken,
    /// A moderator banned the account: the message says why and until when.
    #[error("{0}")]
    Banned(String),
    /// Too many passwords are being checked at once; nothing was done.
    #[error("the server is busy checking passwords; try again in a moment")]
    Busy,
    /// The store failed, kept as its type so the client hears it through `store::store_refusal`.
    #[error("account store failed: {0}")]
    Store(StoreError),
    #[error("account service failed: {0}")]
    Internal(String),
}

impl AuthError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AuthError::InvalidUsername(_) => ErrorCode::InvalidUsername,
            AuthError::InvalidPassword => ErrorCode::InvalidPassword,
            AuthError::UsernameTaken => ErrorCode::UsernameTaken,
            AuthError::UsernameConfusable { .. } => ErrorCode::UsernameConfusable,
            AuthError::BadCredentials => ErrorCode::BadCredentials,
            AuthError::Throttled { .. } => ErrorCode::LoginThrottled,
            AuthError::RegistrationThrottled { .. } => ErrorCode::RegistrationThrottled,
            AuthError::InvalidToken => ErrorCode::InvalidToken,
            AuthError::Banned(_) => ErrorCode::Banned,
            AuthError::Busy => ErrorCode::Busy,
            AuthError::Store(err) => crate::store::store_refusal(err).code,
            AuthError::Internal(_) => ErrorCode::Internal,
        }
    }
}

impl From<StoreError> for AuthError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::UsernameTaken => AuthError::UsernameTaken,
            StoreError::UsernameConfusable { existing } => {
                AuthError::UsernameConfusable { existing }
            }
            other => AuthError::Store(other),
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

/// An account as every list shows it: name, rank (see `rating::rank_of`), rating.
pub fn player_info(user: &UserRow) -> PlayerInfo {
    PlayerInfo {
        user: user.id,
        username: user.username.clone(),
        rank: crate::rating::rank_of(user),
        rating: user.rating,
        computer: user.computer,
    }
}

/// Check a username a player asked for (see `username` for the rules): the normalized name, or why not.
pub fn validate_username(username: &str) -> Result<Username, AuthError> {
    Username::parse(username).map_err(AuthError::InvalidUsername)
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
        throttles: Throttles,
    ) -> Result<Auth, AuthError> {
        Auth::with_hashing(store, argon2, session_ttl_ms, throttles, HashPool::new()).await
    }

    /// [`Auth::new`] hashing on `hashing` (tests give it a pool they can fill).
    async fn with_hashing(
        store: StoreHandle,
        argon2: Argon2Params,
        session_ttl_ms: u64,
        throttles: Throttles,
        hashing: HashPool,
    ) -> Result<Auth, AuthError> {
        let dummy_hash = hashing.hash(argon2, new_token()).await?;
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
        (computer, starting_rating): (bool, Option<f64>),
        ip: IpAddr,
        now_ms: u64,
    ) -> Result<Authenticated, AuthError> {
        let name = validate_username(username)?;
        validate_password(password)?;
        if let Some(wait_ms) =
            throttle::registration_attempt(&self.store, self.throttles, ip, now_ms).await?
        {
            tracing::debug!(%ip, wait_ms, "registration throttled");
            return Err(AuthError::RegistrationThrottled { wait_ms });
        }
        let hash = match self.hashing.hash(self.argon2, password.to_string()).await {
            Err(AuthError::Busy) => {
                if let Err(err) = throttle::registration_not_made(&self.store, ip).await {
                    tracing::warn!(%err, "could not take a busy registration off the throttle");
                }
                return Err(AuthError::Busy);
            }
            hashed => hashed?,
        };
        let id = self
            .store
            .call(move |store| store.create_user(&name, &hash, now_ms))
            .await?;
        if computer {
            self.store
                .call(move |store| store.mark_computer(id))
                .await?;
        }
        if let Some(rating) = starting_rating {
            self.store
                .call(move |store| store.set_starting_rating(id, rating))
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
        // Overlong input would cost hashing time for nothing; it cannot match any account (a name's
        // every code point takes at most 4 bytes).
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
        let matches = match self.hashing.verify(password.to_string(), phc).await {
            Err(AuthError::Busy) => {
                if let Err(err) = throttle::login_not_checked(&self.store, &counters).await {
                    tracing::warn!(%err, "could not take a busy login off the throttles");
                }
                return Err(AuthError::Busy);
            }
            checked => checked?,
        };
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
        self.not_banned(user.id, now_ms).await?;
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

    /// Refuse a banned account, saying why and until when (a login made while a ban was being
    /// stored is ended by the ban's revocation).
    async fn not_banned(&self, user: UserId, now_ms: u64) -> Result<(), AuthError> {
        let ban = self
            .store
            .call(move |store| crate::moderation::ban_of(store, user, now_ms))
            .await?;
        match ban {
            Some(ban) => Err(AuthError::Banned(crate::moderation::banned_message(&ban))),
            None => Ok(()),
        }
    }

    async fn open_session(&self, user: &UserRow, now_ms: u64) -> Result<Authenticated, AuthError> {
        self.not_banned(user.id, now_ms).await?;
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
        assert!(validate_username("ævar").is_ok());
        assert_eq!(
            validate_username("x"),
            Err(AuthError::InvalidUsername(UsernameProblem::Length))
        );
        assert!(validate_username("2bob").is_err());
        assert!(validate_username("bob smith").is_err());
        assert!(validate_username(&"a".repeat(21)).is_err());
    }

    #[test]
    fn passwords_are_counted_in_characters() {
        assert!(validate_password("1234567").is_err());
        assert!(validate_password("12345678").is_ok());
        assert!(validate_password(&"密".repeat(128)).is_ok());
        assert!(validate_password(&"密".repeat(129)).is_err());
    }

    /// A login or registration answered `busy` (the hashing queue full) was never checked, so it
    /// must not count against anyone: after many of them, a wrong password is still just wrong.
    #[tokio::test]
    async fn busy_answers_count_against_no_throttle() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::sqlite::SqliteStore::open(dir.path()).unwrap();
        let store = StoreHandle::new(std::sync::Arc::new(store));
        let cheap = Argon2Params {
            memory_kib: 64,
            passes: 1,
            lanes: 1,
        };
        let hashing = HashPool::with_size(1, 1);
        let auth = Auth::with_hashing(store, cheap, 60_000, Throttles::default(), hashing)
            .await
            .unwrap();
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        auth.register("alice", "correct horse", (false, None), ip, 0)
            .await
            .unwrap();
        // Occupy the one hashing thread until told, then fill the one queue slot.
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let busy = auth.hashing.submit(move |_| {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        tokio::task::spawn_blocking(move || started_rx.recv().unwrap())
            .await
            .unwrap();
        let filler = auth.hashing.submit(|_| ()).unwrap();
        for attempt in 0..20 {
            let refused = auth.login("alice", "wrong guess", ip, attempt).await;
            assert_eq!(refused, Err(AuthError::Busy));
            let refused = auth
                .register("bob", "correct horse", (false, None), ip, attempt)
                .await;
            assert_eq!(refused, Err(AuthError::Busy));
        }
        release_tx.send(()).unwrap();
        busy.unwrap().await.unwrap();
        filler.await.unwrap();
        let wrong = auth.login("alice", "wrong guess", ip, 100).await;
        assert_eq!(wrong, Err(AuthError::BadCredentials));
        assert!(auth.login("alice", "correct horse", ip, 101).await.is_ok());
        assert!(auth
            .register("carol", "correct horse", (false, None), ip, 102)
            .await
            .is_ok());
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
