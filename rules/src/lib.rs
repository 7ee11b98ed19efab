//! `tengen-rules`: the Go engine behind Tengen. Boards from 2x2 to 25x25, captures and suicide, simple ko
//! and positional or situational superko against the whole game, handicap, area scoring under Chinese
//! rules with exact arithmetic, a dead-stone estimate for the scoring phase, and SGF import and export.
//!
//! The crate is pure: no I/O, no async, no clock and no global randomness (the few functions that play
//! randomly take a seed), so it runs the same in the server, a test, a benchmark or a browser.
//!
//! ```
//! use tengen_rules::{Color, Game, IllegalMove, Move, Point, Rules};
//! let mut game = Game::new(Rules { size: 9, ..Rules::default() }).unwrap();
//! game.play(Color::Black, Move::Play(Point::new(2, 2))).unwrap();
//! assert_eq!(game.play(Color::White, Move::Play(Point::new(2, 2))), Err(IllegalMove::Occupied));
//! ```

mod board;
mod color;
mod dead;
mod error;
mod game;
mod handicap;
mod point;
pub mod random;
mod score;
pub mod sgf;
mod zobrist;

pub use board::Board;
pub use color::Color;
pub use dead::estimate_dead;
pub use error::{IllegalMove, SetupError, UndoError};
pub use game::{Game, HandicapPlacement, KoRule, Phase, Resumption, Rules};
pub use handicap::fixed_handicap_points;
pub use point::{Move, Point, MAX_SIZE, MIN_SIZE};
pub use score::{count_area, AreaCount, GameResult, Komi, KomiError, Score, WinBy};
