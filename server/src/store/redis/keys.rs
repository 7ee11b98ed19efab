//! Every Redis key the store uses, in one place. Each key carries a hash tag (`{...}`) chosen so
//! that whatever must change atomically shares one slot: a user's record and game list (`{u:ID}`),
//! a game's record and event log (`{g:ID}`), a session (`{s:DIGEST}`), the username and skeleton indexes, the
//! user id counter and the schema version (`{users}`), the throttle counters (`{throttle}`), the game id counter and game indexes (`{games}`), the ratings (`{ratings}`)
//! the whole fortune-point ledger (`{ledger}`), and players' relations (`{relations}`). Steps that span tags (create a user, then claim
//! the name) are ordered so a crash between them leaves only an unreachable leftover.
//!
//! The ledger's key names are built by the Lua library too (`functions.lua`); the two must agree.

use tengen_protocol::{ChatLineId, EventId, GameId, UserId};

use crate::book::Account;
use crate::store::RelationKind;

/// The others `user` holds `kind` to (follows, blocks, mutes), a sorted set scored by when they
/// did. Every relation key shares the `{relations}` tag: adding one writes two users' keys at once.
pub fn relations_held(user: UserId, kind: RelationKind) -> String {
    format!("{{relations}}:{user}:{}", kind.as_str())
}

/// The users holding `kind` to `user` (their followers, their blockers), a set.
pub fn relations_toward(user: UserId, kind: RelationKind) -> String {
    format!("{{relations}}:{user}:{}:by", kind.as_str())
}

/// The counter that assigns user ids (INCR).
pub const USER_IDS: &str = "{users}:next_id";
/// A username's key (`Username::key`) to the user id: what finds an account, unique.
pub const USERS_BY_NAME: &str = "{users}:by_name";
/// A username's confusable skeleton (`Username::skeleton`) to the id of the oldest account with it:
/// a new name whose skeleton is here passes for that account's and is refused.
pub const USERS_BY_SKELETON: &str = "{users}:by_skeleton";
/// The version of the store's schema (see `schema`); absent for a store made before versions were kept.
pub const SCHEMA_VERSION: &str = "{users}:schema";
/// Every account's `key NUL id` (the caseless key of its name, a zero byte, its id), in one sorted
/// set of equal scores so that a name's prefix is a lexicographic range (`ZRANGEBYLEX`): finding
/// players by the start of their name.
pub const USERS_BY_PREFIX: &str = "{users}:by_prefix";

/// A user's hash: `username`, `password_hash`, `computer` (0 or 1), `created_at_ms`.
pub fn user(user: UserId) -> String {
    format!("{{u:{user}}}")
}

/// The games a user played, as a sorted set scored by game id (so newest first is a reverse range).
pub fn user_games(user: UserId) -> String {
    format!("{{u:{user}}}:games")
}

/// The token digests of a user's sessions (a set), for "log out everywhere". A hint: a digest whose
/// session expired or was deleted is skipped and dropped when read.
pub fn user_sessions(user: UserId) -> String {
    format!("{{u:{user}}}:sessions")
}

/// A throttle counter's hash (`count`, `last_ms`, `expires_at_ms`), with a TTL. Every counter
/// shares the `{throttle}` tag so that one function call checks and counts several at once.
pub fn throttle(key: &str) -> String {
    format!("{{throttle}}:{key}")
}

/// A session's hash: `user` and `expires_at_ms`.
pub fn session(token_digest: &str) -> String {
    format!("{{s:{token_digest}}}")
}

/// Every session's digest scored by its expiry, so purging finds the expired ones without a scan.
pub const SESSIONS_BY_EXPIRY: &str = "{sessions}:by_expiry";

/// The counter that assigns competition ids (INCR).
pub const EVENT_IDS: &str = "{events}:next_id";
/// Every competition's id, scored by id.
pub const EVENTS: &str = "{events}:all";

/// A competition's record (JSON, see `competition::record`).
pub fn event(event: EventId) -> String {
    format!("{{ev:{event}}}")
}

/// The counter that assigns game ids (INCR).
pub const GAME_IDS: &str = "{games}:next_id";
/// Games started and not finished, scored by id. A hint kept beside each game's own hash (which
/// is the truth): a game found finished here is moved to [`UNSETTLED_GAMES`] when read.
pub const LIVE_GAMES: &str = "{games}:live";
/// Finished games not yet known to be settled, scored by id; settled ones are dropped when read.
pub const UNSETTLED_GAMES: &str = "{games}:unsettled";

