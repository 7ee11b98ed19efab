//! Points on the board and the moves a player can make, with their GTP (`D4`, `I` skipped) and SGF (`dd`)
//! spellings. A `Point` is only a pair of coordinates; whether it lies on a given board is the board's call.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest board the engine plays on; SGF's letters `a..=y` cover it.
pub const MAX_SIZE: u8 = 25;
/// The smallest board the engine plays on.
pub const MIN_SIZE: u8 = 2;

/// GTP's column letters: `A` to `Z` without `I`, which is skipped to avoid confusion with `J`.
const GTP_COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// An intersection: `col` counts from the left, `row` from the top (SGF order), both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Point {
    pub col: u8,
    pub row: u8,
}

impl Point {
    pub fn new(col: u8, row: u8) -> Point {
        Point { col, row }
    }

    pub fn is_on_board(self, size: u8) -> bool {
        self.col < size && self.row < size
    }

    /// The SGF spelling, `aa` being the top-left corner.
    pub fn to_sgf(self) -> String {
        let mut text = String::with_capacity(2);
        text.push((b'a' + self.col) as char);
        text.push((b'a' + self.row) as char);
        text
    }

    /// Parses an SGF point (`dd`); `None` for anything that is not two letters `a..=y`.
    pub fn from_sgf(text: &str) -> Option<Point> {
        let bytes = text.as_bytes();
        let coord = |b: u8| (b.is_ascii_lowercase() && b - b'a' < MAX_SIZE).then(|| b - b'a');
        match bytes {
            [c, r] => Some(Point::new(coord(*c)?, coord(*r)?)),
            _ => None,
        }
    }

    /// The GTP spelling on a board of `size`: column letter (no `I`), then the row counted from the bottom.
    pub fn to_gtp(self, size: u8) -> String {
        let column = GTP_COLUMNS[self.col as usize] as char;
        format!("{column}{}", size - self.row)
    }

    /// Parses a GTP vertex such as `D4` or `q16` on a board of `size`; `None` when it is malformed or off board.
    pub fn from_gtp(text: &str, size: u8) -> Option<Point> {
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        let col = GTP_COLUMNS.iter().position(|&c| c as char == letter)? as u8;
        let number: u8 = chars.as_str().parse().ok()?;
        if number == 0 || number > size || col >= size {
            return None;
        }
        Some(Point::new(col, size - number))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_sgf())
    }
}

/// What a player does on their turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "point")]
pub enum Move {
    Play(Point),
    Pass,
    Resign,
}
