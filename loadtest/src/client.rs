//! One simulated connection: a task that owns a real WebSocket (tokio-tungstenite), sends what its
//! driver asks at the intended time, and reads everything the server sends, timing what it measures
//! against the intended send times. A [`ClientHandle`] is the driver's way in.
//!
//! Open loop: every request carries the instant it was *meant* to be sent, and latencies are measured
//! from that instant, so a server that stalls is charged for the whole stall, not just for the requests
//! that happened to be in flight (no coordinated omission).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tengen_protocol::{
    AccountsMsg, AccountsServerMsg, ChatChannel, ClientMsg, Color, ConnectionMsg,
    ConnectionServerMsg, ErrorCode, EventsServerMsg, GameEvent, GameId, GamesServerMsg, HallMsg,
    HallServerMsg, MoneyMsg, MoneyServerMsg, Request, RequestId, ServerMsg,
};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, Interval, MissedTickBehavior};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::hot::HotTracker;
use crate::metrics::Metrics;

/// How long a request waits for its reply before it counts as a `timeout` error. Far above any
/// latency target, so only a lost reply or a stuck server trips it.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Commands queued for one client task. A driver sends at most one request at a time per client, and
/// watchers chat from their own timer, so a few slots suffice; a full queue means the task is stuck.
const CLIENT_QUEUE_LEN: usize = 16;

/// Events (seq) of one game whose intended send time is remembered; more than the longest game the
/// generator plays (it resigns at `MAX_MOVES_19`), so a live game never wraps.
const INTENT_RING_LEN: usize = 512;

/// Bytes the generator's WebSocket reads and gathers at a time: frames are small, and thousands of
/// clients share one process, so the 128 KiB defaults would cost gigabytes.
const CLIENT_WS_BUFFER_BYTES: usize = 8 * 1024;

/// What a request is, for what its reply counts toward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Accounts, pairing and watching: no latency is recorded.
    Setup,
    Move,
    Chat,
    /// A watcher's bet of one point on their side.
    Bet,
    /// A request the server is expected to refuse (an entrant's bet on their own event): its error
    /// is the answer the driver checks, not an error of the run.
    Probe,
}

/// The game a slot of players and watchers is on, and the intended send times of its events, shared by
/// the driver (who writes them before sending) and the clients (who read them on delivery).
#[derive(Debug)]
pub struct Slot {
    game: AtomicU64,
    /// Set while the game is ending (its resignation sent, the next not yet started): watchers hold
    /// their chat, which would only reach a game that is gone.
    ending: AtomicBool,
    intents: Box<[AtomicU64]>,
}

impl Default for Slot {
    fn default() -> Self {
        Slot::new()
    }
}

impl Slot {
    pub fn new() -> Slot {
        Slot {
            game: AtomicU64::new(0),
            ending: AtomicBool::new(false),
            intents: (0..INTENT_RING_LEN).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Switch to a new game: forget the old one's intended times.
    pub fn set_game(&self, game: GameId) {
        for intent in self.intents.iter() {
            intent.store(0, Ordering::Relaxed);
        }
        self.game.store(game.0, Ordering::SeqCst);
        self.ending.store(false, Ordering::SeqCst);
    }

    /// The game is about to end (the driver sends its resignation next).
    pub fn set_ending(&self) {
        self.ending.store(true, Ordering::SeqCst);
    }

    fn ending(&self) -> bool {
        self.ending.load(Ordering::SeqCst)
    }

    pub fn game(&self) -> GameId {
        GameId(self.game.load(Ordering::SeqCst))
    }

    pub fn set_intent(&self, seq: u64, nanos: u64) {
        self.intents[seq as usize % INTENT_RING_LEN].store(nanos, Ordering::SeqCst);
    }

    fn intent(&self, game: GameId, seq: u64) -> Option<u64> {
        if game != self.game() {
            return None;
        }
        let nanos = self.intents[seq as usize % INTENT_RING_LEN].load(Ordering::SeqCst);
        (nanos != 0).then_some(nanos)
    }
}

/// Who a client is in its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Player(Color),
    Watcher,
}

/// A request for the client task.
#[derive(Debug)]
struct Outgoing {
    msg: ClientMsg,
    intended: Instant,
    kind: Kind,
    reply: Option<oneshot::Sender<ServerMsg>>,
}

#[derive(Debug)]
enum Cmd {
    /// Boxed: a client message (with its game settings) is far larger than the other commands.
    Send(Box<Outgoing>),
    /// Watchers: bet one point on `side` every `every`, from `first` until `end`.
    Bet {
        side: Color,
        first: Instant,
        every: Duration,
        end: Instant,
    },
    /// Watchers: send a kibitz line every `every`, from `first` until `end`.
    Chat {
        first: Instant,
        every: Duration,
        end: Instant,
    },
}

/// A request waiting for its reply.
#[derive(Debug)]
struct Pending {
    intended: Instant,
    kind: Kind,
    /// The game a chat line was said in.
    game: Option<GameId>,
    reply: Option<oneshot::Sender<ServerMsg>>,
}

/// The driver's way in to one client task.
#[derive(Debug, Clone)]
pub struct ClientHandle {
    tx: mpsc::Sender<Cmd>,
    metrics: Arc<Metrics>,
}

impl ClientHandle {
    /// Say `hello` with this build's protocol version.
    pub async fn hello(&self) -> Result<ServerMsg, String> {
        self.request(ConnectionMsg::Hello {
            version: tengen_protocol::PROTOCOL_VERSION,
        })
        .await
    }

