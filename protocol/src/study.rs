//! The study board (研究) on the wire: its view, and what a client sends to play both sides, step
//! through variations, load an SGF record and count, and what the server answers.

use serde::{Deserialize, Serialize};

use crate::{Color, KoRule, Point, RequestId};

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
    /// The ko rule every move of the study is checked under: a loaded record's own (see
    /// [`StudyRecord::ko_rule_from`]), positional superko on a new board.
    pub ko_rule: KoRule,
    /// The record's comment on this position (the move that led here, or the root's at the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The loaded record's game information; absent on a board opened with `study_open`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<StudyRecord>,
}

/// A loaded record's game information, as its file holds it (decoded from its charset).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StudyRecord {
    /// `PB`, `PW`, `BR`, `WR`, `GN`, `EV`, `DT`, `PC`, `RE` and `RU` as written; absent when the
    /// record does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_rank: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_rank: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    pub komi_half_points: i32,
    pub handicap: u8,
    /// Moves of the main line.
    pub moves_count: u32,
    /// The charset the file was read in (`UTF-8`, `GBK`, `Shift_JIS`, `EUC-KR`, `Big5`,
    /// `windows-1252` for Latin-1) and how that was settled.
    pub charset: String,
    pub charset_from: CharsetFrom,
    /// Why the study replays under its `ko_rule`.
    pub ko_rule_from: KoRuleFrom,
}

/// How a record's charset was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CharsetFrom {
    /// A byte-order mark.
    ByteOrderMark,
    /// The text is UTF-8, whatever `CA` says.
    #[default]
    Utf8,
    /// The record's `CA`.
    Declared,
    /// Detected from the bytes.
    Detected,
}

/// Why a record is replayed under its ko rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KoRuleFrom {
    /// The rules its `RU` names (Japanese and Korean: simple ko; Chinese: positional superko; AGA and
    /// New Zealand: situational superko).
    #[default]
    Rules,
    /// No `RU`, or rules the server does not know: the strictest rule, which the record keeps.
    Strictest,
    /// No `RU`, or rules the server does not know, and the record repeats a whole-board position:
    /// the basic ko rule rather than refuse a real game.
    Fallback,
}

/// What a client sends to its study board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StudyMsg {
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
    /// Replace the study with an SGF record (its main line), positioned at the start. The file is
    /// either `sgf_base64`, its bytes in base64 (any charset; the server decodes it by its `CA`, or
    /// by detection), or `sgf`, text already decoded; exactly one of the two.
    StudyLoadSgf {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sgf: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sgf_base64: Option<String>,
    },
    /// The area count (点目) of the study position, with the server's dead-stone estimate.
    StudyCount,
}

impl StudyMsg {
    /// Every `type` of this area, for routing a frame to its area and telling "unknown type" from
    /// "bad fields".
    pub const TYPES: &'static [&'static str] = &[
        "study_open",
        "study_play",
        "study_pass",
        "study_back",
        "study_forward",
        "study_goto",
        "study_load_sgf",
        "study_count",
    ];
}

/// What the server answers on the study board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StudyServerMsg {
    /// Reply to every study request but `study_count`: the study board as it now stands.
    Study {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<RequestId>,
        /// Boxed: a whole board is far larger than the area's other reply.
        study: Box<StudyView>,
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
}

impl StudyServerMsg {
    /// Every `type` of this area, for reading a server frame by the area that lists its `type`.
    pub const TYPES: &'static [&'static str] = &["study", "study_count"];
}
