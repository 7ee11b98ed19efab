//! Every message on Tengen's wire: [`ClientMsg`] (client to server) and [`ServerMsg`] (server to client),
//! serde JSON tagged by `type` in snake_case, with newtype ids and stable [`ErrorCode`]s. No I/O lives
//! here, so the server, the load generator and the browser client's reference (`protocol/README.md`)
//! share one definition of the protocol.
//!
//! Conventions:
//! - A request may carry an `id` (any unsigned integer the client picks); the one reply to it (`ack`,
//!   `error`, or a data reply such as `welcome` or `session`) echoes that `id`. Pushes carry no `id`.
//! - Game events carry `game` and `seq`; `seq` counts up by one per accepted event of that game, so a
//!   client detects a gap and asks for a resync by sending `watch` again.
//! - Times are integer milliseconds with the unit in the name (`main_time_ms`, `at_ms`).
//! - The wire has its own `Color`, `Point` and `KoRule` types rather than the engine's, so that a change
//!   inside `tengen-rules` can never silently change what browsers receive.

mod events;

pub use events::{
    Criterion, EventBoard, EventEntrant, EventFormat, EventLogEntry, EventMatch, EventOutcome,
    EventRound, EventSpec, EventStatus, EventSummary, EventTeam, EventView, FinalTie, Fraction,
    LineUp, RankRange, RelayState, RelayView, Standing, Standings, SwissRanking, TeamId, TeamRules,
    TeamSide, TeamStanding, TeamsView,
};
use serde::{Deserialize, Serialize};

/// The protocol version a client announces in `hello`; the server refuses versions it does not speak.
pub const PROTOCOL_VERSION: u32 = 1;

macro_rules! newtype_id {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

newtype_id!(
    /// A game, live or finished; assigned by the store, never reused.
    GameId(u64)
);
newtype_id!(
    /// An account.
    UserId(u64)
);
newtype_id!(
    /// A table in a room; unique across the whole hall.
    TableId(u32)
);
newtype_id!(
    /// A room of the hall.
    RoomId(u32)
);
newtype_id!(
    /// A direct challenge from one player to another, until it is accepted or declined.
    ChallengeId(u64)
);
newtype_id!(
    /// A competition (tournament or match); assigned by the store, never reused.
    EventId(u64)
);
newtype_id!(
    /// The client's own number for a request, echoed by the reply.
    RequestId(u64)
);

/// Longest [`RequestKey`] in bytes: room for a UUID (36) or 32 random bytes in base64url (43), and
/// small enough that a game keeping every key it saw stays small.
pub const REQUEST_KEY_LEN_MAX: usize = 64;

/// A client-chosen key that makes a request that changes something (a move, a pass, a resignation,
/// a bet, a stake raise) safe to send again: the server records it with the effect, and a request
/// with a key it already recorded for the same user and game gets the first outcome instead of
/// acting twice (TigerBeetle's transfer ids, for clients). Send a fresh key per intent, and resend
/// the same key when retrying. 1..=[`REQUEST_KEY_LEN_MAX`] characters of `A-Z a-z 0-9 _ -`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RequestKey(String);

impl RequestKey {
    /// The key, if `text` is a well-formed one.
    pub fn new(text: impl Into<String>) -> Result<RequestKey, String> {
        let text = text.into();
        let well_formed = (1..=REQUEST_KEY_LEN_MAX).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if well_formed {
            Ok(RequestKey(text))
        } else {
            Err(format!(
                "a key is 1 to {REQUEST_KEY_LEN_MAX} characters of A-Z a-z 0-9 _ -"
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RequestKey {
    type Error = String;

    fn try_from(text: String) -> Result<RequestKey, String> {
        RequestKey::new(text)
    }
}

impl From<RequestKey> for String {
    fn from(key: RequestKey) -> String {
        key.0
    }
}

impl std::fmt::Display for RequestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A stone colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Black,
    White,
}

/// An intersection; `row` 0 is the top row and `col` 0 the left column, as in SGF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Point {
    pub col: u8,
    pub row: u8,
}

/// Which repetitions of the whole board are forbidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KoRule {
    /// Only the immediate recapture of a single stone is forbidden.
    Simple,
    /// No earlier whole-board position may recur (the Chinese rules' default).
    #[default]
    Positional,
    /// No earlier position with the same player to move may recur.
    Situational,
}

/// A seat at a table. The left seat plays Black and the right seat White, unless the table's settings ask
/// for nigiri, in which case the server draws the colours when the game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    Left,
    Right,
}

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

/// Serde helper: leave a count out of the JSON when it is zero.
fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_zero(value: &u64) -> bool {
    *value == 0
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

/// The time classes of the automatch queue, each a fixed Chinese byo-yomi clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeClass {
    /// 5 minutes, then 3 periods of 10 seconds.
    Blitz,
    /// 10 minutes, then 3 periods of 30 seconds.
    Rapid,
    /// 30 minutes, then 3 periods of 60 seconds.
    Classical,
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

/// A participant as the hall lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerInfo {
    pub user: UserId,
    pub username: String,
    /// Kyu/dan rank, or "?" until the player has a rating history.
    pub rank: String,
    pub rating: i32,
    /// A computer player (an engine connected with `tengen bot`): the hall offers to play it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub computer: bool,
}

/// A chat line kept for those who come later (a room's recent chat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub from: PlayerInfo,
    pub text: String,
    pub at_ms: u64,
}

/// A room as the hall lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomInfo {
    pub room: RoomId,
    pub name: String,
    pub users_count: u32,
    pub tables_count: u32,
}

