//! Games on the wire: the board's coordinates and colours, the settings and clocks agreed before a
//! game, its events and full state, a player's list of games, and what a player or watcher sends to
//! play, watch, score, take back and fetch a record, and what the server sends them: a game's state,
//! events and watchers, its record and lists of games.

use serde::{Deserialize, Serialize};

use crate::{is_false, is_zero_u32, EventId, GameId, PlayerInfo, RequestId, RequestKey, TableId};

/// The board's colour, intersection and ko rule are the engine's own types: one type for each thing
/// from the rules to the wire. Their JSON (`"black"`, `{"col":3,"row":15}`, `"positional"`) is pinned by
/// this crate's tests, so a change inside `tengen-rules` cannot silently change what browsers receive.
pub use tengen_rules::{Color, KoRule, Point};

/// The time system of a game, as plain data. The server enforces it: it alone decides a timeout, and
/// every move event and game state carries both players' [`Clocks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockSettings {
    /// No clock.
    None,
    /// Main time only; running out loses.
    Absolute { main_time_ms: u64 },
    /// Chinese byo-yomi: main time, then `periods` periods of `period_ms` each.
    ByoYomi {
        main_time_ms: u64,
        periods: u32,
        period_ms: u64,
        /// Table option: running out of the last period is a forced pass (`passed` with `forced`)
        /// instead of a loss on time; the player gets that last period back.
        #[serde(default, skip_serializing_if = "is_false")]
        timeout_is_pass: bool,
    },
    /// Moves-in-time: after main time, `moves` moves within every `block_ms`.
    Canadian {
        main_time_ms: u64,
        moves: u32,
        block_ms: u64,
    },
    /// Fischer: `increment_ms` added after each move, the total capped at `max_time_ms`.
    Fischer {
        main_time_ms: u64,
        increment_ms: u64,
        max_time_ms: u64,
    },
}

/// One player's clock as it stood at the frame's `server_time_ms`. Fields the time system does not use
/// are 0. A client counts the running side down from `server_time_ms` to show it ticking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideClock {
    pub main_left_ms: u64,
    /// Byo-yomi periods left, counting the one in use.
    pub periods_left: u32,
    /// Byo-yomi: what is left of the current period (a full period outside overtime).
    pub period_left_ms: u64,
    /// Moves-in-time: moves still due in the current block.
    pub moves_left_in_block: u32,
    /// Moves-in-time: time left in the current block.
    pub block_left_ms: u64,
    /// This clock is ticking (the side to move, during play).
    pub running: bool,
}

/// Both players' clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub black: SideClock,
    pub white: SideClock,
}

/// A player who is away from a live game, and how long until they lose it by forfeit (escape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    pub color: Color,
    pub forfeit_in_ms: u64,
}

/// Everything agreed before a game starts: proposed by White (the right seat), confirmed by Black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSettings {
    /// 9, 13 or 19.
    pub size: u8,
    /// Komi in half points, so that 7.5 points is exactly `15` and no float crosses the wire.
    pub komi_half_points: i32,
    /// 0 (none) or 2..=9 stones; 1 means Black without komi.
    pub handicap: u8,
    pub ko_rule: KoRule,
    pub clock: ClockSettings,
    /// When true the server draws colours (nigiri) at the start; when false the left seat (or, for a
    /// challenge, the challenger) plays Black.
    pub nigiri: bool,
    /// An event's games only (set from `EventSpec::lateness_limit_ms`; refused at tables and in
    /// challenges): a player's lateness is charged twice over from their main time, and a player
    /// not arrived this many ms after the start loses by forfeit (迟到).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateness_limit_ms: Option<u64>,
    /// The game leaves both players' ratings as they are (an unrated event's games); absent: rated.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unrated: bool,
    /// The event the game is played in, set by the server (a client may not set it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<EventId>,
}

