//! SGF FF[4] for Go: a tolerant parser into a tree that keeps every node and variation (`tree`), the game
//! record read from its main line (`record`), the charset a file is written in (`charset`), and the
//! writer that turns either back into text.
//!
//! The parser is our own rather than a crate's: it works on bytes (a file is decoded from its charset
//! first, and a value that is still not UTF-8 must not lose the moves), reports every error with its
//! line and column, and builds the tree without recursion, so no input can exhaust the stack.

mod charset;
mod parse;
mod record;
mod tree;
mod write;

pub use charset::{decode, Charset, CharsetSource};
pub use parse::{parse_tree, MAX_SGF_BYTES};
pub use record::{parse, GameInfo, GameRecord, RecordError, RecordedMove, ReplayError};
pub use tree::{NodeId, Property, SgfNode, SgfTree, Value};

use std::fmt;

/// Where in the input something went wrong, counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Malformed SGF text, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgfError {
    pub position: Position,
    pub message: String,
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SGF error at {}: {}", self.position, self.message)
    }
}

impl std::error::Error for SgfError {}