/// A table's public state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableInfo {
    pub table: TableId,
    pub room: RoomId,
    pub left: Option<PlayerInfo>,
    pub right: Option<PlayerInfo>,
    /// The settings White proposed and Black has not yet confirmed.
    pub proposal: Option<GameSettings>,
    /// The game being played at this table, if any.
    pub game: Option<GameId>,
    pub watchers_count: u32,
}

/// A live game as the hall lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub table: Option<TableId>,
    pub black: PlayerInfo,
    pub white: PlayerInfo,
    pub size: u8,
    /// Moves played when this summary was sent; the hall re-lists a game (`game_listed`) about once
    /// a second while its counts change.
    pub moves_count: u32,
    /// People watching (players excluded, a user on several connections once, each anonymous
    /// connection once) when this summary was sent.
    pub watchers_count: u32,
}

/// Where a chat line was said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChatChannel {
    Room {
        room: RoomId,
    },
    /// Between the two seated players of a table.
    Table {
        table: TableId,
    },
    /// Watchers of a game; its players do not receive it while the game is in play.
    Kibitz {
        game: GameId,
    },
    /// The two players of a game (any game: a table's, a challenge's, an automatch's, against a
    /// computer); its watchers read it too, as on KGS and OGS, and may not send it.
    Game {
        game: GameId,
    },
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

/// A game's spectator pool (旁观者竞猜) and the players' stakes, as everyone may see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolInfo {
    pub game: GameId,
    /// Whether bets are taken: the game is live and play has not ended.
    pub open: bool,
    /// Every point bet, both sides.
    pub total: u64,
    pub black: u64,
    pub white: u64,
    /// Distinct watchers who bet.
    pub bettors_count: u32,
    /// The players' stakes in escrow for this game.
    pub stake_black: u64,
    pub stake_white: u64,
    /// The house tax rate in basis points (500 is 5%), applied to winnings.
    pub tax_bp: u32,
    /// Whether the game has been settled (paid out or refunded).
    pub settled: bool,
}

/// How the players' stakes at a table are settled, fixed once agreed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StakeTerms {
    /// The winner takes both stakes, the gain taxed.
    Normal,
    /// Paid coaching (有偿指导): the coach stakes 0 and receives the student's stake whatever the
    /// result, unless the coach escapes.
    Coaching { coach: Seat },
}

/// The stake dialog of a table, as both players and the table's watchers see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StakeInfo {
    pub table: TableId,
    /// The left seat's stake and the right seat's.
    pub left: u64,
    pub right: u64,
    pub terms: StakeTerms,
    /// Who has pressed OK on exactly these amounts.
    pub ok_left: bool,
    pub ok_right: bool,
    /// Who has pressed Agree (after both OK'd).
    pub agree_left: bool,
    pub agree_right: bool,
    /// Both agreed: the points are in escrow, for `game` (or the next game at the table if `null`).
    pub agreed: bool,
    pub game: Option<GameId>,
}

/// What one of your bets or stakes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WagerKind {
    /// A watcher's bet in the spectator pool.
    Bet,
    /// A player's stake.
    Stake,
    /// A coach's fee from paid coaching: the student's stake, taxed, paid to the coach (who staked
    /// nothing) once the game is settled.
    Coaching,
    /// A stake agreed at a table for its next game, held until that game starts (it is then the
    /// game's `stake` record); given back with `refund: "not_played"` if the game never starts.
    Hold,
}

/// One transfer into or out of your account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// `grant`, `bet`, `stake`, `coaching_stake`, `payout` or `refund`.
    pub kind: String,
    /// Points in (positive) or out (negative).
    pub amount: i64,
    /// The game a bet, stake or settlement belongs to.
    pub game: Option<GameId>,
    pub at_ms: u64,
}

