//! The two colours of Go stones, and the small conversions (GTP, SGF, Chinese names) every layer needs.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's colour. Black moves first except after fixed handicap stones, when White does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-colour arrays.
    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// The SGF property letter (`B`/`W`), also used in results such as `B+1.5`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// The Chinese name used in results such as `黑胜3/4子`.
    pub fn chinese(self) -> &'static str {
        match self {
            Color::Black => "黑",
            Color::White => "白",
        }
    }

    /// Parses GTP's colour forms: `b`, `black`, `w`, `white`, in any case.
    pub fn from_gtp(text: &str) -> Option<Color> {
        match text.to_ascii_lowercase().as_str() {
            "b" | "black" => Some(Color::Black),
            "w" | "white" => Some(Color::White),
            _ => None,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}