/// What stage a game is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GamePhase {
    Playing,
    /// After two passes: players mark dead stones and accept.
    Scoring,
    Over,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Score,
    Resignation,
    Time,
    Forfeit,
    /// No result: the game was cancelled.
    Void,
}

/// A finished game's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOutcome {
    /// `None` for a draw or a void game.
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// International notation as in SGF `RE`: "B+1.5", "W+R", "0".
    pub sgf: String,
    /// Chinese notation: "黑胜3/4子", "白中盘胜".
    pub chinese: String,
    /// Area counts in half points (stones plus territory plus half the dame), when the game was counted.
    pub black_count_half_points: Option<u32>,
    pub white_count_half_points: Option<u32>,
}

/// One accepted change to a live game. The server stores exactly these, in `seq` order, as the game's
/// event log, and replays them after a restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum GameEvent {
    Played {
        color: Color,
        point: Point,
        /// Opposing stones removed by this move.
        captured: Vec<Point>,
    },
    Passed {
        color: Color,
        /// The pass was forced by a byo-yomi timeout (table option `timeout_is_pass`).
        #[serde(default, skip_serializing_if = "is_false")]
        forced: bool,
    },
    /// Two passes ended play; `dead` is the server's estimate, proposed to both players.
    ScoringStarted {
        dead: Vec<Point>,
    },
    /// A player toggled a chain; `dead` is the whole new marking. Both acceptances are cleared.
    DeadMarked {
        by: Color,
        dead: Vec<Point>,
    },
    ScoreAccepted {
        color: Color,
    },
    Ended {
        outcome: GameOutcome,
    },
    /// `color` asks to take back their last move; the opponent answers `accept_undo` or `decline_undo`.
    UndoRequested {
        color: Color,
    },
    /// The opponent declined; nothing changed.
    UndoDeclined {
        color: Color,
    },
    /// The opponent (`by`) accepted: `color`'s last move (and the opponent's reply after it, if any)
    /// is taken back. `board`, `moves_count` and `to_move` are the position after the undo.
    UndoAccepted {
        color: Color,
        by: Color,
        moves_count: u32,
        to_move: Color,
        board: Vec<String>,
        /// The captures after the undo (a taken-back capture no longer counts); absent from events
        /// stored before the field existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captures_black: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captures_white: Option<u32>,
        /// The move now last on the board, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_move: Option<LastMove>,
    },
    /// `by` disputed the marking in the scoring phase: play goes on, `to_move` (the opponent of `by`,
    /// who claimed the disputed stones dead) to play; clocks run again.
    PlayResumed {
        by: Color,
        to_move: Color,
    },
    /// A player's last connection to the game closed; they lose by forfeit (escape) unless they return
    /// within `forfeit_in_ms`.
    PlayerLeft {
        color: Color,
        forfeit_in_ms: u64,
    },
    /// The player who left is back; the countdown stops.
    PlayerReturned {
        color: Color,
    },
    /// An event game: `color` arrived (their first presence or first move) `late_ms` after the
    /// start; `charged_ms` more was taken from their main time (never below zero), so that with what
    /// their own clock ran meanwhile they lost twice their lateness (迟到时间加倍扣除).
    Arrived {
        color: Color,
        late_ms: u64,
        charged_ms: u64,
    },
    /// The event's director warned `color`, who now has `warnings` in this game: each costs them one
    /// point (two half points) of their count if the game is counted (罚出一子).
    Warned {
        color: Color,
        warnings: u32,
    },
    /// The event's director paused the game: both clocks stopped, no moves, passes or resignations
    /// until it resumes at `resume_at_ms` (the server's wall clock, Unix ms), `resume_in_ms` from now,
    /// or when the director resumes it.
    Paused {
        resume_at_ms: u64,
        #[serde(default)]
        resume_in_ms: u64,
    },
    /// The event's director adjourned the game (封棋): `to_move` must seal a move (`seal_move`),
    /// their clock running until they do; it is played when the game resumes at `resume_at_ms`.
    Adjourned {
        to_move: Color,
        resume_at_ms: u64,
        #[serde(default)]
        resume_in_ms: u64,
    },
    /// `color` sealed their move; nobody is told which until it is played at the resumption. Both
    /// clocks are stopped from here.
    Sealed {
        color: Color,
    },
    /// The pause or adjournment is over: clocks run again (a sealed move follows as an ordinary
    /// `played` or `passed`).
    Resumed,
}