/// One of your bets or stakes on one game, with its result once settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WagerRecord {
    /// The game; `null` for a `hold` (no game started).
    pub game: Option<GameId>,
    /// The table a `hold` was agreed at; absent for the other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableId>,
    pub kind: WagerKind,
    /// The side you bet on or played; `null` for a `hold` (colours are drawn when the game starts).
    pub side: Option<Color>,
    /// Everything you put in (a bet with its additions).
    pub staked: u64,
    /// What came back to you; `null` until the game is settled.
    pub returned: Option<u64>,
    /// `returned − staked`; `null` until settled.
    pub net: Option<i64>,
    /// The tax rate in basis points: the settlement's once settled, else the current one.
    pub tax_bp: u32,
    /// Why everything was refunded, when it was (`draw`, `void`, `too_few_bettors`, ...;
    /// `not_played` for a `hold` given back because its game never started).
    pub refund: Option<String>,
}

/// A message from a client. Every variant may be sent inside a [`Request`] with an `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// First message on a connection: the protocol version the client speaks.
    Hello {
        version: u32,
    },
    Register {
        username: String,
        password: String,
        /// Registers a computer player (what `tengen bot --register` sends); shown as such in the hall.
        #[serde(default, skip_serializing_if = "is_false")]
        computer: bool,
        /// The rank the player says they are ("30k".."1k", "1d".."9d"), as OGS and KGS ask: their
        /// starting rating, which their games then correct. Absent: 1500 (6k).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rank: Option<String>,
    },
    Login {
        username: String,
        password: String,
    },
    /// Re-authenticate a new connection with a session token from `session`.
    Resume {
        token: String,
    },
    /// End the session: the token stops working, and every other connection using it is logged out.
    Logout,
    /// End every session of this account ("log out everywhere"): all its tokens stop working and
    /// all its other connections are logged out.
    LogoutAll,
    /// Receive the hall (rooms, players online, live games) and its live updates.
    EnterHall,
    LeaveHall,
    /// Enter a room (leaving any other): receive its tables, its users and its chat.
    JoinRoom {
        room: RoomId,
    },
    LeaveRoom,
    /// Watch a table (and its game, when one starts there).
    JoinTable {
        table: TableId,
    },
    /// Leave a table entirely, standing up first if seated.
    LeaveTable {
        table: TableId,
    },
    Sit {
        table: TableId,
        seat: Seat,
    },
    /// Get up from a seat but keep watching the table.
    Stand {
        table: TableId,
    },
    /// White (the right seat) proposes the settings of the next game.
    ProposeSettings {
        table: TableId,
        settings: GameSettings,
    },
    /// Black (the left seat) confirms the proposal, repeated so a changed proposal is never accepted
    /// blindly; the game starts.
    AcceptSettings {
        table: TableId,
        settings: GameSettings,
    },
    Challenge {
        user: UserId,
        settings: GameSettings,
    },
    AcceptChallenge {
        challenge: ChallengeId,
    },
    DeclineChallenge {
        challenge: ChallengeId,
    },
    /// Join the automatch queue: play the next player waiting for the same board size and time
    /// class whose rank is within `rank_range` ranks of yours (and yours within theirs). The game
    /// starts with `game_started` at once or when such a player arrives; the handicap follows the
    /// rank difference. Sent again, it replaces your place in the queue.
    Automatch {
        size: u8,
        time_class: TimeClass,
        rank_range: u8,
    },
    /// Leave the automatch queue.
    CancelAutomatch,
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
    /// Games a user played, newest first (answered by `game_list`).
    ListGames {
        username: String,
    },
    /// Open this connection's study board (研究, 单机): an empty board, one user playing both sides.
    /// Answered by `study`; replaces any study open before.
    StudyOpen {
        size: u8,
        komi_half_points: i32,
        handicap: u8,
    },
    /// Play the side to move at `point`; an existing variation with that move is followed, else a new
    /// one branches off here.
    StudyPlay {
        point: Point,
    },
    StudyPass,
    /// One move back towards the start.
    StudyBack,
    /// One move forward along variation `variation` (0, the first, unless given).
    StudyForward {
        #[serde(default)]
        variation: u32,
    },
    /// Go to move `move` of the line through the study's position in one request: back towards
    /// the start, or forward along the first variation; a number past the line's end stops at its
    /// end (so a large one jumps to the end).
    StudyGoto {
        #[serde(rename = "move")]
        move_number: u32,
    },
    /// Replace the study with an SGF record (its main line), positioned at the start.
    StudyLoadSgf {
        sgf: String,
    },
    /// The area count (点目) of the study position, with the server's dead-stone estimate.
    StudyCount,
    Chat {
        channel: ChatChannel,
        text: String,
    },
    /// Bet fortune points on a side of a live game you watch and do not play; sent again on the same
    /// side, it adds to your bet. Betting closes the moment play ends.
    Bet {
        game: GameId,
        side: Color,
        amount: u64,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// A game's spectator pool and players' stakes, live or finished.
    Pool {
        game: GameId,
    },
    /// Your fortune points.
    Balance,
    /// Your bets and stakes, newest first, each with what came back.
    MyBets,
    /// Your account's history: every transfer in or out (grant, bets, stakes, payouts, refunds),
    /// newest first.
    History,
    /// What the house has collected in tax and breakage.
    House,
    /// A seated player sets both stakes (each at most that player's balance) and presses OK; the other
    /// player may change them and press OK too.
    StakeOffer {
        table: TableId,
        left: u64,
        right: u64,
        terms: StakeTerms,
    },
    /// After both OK'd the same amounts: Agree (both agreeing moves the points into escrow) or
    /// Disagree (back to editing).
    StakeAnswer {
        table: TableId,
        agree: bool,
    },
    /// A player adds to their own stake in the game in progress (追加).
    StakeRaise {
        game: GameId,
        amount: u64,
        /// Makes a retry safe: see [`RequestKey`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<RequestKey>,
    },
    /// Create a competition; its creator directs it. Replied with `event`.
    CreateEvent {
        spec: EventSpec,
    },
    /// Enter an open event (replied with `event`).
    JoinEvent {
        event: EventId,
    },
    /// Leave an open event before its first round (replied with `event`).
    LeaveEvent {
        event: EventId,
    },
    /// The director pairs and starts the event's next round: its games start at once.
    StartRound {
        event: EventId,
    },
    /// An event's whole state (`event`).
    GetEvent {
        event: EventId,
    },
    /// Events, newest first (`event_list`): at most 100, those created before event `before` when
    /// it is given (the next page).
    ListEvents {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<EventId>,
    },
    /// The director withdraws an entrant: before round 1 they simply leave; later they are paired no
    /// more, a game of theirs in play is lost by forfeit, and in a round robin their results are void
    /// if they played fewer than half of their games (else their remaining games are forfeits).
    EventWithdraw {
        event: EventId,
        user: UserId,
    },
    /// The director warns an entrant (fewer warnings rank higher in a tie); a second warning in the
    /// same game loses that game.
    EventWarn {
        event: EventId,
        user: UserId,
    },
    /// The director decides a game of the event's round in play, with a reason for the log.
    EventAdjudicate {
        event: EventId,
        game: GameId,
        outcome: EventOutcome,
        reason: String,
    },
    /// The director pauses a game of the round in play until `resume_at_ms` (Unix ms).
    EventPause {
        event: EventId,
        game: GameId,
        resume_at_ms: u64,
    },
    /// The director resumes a paused or adjourned game now.
    EventResume {
        event: EventId,
        game: GameId,
    },
    /// The director adjourns a game of the round in play (封棋) until `resume_at_ms` (Unix ms).
    EventAdjourn {
        event: EventId,
        game: GameId,
        resume_at_ms: u64,
    },
    /// In an adjourned game, the player to move seals their move: a stone at `point`, or a pass when
    /// it is `null`.
    SealMove {
        game: GameId,
        point: Option<Point>,
    },
    /// Found a team in an open team event: its founder is its captain and first player (replied with
    /// `event`).
    CreateTeam {
        event: EventId,
        name: String,
    },
    /// Join a team of an open team event (replied with `event`); `leave_event` leaves it.
    JoinTeam {
        event: EventId,
        team: TeamId,
    },
    /// A captain's board order for the team's next match (free line-up): every player of the team
    /// once, board 1 first.
    SetLineUp {
        event: EventId,
        players: Vec<UserId>,
    },
}

