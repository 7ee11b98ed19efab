//! The baseline: the least a WebSocket broadcast server must do to carry the generator's traffic, with
//! no game logic. It speaks just enough of Tengen's protocol for the same scenario to run unchanged:
//! `hello`, `register`/`resume` (no password hashing, no store), `challenge` and `accept_challenge`
//! (a game is a broadcast channel and a counter), `watch`, and `play`/`resign`/`chat`, which are
//! broadcast to the game's subscribers without checking anything. Every frame is serialized once and
//! shared, like Tengen's; buffers are the same size as Tengen's, so memory compares fairly too.
//! Tengen's figures divided by these say what the game logic, the store and the hall cost.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use tengen_protocol::{
    AccountsMsg, AccountsServerMsg, ChallengeId, ChatChannel, ClientMsg, Color, ConnectionMsg,
    ConnectionServerMsg, EndReason, GameEvent, GameId, GameOutcome, GamePhase, GameSettings,
    GameState, GamesMsg, GamesServerMsg, HallMsg, HallServerMsg, PlayerInfo, Request, ServerMsg,
    UserId,
};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Frames a subscriber may fall behind a game before it misses some (the baseline just drops them;
/// the generator would count the gap as missing deliveries). The same as Tengen's game queue.
const GAME_QUEUE_LEN: usize = 256;

/// Frames waiting to be written to one socket. Tengen had the same queue behind a forwarder task per
/// followed game until the hot-game work (its sessions now read the games' broadcasts themselves); the
/// baseline keeps its forwarder, unchanged, so that runs compare with the earlier ones.
const OUTBOUND_QUEUE_LEN: usize = 256;

/// Frames written per flush at most, as in Tengen.
const WRITE_BATCH_MAX: usize = 64;

/// WebSocket buffer sizes, the same as Tengen's (`WS_READ_BUFFER_BYTES`, `WS_WRITE_BUFFER_BYTES`).
const READ_BUFFER_BYTES: usize = 4 * 1024;
const WRITE_BUFFER_BYTES: usize = 8 * 1024;
const WRITE_BUFFER_MAX_BYTES: usize = 1024 * 1024;

/// One frame of a game, and whether it is kibitz (which, as in Tengen, players do not receive).
type GameFrame = (Utf8Bytes, bool);

/// One game: its subscribers' channel and the next `seq`. The mutex only orders `seq` with the send.
#[derive(Debug)]
struct Room {
    frames: broadcast::Sender<GameFrame>,
    seq: Mutex<u64>,
    black: PlayerInfo,
    white: PlayerInfo,
    settings: GameSettings,
}

impl Room {
    fn publish(&self, make: impl FnOnce(u64) -> ServerMsg) {
        let mut seq = self.seq.lock().unwrap_or_else(|p| p.into_inner());
        *seq += 1;
        let frame = Utf8Bytes::from(make(*seq).to_json());
        let _ = self.frames.send((frame, false));
    }

    fn state(&self, game: GameId) -> ServerMsg {
        let size = usize::from(self.settings.size);
        ServerMsg::Games(GamesServerMsg::GameState {
            state: Box::new(GameState {
                game,
                seq: *self.seq.lock().unwrap_or_else(|p| p.into_inner()),
                table: None,
                black: self.black.clone(),
                white: self.white.clone(),
                settings: self.settings,
                nigiri_seed: None,
                phase: GamePhase::Playing,
                to_move: Color::Black,
                board: vec![".".repeat(size); size],
                captures_black: 0,
                captures_white: 0,
                moves_count: 0,
                dead: Vec::new(),
                accepted_black: false,
                accepted_white: false,
                outcome: None,
                watchers_count: self.frames.receiver_count() as u32,
                // The baseline keeps no watcher list: its subscribers are all alike.
                anonymous_watchers_count: 0,
                watchers: Vec::new(),
                clocks: None,
                server_time_ms: None,
                undo_requested_by: None,
                first_move_in_ms: None,
                scoring_ends_in_ms: None,
                away: Vec::new(),
                last_move: None,
                awaited: Vec::new(),
                warnings_black: 0,
                warnings_white: 0,
                halt: None,
            }),
        })
    }
}

/// What every connection shares. The maps are touched when logging in, pairing and watching; a move
/// or a chat line looks up its game once per message.
#[derive(Debug, Default)]
struct Hub {
    next_id: AtomicU64,
    /// Each online user's outbound queues (one per connection logged in as them).
    users: Mutex<HashMap<UserId, Vec<mpsc::Sender<Utf8Bytes>>>>,
    /// Open challenges: challenger, challenged, settings.
    challenges: Mutex<HashMap<ChallengeId, (PlayerInfo, UserId, GameSettings)>>,
    names: Mutex<HashMap<UserId, PlayerInfo>>,
    games: Mutex<HashMap<GameId, Arc<Room>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn push_to(&self, user: UserId, msg: &ServerMsg) {
        let frame = Utf8Bytes::from(msg.to_json());
        if let Some(queues) = lock(&self.users).get(&user) {
            for queue in queues {
                let _ = queue.try_send(frame.clone());
            }
        }
    }
}

/// Serve the baseline on `listener` until `stop` turns true.
pub async fn serve(listener: TcpListener, stop: watch::Receiver<bool>) {
    let hub = Arc::new(Hub::default());
    loop {
        tokio::select! {
            _ = stopped(&stop) => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(connection(Arc::clone(&hub), stream, stop.clone()));
                }
            }
        }
    }
}

