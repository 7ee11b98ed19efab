//! One task per WebSocket: it reads frames (size cap and rate limit first), parses each into a
//! `Request` at the edge, checks what the connection may do (hello first, an account for anything that
//! acts), routes the request to `auth`, the hall or a game, and writes the reply, the hall pushes meant
//! for this connection, and the frames of the games it follows. It owns no shared state: when it ends,
//! it tells the hall which room and tables it leaves. A new client message: its variant in its area's
//! enum in the protocol (`GamesMsg`, `MoneyMsg`, ...), its arm in that area's handler here
//! (`session/<area>.rs`); the compiler points at the arm that is missing.

mod accounts;
mod events;
mod games;
mod hall;
mod moderation;
mod money;
mod people;
mod rate_limit;
mod study;

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use tengen_protocol::{
    ClientMsg, ConnectionMsg, ErrorCode, GameId, PlayerInfo, Request, RequestId, RoomId, ServerMsg,
    TableId, UserId,
};
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::app::AppState;
use crate::config::{
    IDLE_TIMEOUT_MS, MAX_FRAME_BYTES, PING_INTERVAL_MS, STUDY_SGF_FRAME_BYTES_MAX, WRITE_TIMEOUT_MS,
};
use crate::game;
use crate::hall::{HallEvent, HallRequest, UserEvents};
use crate::relations::Screen;
use crate::study::Study;
use crate::{refuse, Frame, Refusal};
use rate_limit::{RateLimit, Verdict};

/// Tables one connection may watch at once: a person follows a few; the bound caps hall bookkeeping.
const TABLES_PER_SESSION_MAX: usize = 16;

/// Games one connection may follow at once (each costs a broadcast receiver and a guard or two).
const GAMES_PER_SESSION_MAX: usize = 16;

/// Frames written per flush at most, so one busy game cannot starve the socket's other duties.
const WRITE_BATCH_MAX: usize = 64;

/// WebSocket close code for "going away" (server shutdown), RFC 6455 §7.4.1.
const CLOSE_GOING_AWAY: u16 = 1001;

/// WebSocket close code for "policy violation" (flooding).
const CLOSE_POLICY: u16 = 1008;

/// What a handled request answers, besides any pushes it queued first.
#[derive(Debug)]
enum Answer {
    Ack,
    /// Boxed: data replies are rare and large, acks are common and empty.
    Msg(Box<ServerMsg>),
}

impl Answer {
    /// A data reply of any area (`AccountsServerMsg::Session`, `MoneyServerMsg::Pool`, ...).
    fn msg(msg: impl Into<ServerMsg>) -> Answer {
        Answer::Msg(Box::new(msg.into()))
    }
}

/// Whether the loop goes on after a frame.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    Continue,
    Close(u16, &'static str),
}

struct Session {
    state: Arc<AppState>,
    /// The client's address (behind a trusted proxy, the one it forwards), for the login and
    /// registration throttles.
    peer: IpAddr,
    said_hello: bool,
    player: Option<PlayerInfo>,
    token: Option<String>,
    in_hall: bool,
    /// A subscription to the hall's lists made by `enter_hall`, for the socket loop to take up.
    lobby: Option<broadcast::Receiver<HallEvent>>,
    /// The pushes addressed to this user alone, subscribed at login and handed to the serve loop
    /// as `lobby` is.
    user_events: Option<UserEvents>,
    room: Option<RoomId>,
    /// Tables this connection joined as a watcher; bounded by [`TABLES_PER_SESSION_MAX`].
    tables: BTreeSet<TableId>,
    /// The games this connection follows; bounded by [`GAMES_PER_SESSION_MAX`].
    following: game::Following,
    limit: RateLimit,
    /// Frames to write before the reply of the request being handled.
    pushes: Vec<Frame>,
    /// This connection's study board, if one is open.
    study: Option<Study>,
    /// What the logged-in user does not see (their muted and blocked players' chat, those who
    /// block them); applied to every frame written.
    screen: Screen,
    /// Set once the hall has been told the session is gone (see `release`).
    released: bool,
}

/// The cleanup runs however the task ends: a panic's unwind (or a cancelled task) drops the session
/// without `cleanup`, and would leave its user online, in the room and seated. The hall is reached
/// through an async queue, so the message goes from a task spawned here.
impl Drop for Session {
    fn drop(&mut self) {
        let Some(gone) = self.release() else {
            return;
        };
        tracing::warn!(player = ?self.player, "a connection ended without its cleanup; releasing it");
        let hall = self.state.hall.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { hall.send(gone).await });
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("player", &self.player)
            .finish()
    }
}

