//! What nodes say to each other through Redis pub/sub, as serde types: requests for a game or the
//! hall owned by another node and their replies (on each node's own channel), a game's frames (on the
//! game's channel) and the hall's pushes (on the hall channel). Also the two translations each
//! forwarded command needs: a local command with a oneshot reply becomes a request plus a
//! [`Completer`] that answers the oneshot when the reply arrives (on the asking node), and a request
//! becomes a local command plus an [`Answer`] future (on the owning node). What the commands do is the
//! game's and the hall's business.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use tengen_protocol::{
    ChallengeId, ChatChannel, ErrorCode, GameId, GameSettings, GameSummary, PlayerInfo, Point,
    PoolInfo, RequestKey, RoomId, Seat, StakeTerms, TableId, UserId,
};
use tokio::sync::oneshot;

use crate::game::{BetReceipt, GameCmd, PlayerMove, StartGame};
use crate::hall::{automatch::Seeker, Audience, HallCmd};
use crate::{Frame, Refusal, Reply};
use tengen_rules::Color;

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
    Game {
        game: GameId,
        request: GameRequest,
    },
    Hall {
        request: HallRequest,
    },
    /// From the hall's node: start this game here (where its Black player is connected).
    StartGame {
        start: StartGame,
    },
}

/// The answers, one shape per reply type of the game and hall commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Response {
    Unit,
    Text { text: String },
    Bet { receipt: BetReceipt },
    Pool { pool: PoolInfo },
    Snapshot { text: String, seq: u64 },
    Players { players: [UserId; 2] },
    Table { text: String, game: Option<GameId> },
    Challenge { challenge: ChallengeId },
    Started { summary: GameSummary },
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
    pub audience: Audience,
    pub text: String,
    pub started_game: Option<GameId>,
}

/// A [`GameCmd`] without its reply channel. `Subscribe` is not here: a node serves its own
/// subscribers from a mirror of the game's channel and asks the owner only for a `Snapshot`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum GameRequest {
    Move {
        user: UserId,
        mv: PlayerMove,
        /// The client's key travels with the request, so the owner recognises a retry that came
        /// through another node.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    ToggleDead {
        user: UserId,
        point: Point,
    },
    AcceptScore {
        user: UserId,
        dead: Option<Vec<Point>>,
    },
    ResumePlay {
        user: UserId,
    },
    Undo {
        user: UserId,
    },
    AnswerUndo {
        user: UserId,
        accept: bool,
    },
    Record,
    Kibitz {
        from: PlayerInfo,
        text: String,
        at_ms: u64,
    },
    Bet {
        user: UserId,
        side: Color,
        amount: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    Stakes {
        entries: Vec<(UserId, u64)>,
        student: Option<UserId>,
        hold: Option<(TableId, String)>,
    },
    StakeRaise {
        user: UserId,
        amount: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    Pool,
    /// The game's state now, for a node that starts mirroring it.
    Snapshot,
    /// The game's players (Black, White), for a node that makes a stand-in for it.
    Players,
    /// Who follows the game on the asking node: the players with at least one connection there
    /// (the owner holds their presence, so a player on another node is not "away"), and the
    /// watchers (the owner counts them in its list for that node).
    Presence {
        players: Vec<PlayerInfo>,
        watchers: Vec<PlayerInfo>,
        anonymous: u32,
    },
}

/// A [`HallCmd`] without its reply channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum HallRequest {
    StakeOffer {
        table: TableId,
        user: UserId,
        amounts: [u64; 2],
        terms: StakeTerms,
    },
    StakeAnswer {
        table: TableId,
        user: UserId,
        agree: bool,
    },
    Online {
        player: PlayerInfo,
    },
    SessionGone {
        user: Option<UserId>,
        room: Option<RoomId>,
        tables: Vec<TableId>,
    },
    HallSnapshot,
    JoinRoom {
        room: RoomId,
        player: Option<PlayerInfo>,
    },
    LeaveRoom {
        room: RoomId,
        user: Option<UserId>,
    },
    RoomSnapshot {
        room: RoomId,
    },
    TableSnapshot {
        table: TableId,
    },
    JoinTable {
        table: TableId,
    },
    LeaveTable {
        table: TableId,
        user: Option<UserId>,
        watching: bool,
    },
    Sit {
        table: TableId,
        seat: Seat,
        player: PlayerInfo,
    },
    Stand {
        table: TableId,
        user: UserId,
    },
    Propose {
        table: TableId,
        user: UserId,
        settings: GameSettings,
    },
    Accept {
        table: TableId,
        user: UserId,
        settings: GameSettings,
    },
    Challenge {
        from: PlayerInfo,
        to: UserId,
        settings: GameSettings,
    },
    AcceptChallenge {
        challenge: ChallengeId,
        user: UserId,
    },
    DeclineChallenge {
        challenge: ChallengeId,
        user: UserId,
    },
    Automatch {
        seeker: Seeker,
    },
    CancelAutomatch {
        user: UserId,
    },
    Chat {
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
    },
    GameEnded {
        game: GameId,
        table: Option<TableId>,
    },
    Balances {
        balances: Vec<(UserId, u64)>,
    },
    Revoked {
        user: UserId,
        token_digest: Option<String>,
    },
    GameRestored {
        summary: GameSummary,
    },
    Relisted {
        summary: GameSummary,
    },
}