/// A player of an event game not arrived yet, and when they lose by forfeit if they do not come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Awaited {
    pub color: Color,
    /// The server's wall clock (Unix ms) at which the lateness limit is reached.
    pub forfeit_at_ms: u64,
    /// The same instant, from `server_time_ms`.
    pub forfeit_in_ms: u64,
}

/// Why an event game is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HaltKind {
    /// 暂停: both clocks stopped.
    Pause,
    /// 封棋: the player to move seals a move, then both clocks stop.
    Adjournment,
}

/// An event game paused or adjourned by the director, as everyone sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Halt {
    pub kind: HaltKind,
    /// When play resumes by itself (the server's wall clock, Unix ms).
    pub resume_at_ms: u64,
    /// The same instant, from `server_time_ms`.
    pub resume_in_ms: u64,
    /// In an adjournment: who seals the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealer: Option<Color>,
    /// In an adjournment: whether the move is sealed (never which move it is).
    #[serde(default)]
    pub sealed: bool,
}

/// The last move of a game: a stone at `point`, or a pass when `point` is `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastMove {
    pub color: Color,
    pub point: Option<Point>,
}

/// The whole state of a game, sent to anyone who starts watching or playing it, and as a resync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub game: GameId,
    /// The `seq` of the last event included; the next event has `seq + 1`.
    pub seq: u64,
    pub table: Option<TableId>,
    pub black: PlayerInfo,
    pub white: PlayerInfo,
    pub settings: GameSettings,
    /// The seed of the nigiri draw, when colours were drawn, so anyone can check it.
    pub nigiri_seed: Option<u64>,
    pub phase: GamePhase,
    pub to_move: Color,
    /// `size` strings of `size` characters, top row first: `.` empty, `X` black, `O` white.
    pub board: Vec<String>,
    pub captures_black: u32,
    pub captures_white: u32,
    pub moves_count: u32,
    /// The dead-stone marking while scoring.
    pub dead: Vec<Point>,
    pub accepted_black: bool,
    pub accepted_white: bool,
    pub outcome: Option<GameOutcome>,
    /// People watching: logged-in users once each, however many connections they follow it on, plus
    /// anonymous connections; never the game's players.
    pub watchers_count: u32,
    /// Of those, the anonymous connections.
    #[serde(default)]
    pub anonymous_watchers_count: u32,
    /// The logged-in watchers, strongest first; at most the server's listing bound (100), so it may
    /// name fewer than `watchers_count - anonymous_watchers_count`.
    #[serde(default)]
    pub watchers: Vec<PlayerInfo>,
    /// Both clocks at `server_time_ms`; absent for games without a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// The server's wall clock (Unix ms) when this state was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_time_ms: Option<u64>,
    /// A pending undo request, by the player who asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_requested_by: Option<Color>,
    /// Before the first move: the game is void unless it is made within this many ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_move_in_ms: Option<u64>,
    /// In the scoring phase: the current marking is accepted for both after this many ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring_ends_in_ms: Option<u64>,
    /// Players away from the game, with their forfeit countdowns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub away: Vec<Away>,
    /// The last move played, so a client joining mid-game (or reloading) can mark it; absent before
    /// the first move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<LastMove>,
    /// An event game: the players not arrived yet, with the instant each forfeits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awaited: Vec<Awaited>,
    /// The director's warnings in this game, each a point off that player's count (absent: 0).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub warnings_black: u32,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub warnings_white: u32,
    /// An event game paused or adjourned by its director.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halt: Option<Halt>,
}