/// A store failure behind a request: logged, and answered `unavailable` (the store is out of
/// reach), `outcome_unknown` (a write broke off) or `internal` (nothing changed).
fn internal(err: crate::store::StoreError) -> Refusal {
    tracing::error!(%err, "store failure");
    crate::store::store_refusal(&err)
}

/// Serve one upgraded socket until it closes or the server shuts down.
pub(crate) async fn run(state: Arc<AppState>, socket: WebSocket, peer: IpAddr) {
    let _tasks = state.tasks.clone();
    let mut session = Session {
        state: Arc::clone(&state),
        peer,
        said_hello: false,
        player: None,
        token: None,
        in_hall: false,
        lobby: None,
        user_events: None,
        room: None,
        tables: BTreeSet::new(),
        following: game::Following::default(),
        limit: RateLimit::new(
            Instant::now(),
            state.config.messages_per_second,
            state.config.messages_burst,
        ),
        pushes: Vec::new(),
        study: None,
        screen: Screen::default(),
        released: false,
    };
    session.serve(socket).await;
    session.cleanup().await;
}

impl Session {
    async fn serve(&mut self, socket: WebSocket) {
        let (mut sink, mut stream) = socket.split();
        // Both waits below are made once and kept across turns of the loop (the hall's re-armed as
        // each event arrives): made anew on every turn, each registered with, and left, a signal
        // every session shares, under its lock, for every frame delivered (profiled).
        let mut hall_wait = Box::pin(hall_next(self.state.hall.subscribe()));
        // The hall's lists, only while this connection is in the hall (see `lobby`).
        let mut lobby_rx: Option<broadcast::Receiver<HallEvent>> = None;
        // This user's own pushes, while logged in (see `user_events`).
        let mut user_rx: Option<UserEvents> = None;
        let shutdown = self.state.shutdown.clone();
        let stopping = shutdown.wait();
        tokio::pin!(stopping);
        let ping_every = Duration::from_millis(PING_INTERVAL_MS);
        let mut pings = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        let mut last_heard = Instant::now();
        let hello_by = last_heard + Duration::from_millis(self.state.config.hello_deadline_ms);
        loop {
            let next = tokio::select! {
                _ = &mut stopping => Next::Close(CLOSE_GOING_AWAY, "server shutting down"),
                _ = hello_deadline(self.said_hello, hello_by) => {
                    Next::Close(CLOSE_POLICY, "no hello in time")
                }
                incoming = stream.next() => match incoming {
                    Some(Ok(message)) => {
                        last_heard = Instant::now();
                        self.on_message(message).await
                    }
                    // The peer went away or broke the protocol (e.g. a frame over the hard cap).
                    Some(Err(_)) | None => return,
                },
                _ = pings.tick() => {
                    if last_heard.elapsed() >= Duration::from_millis(IDLE_TIMEOUT_MS) {
                        Next::Close(CLOSE_GOING_AWAY, "no answer to pings")
                    } else {
                        if sink.send(Message::Ping(Default::default())).await.is_err() {
                            return;
                        }
                        Next::Continue
                    }
                }
                (event, hall_rx) = &mut hall_wait => {
                    hall_wait.set(hall_next(hall_rx));
                    self.on_hall_event(event).await
                }
                event = next_event(lobby_rx.as_mut()) => self.on_hall_event(event).await,
                event = next_event(user_rx.as_mut().map(UserEvents::receiver)) => {
                    self.on_hall_event(event).await
                }
                (game, arrival) = self.following.next() => {
                    self.take_arrival(game, arrival).await;
                    // Take what else is ready, so a busy game costs one flush, not one per frame.
                    while self.pushes.len() < WRITE_BATCH_MAX {
                        let Some((game, arrival)) = self.following.ready() else {
                            break;
                        };
                        self.take_arrival(game, arrival).await;
                    }
                    Next::Continue
                }
            };
            self.take_up_subscriptions(&mut lobby_rx, &mut user_rx);
            if !self.write_pushes(&mut sink).await {
                return;
            }
            if let Next::Close(code, reason) = next {
                let close = CloseFrame {
                    code,
                    reason: reason.into(),
                };
                let write_timeout = Duration::from_millis(WRITE_TIMEOUT_MS);
                let _ = tokio::time::timeout(write_timeout, sink.send(Message::Close(Some(close))))
                    .await;
                return;
            }
        }
    }