/// Which part of the server answers a client message. The session hands each message to its area's
/// handler; [`ClientMsg::area`] names every message, so a new one cannot go unrouted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// `hello`.
    Connection,
    /// Registering, logging in and out.
    Accounts,
    /// Rooms, tables, challenges, automatch and chat.
    Hall,
    /// Watching and playing games, and their records.
    Games,
    /// The study board.
    Study,
    /// Fortune points: bets, stakes, balances.
    Money,
    /// Competitions.
    Events,
}

impl ClientMsg {
    /// The part of the server that answers this message.
    pub fn area(&self) -> Area {
        use ClientMsg as M;
        match self {
            M::Hello { .. } => Area::Connection,
            M::Register { .. } | M::Login { .. } | M::Resume { .. } | M::Logout | M::LogoutAll => {
                Area::Accounts
            }
            M::EnterHall
            | M::LeaveHall
            | M::JoinRoom { .. }
            | M::LeaveRoom
            | M::JoinTable { .. }
            | M::LeaveTable { .. }
            | M::Sit { .. }
            | M::Stand { .. }
            | M::ProposeSettings { .. }
            | M::AcceptSettings { .. }
            | M::Challenge { .. }
            | M::AcceptChallenge { .. }
            | M::DeclineChallenge { .. }
            | M::Automatch { .. }
            | M::CancelAutomatch
            | M::Chat { .. } => Area::Hall,
            M::Watch { .. }
            | M::Unwatch { .. }
            | M::Play { .. }
            | M::Pass { .. }
            | M::Resign { .. }
            | M::ToggleDead { .. }
            | M::AcceptScore { .. }
            | M::ResumePlay { .. }
            | M::Undo { .. }
            | M::AcceptUndo { .. }
            | M::DeclineUndo { .. }
            | M::GetRecord { .. }
            | M::ListGames { .. } => Area::Games,
            M::StudyOpen { .. }
            | M::StudyLoadSgf { .. }
            | M::StudyPlay { .. }
            | M::StudyPass
            | M::StudyBack
            | M::StudyForward { .. }
            | M::StudyGoto { .. }
            | M::StudyCount => Area::Study,
            M::Bet { .. }
            | M::Pool { .. }
            | M::Balance
            | M::MyBets
            | M::History
            | M::House
            | M::StakeOffer { .. }
            | M::StakeAnswer { .. }
            | M::StakeRaise { .. } => Area::Money,
            M::CreateEvent { .. }
            | M::JoinEvent { .. }
            | M::LeaveEvent { .. }
            | M::StartRound { .. }
            | M::GetEvent { .. }
            | M::ListEvents { .. }
            | M::EventWithdraw { .. }
            | M::EventWarn { .. }
            | M::EventAdjudicate { .. }
            | M::CreateTeam { .. }
            | M::JoinTeam { .. }
            | M::SetLineUp { .. }
            | M::EventPause { .. }
            | M::EventResume { .. }
            | M::EventAdjourn { .. }
            | M::SealMove { .. } => Area::Events,
        }
    }

