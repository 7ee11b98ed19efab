//! The engine's expected failures: an illegal move, with the reason a player sees, and a bad game setup.

use crate::point::{Point, MAX_SIZE, MIN_SIZE};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a move was refused. A refused move changes nothing: the player keeps the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalMove {
    /// The point already holds a stone.
    Occupied,
    /// The stone's chain would have no liberties after captures.
    Suicide,
    /// The move would repeat a position the ko rule forbids (simple ko or superko).
    Ko,
    /// The point is not on the board.
    OffBoard,
    /// It is the other player's turn.
    NotYourTurn,
    /// Play has ended (scoring phase or game over).
    GameOver,
    /// Free handicap stones must be placed before the first move.
    HandicapNotPlaced,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalMove::Occupied => "that point is occupied",
            IllegalMove::Suicide => "suicide is not allowed",
            IllegalMove::Ko => "the move repeats a position (ko)",
            IllegalMove::OffBoard => "that point is off the board",
            IllegalMove::NotYourTurn => "it is not your turn",
            IllegalMove::GameOver => "the game is not in play",
            IllegalMove::HandicapNotPlaced => "the handicap stones must be placed first",
        })
    }
}

impl std::error::Error for IllegalMove {}

/// Why a move could not be taken back. A refused undo changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoError {
    /// No move has been played since the setup.
    NothingToUndo,
    /// The game is over, or free handicap stones are still being placed.
    NotInPlay,
    /// The recorded history did not replay: move `move_number` (from 1) was refused.
    Replay {
        move_number: usize,
        reason: IllegalMove,
    },
    /// The recorded history did not replay: play could not resume after `after_moves` moves.
    Resume { after_moves: usize },
}

impl fmt::Display for UndoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UndoError::NothingToUndo => f.write_str("there is no move to take back"),
            UndoError::NotInPlay => f.write_str("the game is not in play"),
            UndoError::Replay {
                move_number,
                reason,
            } => write!(
                f,
                "move {move_number} of the record did not replay: {reason}"
            ),
            UndoError::Resume { after_moves } => write!(
                f,
                "play could not resume after move {after_moves} of the record"
            ),
        }
    }
}

impl std::error::Error for UndoError {}

/// Why a game or board could not be set up as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    BoardSize(u8),
    /// Handicap stones must number 2..=9 and fit the board's star points.
    Handicap {
        stones: u8,
        size: u8,
    },
    OffBoard(Point),
    Occupied(Point),
    /// A setup stone that would leave a chain without liberties.
    NoLiberties(Point),
    /// Setup is only possible before the first move.
    AlreadyStarted,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::BoardSize(size) => {
                write!(f, "board size {size} is not in {MIN_SIZE}..={MAX_SIZE}")
            }
            SetupError::Handicap { stones, size } => {
                write!(
                    f,
                    "a handicap of {stones} stones is not possible on {size}x{size}"
                )
            }
            SetupError::OffBoard(p) => write!(f, "setup point {p} is off the board"),
            SetupError::Occupied(p) => write!(f, "setup point {p} is already occupied"),
            SetupError::NoLiberties(p) => write!(
                f,
                "a setup stone at {p} would leave a chain without liberties"
            ),
            SetupError::AlreadyStarted => {
                f.write_str("setup is only possible before the first move")
            }
        }
    }
}

impl std::error::Error for SetupError {}