/// One connection's state.
struct Conn {
    hub: Arc<Hub>,
    out: mpsc::Sender<Utf8Bytes>,
    player: Option<PlayerInfo>,
    /// Forwarders of the games this connection follows.
    games: HashMap<GameId, tokio::task::JoinHandle<()>>,
}

async fn connection(hub: Arc<Hub>, stream: TcpStream, stop: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_write_buffer_size(WRITE_BUFFER_MAX_BYTES);
    let Ok(ws) = tokio_tungstenite::accept_async_with_config(stream, Some(config)).await else {
        return;
    };
    let (mut sink, mut stream) = ws.split();
    let (out, mut out_rx) = mpsc::channel::<Utf8Bytes>(OUTBOUND_QUEUE_LEN);
    let mut conn = Conn {
        hub,
        out,
        player: None,
        games: HashMap::new(),
    };
    let mut batch = Vec::with_capacity(WRITE_BATCH_MAX);
    loop {
        tokio::select! {
            _ = stopped(&stop) => break,
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    for reply in conn.handle(text.as_str()) {
                        batch.push(reply);
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            Some(frame) = out_rx.recv() => {
                batch.push(frame);
                while batch.len() < WRITE_BATCH_MAX {
                    match out_rx.try_recv() {
                        Ok(frame) => batch.push(frame),
                        Err(_) => break,
                    }
                }
            }
        }
        let mut failed = false;
        for frame in batch.drain(..) {
            if sink.feed(Message::Text(frame)).await.is_err() {
                failed = true;
                break;
            }
        }
        if failed || sink.flush().await.is_err() {
            break;
        }
    }
    conn.leave();
}

impl Conn {
    /// Answer one frame; the frames returned go out before anything queued later.
    fn handle(&mut self, text: &str) -> Vec<Utf8Bytes> {
        let request = match Request::parse(text) {
            Ok(request) => request,
            Err(err) => {
                return vec![ServerMsg::error(err.id, err.code, err.message)
                    .to_json()
                    .into()]
            }
        };
        let id = request.id;
        let ack = || Utf8Bytes::from(ServerMsg::ack(id).to_json());
        match request.msg {
            ClientMsg::Connection(ConnectionMsg::Hello { version }) => {
                vec![ServerMsg::Connection(ConnectionServerMsg::Welcome {
                    id,
                    version,
                    server: "baseline".into(),
                })
                .to_json()
                .into()]
            }
            ClientMsg::Accounts(AccountsMsg::Register { username, .. })
            | ClientMsg::Accounts(AccountsMsg::Login { username, .. }) => {
                let user = UserId(self.hub.id());
                self.log_in(id, user, username)
            }
            ClientMsg::Accounts(AccountsMsg::Resume { token }) => {
                let user = UserId(token.parse().unwrap_or(0));
                let username = lock(&self.hub.names)
                    .get(&user)
                    .map(|p| p.username.clone())
                    .unwrap_or_default();
                self.log_in(id, user, username)
            }
            ClientMsg::Hall(HallMsg::Challenge { user, settings }) => {
                let Some(from) = self.player.clone() else {
                    return vec![ack()];
                };
                let challenge = ChallengeId(self.hub.id());
                lock(&self.hub.challenges).insert(challenge, (from.clone(), user, settings));
                self.hub.push_to(
                    user,
                    &HallServerMsg::Challenged {
                        challenge,
                        from,
                        settings,
                    }
                    .into(),
                );
                vec![ServerMsg::Hall(HallServerMsg::ChallengeSent {
                    id,
                    challenge,
                    to: user,
                })
                .to_json()
                .into()]
            }
            ClientMsg::Hall(HallMsg::AcceptChallenge { challenge }) => {
                let Some((black, white, settings)) = lock(&self.hub.challenges).remove(&challenge)
                else {
                    return vec![ack()];
                };
                let white = lock(&self.hub.names)
                    .get(&white)
                    .cloned()
                    .unwrap_or_else(|| black.clone());
                let game = GameId(self.hub.id());
                let (frames, _) = broadcast::channel(GAME_QUEUE_LEN);
                let room = Arc::new(Room {
                    frames,
                    seq: Mutex::new(0),
                    black: black.clone(),
                    white: white.clone(),
                    settings,
                });
                lock(&self.hub.games).insert(game, Arc::clone(&room));
                // Players follow their game from its start, as in Tengen. Their forwarders end when
                // the game's channel closes (it is dropped after the resignation) or the socket does.
                for user in [black.user, white.user] {
                    for out in lock(&self.hub.users).get(&user).into_iter().flatten() {
                        forward(room.frames.subscribe(), out.clone(), true);
                    }
                }
                let started = ServerMsg::Hall(HallServerMsg::GameStarted {
                    game,
                    table: None,
                    black: black.clone(),
                    white: white.clone(),
                });
                self.hub.push_to(black.user, &started);
                self.hub.push_to(white.user, &started);
                vec![ack()]
            }
            ClientMsg::Games(GamesMsg::Watch { game }) => {
                let mut replies = Vec::new();
                if let Some(state) = self.follow(game) {
                    replies.push(state);
                }
                replies.push(ack());
                replies
            }
            ClientMsg::Games(GamesMsg::Play { game, point, .. }) => {
                self.publish(game, |color| GameEvent::Played {
                    color,
                    point,
                    captured: Vec::new(),
                });
                vec![ack()]
            }
            ClientMsg::Games(GamesMsg::Pass { game, .. }) => {
                self.publish(game, |color| GameEvent::Passed {
                    color,
                    forced: false,
                });
                vec![ack()]
            }
            ClientMsg::Games(GamesMsg::Resign { game, .. }) => {
                self.publish(game, |color| GameEvent::Ended {
                    outcome: GameOutcome {
                        winner: Some(match color {
                            Color::Black => Color::White,
                            Color::White => Color::Black,
                        }),
                        reason: EndReason::Resignation,
                        sgf: "R".into(),
                        chinese: String::new(),
                        black_count_half_points: None,
                        white_count_half_points: None,
                    },
                });
                lock(&self.hub.games).remove(&game);
                vec![ack()]
            }
            ClientMsg::Hall(HallMsg::Chat {
                channel: ChatChannel::Kibitz { game },
                text,
            }) => {
                let room = lock(&self.hub.games).get(&game).cloned();
                if let (Some(room), Some(from)) = (room, self.player.clone()) {
                    let frame = ServerMsg::Hall(HallServerMsg::Chat {
                        channel: ChatChannel::Kibitz { game },
                        from,
                        text,
                        at_ms: 0,
                        line: None,
                    });
                    let _ = room.frames.send((frame.to_json().into(), true));
                }
                vec![ack()]
            }
            _ => vec![ack()],
        }
    }

    fn log_in(
        &mut self,
        id: Option<tengen_protocol::RequestId>,
        user: UserId,
        username: String,
    ) -> Vec<Utf8Bytes> {
        let player = PlayerInfo {
            user,
            username,
            rank: "?".into(),
            rating: 1500,
            computer: false,
        };
        lock(&self.hub.names).insert(user, player.clone());
        lock(&self.hub.users)
            .entry(user)
            .or_default()
            .push(self.out.clone());
        self.player = Some(player.clone());
        vec![ServerMsg::Accounts(AccountsServerMsg::Session {
            id,
            user,
            username: player.username,
            token: user.0.to_string(),
            expires_at_ms: u64::MAX,
            pending_grant: 0,
            grant_due_at_ms: None,
            role: Default::default(),
            muted_until_ms: None,
            muted_reason: None,
        })
        .to_json()
        .into()]
    }

    /// Subscribe this connection to a game; the game's state frame to send first.
    fn follow(&mut self, game: GameId) -> Option<Utf8Bytes> {
        let room = lock(&self.hub.games).get(&game).cloned()?;
        let forwarder = forward(room.frames.subscribe(), self.out.clone(), false);
        let state = room.state(game).to_json().into();
        if let Some(old) = self.games.insert(game, forwarder) {
            old.abort();
        }
        Some(state)
    }

    /// Broadcast an event of `game` from this connection's player (Black if it challenged).
    fn publish(&mut self, game: GameId, make: impl FnOnce(Color) -> GameEvent) {
        let Some(room) = lock(&self.hub.games).get(&game).cloned() else {
            return;
        };
        let color = match &self.player {
            Some(p) if p.user == room.black.user => Color::Black,
            _ => Color::White,
        };
        let event = make(color);
        room.publish(|seq| {
            ServerMsg::Games(GamesServerMsg::GameEvent {
                game,
                seq,
                event,
                clocks: None,
                server_time_ms: None,
            })
        });
    }

    fn leave(&mut self) {
        for (_, forwarder) in self.games.drain() {
            forwarder.abort();
        }
        if let Some(player) = &self.player {
            let mut users = lock(&self.hub.users);
            if let Some(queues) = users.get_mut(&player.user) {
                queues.retain(|queue| !queue.same_channel(&self.out));
                if queues.is_empty() {
                    users.remove(&player.user);
                }
            }
        }
    }
}

/// Copy a game's frames to one socket's queue until either side closes; a player skips kibitz.
fn forward(
    mut frames: broadcast::Receiver<GameFrame>,
    out: mpsc::Sender<Utf8Bytes>,
    player: bool,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match frames.recv().await {
                Ok((_, true)) if player => {}
                Ok((frame, _)) => {
                    if out.send(frame).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    })
}

/// Resolves once `stop` turns true (or its sender is gone).
async fn stopped(stop: &watch::Receiver<bool>) {
    let mut stop = stop.clone();
    let _ = stop.wait_for(|stop| *stop).await;
}
