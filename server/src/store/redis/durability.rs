//! The check made when the Redis store opens: the server must be configured so that a write it
//! acknowledges is on disk and is never evicted, since the store acknowledges moves and points only
//! once Redis has. Redis 7.0 has no WAITAOF, so the only way to know an acknowledged write is
//! durable is `appendfsync always` (every write is fsynced to the append-only file before Redis
//! replies). A server that fails the check is refused with every problem named and how to fix it,
//! unless the operator allowed an unsafe Redis (then each problem is logged as a warning).

use std::collections::HashMap;

use redis::Connection;

use crate::BoxError;

/// A setting the store needs, the value it needs, and why.
struct Requirement {
    setting: &'static str,
    required: &'static str,
    why: &'static str,
}

const REQUIREMENTS: [Requirement; 3] = [
    Requirement {
        setting: "appendonly",
        required: "yes",
        why: "without the append-only file, a restart loses every write since the last snapshot",
    },
    Requirement {
        setting: "appendfsync",
        required: "always",
        why: "only an fsync before each reply makes an acknowledged move or bet survive a crash",
    },
    Requirement {
        setting: "maxmemory-policy",
        required: "noeviction",
        why: "any other policy may silently delete accounts, games or ledger entries when memory \
              runs short",
    },
];

/// What is wrong with the server's configuration, one sentence per problem (none when it is fine).
fn problems(conn: &mut Connection) -> Vec<String> {
    let mut found = Vec::new();
    for requirement in &REQUIREMENTS {
        let reply: Result<HashMap<String, String>, _> = ::redis::cmd("CONFIG")
            .arg("GET")
            .arg(requirement.setting)
            .query(conn);
        let actual = match reply {
            Ok(mut values) => values.remove(requirement.setting),
            Err(err) => {
                return vec![format!(
                    "CONFIG GET failed ({err}): CONFIG is probably disabled or renamed on this \
                     server, so its durability settings cannot be checked; enable CONFIG, or \
                     check by hand that appendonly is yes, appendfsync is always and \
                     maxmemory-policy is noeviction and start with --redis-allow-unsafe"
                )];
            }
        };
        let actual = actual.unwrap_or_default();
        if actual != requirement.required {
            found.push(format!(
                "{setting} is {actual:?} but must be {required:?} ({why}): set \
                 `{setting} {required}` in redis.conf, or run `CONFIG SET {setting} {required}` \
                 and `CONFIG REWRITE`",
                setting = requirement.setting,
                required = requirement.required,
                why = requirement.why,
            ));
        }
    }
    found
}

/// Refuse a server that could lose acknowledged writes, unless `allow_unsafe`.
pub(super) fn check(conn: &mut Connection, allow_unsafe: bool) -> Result<(), BoxError> {
    let found = problems(conn);
    if found.is_empty() {
        return Ok(());
    }
    if allow_unsafe {
        for problem in &found {
            tracing::warn!(%problem, "redis may lose acknowledged writes (allowed by --redis-allow-unsafe)");
        }
        return Ok(());
    }
    Err(format!(
        "this Redis could lose acknowledged writes, so the store refuses it:\n- {}\n\
         (--redis-allow-unsafe starts anyway, for experiments only)",
        found.join("\n- ")
    )
    .into())
}
