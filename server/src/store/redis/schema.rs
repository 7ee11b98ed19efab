//! The version of what the Redis store keeps and the steps between versions, run when a node opens
//! the store. The version is a number under `{users}:schema` (absent, version 0, in a store made
//! before versions were kept); each step is idempotent and the version is set only after it has
//! run, so nodes that start together may both run one, and a node that dies halfway leaves it for
//! the next to finish.

use redis::Connection;
use tengen_protocol::UserId;

use super::connections::Failure;
use super::records::parse_number;
use super::{call_function, function, keys};
use crate::store::StoreError;
use crate::username::Username;

/// One step from a version to the next.
type Migration = fn(&mut Connection) -> Result<(), Failure>;

/// The steps from each version to the next, in order: a store at version `n` has had the first `n`.
const MIGRATIONS: &[Migration] = &[keyed_usernames];

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
