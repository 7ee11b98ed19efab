//! One game the bot is playing: the engine process, a mirror of the game in `tengen-rules` (to check the
//! engine's answers before the server sees them), and what to send next. It never touches the socket;
//! it returns the messages to send as `EngineStep`s.

use super::engine::{Engine, EngineError};
use std::collections::BTreeSet;
use std::time::Duration;
use tengen_protocol::{
    self as wire, ClientMsg, ClockSettings, Clocks, GameEvent, GameId, GamePhase, GameState,
    GamesMsg, RequestId, RequestKey,
};
use tengen_rules::{Color, Game, HandicapPlacement, KoRule, Komi, Move, Phase, Point, Rules};
use tokio::task::JoinHandle;

/// How long a setup or `play` command may take: these are instant for any sane engine.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// Chain toggles the bot makes in one scoring phase before it stops arguing about the marking and
/// plays on instead (以实战解决): an opponent who keeps toggling cannot make the bot accept a wrong count.
const SCORING_TOGGLES_MAX: u32 = 30;
/// Time kept back from the engine's thinking when the bot's clock is short, for the round trip of the
/// move to the server.
const CLOCK_SAFETY_MS: u64 = 1_000;

/// Times the bot sends a move again after `busy`, `unavailable` or `outcome_unknown` before it gives
/// the game up: with [`MOVE_RETRY_MS`] between them, ten seconds of a server or store outage.
pub const MOVE_RETRIES_MAX: u32 = 20;
/// The wait before sending a move again: long enough not to hammer a server that is down.
pub const MOVE_RETRY_MS: u64 = 500;

/// A fresh key for one move: random, so a restarted bot never repeats a key of an earlier run.
fn fresh_key() -> Option<RequestKey> {
    RequestKey::new(format!("bot-{:016x}", rand::random::<u64>())).ok()
}

/// Something the bridge must send.
#[derive(Debug)]
pub enum EngineStep {
    Send(ClientMsg),
}

/// What a `genmove` task hands back: the engine (when it survived) and its answer.
type Thought = (Option<Engine>, Result<String, EngineError>);
/// A `genmove` running on its own task, so the bridge keeps reading the socket meanwhile.
pub type Thinking = JoinHandle<Thought>;
/// A finished `genmove`, or the task that ran it failing.
pub type EngineOutcome = Result<Thought, tokio::task::JoinError>;

#[derive(Debug)]
pub struct Match {
    game: GameId,
    color: Color,
    engine_command: String,
    move_timeout: Duration,
    engine: Option<Engine>,
    pending: Option<Thinking>,
    mirror: Game,
    clock: ClockSettings,
    /// The latest clocks the server sent, and when they arrived.
    clocks: Option<(Clocks, tokio::time::Instant)>,
    awaiting: Option<RequestId>,
    /// The move last sent (with its key), to send again as it was when the server could not take
    /// it, and how many times it was sent again.
    last_move: Option<(ClientMsg, u32)>,
    gave_up: bool,
    toggles: u32,
    proposed_dead: Option<BTreeSet<Point>>,
}

impl Match {
    pub fn new(
        engine_command: &str,
        username: &str,
        move_timeout: Duration,
        state: &GameState,
    ) -> Match {
        let color = if state.black.username == username {
            Color::Black
        } else {
            Color::White
        };
        Match {
            game: state.game,
            color,
            engine_command: engine_command.to_string(),
            move_timeout,
            engine: None,
            pending: None,
            mirror: mirror_of(state)
                .unwrap_or_else(|| Game::new(Rules::default()).expect("default rules")),
            clock: state.settings.clock,
            clocks: None,
            awaiting: None,
            last_move: None,
            gave_up: false,
            toggles: 0,
            proposed_dead: None,
        }
    }

    pub fn game(&self) -> GameId {
        self.game
    }

    pub fn pending_mut(&mut self) -> Option<&mut Thinking> {
        self.pending.as_mut()
    }

    /// Notes the request id of the move just sent, so a refusal can be recognised.
    pub fn sent_move(&mut self, id: RequestId) {
        self.awaiting = Some(id);
    }

    /// Whether `id` is the move the bot is waiting to hear about.
    pub fn awaits(&self, id: RequestId) -> bool {
        self.awaiting == Some(id)
    }

    pub fn move_acknowledged(&mut self) {
        self.awaiting = None;
        self.last_move = None;
    }