/// Answers a local oneshot once the remote reply arrives (or the request fails).
pub type Completer = Box<dyn FnOnce(Result<Response, Refusal>) + Send>;

/// The owner's side of a forwarded request: resolves once the local actor has answered.
pub type Answer = Pin<Box<dyn Future<Output = Result<Response, Refusal>> + Send>>;

/// A reply that does not have the shape the command expects: the other node runs other code.
fn mismatch() -> Refusal {
    Refusal::new(
        ErrorCode::Internal,
        "a node answered in an unexpected shape",
    )
}

fn completer<T: Send + 'static>(reply: Reply<T>, unwrap: fn(Response) -> Option<T>) -> Completer {
    Box::new(move |result| {
        let _ = reply.send(result.and_then(|response| unwrap(response).ok_or_else(mismatch)));
    })
}

fn unit(response: Response) -> Option<()> {
    matches!(response, Response::Unit).then_some(())
}

fn text(response: Response) -> Option<Frame> {
    match response {
        Response::Text { text } => Some(Frame::from(text)),
        _ => None,
    }
}

fn string(response: Response) -> Option<String> {
    match response {
        Response::Text { text } => Some(text),
        _ => None,
    }
}

/// A command as the owning node runs it: the local command and the future of its answer.
fn asked<T: Send + 'static>(wrap: fn(T) -> Response) -> (Reply<T>, Answer) {
    let (reply, answer) = oneshot::channel::<Result<T, Refusal>>();
    let answer = Box::pin(async move {
        answer
            .await
            .map_err(|_| Refusal::new(ErrorCode::NoSuchGame, "the game has ended"))?
            .map(wrap)
    });
    (reply, answer)
}

fn unit_response((): ()) -> Response {
    Response::Unit
}

fn frame_response(frame: Frame) -> Response {
    Response::Text {
        text: frame.as_str().to_string(),
    }
}

