//! The Redis [`Store`] backend, for running Tengen on more than one node: the same behaviour as the
//! embedded SQLite store (one conformance suite decides), kept in Redis under keys whose hash tags
//! put whatever must change atomically in one slot (see `keys`), so it is ready for Redis Cluster.
//!
//! What must be atomic is one command, one Redis Function call (`functions.lua`, loaded at open with
//! FUNCTION LOAD REPLACE, so it is also in the append-only file) or one WATCH/MULTI on one slot:
//! appending a game event (refusing a seq already there), counting an attempt on several throttle
//! counters (all checked before any is counted), each ledger batch (every check before the
//! first write, then the transfers, the balances, the indexes, the settlement records and the audit
//! stream `{ledger}:audit`), and rating a game once. Steps that span slots (creating a user, then
//! claiming the name; recording a game, then indexing it) are ordered so that a crash between them
//! leaves only an unreachable leftover, and indexes of live and unsettled games are hints that
//! reads check against each game's own record and repair.
//!
//! Durability is Redis's: [`RedisStore::open`] refuses a server that is not configured to fsync
//! every write before replying and never to evict (see `durability`). Connections are recovered
//! after Redis restarts (see `connections`).

mod connections;
mod durability;
pub(crate) mod keys;
mod ledger;
mod moderation;
mod records;
mod relations;
mod schema;
#[doc(hidden)]
pub mod testing;

use std::collections::HashMap;

use redis::{Client, Cmd, Connection, FromRedisValue, RedisError, RedisResult};
use tengen_protocol::{EventId, GameId, RatingPoint, SizeRecord, UserId};

use self::connections::{backend, Access, Connections, Failure};
use self::records::{
    corrupt, events_in_order, glicko_from_text, glicko_text, live_game_row, new_game_from_fields,
    parse_number, user_from_fields,
};
use super::{
    record_by_size, Backoff, Fences, GameListRow, Glicko, LiveGameRow, NewGame, RatedGameRow,
    RatedOutcome, RatingUpdate, Store, StoreError, UserRow,
};
use crate::book::{Account, AccountBalance, Applied, Batch, SettlementRecord, Transfer};
use crate::username::{self, Username};
use crate::BoxError;

/// The Lua library of Redis Functions the store calls.
const FUNCTIONS: &str = include_str!("functions.lua");

/// Expired sessions deleted per round trip when purging: bounds one command's size and how long
/// Redis is busy with it; a large backlog is purged in several rounds.
const PURGE_ROUND_SESSIONS_MAX: usize = 1_000;

/// Attempts to rate a game when other ratings change between the read and the write (each attempt
/// is one optimistic WATCH/MULTI). Games end a few per second at most, so even a handful of
/// collisions in a row means something is wrong: the call fails instead of spinning.
const RATE_ATTEMPTS_MAX: usize = 20;

/// The Redis store: a client and its pooled connections.
#[derive(Debug)]
pub struct RedisStore {
    conns: Connections,
    /// The leases this node holds on live games, checked by every event append.
    fences: Fences,
}

impl RedisStore {
    /// Connect to the Redis at `url` (`redis://[user:password@]host:port/[db]`), check that it keeps
    /// acknowledged writes (refusing it otherwise, unless `allow_unsafe`) and load the functions.
    pub fn open(url: &str, allow_unsafe: bool) -> Result<RedisStore, BoxError> {
        let client = Client::open(url)?;
        // The address only: the url may hold a password.
        let server = client.get_connection_info().addr().to_string();
        let conns = Connections::new(client);
        let mut conn = conns
            .connect()
            .map_err(|err| format!("cannot connect to redis at {server}: {err}"))?;
        durability::check(&mut conn, allow_unsafe)
            .map_err(|err| format!("redis at {server}: {err}"))?;
        load_functions(&mut conn)
            .map_err(|err| format!("cannot load the store's functions into {server}: {err}"))?;
        let store = RedisStore {
            conns,
            fences: Fences::default(),
        };
        // Every step is idempotent (see `schema`), so one may run again on a fresh connection.
        store
            .conns
            .run(Access::Read, schema::migrate)
            .map_err(|err| format!("cannot bring the store at {server} up to date: {err}"))?;
        Ok(store)
    }

    /// Check every event append against the lease `fences` holds for its game (scaled out, a node
    /// logs only the games it owns).
    pub fn with_fences(self, fences: Fences) -> RedisStore {
        RedisStore { fences, ..self }
    }

