//! `tengen bot`: connects a GTP engine (GNU Go first) to a Tengen server as an ordinary account, over the
//! same WebSocket protocol as any player. The server trusts it no more than a person: every move it sends
//! is checked there, and the bridge checks the engine's answers itself first, so that an engine that
//! crashes, hangs or answers garbage or an illegal move loses that game cleanly (it resigns) and is
//! replaced by a fresh process.
//!
//! The bridge plays one game at a time. It accepts challenges whose board size it is configured for,
//! mirrors the game in `tengen-rules`, feeds the opponent's moves to the engine with `play`, asks
//! `genmove` on its turn, and in the scoring phase compares the server's marking with the engine's
//! `final_status_list dead`, toggling chains until they agree, then accepts.

mod engine;
mod game;

pub use engine::{Engine, EngineError};

use futures_util::{SinkExt, StreamExt};
use game::{EngineStep, Match};
use std::fmt;
use std::time::Duration;
use tengen_protocol::{
    AccountsMsg, AccountsServerMsg, ClientMsg, Clocks, ConnectionMsg, ConnectionServerMsg,
    ErrorCode, GameEvent, GameId, GamePhase, GameState, GamesMsg, GamesServerMsg, HallMsg,
    HallServerMsg, Request, RequestId, ServerMsg, PROTOCOL_VERSION,
};
use tokio_tungstenite::tungstenite::Message;

/// Reconnection attempts in a row before the bridge gives up: about a minute and a half of backoff.
const RECONNECTS_MAX: u32 = 20;
/// The longest wait between reconnection attempts.
const RECONNECT_BACKOFF_MAX_MS: u64 = 5_000;

/// What the bridge is told on the command line.
#[derive(Debug, Clone)]
pub struct BotConfig {
    /// The engine's command line, e.g. `/usr/games/gnugo --mode gtp --chinese-rules`.
    pub engine: String,
    /// The server's WebSocket address, e.g. `ws://127.0.0.1:8080/ws`.
    pub server_url: String,
    pub username: String,
    pub password: String,
    /// Create the account (marked as a computer player) when it does not exist yet.
    pub register: bool,
    /// Board sizes the bot accepts challenges for.
    pub board_sizes: Vec<u8>,
    /// The longest the engine may think about one move before the bridge gives the game up.
    pub move_timeout_ms: u64,
    /// Stop after this many games (tests and one-off matches); `None` plays on until stopped.
    pub games_max: Option<u32>,
}

/// Why the bridge stopped.
#[derive(Debug)]
pub enum BotError {
    /// The server could not be reached (after retries) or closed on us for good.
    Connection(String),
    /// The server refused the account.
    Login(String),
}

impl fmt::Display for BotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotError::Connection(err) => write!(f, "connection: {err}"),
            BotError::Login(err) => write!(f, "login: {err}"),
        }
    }
}

impl std::error::Error for BotError {}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Runs the bridge until `games_max` games are done, or the server is gone for good.
pub async fn run(config: BotConfig) -> Result<(), BotError> {
    let mut bridge = Bridge::new(config);
    let mut failures = 0;
    loop {
        match bridge.session().await {
            Ok(SessionEnd::Done) => return Ok(()),
            Ok(SessionEnd::Disconnected) => failures = 0,
            Err(SessionError::Fatal(err)) => return Err(err),
            Err(SessionError::Retry(err)) => {
                failures += 1;
                if failures > RECONNECTS_MAX {
                    return Err(BotError::Connection(err));
                }
                tracing::warn!("bot: {err}; reconnecting");
            }
        }
        let backoff_ms = (200 * 2u64.pow(failures.min(5))).min(RECONNECT_BACKOFF_MAX_MS);
        tokio::time::sleep(Duration::from_millis(backoff_ms)).await;
    }
}

enum SessionEnd {
    Done,
    Disconnected,
}

enum SessionError {
    Fatal(BotError),
    Retry(String),
}

struct Bridge {
    config: BotConfig,
    token: Option<String>,
    next_id: u64,
    current: Option<Match>,
    games_done: u32,
}

impl Bridge {
    fn new(config: BotConfig) -> Bridge {
        Bridge {
            config,
            token: None,
            next_id: 1,
            current: None,
            games_done: 0,
        }
    }