    /// Every `type` a client may send, for telling "unknown type" from "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "hello",
        "register",
        "login",
        "resume",
        "logout",
        "logout_all",
        "enter_hall",
        "leave_hall",
        "join_room",
        "leave_room",
        "join_table",
        "leave_table",
        "sit",
        "stand",
        "propose_settings",
        "accept_settings",
        "challenge",
        "accept_challenge",
        "decline_challenge",
        "automatch",
        "cancel_automatch",
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
        "study_open",
        "study_play",
        "study_pass",
        "study_back",
        "study_forward",
        "study_goto",
        "study_load_sgf",
        "study_count",
        "chat",
        "bet",
        "pool",
        "balance",
        "my_bets",
        "history",
        "house",
        "stake_offer",
        "stake_answer",
        "stake_raise",
        "create_event",
        "join_event",
        "leave_event",
        "start_round",
        "get_event",
        "list_events",
        "event_withdraw",
        "event_warn",
        "event_adjudicate",
        "event_pause",
        "event_resume",
        "event_adjourn",
        "seal_move",
        "create_team",
        "join_team",
        "set_line_up",
    ];
}

/// A client frame: a message plus the optional request `id` its reply echoes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// Why a frame could not be read as a [`Request`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The `id`, when the frame was JSON with a readable `id`, so the error can still be matched.
    pub id: Option<RequestId>,
    pub code: ErrorCode,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Request {
    /// Parse one text frame, telling apart malformed JSON, an unknown `type` and bad fields.
    pub fn parse(text: &str) -> Result<Request, ParseError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|err| ParseError {
            id: None,
            code: ErrorCode::BadJson,
            message: format!("not JSON: {err}"),
        })?;
        let id = value.get("id").and_then(|v| v.as_u64()).map(RequestId);
        let kind = value.get("type").and_then(|v| v.as_str());
        match kind {
            None => {
                return Err(ParseError {
                    id,
                    code: ErrorCode::BadMessage,
                    message: "a message is a JSON object with a string \"type\"".into(),
                })
            }
            Some(kind) if !ClientMsg::TYPES.contains(&kind) => {
                return Err(ParseError {
                    id,
                    code: ErrorCode::UnknownType,
                    message: format!("unknown message type {kind:?}"),
                })
            }
            Some(_) => {}
        }
        serde_json::from_value(value).map_err(|err| ParseError {
            id,
            code: ErrorCode::BadMessage,
            message: format!("bad message: {err}"),
        })
    }
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Reply to `hello`.
    Welcome {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        version: u32,
        server: String,
    },
    /// Reply to `register`, `login` and `resume`: who you are and the token to resume with.
    Session {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        user: UserId,
        username: String,
        token: String,
        expires_at_ms: u64,
        /// Starting fortune points not granted yet: a new account's grant waits for its first
        /// finished game or a day. Absent (0) once granted.
        #[serde(default, skip_serializing_if = "is_zero")]
        pending_grant: u64,
        /// When the pending grant lands at the latest (at the next login or resume from then on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_due_at_ms: Option<u64>,
    },
    /// Pushed when this connection's session ended elsewhere (`logout` on another connection with the
    /// same token, or `logout_all` on any): the connection is not logged in any more.
    LoggedOut {
        reason: LogoutReason,
    },
    /// A request succeeded.
    Ack {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
    },
    /// A request failed (or a frame could not be read); nothing changed.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    },
    /// The hall, in full (after `enter_hall`, or as a resync).
    Hall {
        rooms: Vec<RoomInfo>,
        players: Vec<PlayerInfo>,
        games: Vec<GameSummary>,
    },
    RoomUpdated {
        room: RoomInfo,
    },
    /// A player came online (or their listing changed).
    PlayerOnline {
        player: PlayerInfo,
    },
    PlayerOffline {
        user: UserId,
    },
    /// A live game started or changed its listing.
    GameListed {
        game: GameSummary,
    },
    /// A live game ended and left the list.
    GameUnlisted {
        game: GameId,
    },
    /// A room in full (after `join_room`, or as a resync).
    Room {
        room: RoomId,
        name: String,
        tables: Vec<TableInfo>,
        users: Vec<PlayerInfo>,
        /// The room's last chat lines, oldest first, so someone entering sees what was being said.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        recent_chat: Vec<ChatLine>,
    },
    /// A user entered the room you are in.
    RoomJoined {
        room: RoomId,
        player: PlayerInfo,
    },
    RoomLeft {
        room: RoomId,
        user: UserId,
    },
    /// A table of your room (or the table you are at) changed.
    TableUpdated {
        table: TableInfo,
    },
    /// Settings agreed at a table: the game starts; the server sends its state next.
    GameStarted {
        game: GameId,
        table: Option<TableId>,
        black: PlayerInfo,
        white: PlayerInfo,
    },
    /// Reply to `challenge`: the id under which a decline will be reported.
    ChallengeSent {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        challenge: ChallengeId,
        to: UserId,
    },
    /// Someone challenges you.
    Challenged {
        challenge: ChallengeId,
        from: PlayerInfo,
        settings: GameSettings,
    },
    /// Your challenge was declined (or withdrawn because a player left).
    ChallengeDeclined {
        challenge: ChallengeId,
    },
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
    /// then costs each follower a few bytes instead of the whole list (issue 16).
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
    /// Reply to every study request but `study_count`: the study board as it now stands.
    Study {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        study: StudyView,
    },
    /// Reply to `study_count`.
    StudyCount {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// The stones the estimate takes as dead (removed before counting).
        dead: Vec<Point>,
        black_count_half_points: u32,
        white_count_half_points: u32,
        /// As SGF `RE` would say it if the game ended so: "B+3.5", "W+0.5", "0".
        result: String,
    },
    /// Reply to `list_games`.
    GameList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        username: String,
        games: Vec<GameListing>,
    },
    Chat {
        channel: ChatChannel,
        from: PlayerInfo,
        text: String,
        at_ms: u64,
    },
    /// Reply to `bet`: what you added, your whole bet on that side, and your balance after it.
    BetPlaced {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        game: GameId,
        side: Color,
        amount: u64,
        total: u64,
        balance: u64,
        tax_bp: u32,
    },
    /// A game's pool: the reply to `pool`, and pushed to everyone following the game whenever a bet
    /// changes it.
    Pool {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        pool: PoolInfo,
    },
    /// Your fortune points: the reply to `balance`, pushed once after logging in and again after
    /// each game your bet or stake was in settles.
    Balance {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// Reply to `my_bets`.
    MyBets {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        records: Vec<WagerRecord>,
    },
    /// Reply to `history`.
    History {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        entries: Vec<HistoryEntry>,
    },
    /// Reply to `house`: the house's takings so far.
    House {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        balance: u64,
        tax_bp: u32,
    },
    /// A table's stake dialog changed (`stake` is `null` once it lapsed or was withdrawn); pushed to
    /// the players and the table's watchers.
    StakeUpdated {
        table: TableId,
        stake: Option<StakeInfo>,
        tax_bp: u32,
    },
    /// An event's whole state: the reply to the event requests, and pushed to its entrants and
    /// director whenever it changes (an entry, a round paired, a result).
    Event {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        event: Box<EventView>,
    },
    /// Reply to `list_events`.
    EventList {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        events: Vec<EventSummary>,
    },
    /// Pushed to the hall when an event is created or its status, entries or rounds change.
    EventListed {
        event: EventSummary,
    },
}

