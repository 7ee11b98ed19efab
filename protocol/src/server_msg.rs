//! What every message the server sends has in common, whatever its area: the `type`s it may have,
//! reading one back by the area its `type` names (for the load generator, the bot and tests), the
//! two replies every area gives (`ack` and `error`), and the text of a frame. [`ServerMsg`] itself,
//! one variant per area, is made beside [`ClientMsg`](crate::ClientMsg) in `lib.rs`, by the macro
//! that lists the areas once for both directions.

use serde::{Deserialize, Deserializer};

use crate::{
    deserialize_routed, ConnectionServerMsg, ErrorCode, RequestId, ServerMsg, SERVER_AREAS,
};

impl ServerMsg {
    /// Every `type` the server sends, area by area.
    pub fn types() -> impl Iterator<Item = &'static str> {
        SERVER_AREAS
            .iter()
            .flat_map(|(types, _)| types.iter().copied())
    }

    /// A request succeeded.
    pub fn ack(id: Option<RequestId>) -> ServerMsg {
        ConnectionServerMsg::Ack { id }.into()
    }

    /// An error reply.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ConnectionServerMsg::Error {
            id,
            code,
            message: message.into(),
        }
        .into()
    }

    /// Serialize to the text of one frame. Serializing these types cannot fail (no maps with non-string
    /// keys, no floats), so a failure is a bug.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("ServerMsg always serializes")
    }
}

impl<'de> Deserialize<'de> for ServerMsg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ServerMsg, D::Error> {
        deserialize_routed(deserializer, SERVER_AREAS)
    }
}