    fn read<T>(
        &self,
        op: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        self.conns.run(Access::Read, op)
    }

    fn write<T>(
        &self,
        op: impl FnMut(&mut Connection) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        self.conns.run(Access::Write, op)
    }
}

fn load_functions(conn: &mut Connection) -> RedisResult<()> {
    ::redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(FUNCTIONS)
        .exec(conn)
}

fn is_missing_function(err: &RedisError) -> bool {
    err.to_string().contains("Function not found")
}

/// `FCALL name keys...`, ready for arguments.
fn function(name: &str, keys: &[&str]) -> Cmd {
    let mut call = ::redis::cmd("FCALL");
    call.arg(name).arg(keys.len()).arg(keys);
    call
}

/// Run a function call, loading the library again if this Redis has lost it (restarted without
/// persistence, or FUNCTION FLUSH): a missing function ran nothing, so calling again is safe.
fn call_function<T: FromRedisValue>(conn: &mut Connection, call: &Cmd) -> RedisResult<T> {
    match call.query(conn) {
        Err(err) if is_missing_function(&err) => {
            load_functions(conn)?;
            call.query(conn)
        }
        other => other,
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

/// The members of a sorted set of ids, in order.
fn ids_in(conn: &mut Connection, key: &str) -> Result<Vec<u64>, Failure> {
    let members: Vec<String> = ::redis::cmd("ZRANGE").arg(key).arg(0).arg(-1).query(conn)?;
    Ok(members
        .iter()
        .map(|member| parse_number("id", member))
        .collect::<Result<_, _>>()?)
}

/// The first `limit` members of a list (`LRANGE`) or of a sorted set from the top (`ZREVRANGE`).
fn first_members(
    conn: &mut Connection,
    range_command: &str,
    key: &str,
    limit: usize,
) -> RedisResult<Vec<String>> {
    // A range ending at -1 would mean "to the end", so no members is its own case.
    let Some(last) = limit.checked_sub(1) else {
        return Ok(Vec::new());
    };
    ::redis::cmd(range_command)
        .arg(key)
        .arg(0)
        .arg(isize::try_from(last).unwrap_or(isize::MAX))
        .query(conn)
}

/// Each game's record and event log, read together; `None` for a game without a record.
type GameWithEvents = (GameId, Option<HashMap<String, String>>, Vec<(u64, String)>);

fn games_with_events(conn: &mut Connection, ids: &[u64]) -> Result<Vec<GameWithEvents>, Failure> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = ::redis::pipe();
    for &id in ids {
        pipe.cmd("HGETALL").arg(keys::game(GameId(id)));
        pipe.cmd("HGETALL").arg(keys::game_events(GameId(id)));
    }
    let replies: Vec<HashMap<String, String>> = pipe.query(conn)?;
    let mut replies = replies.into_iter();
    let mut games = Vec::with_capacity(ids.len());
    for &id in ids {
        let (Some(fields), Some(events)) = (replies.next(), replies.next()) else {
            return Err(StoreError::Backend("redis: a pipeline answered too little".into()).into());
        };
        let fields = (!fields.is_empty()).then_some(fields);
        games.push((GameId(id), fields, events_in_order(events)?));
    }
    Ok(games)
}

/// Move a finished game from the live index to the unsettled one (idempotent: a repair after a
/// crash in the middle of `finish_game`, or its last step).
fn index_finished(conn: &mut Connection, game: GameId) -> RedisResult<()> {
    ::redis::pipe()
        .cmd("ZADD")
        .arg(keys::UNSETTLED_GAMES)
        .arg(game.0)
        .arg(game.0)
        .ignore()
        .cmd("ZREM")
        .arg(keys::LIVE_GAMES)
        .arg(game.0)
        .ignore()
        .exec(conn)
}

/// The transfers stored under `ids`, in that order.
fn transfers_by_id(conn: &mut Connection, ids: &[String]) -> Result<Vec<Transfer>, Failure> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let stored: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::LEDGER_TRANSFERS)
        .arg(ids)
        .query(conn)?;
    ids.iter()
        .zip(stored)
        .map(|(id, json)| {
            let json = json.ok_or_else(|| corrupt("transfer index entry", id))?;
            Ok(ledger::transfer_from_json(id, &json)?)
        })
        .collect()
}