/// A study board as it stands at its cursor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyView {
    pub size: u8,
    /// Rows as in `game_state`.
    pub board: Vec<String>,
    pub to_move: Color,
    /// Moves from the start to here.
    pub move_number: u32,
    /// The move that led here: a point, or `null` for a pass or at the start.
    pub last_move: Option<Point>,
    pub captures_black: u32,
    pub captures_white: u32,
    /// The variations going on from here, in order (a `null` entry is a pass); `study_forward`
    /// takes one by its index.
    pub next_moves: Vec<Option<Point>>,
}

/// Why a connection was logged out by a push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogoutReason {
    /// Its token was logged out on another connection.
    Logout,
    /// The account logged out everywhere.
    LogoutAll,
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

/// Defines [`ErrorCode`] and its [`ErrorCode::ALL`] from one list, so a new code cannot be left out of
/// `ALL` (and so out of the README check that walks it).
macro_rules! error_codes {
    ($($(#[$meta:meta])* $code:ident,)*) => {
        /// Stable error codes: clients switch on these, people read the `message`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[$meta])* $code,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order, so tests can check each one is documented.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code),*];
        }
    };
}

error_codes! {
    /// The frame is not JSON.
    BadJson,
    /// JSON, but not a known message shape (missing or mistyped fields).
    BadMessage,
    /// The `type` is not one the server knows.
    UnknownType,
    /// The frame is larger than the server accepts.
    FrameTooLarge,
    /// Too many messages too fast; this one was dropped.
    RateLimited,
    /// `hello` named a protocol version the server does not speak.
    VersionUnsupported,
    /// `hello` must come first.
    HelloRequired,
    /// This needs an account: `register`, `login` or `resume` first.
    NotLoggedIn,
    AlreadyLoggedIn,
    /// Wrong username or password (deliberately not saying which).
    BadCredentials,
    /// Too many failed logins (for this account, from this address, or both); the message says how
    /// long to wait.
    LoginThrottled,
    /// Too many new accounts from this address; the message says how long to wait.
    RegistrationThrottled,
    /// The session token is unknown or expired.
    InvalidToken,
    UsernameTaken,
    InvalidUsername,
    InvalidPassword,
    NoSuchRoom,
    NoSuchTable,
    NoSuchGame,
    NoSuchUser,
    NoSuchChallenge,
    SeatTaken,
    /// You already sit at a table (one seat per player).
    AlreadySeated,
    NotSeated,
    /// Only White (the right seat) proposes; only Black (the left seat) confirms.
    NotYourRole,
    /// Nothing proposed yet, or the proposal changed since you looked.
    ProposalMismatch,
    InvalidSettings,
    /// A game is in progress at the table or for the player.
    GameInProgress,
    /// Both seats must be taken.
    TableNotFull,
    /// You are not a player of this game.
    NotYourGame,
    NotYourTurn,
    Occupied,
    Suicide,
    /// Ko or superko: the move would repeat a position.
    Ko,
    OffBoard,
    /// The game is not in the phase this needs (playing, scoring).
    WrongPhase,
    /// The dead stones changed before this accept arrived; look at the new marking.
    MarkingChanged,
    /// You are not in that room or at that table.
    NotThere,
    /// Chat text is empty or longer than the limit.
    BadChat,
    /// Players may not use the watchers' chat of their own game while it is in play.
    NotAllowed,
    /// The game has as many watchers as it takes.
    TooManyWatchers,
    /// The game or hall is too busy to take this request now; it was certainly not done: try again.
    Busy,
    /// No undo request is pending, or there is no move of yours to take back.
    NoUndo,
    /// A bet or stake of 0 points, or of more than any balance can hold.
    BadAmount,
    /// Not enough fortune points for that bet or stake.
    InsufficientPoints,
    /// Play has ended (or the game is over): no more bets.
    BettingClosed,
    /// Players may not bet in their own game's spectator pool.
    PlayersCannotBet,
    /// You already bet on the other side of this game; you may only add to your bet.
    SideChange,
    /// No study board is open on this connection (`study_open` or `study_load_sgf` first).
    NoStudy,
    /// Back at the start, forward past the end, or a variation that does not exist.
    NoSuchMove,
    /// The SGF could not be read or replayed.
    BadSgf,
    /// The stakes were agreed: they can no longer be edited (only raised during the game).
    StakeAgreed,
    /// Agree or Disagree needs both players to have pressed OK on the same amounts first.
    StakeNotReady,
    /// The server failed; nothing was changed.
    Internal,
    /// This request's `key` was already used by you in this game for a different request.
    KeyReused,
    /// The server cannot tell whether the request took effect (another node did not answer in
    /// time, or a store write broke off before its commit was confirmed): send it again with the
    /// same `key`, which answers with its first outcome if it did.
    OutcomeUnknown,
    /// The store is unreachable; nothing changed: try again.
    Unavailable,
    /// No event with that id.
    NoSuchEvent,
    /// The event has as many entrants as it takes.
    EventFull,
    /// The event's first round is paired: entries are closed and nobody leaves (withdrawals are the
    /// director's).
    EventStarted,
    /// Only the event's director may do that.
    NotDirector,
    /// You are not entered in that event.
    NotEntered,
    /// The round in play has games without a result yet.
    RoundInPlay,
    /// The event is over.
    EventOver,
    /// Your rank is outside the event's entry range.
    RankOutOfRange,
    /// A team or a line-up has the wrong number of players (a team event's round 1 starts only when
    /// every team is complete).
    TeamSize,
    /// Only the team's captain may do that.
    NotCaptain,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The serde name is the stable one; reuse it so logs and the wire agree.
        let json = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(json.trim_matches('"'))
    }
}