/// A local game command split for forwarding. `Err` gives back a `Subscribe` (served locally) or a
/// `Mirror` (which only a game's owner answers).
pub fn game_request(cmd: GameCmd) -> Result<(GameRequest, Completer), GameCmd> {
    Ok(match cmd {
        GameCmd::Move {
            user,
            mv,
            key,
            reply,
        } => (GameRequest::Move { user, mv, key }, completer(reply, unit)),
        GameCmd::ToggleDead { user, point, reply } => (
            GameRequest::ToggleDead { user, point },
            completer(reply, unit),
        ),
        GameCmd::AcceptScore { user, dead, reply } => (
            GameRequest::AcceptScore { user, dead },
            completer(reply, unit),
        ),
        GameCmd::ResumePlay { user, reply } => {
            (GameRequest::ResumePlay { user }, completer(reply, unit))
        }
        GameCmd::Undo { user, reply } => (GameRequest::Undo { user }, completer(reply, unit)),
        GameCmd::AnswerUndo {
            user,
            accept,
            reply,
        } => (
            GameRequest::AnswerUndo { user, accept },
            completer(reply, unit),
        ),
        GameCmd::Record { reply } => (GameRequest::Record, completer(reply, string)),
        GameCmd::Kibitz {
            from,
            text,
            at_ms,
            reply,
        } => (
            GameRequest::Kibitz { from, text, at_ms },
            completer(reply, unit),
        ),
        GameCmd::Bet {
            user,
            side,
            amount,
            key,
            reply,
        } => (
            GameRequest::Bet {
                user,
                side,
                amount,
                key,
            },
            completer(reply, |response| match response {
                Response::Bet { receipt } => Some(receipt),
                _ => None,
            }),
        ),
        GameCmd::Stakes {
            entries,
            student,
            hold,
            reply,
        } => (
            GameRequest::Stakes {
                entries,
                student,
                hold,
            },
            completer(reply, unit),
        ),
        GameCmd::StakeRaise {
            user,
            amount,
            key,
            reply,
        } => (
            GameRequest::StakeRaise { user, amount, key },
            completer(reply, unit),
        ),
        GameCmd::Pool { reply } => (
            GameRequest::Pool,
            completer(reply, |response| match response {
                Response::Pool { pool } => Some(pool),
                _ => None,
            }),
        ),
        local @ (GameCmd::Subscribe { .. } | GameCmd::Mirror { .. } | GameCmd::Summary { .. }) => {
            return Err(local)
        }
    })
}

