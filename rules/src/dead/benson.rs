//! Unconditional life (Benson's algorithm): the chains of a colour that no sequence of opponent moves can
//! capture even if their owner always passes, and the regions that make them so.
//!
//! For a colour X, the X-enclosed regions are the connected sets of points without an X stone. A region is
//! vital to an X chain when it has an empty point and every empty point in it is a liberty of the chain:
//! the opponent can fill it only by playing onto that chain's liberties. Start with every X chain and every
//! region; repeatedly drop chains with fewer than two vital regions among the remaining ones, and regions
//! bordered by a dropped chain. What remains is alive unconditionally. An opponent stone inside a region
//! vital to such a chain can never have an eye (each empty point there touches X), so it is dead.

use super::playout::slot;
use crate::board::Board;
use crate::color::Color;
use crate::point::Point;

/// What Benson's algorithm settles for one colour.
#[derive(Debug, Clone, Default)]
pub(super) struct Settled {
    /// The points of the unconditionally alive chains.
    pub alive: Vec<Point>,
    /// The points of the regions vital to them (empty points and opponent stones inside).
    pub vital: Vec<Point>,
}

/// An X-enclosed region: its points, whether it has an empty point, the X chains that border it, and the
/// chains to which it is vital.
struct Region {
    points: Vec<Point>,
    borders: Vec<usize>,
    vital_to: Vec<usize>,
}

pub(super) fn settle(board: &Board, color: Color) -> Settled {
    let (chain_of, chains) = label_chains(board, color);
    let regions = enclosed_regions(board, color, &chain_of);
    let mut chain_alive = vec![true; chains.len()];
    let mut region_alive = vec![true; regions.len()];
    loop {
        let mut changed = false;
        for (c, alive) in chain_alive.iter_mut().enumerate() {
            let vital = regions
                .iter()
                .zip(&region_alive)
                .filter(|(r, &kept)| kept && r.vital_to.contains(&c))
                .count();
            if *alive && vital < 2 {
                *alive = false;
                changed = true;
            }
        }
        for (r, kept) in regions.iter().zip(region_alive.iter_mut()) {
            if *kept && r.borders.iter().any(|&c| !chain_alive[c]) {
                *kept = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut settled = Settled::default();
    for (c, stones) in chains.iter().enumerate() {
        if chain_alive[c] {
            settled.alive.extend(stones);
        }
    }
    for (r, region) in regions.iter().enumerate() {
        if region_alive[r] && region.vital_to.iter().any(|&c| chain_alive[c]) {
            settled.vital.extend(&region.points);
        }
    }
    settled
}

/// Numbers the chains of `color`: per point (row-major) its chain's number, and each chain's stones.
fn label_chains(board: &Board, color: Color) -> (Vec<Option<usize>>, Vec<Vec<Point>>) {
    let size = board.size() as usize;
    let mut chain_of = vec![None; size * size];
    let mut chains = Vec::new();
    for point in board.points() {
        if board.get(point) != Some(color) || chain_of[slot(size, point)].is_some() {
            continue;
        }
        let stones = board.chain(point);
        for &s in &stones {
            chain_of[slot(size, s)] = Some(chains.len());
        }
        chains.push(stones);
    }
    (chain_of, chains)
}

/// The `color`-enclosed regions, each with its bordering chains and the chains it is vital to.
fn enclosed_regions(board: &Board, color: Color, chain_of: &[Option<usize>]) -> Vec<Region> {
    let size = board.size() as usize;
    let mut seen = vec![false; size * size];
    let mut regions = Vec::new();
    for start in board.points() {
        if board.get(start) == Some(color) || seen[slot(size, start)] {
            continue;
        }
        let points = flood(board, start, |p| board.get(p) != Some(color), &mut seen);
        regions.push(describe(board, points, chain_of));
    }
    regions
}

/// The region of `points` with its bordering chains and the chains it is vital to.
fn describe(board: &Board, points: Vec<Point>, chain_of: &[Option<usize>]) -> Region {
    let size = board.size() as usize;
    let mut borders = Vec::new();
    let mut has_empty = false;
    // Per bordering chain, how many of the region's empty points it touches.
    let mut touches: Vec<(usize, usize)> = Vec::new();
    let mut empty_points = 0;
    for &p in &points {
        let is_empty = board.get(p).is_none();
        has_empty |= is_empty;
        empty_points += usize::from(is_empty);
        let mut touched: Vec<usize> = Vec::new();
        for n in board.adjacent(p) {
            let Some(c) = chain_of[slot(size, n)] else {
                continue;
            };
            if !borders.contains(&c) {
                borders.push(c);
            }
            if is_empty && !touched.contains(&c) {
                touched.push(c);
            }
        }
        for c in touched {
            match touches.iter_mut().find(|(chain, _)| *chain == c) {
                Some((_, count)) => *count += 1,
                None => touches.push((c, 1)),
            }
        }
    }
    let vital_to = if has_empty {
        touches
            .iter()
            .filter(|&&(_, n)| n == empty_points)
            .map(|&(c, _)| c)
            .collect()
    } else {
        Vec::new()
    };
    Region {
        points,
        borders,
        vital_to,
    }
}

/// The connected set of points through `start` for which `inside` holds, marking them in `seen`.
pub(super) fn flood(
    board: &Board,
    start: Point,
    inside: impl Fn(Point) -> bool,
    seen: &mut [bool],
) -> Vec<Point> {
    let size = board.size() as usize;
    let mut points = vec![start];
    seen[slot(size, start)] = true;
    let mut next = 0;
    while let Some(&p) = points.get(next) {
        next += 1;
        for n in board.adjacent(p) {
            if !seen[slot(size, n)] && inside(n) {
                seen[slot(size, n)] = true;
                points.push(n);
            }
        }
    }
    points
}