    /// Entering the hall subscribes to its lists (before its snapshot is taken) and leaving it drops
    /// them; logging in subscribes to the user's own pushes and logging out drops them.
    fn take_up_subscriptions(
        &mut self,
        lobby_rx: &mut Option<broadcast::Receiver<HallEvent>>,
        user_rx: &mut Option<UserEvents>,
    ) {
        if let Some(lobby) = self.lobby.take() {
            *lobby_rx = Some(lobby);
        }
        if !self.in_hall {
            *lobby_rx = None;
        }
        if let Some(user_events) = self.user_events.take() {
            *user_rx = Some(user_events);
        }
        if self.player.is_none() {
            *user_rx = None;
        }
    }

    /// Write the queued frames with one flush. False when the socket is gone or the client has not
    /// taken them within [`WRITE_TIMEOUT_MS`] (a peer that stopped reading is dropped, not waited on).
    async fn write_pushes(&mut self, sink: &mut SplitSink<WebSocket, Message>) -> bool {
        if self.pushes.is_empty() {
            return true;
        }
        let frames = std::mem::take(&mut self.pushes);
        let screen = &self.screen;
        let write = async {
            for frame in frames.into_iter().filter_map(|frame| screen.screen(frame)) {
                sink.feed(Message::Text(frame)).await?;
            }
            sink.flush().await
        };
        matches!(
            tokio::time::timeout(Duration::from_millis(WRITE_TIMEOUT_MS), write).await,
            Ok(Ok(()))
        )
    }

    /// What a followed game's arrival means for this connection, queued to be written.
    async fn take_arrival(&mut self, game: GameId, arrival: game::Arrival) {
        let viewer = self.player.as_ref();
        self.following
            .take(game, arrival, viewer, &mut self.pushes)
            .await;
    }

    /// Leave the room and tables, go offline, stop following games.
    async fn cleanup(&mut self) {
        if let Some(gone) = self.release() {
            self.state.hall.send(gone).await;
        }
    }

    /// Stop following games (their presence and watcher guards go with them) and say what the hall
    /// must undo: the room, the tables watched, the user's presence and with it a seat at a table
    /// without a game. Once: from `cleanup`, or from `Drop` when the task ended any other way.
    fn release(&mut self) -> Option<HallRequest> {
        if std::mem::replace(&mut self.released, true) {
            return None;
        }
        self.following.clear();
        Some(HallRequest::SessionGone {
            user: self.player.as_ref().map(|p| p.user),
            room: self.room.take(),
            tables: std::mem::take(&mut self.tables).into_iter().collect(),
        })
    }

    fn push(&mut self, msg: &ServerMsg) {
        self.pushes.push(msg.to_json().into());
    }

    async fn on_message(&mut self, message: Message) -> Next {
        if let Message::Close(_) = message {
            return Next::Close(1000, "bye");
        }
        // Every frame counts, binary frames and pings included: a flood of any kind is dropped. A
        // frame counts once per `MAX_FRAME_BYTES` it holds, so a large one costs what the many small
        // ones it could have been would.
        let len = match &message {
            Message::Text(text) => text.len(),
            Message::Binary(bytes) | Message::Ping(bytes) | Message::Pong(bytes) => bytes.len(),
            Message::Close(_) => 0,
        };
        let cost = u32::try_from(len / MAX_FRAME_BYTES + 1).unwrap_or(u32::MAX);
        match self.limit.check(Instant::now(), cost) {
            Verdict::Allow => {}
            Verdict::Drop => return self.over_limit(&message),
            Verdict::Close => return Next::Close(CLOSE_POLICY, "too many messages"),
        }
        let text = match message {
            Message::Text(text) => text,
            Message::Binary(_) => {
                self.push(&ServerMsg::error(
                    None,
                    ErrorCode::BadMessage,
                    "messages are JSON text frames",
                ));
                return Next::Continue;
            }
            // Pings are answered by the WebSocket layer.
            Message::Ping(_) | Message::Pong(_) | Message::Close(_) => return Next::Continue,
        };
        if self.state.config.fault_panic_on_frame.as_deref() == Some(text.as_str()) {
            panic!("fault injection: a connection's task panics");
        }
        if let Some(limit) = frame_too_large(text.as_str()) {
            self.push(&ServerMsg::error(
                crate::frame::request_id(text.as_str()),
                ErrorCode::FrameTooLarge,
                format!("frames are at most {limit} bytes"),
            ));
            return Next::Continue;
        }
        match Request::parse(text.as_str()) {
            Ok(request) => {
                let id = request.id;
                let reply = match self.handle(id, request.msg).await {
                    Ok(Answer::Ack) => ServerMsg::ack(id),
                    Ok(Answer::Msg(msg)) => *msg,
                    Err(refusal) => ServerMsg::error(id, refusal.code, refusal.message),
                };
                self.push(&reply);
            }
            Err(err) => self.push(&ServerMsg::error(err.id, err.code, err.message)),
        }
        Next::Continue
    }