/// The ratings of both players before and after, written only if nobody changed the ratings
/// since they were read (`None` when somebody did, or the game was rated already, in `Rated`).
enum RateAttempt {
    Rated(Option<[Glicko; 2]>),
    Collided,
}

fn try_rate_game(
    conn: &mut Connection,
    game: GameId,
    players: [UserId; 2],
    update: &dyn Fn([Glicko; 2]) -> [Glicko; 2],
) -> Result<RateAttempt, Failure> {
    ::redis::cmd("WATCH")
        .arg(keys::GLICKO)
        .arg(keys::RATED_GAMES)
        .exec(conn)?;
    let rated: bool = ::redis::cmd("SISMEMBER")
        .arg(keys::RATED_GAMES)
        .arg(game.0)
        .query(conn)?;
    if rated {
        ::redis::cmd("UNWATCH").exec(conn)?;
        return Ok(RateAttempt::Rated(None));
    }
    let stored: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::GLICKO)
        .arg(players[0].0)
        .arg(players[1].0)
        .query(conn)?;
    let [black, white] = &stored[..] else {
        return Err(StoreError::Backend("redis: HMGET answered the wrong count".into()).into());
    };
    let before = [
        glicko_from_text(black.as_deref())?,
        glicko_from_text(white.as_deref())?,
    ];
    let after = update(before);
    let history = rated_game_entries(conn, game, players, after.map(|g| Some(g.rating)))?;
    let mut pipe = ::redis::pipe();
    pipe.atomic()
        .cmd("SADD")
        .arg(keys::RATED_GAMES)
        .arg(game.0)
        .cmd("HSET")
        .arg(keys::GLICKO)
        .arg(players[0].0)
        .arg(glicko_text(&after[0]))
        .arg(players[1].0)
        .arg(glicko_text(&after[1]));
    for (user, entry) in &history {
        remember_rated_game(&mut pipe, *user, entry);
    }
    let committed: Option<Vec<::redis::Value>> = pipe.query(conn)?;
    Ok(match committed {
        Some(_) => RateAttempt::Rated(Some(after)),
        None => RateAttempt::Collided,
    })
}

/// Both players' history entries of a rated game, from its stored record (see
/// `RatedGameRow::of_game`).
fn rated_game_entries(
    conn: &mut Connection,
    game: GameId,
    players: [UserId; 2],
    ratings: [Option<f64>; 2],
) -> Result<Vec<(UserId, RatedGameRow)>, Failure> {
    let fields: Vec<Option<String>> = ::redis::cmd("HMGET")
        .arg(keys::game(game))
        .arg(&["settings", "result", "ended_at_ms", "started_at_ms"])
        .query(conn)?;
    let [settings, result, ended, started] = &fields[..] else {
        return Err(StoreError::Backend("redis: HMGET answered the wrong count".into()).into());
    };
    let at_ms = ended
        .as_deref()
        .or(started.as_deref())
        .map(|text| parse_number("ended_at_ms", text))
        .transpose()?
        .unwrap_or(0);
    let record = (settings.as_deref(), result.as_deref(), at_ms);
    Ok(RatedGameRow::of_game(game, players, ratings, record))
}

/// Adds one history entry to `pipe`: the point on the player's rating list (when the rating is
/// known) and the count of their results on that board.
fn remember_rated_game(pipe: &mut ::redis::Pipeline, user: UserId, entry: &RatedGameRow) {
    if let Some(rating) = entry.rating {
        let point = format!("{} {} {}", entry.game.0, entry.at_ms, rating);
        pipe.cmd("RPUSH").arg(keys::rating_history(user)).arg(point);
    }
    let field = format!("{} {}", entry.size, entry.outcome.as_str());
    pipe.cmd("HINCRBY")
        .arg(keys::rated_record(user))
        .arg(field)
        .arg(1);
}

/// An account's entry in [`keys::USERS_BY_PREFIX`].
fn prefix_entry(key: &str, id: UserId) -> String {
    format!("{key}\0{id}")
}

impl Store for RedisStore {
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

