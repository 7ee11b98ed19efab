//! People on the wire: a participant as every list shows them (name, rank, rating).

use serde::{Deserialize, Serialize};

use crate::{is_false, UserId};

/// A participant as the hall lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    pub user: UserId,
    pub username: String,
    /// Kyu/dan rank ("3k", "1d"); "3k?" while the rating is provisional; "?" with no rating at all.
    pub rank: String,
    pub rating: i32,
    /// A computer player (an engine connected with `tengen bot`): the hall offers to play it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub computer: bool,
}