/// A game's hash: `black`, `white`, `table`, `settings`, `nigiri_seed`, `started_at_ms`, and once
/// finished `ended_at_ms`, `result`, `sgf`.
pub fn game(game: GameId) -> String {
    format!("{{g:{game}}}")
}

/// A game's event log: a hash from `seq` to the event's JSON (so a duplicate seq is refused by
/// HSETNX, as SQLite's primary key refuses it).
pub fn game_events(game: GameId) -> String {
    format!("{{g:{game}}}:events")
}

/// The node that owns a live game and the fence number of its lease (`<node> <fence>`), written
/// by the cluster's lease scripts and checked by every event append; under the game's tag so that
/// check is atomic with the append.
pub fn game_owner(game: GameId) -> String {
    format!("{{g:{game}}}:owner")
}

/// User id to Glicko-2 state (`rating deviation volatility games`), under one tag with
/// [`RATED_GAMES`] so rating a game is one WATCH/MULTI on one slot.
pub const GLICKO: &str = "{ratings}:glicko";
/// The games already rated, so a game never moves ratings twice.
pub const RATED_GAMES: &str = "{ratings}:rated";

/// A player's rating after each rated game, oldest first (a list of `game at_ms rating`), under
/// the ratings' tag so it is written in the rating's own transaction.
pub fn rating_history(user: UserId) -> String {
    format!("{{ratings}}:history:{user}")
}

/// A player's rated results, counted by `size outcome` ("19 win"), under the ratings' tag.
pub fn rated_record(user: UserId) -> String {
    format!("{{ratings}}:record:{user}")
}

/// The ledger's hash tag, the key prefix every ledger key shares and the one key the batch function
/// is called with.
pub const LEDGER: &str = "{ledger}";
/// Account key (`Account::key`) to balance.
pub const LEDGER_BALANCES: &str = "{ledger}:balances";
/// Transfer id to the transfer's JSON (every field a string).
pub const LEDGER_TRANSFERS: &str = "{ledger}:transfers";
/// The sum of every grant ever applied.
pub const LEDGER_GRANTED: &str = "{ledger}:granted";
/// Settled game ids, scored by id.
pub const LEDGER_SETTLED: &str = "{ledger}:settled";
/// The append-only stream of every applied transfer, for auditors. Only `functions.lua` writes it;
/// the store reads it only in tests.
#[cfg(test)]
pub const LEDGER_AUDIT: &str = "{ledger}:audit";

/// A game's transfer ids, oldest first.
pub fn ledger_game(game: GameId) -> String {
    format!("{LEDGER}:game:{game}")
}

/// An account's transfer ids, newest first.
pub fn ledger_account(account: Account) -> String {
    format!("{LEDGER}:account:{}", account.key())
}

/// A game's settlement records: part (`pool`, `stakes`) to the record's JSON.
pub fn ledger_settlements(game: GameId) -> String {
    format!("{LEDGER}:settlements:{game}")
}

/// An account's role (`moderator`, `admin`; absent for a user), beside its record under its tag.
pub fn role(user: UserId) -> String {
    format!("{{u:{user}}}:role")
}

/// A mute or ban set on an account: a hash of `until_ms` (absent for good) and `reason`.
pub fn sanction(user: UserId, kind: &str) -> String {
    format!("{{u:{user}}}:{kind}")
}

/// The counter that assigns chat line ids (INCR), one for every node.
pub const CHAT_LINE_IDS: &str = "{chat}:next_id";

/// A kept chat line: `<channel key> <line JSON>`, expiring with the time lines are kept.
pub fn chat_line(line: ChatLineId) -> String {
    format!("{{chat}}:line:{line}")
}

/// A channel's kept line ids, oldest first, trimmed to the count a channel keeps and expiring with
/// its newest line.
pub fn chat_channel(channel_key: &str) -> String {
    format!("{{chat}}:channel:{channel_key}")
}

/// The counter that assigns report ids (INCR).
pub const REPORT_IDS: &str = "{mod}:report_ids";
/// Report id to its record's JSON.
pub const REPORTS: &str = "{mod}:reports";
/// The open reports' ids, scored by id: ZREM closes one, exactly once.
pub const REPORTS_OPEN: &str = "{mod}:reports_open";
/// The counter that numbers moderation log entries (INCR).
pub const MOD_LOG_IDS: &str = "{mod}:log_ids";
/// Log entry number to its JSON; nothing deletes from it.
pub const MOD_LOG: &str = "{mod}:log";