    /// A frame over the rate limit, dropped. A text frame is answered `rate_limited` (with its
    /// request's id, so a client waiting on it hears); other frames carry no request and get no answer.
    fn over_limit(&mut self, message: &Message) -> Next {
        if let Message::Text(text) = message {
            self.push(&ServerMsg::error(
                crate::frame::request_id(text.as_str()),
                ErrorCode::RateLimited,
                "too many messages; this one was dropped",
            ));
        }
        Next::Continue
    }

    fn player(&self) -> Result<PlayerInfo, Refusal> {
        self.player.clone().ok_or_else(|| {
            Refusal::new(
                ErrorCode::NotLoggedIn,
                "log in or register first (watching needs no account)",
            )
        })
    }

    fn user(&self) -> Result<UserId, Refusal> {
        self.player().map(|p| p.user)
    }

    /// Route one request to its area's handler (`session/<area>.rs`): the protocol gives every
    /// message its area, so a new one cannot go unrouted.
    async fn handle(&mut self, id: Option<RequestId>, msg: ClientMsg) -> Result<Answer, Refusal> {
        use ClientMsg as M;
        match msg {
            M::Connection(ConnectionMsg::Hello { version }) => self.hello(id, version),
            _ if !self.said_hello => refuse(ErrorCode::HelloRequired, "send hello first"),
            M::Accounts(msg) => self.account_message(id, msg).await,
            M::Hall(msg) => self.hall_message(id, msg).await,
            M::Games(msg) => self.game_message(id, msg).await,
            M::Study(msg) => self.study_message(id, msg),
            M::Money(msg) => self.money_message(id, msg).await,
            M::Events(msg) => self.event_message(id, msg).await,
            M::People(msg) => self.people_message(id, msg).await,
            M::Moderation(msg) => self.moderation_message(id, msg).await,
        }
    }
}

/// The limit a text frame is over, if it is: [`MAX_FRAME_BYTES`], or for a study's SGF file
/// [`STUDY_SGF_FRAME_BYTES_MAX`] (its `type` is read only for frames past the first).
fn frame_too_large(text: &str) -> Option<usize> {
    if text.len() <= MAX_FRAME_BYTES {
        return None;
    }
    let limit = match crate::frame::message_type(text).as_deref() {
        Some(STUDY_LOAD_SGF) => STUDY_SGF_FRAME_BYTES_MAX,
        _ => MAX_FRAME_BYTES,
    };
    (text.len() > limit).then_some(limit)
}

/// The `type` of the one message allowed past [`MAX_FRAME_BYTES`].
const STUDY_LOAD_SGF: &str = "study_load_sgf";

/// The hall broadcast's next event, and the receiver back to wait for the one after.
async fn hall_next(
    mut receiver: broadcast::Receiver<HallEvent>,
) -> (
    Result<HallEvent, broadcast::error::RecvError>,
    broadcast::Receiver<HallEvent>,
) {
    let event = receiver.recv().await;
    (event, receiver)
}

/// The next push on a receiver the connection holds only at times (the hall's lists while in the
/// hall, the user's own while logged in), or never while it holds none.
async fn next_event(
    receiver: Option<&mut broadcast::Receiver<HallEvent>>,
) -> Result<HallEvent, broadcast::error::RecvError> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// Fires at `at` while the connection has not said hello; never once it has.
async fn hello_deadline(said_hello: bool, at: Instant) {
    if said_hello {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep_until(at).await;
}
