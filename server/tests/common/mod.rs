//! Test harness: a real server on 127.0.0.1:0 with a throwaway data directory and cheap argon2
//! parameters, and a real WebSocket client (tokio-tungstenite) that speaks the protocol in JSON.

#![allow(dead_code)]

pub mod events;
pub mod money;
pub mod raw;
pub mod redis;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tengen_server::config::{Argon2Params, Config};
use tengen_server::{Shutdown, ShutdownTrigger};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for any one frame before failing: generous for a loaded 2-core CI machine.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

/// Argon2 parameters cheap enough that registering takes microseconds in tests.
pub const FAST_ARGON2: Argon2Params = Argon2Params {
    memory_kib: 64,
    passes: 1,
    lanes: 1,
};

pub struct TestServer {
    pub addr: SocketAddr,
    trigger: ShutdownTrigger,
    task: JoinHandle<()>,
    _dir: Option<tempfile::TempDir>,
}

/// Production settings but cheap hashing, the grant at once (tests bet right after registering), no
/// registration limit (tests register many players from 127.0.0.1), and login waits long enough that
/// a throttled login is still throttled however slow the machine (no test waits them out).
pub fn test_config(data_dir: &Path) -> Config {
    let mut config = Config::new(data_dir.to_path_buf());
    config.argon2 = FAST_ARGON2;
    config.grant_delay_ms = 0;
    config.throttles.register_address.free = u32::MAX;
    config.throttles.login_pair.base_ms = 60 * 60 * 1000;
    config.throttles.login_account.base_ms = 60 * 60 * 1000;
    config.throttles.login_address.base_ms = 60 * 60 * 1000;
    config
}

impl TestServer {
    pub async fn start() -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let config = test_config(dir.path());
        let mut server = TestServer::start_with(config).await;
        server._dir = Some(dir);
        server
    }

    pub async fn start_with(config: Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (trigger, shutdown) = Shutdown::new();
        let task = tokio::spawn(async move {
            tengen_server::run(config, listener, shutdown)
                .await
                .unwrap();
        });
        TestServer {
            addr,
            trigger,
            task,
            _dir: None,
        }
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.ws_url()).await
    }

    /// A client that said hello, connected from the loopback address `127.0.0.<last>`.
    pub async fn client_from(&self, last: u8) -> Client {
        let local = std::net::IpAddr::from([127, 0, 0, last]);
        let mut client = Client::connect_from(&self.ws_url(), self.addr, local).await;
        client.hello().await;
        client
    }

    /// A client that said hello and registered `username`.
    pub async fn player(&self, username: &str) -> Client {
        let mut client = self.client().await;
        client.hello().await;
        let reply = client
            .ok(json!({"type": "register", "username": username, "password": "password123"}))
            .await;
        assert_eq!(reply["type"], "session", "{reply}");
        client.user = reply["user"].as_u64();
        client.token = reply["token"].as_str().map(str::to_string);
        client
    }

    /// A new connection logged in to an existing account made by [`TestServer::player`].
    pub async fn player_login(&self, username: &str) -> Client {
        let mut client = self.client().await;
        client.hello().await;
        let reply = client
            .ok(json!({"type": "login", "username": username, "password": "password123"}))
            .await;
        assert_eq!(reply["type"], "session", "{reply}");
        client.user = reply["user"].as_u64();
        client.token = reply["token"].as_str().map(str::to_string);
        client
    }

    /// Stop the server and wait until it has finished.
    pub async fn stop(self) -> Option<tempfile::TempDir> {
        self.trigger.trigger();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("server stops within 10 s")
            .unwrap();
        self._dir
    }
}

pub fn data_dir(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().to_path_buf()
}

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Frames read while waiting for something else, in arrival order.
    pub backlog: VecDeque<Value>,
    pub user: Option<u64>,
    pub token: Option<String>,
}