    /// Register a fresh account on this connection; its user id and session token.
    pub async fn register(
        &self,
        username: String,
        password: String,
    ) -> Result<(tengen_protocol::UserId, String), String> {
        let reply = self
            .request(AccountsMsg::Register {
                username,
                password,
                computer: false,
                rank: None,
            })
            .await?;
        match reply {
            ServerMsg::Accounts(AccountsServerMsg::Session { user, token, .. }) => {
                Ok((user, token))
            }
            other => Err(format!("register answered {other:?}")),
        }
    }

    /// Send `msg` now and wait for its reply; an `error` reply is returned as `Err(code)`. Every failure
    /// is counted once: server errors by the client task, a lost reply (`timeout`, `closed`) here.
    pub async fn request(&self, msg: impl Into<ClientMsg>) -> Result<ServerMsg, String> {
        let msg = msg.into();
        self.request_at(msg, Instant::now(), Kind::Setup).await
    }

    /// Send `msg`, meant to go at `intended` (now, or earlier when the driver is late), and wait for
    /// its reply.
    pub async fn request_at(
        &self,
        msg: impl Into<ClientMsg>,
        intended: Instant,
        kind: Kind,
    ) -> Result<ServerMsg, String> {
        let msg = msg.into();
        let (reply, rx) = oneshot::channel();
        let out = Outgoing {
            msg,
            intended,
            kind,
            reply: Some(reply),
        };
        let lost = |code: &str| {
            self.metrics.error(code);
            Err(code.to_string())
        };
        if self.tx.send(Cmd::Send(Box::new(out))).await.is_err() {
            return lost("closed");
        }
        match tokio::time::timeout(REQUEST_TIMEOUT, rx).await {
            Ok(Ok(ServerMsg::Connection(ConnectionServerMsg::Error { code, .. }))) => {
                Err(code.to_string())
            }
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(_)) => lost("closed"),
            Err(_) => lost("timeout"),
        }
    }

    /// Send `msg`, meant to go at `intended`, without waiting for its reply (the client task times
    /// and counts it): a burst of bets from many watchers is sent on schedule by one task. A full
    /// queue (the client is stuck) counts as `queue_full`.
    pub fn send_at(&self, msg: impl Into<ClientMsg>, intended: Instant, kind: Kind) {
        let msg = msg.into();
        let out = Outgoing {
            msg,
            intended,
            kind,
            reply: None,
        };
        if self.tx.try_send(Cmd::Send(Box::new(out))).is_err() {
            self.metrics.error("queue_full");
        }
    }

    /// Start the watcher's chat timer.
    pub async fn start_chat(&self, first: Instant, every: Duration, end: Instant) {
        let _ = self.tx.send(Cmd::Chat { first, every, end }).await;
    }

