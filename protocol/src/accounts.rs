//! The connection and the account on it: `hello`, registering, logging in, resuming and logging out.

use serde::{Deserialize, Serialize};

use crate::is_false;

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
