//! What nodes say to each other through Redis pub/sub: requests for a game or the hall owned by
//! another node and their replies (on each node's own channel), a game's frames (on the game's
//! channel) and the hall's pushes (on the hall channel). The requests themselves are the game's and
//! the hall's own ([`GameRequest`], [`HallRequest`]), carried as they are; what they do is the
//! game's and the hall's business. Here are only the envelopes, and the few questions that are the
//! cluster's own (a game's snapshot, players and followers, a game to start).

use serde::{Deserialize, Serialize};
use tengen_protocol::{ErrorCode, GameId, GameSummary, PlayerInfo, UserId};

use crate::game::{GameReply, GameRequest, StartGame};
use crate::hall::{HallReply, HallRequest, Recipients};
use crate::{Frame, Refusal, Reply};

/// A node's identity for this run of the process: random at start, so a restarted node is a new node
/// and its predecessor's games are taken over like any dead node's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub u64);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// A message on a node's own channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeMsg {
    /// `id` 0 asks for no reply (notifications such as `online`).
    Request {
        from: NodeId,
        id: u64,
        body: Request,
    },
    Reply {
        id: u64,
        result: Result<Response, Refusal>,
    },
}

/// What one node asks of another.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum Request {
    /// A request to a game the receiving node runs.
    Game { game: GameId, request: GameRequest },
    /// A request to the hall, which the receiving node runs.
    Hall { request: HallRequest },
    /// The game's state now, for a node that starts mirroring it.
    GameSnapshot { game: GameId },
    /// The game's players (Black, White), for a node that makes a stand-in for it.
    GamePlayers { game: GameId },
    /// Who follows the game on the asking node: the players with at least one connection there
    /// (the owner holds their presence, so a player on another node is not "away"), and the
    /// watchers (the owner counts them in its list for that node).
    GamePresence {
        game: GameId,
        players: Vec<PlayerInfo>,
        watchers: Vec<PlayerInfo>,
        anonymous: u32,
    },
    /// From the hall's node: start this game here (where its Black player is connected).
    StartGame { start: StartGame },
}

/// The answers: a game's or the hall's own, or one of the cluster's questions'.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Response {
    Game {
        reply: GameReply,
    },
    Hall {
        reply: HallReply,
    },
    Snapshot {
        #[serde(with = "crate::frame_text")]
        text: Frame,
        seq: u64,
    },
    Players {
        players: [UserId; 2],
    },
    Started {
        summary: GameSummary,
    },
}

/// Answers the local asker once the remote reply arrives (or the request fails).
pub type Completer = Box<dyn FnOnce(Result<Response, Refusal>) + Send>;

/// A completer that passes the game's reply in a response on to `reply`.
pub fn game_completer(reply: Reply<GameReply>) -> Completer {
    Box::new(move |result| {
        let _ = reply.send(result.and_then(|response| match response {
            Response::Game { reply } => Ok(reply),
            other => Err(mismatch(&other)),
        }));
    })
}

/// A completer that passes the hall's reply in a response on to `reply`.
pub fn hall_completer(reply: Reply<HallReply>) -> Completer {
    Box::new(move |result| {
        let _ = reply.send(result.and_then(|response| match response {
            Response::Hall { reply } => Ok(reply),
            other => Err(mismatch(&other)),
        }));
    })
}

/// A reply that does not have the shape the request expects: the other node runs other code.
pub fn mismatch(response: &Response) -> Refusal {
    tracing::error!(?response, "a node answered in an unexpected shape");
    Refusal::new(
        ErrorCode::Internal,
        "a node answered in an unexpected shape",
    )
}

/// A message on a game's channel, from the node that owns it. Encoded by hand ([`GameWire::encode`])
/// rather than as one JSON document: a frame's text is already JSON, and carrying it after a header
/// line, as it is, spares escaping and unescaping every event on every node.
#[derive(Debug, PartialEq, Eq)]
pub enum GameWire {
    Frame {
        seq: Option<u64>,
        hidden_from: [Option<UserId>; 2],
        text: String,
    },
    /// The owner's relay fell behind and frames were lost: mirrors fetch a fresh snapshot.
    Resync,
    /// The game's actor stopped on its owner (the game ended, or the node lost the game).
    Closed,
}

/// The header line of an encoded [`GameWire::Frame`].
#[derive(Serialize, Deserialize)]
struct FrameHeader {
    seq: Option<u64>,
    hidden_from: [Option<UserId>; 2],
}

impl GameWire {
    /// `F<header JSON>\n<text>`, `R` or `C`.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            GameWire::Frame {
                seq,
                hidden_from,
                text,
            } => {
                let header = FrameHeader {
                    seq: *seq,
                    hidden_from: *hidden_from,
                };
                let mut bytes = b"F".to_vec();
                // A struct of numbers always serializes.
                bytes.extend(serde_json::to_vec(&header).unwrap_or_default());
                bytes.push(b'\n');
                bytes.extend(text.as_bytes());
                bytes
            }
            GameWire::Resync => b"R".to_vec(),
            GameWire::Closed => b"C".to_vec(),
        }
    }

    pub fn decode(bytes: &[u8]) -> Result<GameWire, String> {
        match bytes.split_first() {
            Some((b'R', [])) => Ok(GameWire::Resync),
            Some((b'C', [])) => Ok(GameWire::Closed),
            Some((b'F', rest)) => {
                let newline = rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .ok_or("a game frame without its header line")?;
                let header: FrameHeader =
                    serde_json::from_slice(&rest[..newline]).map_err(|err| err.to_string())?;
                let text = std::str::from_utf8(&rest[newline + 1..])
                    .map_err(|err| err.to_string())?
                    .to_string();
                Ok(GameWire::Frame {
                    seq: header.seq,
                    hidden_from: header.hidden_from,
                    text,
                })
            }
            _ => Err("not a game channel message".into()),
        }
    }
}

/// A hall push on the hall channel, from the node that owns the hall.
#[derive(Debug, Serialize, Deserialize)]
pub struct HallWire {
    pub from: NodeId,
    /// (Named `audience` between nodes since the first cluster release.)
    #[serde(rename = "audience")]
    pub recipients: Recipients,
    pub text: String,
    pub started_game: Option<GameId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_wires_round_trip_and_junk_is_refused() {
        let frame = GameWire::Frame {
            seq: Some(7),
            hidden_from: [Some(UserId(3)), None],
            text: r#"{"type":"game_event","note":"a\nb"}"#.into(),
        };
        for wire in [frame, GameWire::Resync, GameWire::Closed] {
            assert_eq!(GameWire::decode(&wire.encode()), Ok(wire));
        }
        for junk in [&b""[..], b"X", b"F{}", b"F{\"seq\":1}\n{}", b"Rx"] {
            assert!(GameWire::decode(junk).is_err(), "{junk:?}");
        }
    }
}
