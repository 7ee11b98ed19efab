//! Seeded random play: the move `genmove` answers with, and the playouts of the dead-stone estimate. The
//! generator is local and seeded by the caller, so the engine stays free of global randomness and every
//! run with the same seed makes the same moves.

use crate::board::Board;
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

/// Plays random moves (simple ko only, own eyes never filled) from `board` until both sides pass or
/// `max_moves` is reached. Used to see which stones survive: cheap, and blind to seki.
pub(crate) fn playout(board: &mut Board, first: Color, rng: &mut SeededRng, max_moves: usize) {
    let mut to_move = first;
    let mut passes = 0;
    let mut ko_point: Option<Point> = None;
    let mut candidates = Vec::with_capacity(board.size() as usize * board.size() as usize);
    let mut captured = Vec::new();
    for _ in 0..max_moves {
        candidates.clear();
        candidates.extend(board.points().filter(|&p| board.get(p).is_none()));
        let mut chosen = None;
        while !candidates.is_empty() {
            let point = candidates.swap_remove(rng.below(candidates.len()));
            if Some(point) == ko_point || board.is_eye_like(point, to_move) {
                continue;
            }
            if let Ok(preview) = board.preview(point, to_move) {
                chosen = Some((point, preview.ko_point));
                break;
            }
        }
        match chosen {
            Some((point, ko)) => {
                captured.clear();
                board.play_unchecked(point, to_move, &mut captured);
                ko_point = ko.map(|_| captured[0]);
                passes = 0;
            }
            None => {
                ko_point = None;
                passes += 1;
                if passes == 2 {
                    return;
                }
            }
        }
        to_move = to_move.opponent();
    }
}
