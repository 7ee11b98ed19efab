//! Local reading for the chains the playouts leave undecided: capturing races and chains short of
//! liberties, where random play settles the fight by who happens to move first in it.
//!
//! The question a player asks of such a chain is whether it dies even when its owner moves first. The
//! search answers it by trying, for both sides, only the moves that matter to the chain: its liberties,
//! the liberties of the opponent chains touching it that are about as short of liberties (the other side
//! of a race), and captures of those in atari. The chain is saved once it has `ESCAPED_LIBERTIES`; the
//! search gives up (no verdict) past `DEPTH_MAX` moves or `NODES_MAX` positions, and all readings of one
//! estimate share `NODES_TOTAL_MAX`, so a position full of short-of-liberty chains (players can build
//! any position before passing) cannot make the estimate slow.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;

/// A chain with this many liberties is out of any local capturing race.
const ESCAPED_LIBERTIES: usize = 4;
/// Moves read ahead at most; races in finished games are a few liberties long.
const DEPTH_MAX: u32 = 10;
/// Positions visited at most per question.
const NODES_MAX: u32 = 3000;
/// Positions visited at most by all the readings of one estimate: each costs a board copy (a few
/// microseconds), so this keeps the reading under about 100 ms in the worst case.
pub(super) const NODES_TOTAL_MAX: u32 = 30_000;

/// Whether the chain through `stone` is captured even when its owner moves first: `Some(true)` when it
/// is, `Some(false)` when the owner saves it, `None` when the reading ran out of budget. The positions
/// visited are taken from `nodes_left`, the estimate's budget.
pub(super) fn dies_moving_first(board: &Board, stone: Point, nodes_left: &mut u32) -> Option<bool> {
    let owner = board.get(stone)?;
    let mut budget = NODES_MAX.min(*nodes_left);
    let start = budget;
    let verdict = captured(board, stone, owner, None, DEPTH_MAX, &mut budget);
    *nodes_left -= start - budget;
    verdict
}

/// Whether the target chain (through `stone`, owned by `owner`) ends captured with `to_move` to play.
fn captured(
    board: &Board,
    stone: Point,
    to_move: Color,
    ko: Option<Point>,
    depth: u32,
    budget: &mut u32,
) -> Option<bool> {
    let Some(owner) = board.get(stone) else {
        return Some(true);
    };
    if board.liberties_up_to(stone, ESCAPED_LIBERTIES, stone).len() >= ESCAPED_LIBERTIES {
        return Some(false);
    }
    if depth == 0 || *budget == 0 {
        return None;
    }
    *budget -= 1;
    let attacking = to_move != owner;
    let mut unknown = false;
    for point in candidate_moves(board, stone) {
        let Some(next) = play(board, point, to_move, ko) else {
            continue;
        };
        match captured(
            &next.0,
            stone,
            to_move.opponent(),
            next.1,
            depth - 1,
            budget,
        ) {
            Some(result) if result == attacking => return Some(attacking),
            Some(_) => {}
            None => unknown = true,
        }
    }
    // Passing is always possible: the attacker may wait, and so may the owner.
    if !unknown {
        if let Some(result) = captured_after_pass(board, stone, to_move, depth, budget, attacking) {
            return Some(result);
        }
    }
    (!unknown).then_some(!attacking)
}

/// When the side to move has no move that wins, passing can still win for the attacker only if the
/// owner then has no way out either; for the owner, passing wins when the attacker cannot capture.
fn captured_after_pass(
    board: &Board,
    stone: Point,
    to_move: Color,
    depth: u32,
    budget: &mut u32,
    attacking: bool,
) -> Option<bool> {
    if attacking {
        return None;
    }
    match captured(
        board,
        stone,
        to_move.opponent(),
        None,
        depth.saturating_sub(2),
        budget,
    ) {
        Some(false) => Some(false),
        _ => None,
    }
}

/// The moves that matter to the chain through `stone`: its liberties, and the liberties of the opponent
/// chains touching it with no more liberties than it has plus one.
fn candidate_moves(board: &Board, stone: Point) -> Vec<Point> {
    let own = board.liberties_up_to(stone, ESCAPED_LIBERTIES, stone);
    let mut moves = own.clone();
    let Some(owner) = board.get(stone) else {
        return moves;
    };
    let mut seen = Vec::new();
    for s in board.chain(stone) {
        for n in board.adjacent(s) {
            if board.get(n) != Some(owner.opponent()) {
                continue;
            }
            let id = board.chain_id(n);
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let theirs = board.liberties_up_to(n, own.len() + 2, n);
            if theirs.len() <= own.len() + 1 {
                for p in theirs {
                    if !moves.contains(&p) {
                        moves.push(p);
                    }
                }
            }
        }
    }
    moves
}

/// The board after `color` plays `point`, with the ko point it creates; `None` when illegal.
fn play(
    board: &Board,
    point: Point,
    color: Color,
    ko: Option<Point>,
) -> Option<(Board, Option<Point>)> {
    if Some(point) == ko {
        return None;
    }
    let preview = board.preview(point, color).ok()?;
    let mut next = board.clone();
    let mut captured = Vec::new();
    next.play_unchecked(point, color, &mut captured);
    let ko = preview.ko_point.and_then(|_| captured.first().copied());
    Some((next, ko))
}