    /// Remember a move being sent, so it can be sent again with the same key.
    pub fn note_move(&mut self, msg: &ClientMsg) {
        let again = self.last_move.take().filter(|(last, _)| last == msg);
        let count = again.map_or(0, |(_, count)| count);
        self.last_move = Some((msg.clone(), count));
    }

    /// The server could not take the move (`busy`, `unavailable`, `outcome_unknown`): the same
    /// move with the same key, which the server plays once however many times it arrives; `None`
    /// after [`MOVE_RETRIES_MAX`].
    pub fn retry_move(&mut self) -> Option<ClientMsg> {
        let (msg, count) = self.last_move.as_mut()?;
        if *count >= MOVE_RETRIES_MAX {
            return None;
        }
        *count += 1;
        Some(msg.clone())
    }

    /// The server refused the bot's move: engine and server disagree, so resign this game.
    pub fn give_up(&mut self) -> Vec<EngineStep> {
        self.awaiting = None;
        self.engine = None;
        if let Some(task) = self.pending.take() {
            task.abort();
        }
        if self.gave_up {
            return Vec::new();
        }
        self.gave_up = true;
        vec![EngineStep::Send(
            GamesMsg::Resign {
                game: self.game,
                key: fresh_key(),
            }
            .into(),
        )]
    }

    /// Brings the mirror and a fresh engine to the server's state, then acts if it is the bot's turn.
    pub async fn sync(&mut self, state: &GameState) -> Vec<EngineStep> {
        let Some(mirror) = mirror_of(state) else {
            return self.give_up();
        };
        self.mirror = mirror;
        self.note_clocks(state.clocks);
        if let Some(task) = self.pending.take() {
            task.abort();
        }
        self.engine = None;
        if let Err(err) = self.start_engine().await {
            tracing::warn!("bot: engine setup failed: {err}");
            return self.give_up();
        }
        match state.phase {
            GamePhase::Playing => self.maybe_think(),
            GamePhase::Scoring => self.on_marking(&state.dead).await,
            GamePhase::Over => Vec::new(),
        }
    }

    /// Starts the engine and tells it the rules, the clock and the position.
    async fn start_engine(&mut self) -> Result<(), EngineError> {
        let mut engine = Engine::spawn(&self.engine_command)?;
        let rules = *self.mirror.rules();
        let komi = rules.komi.to_sgf();
        for command in [
            format!("boardsize {}", rules.size),
            "clear_board".into(),
            format!("komi {komi}"),
        ] {
            engine.command(&command, COMMAND_TIMEOUT).await?;
        }
        if let Some(command) = time_settings(&self.clock) {
            // Not every engine knows every time command; a refusal here is harmless.
            match engine.command(&command, COMMAND_TIMEOUT).await {
                Ok(_) | Err(EngineError::Refused(_)) => {}
                Err(err) => return Err(err),
            }
        }
        for command in position_commands(&self.mirror) {
            engine.command(&command, COMMAND_TIMEOUT).await?;
        }
        self.engine = Some(engine);
        Ok(())
    }

    /// Applies one event of the game to the mirror and the engine, and decides what to do next.
    pub async fn on_event(&mut self, event: &GameEvent, clocks: Option<Clocks>) -> Vec<EngineStep> {
        self.note_clocks(clocks);
        match event {
            GameEvent::Played { color, point, .. } => {
                self.on_move(*color, Move::Play(*point)).await
            }
            GameEvent::Passed { color, .. } => self.on_move(*color, Move::Pass).await,
            GameEvent::ScoringStarted { dead } => {
                self.toggles = 0;
                self.proposed_dead = Some(self.expand(dead));
                self.on_marking(dead).await
            }
            GameEvent::DeadMarked { dead, .. } => self.on_marking(dead).await,
            GameEvent::PlayResumed { to_move, .. } => {
                self.mirror.resume(*to_move);
                self.maybe_think()
            }
            // The bot takes nothing back, as most computer players on Go servers.
            GameEvent::UndoRequested { color } if *color != self.color => {
                vec![EngineStep::Send(
                    GamesMsg::DeclineUndo { game: self.game }.into(),
                )]
            }
            // The position changed under the engine: ask for the whole state and start again from it.
            GameEvent::UndoAccepted { .. } => {
                if let Some(task) = self.pending.take() {
                    task.abort();
                }
                vec![EngineStep::Send(GamesMsg::Watch { game: self.game }.into())]
            }
            _ => Vec::new(),
        }
    }