impl ServerMsg {
    /// Every `type` the server sends.
    pub const TYPES: &'static [&'static str] = &[
        "welcome",
        "session",
        "logged_out",
        "ack",
        "error",
        "hall",
        "room_updated",
        "player_online",
        "player_offline",
        "game_listed",
        "game_unlisted",
        "room",
        "room_joined",
        "room_left",
        "table_updated",
        "game_started",
        "challenge_sent",
        "challenged",
        "challenge_declined",
        "game_state",
        "game_event",
        "watchers",
        "game_record",
        "game_list",
        "study",
        "study_count",
        "chat",
        "bet_placed",
        "pool",
        "balance",
        "my_bets",
        "history",
        "house",
        "stake_updated",
        "event",
        "event_list",
        "event_listed",
    ];

    /// An error reply.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            id,
            code,
            message: message.into(),
        }
    }

    /// Serialize to the text of one frame. Serializing these types cannot fail (no maps with non-string
    /// keys, no floats), so a failure is a bug.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("ServerMsg always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_type_is_told_apart_from_bad_fields() {
        let err = Request::parse(r#"{"type":"fly","id":4}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownType);
        assert_eq!(err.id, Some(RequestId(4)));
        let err = Request::parse(r#"{"type":"play","id":5,"game":1}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::BadMessage);
        assert_eq!(err.id, Some(RequestId(5)));
        let err = Request::parse("{not json").unwrap_err();
        assert_eq!(err.code, ErrorCode::BadJson);
        let err = Request::parse("[1,2]").unwrap_err();
        assert_eq!(err.code, ErrorCode::BadMessage);
    }

    #[test]
    fn error_codes_display_as_their_wire_names() {
        assert_eq!(ErrorCode::BadCredentials.to_string(), "bad_credentials");
        assert_eq!(ErrorCode::Ko.to_string(), "ko");
    }

    /// `ALL` is generated from the enum itself, so it holds every code once (it used to be a hand-kept
    /// list that had missed `marking_changed`).
    #[test]
    fn all_holds_every_error_code_once() {
        assert!(ErrorCode::ALL.contains(&ErrorCode::MarkingChanged));
        assert!(ErrorCode::ALL.contains(&ErrorCode::Unavailable));
        let distinct: std::collections::HashSet<_> = ErrorCode::ALL.iter().collect();
        assert_eq!(distinct.len(), ErrorCode::ALL.len());
    }

    #[test]
    fn keys_are_bounded_and_plain() {
        let ok = Request::parse(r#"{"type":"pass","game":1,"key":"a-b_C9"}"#).unwrap();
        let key = RequestKey::new("a-b_C9").unwrap();
        assert_eq!(
            ok.msg,
            ClientMsg::Pass {
                game: GameId(1),
                key: Some(key)
            }
        );
        let long = "k".repeat(REQUEST_KEY_LEN_MAX + 1);
        for bad in ["", "a:b", "sp ace", "é", long.as_str()] {
            let text = format!(r#"{{"type":"pass","id":3,"game":1,"key":"{bad}"}}"#);
            let err = Request::parse(&text).unwrap_err();
            assert_eq!(err.code, ErrorCode::BadMessage, "{bad:?}");
            assert_eq!(err.id, Some(RequestId(3)));
        }
        assert!(RequestKey::new("k".repeat(REQUEST_KEY_LEN_MAX)).is_ok());
    }

    #[test]
    fn every_type_name_is_a_real_variant() {
        // A message with only `type` either parses (unit variants) or fails on fields, never as unknown.
        for kind in ClientMsg::TYPES {
            let text = format!(r#"{{"type":"{kind}"}}"#);
            if let Err(err) = Request::parse(&text) {
                assert_eq!(err.code, ErrorCode::BadMessage, "{kind}: {err}");
            }
        }
    }
}
