//! Accounts and their sessions in Redis: each account's hash (`keys::user`), the name claims that
//! find and refuse names by caseless key and skeleton, the prefix index that finds players, and
//! sessions by token digest with each user's set of them. Creating an account spans slots, ordered
//! so that a crash between the steps leaves only an unreachable leftover.

use redis::Connection;
use tengen_protocol::UserId;

use super::connections::Failure;
use super::records::{corrupt, glicko_text, parse_number, user_from_fields};
use super::{call_function, function, keys, RedisStore};
use crate::store::{Accounts, Glicko, StoreError, UserRow};
use crate::username::{self, Username};

impl Accounts for RedisStore {
    fn create_user(
        &self,
        username: &Username,
        password_hash: &str,
        now_ms: u64,
    ) -> Result<UserId, StoreError> {
        self.write(|conn| {
            let id = UserId(::redis::cmd("INCR").arg(keys::USER_IDS).query(conn)?);
            // The record first, then the name: a crash between the two leaves a record nobody can
            // find, never a name that points nowhere.
            ::redis::cmd("HSET")
                .arg(keys::user(id))
                .arg("username")
                .arg(username.as_str())
                .arg("password_hash")
                .arg(password_hash)
                .arg("computer")
                .arg(0)
                .arg("created_at_ms")
                .arg(now_ms)
                .exec(conn)?;
            // Searchable before it is claimed: a refused or interrupted claim leaves an entry whose
            // id has no record, which a search passes over.
            let searchable = prefix_entry(username.key(), id);
            ::redis::cmd("ZADD")
                .arg(keys::USERS_BY_PREFIX)
                .arg(0)
                .arg(&searchable)
                .exec(conn)?;
            let claim = function(
                "tengen_claim_username",
                &[keys::USERS_BY_NAME, keys::USERS_BY_SKELETON],
            )
            .arg(username.key())
            .arg(username.skeleton())
            .arg(id.0)
            .to_owned();
            let (outcome, holder): (String, String) = call_function(conn, &claim)?;
            if outcome == "claimed" {
                return Ok(id);
            }
            ::redis::cmd("DEL").arg(keys::user(id)).exec(conn)?;
            ::redis::cmd("ZREM")
                .arg(keys::USERS_BY_PREFIX)
                .arg(&searchable)
                .exec(conn)?;
            let holder = UserId(parse_number("user id", &holder)?);
            let existing = match outcome.as_str() {
                "confusable" => read_user(conn, holder)?.map(|user| user.username),
                _ => None,
            };
            Err(match existing {
                Some(existing) => StoreError::UsernameConfusable { existing },
                None => StoreError::UsernameTaken,
            }
            .into())
        })
    }

    fn set_starting_rating(&self, user: UserId, rating: f64) -> Result<(), StoreError> {
        let start = Glicko::declared(rating);
        self.write(|conn| {
            let _set: i64 = ::redis::cmd("HSETNX")
                .arg(keys::GLICKO)
                .arg(user.0)
                .arg(glicko_text(&start))
                .query(conn)?;
            Ok(())
        })
    }

    fn mark_computer(&self, user: UserId) -> Result<(), StoreError> {
        self.write(|conn| {
            let call = function("tengen_set_if_exists", &[&keys::user(user)])
                .arg("computer")
                .arg(1)
                .to_owned();
            let _set: i64 = call_function(conn, &call)?;
            Ok(())
        })
    }

    fn user_by_name(&self, username: &str) -> Result<Option<UserRow>, StoreError> {
        self.read(|conn| {
            let id: Option<String> = ::redis::cmd("HGET")
                .arg(keys::USERS_BY_NAME)
                .arg(username::lookup_key(username))
                .query(conn)?;
            let Some(id) = id else {
                return Ok(None);
            };
            let id = UserId(parse_number("user id", &id)?);
            match read_user(conn, id)? {
                Some(user) => Ok(Some(user)),
                None => Err(StoreError::Backend(format!(
                    "redis: username {username:?} points at user {id}, who has no record"
                ))
                .into()),
            }
        })
    }

    fn user_by_id(&self, id: UserId) -> Result<Option<UserRow>, StoreError> {
        self.read(|conn| read_user(conn, id))
    }

    fn find_users(&self, prefix: &str, limit: usize) -> Result<Vec<UserRow>, StoreError> {
        let key = crate::username::lookup_key(prefix);
        self.read(|conn| {
            // From the prefix itself to the prefix followed by a byte no UTF-8 text holds.
            let mut below = format!("({key}").into_bytes();
            below.push(0xFF);
            let entries: Vec<String> = ::redis::cmd("ZRANGEBYLEX")
                .arg(keys::USERS_BY_PREFIX)
                .arg(format!("[{key}"))
                .arg(below)
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query(conn)?;
            let mut users = Vec::with_capacity(entries.len());
            for entry in entries {
                let Some((_, id)) = entry.rsplit_once('\0') else {
                    return Err(corrupt("name index entry", &entry).into());
                };
                let id = UserId(parse_number("user id", id)?);
                users.extend(read_user(conn, id)?);
            }
            Ok(users)
        })
    }

    fn set_last_seen(&self, user: UserId, at_ms: u64) -> Result<(), StoreError> {
        self.write(|conn| {
            let _set: i64 = ::redis::cmd("HSET")
                .arg(keys::user(user))
                .arg("last_seen_ms")
                .arg(at_ms)
                .query(conn)?;
            Ok(())
        })
    }

    fn last_seen(&self, user: UserId) -> Result<Option<u64>, StoreError> {
        self.read(|conn| {
            let at: Option<String> = ::redis::cmd("HGET")
                .arg(keys::user(user))
                .arg("last_seen_ms")
                .query(conn)?;
            Ok(at
                .map(|text| parse_number("last_seen_ms", &text))
                .transpose()?)
        })
    }

