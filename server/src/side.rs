//! The two seats at a table, Black (left) and White (right), as the clock and the ledger see them.
//!
//! This is deliberately a tiny local enum rather than `tengen_rules::Color`: the pure server
//! modules only need to name a seat, and keeping them independent of the engine's API lets both
//! evolve separately. The game actor maps one to the other at its edge.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's seat and colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Black,
    White,
}

impl Side {
    /// Both sides, Black first, for loops over a table's two seats.
    pub const BOTH: [Side; 2] = [Side::Black, Side::White];

    /// The opponent's side.
    pub fn other(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    /// The array slot for per-side state: Black 0, White 1.
    pub fn index(self) -> usize {
        match self {
            Side::Black => 0,
            Side::White => 1,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Black => "Black",
            Side::White => "White",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_and_index_are_consistent() {
        for side in Side::BOTH {
            assert_ne!(side, side.other());
            assert_eq!(side, side.other().other());
            assert_eq!(Side::BOTH[side.index()], side);
        }
        assert_eq!(Side::Black.to_string(), "Black");
    }
}