impl Client {
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Client {
            ws,
            next_id: 1,
            backlog: VecDeque::new(),
            user: None,
            token: None,
        }
    }

    /// A connection from another loopback address (`127.0.0.2` and so on: Linux answers the whole
    /// 127/8), for tests of what the server does per client address.
    pub async fn connect_from(url: &str, server: SocketAddr, local: std::net::IpAddr) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(local, 0)).unwrap();
        let stream = socket.connect(server).await.unwrap();
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
            .await
            .unwrap();
        Client {
            ws,
            next_id: 1,
            backlog: VecDeque::new(),
            user: None,
            token: None,
        }
    }

    /// A connection as a reverse proxy makes it: with `X-Forwarded-For: forwarded_for`.
    pub async fn connect_forwarded(url: &str, forwarded_for: &str) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = url.into_client_request().unwrap();
        request
            .headers_mut()
            .insert("x-forwarded-for", forwarded_for.parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        Client {
            ws,
            next_id: 1,
            backlog: VecDeque::new(),
            user: None,
            token: None,
        }
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// The next frame from the socket (not the backlog), or `None` when the socket closed.
    pub async fn read_socket(&mut self) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(FRAME_TIMEOUT, self.ws.next())
                .await
                .expect("a frame within the timeout");
            match message {
                Some(Ok(Message::Text(text))) => {
                    return Some(serde_json::from_str(text.as_str()).unwrap())
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    async fn read(&mut self) -> Value {
        self.read_socket().await.expect("the socket is open")
    }

    /// Send a request with a fresh id and return its reply; other frames go to the backlog.
    pub async fn request(&mut self, mut msg: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        msg["id"] = json!(id);
        self.send_text(&msg.to_string()).await;
        loop {
            let frame = self.read().await;
            if frame["id"] == json!(id) {
                return frame;
            }
            self.backlog.push_back(frame);
        }
    }

    /// A request that must succeed.
    pub async fn ok(&mut self, msg: Value) -> Value {
        let reply = self.request(msg.clone()).await;
        assert_ne!(reply["type"], "error", "{msg} failed: {reply}");
        reply
    }

    /// A request that must fail with `code`.
    pub async fn err(&mut self, msg: Value, code: &str) -> Value {
        let reply = self.request(msg.clone()).await;
        assert_eq!(
            reply["type"], "error",
            "{msg} should fail with {code}: {reply}"
        );
        assert_eq!(reply["code"], code, "{msg}: {reply}");
        assert!(reply["message"].as_str().is_some_and(|m| !m.is_empty()));
        reply
    }

    pub async fn hello(&mut self) {
        let reply = self.ok(json!({"type": "hello", "version": 1})).await;
        assert_eq!(reply["type"], "welcome");
    }

    /// Take the first frame (backlog first, then the socket) matching `pred`; others stay queued.
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(index) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(index).unwrap();
        }
        loop {
            let frame = self.read().await;
            if pred(&frame) {
                return frame;
            }
            self.backlog.push_back(frame);
        }
    }

    /// Like `wait_for`, but the frame stays queued for later readers.
    pub async fn peek_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(frame) = self.backlog.iter().find(|f| pred(f)) {
            return frame.clone();
        }
        loop {
            let frame = self.read().await;
            self.backlog.push_back(frame.clone());
            if pred(&frame) {
                return frame;
            }
        }
    }

    /// The game event of `game` with `seq`, left queued.
    pub async fn peek_event(&mut self, game: u64, seq: u64) -> Value {
        self.peek_for(|f| f["type"] == "game_event" && f["game"] == game && f["seq"] == seq)
            .await
    }

    pub async fn wait_type(&mut self, kind: &str) -> Value {
        self.wait_for(|f| f["type"] == kind).await
    }

    /// The game event of `game` with `seq`.
    pub async fn wait_event(&mut self, game: u64, seq: u64) -> Value {
        self.wait_for(|f| f["type"] == "game_event" && f["game"] == game && f["seq"] == seq)
            .await
    }

    /// Proof that nothing else is pending: a round trip, then check the backlog for `pred`.
    pub async fn drain(&mut self) {
        self.ok(json!({"type": "leave_hall"})).await;
    }

    pub fn backlog_has(&self, pred: impl Fn(&Value) -> bool) -> bool {
        self.backlog.iter().any(pred)
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

pub fn settings_9x9() -> Value {
    json!({
        "size": 9,
        "komi_half_points": 15,
        "handicap": 0,
        "ko_rule": "positional",
        "clock": {"kind": "byo_yomi", "main_time_ms": 600000, "periods": 3, "period_ms": 30000},
        "nigiri": false
    })
}

/// Seat `black` left and `white` right at `table` in room 1, agree 9x9 settings; returns the game id.
pub async fn start_table_game(black: &mut Client, white: &mut Client, table: u64) -> u64 {
    black
        .ok(json!({"type": "sit", "table": table, "seat": "left"}))
        .await;
    white
        .ok(json!({"type": "sit", "table": table, "seat": "right"}))
        .await;
    agree_and_start(black, white, table).await
}

/// With both players seated at `table`, agree 9x9 settings; returns the new game's id.
pub async fn agree_and_start(black: &mut Client, white: &mut Client, table: u64) -> u64 {
    white
        .ok(json!({"type": "propose_settings", "table": table, "settings": settings_9x9()}))
        .await;
    black
        .ok(json!({"type": "accept_settings", "table": table, "settings": settings_9x9()}))
        .await;
    let started = black.wait_type("game_started").await;
    let game = started["game"].as_u64().unwrap();
    white.wait_type("game_started").await;
    for client in [black, white] {
        let state = client
            .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
            .await;
        assert_eq!(state["state"]["seq"], 0);
    }
    game
}

pub fn point(col: u8, row: u8) -> Value {
    json!({"col": col, "row": row})
}

/// A player's move at (`col`, `row`) that must be accepted.
pub async fn play(client: &mut Client, game: u64, col: u8, row: u8) {
    client
        .ok(json!({"type": "play", "game": game, "point": point(col, row)}))
        .await;
}

/// Every event of `game` the client receives until the game's end, in arrival order.
pub async fn events_until_end(client: &mut Client, game: u64) -> Vec<Value> {
    let mut events = Vec::new();
    loop {
        let frame = client
            .wait_for(|f| f["type"] == "game_event" && f["game"] == game)
            .await;
        let ended = frame["event"] == "ended";
        events.push(frame);
        if ended {
            return events;
        }
    }
}

/// `GET path` on the server over a plain socket, with an optional bearer token; the whole response
/// (status line, headers and body).
pub async fn http_get(addr: SocketAddr, path: &str, token: Option<&str>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}
