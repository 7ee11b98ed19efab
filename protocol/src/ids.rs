//! Ids and request keys: every id on the wire is a newtype, so a game id can never be passed where a
//! user id is meant, and a retry key is checked once where it is read.

use serde::{Deserialize, Serialize};

macro_rules! newtype_id {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

newtype_id!(
    /// A game, live or finished; assigned by the store, never reused.
    GameId(u64)
);
newtype_id!(
    /// An account.
    UserId(u64)
);
newtype_id!(
    /// A table in a room; unique across the whole hall.
    TableId(u32)
);
newtype_id!(
    /// A room of the hall.
    RoomId(u32)
);
newtype_id!(
    /// A direct challenge from one player to another, until it is accepted or declined.
    ChallengeId(u64)
);
newtype_id!(
    /// A competition (tournament or match); assigned by the store, never reused.
    EventId(u64)
);
newtype_id!(
    /// A chat line, kept for a while so it can be reported and removed; assigned by the store, so
    /// unique across every node, never reused.
    ChatLineId(u64)
);
newtype_id!(
    /// A report to the moderators; assigned by the store, never reused.
    ReportId(u64)
);
newtype_id!(
    /// The client's own number for a request, echoed by the reply.
    RequestId(u64)
);

/// Longest [`RequestKey`] in bytes: room for a UUID (36) or 32 random bytes in base64url (43), and
/// small enough that a game keeping every key it saw stays small.
pub const REQUEST_KEY_LEN_MAX: usize = 64;

/// A client-chosen key that makes a request that changes something (a move, a pass, a resignation,
/// a bet, a stake raise) safe to send again: the server records it with the effect, and a request
/// with a key it already recorded for the same user and game gets the first outcome instead of
/// acting twice (TigerBeetle's transfer ids, for clients). Send a fresh key per intent, and resend
/// the same key when retrying. 1..=[`REQUEST_KEY_LEN_MAX`] characters of `A-Z a-z 0-9 _ -`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RequestKey(String);

impl RequestKey {
    /// The key, if `text` is a well-formed one.
    pub fn new(text: impl Into<String>) -> Result<RequestKey, String> {
        let text = text.into();
        let well_formed = (1..=REQUEST_KEY_LEN_MAX).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if well_formed {
            Ok(RequestKey(text))
        } else {
            Err(format!(
                "a key is 1 to {REQUEST_KEY_LEN_MAX} characters of A-Z a-z 0-9 _ -"
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RequestKey {
    type Error = String;

    fn try_from(text: String) -> Result<RequestKey, String> {
        RequestKey::new(text)
    }
}

impl From<RequestKey> for String {
    fn from(key: RequestKey) -> String {
        key.0
    }
}

impl std::fmt::Display for RequestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
