//! The dead-stone estimate the server proposes when the scoring phase opens.
//!
//! Method: random playouts from the final position (see `random::playout`), in which neither side fills
//! its own eyes. Stones that cannot make two eyes inside the opponent's area get captured in most
//! playouts, while living groups keep their eyes and survive. A chain is proposed dead when, averaged over
//! its stones and over all playouts, its points ended up the opponent's much more often than its own.
//! The seed comes from the position's hash, so the same position always gets the same proposal.
//!
//! Limits, which the players correct by toggling chains: seki is not understood (random play often fills a
//! shared liberty and loses a seki group, so seki stones may be proposed dead); unsettled fights in a game
//! that was not played out are judged by chance; very large weak groups are judged by their likely fate,
//! not by reading.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use crate::random::{playout, SeededRng};

/// Playouts per estimate: enough for a stable majority on 19x19, cheap (a few ms) with this engine.
const PLAYOUTS: usize = 64;
/// A chain is dead when its points' mean ownership leans this far (out of 1.0) to the opponent.
const DEAD_OWNERSHIP_PERCENT: i64 = 40;

/// The stones (every point of each dead chain) the engine believes dead on `board`.
pub fn estimate_dead(board: &Board) -> Vec<Point> {
    let ownership = mean_ownership(board);
    let size = board.size() as usize;
    let mut dead = Vec::new();
    let mut decided = vec![false; size * size];
    for (point, color) in board.stones() {
        let slot = point.row as usize * size + point.col as usize;
        if decided[slot] {
            continue;
        }
        let chain = board.chain(point);
        let sign = if color == Color::Black { 1 } else { -1 };
        let own: i64 = chain
            .iter()
            .map(|p| sign * ownership[p.row as usize * size + p.col as usize])
            .sum();
        // `own` sums +1/-1 per playout and stone; dead when it leans far to the opponent.
        let is_dead = own * 100 < -(DEAD_OWNERSHIP_PERCENT * (PLAYOUTS * chain.len()) as i64);
        for p in &chain {
            decided[p.row as usize * size + p.col as usize] = true;
        }
        if is_dead {
            dead.extend(chain);
        }
    }
    dead.sort();
    dead
}

/// Per point, the sum over playouts of +1 (Black's at the end), -1 (White's) or 0.
fn mean_ownership(board: &Board) -> Vec<i64> {
    let size = board.size() as usize;
    let mut ownership = vec![0i64; size * size];
    let mut rng = SeededRng::new(board.hash() ^ 0x6465_6164);
    let max_moves = 3 * size * size;
    for run in 0..PLAYOUTS {
        let mut played = board.clone();
        let first = if run % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        playout(&mut played, first, &mut rng, max_moves);
        for point in played.points() {
            let slot = point.row as usize * size + point.col as usize;
            ownership[slot] += match owner(&played, point) {
                Some(Color::Black) => 1,
                Some(Color::White) => -1,
                None => 0,
            };
        }
    }
    ownership
}

/// Who a point belongs to at the end of a playout: its stone, or the colour all its neighbours share.
fn owner(board: &Board, point: Point) -> Option<Color> {
    if let Some(color) = board.get(point) {
        return Some(color);
    }
    let mut colors = board.adjacent(point).map(|n| board.get(n));
    let first = colors.next()??;
    colors.all(|c| c == Some(first)).then_some(first)
}