    /// One connection: log in (or resume), then follow the server until it closes.
    async fn session(&mut self) -> Result<SessionEnd, SessionError> {
        let (mut socket, _) = tokio_tungstenite::connect_async(&self.config.server_url)
            .await
            .map_err(|err| SessionError::Retry(err.to_string()))?;
        self.authenticate(&mut socket).await?;
        self.send(&mut socket, ClientMsg::Hall(HallMsg::EnterHall))
            .await?;
        loop {
            let pending = self.current.as_mut().and_then(Match::pending_mut);
            let step = tokio::select! {
                frame = socket.next() => Step::Frame(frame),
                outcome = async { pending.expect("guarded").await }, if pending.is_some() => Step::Engine(Box::new(outcome)),
            };
            match step {
                Step::Frame(None) => return Ok(SessionEnd::Disconnected),
                Step::Frame(Some(Err(err))) => return Err(SessionError::Retry(err.to_string())),
                Step::Frame(Some(Ok(Message::Text(text)))) => {
                    let Ok(msg) = serde_json::from_str::<ServerMsg>(&text) else {
                        continue; // a message from a newer server that the bot does not need
                    };
                    self.on_message(&mut socket, msg).await?;
                    if self
                        .config
                        .games_max
                        .is_some_and(|max| self.games_done >= max)
                    {
                        let _ = socket.close(None).await;
                        return Ok(SessionEnd::Done);
                    }
                }
                Step::Frame(Some(Ok(Message::Close(_)))) => return Ok(SessionEnd::Disconnected),
                Step::Frame(Some(Ok(_))) => {}
                Step::Engine(outcome) => {
                    let steps = match self.current.as_mut() {
                        Some(game) => game.on_engine_answer(*outcome).await,
                        None => Vec::new(),
                    };
                    self.perform(&mut socket, steps).await?;
                }
            }
        }
    }

