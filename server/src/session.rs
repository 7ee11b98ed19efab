//! One task per WebSocket: it reads frames (size cap and rate limit first), parses each into a
//! `Request` at the edge, checks what the connection may do (hello first, an account for anything that
//! acts), routes the request to `auth`, the hall or a game, and writes the reply, the hall pushes meant
//! for this connection, and the frames of the games it follows. It owns no shared state: when it ends,
//! it tells the hall which room and tables it leaves.

mod accounts;

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use tengen_protocol::{
    ChatChannel, ClientMsg, Color, ErrorCode, GameId, PlayerInfo, Request, RequestId, RequestKey,
    RoomId, ServerMsg, TableId, UserId, PROTOCOL_VERSION,
};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::auth::{AuthError, Authenticated};
use crate::config::{
    IDLE_TIMEOUT_MS, MAX_FRAME_BYTES, OUTBOUND_QUEUE_LEN, PING_INTERVAL_MS, RATE_LIMIT_STRIKES_MAX,
    WAGER_RECORDS_MAX, WRITE_TIMEOUT_MS,
};
use crate::game::{self, GameCmd, PlayerMove};
use crate::hall::{Audience, HallCmd, HallEvent, Revocation, UserEvents};
use crate::ledger;
use crate::study::{self, Study};
use crate::{refuse, unix_now_ms, AppState, Frame, Refusal, Reply};

/// Tables one connection may watch at once: a person follows a few; the bound caps hall bookkeeping.
const TABLES_PER_SESSION_MAX: usize = 16;

/// Games one connection may follow at once (each costs a forwarding task and a broadcast receiver).
const GAMES_PER_SESSION_MAX: usize = 16;

/// Frames written per flush at most, so one busy game cannot starve the socket's other duties.
const WRITE_BATCH_MAX: usize = 64;

/// WebSocket close code for "going away" (server shutdown), RFC 6455 §7.4.1.
const CLOSE_GOING_AWAY: u16 = 1001;

/// WebSocket close code for "policy violation" (flooding).
const CLOSE_POLICY: u16 = 1008;

/// A token bucket: `Config::messages_per_second` sustained (`config::MESSAGES_PER_SECOND` by default),
/// `Config::messages_burst` at once (`config::MESSAGES_BURST`). Hand-written because
/// it is ten lines and per-connection, where a keyed limiter crate would add a shared map for nothing.
#[derive(Debug)]
struct RateLimit {
    tokens: f64,
    last: Instant,
    per_second: f64,
    burst: f64,
    /// Frames refused since the client last calmed down; see [`RateLimit::check`].
    strikes: u32,
}

/// What the rate limit makes of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Allow,
    /// Over the limit: dropped.
    Drop,
    /// [`RATE_LIMIT_STRIKES_MAX`] frames dropped without the client calming down: close the socket.
    Close,
}

impl RateLimit {
    fn new(now: Instant, per_second: u32, burst: u32) -> RateLimit {
        RateLimit {
            tokens: f64::from(burst),
            last: now,
            per_second: f64::from(per_second),
            burst: f64::from(burst),
            strikes: 0,
        }
    }

    /// Count one frame. Strikes are forgiven only once the bucket has refilled to half (the client
    /// slowed down for a while), not at every frame let through: a flooder whose frames pass one at a
    /// time as tokens trickle back (one every 50 ms) was otherwise never closed, and was answered
    /// `rate_limited` hundreds of times a second for as long as it liked.
    fn check(&mut self, now: Instant) -> Verdict {
        if self.allow(now) {
            if self.tokens >= self.burst / 2.0 {
                self.strikes = 0;
            }
            return Verdict::Allow;
        }
        self.strikes += 1;
        if self.strikes >= RATE_LIMIT_STRIKES_MAX {
            Verdict::Close
        } else {
            Verdict::Drop
        }
    }

    fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What a handled request answers, besides any pushes it queued first.
#[derive(Debug)]
enum Answer {
    Ack,
    /// Boxed: data replies are rare and large, acks are common and empty.
    Msg(Box<ServerMsg>),
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
    games: HashMap<GameId, Followed>,
    /// Who is watching, for the forwarders' kibitz filter and the games' watcher lists; changes on
    /// login and logout.
    viewer: watch::Sender<Option<PlayerInfo>>,
    out: mpsc::Sender<Frame>,
    limit: RateLimit,
    /// Frames to write before the reply of the request being handled.
    pushes: Vec<Frame>,
    /// This connection's study board, if one is open.
    study: Option<Study>,
    /// Set once the hall has been told the session is gone (see `release`).
    released: bool,
}

/// A game this connection follows: the task copying its frames here, and its handle, kept so that
/// moves and kibitz in a followed game reach the actor without the shared registry's lock.
#[derive(Debug)]
struct Followed {
    forwarder: JoinHandle<()>,
    handle: game::GameHandle,
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

/// An account request refused: failures of the server (the store, password hashing) are logged and
/// answered without their details; the others say what the user can do.
fn auth_refusal(err: AuthError) -> Refusal {
    match err {
        AuthError::Store(err) => internal(err),
        AuthError::Internal(detail) => {
            tracing::error!(%detail, "account service failure");
            Refusal::new(ErrorCode::Internal, "the account service failed; try again")
        }
        err => Refusal::new(err.code(), err.to_string()),
    }
}

/// Serve one upgraded socket until it closes or the server shuts down.
pub(crate) async fn run(state: Arc<AppState>, socket: WebSocket, peer: IpAddr) {
    let _tasks = state.tasks.clone();
    let (out_tx, out_rx) = mpsc::channel(OUTBOUND_QUEUE_LEN);
    let (viewer, _) = watch::channel(None);
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
        games: HashMap::new(),
        viewer,
        out: out_tx,
        limit: RateLimit::new(
            Instant::now(),
            state.config.messages_per_second,
            state.config.messages_burst,
        ),
        pushes: Vec::new(),
        study: None,
        released: false,
    };
    session.serve(socket, out_rx).await;
    session.cleanup().await;
}

impl Session {
    async fn serve(&mut self, socket: WebSocket, mut out_rx: mpsc::Receiver<Frame>) {
        let (mut sink, mut stream) = socket.split();
        // Both waits below are made once and kept across turns of the loop (the hall's re-armed as
        // each event arrives): made anew on every turn, each registered with, and left, a signal
        // every session shares, under its lock, for every frame delivered (issue 16, profiled).
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
                Some(frame) = out_rx.recv() => {
                    self.pushes.push(frame);
                    // Take what else is ready, so a busy game costs one flush, not one per frame.
                    while self.pushes.len() < WRITE_BATCH_MAX {
                        match out_rx.try_recv() {
                            Ok(frame) => self.pushes.push(frame),
                            Err(_) => break,
                        }
                    }
                    Next::Continue
                }
            };
            // Entering the hall subscribes (before its snapshot is taken), leaving it drops them.
            if let Some(lobby) = self.lobby.take() {
                lobby_rx = Some(lobby);
            }
            if !self.in_hall {
                lobby_rx = None;
            }
            if let Some(user_events) = self.user_events.take() {
                user_rx = Some(user_events);
            }
            if self.player.is_none() {
                user_rx = None;
            }
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

    /// Write the queued frames with one flush. False when the socket is gone or the client has not
    /// taken them within [`WRITE_TIMEOUT_MS`] (a peer that stopped reading is dropped, not waited on).
    async fn write_pushes(&mut self, sink: &mut SplitSink<WebSocket, Message>) -> bool {
        if self.pushes.is_empty() {
            return true;
        }
        let frames = std::mem::take(&mut self.pushes);
        let write = async {
            for frame in frames {
                sink.feed(Message::Text(frame)).await?;
            }
            sink.flush().await
        };
        matches!(
            tokio::time::timeout(Duration::from_millis(WRITE_TIMEOUT_MS), write).await,
            Ok(Ok(()))
        )
    }

    /// Leave the room and tables, go offline, stop forwarders.
    async fn cleanup(&mut self) {
        if let Some(gone) = self.release() {
            self.state.hall.send(gone).await;
        }
    }