    fn note_clocks(&mut self, clocks: Option<Clocks>) {
        if let Some(clocks) = clocks {
            self.clocks = Some((clocks, tokio::time::Instant::now()));
        }
    }

    /// The bot's time for this move, as the server last reported it, less what has passed since:
    /// (seconds for GTP `time_left`, stones for it, milliseconds the engine may think).
    fn time_left(&self) -> Option<(u64, u32, u64)> {
        let (clocks, at) = self.clocks.as_ref()?;
        let side = if self.color == Color::Black {
            &clocks.black
        } else {
            &clocks.white
        };
        let passed_ms = at.elapsed().as_millis() as u64;
        let (left_ms, stones) = match self.clock {
            ClockSettings::None => return None,
            ClockSettings::ByoYomi { .. } if side.main_left_ms == 0 => (side.period_left_ms, 1),
            ClockSettings::Canadian { .. } if side.main_left_ms == 0 => {
                (side.block_left_ms, side.moves_left_in_block)
            }
            _ => (side.main_left_ms, 0),
        };
        let left_ms = left_ms.saturating_sub(passed_ms);
        Some((left_ms / 1000, stones, left_ms))
    }

    async fn on_move(&mut self, color: tengen_protocol::Color, mv: Move) -> Vec<EngineStep> {
        if color == self.color {
            self.awaiting = None;
        }
        if self.mirror.phase() == Phase::Scoring {
            self.mirror.resume(color);
        }
        if self.mirror.play_as(color, mv).is_err() {
            return self.give_up();
        }
        if color != self.color {
            let command = format!(
                "play {} {}",
                gtp_color(color),
                gtp_move(mv, self.mirror.rules().size)
            );
            let Some(engine) = self.engine.as_mut() else {
                return self.give_up();
            };
            if let Err(err) = engine.command(&command, COMMAND_TIMEOUT).await {
                tracing::warn!("bot: engine failed on {command}: {err}");
                return self.give_up();
            }
        }
        self.maybe_think()
    }

    /// Starts `genmove` when it is the bot's turn in play.
    fn maybe_think(&mut self) -> Vec<EngineStep> {
        if self.mirror.phase() != Phase::Play
            || self.mirror.to_move() != self.color
            || self.pending.is_some()
        {
            return Vec::new();
        }
        let Some(mut engine) = self.engine.take() else {
            return self.give_up();
        };
        let command = format!("genmove {}", gtp_color(self.color));
        let mut deadline = self.move_timeout;
        let mut time_left = None;
        if let Some((seconds, stones, left_ms)) = self.time_left() {
            time_left = Some(format!(
                "time_left {} {seconds} {stones}",
                gtp_color(self.color)
            ));
            // An engine still thinking when the clock runs out has lost; give it up a little before.
            let usable_ms = left_ms.saturating_sub(CLOCK_SAFETY_MS).max(CLOCK_SAFETY_MS);
            deadline = deadline.min(Duration::from_millis(usable_ms));
        }
        self.pending = Some(tokio::spawn(async move {
            if let Some(time_left) = time_left {
                // Informational: an engine that does not know the command still plays.
                let _ = engine.command(&time_left, COMMAND_TIMEOUT).await;
            }
            let answer = engine.command(&command, deadline).await;
            // An engine that hung or died is not handed back: dropping it kills the process.
            let keep = matches!(answer, Ok(_) | Err(EngineError::Refused(_)));
            (keep.then_some(engine), answer)
        }));
        Vec::new()
    }

    /// The engine answered `genmove`: check the answer and turn it into a message.
    pub async fn on_engine_answer(&mut self, outcome: EngineOutcome) -> Vec<EngineStep> {
        self.pending = None;
        let (engine, answer) = match outcome {
            Ok(result) => result,
            Err(_) => return self.give_up(),
        };
        self.engine = engine;
        let text = match answer {
            Ok(text) => text.to_ascii_lowercase(),
            Err(err) => {
                tracing::warn!("bot: genmove failed: {err}");
                return self.give_up();
            }
        };
        let size = self.mirror.rules().size;
        let mv = match text.as_str() {
            "pass" => Move::Pass,
            "resign" => return self.give_up(),
            vertex => match Point::from_gtp(vertex, size) {
                Some(point) if self.mirror.check_play(self.color, point).is_ok() => {
                    Move::Play(point)
                }
                _ => {
                    tracing::warn!("bot: the engine answered {text:?}, which is not a legal move");
                    return self.give_up();
                }
            },
        };
        let msg = match mv {
            Move::Play(point) => GamesMsg::Play {
                game: self.game,
                point,
                key: fresh_key(),
            },
            _ => GamesMsg::Pass {
                game: self.game,
                key: fresh_key(),
            },
        };
        vec![EngineStep::Send(msg.into())]
    }