/// One game in a player's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameListing {
    pub game: GameId,
    pub black: String,
    pub white: String,
    pub size: u8,
    /// SGF `RE` ("B+R", "W+T", "0", "Void"); `None` while the game is live.
    pub result: Option<String>,
    pub started_at_ms: u64,
}

/// What a player or a watcher sends about a game: watch it, play in it, score it, take a move back, read its record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GamesMsg {
    /// Receive a game's full state, then each event; sent again, it resyncs.
    Watch {
        game: GameId,
    },
    Unwatch {
        game: GameId,
    },
    Play {
        game: GameId,
        point: Point,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    Pass {
        game: GameId,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    Resign {
        game: GameId,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// In the scoring phase: toggle the chain at `point` between dead and alive.
    ToggleDead {
        game: GameId,
        point: Point,
    },
    /// In the scoring phase: accept the marking. `dead` is the marking as the player saw it; when
    /// given, the accept is refused (`marking_changed`) if the marking changed before it arrived,
    /// so nobody accepts a toggle they never saw.
    AcceptScore {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dead: Option<Vec<Point>>,
    },
    /// In the scoring phase: dispute the marking and play on; the opponent moves first.
    ResumePlay {
        game: GameId,
    },
    /// Ask to take back your last move (悔棋); the opponent must consent.
    Undo {
        game: GameId,
    },
    /// Consent to the opponent's pending undo request.
    AcceptUndo {
        game: GameId,
    },
    /// Refuse the opponent's pending undo request.
    DeclineUndo {
        game: GameId,
    },
    /// The record of any game, live or finished, as SGF FF\[4\] (answered by `game_record`), to replay
    /// it move by move.
    GetRecord {
        game: GameId,
    },
    /// Games a user played, newest first (answered by `game_list`): at most 100, those before game
    /// `before` when it is given (the next page).
    ListGames {
        username: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<GameId>,
    },
}

impl GamesMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "watch",
        "unwatch",
        "play",
        "pass",
        "resign",
        "toggle_dead",
        "accept_score",
        "resume_play",
        "undo",
        "accept_undo",
        "decline_undo",
        "get_record",
        "list_games",
    ];
}

/// What the server sends about games: a game's state and events to its players and watchers, who
/// watches it, and the records and lists of games a client asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GamesServerMsg {
    /// A game's full state: after `watch`, when your game starts, or as a resync after falling behind.
    GameState {
        /// Boxed: the whole state is far larger than any other message.
        state: Box<GameState>,
    },
    /// One accepted event of a live game.
    GameEvent {
        game: GameId,
        seq: u64,
        #[serde(flatten)]
        event: GameEvent,
        /// Both clocks right after the event (for moves, passes, undo, resume and the end of a timed
        /// game).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
        /// The server's wall clock (Unix ms) when `clocks` was taken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_time_ms: Option<u64>,
    },
    /// Who watches a live game, with the same fields as in `game_state`; pushed to everyone following
    /// it when the set of watchers changes, at most about once a second (less often past 2,000
    /// followers). Not a game event: it has no `seq` and is not in the game's record. `watchers` (the
    /// names) is left out when only the counts changed: the names a follower holds, from its
    /// snapshot or the last push that had them, are still right. A crowd of guests coming and going
    /// then costs each follower a few bytes instead of the whole list.
    Watchers {
        game: GameId,
        watchers_count: u32,
        anonymous_watchers_count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        watchers: Option<Vec<PlayerInfo>>,
    },
    /// Reply to `get_record`: the game's SGF so far (live) or in full (finished).
    GameRecord {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        game: GameId,
        sgf: String,
    },
    /// Reply to `list_games`.
    GameList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        username: String,
        games: Vec<GameListing>,
    },
}

impl GamesServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &[
        "game_state",
        "game_event",
        "watchers",
        "game_record",
        "game_list",
    ];
}