    fn throttle_attempt(
        &self,
        counters: &[(String, Backoff)],
        now_ms: u64,
    ) -> Result<Option<u64>, StoreError> {
        let keys: Vec<String> = counters
            .iter()
            .map(|(key, _)| keys::throttle(key))
            .collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut call = function("tengen_throttle_attempt", &keys);
        call.arg(now_ms);
        for (_, backoff) in counters {
            call.arg(backoff.free)
                .arg(backoff.base_ms)
                .arg(backoff.max_ms)
                .arg(backoff.forget_ms);
        }
        self.write(|conn| {
            let wait: u64 = call_function(conn, &call)?;
            Ok((wait > 0).then_some(wait))
        })
    }

    fn throttle_release(&self, release: &[String], clear: &[String]) -> Result<(), StoreError> {
        let keys: Vec<String> = release
            .iter()
            .chain(clear)
            .map(|key| keys::throttle(key))
            .collect();
        if keys.is_empty() {
            return Ok(());
        }
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut call = function("tengen_throttle_release", &keys);
        for _ in release {
            call.arg("release");
        }
        for _ in clear {
            call.arg("clear");
        }
        self.write(|conn| {
            call_function::<()>(conn, &call)?;
            Ok(())
        })
    }

    fn has_transfer(&self, id: &str) -> Result<bool, StoreError> {
        self.read(|conn| {
            Ok(::redis::cmd("HEXISTS")
                .arg(keys::LEDGER_TRANSFERS)
                .arg(id)
                .query(conn)?)
        })
    }

