//! The study board (研究) on the wire: its view, and what a client sends to play both sides, step
//! through variations, load an SGF record and count.

use serde::{Deserialize, Serialize};

use crate::{Color, Point};

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
    /// Replace the study with an SGF record (its main line), positioned at the start.
    StudyLoadSgf {
        sgf: String,
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

impl From<StudyMsg> for crate::ClientMsg {
    fn from(msg: StudyMsg) -> crate::ClientMsg {
        crate::ClientMsg::Study(msg)
    }
}
