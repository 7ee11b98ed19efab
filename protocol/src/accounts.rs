//! The connection and the account on it: `hello`, registering, logging in, resuming and logging out,
//! and what the server sends back: `welcome`, the `ack` and `error` that answer a request of any
//! area, the `session` a login opens and the `logged_out` that ends it from elsewhere.

use serde::{Deserialize, Serialize};

use crate::{is_false, is_zero, ErrorCode, RequestId, Role, UserId};

/// Why a connection was logged out by a push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogoutReason {
    /// Its token was logged out on another connection.
    Logout,
    /// The account logged out everywhere.
    LogoutAll,
    /// A moderator banned the account: every session ended, and logging in is refused until the
    /// ban ends.
    Banned,
}

/// The first message of every connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConnectionMsg {
    /// First message on a connection: the protocol version the client speaks.
    Hello { version: u32 },
}

impl ConnectionMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &["hello"];
}

/// What the server sends about the connection itself: the reply to `hello`, and `ack` and `error`,
/// the replies to a request of any area that has no data to give back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConnectionServerMsg {
    /// Reply to `hello`.
    Welcome {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        version: u32,
        server: String,
    },
    /// A request succeeded.
    Ack {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
    },
    /// A request failed (or a frame could not be read); nothing changed.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    },
}

impl ConnectionServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &["welcome", "ack", "error"];
}

/// What a client sends to register, log in, resume a session and log out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AccountsMsg {
    Register {
        username: String,
        password: String,
        /// Registers a computer player (what `tengen bot --register` sends); shown as such in the hall.
        #[serde(default, skip_serializing_if = "is_false")]
        computer: bool,
        /// The rank the player says they are ("30k".."1k", "1d".."9d"), as OGS and KGS ask: their
        /// starting rating, which their games then correct. Absent: 1500 (6k).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank: Option<String>,
    },
    Login {
        username: String,
        password: String,
    },
    /// Re-authenticate a new connection with a session token from `session`.
    Resume {
        token: String,
    },
    /// End the session: the token stops working, and every other connection using it is logged out.
    Logout,
    /// End every session of this account ("log out everywhere"): all its tokens stop working and
    /// all its other connections are logged out.
    LogoutAll,
}

impl AccountsMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] =
        &["register", "login", "resume", "logout", "logout_all"];
}

/// What the server sends about the account on a connection: the session a login opens, and the
/// push that ends it from elsewhere (a logout on another connection, or a ban).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AccountsServerMsg {
    /// Reply to `register`, `login` and `resume`: who you are and the token to resume with.
    Session {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        user: UserId,
        username: String,
        token: String,
        expires_at_ms: u64,
        /// Starting fortune points not granted yet: a new account's grant waits for its first
        /// finished game or a day. Absent (0) once granted.
        #[serde(default, skip_serializing_if = "is_zero")]
        pending_grant: u64,
        /// When the pending grant lands at the latest (at the next login or resume from then on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_due_at_ms: Option<u64>,
        /// A moderator or an admin (absent for everyone else).
        #[serde(default, skip_serializing_if = "Role::is_user")]
        role: Role,
        /// While a moderator's mute holds: when it ends (Unix ms), and why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        muted_until_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        muted_reason: Option<String>,
    },
    /// Pushed when this connection's session ended elsewhere (`logout` on another connection with the
    /// same token, or `logout_all` on any): the connection is not logged in any more.
    LoggedOut {
        reason: LogoutReason,
        /// For a ban: the moderator's reason.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ban_reason: Option<String>,
        /// For a ban that ends: when (Unix ms); absent for a permanent one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        banned_until_ms: Option<u64>,
    },
}

impl AccountsServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &["session", "logged_out"];
}