    fn has_finished_game(&self, user: UserId) -> Result<bool, StoreError> {
        self.read(|conn| {
            let ids: Vec<u64> = ::redis::cmd("ZREVRANGE")
                .arg(keys::user_games(user))
                .arg(0)
                .arg(crate::config::FINISHED_GAME_LOOKBACK.saturating_sub(1))
                .query(conn)?;
            if ids.is_empty() {
                return Ok(false);
            }
            let mut pipe = ::redis::pipe();
            for id in &ids {
                pipe.cmd("HEXISTS")
                    .arg(keys::game(GameId(*id)))
                    .arg("result");
            }
            let finished: Vec<bool> = pipe.query(conn)?;
            Ok(finished.into_iter().any(|done| done))
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

    fn create_game(&self, game: &NewGame) -> Result<GameId, StoreError> {
        self.write(|conn| {
            let id = GameId(::redis::cmd("INCR").arg(keys::GAME_IDS).query(conn)?);
            let mut record = ::redis::cmd("HSET");
            record
                .arg(keys::game(id))
                .arg("black")
                .arg(game.black.0)
                .arg("white")
                .arg(game.white.0)
                .arg("settings")
                .arg(&game.settings_json)
                .arg("started_at_ms")
                .arg(game.started_at_ms);
            if let Some(table) = game.table {
                record.arg("table").arg(table.0);
            }
            if let Some(seed) = game.nigiri_seed {
                record.arg("nigiri_seed").arg(seed);
            }
            // The record first, then the indexes that point at it.
            let mut pipe = ::redis::pipe();
            pipe.add_command(record).ignore();
            for player in [game.black, game.white] {
                pipe.cmd("ZADD")
                    .arg(keys::user_games(player))
                    .arg(id.0)
                    .arg(id.0)
                    .ignore();
            }
            pipe.cmd("ZADD")
                .arg(keys::LIVE_GAMES)
                .arg(id.0)
                .arg(id.0)
                .ignore();
            pipe.exec(conn)?;
            Ok(id)
        })
    }

    fn append_event(&self, game: GameId, seq: u64, event_json: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let call = function(
                "tengen_append_event",
                &[
                    &keys::game(game),
                    &keys::game_events(game),
                    &keys::game_owner(game),
                ],
            )
            .arg(seq)
            .arg(event_json)
            .arg(self.fences.get(game).unwrap_or_default())
            .to_owned();
            let outcome: String = call_function(conn, &call)?;
            match outcome.as_str() {
                "ok" => Ok(()),
                "duplicate" => Err(StoreError::DuplicateEvent { game, seq }.into()),
                "fenced" => Err(StoreError::NotOwner(game).into()),
                "no_such_game" => Err(StoreError::NoSuchGame(game).into()),
                other => Err(corrupt("append_event answer", other).into()),
            }
        })
    }

    fn game_events(&self, game: GameId) -> Result<Vec<(u64, String)>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::game_events(game))
                .query(conn)?;
            Ok(events_in_order(stored)?)
        })
    }

    fn finish_game(
        &self,
        game: GameId,
        result: &str,
        sgf: &str,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let call = function("tengen_set_if_exists", &[&keys::game(game)])
                .arg(&["result", result, "sgf", sgf, "ended_at_ms"])
                .arg(now_ms)
                .to_owned();
            let set: i64 = call_function(conn, &call)?;
            if set == 0 {
                return Err(StoreError::NoSuchGame(game).into());
            }
            // A crash before this is repaired when live games are next read.
            index_finished(conn, game)?;
            Ok(())
        })
    }

    fn game_sgf(&self, game: GameId) -> Result<Option<String>, StoreError> {
        self.read(|conn| {
            Ok(::redis::cmd("HGET")
                .arg(keys::game(game))
                .arg("sgf")
                .query(conn)?)
        })
    }

    fn live_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        self.read(|conn| {
            let ids = ids_in(conn, keys::LIVE_GAMES)?;
            let mut live = Vec::with_capacity(ids.len());
            for (id, fields, events) in games_with_events(conn, &ids)? {
                let Some(fields) = fields else {
                    tracing::warn!(game = %id, "redis: a live game has no record; skipped");
                    continue;
                };
                if fields.contains_key("ended_at_ms") {
                    index_finished(conn, id)?;
                    continue;
                }
                live.push(live_game_row(id, &fields, events)?);
            }
            Ok(live)
        })
    }

    fn rate_game(
        &self,
        game: GameId,
        players: [UserId; 2],
        update: RatingUpdate,
    ) -> Result<Option<[Glicko; 2]>, StoreError> {
        self.write(|conn| {
            for _ in 0..RATE_ATTEMPTS_MAX {
                let attempt = try_rate_game(conn, game, players, &*update);
                if attempt.is_err() {
                    // Leave no WATCH behind on a connection that goes back to the pool.
                    let _ = ::redis::cmd("UNWATCH").exec(conn);
                }
                if let RateAttempt::Rated(rated) = attempt? {
                    return Ok(rated);
                }
            }
            Err(StoreError::Backend(format!(
                "redis: ratings kept changing while game {game} was rated ({RATE_ATTEMPTS_MAX} attempts)"
            ))
            .into())
        })
    }

    fn create_event(&self, record_json: &str, _now_ms: u64) -> Result<EventId, StoreError> {
        self.write(|conn| {
            let id = EventId(::redis::cmd("INCR").arg(keys::EVENT_IDS).query(conn)?);
            // The record first, then the index that points at it.
            let _: () = ::redis::cmd("SET")
                .arg(keys::event(id))
                .arg(record_json)
                .query(conn)?;
            let _: () = ::redis::cmd("ZADD")
                .arg(keys::EVENTS)
                .arg(id.0)
                .arg(id.0)
                .query(conn)?;
            Ok(id)
        })
    }

    fn save_event(&self, event: EventId, record_json: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            // `XX`: only over a record that exists (`nil` otherwise).
            let saved: Option<String> = ::redis::cmd("SET")
                .arg(keys::event(event))
                .arg(record_json)
                .arg("XX")
                .query(conn)?;
            match saved {
                Some(_) => Ok(()),
                None => Err(StoreError::Backend(format!("no event {event} to save")).into()),
            }
        })
    }

    fn events(&self) -> Result<Vec<(EventId, String)>, StoreError> {
        self.read(|conn| {
            let mut events = Vec::new();
            for id in ids_in(conn, keys::EVENTS)? {
                let id = EventId(id);
                let record: Option<String> =
                    ::redis::cmd("GET").arg(keys::event(id)).query(conn)?;
                match record {
                    Some(record) => events.push((id, record)),
                    None => tracing::warn!(event = %id, "redis: a listed event has no record"),
                }
            }
            Ok(events)
        })
    }

    fn rating_history(&self, user: UserId, limit: usize) -> Result<Vec<RatingPoint>, StoreError> {
        self.read(|conn| {
            let Some(first) = limit.checked_sub(1).map(|last| -(last as i64) - 1) else {
                return Ok(Vec::new());
            };
            let points: Vec<String> = ::redis::cmd("LRANGE")
                .arg(keys::rating_history(user))
                .arg(first)
                .arg(-1)
                .query(conn)?;
            points
                .iter()
                .map(|text| {
                    let parts: Vec<&str> = text.split(' ').collect();
                    let [game, at_ms, rating] = parts[..] else {
                        return Err(corrupt("rating history", text).into());
                    };
                    Ok(RatingPoint {
                        game: GameId(parse_number("game id", game)?),
                        at_ms: parse_number("at_ms", at_ms)?,
                        rating: parse_number::<f64>("rating", rating)?.round() as i32,
                    })
                })
                .collect()
        })
    }

    fn rated_record(&self, user: UserId) -> Result<Vec<SizeRecord>, StoreError> {
        self.read(|conn| {
            let counts: HashMap<String, u64> = ::redis::cmd("HGETALL")
                .arg(keys::rated_record(user))
                .query(conn)?;
            let mut games = Vec::new();
            for (field, count) in counts {
                let parsed = field.split_once(' ').and_then(|(size, outcome)| {
                    Some((
                        size.parse::<u8>().ok()?,
                        RatedOutcome::parse(outcome)?,
                        count,
                    ))
                });
                let Some(counted) = parsed else {
                    return Err(corrupt("rated record", &field).into());
                };
                games.push(counted);
            }
            Ok(record_by_size(games))
        })
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

    fn games_of_user(
        &self,
        user: UserId,
        before: Option<GameId>,
        limit: usize,
    ) -> Result<Vec<GameListRow>, StoreError> {
        self.read(|conn| {
            // Scored by game id: the page is the ids below `before`, newest first.
            let below = before.map_or("+inf".to_string(), |game| format!("({}", game.0));
            let ids: Vec<String> = ::redis::cmd("ZREVRANGEBYSCORE")
                .arg(keys::user_games(user))
                .arg(below)
                .arg("-inf")
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query(conn)?;
            let ids: Vec<GameId> = ids
                .iter()
                .map(|id| parse_number("game id", id).map(GameId))
                .collect::<Result<_, _>>()?;
            // Redis refuses an empty pipeline.
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut pipe = ::redis::pipe();
            for &id in &ids {
                pipe.cmd("HGETALL").arg(keys::game(id));
            }
            let records: Vec<HashMap<String, String>> = pipe.query(conn)?;
            let mut names: HashMap<UserId, String> = HashMap::new();
            let mut rows = Vec::with_capacity(ids.len());
            for (id, fields) in ids.into_iter().zip(records) {
                if fields.is_empty() {
                    continue;
                }
                let game = new_game_from_fields(&fields)?;
                let mut name_of = |player: UserId| -> Result<String, Failure> {
                    if let Some(name) = names.get(&player) {
                        return Ok(name.clone());
                    }
                    let name: Option<String> = ::redis::cmd("HGET")
                        .arg(keys::user(player))
                        .arg("username")
                        .query(conn)?;
                    let name = name.ok_or_else(|| corrupt("game player", &player.to_string()))?;
                    names.insert(player, name.clone());
                    Ok(name)
                };
                rows.push(GameListRow {
                    id,
                    black: name_of(game.black)?,
                    white: name_of(game.white)?,
                    settings_json: game.settings_json,
                    result: fields.get("result").cloned(),
                    started_at_ms: game.started_at_ms,
                });
            }
            Ok(rows)
        })
    }

    fn apply_batch(&self, batch: &Batch) -> Result<Applied, StoreError> {
        self.write(|conn| {
            let reply: Vec<String> = call_function(conn, &ledger::apply_batch_call(batch))?;
            Ok(ledger::applied_from_reply(&reply)?)
        })
    }

    /// One round trip: the batches' function calls are pipelined. Each batch is atomic on its own
    /// (one function call), and a refused batch leaves the others applied; a malformed batch is
    /// refused on its own too. When the connection breaks (the outer error) some batches may have
    /// been applied: a retry finds them already applied, since transfer ids make it idempotent.
    fn apply_batches(
        &self,
        batches: &[Batch],
    ) -> Result<Vec<Result<Applied, StoreError>>, StoreError> {
        if batches.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|conn| {
            let mut pipe = ::redis::pipe();
            pipe.ignore_errors();
            for batch in batches {
                pipe.add_command(ledger::apply_batch_call(batch));
            }
            let mut replies: Vec<RedisResult<Vec<String>>> = pipe.query(conn)?;
            if replies
                .iter()
                .all(|reply| reply.as_ref().is_err_and(is_missing_function))
            {
                // None ran: load the library and send them again.
                load_functions(conn)?;
                replies = pipe.query(conn)?;
            }
            Ok(replies
                .into_iter()
                .map(|reply| match reply {
                    Ok(reply) => ledger::applied_from_reply(&reply),
                    Err(err) => Err(backend(err)),
                })
                .collect())
        })
    }

    fn balance(&self, account: Account) -> Result<i64, StoreError> {
        self.read(|conn| {
            let balance: Option<String> = ::redis::cmd("HGET")
                .arg(keys::LEDGER_BALANCES)
                .arg(account.key())
                .query(conn)?;
            Ok(balance
                .map(|text| parse_number("balance", &text))
                .transpose()?
                .unwrap_or(0))
        })
    }

    fn game_transfers(&self, game: GameId) -> Result<Vec<Transfer>, StoreError> {
        self.read(|conn| {
            let ids: Vec<String> = ::redis::cmd("LRANGE")
                .arg(keys::ledger_game(game))
                .arg(0)
                .arg(-1)
                .query(conn)?;
            transfers_by_id(conn, &ids)
        })
    }

    fn account_transfers(
        &self,
        account: Account,
        limit: usize,
    ) -> Result<Vec<Transfer>, StoreError> {
        self.read(|conn| {
            let ids = first_members(conn, "LRANGE", &keys::ledger_account(account), limit)?;
            transfers_by_id(conn, &ids)
        })
    }

    fn settlements(&self, game: GameId) -> Result<Vec<SettlementRecord>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::ledger_settlements(game))
                .query(conn)?;
            let mut records = stored
                .iter()
                .map(|(part, json)| ledger::settlement_from_json(game, part, json))
                .collect::<Result<Vec<_>, _>>()?;
            records.sort_by_key(|record| record.part.as_str());
            Ok(records)
        })
    }

    fn account_balances(&self) -> Result<Vec<AccountBalance>, StoreError> {
        self.read(|conn| {
            let stored: HashMap<String, String> = ::redis::cmd("HGETALL")
                .arg(keys::LEDGER_BALANCES)
                .query(conn)?;
            let mut balances = stored
                .iter()
                .map(|(key, balance)| {
                    Ok(AccountBalance {
                        account: Account::from_key(key).ok_or_else(|| corrupt("account", key))?,
                        balance: parse_number("balance", balance)?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            // SQLite's order: by the account's key.
            balances.sort_by_key(|entry| entry.account.key());
            Ok(balances)
        })
    }

    fn granted_total(&self) -> Result<u64, StoreError> {
        self.read(|conn| {
            let total: Option<String> =
                ::redis::cmd("GET").arg(keys::LEDGER_GRANTED).query(conn)?;
            Ok(total
                .map(|text| parse_number("granted total", &text))
                .transpose()?
                .unwrap_or(0))
        })
    }

    fn settled_games(&self) -> Result<Vec<GameId>, StoreError> {
        self.read(|conn| {
            Ok(ids_in(conn, keys::LEDGER_SETTLED)?
                .into_iter()
                .map(GameId)
                .collect())
        })
    }

    fn unsettled_finished_games(&self) -> Result<Vec<LiveGameRow>, StoreError> {
        self.read(|conn| {
            let ids = ids_in(conn, keys::UNSETTLED_GAMES)?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let settled: Vec<Option<f64>> = ::redis::cmd("ZMSCORE")
                .arg(keys::LEDGER_SETTLED)
                .arg(&ids)
                .query(conn)?;
            let (settled, unsettled): (Vec<_>, Vec<_>) = ids
                .iter()
                .zip(settled)
                .partition(|(_, score)| score.is_some());
            if !settled.is_empty() {
                let settled: Vec<u64> = settled.into_iter().map(|(&id, _)| id).collect();
                ::redis::cmd("ZREM")
                    .arg(keys::UNSETTLED_GAMES)
                    .arg(&settled)
                    .exec(conn)?;
            }
            let unsettled: Vec<u64> = unsettled.into_iter().map(|(&id, _)| id).collect();
            let mut rows = Vec::with_capacity(unsettled.len());
            for (id, fields, events) in games_with_events(conn, &unsettled)? {
                // Only games whose end is recorded: one being finished right now is not yet.
                match fields {
                    Some(fields) if fields.contains_key("ended_at_ms") => {
                        rows.push(live_game_row(id, &fields, events)?);
                    }
                    _ => {}
                }
            }
            Ok(rows)
        })
    }
}

#[cfg(test)]
mod tests;
