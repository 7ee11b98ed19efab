// Replaying a record for display: setup stones, then each move with captures (a move removes the
// opponent's chains it leaves without liberties, then its own if it has none). Pure functions; no
// legality checks beyond that — the server checked the game when it was played.
//
//   const positions = replayPositions(parseMainLine(sgf));
//   positions[n] → { board: ['.X..', …], lastMove, moveNumber, color, capturesBlack, capturesWhite, ko, numbers }
//   (ko: the point retaking is forbidden on, see koPoint; numbers: pointKey → the number of the move that
//   put the stone now there)

import { EMPTY, STONE, otherColor } from './stones.js';
import { pointKey, samePoint } from './geometry.js';

function neighbours({ col, row }, size) {
  const out = [];
  if (col > 0) out.push({ col: col - 1, row });
  if (col < size - 1) out.push({ col: col + 1, row });
  if (row > 0) out.push({ col, row: row - 1 });
  if (row < size - 1) out.push({ col, row: row + 1 });
  return out;
}

/** The chain at `point` and whether it has a liberty. `grid` is rows of cell arrays. */
export function chainAt(grid, point) {
  const size = grid.length;
  const colour = grid[point.row][point.col];
  const stones = [];
  const seen = new Set([point.row * size + point.col]);
  const stack = [point];
  let hasLiberty = false;
  while (stack.length) {
    const p = stack.pop();
    stones.push(p);
    for (const n of neighbours(p, size)) {
      const c = grid[n.row][n.col];
      if (c === EMPTY) hasLiberty = true;
      else if (c === colour && !seen.has(n.row * size + n.col)) {
        seen.add(n.row * size + n.col);
        stack.push(n);
      }
    }
  }
  return { stones, hasLiberty };
}

/** Play `color` at `point` (null is a pass) on a grid; returns the new grid, how many stones it took and where. */
export function applyMove(grid, color, point) {
  if (!point) return { grid, captured: 0, capturedPoints: [] };
  const next = grid.map((row) => [...row]);
  const size = next.length;
  const own = STONE[color];
  const enemy = STONE[otherColor(color)];
  next[point.row][point.col] = own;
  const capturedPoints = [];
  for (const n of neighbours(point, size)) {
    if (next[n.row][n.col] !== enemy) continue;
    const chain = chainAt(next, n);
    if (chain.hasLiberty) continue;
    for (const s of chain.stones) next[s.row][s.col] = EMPTY;
    capturedPoints.push(...chain.stones);
  }
  const self = chainAt(next, point);
  if (!self.hasLiberty) for (const s of self.stones) next[s.row][s.col] = EMPTY;
  return { grid: next, captured: capturedPoints.length, capturedPoints };
}

/**
 * The ko point after a stone was played at `point` taking `captured` (the points it emptied), on `board`
 * (rows, as after the move): the taken stone's point when the move took exactly one stone and the new
 * stone stands alone with that point as its only liberty, so the opponent could take straight back.
 * Null otherwise. (Derived here because the game state carries no ko point.)
 */
export function koPoint(board, point, captured) {
  if (!point || captured?.length !== 1) return null;
  const grid = board.map((row) => [...row]);
  const size = grid.length;
  const chain = chainAt(grid, point);
  if (chain.stones.length !== 1) return null;
  const liberties = neighbours(point, size).filter((n) => grid[n.row][n.col] === EMPTY);
  return liberties.length === 1 && samePoint(liberties[0], captured[0]) ? captured[0] : null;
}

/** Every position of a parsed record, from the setup (index 0) to after the last move. */
export function replayPositions({ size, setup, moves }) {
  let grid = Array.from({ length: size }, () => Array(size).fill(EMPTY));
  for (const p of setup.black) grid[p.row][p.col] = STONE.black;
  for (const p of setup.white) grid[p.row][p.col] = STONE.white;
  const captures = { black: 0, white: 0 };
  // Which move put the stone now on each point; a stone taken off loses its number.
  let numbers = new Map();
  const snapshot = (lastMove, moveNumber, color, ko) => ({
    board: grid.map((row) => row.join('')), lastMove, moveNumber, color, ko,
    capturesBlack: captures.black, capturesWhite: captures.white, numbers,
  });
  const positions = [snapshot(null, 0, null, null)];
  moves.forEach((move, i) => {
    const played = applyMove(grid, move.color, move.point);
    grid = played.grid;
    captures[move.color] += played.captured;
    numbers = new Map(numbers);
    for (const p of played.capturedPoints) numbers.delete(pointKey(p));
    if (move.point && grid[move.point.row][move.point.col] !== EMPTY) numbers.set(pointKey(move.point), i + 1);
    const board = grid.map((row) => row.join(''));
    positions.push(snapshot(move.point, i + 1, move.color, koPoint(board, move.point, played.capturedPoints)));
  });
  return positions;
}