    async fn authenticate(&mut self, socket: &mut Socket) -> Result<(), SessionError> {
        self.request(
            socket,
            ConnectionMsg::Hello {
                version: PROTOCOL_VERSION,
            },
        )
        .await?;
        if let Some(token) = self.token.clone() {
            if self
                .request(socket, AccountsMsg::Resume { token })
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        let login = AccountsMsg::Login {
            username: self.config.username.clone(),
            password: self.config.password.clone(),
        };
        match self.request(socket, login).await {
            Ok(ServerMsg::Accounts(AccountsServerMsg::Session { token, .. })) => {
                self.token = Some(token);
                Ok(())
            }
            Err(SessionError::Fatal(_)) if self.config.register => {
                let register = AccountsMsg::Register {
                    username: self.config.username.clone(),
                    password: self.config.password.clone(),
                    computer: true,
                    rank: None,
                };
                match self.request(socket, register).await? {
                    ServerMsg::Accounts(AccountsServerMsg::Session { token, .. }) => {
                        self.token = Some(token);
                        Ok(())
                    }
                    other => Err(SessionError::Fatal(BotError::Login(format!(
                        "unexpected {other:?}"
                    )))),
                }
            }
            Err(err) => Err(err),
            Ok(other) => Err(SessionError::Fatal(BotError::Login(format!(
                "unexpected {other:?}"
            )))),
        }
    }

    /// Sends a request and waits for its reply, handling anything pushed meanwhile.
    async fn request(
        &mut self,
        socket: &mut Socket,
        msg: impl Into<ClientMsg>,
    ) -> Result<ServerMsg, SessionError> {
        let msg = msg.into();
        let id = self.send(socket, msg).await?;
        loop {
            let frame = socket
                .next()
                .await
                .ok_or(SessionError::Retry("closed".into()))?;
            let frame = frame.map_err(|err| SessionError::Retry(err.to_string()))?;
            let Message::Text(text) = frame else { continue };
            let Ok(reply) = serde_json::from_str::<ServerMsg>(&text) else {
                continue;
            };
            match &reply {
                ServerMsg::Connection(ConnectionServerMsg::Error {
                    id: Some(r),
                    code,
                    message,
                }) if *r == id => {
                    return Err(match code {
                        ErrorCode::Busy | ErrorCode::RateLimited => {
                            SessionError::Retry(message.clone())
                        }
                        _ => SessionError::Fatal(BotError::Login(format!("{code}: {message}"))),
                    });
                }
                ServerMsg::Connection(ConnectionServerMsg::Welcome { id: Some(r), .. })
                | ServerMsg::Accounts(AccountsServerMsg::Session { id: Some(r), .. })
                | ServerMsg::Connection(ConnectionServerMsg::Ack { id: Some(r) })
                    if *r == id =>
                {
                    return Ok(reply)
                }
                _ => {}
            }
        }
    }

    async fn send(
        &mut self,
        socket: &mut Socket,
        msg: impl Into<ClientMsg>,
    ) -> Result<RequestId, SessionError> {
        let msg = msg.into();
        let id = RequestId(self.next_id);
        self.next_id += 1;
        let text =
            serde_json::to_string(&Request { id: Some(id), msg }).expect("requests serialize");
        socket
            .send(Message::text(text))
            .await
            .map_err(|err| SessionError::Retry(err.to_string()))?;
        Ok(id)
    }

    async fn on_message(
        &mut self,
        socket: &mut Socket,
        msg: ServerMsg,
    ) -> Result<(), SessionError> {
        let steps = match msg {
            ServerMsg::Accounts(AccountsServerMsg::Session { user, .. }) => {
                tracing::debug!("bot: logged in as user {user}");
                Vec::new()
            }
            ServerMsg::Hall(HallServerMsg::Challenged {
                challenge,
                settings,
                ..
            }) => {
                let wanted =
                    self.current.is_none() && self.config.board_sizes.contains(&settings.size);
                let reply = if wanted {
                    HallMsg::AcceptChallenge { challenge }
                } else {
                    HallMsg::DeclineChallenge { challenge }
                };
                self.send(socket, reply).await?;
                Vec::new()
            }
            ServerMsg::Games(GamesServerMsg::GameState { state }) => {
                self.on_game_state(&state).await
            }
            ServerMsg::Games(GamesServerMsg::GameEvent {
                game,
                event,
                clocks,
                ..
            }) => self.on_game_event(game, &event, clocks).await,
            ServerMsg::Connection(ConnectionServerMsg::Error {
                id: Some(id),
                code,
                message,
            }) => self.on_error(id, code, &message).await,
            ServerMsg::Connection(ConnectionServerMsg::Ack { id: Some(id) }) => {
                if let Some(game) = self.current.as_mut().filter(|g| g.awaits(id)) {
                    game.move_acknowledged();
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        self.perform(socket, steps).await
    }

    /// A game's whole state: a game of ours not over is (re)joined and the engine brought level.
    async fn on_game_state(&mut self, state: &GameState) -> Vec<EngineStep> {
        let ours = [&state.black, &state.white]
            .iter()
            .any(|p| p.username == self.config.username);
        if !ours || state.phase == GamePhase::Over {
            return Vec::new();
        }
        let timeout = Duration::from_millis(self.config.move_timeout_ms);
        let (engine, username) = (&self.config.engine, &self.config.username);
        let game = match self.current.take() {
            Some(game) if game.game() == state.game => self.current.insert(game),
            _ => self
                .current
                .insert(Match::new(engine, username, timeout, state)),
        };
        game.sync(state).await
    }

    async fn on_game_event(
        &mut self,
        game: GameId,
        event: &GameEvent,
        clocks: Option<Clocks>,
    ) -> Vec<EngineStep> {
        let Some(current) = self.current.as_mut().filter(|m| m.game() == game) else {
            return Vec::new();
        };
        if let GameEvent::Ended { outcome } = event {
            tracing::info!("bot: game {game} ended {}", outcome.sgf);
            self.current = None;
            self.games_done += 1;
            return Vec::new();
        }
        current.on_event(event, clocks).await
    }

    /// A request of ours refused: a move the server could not take now is sent again; one it
    /// refused means the engine and the server disagree, and the game is given up cleanly.
    async fn on_error(&mut self, id: RequestId, code: ErrorCode, message: &str) -> Vec<EngineStep> {
        let Some(game) = self.current.as_mut().filter(|game| game.awaits(id)) else {
            return Vec::new();
        };
        if !retryable(code) {
            tracing::warn!("bot: move refused ({code}: {message}); resigning");
            return game.give_up();
        }
        match game.retry_move() {
            Some(again) => {
                tracing::info!("bot: move not taken ({code}); sending it again");
                tokio::time::sleep(Duration::from_millis(game::MOVE_RETRY_MS)).await;
                vec![EngineStep::Send(again)]
            }
            None => game.give_up(),
        }
    }

    async fn perform(
        &mut self,
        socket: &mut Socket,
        steps: Vec<EngineStep>,
    ) -> Result<(), SessionError> {
        for step in steps {
            let EngineStep::Send(msg) = step;
            let is_move = matches!(
                msg,
                ClientMsg::Games(GamesMsg::Play { .. }) | ClientMsg::Games(GamesMsg::Pass { .. })
            );
            if let Some(game) = self.current.as_mut().filter(|_| is_move) {
                game.note_move(&msg);
            }
            let id = self.send(socket, msg).await?;
            if let Some(game) = self.current.as_mut().filter(|_| is_move) {
                game.sent_move(id);
            }
        }
        Ok(())
    }
}

/// The refusals that mean "not taken now" rather than "illegal": a move sent again with its key
/// is played at most once.
fn retryable(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Busy
            | ErrorCode::RateLimited
            | ErrorCode::Unavailable
            | ErrorCode::OutcomeUnknown
    )
}

enum Step {
    Frame(Option<Result<Message, tokio_tungstenite::tungstenite::Error>>),
    /// Boxed: an engine process handle is large beside a frame.
    Engine(Box<game::EngineOutcome>),
}