    /// Start the watcher's betting timer, always on `side` (changing sides is refused).
    pub async fn start_bets(&self, side: Color, first: Instant, every: Duration, end: Instant) {
        let _ = self
            .tx
            .send(Cmd::Bet {
                side,
                first,
                every,
                end,
            })
            .await;
    }
}

/// The WebSocket type of a client.
pub type Ws = WebSocketStream<TcpStream>;

/// The loopback address connection `n` opens from: 127.0.0.1 to 127.0.0.`source_ips`, in turn, so
/// thousands of connections spread over several source addresses (each has its own port range).
pub fn source_address(n: usize, source_ips: u8) -> IpAddr {
    let last = (n % usize::from(source_ips.max(1))) as u8 + 1;
    IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, last))
}

/// Open a WebSocket to `server` from the local address `source` (any 127.0.0.x), so thousands of
/// connections can spread over several source addresses.
pub async fn connect(server: SocketAddr, source: IpAddr) -> Result<Ws, String> {
    let socket = match source {
        IpAddr::V4(_) => TcpSocket::new_v4(),
        IpAddr::V6(_) => TcpSocket::new_v6(),
    }
    .map_err(|err| format!("socket: {err}"))?;
    socket
        .bind(SocketAddr::new(source, 0))
        .map_err(|err| format!("bind {source}: {err}"))?;
    let stream = socket
        .connect(server)
        .await
        .map_err(|err| format!("connect: {err}"))?;
    // Frames are small and latency is what we measure: send each at once.
    stream
        .set_nodelay(true)
        .map_err(|err| format!("nodelay: {err}"))?;
    let config = WebSocketConfig::default()
        .read_buffer_size(CLIENT_WS_BUFFER_BYTES)
        .write_buffer_size(CLIENT_WS_BUFFER_BYTES)
        .max_write_buffer_size(CLIENT_WS_BUFFER_BYTES * 16);
    let url = format!("ws://{server}/ws");
    let (ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
        .await
        .map_err(|err| format!("handshake: {err}"))?;
    Ok(ws)
}

/// Start the task of one connected client.
pub fn spawn(
    ws: Ws,
    role: Role,
    slot: Arc<Slot>,
    events: Option<mpsc::Sender<ServerMsg>>,
    metrics: Arc<Metrics>,
    stop: watch::Receiver<bool>,
    hot: Option<Arc<HotTracker>>,
) -> (ClientHandle, JoinHandle<()>) {
    spawn_task(ws, role, slot, (events, None), metrics, stop, hot)
}

/// What an event's entrant or director hears, with when it arrived: every `event` push (no `id`),
/// and the `game_state` and `game_event` frames of the games it plays.
pub type Tapped = (Instant, ServerMsg);

/// Start the task of a client whose pushes its driver reads itself (the event scenario's entrants
/// and director): `tap` receives every [`Tapped`] frame, timed at arrival. A full tap (the driver
/// stuck) drops the frame and counts `tap_full`; a closed one (the driver done) drops it quietly.
pub fn spawn_tapped(
    ws: Ws,
    role: Role,
    slot: Arc<Slot>,
    tap: mpsc::Sender<Tapped>,
    metrics: Arc<Metrics>,
    stop: watch::Receiver<bool>,
) -> (ClientHandle, JoinHandle<()>) {
    spawn_task(ws, role, slot, (None, Some(tap)), metrics, stop, None)
}

fn spawn_task(
    ws: Ws,
    role: Role,
    slot: Arc<Slot>,
    (events, tap): (
        Option<mpsc::Sender<ServerMsg>>,
        Option<mpsc::Sender<Tapped>>,
    ),
    metrics: Arc<Metrics>,
    stop: watch::Receiver<bool>,
    hot: Option<Arc<HotTracker>>,
) -> (ClientHandle, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(CLIENT_QUEUE_LEN);
    let task = ClientTask {
        role,
        slot,
        events,
        tap,
        metrics: Arc::clone(&metrics),
        hot,
        got_balance: false,
        next_id: 1,
        pending: HashMap::new(),
        chat: None,
        bet: None,
    };
    let join = tokio::spawn(task.run(ws, rx, stop));
    (ClientHandle { tx, metrics }, join)
}

struct ClientTask {
    role: Role,
    slot: Arc<Slot>,
    /// Players forward `challenged` and `game_started` to their driver.
    events: Option<mpsc::Sender<ServerMsg>>,
    /// The event scenario's drivers read their pushes here (see [`spawn_tapped`]).
    tap: Option<mpsc::Sender<Tapped>>,
    metrics: Arc<Metrics>,
    /// The hot game's own figures, for its watchers (`None` elsewhere).
    hot: Option<Arc<HotTracker>>,
    /// Whether this connection heard its new balance after the hot game ended.
    got_balance: bool,
    next_id: u64,
    /// Requests in flight; at most a handful (one driver request, a few chat lines).
    pending: HashMap<u64, Pending>,
    /// The chat timer and when it stops.
    chat: Option<(Interval, Instant)>,
    /// The betting timer, when it stops, and the side this watcher backs.
    bet: Option<(Interval, Instant, Color)>,
}

impl ClientTask {
    async fn run(mut self, mut ws: Ws, mut rx: mpsc::Receiver<Cmd>, stop: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                _ = stopped(&stop) => {
                    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
                    return;
                }
                cmd = rx.recv() => match cmd {
                    Some(Cmd::Send(out)) => {
                        if !self.send(&mut ws, *out).await {
                            return;
                        }
                    }
                    Some(Cmd::Chat { first, every, end }) => {
                        let mut timer = tokio::time::interval_at(first, every);
                        // Open loop: a late tick fires at once and is still timed from when it was due.
                        timer.set_missed_tick_behavior(MissedTickBehavior::Burst);
                        self.chat = Some((timer, end));
                    }
                    Some(Cmd::Bet { side, first, every, end }) => {
                        let mut timer = tokio::time::interval_at(first, every);
                        timer.set_missed_tick_behavior(MissedTickBehavior::Burst);
                        self.bet = Some((timer, end, side));
                    }
                    // The driver is gone: nothing more will be asked, but keep reading until stopped.
                    None => {
                        stopped(&stop).await;
                        let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
                        return;
                    }
                },
                due = tick(&mut self.chat) => {
                    if !self.chat_line(&mut ws, due).await {
                        return;
                    }
                }
                due = tick_bet(&mut self.bet) => {
                    if !self.place_bet(&mut ws, due).await {
                        return;
                    }
                }
                incoming = ws.next() => match incoming {
                    Some(Ok(Message::Text(text))) => self.receive(text.as_str(), Instant::now()),
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        if !*stop.borrow() {
                            self.metrics.error("closed");
                        }
                        return;
                    }
                },
            }
        }
    }

    /// Send a kibitz line stamped with its intended time, unless the window closed.
    async fn chat_line(&mut self, ws: &mut Ws, due: Instant) -> bool {
        if self.chat.as_ref().is_some_and(|(_, end)| due >= *end) {
            self.chat = None;
            return true;
        }
        if self.slot.ending() {
            return true;
        }
        let game = self.slot.game();
        let text = format!("t{}", self.metrics.nanos(due));
        let msg = HallMsg::Chat {
            channel: ChatChannel::Kibitz { game },
            text,
        };
        let out = Outgoing {
            msg: msg.into(),
            intended: due,
            kind: Kind::Chat,
            reply: None,
        };
        self.send(ws, out).await
    }

    /// Bet one point on this watcher's side, stamped with its intended time, unless the window closed.
    async fn place_bet(&mut self, ws: &mut Ws, due: Instant) -> bool {
        let Some(side) = self.bet.as_ref().map(|(_, _, side)| *side) else {
            return true;
        };
        if self.bet.as_ref().is_some_and(|(_, end, _)| due >= *end) {
            self.bet = None;
            return true;
        }
        if self.slot.ending() {
            return true;
        }
        let game = self.slot.game();
        let out = Outgoing {
            msg: MoneyMsg::Bet {
                game,
                side,
                amount: 1.into(),
                key: None,
            }
            .into(),
            intended: due,
            kind: Kind::Bet,
            reply: None,
        };
        self.send(ws, out).await
    }

    async fn send(&mut self, ws: &mut Ws, out: Outgoing) -> bool {
        let id = self.next_id;
        self.next_id += 1;
        let game = match &out.msg {
            ClientMsg::Hall(HallMsg::Chat {
                channel: ChatChannel::Kibitz { game },
                ..
            })
            | ClientMsg::Money(MoneyMsg::Bet { game, .. }) => Some(*game),
            _ => None,
        };
        let text = serde_json::to_string(&Request {
            id: Some(RequestId(id)),
            msg: out.msg,
        })
        .expect("requests serialize");
        self.pending.insert(
            id,
            Pending {
                intended: out.intended,
                kind: out.kind,
                game,
                reply: out.reply,
            },
        );
        if ws.send(Message::text(text)).await.is_err() {
            self.metrics.error("send_failed");
            return false;
        }
        true
    }

    fn receive(&mut self, text: &str, at: Instant) {
        let measuring = self.metrics.measuring();
        if measuring {
            self.metrics.delivered_count.fetch_add(1, Ordering::Relaxed);
        }
        let msg: ServerMsg = match serde_json::from_str(text) {
            Ok(msg) => msg,
            Err(_) => {
                self.metrics.error("unreadable_frame");
                return;
            }
        };
        match &msg {
            ServerMsg::Connection(ConnectionServerMsg::Welcome { id, .. })
            | ServerMsg::Accounts(AccountsServerMsg::Session { id, .. })
            | ServerMsg::Connection(ConnectionServerMsg::Ack { id })
            | ServerMsg::Connection(ConnectionServerMsg::Error { id, .. })
            | ServerMsg::Hall(HallServerMsg::ChallengeSent { id, .. })
            | ServerMsg::Money(MoneyServerMsg::BetPlaced { id, .. }) => {
                self.reply(*id, msg, at, measuring)
            }
            ServerMsg::Events(EventsServerMsg::Event { id: Some(id), .. }) => {
                self.reply(Some(*id), msg, at, measuring)
            }
            ServerMsg::Games(GamesServerMsg::GameEvent {
                game, seq, event, ..
            }) => {
                self.game_event(*game, *seq, event, at, measuring);
                self.tap(at, msg);
            }
            ServerMsg::Events(EventsServerMsg::Event { id: None, .. })
            | ServerMsg::Games(GamesServerMsg::GameState { .. }) => self.tap(at, msg),
            ServerMsg::Hall(HallServerMsg::Chat {
                channel: ChatChannel::Kibitz { .. },
                text,
                ..
            }) if measuring && self.role == Role::Watcher => {
                let sent = text.strip_prefix('t').and_then(|n| n.parse::<u64>().ok());
                if let Some(nanos) = sent {
                    let intended = self.metrics.instant(nanos);
                    self.metrics.watcher_chat.record(at - intended);
                }
            }
            ServerMsg::Money(MoneyServerMsg::Pool { id: None, .. }) => {
                if let Some(hot) = self.hot.as_ref().filter(|_| measuring) {
                    hot.pool_pushed(self.metrics.nanos(at));
                }
            }
            ServerMsg::Money(MoneyServerMsg::Balance { id: None, .. }) => {
                if let Some(hot) = &self.hot {
                    if !self.got_balance && hot.balance_pushed(self.metrics.nanos(at)) {
                        self.got_balance = true;
                    }
                }
            }
            ServerMsg::Hall(HallServerMsg::Challenged { .. })
            | ServerMsg::Hall(HallServerMsg::GameStarted { .. }) => {
                if let Some(events) = &self.events {
                    // The driver reads these only while pairing; at most two arrive per game.
                    let _ = events.try_send(msg);
                }
            }
            _ => {}
        }
    }

    /// Hand a push to the driver that reads them, if this client has one.
    fn tap(&self, at: Instant, msg: ServerMsg) {
        if let Some(tap) = &self.tap {
            // A closed tap is a driver that finished (after the last round): nothing more to read.
            if let Err(mpsc::error::TrySendError::Full(_)) = tap.try_send((at, msg)) {
                self.metrics.error("tap_full");
            }
        }
    }

    fn reply(&mut self, id: Option<RequestId>, msg: ServerMsg, at: Instant, measuring: bool) {
        let Some(id) = id else {
            if let ServerMsg::Connection(ConnectionServerMsg::Error { code, .. }) = &msg {
                self.metrics.error(&code.to_string());
            }
            return;
        };
        let Some(pending) = self.pending.remove(&id.0) else {
            self.metrics.error("unexpected_reply");
            return;
        };
        match &msg {
            // A line said just before its game ended can reach the server just after: the game is
            // gone, as it would be for a person typing at that moment. Counted apart, not as an error.
            ServerMsg::Connection(ConnectionServerMsg::Error {
                code: ErrorCode::NoSuchGame,
                ..
            }) if pending.kind == Kind::Chat
                && (self.slot.ending() || pending.game != Some(self.slot.game())) =>
            {
                self.metrics
                    .chats_after_end_count
                    .fetch_add(1, Ordering::Relaxed);
            }
            // Likewise a bet sent as play ends: it is refused (`betting_closed`), never half placed.
            ServerMsg::Connection(ConnectionServerMsg::Error {
                code: ErrorCode::BettingClosed | ErrorCode::NoSuchGame,
                ..
            }) if pending.kind == Kind::Bet => {
                self.metrics
                    .bets_after_close_count
                    .fetch_add(1, Ordering::Relaxed);
            }
            ServerMsg::Connection(ConnectionServerMsg::Error { .. })
                if pending.kind == Kind::Probe => {}
            ServerMsg::Connection(ConnectionServerMsg::Error { code, .. }) => {
                self.metrics.error(&code.to_string())
            }
            _ if measuring => match pending.kind {
                Kind::Move => {
                    self.metrics.move_ack.record(at - pending.intended);
                    if self.metrics.in_burst(pending.intended) {
                        self.metrics.move_ack_burst.record(at - pending.intended);
                    }
                    self.metrics.moves_count.fetch_add(1, Ordering::Relaxed);
                }
                Kind::Chat => {
                    self.metrics.chats_count.fetch_add(1, Ordering::Relaxed);
                }
                Kind::Bet => {
                    self.metrics.bet_ack.record(at - pending.intended);
                    self.metrics.bets_count.fetch_add(1, Ordering::Relaxed);
                    if let Some(hot) = &self.hot {
                        hot.bet_accepted();
                    }
                }
                Kind::Setup | Kind::Probe => {}
            },
            _ => {}
        }
        if let Some(reply) = pending.reply {
            let _ = reply.send(msg);
        }
    }

    fn game_event(&self, game: GameId, seq: u64, event: &GameEvent, at: Instant, measuring: bool) {
        if !measuring {
            return;
        }
        let Some(nanos) = self.slot.intent(game, seq) else {
            return;
        };
        let latency = at - self.metrics.instant(nanos);
        match self.role {
            Role::Watcher => {
                self.metrics.watcher_event.record(latency);
                if let Some(hot) = &self.hot {
                    hot.delivered(seq, nanos, self.metrics.nanos(at));
                }
            }
            Role::Player(me) => {
                let mover = match event {
                    GameEvent::Played { color, .. } | GameEvent::Passed { color, .. } => {
                        Some(*color)
                    }
                    _ => None,
                };
                if mover.is_some_and(|mover| mover != me) {
                    self.metrics.move_opponent.record(latency);
                }
            }
        }
    }
}

/// The next chat tick, or never when the timer is off.
async fn tick(chat: &mut Option<(Interval, Instant)>) -> Instant {
    match chat {
        Some((timer, _)) => timer.tick().await,
        None => std::future::pending().await,
    }
}

/// The betting timer's next tick, or never when the watcher does not bet.
async fn tick_bet(bet: &mut Option<(Interval, Instant, Color)>) -> Instant {
    match bet {
        Some((timer, _, _)) => timer.tick().await,
        None => std::future::pending().await,
    }
}

/// Resolves once `stop` turns true (or its sender is gone).
async fn stopped(stop: &watch::Receiver<bool>) {
    let mut stop = stop.clone();
    let _ = stop.wait_for(|stop| *stop).await;
}
