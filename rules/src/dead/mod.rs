//! The dead-stone estimate the server proposes when the scoring phase opens.
//!
//! Method, in the order a player reads a finished position:
//! 1. Unconditional life (`benson`): chains no attack can capture are alive, and opponent stones inside
//!    their vital regions are dead.
//! 2. Playouts (`playout`) for everything else, with a policy that answers ataris, captures what it can,
//!    never fills its own eyes and never plays a self-atari of two stones or more (so seki stays seki).
//!    A chain is dead when, over its stones and all playouts, its points ended up the opponent's much
//!    more often than its own.
//!
//! The playouts are seeded from the position's hash, so the same position always gets the same proposal.

mod benson;
mod playout;

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use playout::slot;

/// Playouts per estimate: enough for a stable majority on 19x19 while staying well under 100 ms.
const PLAYOUTS: usize = 256;
/// A chain is dead when its points' mean ownership leans this far (out of 100) to the opponent.
const DEAD_OWNERSHIP_PERCENT: i32 = 15;
/// Mixed into the position's hash to seed the playouts ("dead").
const SEED: u64 = 0x6465_6164;

/// Calibration only: per chain, a stone of it, its colour, its size and the mean ownership (percent, from
/// the chain's side) the playouts gave its points; settled chains get +100 or -100.
#[doc(hidden)]
pub fn chain_ownership(board: &Board) -> Vec<(Point, Color, usize, i32)> {
    let size = board.size() as usize;
    let (alive, barred) = settle(board);
    let ownership = playout::ownership(board, &barred, PLAYOUTS, board.hash() ^ SEED);
    let mut decided = vec![false; size * size];
    let mut out = Vec::new();
    for (point, color) in board.stones() {
        if decided[slot(size, point)] {
            continue;
        }
        let chain = board.chain(point);
        for p in &chain {
            decided[slot(size, *p)] = true;
        }
        let sign = if color == Color::Black { 1 } else { -1 };
        let own: i32 = chain
            .iter()
            .map(|p| sign * ownership.sums[slot(size, *p)])
            .sum();
        let percent = if alive[slot(size, point)] {
            100
        } else if barred[slot(size, point)] == Some(color) {
            -100
        } else {
            own * 100 / (ownership.runs * chain.len() as i32)
        };
        out.push((point, color, chain.len(), percent));
    }
    out
}

/// Benson's verdicts for both colours: per point, whether its stone is unconditionally alive, and which
/// colour may not play there (the opponent of the colour whose vital region it is).
fn settle(board: &Board) -> (Vec<bool>, Vec<Option<Color>>) {
    let size = board.size() as usize;
    let mut alive = vec![false; size * size];
    let mut barred: Vec<Option<Color>> = vec![None; size * size];
    for color in [Color::Black, Color::White] {
        let settled = benson::settle(board, color);
        for p in settled.alive {
            alive[slot(size, p)] = true;
        }
        for p in settled.vital {
            barred[slot(size, p)] = Some(color.opponent());
        }
    }
    (alive, barred)
}

/// The stones (every point of each dead chain) the engine believes dead on `board`, sorted.
pub fn estimate_dead(board: &Board) -> Vec<Point> {
    let size = board.size() as usize;
    let (alive, barred) = settle(board);
    let ownership = playout::ownership(board, &barred, PLAYOUTS, board.hash() ^ SEED);
    let mut decided = vec![false; size * size];
    let mut dead = Vec::new();
    for (point, color) in board.stones() {
        if decided[slot(size, point)] {
            continue;
        }
        let chain = board.chain(point);
        for p in &chain {
            decided[slot(size, *p)] = true;
        }
        let is_dead = if alive[slot(size, point)] {
            false
        } else if barred[slot(size, point)] == Some(color) {
            true
        } else {
            let sign = if color == Color::Black { 1 } else { -1 };
            let own: i32 = chain
                .iter()
                .map(|p| sign * ownership.sums[slot(size, *p)])
                .sum();
            own * 100 < -(DEAD_OWNERSHIP_PERCENT * ownership.runs * chain.len() as i32)
        };
        if is_dead {
            dead.extend(chain);
        }
    }
    dead.sort();
    dead
}

#[cfg(test)]
mod debug {
    use super::*;
    #[test]
    #[ignore]
    fn show_ownership() {
        let name = std::env::var("DEAD_DEBUG").unwrap();
        let bytes = std::fs::read(format!("/work/shared/data/sgf-corpus/games/{name}")).unwrap();
        let record = crate::sgf::parse(&bytes).unwrap();
        let game = record.replay(crate::game::KoRule::Positional).unwrap();
        let board = game.board();
        let size = board.size() as usize;
        let mut barred: Vec<Option<Color>> = vec![None; size * size];
        for color in [Color::Black, Color::White] {
            let settled = benson::settle(board, color);
            println!("{color} benson alive {}", settled.alive.len());
            for p in settled.vital {
                barred[slot(size, p)] = Some(color.opponent());
            }
        }
        let own = playout::ownership(board, &barred, PLAYOUTS, board.hash() ^ SEED);
        for row in 0..size {
            let mut line = String::new();
            for col in 0..size {
                let p = Point::new(col as u8, row as u8);
                let c = match board.get(p) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                line.push_str(&format!(
                    "{c}{:>4} ",
                    own.sums[slot(size, p)] * 100 / own.runs
                ));
            }
            println!("{:>2} {line}", 19 - row);
        }
    }
}