    fn create_session(
        &self,
        token_digest: &str,
        user: UserId,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            // Indexed before it exists, so a crash between the two never leaves a session that
            // purging cannot find.
            ::redis::pipe()
                .cmd("ZADD")
                .arg(keys::SESSIONS_BY_EXPIRY)
                .arg(expires_at_ms)
                .arg(token_digest)
                .ignore()
                .cmd("SADD")
                .arg(keys::user_sessions(user))
                .arg(token_digest)
                .ignore()
                .cmd("HSET")
                .arg(keys::session(token_digest))
                .arg("user")
                .arg(user.0)
                .arg("expires_at_ms")
                .arg(expires_at_ms)
                .ignore()
                .exec(conn)?;
            Ok(())
        })
    }

    fn session_user(
        &self,
        token_digest: &str,
        now_ms: u64,
    ) -> Result<Option<(UserId, u64)>, StoreError> {
        self.read(|conn| {
            let (user, expires): (Option<String>, Option<String>) = ::redis::cmd("HMGET")
                .arg(keys::session(token_digest))
                .arg(&["user", "expires_at_ms"])
                .query(conn)?;
            let (Some(user), Some(expires)) = (user, expires) else {
                return Ok(None);
            };
            let expires_at_ms: u64 = parse_number("session expiry", &expires)?;
            if expires_at_ms <= now_ms {
                return Ok(None);
            }
            Ok(Some((
                UserId(parse_number("session user", &user)?),
                expires_at_ms,
            )))
        })
    }

    fn delete_session(&self, token_digest: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let user: Option<u64> = ::redis::cmd("HGET")
                .arg(keys::session(token_digest))
                .arg("user")
                .query(conn)?;
            if let Some(user) = user {
                ::redis::cmd("SREM")
                    .arg(keys::user_sessions(UserId(user)))
                    .arg(token_digest)
                    .exec(conn)?;
            }
            ::redis::pipe()
                .cmd("DEL")
                .arg(keys::session(token_digest))
                .ignore()
                .cmd("ZREM")
                .arg(keys::SESSIONS_BY_EXPIRY)
                .arg(token_digest)
                .ignore()
                .exec(conn)?;
            Ok(())
        })
    }

    fn delete_user_sessions(&self, user: UserId) -> Result<usize, StoreError> {
        // Idempotent, so a call cut short by a broken connection is simply redone.
        self.write(|conn| {
            let digests: Vec<String> = ::redis::cmd("SMEMBERS")
                .arg(keys::user_sessions(user))
                .query(conn)?;
            if digests.is_empty() {
                return Ok(0);
            }
            let mut pipe = ::redis::pipe();
            for digest in &digests {
                pipe.cmd("DEL").arg(keys::session(digest));
            }
            pipe.cmd("ZREM")
                .arg(keys::SESSIONS_BY_EXPIRY)
                .arg(&digests)
                .ignore()
                .cmd("SREM")
                .arg(keys::user_sessions(user))
                .arg(&digests)
                .ignore();
            let deleted: Vec<usize> = pipe.query(conn)?;
            Ok(deleted.iter().sum())
        })
    }

    fn purge_sessions(&self, now_ms: u64) -> Result<usize, StoreError> {
        // Deleting is idempotent, so a round cut short by a broken connection is simply redone.
        self.read(|conn| {
            let mut purged = 0;
            // Each round removes what it found from the index, so the loop ends.
            loop {
                let expired: Vec<String> = ::redis::cmd("ZRANGEBYSCORE")
                    .arg(keys::SESSIONS_BY_EXPIRY)
                    .arg("-inf")
                    .arg(now_ms)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(PURGE_ROUND_SESSIONS_MAX)
                    .query(conn)?;
                if expired.is_empty() {
                    return Ok(purged);
                }
                // Their users, to drop them from the users' session sets too.
                let mut owners = ::redis::pipe();
                for digest in &expired {
                    owners.cmd("HGET").arg(keys::session(digest)).arg("user");
                }
                let users: Vec<Option<u64>> = owners.query(conn)?;
                let mut pipe = ::redis::pipe();
                for digest in &expired {
                    pipe.cmd("DEL").arg(keys::session(digest));
                }
                for (digest, user) in expired.iter().zip(&users) {
                    if let Some(user) = user {
                        pipe.cmd("SREM")
                            .arg(keys::user_sessions(UserId(*user)))
                            .arg(digest)
                            .ignore();
                    }
                }
                pipe.cmd("ZREM")
                    .arg(keys::SESSIONS_BY_EXPIRY)
                    .arg(&expired)
                    .ignore();
                let deleted: Vec<usize> = pipe.query(conn)?;
                purged += deleted.iter().sum::<usize>();
            }
        })
    }
}

fn read_user(conn: &mut Connection, id: UserId) -> Result<Option<UserRow>, Failure> {
    let (fields, glicko): (Vec<Option<String>>, Option<String>) = ::redis::pipe()
        .cmd("HMGET")
        .arg(keys::user(id))
        .arg(&["username", "password_hash", "computer", "created_at_ms"])
        .cmd("HGET")
        .arg(keys::GLICKO)
        .arg(id.0)
        .query(conn)?;
    Ok(user_from_fields(id, &fields, glicko.as_deref())?)
}

/// An account's entry in [`keys::USERS_BY_PREFIX`].
pub(super) fn prefix_entry(key: &str, id: UserId) -> String {
    format!("{key}\0{id}")
}

/// Expired sessions deleted per round trip when purging: bounds one command's size and how long
/// Redis is busy with it; a large backlog is purged in several rounds.
const PURGE_ROUND_SESSIONS_MAX: usize = 1_000;