    /// In the scoring phase: accept a marking the engine agrees with, otherwise toggle one chain
    /// towards the engine's view, and when the marking still differs after many toggles, play on (or,
    /// for an engine without `final_status_list`, accept only the server's own proposal).
    async fn on_marking(&mut self, dead: &[Point]) -> Vec<EngineStep> {
        if self.mirror.phase() == Phase::Play {
            // The mirror passed twice as well; keep it in step with the server.
            return Vec::new();
        }
        let marked = self.expand(dead);
        let engine_view = self.engine_dead().await;
        let wanted = match engine_view {
            Some(view) => view,
            None if self.proposed_dead.as_ref() == Some(&marked) => marked.clone(),
            None => return Vec::new(),
        };
        if wanted == marked {
            // The marking it accepts: a toggle that crosses this accept makes the server refuse it.
            return vec![EngineStep::Send(
                GamesMsg::AcceptScore {
                    game: self.game,
                    dead: Some(dead.to_vec()),
                }
                .into(),
            )];
        }
        if self.toggles >= SCORING_TOGGLES_MAX {
            self.toggles = 0;
            return vec![EngineStep::Send(
                GamesMsg::ResumePlay { game: self.game }.into(),
            )];
        }
        self.toggles += 1;
        let point = wanted
            .symmetric_difference(&marked)
            .next()
            .copied()
            .expect("sets differ");
        vec![EngineStep::Send(
            GamesMsg::ToggleDead {
                game: self.game,
                point,
            }
            .into(),
        )]
    }

    /// The engine's dead stones, every stone of each dead chain; `None` when it cannot say.
    async fn engine_dead(&mut self) -> Option<BTreeSet<Point>> {
        let engine = self.engine.as_mut()?;
        let answer = engine
            .command("final_status_list dead", self.move_timeout)
            .await
            .ok()?;
        let size = self.mirror.rules().size;
        let points: Option<Vec<Point>> = answer
            .split_whitespace()
            .map(|v| Point::from_gtp(v, size))
            .collect();
        Some(self.expand_points(&points?))
    }

    fn expand(&self, dead: &[Point]) -> BTreeSet<Point> {
        let points: Vec<Point> = dead.to_vec();
        self.expand_points(&points)
    }

    /// Every stone of the chains through `points`.
    fn expand_points(&self, points: &[Point]) -> BTreeSet<Point> {
        points
            .iter()
            .flat_map(|&p| self.mirror.board().chain(p))
            .collect()
    }
}

/// The game as the server describes it, rebuilt in the engine: handicap stones as free handicap on a
/// fresh game, any other position as setup stones.
fn mirror_of(state: &GameState) -> Option<Game> {
    let settings = &state.settings;
    let size = settings.size;
    let stones_of = |mark: char| -> Vec<Point> {
        state
            .board
            .iter()
            .enumerate()
            .flat_map(|(row, line)| {
                line.chars()
                    .enumerate()
                    .filter(move |(_, c)| *c == mark)
                    .map(move |(col, _)| Point::new(col as u8, row as u8))
            })
            .collect()
    };
    let (black, white) = (stones_of('X'), stones_of('O'));
    let fresh_handicap = state.moves_count == 0 && settings.handicap >= 2 && white.is_empty();
    let rules = Rules {
        size,
        komi: Komi::from_half_points(settings.komi_half_points),
        handicap: if fresh_handicap { black.len() as u8 } else { 0 },
        handicap_placement: HandicapPlacement::Free,
        ko_rule: match settings.ko_rule {
            wire::KoRule::Simple => KoRule::Simple,
            wire::KoRule::Positional => KoRule::Positional,
            wire::KoRule::Situational => KoRule::Situational,
        },
    };
    let mut game = Game::new(rules).ok()?;
    if fresh_handicap {
        game.place_free_handicap(&black).ok()?;
    } else {
        game.add_setup_stones(Color::Black, &black).ok()?;
        game.add_setup_stones(Color::White, &white).ok()?;
        game.set_first_to_move(state.to_move).ok()?;
    }
    if state.phase == GamePhase::Scoring {
        // Reach the scoring phase in the mirror too, so markings are judged on the same board.
        let first = game.to_move();
        game.play(first, Move::Pass).ok()?;
        game.play(first.opponent(), Move::Pass).ok()?;
    }
    Some(game)
}