    /// Stop the forwarders (their presence and watcher guards go with them) and say what the hall
    /// must undo: the room, the tables watched, the user's presence and with it a seat at a table
    /// without a game. Once: from `cleanup`, or from `Drop` when the task ended any other way.
    fn release(&mut self) -> Option<HallCmd> {
        if std::mem::replace(&mut self.released, true) {
            return None;
        }
        for (_, followed) in self.games.drain() {
            followed.forwarder.abort();
        }
        Some(HallCmd::SessionGone {
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
        // Every frame counts, binary frames and pings included: a flood of any kind is dropped.
        match self.limit.check(Instant::now()) {
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
        if text.len() > MAX_FRAME_BYTES {
            self.push(&ServerMsg::error(
                crate::frame::request_id(text.as_str()),
                ErrorCode::FrameTooLarge,
                format!("frames are at most {MAX_FRAME_BYTES} bytes"),
            ));
            return Next::Continue;
        }
        match Request::parse(text.as_str()) {
            Ok(request) => {
                let id = request.id;
                let reply = match self.handle(id, request.msg).await {
                    Ok(Answer::Ack) => ServerMsg::Ack { id },
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

    async fn handle(&mut self, id: Option<RequestId>, msg: ClientMsg) -> Result<Answer, Refusal> {
        if let ClientMsg::Hello { version } = msg {
            return self.hello(id, version);
        }
        if !self.said_hello {
            return refuse(ErrorCode::HelloRequired, "send hello first");
        }
        let hall = self.state.hall.clone();
        match msg {
            ClientMsg::Hello { .. } => unreachable!("handled above"),
            ClientMsg::Register {
                username,
                password,
                computer,
            } => {
                self.not_logged_in()?;
                let result = self
                    .state
                    .auth
                    .register(&username, &password, computer, self.peer, unix_now_ms())
                    .await;
                self.logged_in(id, result).await
            }
            ClientMsg::Login { username, password } => {
                self.not_logged_in()?;
                let result = self
                    .state
                    .auth
                    .login(&username, &password, self.peer, unix_now_ms())
                    .await;
                self.logged_in(id, result).await
            }
            ClientMsg::Resume { token } => {
                self.not_logged_in()?;
                let result = self.state.auth.resume(&token, unix_now_ms()).await;
                self.logged_in(id, result).await
            }
            ClientMsg::Logout => self.logout().await,
            ClientMsg::LogoutAll => self.logout_all().await,
            ClientMsg::EnterHall => {
                // Subscribed before the snapshot is taken, so no update falls between them.
                let lobby = self.state.hall.subscribe_lobby();
                let frame = hall.ask(|reply| HallCmd::HallSnapshot { reply }).await?;
                self.pushes.push(frame);
                if !self.in_hall {
                    self.lobby = Some(lobby);
                }
                self.in_hall = true;
                Ok(Answer::Ack)
            }
            ClientMsg::LeaveHall => {
                self.in_hall = false;
                Ok(Answer::Ack)
            }
            ClientMsg::JoinRoom { room } => self.join_room(room).await,
            ClientMsg::LeaveRoom => {
                let room = self
                    .room
                    .ok_or_else(|| Refusal::new(ErrorCode::NotThere, "you are in no room"))?;
                self.leave_room(room).await?;
                Ok(Answer::Ack)
            }
            ClientMsg::JoinTable { table } => self.join_table(table).await,
            ClientMsg::LeaveTable { table } => {
                let user = self.player.as_ref().map(|p| p.user);
                let watching = self.tables.contains(&table);
                hall.ask(|reply| HallCmd::LeaveTable {
                    table,
                    user,
                    watching,
                    reply,
                })
                .await?;
                self.tables.remove(&table);
                Ok(Answer::Ack)
            }
            ClientMsg::Sit { table, seat } => {
                let player = self.player()?;
                hall.ask(|reply| HallCmd::Sit {
                    table,
                    seat,
                    player,
                    reply,
                })
                .await?;
                Ok(Answer::Ack)
            }
            ClientMsg::Stand { table } => {
                self.hall_ack(|user, reply| HallCmd::Stand { table, user, reply })
                    .await
            }
            ClientMsg::ProposeSettings { table, settings } => {
                self.hall_ack(|user, reply| HallCmd::Propose {
                    table,
                    user,
                    settings,
                    reply,
                })
                .await
            }
            ClientMsg::AcceptSettings { table, settings } => {
                self.hall_ack(|user, reply| HallCmd::Accept {
                    table,
                    user,
                    settings,
                    reply,
                })
                .await
            }
            ClientMsg::Challenge { user, settings } => {
                let from = self.player()?;
                let challenge = hall
                    .ask(|reply| HallCmd::Challenge {
                        from,
                        to: user,
                        settings,
                        reply,
                    })
                    .await?;
                Ok(Answer::Msg(Box::new(ServerMsg::ChallengeSent {
                    id,
                    challenge,
                    to: user,
                })))
            }
            ClientMsg::AcceptChallenge { challenge } => {
                self.hall_ack(|user, reply| HallCmd::AcceptChallenge {
                    challenge,
                    user,
                    reply,
                })
                .await
            }
            ClientMsg::DeclineChallenge { challenge } => {
                self.hall_ack(|user, reply| HallCmd::DeclineChallenge {
                    challenge,
                    user,
                    reply,
                })
                .await
            }
            ClientMsg::Watch { game } => {
                self.watch(game).await?;
                Ok(Answer::Ack)
            }
            ClientMsg::Unwatch { game } => match self.games.remove(&game) {
                Some(followed) => {
                    followed.forwarder.abort();
                    Ok(Answer::Ack)
                }
                None => refuse(ErrorCode::NotThere, format!("you do not watch game {game}")),
            },
            ClientMsg::Play { game, point, key } => {
                self.game_move(game, PlayerMove::Play(point), key).await
            }
            ClientMsg::Pass { game, key } => self.game_move(game, PlayerMove::Pass, key).await,
            ClientMsg::Resign { game, key } => self.game_move(game, PlayerMove::Resign, key).await,
            ClientMsg::ToggleDead { game, point } => {
                self.game_ack(game, |user, reply| GameCmd::ToggleDead {
                    user,
                    point,
                    reply,
                })
                .await
            }
            ClientMsg::Automatch {
                size,
                time_class,
                rank_range,
            } => {
                let seeker = crate::hall::automatch::Seeker {
                    player: self.player()?,
                    size,
                    time_class,
                    rank_range,
                };
                hall.ask(|reply| HallCmd::Automatch { seeker, reply })
                    .await?;
                Ok(Answer::Ack)
            }
            ClientMsg::CancelAutomatch => {
                self.hall_ack(|user, reply| HallCmd::CancelAutomatch { user, reply })
                    .await
            }
            ClientMsg::ResumePlay { game } => {
                self.game_ack(game, |user, reply| GameCmd::ResumePlay { user, reply })
                    .await
            }
            ClientMsg::Undo { game } => {
                self.game_ack(game, |user, reply| GameCmd::Undo { user, reply })
                    .await
            }
            ClientMsg::AcceptUndo { game } => self.answer_undo(game, true).await,
            ClientMsg::DeclineUndo { game } => self.answer_undo(game, false).await,
            ClientMsg::StudyOpen {
                size,
                komi_half_points,
                handicap,
            } => {
                let study = Study::open(size, komi_half_points, handicap)?;
                Ok(self.study_reply(id, Some(study)))
            }
            ClientMsg::StudyLoadSgf { sgf } => {
                let study = Study::load_sgf(&sgf)?;
                Ok(self.study_reply(id, Some(study)))
            }
            ClientMsg::StudyPlay { point } => {
                self.study()?.play(study::play_at(point))?;
                Ok(self.study_reply(id, None))
            }
            ClientMsg::StudyPass => {
                self.study()?.play(tengen_rules::Move::Pass)?;
                Ok(self.study_reply(id, None))
            }
            ClientMsg::StudyBack => {
                self.study()?.back()?;
                Ok(self.study_reply(id, None))
            }
            ClientMsg::StudyForward { variation } => {
                self.study()?.forward(variation)?;
                Ok(self.study_reply(id, None))
            }
            ClientMsg::StudyCount => {
                let count = self.study()?.count();
                Ok(Answer::Msg(Box::new(ServerMsg::StudyCount {
                    id,
                    dead: count.dead,
                    black_count_half_points: count.black_count_half_points,
                    white_count_half_points: count.white_count_half_points,
                    result: count.result,
                })))
            }
            ClientMsg::GetRecord { game } => {
                let sgf = game::record(&self.state.games, &self.state.store, game).await?;
                Ok(Answer::Msg(Box::new(ServerMsg::GameRecord {
                    id,
                    game,
                    sgf,
                })))
            }
            ClientMsg::ListGames { username } => {
                let games = game::list_games(&self.state.store, &username).await?;
                Ok(Answer::Msg(Box::new(ServerMsg::GameList {
                    id,
                    username,
                    games,
                })))
            }
            ClientMsg::AcceptScore { game, dead } => {
                self.game_ack(game, |user, reply| GameCmd::AcceptScore {
                    user,
                    dead,
                    reply,
                })
                .await
            }
            ClientMsg::Chat { channel, text } => self.chat(channel, text).await,
            ClientMsg::Bet {
                game,
                side,
                amount,
                key,
            } => self.bet(id, game, (side, amount), key).await,
            ClientMsg::StakeOffer {
                table,
                left,
                right,
                terms,
            } => {
                self.hall_ack(|user, reply| HallCmd::StakeOffer {
                    table,
                    user,
                    amounts: [left, right],
                    terms,
                    reply,
                })
                .await
            }
            ClientMsg::StakeAnswer { table, agree } => {
                self.hall_ack(|user, reply| HallCmd::StakeAnswer {
                    table,
                    user,
                    agree,
                    reply,
                })
                .await
            }
            ClientMsg::StakeRaise { game, amount, key } => {
                self.game_ack(game, |user, reply| GameCmd::StakeRaise {
                    user,
                    amount,
                    key,
                    reply,
                })
                .await
            }
            ClientMsg::Pool { game } => self.pool(id, game).await,
            ClientMsg::Balance => {
                let user = self.user()?;
                let balance = self.state.ledger.balance(user).await.map_err(internal)?;
                Ok(Answer::Msg(Box::new(ServerMsg::Balance {
                    id,
                    balance,
                    tax_bp: self.state.ledger.tax_bp(),
                })))
            }
            ClientMsg::MyBets => {
                let user = self.user()?;
                let records = self
                    .state
                    .ledger
                    .records(user, WAGER_RECORDS_MAX)
                    .await
                    .map_err(internal)?;
                Ok(Answer::Msg(Box::new(ServerMsg::MyBets { id, records })))
            }
            ClientMsg::History => {
                let user = self.user()?;
                let entries = self
                    .state
                    .ledger
                    .history(user, WAGER_RECORDS_MAX)
                    .await
                    .map_err(internal)?;
                Ok(Answer::Msg(Box::new(ServerMsg::History { id, entries })))
            }
            ClientMsg::House => {
                let balance = self.state.ledger.house().await.map_err(internal)?;
                Ok(Answer::Msg(Box::new(ServerMsg::House {
                    id,
                    balance,
                    tax_bp: self.state.ledger.tax_bp(),
                })))
            }
        }
    }

    /// A watcher's bet goes through the game actor, which orders it against the end of play. A game
    /// that is no longer live has closed its betting.
    async fn bet(
        &mut self,
        id: Option<RequestId>,
        game: GameId,
        (side, amount): (Color, u64),
        key: Option<RequestKey>,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        let asked = match self.game(game).await {
            Ok(handle) => {
                handle
                    .ask(|reply| GameCmd::Bet {
                        user,
                        side: crate::game::wire::color_from_wire(side),
                        amount,
                        key: key.clone(),
                        reply,
                    })
                    .await
            }
            Err(refusal) => Err(refusal),
        };
        let receipt = match asked {
            Ok(receipt) => receipt,
            // The actor is gone (or going): for a finished game that means betting has closed,
            // unless this is a keyed bet the game took before it ended.
            Err(refusal)
                if refusal.code == ErrorCode::NoSuchGame && self.finished(game).await? =>
            {
                let retried = match key {
                    Some(key) => {
                        let side = crate::game::wire::color_from_wire(side);
                        let ledger = &self.state.ledger;
                        ledger.retried_bet(game, user, key, side, amount).await?
                    }
                    None => None,
                };
                let (total, balance) = retried.ok_or(ledger::BetRejected::Closed)?;
                game::BetReceipt { total, balance }
            }
            Err(refusal) => return Err(refusal),
        };
        Ok(Answer::Msg(Box::new(ServerMsg::BetPlaced {
            id,
            game,
            side,
            amount,
            total: receipt.total,
            balance: receipt.balance,
            tax_bp: self.state.ledger.tax_bp(),
        })))
    }

    /// Whether `game` is a finished game in the store.
    async fn finished(&self, game: GameId) -> Result<bool, Refusal> {
        let sgf = self
            .state
            .store
            .call(move |store| store.game_sgf(game))
            .await
            .map_err(internal)?;
        Ok(sgf.is_some())
    }

    /// A live game's pool from its actor; a finished game's from the book.
    async fn pool(&mut self, id: Option<RequestId>, game: GameId) -> Result<Answer, Refusal> {
        let pool = match self.game(game).await {
            Ok(handle) => handle.ask(|reply| GameCmd::Pool { reply }).await?,
            Err(refusal) => {
                if !self.finished(game).await? {
                    return Err(refusal);
                }
                let ledger = &self.state.ledger;
                let (tally, settled) = ledger.tally(game).await.map_err(internal)?;
                tally.info(game, false, ledger.tax_bp(), settled)
            }
        };
        Ok(Answer::Msg(Box::new(ServerMsg::Pool { id, pool })))
    }

    fn hello(&mut self, id: Option<RequestId>, version: u32) -> Result<Answer, Refusal> {
        if version != PROTOCOL_VERSION {
            return refuse(
                ErrorCode::VersionUnsupported,
                format!("this server speaks protocol version {PROTOCOL_VERSION}"),
            );
        }
        self.said_hello = true;
        Ok(Answer::Msg(Box::new(ServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            server: format!("tengen {}", env!("CARGO_PKG_VERSION")),
        })))
    }

    fn not_logged_in(&self) -> Result<(), Refusal> {
        match self.player {
            Some(_) => refuse(ErrorCode::AlreadyLoggedIn, "this connection is logged in"),
            None => Ok(()),
        }
    }

    async fn logged_in(
        &mut self,
        id: Option<RequestId>,
        result: Result<Authenticated, AuthError>,
    ) -> Result<Answer, Refusal> {
        let session = result.map_err(auth_refusal)?;
        // The starting grant when due (once per account), and the balance shown with the session.
        let opened = self
            .state
            .ledger
            .open_account(session.player.user, session.created_at_ms, unix_now_ms())
            .await
            .map_err(internal)?;
        // Subscribed before the hall hears of this user, so no push to them falls in between.
        self.user_events = Some(self.state.hall.subscribe_user(session.player.user));
        self.state
            .hall
            .send_or_busy(HallCmd::Online {
                player: session.player.clone(),
            })
            .await?;
        self.player = Some(session.player.clone());
        self.token = Some(session.token.clone());
        self.viewer.send_replace(Some(session.player.clone()));
        // Entered a room while anonymous: enter it again as this user, so the room lists them.
        if let Some(room) = self.room {
            self.join_room(room).await?;
        }
        // A player coming back gets their games' whole state at once (before this reply).
        for game in self.state.games.of_player(session.player.user).await {
            // A game that ends meanwhile is simply missed.
            let _ = self.watch(game).await;
        }
        // Last before the reply, so the games' states keep coming first.
        self.push(&ServerMsg::Balance {
            id: None,
            balance: opened.balance,
            tax_bp: self.state.ledger.tax_bp(),
        });
        Ok(Answer::Msg(Box::new(ServerMsg::Session {
            id,
            user: session.player.user,
            username: session.player.username,
            token: session.token,
            expires_at_ms: session.expires_at_ms,
            pending_grant: opened.pending_grant,
            grant_due_at_ms: opened.grant_due_at_ms,
        })))
    }

    async fn join_room(&mut self, room: RoomId) -> Result<Answer, Refusal> {
        if let Some(current) = self.room {
            self.leave_room(current).await?;
        }
        let player = self.player.clone();
        let frame = self
            .state
            .hall
            .ask(|reply| HallCmd::JoinRoom {
                room,
                player,
                reply,
            })
            .await?;
        self.pushes.push(frame);
        self.room = Some(room);
        Ok(Answer::Ack)
    }

    async fn leave_room(&mut self, room: RoomId) -> Result<(), Refusal> {
        let user = self.player.as_ref().map(|p| p.user);
        self.state
            .hall
            .ask(|reply| HallCmd::LeaveRoom { room, user, reply })
            .await?;
        self.room = None;
        Ok(())
    }

    async fn join_table(&mut self, table: TableId) -> Result<Answer, Refusal> {
        if self.tables.contains(&table) {
            let frame = self
                .state
                .hall
                .ask(|reply| HallCmd::TableSnapshot { table, reply })
                .await?;
            self.pushes.push(frame);
            return Ok(Answer::Ack);
        }
        if self.tables.len() >= TABLES_PER_SESSION_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("watch at most {TABLES_PER_SESSION_MAX} tables at once"),
            );
        }
        let (frame, game) = self
            .state
            .hall
            .ask(|reply| HallCmd::JoinTable { table, reply })
            .await?;
        self.tables.insert(table);
        self.pushes.push(frame);
        if let Some(game) = game {
            // Watching a table means watching its game; a game that just ended is simply missed.
            let _ = self.watch(game).await;
        }
        Ok(Answer::Ack)
    }

    /// Follow a game: its full state now (before the request's `ack`), then every frame in order.
    async fn watch(&mut self, game: GameId) -> Result<(), Refusal> {
        self.games
            .retain(|_, followed| !followed.forwarder.is_finished());
        if !self.games.contains_key(&game) && self.games.len() >= GAMES_PER_SESSION_MAX {
            return refuse(
                ErrorCode::Busy,
                format!("follow at most {GAMES_PER_SESSION_MAX} games at once"),
            );
        }
        let handle = self.state.games.get(game).await?;
        let subscription = game::subscribe(&handle, self.player.clone()).await?;
        self.pushes.push(subscription.snapshot.clone());
        let source = game::Source {
            games: self.state.games.clone(),
            game,
            handle: handle.clone(),
            store: self.state.store.clone(),
        };
        let forwarder = game::forward(
            source,
            subscription,
            self.viewer.subscribe(),
            self.out.clone(),
            self.state.shutdown.clone(),
            self.state.tasks.clone(),
        );
        if let Some(old) = self.games.insert(game, Followed { forwarder, handle }) {
            old.forwarder.abort();
        }
        Ok(())
    }

    fn study(&mut self) -> Result<&mut Study, Refusal> {
        self.study.as_mut().ok_or_else(|| {
            Refusal::new(
                ErrorCode::NoStudy,
                "open a study board first (study_open or study_load_sgf)",
            )
        })
    }

    /// Replace the study with `fresh`, if given, and answer with the board as it stands.
    fn study_reply(&mut self, id: Option<RequestId>, fresh: Option<Study>) -> Answer {
        if let Some(fresh) = fresh {
            self.study = Some(fresh);
        }
        let study = self.study.as_ref().map(Study::view);
        match study {
            Some(study) => Answer::Msg(Box::new(ServerMsg::Study { id, study })),
            None => Answer::Ack,
        }
    }

    /// A game's handle: the one kept for a followed game (players follow theirs from its start), else
    /// from the registry. A game that ended answers `no_such_game` either way: its inbox is closed.
    async fn game(&self, game: GameId) -> Result<game::GameHandle, Refusal> {
        match self.games.get(&game) {
            // A closed handle whose game goes on elsewhere (scaled out) is looked up again.
            Some(followed) if !followed.handle.is_closed() => Ok(followed.handle.clone()),
            _ => self.state.games.get(game).await,
        }
    }

    async fn game_move(
        &self,
        game: GameId,
        mv: PlayerMove,
        key: Option<RequestKey>,
    ) -> Result<Answer, Refusal> {
        let asked = self
            .game_ack(game, |user, reply| GameCmd::Move {
                user,
                mv,
                key: key.clone(),
                reply,
            })
            .await;
        match (asked, key) {
            // A keyed retry of the resignation (or last move) that ended the game: from its log.
            (Err(refusal), Some(key)) if refusal.code == ErrorCode::NoSuchGame => {
                let user = self.user()?;
                match game::retry_after_end(&self.state.store, game, user, key, mv).await? {
                    Some(()) => Ok(Answer::Ack),
                    None => Err(refusal),
                }
            }
            (asked, _) => asked,
        }
    }

    async fn answer_undo(&self, game: GameId, accept: bool) -> Result<Answer, Refusal> {
        self.game_ack(game, |user, reply| GameCmd::AnswerUndo {
            user,
            accept,
            reply,
        })
        .await
    }

    /// The logged-in user's command to `game`'s actor (a move, an answer, a marking), acknowledged
    /// once the actor took it.
    async fn game_ack(
        &self,
        game: GameId,
        make: impl FnOnce(UserId, Reply<()>) -> GameCmd,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.game(game)
            .await?
            .ask(|reply| make(user, reply))
            .await?;
        Ok(Answer::Ack)
    }

    /// The logged-in user's command to the hall (a seat, a proposal, a challenge, a stake),
    /// acknowledged once the hall took it.
    async fn hall_ack(
        &self,
        make: impl FnOnce(UserId, Reply<()>) -> HallCmd,
    ) -> Result<Answer, Refusal> {
        let user = self.user()?;
        self.state.hall.ask(|reply| make(user, reply)).await?;
        Ok(Answer::Ack)
    }

    async fn chat(&mut self, channel: ChatChannel, text: String) -> Result<Answer, Refusal> {
        let from = self.player()?;
        let at_ms = unix_now_ms();
        match channel {
            ChatChannel::Kibitz { game } => {
                let handle = self.game(game).await?;
                handle
                    .ask(|reply| GameCmd::Kibitz {
                        from,
                        text,
                        at_ms,
                        reply,
                    })
                    .await?;
            }
            ChatChannel::Room { room } => {
                if self.room != Some(room) {
                    return refuse(ErrorCode::NotThere, "you are not in that room");
                }
                self.hall_chat(channel, from, text, at_ms).await?;
            }
            ChatChannel::Table { .. } => self.hall_chat(channel, from, text, at_ms).await?,
        }
        Ok(Answer::Ack)
    }

    async fn hall_chat(
        &self,
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
    ) -> Result<(), Refusal> {
        self.state
            .hall
            .ask(|reply| HallCmd::Chat {
                channel,
                from,
                text,
                at_ms,
                reply,
            })
            .await
    }

    fn wants(&self, audience: &Audience) -> bool {
        let user = self.player.as_ref().map(|p| p.user);
        (audience.hall && self.in_hall)
            || (audience.room.is_some() && audience.room == self.room)
            || audience.table.is_some_and(|t| self.tables.contains(&t))
            || (user.is_some() && audience.users.contains(&user))
    }

    async fn on_hall_event(
        &mut self,
        event: Result<HallEvent, broadcast::error::RecvError>,
    ) -> Next {
        match event {
            Ok(event) => {
                if self.wants(&event.audience) {
                    if let Some(revocation) = Revocation::from_frame(event.text.as_str()) {
                        self.on_revoked(revocation).await;
                        return Next::Continue;
                    }
                    self.pushes.push(event.text);
                    if let Some(game) = event.started_game {
                        // A game that ended already is simply missed.
                        let _ = self.watch(game).await;
                    }
                }
                Next::Continue
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                self.resync_hall().await;
                Next::Continue
            }
            Err(broadcast::error::RecvError::Closed) => {
                Next::Close(CLOSE_GOING_AWAY, "server shutting down")
            }
        }
    }

    /// After missing hall pushes: send fresh snapshots of everything this connection follows.
    async fn resync_hall(&mut self) {
        let hall = self.state.hall.clone();
        if self.in_hall {
            if let Ok(frame) = hall.ask(|reply| HallCmd::HallSnapshot { reply }).await {
                self.pushes.push(frame);
            }
        }
        if let Some(room) = self.room {
            if let Ok(frame) = hall
                .ask(|reply| HallCmd::RoomSnapshot { room, reply })
                .await
            {
                self.pushes.push(frame);
            }
        }
        for table in self.tables.clone() {
            if let Ok(frame) = hall
                .ask(|reply| HallCmd::TableSnapshot { table, reply })
                .await
            {
                self.pushes.push(frame);
            }
        }
    }
}

/// The next push on a receiver the connection holds only at times (the hall's lists while in the
/// hall, the user's own while logged in), or never while it holds none.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flooder_let_through_as_tokens_trickle_back_is_still_closed() {
        let start = Instant::now();
        let mut limit = RateLimit::new(start, 20, 40);
        // The burst passes.
        for _ in 0..40 {
            assert_eq!(limit.check(start), Verdict::Allow);
        }
        // Then 500 frames a second: one in 25 passes as a token comes back; the rest count, and the
        // socket is closed within the strikes allowed (plus the frames let through meanwhile).
        let mut frames = 0;
        let verdict = loop {
            frames += 1;
            let verdict = limit.check(start + Duration::from_millis(2 * frames));
            if verdict == Verdict::Close || frames > 10_000 {
                break verdict;
            }
        };
        assert_eq!(verdict, Verdict::Close);
        assert!(frames <= u64::from(RATE_LIMIT_STRIKES_MAX) * 2, "{frames}");
    }

    #[test]
    fn a_client_that_slows_down_is_forgiven() {
        let start = Instant::now();
        let mut limit = RateLimit::new(start, 20, 40);
        for _ in 0..40 {
            limit.check(start);
        }
        for _ in 0..(RATE_LIMIT_STRIKES_MAX - 1) {
            assert_eq!(limit.check(start), Verdict::Drop);
        }
        // A quiet second and a half refills most of the bucket; the strikes are forgotten.
        let later = start + Duration::from_millis(1_500);
        assert_eq!(limit.check(later), Verdict::Allow);
        for _ in 0..(RATE_LIMIT_STRIKES_MAX - 1) {
            assert_ne!(limit.check(later), Verdict::Close);
        }
    }
}