/// A forwarded game request as a local command. `Snapshot` and `Presence` are the cluster layer's
/// own and never reach here.
pub fn game_cmd(request: GameRequest) -> Option<(GameCmd, Answer)> {
    Some(match request {
        GameRequest::Move { user, mv, key } => {
            let (reply, answer) = asked(unit_response);
            let cmd = GameCmd::Move {
                user,
                mv,
                key,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::ToggleDead { user, point } => {
            let (reply, answer) = asked(unit_response);
            (GameCmd::ToggleDead { user, point, reply }, answer)
        }
        GameRequest::AcceptScore { user, dead } => {
            let (reply, answer) = asked(unit_response);
            (GameCmd::AcceptScore { user, dead, reply }, answer)
        }
        GameRequest::ResumePlay { user } => {
            let (reply, answer) = asked(unit_response);
            (GameCmd::ResumePlay { user, reply }, answer)
        }
        GameRequest::Undo { user } => {
            let (reply, answer) = asked(unit_response);
            (GameCmd::Undo { user, reply }, answer)
        }
        GameRequest::AnswerUndo { user, accept } => {
            let (reply, answer) = asked(unit_response);
            let cmd = GameCmd::AnswerUndo {
                user,
                accept,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::Record => {
            let (reply, answer) = asked(|text| Response::Text { text });
            (GameCmd::Record { reply }, answer)
        }
        GameRequest::Kibitz { from, text, at_ms } => {
            let (reply, answer) = asked(unit_response);
            let cmd = GameCmd::Kibitz {
                from,
                text,
                at_ms,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::Bet {
            user,
            side,
            amount,
            key,
        } => {
            let (reply, answer) = asked(|receipt| Response::Bet { receipt });
            let cmd = GameCmd::Bet {
                user,
                side,
                amount,
                key,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::Stakes {
            entries,
            student,
            hold,
        } => {
            let (reply, answer) = asked(unit_response);
            let cmd = GameCmd::Stakes {
                entries,
                student,
                hold,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::StakeRaise { user, amount, key } => {
            let (reply, answer) = asked(unit_response);
            let cmd = GameCmd::StakeRaise {
                user,
                amount,
                key,
                reply,
            };
            (cmd, answer)
        }
        GameRequest::Pool => {
            let (reply, answer) = asked(|pool| Response::Pool { pool });
            (GameCmd::Pool { reply }, answer)
        }
        GameRequest::Snapshot | GameRequest::Players | GameRequest::Presence { .. } => return None,
    })
}

/// A local hall command split for forwarding; notifications have no completer.
pub fn hall_request(cmd: HallCmd) -> (HallRequest, Option<Completer>) {
    use HallRequest as R;
    let unit_done = |reply: Reply<()>| Some(completer(reply, unit));
    match cmd {
        HallCmd::StakeOffer {
            table,
            user,
            amounts,
            terms,
            reply,
        } => (
            R::StakeOffer {
                table,
                user,
                amounts,
                terms,
            },
            unit_done(reply),
        ),
        HallCmd::StakeAnswer {
            table,
            user,
            agree,
            reply,
        } => (R::StakeAnswer { table, user, agree }, unit_done(reply)),
        HallCmd::Online { player } => (R::Online { player }, None),
        HallCmd::SessionGone { user, room, tables } => {
            (R::SessionGone { user, room, tables }, None)
        }
        HallCmd::HallSnapshot { reply } => (R::HallSnapshot, Some(completer(reply, text))),
        HallCmd::JoinRoom {
            room,
            player,
            reply,
        } => (R::JoinRoom { room, player }, Some(completer(reply, text))),
        HallCmd::LeaveRoom { room, user, reply } => (R::LeaveRoom { room, user }, unit_done(reply)),
        HallCmd::RoomSnapshot { room, reply } => {
            (R::RoomSnapshot { room }, Some(completer(reply, text)))
        }
        HallCmd::TableSnapshot { table, reply } => {
            (R::TableSnapshot { table }, Some(completer(reply, text)))
        }
        HallCmd::JoinTable { table, reply } => (
            R::JoinTable { table },
            Some(completer(reply, |response| match response {
                Response::Table { text, game } => Some((Frame::from(text), game)),
                _ => None,
            })),
        ),
        HallCmd::LeaveTable {
            table,
            user,
            watching,
            reply,
        } => (
            R::LeaveTable {
                table,
                user,
                watching,
            },
            unit_done(reply),
        ),
        HallCmd::Sit {
            table,
            seat,
            player,
            reply,
        } => (
            R::Sit {
                table,
                seat,
                player,
            },
            unit_done(reply),
        ),
        HallCmd::Stand { table, user, reply } => (R::Stand { table, user }, unit_done(reply)),
        HallCmd::Propose {
            table,
            user,
            settings,
            reply,
        } => (
            R::Propose {
                table,
                user,
                settings,
            },
            unit_done(reply),
        ),
        HallCmd::Accept {
            table,
            user,
            settings,
            reply,
        } => (
            R::Accept {
                table,
                user,
                settings,
            },
            unit_done(reply),
        ),
        HallCmd::Challenge {
            from,
            to,
            settings,
            reply,
        } => (
            R::Challenge { from, to, settings },
            Some(completer(reply, |response| match response {
                Response::Challenge { challenge } => Some(challenge),
                _ => None,
            })),
        ),
        HallCmd::AcceptChallenge {
            challenge,
            user,
            reply,
        } => (R::AcceptChallenge { challenge, user }, unit_done(reply)),
        HallCmd::DeclineChallenge {
            challenge,
            user,
            reply,
        } => (R::DeclineChallenge { challenge, user }, unit_done(reply)),
        HallCmd::Automatch { seeker, reply } => (R::Automatch { seeker }, unit_done(reply)),
        HallCmd::CancelAutomatch { user, reply } => (R::CancelAutomatch { user }, unit_done(reply)),
        HallCmd::Chat {
            channel,
            from,
            text,
            at_ms,
            reply,
        } => (
            R::Chat {
                channel,
                from,
                text,
                at_ms,
            },
            unit_done(reply),
        ),
        HallCmd::GameEnded { game, table } => (R::GameEnded { game, table }, None),
        HallCmd::Balances { balances } => (R::Balances { balances }, None),
        HallCmd::Revoked { user, token_digest } => (R::Revoked { user, token_digest }, None),
        HallCmd::GameRestored { summary } => (R::GameRestored { summary }, None),
        HallCmd::Relisted { summary } => (R::Relisted { summary }, None),
    }
}

/// A forwarded hall request as a local command, with the future of its answer (`None` for
/// notifications, which have nobody waiting).
pub fn hall_cmd(request: HallRequest) -> (HallCmd, Option<Answer>) {
    use HallRequest as R;
    fn with<T: Send + 'static>(
        wrap: fn(T) -> Response,
        make: impl FnOnce(Reply<T>) -> HallCmd,
    ) -> (HallCmd, Option<Answer>) {
        let (reply, answer) = asked(wrap);
        (make(reply), Some(answer))
    }
    match request {
        R::StakeOffer {
            table,
            user,
            amounts,
            terms,
        } => with(unit_response, |reply| HallCmd::StakeOffer {
            table,
            user,
            amounts,
            terms,
            reply,
        }),
        R::StakeAnswer { table, user, agree } => {
            with(unit_response, |reply| HallCmd::StakeAnswer {
                table,
                user,
                agree,
                reply,
            })
        }
        R::Online { player } => (HallCmd::Online { player }, None),
        R::SessionGone { user, room, tables } => {
            (HallCmd::SessionGone { user, room, tables }, None)
        }
        R::HallSnapshot => with(frame_response, |reply| HallCmd::HallSnapshot { reply }),
        R::JoinRoom { room, player } => with(frame_response, |reply| HallCmd::JoinRoom {
            room,
            player,
            reply,
        }),
        R::LeaveRoom { room, user } => with(unit_response, |reply| HallCmd::LeaveRoom {
            room,
            user,
            reply,
        }),
        R::RoomSnapshot { room } => with(frame_response, |reply| HallCmd::RoomSnapshot {
            room,
            reply,
        }),
        R::TableSnapshot { table } => with(frame_response, |reply| HallCmd::TableSnapshot {
            table,
            reply,
        }),
        R::JoinTable { table } => with(
            |(frame, game): (Frame, Option<GameId>)| Response::Table {
                text: frame.as_str().to_string(),
                game,
            },
            |reply| HallCmd::JoinTable { table, reply },
        ),
        R::LeaveTable {
            table,
            user,
            watching,
        } => with(unit_response, |reply| HallCmd::LeaveTable {
            table,
            user,
            watching,
            reply,
        }),
        R::Sit {
            table,
            seat,
            player,
        } => with(unit_response, |reply| HallCmd::Sit {
            table,
            seat,
            player,
            reply,
        }),
        R::Stand { table, user } => {
            with(unit_response, |reply| HallCmd::Stand { table, user, reply })
        }
        R::Propose {
            table,
            user,
            settings,
        } => with(unit_response, |reply| HallCmd::Propose {
            table,
            user,
            settings,
            reply,
        }),
        R::Accept {
            table,
            user,
            settings,
        } => with(unit_response, |reply| HallCmd::Accept {
            table,
            user,
            settings,
            reply,
        }),
        R::Challenge { from, to, settings } => with(
            |challenge| Response::Challenge { challenge },
            |reply| HallCmd::Challenge {
                from,
                to,
                settings,
                reply,
            },
        ),
        R::AcceptChallenge { challenge, user } => {
            with(unit_response, |reply| HallCmd::AcceptChallenge {
                challenge,
                user,
                reply,
            })
        }
        R::DeclineChallenge { challenge, user } => {
            with(unit_response, |reply| HallCmd::DeclineChallenge {
                challenge,
                user,
                reply,
            })
        }
        R::Automatch { seeker } => {
            with(unit_response, |reply| HallCmd::Automatch { seeker, reply })
        }
        R::CancelAutomatch { user } => with(unit_response, |reply| HallCmd::CancelAutomatch {
            user,
            reply,
        }),
        R::Chat {
            channel,
            from,
            text,
            at_ms,
        } => with(unit_response, |reply| HallCmd::Chat {
            channel,
            from,
            text,
            at_ms,
            reply,
        }),
        R::GameEnded { game, table } => (HallCmd::GameEnded { game, table }, None),
        R::Balances { balances } => (HallCmd::Balances { balances }, None),
        R::Revoked { user, token_digest } => (HallCmd::Revoked { user, token_digest }, None),
        R::GameRestored { summary } => (HallCmd::GameRestored { summary }, None),
        R::Relisted { summary } => (HallCmd::Relisted { summary }, None),
    }
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
