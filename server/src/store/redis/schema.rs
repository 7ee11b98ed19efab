//! The version of what the Redis store keeps and the steps between versions, run when a node opens
//! the store. The version is a number under `{users}:schema` (absent, version 0, in a store made
//! before versions were kept); each step is idempotent and the version is set only after it has
//! run, so nodes that start together may both run one, and a node that dies halfway leaves it for
//! the next to finish.

use std::collections::BTreeMap;

use redis::Connection;
use tengen_protocol::{GameId, UserId};

use super::accounts::prefix_entry;
use super::connections::Failure;
use super::ratings::rated_game_entries;
use super::records::parse_number;
use super::{call_function, function, keys};
use crate::store::StoreError;
use crate::username::Username;

/// One step from a version to the next.
type Migration = fn(&mut Connection) -> Result<(), Failure>;

/// The steps from each version to the next, in order: a store at version `n` has had the first `n`.
const MIGRATIONS: &[Migration] = &[keyed_usernames, profiles, moderation, relations];

/// Bring the store to the newest version, refusing one written by a newer server.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), Failure> {
    let version: Option<String> = ::redis::cmd("GET").arg(keys::SCHEMA_VERSION).query(conn)?;
    let done: usize = match version {
        Some(text) => parse_number("schema version", &text)?,
        None => 0,
    };
    let known = MIGRATIONS.len();
    if done > known {
        return Err(StoreError::Backend(format!(
            "redis holds schema version {done}, newer than this tengen's {known}: run a newer tengen"
        ))
        .into());
    }
    for (from, step) in MIGRATIONS.iter().enumerate().skip(done) {
        step(conn)?;
        ::redis::cmd("SET")
            .arg(keys::SCHEMA_VERSION)
            .arg(from + 1)
            .exec(conn)?;
        tracing::info!(version = from + 1, "store schema migrated");
    }
    Ok(())
}

/// Version 1: usernames in any script. Every account in the name index is indexed by its name's
/// caseless key instead of its ASCII lowercase (the same for the ASCII names of version 0), and by
/// its confusable skeleton, oldest account first: when older accounts' names look alike ("corn" and
/// "com"), the oldest holds the skeleton, the others keep their accounts and names, and no new name
/// may look like any of them.
fn keyed_usernames(conn: &mut Connection) -> Result<(), Failure> {
    let indexed: Vec<(String, String)> = ::redis::cmd("HGETALL")
        .arg(keys::USERS_BY_NAME)
        .query(conn)?;
    let mut accounts = indexed
        .into_iter()
        .map(|(key, id)| Ok((UserId(parse_number("user id", &id)?), key)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    accounts.sort();
    let mut lookalikes = 0;
    for (id, old_key) in accounts {
        let name: Option<String> = ::redis::cmd("HGET")
            .arg(keys::user(id))
            .arg("username")
            .query(conn)?;
        let Some(name) = name else {
            tracing::warn!(%id, "the name index points at an account without a record; left as it is");
            continue;
        };
        let name = Username::stored(&name);
        let call = function(
            "tengen_rekey_username",
            &[keys::USERS_BY_NAME, keys::USERS_BY_SKELETON],
        )
        .arg(&old_key)
        .arg(name.key())
        .arg(name.skeleton())
        .arg(id.0)
        .to_owned();
        let (keyed, held): (bool, bool) = call_function(conn, &call)?;
        if !keyed {
            tracing::warn!(%id, name = %name, "username key taken; the account keeps its old key");
        }
        if !held {
            lookalikes += 1;
        }
    }
    if lookalikes > 0 {
        tracing::info!(
            lookalikes,
            "accounts whose names look like an older account's are kept; new names cannot look like either"
        );
    }
    Ok(())
}

/// Version 2: what profiles show. Every account enters the prefix index of names (see
/// [`keys::USERS_BY_PREFIX`]); every game rated before enters its players' counts of results by
/// board (see `keys::rated_record`), with no point on their rating history, which was never kept
/// per game. The counts are set, not added to, so a node that runs the step again sets the same.
fn profiles(conn: &mut Connection) -> Result<(), Failure> {
    let indexed: Vec<(String, String)> = ::redis::cmd("HGETALL")
        .arg(keys::USERS_BY_NAME)
        .query(conn)?;
    for (key, id) in &indexed {
        let id = UserId(parse_number("user id", id)?);
        ::redis::cmd("ZADD")
            .arg(keys::USERS_BY_PREFIX)
            .arg(0)
            .arg(prefix_entry(key, id))
            .exec(conn)?;
    }
    let mut rated: Vec<u64> = ::redis::cmd("SMEMBERS")
        .arg(keys::RATED_GAMES)
        .query(conn)?;
    rated.sort_unstable();
    let mut counts: BTreeMap<UserId, BTreeMap<String, u64>> = BTreeMap::new();
    for game in &rated {
        let game = GameId(*game);
        let players: Vec<Option<String>> = ::redis::cmd("HMGET")
            .arg(keys::game(game))
            .arg(&["black", "white"])
            .query(conn)?;
        let [Some(black), Some(white)] = &players[..] else {
            tracing::warn!(%game, "a rated game without its record: left out of the histories");
            continue;
        };
        let players = [
            UserId(parse_number("black", black)?),
            UserId(parse_number("white", white)?),
        ];
        for (user, entry) in rated_game_entries(conn, game, players, [None, None])? {
            let field = format!("{} {}", entry.size, entry.outcome.as_str());
            *counts.entry(user).or_default().entry(field).or_default() += 1;
        }
    }
    for (user, fields) in counts {
        let mut set = ::redis::cmd("HSET");
        set.arg(keys::rated_record(user));
        for (field, count) in fields {
            set.arg(field).arg(count);
        }
        set.exec(conn)?;
    }
    tracing::info!(
        accounts = indexed.len(),
        games = rated.len(),
        "names indexed for search, rated games counted in the players' records"
    );
    Ok(())
}

/// Version 3: moderation. Roles, mutes and bans, kept chat lines, reports and the moderation log
/// are new keys (see `keys`) that start empty: an account without a role is a user, without a
/// sanction is free. Nothing older changes shape, so the step has nothing to convert.
fn moderation(_conn: &mut Connection) -> Result<(), Failure> {
    Ok(())
}

/// Version 4: players' relations (see `keys::relations_held`). They start empty, so there is
/// nothing to convert; the version marks a store that an older tengen, which would not keep them
/// in step, must not open.
fn relations(_conn: &mut Connection) -> Result<(), Failure> {
    Ok(())
}
