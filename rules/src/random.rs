//! Seeded random play: the move `genmove` answers with, and the generator of the dead-stone estimate's
//! playouts. The generator is local and seeded by the caller, so the engine stays free of global randomness
//! and every run with the same seed makes the same moves.

use crate::color::Color;
use crate::game::Game;
use crate::point::{Move, Point};

/// SplitMix64: small, fast and good enough for choosing moves; not for anything secret.
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    pub fn new(seed: u64) -> SeededRng {
        SeededRng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0), by multiply-shift, which has no modulo bias worth noticing here.
    pub fn below(&mut self, bound: usize) -> usize {
        (((self.next_u64() >> 32) * bound as u64) >> 32) as usize
    }
}

/// A uniformly random legal play for `color` that does not fill one of its own eyes, or a pass when there
/// is none. The game's ko rule applies; whose turn it is does not.
pub fn random_move(game: &Game, color: Color, rng: &mut SeededRng) -> Move {
    let board = game.board();
    let mut candidates: Vec<Point> = board.points().filter(|&p| board.get(p).is_none()).collect();
    while !candidates.is_empty() {
        let point = candidates.swap_remove(rng.below(candidates.len()));
        if !board.is_eye_like(point, color) && game.check_play(color, point).is_ok() {
            return Move::Play(point);
        }
    }
    Move::Pass
}