/// The GTP commands that put the mirror's position on an engine's empty board.
fn position_commands(mirror: &Game) -> Vec<String> {
    let size = mirror.rules().size;
    let board = mirror.board();
    if mirror.handicap_stones() >= 2 && mirror.moves().is_empty() {
        let vertices: Vec<String> = board.stones().map(|(p, _)| p.to_gtp(size)).collect();
        return vec![format!("set_free_handicap {}", vertices.join(" "))];
    }
    // Black's stones first, then White's: in a legal position neither set can capture the other.
    let mut commands = Vec::new();
    for color in Color::BOTH {
        for (point, _) in board.stones().filter(|(_, c)| *c == color) {
            commands.push(format!("play {} {}", gtp_color(color), point.to_gtp(size)));
        }
    }
    commands
}

/// GTP's `time_settings main byo_yomi_time byo_yomi_stones` for the game's clock.
fn time_settings(clock: &ClockSettings) -> Option<String> {
    let seconds = |ms: u64| ms / 1000;
    match *clock {
        ClockSettings::None => None,
        ClockSettings::Absolute { main_time_ms } => {
            Some(format!("time_settings {} 0 0", seconds(main_time_ms)))
        }
        // Chinese byo-yomi as Canadian overtime of one stone per period: what GTP can say.
        ClockSettings::ByoYomi {
            main_time_ms,
            period_ms,
            ..
        } => Some(format!(
            "time_settings {} {} 1",
            seconds(main_time_ms),
            seconds(period_ms)
        )),
        ClockSettings::Canadian {
            main_time_ms,
            moves,
            block_ms,
        } => Some(format!(
            "time_settings {} {} {moves}",
            seconds(main_time_ms),
            seconds(block_ms)
        )),
        ClockSettings::Fischer { main_time_ms, .. } => {
            Some(format!("time_settings {} 0 0", seconds(main_time_ms)))
        }
    }
}

fn gtp_color(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn gtp_move(mv: Move, size: u8) -> String {
    match mv {
        Move::Play(point) => point.to_gtp(size),
        _ => "pass".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_state() -> GameState {
        let text = r#"{"game":19,"seq":0,"table":2,"black":{"user":1,"username":"gnugo","rank":"?","rating":1500},"white":{"user":2,"username":"bob","rank":"?","rating":1500},"settings":{"size":9,"komi_half_points":15,"handicap":0,"ko_rule":"positional","clock":{"kind":"none"},"nigiri":false},"nigiri_seed":null,"phase":"playing","to_move":"black","board":[".........",".........",".........",".........",".........",".........",".........",".........","........."],"captures_black":0,"captures_white":0,"moves_count":0,"dead":[],"accepted_black":false,"accepted_white":false,"outcome":null,"watchers_count":0}"#;
        serde_json::from_str(text).unwrap()
    }

    /// A move the server could not take is sent again as it was, key included, a bounded number
    /// of times; the next move gets a fresh key.
    #[test]
    fn a_move_is_retried_with_its_key_a_bounded_number_of_times() {
        let mut game = Match::new("unused", "gnugo", COMMAND_TIMEOUT, &fresh_state());
        let first = ClientMsg::from(GamesMsg::Play {
            game: GameId(19),
            point: Point { col: 2, row: 2 },
            key: fresh_key(),
        });
        game.note_move(&first);
        for _ in 0..MOVE_RETRIES_MAX {
            let again = game.retry_move().unwrap();
            assert_eq!(again, first);
            // The bridge notes each copy it sends; that does not reset the count.
            game.note_move(&again);
        }
        assert_eq!(game.retry_move(), None);
        game.move_acknowledged();
        assert_eq!(game.retry_move(), None);
        assert_ne!(fresh_key(), fresh_key());
        let key = fresh_key().unwrap();
        assert!(key.as_str().starts_with("bot-"));
    }
}
